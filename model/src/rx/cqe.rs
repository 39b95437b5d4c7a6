//! The receive completion: 32 bytes, the owner byte last, like the send side's but carrying
//! what a receive reports (immediate data, the sender's QP, the RSS hash, flags).

use super::layout::cqe as f;
use super::CQE_BYTES;
use crate::qp::Status;
use crate::wqe::{fits, get_u32, get_u64, put, Error};

/// What completed, as `enum ibv_wc_opcode` numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RecvOpcode {
    /// `IBV_WC_RECV`: a SEND (or a raw frame) landed in the WQE's buffers.
    Recv = 0x80,
    /// `IBV_WC_RECV_RDMA_WITH_IMM`: an RDMA WRITE with immediate consumed the WQE.
    RecvRdmaWithImm = 0x81,
}

impl RecvOpcode {
    /// The opcode of a byte.
    pub const fn from_u8(v: u8) -> Option<RecvOpcode> {
        match v {
            0x80 => Some(RecvOpcode::Recv),
            0x81 => Some(RecvOpcode::RecvRdmaWithImm),
            _ => None,
        }
    }
}

/// The bits of a receive completion's `FLAGS`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RecvFlags(pub u8);

impl RecvFlags {
    /// `IMM` holds immediate data.
    pub const IMM: RecvFlags = RecvFlags(1 << 0);
    /// The buffer starts with the GRH area.
    pub const GRH: RecvFlags = RecvFlags(1 << 1);
    /// Checksums checked and good.
    pub const CSUM_OK: RecvFlags = RecvFlags(1 << 2);
    /// `HASH` holds the RSS hash.
    pub const HASHED: RecvFlags = RecvFlags(1 << 3);
    /// Every defined bit.
    pub const ALL: RecvFlags = RecvFlags(0xF);

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: RecvFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets.
    pub const fn union(self, other: RecvFlags) -> RecvFlags {
        RecvFlags(self.0 | other.0)
    }

    /// `other` when `on`, else nothing.
    pub const fn when(on: bool, other: RecvFlags) -> RecvFlags {
        if on {
            other
        } else {
            RecvFlags(0)
        }
    }
}

/// A receive completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvCqe {
    /// The receive WQE's work request id.
    pub wr_id: u64,
    /// The receiving QP, 24 bits.
    pub qpn: u32,
    /// Bytes received.
    pub byte_len: u32,
    /// Immediate data (0 without [`RecvFlags::IMM`]).
    pub imm: u32,
    /// RSS hash (0 without [`RecvFlags::HASHED`]).
    pub hash: u32,
    /// UD: the sender's QP, 24 bits; 0 otherwise.
    pub src_qp: u32,
    /// What completed.
    pub opcode: RecvOpcode,
    /// The outcome.
    pub status: Status,
    /// What the entry holds.
    pub flags: RecvFlags,
    /// The owner/phase bit of the ring index it was written at.
    pub phase: bool,
}

impl RecvCqe {
    /// A flushed WQE's completion (`WR_FLUSH_ERR`, nothing received): its work request id and
    /// the QP it is reported for; the phase is set when it is pushed.
    pub const fn flushed(wr_id: u64, qpn: u32) -> RecvCqe {
        RecvCqe {
            wr_id,
            qpn,
            byte_len: 0,
            imm: 0,
            hash: 0,
            src_qp: 0,
            opcode: RecvOpcode::Recv,
            status: Status::WrFlushErr,
            flags: RecvFlags(0),
            phase: false,
        }
    }

    /// Writes the entry; `TooWide` when a QPN is past 24 bits or a flag is undefined.
    pub fn encode(&self, out: &mut [u8; CQE_BYTES]) -> Result<(), Error> {
        for (field, v) in [
            (f::QPN, self.qpn.into()),
            (f::SRC_QP, self.src_qp.into()),
            (f::FLAGS, u64::from(self.flags.0 & !RecvFlags::ALL.0)),
        ] {
            if !fits(field, v) || (field.name == f::FLAGS.name && v != 0) {
                return Err(Error::TooWide { field: field.name });
            }
        }
        out.fill(0);
        put(out, f::WR_ID, self.wr_id);
        put(out, f::QPN, self.qpn.into());
        put(out, f::BYTE_LEN, self.byte_len.into());
        put(out, f::IMM, self.imm.into());
        put(out, f::HASH, self.hash.into());
        put(out, f::SRC_QP, self.src_qp.into());
        put(out, f::OPCODE, self.opcode as u64);
        put(out, f::STATUS, self.status.code().into());
        put(out, f::FLAGS, self.flags.0.into());
        put(out, f::OWNER, self.phase.into());
        Ok(())
    }

    /// Decodes and checks an entry (whatever its phase).
    pub fn decode(b: &[u8; CQE_BYTES]) -> Result<RecvCqe, Error> {
        let reserved = |field: crate::wqe::layout::SegField, v: u32| {
            if fits(field, v.into()) {
                Ok(v)
            } else {
                Err(Error::Reserved { field: field.name })
            }
        };
        let qpn = reserved(f::QPN, get_u32(b, f::QPN.offset))?;
        let src_qp = reserved(f::SRC_QP, get_u32(b, f::SRC_QP.offset))?;
        let flags = b[f::FLAGS.offset];
        if flags & !RecvFlags::ALL.0 != 0 {
            return Err(Error::Reserved {
                field: f::FLAGS.name,
            });
        }
        let owner = b[f::OWNER.offset];
        if owner & !1 != 0 {
            return Err(Error::Reserved {
                field: f::OWNER.name,
            });
        }
        let op = b[f::OPCODE.offset];
        let st = b[f::STATUS.offset];
        Ok(RecvCqe {
            wr_id: get_u64(b, f::WR_ID.offset),
            qpn,
            byte_len: get_u32(b, f::BYTE_LEN.offset),
            imm: get_u32(b, f::IMM.offset),
            hash: get_u32(b, f::HASH.offset),
            src_qp,
            opcode: RecvOpcode::from_u8(op).ok_or(Error::UnknownOpcode(op))?,
            status: Status::from_code(st).ok_or(Error::UnknownStatus(st))?,
            flags: RecvFlags(flags),
            phase: owner == 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RecvCqe {
        RecvCqe {
            wr_id: 0x0102_0304_0506_0708,
            qpn: 0xAB_CDEF,
            byte_len: 4136,
            imm: 0x1234_5678,
            hash: 0x51CC_C178,
            src_qp: 0x12_3456,
            opcode: RecvOpcode::Recv,
            status: Status::LocLenErr,
            flags: RecvFlags::IMM.union(RecvFlags::GRH),
            phase: true,
        }
    }

    #[test]
    fn round_trip() {
        let c = sample();
        let mut b = [0u8; CQE_BYTES];
        c.encode(&mut b).unwrap();
        assert_eq!(RecvCqe::decode(&b), Ok(c));
        assert_eq!(b[31], 1);
        assert_eq!(b[28], 0x80);
        assert_eq!(b[29], 1);
        assert_eq!(b[30], 0b11);
    }

    #[test]
    fn rejections() {
        let mut b = [0u8; CQE_BYTES];
        let too_wide = RecvCqe {
            qpn: 1 << 24,
            ..sample()
        };
        assert!(matches!(
            too_wide.encode(&mut b),
            Err(Error::TooWide { field: "QPN" })
        ));
        let bad_flag = RecvCqe {
            flags: RecvFlags(0x10),
            ..sample()
        };
        assert!(bad_flag.encode(&mut b).is_err());
        sample().encode(&mut b).unwrap();
        for (at, v) in [(11, 1u8), (27, 1), (30, 0x10), (31, 2)] {
            let mut x = b;
            x[at] = v;
            assert!(RecvCqe::decode(&x).is_err(), "byte {at}");
        }
        let mut x = b;
        x[28] = 0x7F;
        assert_eq!(RecvCqe::decode(&x), Err(Error::UnknownOpcode(0x7F)));
    }
}
