//! The receive path's control plane (`rtl/rx/rx_ctrl.sv`; registers `model::rx::regs`,
//! docs/rx-registers.md): the enable, status and counters here; work queues in `wq.rs`
//! ([`RxPath::create_wq`], [`RxPath::modify_wq`], [`RxPath::destroy_wq`],
//! [`RxPath::post_receives`], [`RxPath::release_completions`]); QPs' receive contexts in
//! `qp.rs` ([`RxPath::attach`], [`RxPath::detach`]).
//!
//! Commands run as on the WQE engine: staged registers, `COMMAND`, `STATUS` polled until `BUSY`
//! clears, `CMD_ERROR` turned into [`Error::Refused`]. The block carries a command out only
//! between two frames.
//!
//! Every request is first checked against the model's rules (`RecvEngine`'s refusals, as
//! [`Error::Rx`]), with the firmware's own tables standing for the block's: the queues that
//! exist with their state, last doorbell and how many contexts name them; the contexts by slot.
//! One refusal is the block's alone: attaching a QP the send side's slot does not hold
//! (`RxError::NoQp` in the model), which the firmware sees as [`Error::Refused`].

mod qp;
mod wq;

pub use qp::AttachedQp;
pub use wq::WqInfo;

use crate::bus::{caps_count, command, fits, identify, poll};
use crate::wqe::Status;
use crate::{Bus, Error, DEFAULT_POLLS};
use qp::Context;
use rocenic_model::rc::Reliable;
use rocenic_model::rx::regs::{self, caps, control, status};
use rocenic_model::rx::{Counts, Discard};
use wq::Queue;

/// What the block was built with (`CAPS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Work queues.
    pub wqs: u32,
    /// Receive-context slots (the send side's QP slots).
    pub qps: u32,
    /// Scatter entries a receive WQE may have.
    pub max_sge: u32,
    /// Bytes per beat of the frame input.
    pub data_bytes: u32,
}

impl Caps {
    /// The fields of a `CAPS` word.
    pub const fn from_word(w: u32) -> Caps {
        Caps {
            wqs: caps_count(caps::WQS.get(w)),
            qps: caps_count(caps::QPS.get(w)),
            max_sge: caps::MAX_SGE.get(w),
            data_bytes: caps::DATA_BYTES.get(w),
        }
    }
}

// `STATUS` has the WQE engine's layout, so one decoder (and `bus::command`'s bits) serves both.
const _: () = {
    use rocenic_model::wqe::regs::status as s;
    assert!(status::BUSY.lsb == s::BUSY.lsb && status::CMD_ERROR.lsb == s::CMD_ERROR.lsb);
    assert!(status::DB_ERROR.lsb == s::DB_ERROR.lsb && status::CQ_FAULT.lsb == s::CQ_FAULT.lsb);
    assert!(status::IDLE.lsb == s::IDLE.lsb);
};

/// The receive path's control plane over bus `B`, with tables for up to `WQS` work queues and
/// `QPS` receive-context slots; a block with more of either is refused at [`open`](Self::open)
/// (a queue number or a QPN's low bits may name any of them).
pub struct RxPath<B: Bus, const WQS: usize = 64, const QPS: usize = 64> {
    bus: B,
    caps: Caps,
    enabled: bool,
    /// The RC responder's settings, `None` when off.
    responder: Option<Reliable>,
    /// Acknowledge frames go to the send side's requesters (`CONTROL.REQUESTER`).
    requester: bool,
    polls: u32,
    wqs: [Option<Queue>; WQS],
    ctxs: [Option<Context>; QPS],
}

impl<B: Bus, const WQS: usize, const QPS: usize> RxPath<B, WQS, QPS> {
    /// Checks `ID`, reads `CAPS` and `CONTROL`. The block must be out of reset: no queue, no
    /// context.
    pub fn open(mut bus: B) -> Result<Self, Error> {
        identify(&mut bus, regs::ID, regs::ID_VALUE)?;
        let caps = Caps::from_word(bus.read(regs::CAPS)?);
        fits(&[
            ("work queues", caps.wqs, WQS),
            ("receive-context slots", caps.qps, QPS),
        ])?;
        let enabled = control::ENABLE.get(bus.read(regs::CONTROL)?) != 0;
        Ok(RxPath {
            bus,
            caps,
            enabled,
            responder: None,
            requester: false,
            polls: DEFAULT_POLLS,
            wqs: [None; WQS],
            ctxs: [None; QPS],
        })
    }

    /// The block's parameters.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Whether the block takes frames.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    crate::bus::block_access!();

    /// Starts taking frames.
    pub fn enable(&mut self) -> Result<(), Error> {
        self.set_enable(true)
    }

    /// Stops taking frames: they wait at the input, none is dropped.
    pub fn disable(&mut self) -> Result<(), Error> {
        self.set_enable(false)
    }

    fn set_enable(&mut self, on: bool) -> Result<(), Error> {
        let (addr, value) = regs::control_rc(on, self.responder.as_ref(), self.requester)
            .expect("settings checked when set");
        self.bus.write(addr, value)?;
        self.enabled = on;
        Ok(())
    }

    /// Turns the RC responder on with `reliable`'s `ack_every` and `rnr_timer` (its other
    /// fields are the requester's), or off with `None` (docs/rc-responder.md, "ACK frames"). Set it
    /// before RC traffic: the block keeps each QP's responder state from its `QP_ATTACH`.
    /// Refused: settings `CONTROL` cannot hold, or a block built without the responder (the bit
    /// reads back 0), which is then left off.
    pub fn set_responder(&mut self, reliable: Option<Reliable>) -> Result<(), Error> {
        let (addr, value) = regs::control_rc(self.enabled, reliable.as_ref(), self.requester)
            .ok_or(Error::ResponderSettings {
                ack_every: reliable.map_or(0, |r| r.ack_every),
                rnr_timer: reliable.map_or(0, |r| r.rnr_timer),
            })?;
        self.bus.write(addr, value)?;
        if reliable.is_some() && control::RESPONDER.get(self.bus.read(regs::CONTROL)?) == 0 {
            self.responder = None;
            return Err(Error::NoResponder);
        }
        self.responder = reliable;
        Ok(())
    }

    /// The RC responder's settings, `None` when off.
    pub fn responder(&self) -> Option<Reliable> {
        self.responder
    }

    /// Hands well-formed Acknowledge frames to the send side's requesters (`on`) or discards
    /// them as unsupported (docs/rc-responder.md, "Acknowledges coming in"): on with a WQE engine that
    /// runs the reliable transport. Refused: a block built without it (the bit reads back 0),
    /// which is then left off.
    pub fn set_requester(&mut self, on: bool) -> Result<(), Error> {
        let (addr, value) = regs::control_rc(self.enabled, self.responder.as_ref(), on)
            .expect("settings checked when set");
        self.bus.write(addr, value)?;
        if on && control::REQUESTER.get(self.bus.read(regs::CONTROL)?) == 0 {
            self.requester = false;
            return Err(Error::NoRequester);
        }
        self.requester = on;
        Ok(())
    }

    /// Whether Acknowledge frames go to the send side's requesters.
    pub fn requester(&self) -> bool {
        self.requester
    }

    /// `STATUS`.
    pub fn status(&mut self) -> Result<Status, Error> {
        Ok(Status::from_word(self.bus.read(regs::STATUS)?))
    }

    /// Clears the sticky `DB_ERROR` and `CQ_FAULT`.
    pub fn clear_errors(&mut self) -> Result<(), Error> {
        let ones = status::DB_ERROR.put(1) | status::CQ_FAULT.put(1);
        Ok(self.bus.write(regs::STATUS, ones)?)
    }

    /// Waits until no frame is in flight and no command is pending (`STATUS.IDLE`).
    pub fn wait_idle(&mut self) -> Result<Status, Error> {
        let w = poll(&mut self.bus, regs::STATUS, self.polls, |s| {
            status::IDLE.get(s) != 0
        })?;
        Ok(Status::from_word(w))
    }

    /// Frames taken and discarded by reason since reset, as 32-bit counters that wrap (the
    /// model's [`Counts`] with each count modulo 2^32).
    pub fn counts(&mut self) -> Result<Counts, Error> {
        let mut c = Counts {
            accepted: self.bus.read(regs::ACCEPTED)?.into(),
            ..Counts::default()
        };
        for why in Discard::ALL {
            c.discarded[why as usize] = self.bus.read(regs::discards(why))?.into();
        }
        Ok(c)
    }

    /// Writes a `COMMAND` (an encoder's write) and waits for it: [`Error::Refused`] when the
    /// block refused it.
    fn command(&mut self, write: regs::Write32) -> Result<(), Error> {
        command(&mut self.bus, regs::STATUS, self.polls, write)
    }
}
