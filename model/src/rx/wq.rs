//! A receive work queue (WQ): a ring of receive WQEs in host memory with its doorbell, its own
//! completion ring, a protection domain and a state (verbs `ibv_wq`).
//!
//! Every receive ring is a WQ: a QP's own receive queue, a shared receive queue several QPs
//! name, and the queues an RSS QP spreads over (docs/rx.md, "Work queues").

use crate::wqe::{CompletionRing, Doorbell, DoorbellError, SendRing};
use core::fmt;

/// Where a WQ's WQEs lie: 2^k slots of 2^s 64-byte blocks, the send ring's geometry.
pub type RecvRing = SendRing;

/// A WQ's state (`enum ibv_wq_state`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WqState {
    /// Created or reset: packets for it are dropped, posted WQEs are kept.
    #[default]
    Reset = 0,
    /// Ready: packets take its WQEs.
    Ready = 1,
    /// Error: every posted WQE completes flushed, packets for it are dropped.
    Err = 2,
}

impl WqState {
    /// A software modify from `self` to `to`: verbs allows RESET→READY, READY→ERR and any
    /// state to RESET (and staying put).
    pub const fn modify(self, to: WqState) -> Result<WqState, WqTransition> {
        match (self, to) {
            (_, WqState::Reset)
            | (WqState::Reset, WqState::Ready)
            | (WqState::Ready, WqState::Ready | WqState::Err)
            | (WqState::Err, WqState::Err) => Ok(to),
            _ => Err(WqTransition { from: self, to }),
        }
    }
}

/// A WQ modify verbs refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqTransition {
    /// The state the WQ is in (and stays in).
    pub from: WqState,
    /// The state asked for.
    pub to: WqState,
}

impl fmt::Display for WqTransition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a WQ cannot move from {:?} to {:?}", self.from, self.to)
    }
}

/// What software gives when it creates a WQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqConfig {
    /// The QP its completions name: the QP whose receive queue it is, or the RSS QP.
    pub qpn: u32,
    /// Scatter entries must name regions of this protection domain.
    pub pd: u32,
    /// The receive ring.
    pub ring: RecvRing,
    /// Its completion ring and where its entries lie.
    pub cq: CompletionRing,
    /// Host address of completion entry 0.
    pub cq_base: u64,
    /// Whether frames that are not RoCEv2 may land here whole (a raw-packet WQ an RSS context
    /// or a steering rule names).
    pub raw: bool,
}

/// A WQ's run-time state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wq {
    /// Its configuration.
    pub config: WqConfig,
    /// Its state.
    pub state: WqState,
    /// Posted WQEs (software produces, the receive path consumes).
    pub doorbell: Doorbell,
    /// Its completions.
    pub cq: CompletionRing,
}

impl Wq {
    /// A WQ in RESET with empty rings starting at index 0.
    pub const fn new(config: WqConfig) -> Wq {
        Wq {
            config,
            state: WqState::Reset,
            doorbell: Doorbell::new(config.ring.ring(), 0),
            cq: config.cq,
        }
    }

    /// A receive doorbell: the producer index is now `producer`; returns the WQEs it adds.
    pub fn post(&mut self, producer: u32) -> Result<u32, DoorbellError> {
        self.doorbell.write(producer)
    }

    /// Whether a completion can be written now.
    pub const fn cq_room(&self) -> bool {
        self.cq.used() < self.cq.ring().entries()
    }

    /// The host address of completion index `i`.
    pub const fn cqe_addr(&self, i: u32) -> u64 {
        self.config.cq_base + self.cq.ring().slot(i) as u64 * super::CQE_BYTES as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions() {
        use WqState::*;
        let ok = [
            (Reset, Ready),
            (Ready, Err),
            (Ready, Reset),
            (Err, Reset),
            (Reset, Reset),
        ];
        for (a, b) in ok {
            assert_eq!(a.modify(b), Ok(b));
        }
        for (a, b) in [(Reset, Err), (Err, Ready)] {
            assert_eq!(a.modify(b), Result::Err(WqTransition { from: a, to: b }));
        }
    }
}
