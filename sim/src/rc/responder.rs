//! `rtl/rc/rc_responder.sv` as typed values: a request with its QP's responder state in, the
//! answer with the state to write back out. The block holds no state of its own, so a bench
//! keeps each QP's state as the block last wrote it and hands it back with the QP's next packet.

use crate::duts::RcResponderPorts;
use rocenic_model::rc::responder::{Executed, PsnClass};

/// One QP's responder state as the receive context would hold it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub epsn: u32,
    pub msn: u32,
    pub nak_sent: bool,
    pub unacked: u8,
    pub error: bool,
}

/// A request packet with its QP's state and settings.
#[derive(Clone, Copy, Debug)]
pub struct Input {
    pub state: State,
    pub ack_every: u8,
    pub rnr_timer: u8,
    pub psn: u32,
    pub ack_req: bool,
    pub last: bool,
    /// An RDMA READ request taking `read_psns` PSNs; `kept`: a kept READ holds it.
    pub read: bool,
    pub read_psns: u32,
    pub kept: bool,
    /// What executing it finds.
    pub exec: Executed,
}

/// The block's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    /// The state to write back.
    pub state: State,
    pub class: PsnClass,
    pub executed: bool,
    /// An acknowledgement to send: BTH PSN `psn`, AETH `syndrome` and `aeth_msn`.
    pub ack: bool,
    /// READ responses to send from `psn`, their AETHs' MSN `aeth_msn`.
    pub read: bool,
    pub psn: u32,
    pub syndrome: u8,
    pub aeth_msn: u32,
    pub qp_error: bool,
    pub read_dropped: bool,
}

/// Offers `input` (or nothing) and sets the answer's ready; the caller steps the clock.
pub fn drive<D: RcResponderPorts>(dut: &mut D, input: Option<&Input>, ready: bool) {
    dut.set_s_valid(input.is_some());
    dut.set_m_ready(ready);
    let Some(i) = input else { return };
    dut.set_s_epsn(i.state.epsn);
    dut.set_s_msn(i.state.msn);
    dut.set_s_nak_sent(i.state.nak_sent);
    dut.set_s_unacked(i.state.unacked);
    dut.set_s_error(i.state.error);
    dut.set_s_ack_every(i.ack_every);
    dut.set_s_rnr_timer(i.rnr_timer);
    dut.set_s_psn(i.psn);
    dut.set_s_ack_req(i.ack_req);
    dut.set_s_last(i.last);
    dut.set_s_read(i.read);
    dut.set_s_read_psns(i.read_psns);
    dut.set_s_kept(i.kept);
    dut.set_s_exec(i.exec as u8);
}

/// The answer on the output port (meaningful while `m_valid`).
pub fn sample<D: RcResponderPorts>(dut: &D) -> Result<Output, String> {
    let code = dut.m_class();
    let class = PsnClass::ALL
        .into_iter()
        .find(|c| *c as u8 == code)
        .ok_or_else(|| format!("m_class {code} is no class"))?;
    Ok(Output {
        state: State {
            epsn: dut.m_epsn(),
            msn: dut.m_msn(),
            nak_sent: dut.m_nak_sent(),
            unacked: dut.m_unacked(),
            error: dut.m_error(),
        },
        class,
        executed: dut.m_executed(),
        ack: dut.m_ack(),
        read: dut.m_read(),
        psn: dut.m_psn(),
        syndrome: dut.m_syndrome(),
        aeth_msn: dut.m_aeth_msn(),
        qp_error: dut.m_qp_error(),
        read_dropped: dut.m_read_dropped(),
    })
}
