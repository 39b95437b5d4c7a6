//! Host-memory formats of the send side: work queue elements (WQEs) in 64-byte blocks,
//! completion queue entries (CQEs), rings of 2^k entries and the doorbell rule.
//!
//! The layouts are data ([`layout`]): one field table per segment, from which `cargo xtask gen`
//! renders the SystemVerilog package (`rtl/wqe/wqe_fmt_pkg.sv`) and the tables of `docs/wqe.md`. The codecs ([`Control`],
//! [`AddressVector`], [`RemoteAddress`], [`DataSegment`], [`Cqe`], [`Wqe`]) read and write those
//! same offsets. `docs/wqe.md` describes the formats; the verbs facts behind them are in
//! `docs/reference.md §6`.
//!
//! All multi-byte fields are little-endian and aligned to their size; every byte a table marks
//! reserved, and every bit above a field's stated width, must be zero, and a decoder rejects
//! them, so a later version can give them a meaning.

pub mod check;
pub mod cqe;
pub mod engine;
pub mod frame;
pub mod layout;
pub mod memory;
pub mod packets;
pub mod queues;
mod raw;
pub mod regs;
pub mod reliable;
pub mod ring;
mod segments;
mod view;

pub use cqe::{Cqe, Status, CQE_BYTES};
pub use engine::{Nic, NotRun, RcWqe, SendEngine};
#[cfg(feature = "std")]
pub use memory::{AddError, Fill, HostMemory};
pub use memory::{Fault, Memory};
pub use queues::{fetch, QueueError, Queues, Step};
pub use ring::{CompletionRing, Doorbell, DoorbellError, Ring, SendRing};
pub use segments::Vlan;
pub(crate) use segments::{fits, put};
pub use segments::{AddressVector, Control, DataSegment, RemoteAddress};
pub use view::{Payload, Tso, WorkRequest, Wqe, WqeLayout};

use core::fmt;

/// Bytes in a WQE block; a WQE is 1..=[`MAX_BLOCKS`] blocks.
pub const BLOCK_BYTES: usize = 64;
/// The most blocks one WQE may span (1 KiB: 62 data segments, or 992 bytes of inline data).
pub const MAX_BLOCKS: usize = 16;
/// Bytes of the largest WQE.
pub const MAX_WQE_BYTES: usize = BLOCK_BYTES * MAX_BLOCKS;
/// Bytes of the control segment, at the start of block 0.
pub const CONTROL_BYTES: usize = 32;
/// Bytes of the UD address-vector segment.
pub const AV_BYTES: usize = 48;
/// Bytes of the remote-address segment (RDMA WRITE).
pub const RADDR_BYTES: usize = 16;
/// Bytes of one data (gather) segment.
pub const DATA_BYTES: usize = 16;

/// A send opcode. The values are those of rdma-core's `enum ibv_wr_opcode` (verbs.h), so a
/// driver copies the verbs value unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Opcode {
    /// `IBV_WR_RDMA_WRITE`.
    RdmaWrite = 0,
    /// `IBV_WR_RDMA_WRITE_WITH_IMM`.
    RdmaWriteImm = 1,
    /// `IBV_WR_SEND`.
    Send = 2,
    /// `IBV_WR_SEND_WITH_IMM`.
    SendImm = 3,
    /// `IBV_WR_RDMA_READ`: RC only, and only with the reliable transport on
    /// ([`crate::rc::Reliable`]); the gather list is where the remote bytes land. The RTL
    /// engine does not run it yet, so it is not in [`Opcode::ALL`].
    RdmaRead = 4,
    /// `IBV_WR_TSO`: a header template and a payload cut into MSS-sized TCP segments
    /// ([`crate::tso`]), on an engine built with TSO ([`SendEngine::tso`]); refused otherwise.
    Tso = 10,
}

impl Opcode {
    /// Every opcode the RTL engine runs too, in value order ([`Opcode::RdmaRead`] is the
    /// model's alone for now: the generated SystemVerilog package and the co-simulation's
    /// opcode sweeps follow this list).
    pub const ALL: [Opcode; 5] = [
        Opcode::RdmaWrite,
        Opcode::RdmaWriteImm,
        Opcode::Send,
        Opcode::SendImm,
        Opcode::Tso,
    ];

    /// The opcode of a byte, `None` for an unknown value.
    pub const fn from_u8(v: u8) -> Option<Opcode> {
        match v {
            0 => Some(Opcode::RdmaWrite),
            1 => Some(Opcode::RdmaWriteImm),
            2 => Some(Opcode::Send),
            3 => Some(Opcode::SendImm),
            4 => Some(Opcode::RdmaRead),
            10 => Some(Opcode::Tso),
            _ => None,
        }
    }

    /// Carries an immediate (the control segment's `IMM` is used; otherwise it must be 0).
    pub const fn has_imm(self) -> bool {
        matches!(self, Opcode::RdmaWriteImm | Opcode::SendImm)
    }

    /// Needs a remote-address segment (RDMA WRITE and READ).
    pub const fn has_raddr(self) -> bool {
        matches!(
            self,
            Opcode::RdmaWrite | Opcode::RdmaWriteImm | Opcode::RdmaRead
        )
    }

    /// The lower-case name the completion CSV uses.
    pub const fn name(self) -> &'static str {
        match self {
            Opcode::RdmaWrite => "rdma_write",
            Opcode::RdmaWriteImm => "rdma_write_imm",
            Opcode::Send => "send",
            Opcode::SendImm => "send_imm",
            Opcode::RdmaRead => "rdma_read",
            Opcode::Tso => "tso",
        }
    }
}

/// Send flags, the bits of rdma-core's `enum ibv_send_flags` (verbs.h).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u8);

impl Flags {
    /// `IBV_SEND_FENCE`: wait for earlier RDMA READs (kept for the verbs; no effect yet).
    pub const FENCE: Flags = Flags(1 << 0);
    /// `IBV_SEND_SIGNALED`: a successful WR writes a completion.
    pub const SIGNALED: Flags = Flags(1 << 1);
    /// `IBV_SEND_SOLICITED`: the SE bit of the BTH.
    pub const SOLICITED: Flags = Flags(1 << 2);
    /// `IBV_SEND_INLINE`: the payload is in the WQE, not in a gather list.
    pub const INLINE: Flags = Flags(1 << 3);
    /// `IBV_SEND_IP_CSUM`: fill the IPv4 header checksum (RoCEv2 always does).
    pub const IP_CSUM: Flags = Flags(1 << 4);
    /// The bits that have a meaning; the others are reserved.
    pub const KNOWN: u8 = 0x1F;

    /// The flags of a byte, `None` when a reserved bit is set.
    pub const fn from_bits(bits: u8) -> Option<Flags> {
        if bits & !Self::KNOWN == 0 {
            Some(Flags(bits))
        } else {
            None
        }
    }

    /// The byte.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// All of `other`'s bits are set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of bits.
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

/// Why bytes are not a valid WQE or CQE, or a value does not fit the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The opcode byte is not an [`Opcode`].
    UnknownOpcode(u8),
    /// A reserved byte, or a bit above a field's width, is set: `field` names it.
    Reserved {
        /// The field (its name in [`layout`]).
        field: &'static str,
    },
    /// A value does not fit its field (an encoder's input): `field` names it.
    TooWide {
        /// The field (its name in [`layout`]).
        field: &'static str,
    },
    /// `BLOCKS` is 0 or above [`MAX_BLOCKS`], or above what the caller has.
    BadBlocks(u8),
    /// The segments the control segment names take `need` bytes; its blocks hold `have`.
    Overflow {
        /// Bytes of control, address-vector, remote-address and data segments or inline data.
        need: usize,
        /// `BLOCKS` × 64.
        have: usize,
    },
    /// INLINE is set with data segments, or INLINE_LEN is non-zero without INLINE.
    InlineMismatch,
    /// A remote-address segment is given with an opcode other than RDMA WRITE, or missing with
    /// one (encoder only; the decoder derives it from the opcode).
    RaddrMismatch,
    /// A TSO segment is given with an opcode other than TSO, or missing with it (encoder
    /// only), or a TSO WQE's header length is 0.
    TsoMismatch,
    /// A completion's status byte is not a [`Status`].
    UnknownStatus(u8),
    /// A buffer is shorter than the format needs.
    Short {
        /// Bytes needed.
        need: usize,
        /// Bytes given.
        have: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::UnknownOpcode(v) => write!(f, "unknown WQE opcode {v:#04x}"),
            Error::Reserved { field } => write!(f, "reserved bits set in {field}"),
            Error::TooWide { field } => write!(f, "value does not fit {field}"),
            Error::BadBlocks(b) => write!(f, "WQE block count {b} outside 1..={MAX_BLOCKS}"),
            Error::Overflow { need, have } => {
                write!(f, "WQE segments need {need} bytes, its blocks hold {have}")
            }
            Error::InlineMismatch => f.write_str("INLINE flag and segment counts disagree"),
            Error::RaddrMismatch => f.write_str("remote address given exactly for RDMA WRITE"),
            Error::TsoMismatch => f.write_str("a TSO header given exactly for TSO, and not empty"),
            Error::UnknownStatus(v) => write!(f, "unknown completion status {v}"),
            Error::Short { need, have } => write!(f, "buffer of {have} bytes, need {need}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

pub(crate) fn get_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(crate) fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(crate) fn get_u64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Reserved bytes `at..at + len` of `b` are zero, or the error names `field`.
pub(crate) fn zero(b: &[u8], at: usize, len: usize, field: &'static str) -> Result<(), Error> {
    if b[at..at + len].iter().all(|&x| x == 0) {
        Ok(())
    } else {
        Err(Error::Reserved { field })
    }
}
