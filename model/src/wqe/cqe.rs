//! The completion queue entry: 32 bytes, the owner byte last.

use super::layout::cqe as f;
use super::{get_u32, get_u64, zero, Error, Opcode};

/// Bytes of a CQE (two per 64-byte cache line).
pub const CQE_BYTES: usize = 32;

/// Opcode byte of a completion for a WQE whose opcode was unknown.
pub const OPCODE_UNKNOWN: u8 = 0xFF;

/// A completion's status: the one definition, in `model::qp` (the verbs codes).
pub use crate::qp::Status;

/// A completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cqe {
    /// The WQE's `WR_ID`.
    pub wr_id: u64,
    /// The QP, 24 bits.
    pub qpn: u32,
    /// Message bytes.
    pub byte_len: u32,
    /// The WQE's `INDEX`.
    pub wqe_index: u32,
    /// The WQE's opcode, `None` when it was not a known one.
    pub opcode: Option<Opcode>,
    /// The outcome.
    pub status: Status,
    /// The owner/phase bit ([`super::Ring::phase`] of the CQ index it was written at).
    pub phase: bool,
}

impl Cqe {
    /// Writes the entry; `TooWide` when the QPN is past 24 bits.
    pub fn encode(&self, out: &mut [u8; CQE_BYTES]) -> Result<(), Error> {
        if self.qpn >> f::QPN.bits != 0 {
            return Err(Error::TooWide { field: f::QPN.name });
        }
        out.fill(0);
        out[f::WR_ID.offset..][..8].copy_from_slice(&self.wr_id.to_le_bytes());
        out[f::QPN.offset..][..4].copy_from_slice(&self.qpn.to_le_bytes());
        out[f::BYTE_LEN.offset..][..4].copy_from_slice(&self.byte_len.to_le_bytes());
        out[f::WQE_INDEX.offset..][..4].copy_from_slice(&self.wqe_index.to_le_bytes());
        out[f::OPCODE.offset] = self.opcode.map_or(OPCODE_UNKNOWN, |o| o as u8);
        out[f::STATUS.offset] = self.status.code();
        out[f::OWNER.offset] = self.phase.into();
        Ok(())
    }

    /// Decodes and checks an entry (whatever its phase; [`super::Ring::phase`] says whether it
    /// is new).
    pub fn decode(b: &[u8; CQE_BYTES]) -> Result<Cqe, Error> {
        let qpn = get_u32(b, f::QPN.offset);
        if qpn >> f::QPN.bits != 0 {
            return Err(Error::Reserved { field: f::QPN.name });
        }
        let owner = b[f::OWNER.offset];
        if owner & !1 != 0 {
            return Err(Error::Reserved {
                field: f::OWNER.name,
            });
        }
        zero(b, f::RSVD.offset, f::RSVD.bytes, "CQE.RSVD")?;
        let op = b[f::OPCODE.offset];
        let opcode = match op {
            OPCODE_UNKNOWN => None,
            v => Some(Opcode::from_u8(v).ok_or(Error::UnknownOpcode(v))?),
        };
        let st = b[f::STATUS.offset];
        Ok(Cqe {
            wr_id: get_u64(b, f::WR_ID.offset),
            qpn,
            byte_len: get_u32(b, f::BYTE_LEN.offset),
            wqe_index: get_u32(b, f::WQE_INDEX.offset),
            opcode,
            status: Status::from_code(st).ok_or(Error::UnknownStatus(st))?,
            phase: owner == 1,
        })
    }
}
