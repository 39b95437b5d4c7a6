//! The Datagram Extended Transport Header (8 bytes) that follows the BTH of UD packets.

use super::MASK24;
use crate::wire::{be24, be32, put24, put32, Error, Result};

/// Length of a DETH.
pub const DETH_LEN: usize = 8;

view_common!(
    Deth,
    DETH_LEN,
    "A view of a Datagram Extended Transport Header (8 bytes)."
);

impl<T: AsRef<[u8]>> Deth<T> {
    /// Verifies the buffer holds 8 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < 8 {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Queue key.
    pub fn qkey(&self) -> u32 {
        be32(self.buffer.as_ref(), 0)
    }

    /// The reserved byte 4.
    pub fn reserved(&self) -> u8 {
        self.buffer.as_ref()[4]
    }

    /// Source QP (24 bits).
    pub fn src_qpn(&self) -> u32 {
        be24(self.buffer.as_ref(), 5)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Deth<T> {
    /// Sets the queue key.
    pub fn set_qkey(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 0, v);
    }

    /// Sets the source QP (24 bits; the reserved byte is cleared).
    pub fn set_src_qpn(&mut self, v: u32) {
        let b = self.buffer.as_mut();
        b[4] = 0;
        put24(b, 5, v & MASK24);
    }
}

/// The fields of a DETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DethRepr {
    /// Queue key.
    pub qkey: u32,
    /// Source QP (24 bits).
    pub src_qpn: u32,
}

impl DethRepr {
    /// Reads a checked DETH.
    pub fn parse<T: AsRef<[u8]>>(p: &Deth<T>) -> Result<DethRepr> {
        p.check_len()?;
        Ok(DethRepr {
            qkey: p.qkey(),
            src_qpn: p.src_qpn(),
        })
    }

    /// Always 8.
    pub const fn header_len(&self) -> usize {
        8
    }

    /// Writes the 8 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Deth<T>) -> Result<()> {
        if self.src_qpn > MASK24 {
            return Err(Error::Malformed("DETH SrcQP exceeds 24 bits"));
        }
        p.check_len()?;
        p.set_qkey(self.qkey);
        p.set_src_qpn(self.src_qpn);
        Ok(())
    }
}
