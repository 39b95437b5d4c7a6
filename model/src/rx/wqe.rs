//! The receive WQE: a 16-byte header (work request id, entry count) and its scatter entries,
//! each a send-side data segment, in one ring slot.

use super::layout::header as h;
use super::{HEADER_BYTES, MAX_SGE};
use crate::wqe::{get_u64, put, zero, DataSegment, Error, DATA_BYTES};

/// A decoded receive WQE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvWqe {
    /// Work request id.
    pub wr_id: u64,
    /// Entries in use: `sges[..nsge]`.
    pub nsge: usize,
    /// Scatter entries, filled in order.
    pub sges: [DataSegment; MAX_SGE],
}

impl RecvWqe {
    /// A WQE of the entries `sges` (at most [`MAX_SGE`]).
    pub fn new(wr_id: u64, sges: &[DataSegment]) -> Result<RecvWqe, Error> {
        if sges.is_empty() || sges.len() > MAX_SGE {
            return Err(Error::TooWide {
                field: h::NSGE.name,
            });
        }
        let mut all = [DataSegment::default(); MAX_SGE];
        all[..sges.len()].copy_from_slice(sges);
        Ok(RecvWqe {
            wr_id,
            nsge: sges.len(),
            sges: all,
        })
    }

    /// The entries in use.
    pub fn sges(&self) -> &[DataSegment] {
        &self.sges[..self.nsge]
    }

    /// Bytes the WQE takes: header and entries.
    pub const fn bytes(&self) -> usize {
        HEADER_BYTES + self.nsge * DATA_BYTES
    }

    /// Bytes the scatter entries hold (their lengths summed, without overflow).
    pub fn capacity(&self) -> u64 {
        self.sges().iter().map(|s| u64::from(s.length)).sum()
    }

    /// Writes the WQE into the start of `out` (a slot); `Short` when it does not fit.
    pub fn encode(&self, out: &mut [u8]) -> Result<(), Error> {
        let need = self.bytes();
        if out.len() < need {
            return Err(Error::Short {
                need,
                have: out.len(),
            });
        }
        out[..HEADER_BYTES].fill(0);
        put(out, h::WR_ID, self.wr_id);
        put(out, h::NSGE, self.nsge as u64);
        for (i, s) in self.sges().iter().enumerate() {
            let at = HEADER_BYTES + i * DATA_BYTES;
            let seg: &mut [u8; DATA_BYTES] = (&mut out[at..at + DATA_BYTES])
                .try_into()
                .expect("DATA_BYTES long");
            s.encode(seg);
        }
        Ok(())
    }

    /// The number of entries a header names, checked against the format and a slot of `slot`
    /// bytes: what a fetch reads after the header.
    pub fn entries(header: &[u8; HEADER_BYTES], slot: usize) -> Result<usize, Error> {
        zero(header, h::RSVD.offset, h::RSVD.bytes, "RWQE.RSVD")?;
        let n = usize::from(header[h::NSGE.offset]);
        if n == 0 || n > MAX_SGE {
            return Err(Error::BadBlocks(header[h::NSGE.offset]));
        }
        let need = HEADER_BYTES + n * DATA_BYTES;
        if need > slot {
            return Err(Error::Overflow { need, have: slot });
        }
        Ok(n)
    }

    /// Decodes a WQE from the start of `b` (header and entries), in a slot of `slot` bytes.
    pub fn decode(b: &[u8], slot: usize) -> Result<RecvWqe, Error> {
        if b.len() < HEADER_BYTES {
            return Err(Error::Short {
                need: HEADER_BYTES,
                have: b.len(),
            });
        }
        let header: &[u8; HEADER_BYTES] = b[..HEADER_BYTES].try_into().expect("checked");
        let n = Self::entries(header, slot)?;
        let need = HEADER_BYTES + n * DATA_BYTES;
        if b.len() < need {
            return Err(Error::Short {
                need,
                have: b.len(),
            });
        }
        let mut sges = [DataSegment::default(); MAX_SGE];
        for (i, s) in sges[..n].iter_mut().enumerate() {
            let at = HEADER_BYTES + i * DATA_BYTES;
            *s = DataSegment::decode(b[at..at + DATA_BYTES].try_into().expect("in range"));
        }
        Ok(RecvWqe {
            wr_id: get_u64(b, h::WR_ID.offset),
            nsge: n,
            sges,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejections() {
        let sges = [
            DataSegment {
                addr: 0x1000,
                length: 100,
                lkey: 7,
            },
            DataSegment {
                addr: 0xFFFF_0000_0000,
                length: 1 << 20,
                lkey: 0x1234_5678,
            },
        ];
        let w = RecvWqe::new(0xDEAD_BEEF_0123, &sges).unwrap();
        let mut slot = [0xAAu8; 64];
        w.encode(&mut slot).unwrap();
        assert_eq!(RecvWqe::decode(&slot, 64), Ok(w));
        assert_eq!(w.capacity(), 100 + (1 << 20));
        // The slot is too small for the entries the header names.
        assert_eq!(
            RecvWqe::decode(&slot, 32),
            Err(Error::Overflow { need: 48, have: 32 })
        );
        let mut bad = slot;
        bad[h::NSGE.offset] = 0;
        assert_eq!(RecvWqe::decode(&bad, 64), Err(Error::BadBlocks(0)));
        let mut bad = slot;
        bad[15] = 1;
        assert!(matches!(
            RecvWqe::decode(&bad, 64),
            Err(Error::Reserved { .. })
        ));
        assert!(RecvWqe::new(1, &[]).is_err());
        assert!(w.encode(&mut [0u8; 47]).is_err());
    }
}
