//! The Immediate Data header (4 bytes) of the "with Immediate" opcodes.

use crate::wire::{be32, put32, Error, Result};

/// Length of an ImmDt header.
pub const IMMDT_LEN: usize = 4;

view_common!(
    ImmDt,
    IMMDT_LEN,
    "A view of an Immediate Data header (4 bytes)."
);

impl<T: AsRef<[u8]>> ImmDt<T> {
    /// Verifies the buffer holds 4 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < 4 {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Immediate data (as a big-endian integer; it is opaque to the transport).
    pub fn imm(&self) -> u32 {
        be32(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ImmDt<T> {
    /// Sets the immediate data.
    pub fn set_imm(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 0, v);
    }
}

/// The immediate data of an ImmDt header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImmDtRepr {
    /// Immediate data.
    pub imm: u32,
}

impl ImmDtRepr {
    /// Reads a checked ImmDt.
    pub fn parse<T: AsRef<[u8]>>(p: &ImmDt<T>) -> Result<ImmDtRepr> {
        p.check_len()?;
        Ok(ImmDtRepr { imm: p.imm() })
    }

    /// Always 4.
    pub const fn header_len(&self) -> usize {
        4
    }

    /// Writes the 4 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut ImmDt<T>) -> Result<()> {
        p.check_len()?;
        p.set_imm(self.imm);
        Ok(())
    }
}
