//! The receive path (docs/rx.md): frames in, the RSS pipeline's verdict next to each; receive
//! WQEs taken from work queues in host memory, payload scattered under memory-region
//! protection, completions written to each work queue's own completion ring.
//!
//! - [`packet`]: RoCEv2 or raw, the ICRC, the transport headers.
//! - [`wq`]: work queues (a QP's receive queue, a shared receive queue, an RSS QP's queues).
//! - [`engine`]: the destination QP, Q_Key and in-order PSN checks, WQE fetch, scatter, RDMA
//!   WRITE, completions, errors and flushes.
//! - [`wqe`], [`cqe`], [`layout`]: the host-memory formats.
//!
//! A frame is either taken (its bytes land, a completion may be written) or discarded with a
//! [`Discard`] reason that the engine counts; it is never half taken, delivered twice or to
//! another QP's buffers.

pub mod cqe;
pub mod engine;
pub mod layout;
pub mod packet;
pub mod regs;
pub mod wq;
pub mod wqe;

pub use cqe::{RecvCqe, RecvFlags, RecvOpcode};
pub use engine::{qp_slot, Accepted, Counts, Message, RcReply, RecvEngine, RxError, Target};
pub use packet::{classify, classify_with, Incoming, RocePacket, GRH_AREA, MAX_FRAME};
pub use wq::{RecvRing, Wq, WqConfig, WqState, WqTransition};
pub use wqe::RecvWqe;

use core::fmt;

/// Bytes of a receive WQE's header.
pub const HEADER_BYTES: usize = 16;
/// Bytes of a receive completion.
pub const CQE_BYTES: usize = 32;
/// The most scatter entries a receive WQE may have (a 1 KiB slot: header and 63 entries).
pub const MAX_SGE: usize = 63;

/// Why a frame was not taken. Each has its own counter ([`Counts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Discard {
    /// Headers that do not parse or disagree with each other (lengths, pad, P_Key, TVer).
    Malformed = 0,
    /// ICRC (or IPv4 header checksum) wrong.
    Icrc = 1,
    /// An opcode this path does not handle (ACK, READ, atomics, UC, CNP).
    Unsupported = 2,
    /// No QP with the destination QPN has a receive side.
    NoQp = 3,
    /// The QP is not in RTR or RTS.
    QpState = 4,
    /// The opcode's transport is not the QP's type.
    Transport = 5,
    /// UD: the DETH's Q_Key is not the QP's.
    QKey = 6,
    /// RC: not the expected PSN (a duplicate or a gap; the reliable transport answers later).
    Psn = 7,
    /// RC: an opcode out of sequence (a MIDDLE or LAST without a FIRST, a FIRST inside a
    /// message).
    Sequence = 8,
    /// A payload longer than the path MTU, a FIRST or MIDDLE shorter than it, or an RDMA WRITE
    /// longer than its RETH says.
    Length = 9,
    /// RDMA WRITE: the R_Key names no region of the QP's PD with remote write rights
    /// covering the range.
    RKey = 10,
    /// No work queue for the frame (raw frames: the queue the RSS pipeline chose is not a raw
    /// one).
    NoWq = 11,
    /// The work queue is not READY.
    WqState = 12,
    /// No receive WQE posted (the reliable transport will answer RNR).
    NoWqe = 13,
    /// The work queue's completion ring is full.
    CqFull = 14,
    /// Host memory refused a DMA write of an RDMA WRITE's payload or of a completion.
    Fault = 15,
}

impl Discard {
    /// Every reason, in code order.
    pub const ALL: [Discard; 16] = [
        Discard::Malformed,
        Discard::Icrc,
        Discard::Unsupported,
        Discard::NoQp,
        Discard::QpState,
        Discard::Transport,
        Discard::QKey,
        Discard::Psn,
        Discard::Sequence,
        Discard::Length,
        Discard::RKey,
        Discard::NoWq,
        Discard::WqState,
        Discard::NoWqe,
        Discard::CqFull,
        Discard::Fault,
    ];

    /// Its name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Discard::Malformed => "malformed",
            Discard::Icrc => "icrc",
            Discard::Unsupported => "unsupported",
            Discard::NoQp => "no_qp",
            Discard::QpState => "qp_state",
            Discard::Transport => "transport",
            Discard::QKey => "qkey",
            Discard::Psn => "psn",
            Discard::Sequence => "sequence",
            Discard::Length => "length",
            Discard::RKey => "rkey",
            Discard::NoWq => "no_wq",
            Discard::WqState => "wq_state",
            Discard::NoWqe => "no_wqe",
            Discard::CqFull => "cq_full",
            Discard::Fault => "fault",
        }
    }
}

impl fmt::Display for Discard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_in_code_order() {
        for (i, d) in Discard::ALL.iter().enumerate() {
            assert_eq!(*d as usize, i);
        }
    }
}
