//! `rtl/rc/rc_timer.sv` as typed values: a timer to work out in, its ticks out, and the ticks
//! `model::rc::Scale` gives for the same request.

use crate::duts::RcTimerPorts;
use rocenic_model::rc::Scale;

/// A timer named by its verbs code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// The local ACK timeout of verbs `timeout` (0: none).
    AckTimeout(u8),
    /// The delay of an RNR NAK's timer code.
    RnrDelay(u8),
}

impl Request {
    /// Its ticks at `scale` as the model works them out (no timeout: 0, as the requester
    /// takes it).
    pub fn ticks(self, scale: Scale) -> u64 {
        match self {
            Request::AckTimeout(t) => scale.ack_timeout(t).unwrap_or(0),
            Request::RnrDelay(c) => scale.rnr_delay(c),
        }
    }
}

/// Offers `request` (or nothing) and sets the answer's ready; the caller steps the clock.
pub fn drive<D: RcTimerPorts>(dut: &mut D, request: Option<Request>, ready: bool) {
    dut.set_s_valid(request.is_some());
    dut.set_m_ready(ready);
    let (rnr, code) = match request {
        Some(Request::AckTimeout(t)) => (false, t),
        Some(Request::RnrDelay(c)) => (true, c),
        None => return,
    };
    dut.set_s_rnr(rnr);
    dut.set_s_code(code & 0x1F);
}
