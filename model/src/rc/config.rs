//! The capability switch that joins the RC rules to the engines (docs/rc.md, "Joined to the
//! engines"), and the settings it carries. Off (`None`) by default, as TSO and raw QPs are:
//! without it every engine behaves as before (an RC request completes when its frames leave, a
//! PSN other than the expected one is discarded silently), which is what the RTL and the
//! co-simulation compare against byte for byte.

use super::requester::{RequesterConfig, DEFAULT_WRS};
use super::responder::ResponderConfig;
use super::timer::Scale;
use crate::qp::Psn;

/// The reliable transport's settings for the RC QPs of a NIC; a QP's own verbs attributes
/// ([`QpTransport`]) take the place of `timeout`, `retry_cnt`, `rnr_retry` and `rnr_timer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reliable {
    /// Verbs `timeout` (0..=31): the local ACK timeout is `scale` × 2^timeout ticks.
    pub timeout: u8,
    /// Verbs `retry_cnt` (0..=7).
    pub retry_cnt: u8,
    /// Verbs `rnr_retry` (0..=7, 7 = forever).
    pub rnr_retry: u8,
    /// Ticks per 4.096 µs. The send side's clock is its turns ([`crate::wqe::Queues::now`]).
    pub scale: Scale,
    /// Most packets a requester keeps unacknowledged.
    pub max_inflight: u32,
    /// The responder acknowledges at least every this many packets.
    pub ack_every: u32,
    /// The RNR timer code the responder's RNR NAKs carry (verbs `min_rnr_timer`).
    pub rnr_timer: u8,
}

impl Default for Reliable {
    /// Settings for a model run counted in turns: a turn stands for 4.096 µs, so the timeout
    /// (`timeout` 8) is 256 turns and RNR code 1 (10 µs) three turns; a window of 16 packets,
    /// an ACK at least every 8.
    fn default() -> Self {
        Reliable {
            timeout: 8,
            retry_cnt: 7,
            rnr_retry: 7,
            scale: Scale(1),
            max_inflight: DEFAULT_WRS as u32,
            ack_every: 8,
            rnr_timer: 1,
        }
    }
}

/// A QP's own transport attributes, as verbs sets them: `timeout`, `retry_cnt` and
/// `rnr_retry` with RTS, `min_rnr_timer` with RTR. What it leaves `None` is the NIC's
/// ([`Reliable`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct QpTransport {
    /// Verbs `timeout` (1..=31 here: 0, no timeout, would let a lost last packet hang).
    pub timeout: Option<u8>,
    /// Verbs `retry_cnt` (0..=7).
    pub retry_cnt: Option<u8>,
    /// Verbs `rnr_retry` (0..=7, 7 = forever).
    pub rnr_retry: Option<u8>,
    /// Verbs `min_rnr_timer` (0..=31): the code this QP's RNR NAKs carry.
    pub min_rnr_timer: Option<u8>,
}

impl QpTransport {
    /// Whether every attribute given is in its range.
    pub fn valid(&self) -> bool {
        self.timeout.is_none_or(|t| (1..=31).contains(&t))
            && self.retry_cnt.is_none_or(|r| r <= 7)
            && self.rnr_retry.is_none_or(|r| r <= 7)
            && self.min_rnr_timer.is_none_or(|r| r <= 31)
    }
}

impl Reliable {
    /// These settings with QP attributes `t` in place of the NIC's.
    pub fn for_qp(&self, t: QpTransport) -> Reliable {
        Reliable {
            timeout: t.timeout.unwrap_or(self.timeout),
            retry_cnt: t.retry_cnt.unwrap_or(self.retry_cnt),
            rnr_retry: t.rnr_retry.unwrap_or(self.rnr_retry),
            rnr_timer: t.min_rnr_timer.unwrap_or(self.rnr_timer),
            ..*self
        }
    }

    /// A requester's settings starting at `sq_psn`.
    pub const fn requester(&self, sq_psn: Psn) -> RequesterConfig {
        RequesterConfig {
            sq_psn,
            timeout: self.timeout,
            retry_cnt: self.retry_cnt,
            rnr_retry: self.rnr_retry,
            scale: self.scale,
            max_inflight: self.max_inflight,
        }
    }

    /// A responder's settings expecting `epsn`.
    pub const fn responder(&self, epsn: Psn) -> ResponderConfig {
        ResponderConfig {
            epsn,
            ack_every: self.ack_every,
            rnr_timer: self.rnr_timer,
        }
    }
}
