//! The RDMA Extended Transport Header (16 bytes) of RDMA WRITE FIRST/ONLY and READ requests.

use crate::wire::{be32, put32, Error, Result};

/// Length of a RETH.
pub const RETH_LEN: usize = 16;

view_common!(
    Reth,
    RETH_LEN,
    "A view of a RETH (16 bytes): virtual address, R_Key, DMA length."
);

impl<T: AsRef<[u8]>> Reth<T> {
    /// Verifies the buffer holds 16 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < RETH_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Remote virtual address.
    pub fn va(&self) -> u64 {
        let b = self.buffer.as_ref();
        (u64::from(be32(b, 0)) << 32) | u64::from(be32(b, 4))
    }

    /// Remote key.
    pub fn rkey(&self) -> u32 {
        be32(self.buffer.as_ref(), 8)
    }

    /// Bytes of the whole message (not of this packet).
    pub fn dma_len(&self) -> u32 {
        be32(self.buffer.as_ref(), 12)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Reth<T> {
    /// Sets the remote virtual address.
    pub fn set_va(&mut self, v: u64) {
        let b = self.buffer.as_mut();
        put32(b, 0, (v >> 32) as u32);
        put32(b, 4, v as u32);
    }

    /// Sets the remote key.
    pub fn set_rkey(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 8, v);
    }

    /// Sets the message length.
    pub fn set_dma_len(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 12, v);
    }
}

/// The fields of a RETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RethRepr {
    /// Remote virtual address.
    pub va: u64,
    /// Remote key.
    pub rkey: u32,
    /// Message length in bytes.
    pub dma_len: u32,
}

impl RethRepr {
    /// Reads a checked RETH.
    pub fn parse<T: AsRef<[u8]>>(p: &Reth<T>) -> Result<RethRepr> {
        p.check_len()?;
        Ok(RethRepr {
            va: p.va(),
            rkey: p.rkey(),
            dma_len: p.dma_len(),
        })
    }

    /// Always 16.
    pub const fn header_len(&self) -> usize {
        RETH_LEN
    }

    /// Writes the 16 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Reth<T>) -> Result<()> {
        p.check_len()?;
        p.set_va(self.va);
        p.set_rkey(self.rkey);
        p.set_dma_len(self.dma_len);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_big_endian() {
        let r = RethRepr {
            va: 0x0102_0304_0506_0708,
            rkey: 0x0A0B_0C0D,
            dma_len: 0x1122_3344,
        };
        let mut b = [0u8; RETH_LEN];
        r.emit(&mut Reth::new_unchecked(&mut b[..])).unwrap();
        assert_eq!(
            b,
            [1, 2, 3, 4, 5, 6, 7, 8, 0xA, 0xB, 0xC, 0xD, 0x11, 0x22, 0x33, 0x44]
        );
        assert_eq!(RethRepr::parse(&Reth::new_checked(&b[..]).unwrap()), Ok(r));
        assert_eq!(Reth::new_checked(&b[..15]).err(), Some(Error::Truncated));
    }
}
