//! IPoIB (RFC 4391/4392): the 4-byte encapsulation header and the 20-byte hardware address.
//!
//! Encapsulation header: EtherType (2) | reserved (2, zero). Receivers accept any reserved value
//! (the repr does not keep it) and `emit` writes zeros.
//!
//! Hardware address: flags/reserved (8 bits) | QPN (24) | GID (128).

use super::ib::Gid;
use super::{be16, be24, put16, put24, Error, Result};

/// Length of the encapsulation header.
pub const HEADER_LEN: usize = 4;
/// Length of an IPoIB hardware address.
pub const HW_ADDR_LEN: usize = 20;

/// A view of an IPoIB encapsulation header followed by its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpoibHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> IpoibHeader<T> {
    /// Wraps a buffer without checking it.
    pub const fn new_unchecked(buffer: T) -> Self {
        IpoibHeader { buffer }
    }

    /// Wraps a buffer of at least 4 bytes.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Verifies the buffer holds 4 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// EtherType of the payload (0x0800, 0x86DD, 0x0806).
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), 0)
    }

    /// The reserved 16 bits (zero when sent).
    pub fn reserved(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Bytes after the header.
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        &b[HEADER_LEN.min(b.len())..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> IpoibHeader<T> {
    /// Sets the EtherType.
    pub fn set_ethertype(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 0, v);
    }

    /// Sets the reserved field.
    pub fn set_reserved(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v);
    }

    /// Mutable payload.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let b = self.buffer.as_mut();
        let at = HEADER_LEN.min(b.len());
        &mut b[at..]
    }
}

/// The IPoIB encapsulation header: only the EtherType counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpoibRepr {
    /// EtherType of the payload.
    pub ethertype: u16,
}

impl IpoibRepr {
    /// Reads a checked header (the reserved field is ignored).
    pub fn parse<T: AsRef<[u8]>>(p: &IpoibHeader<T>) -> Result<IpoibRepr> {
        p.check_len()?;
        Ok(IpoibRepr {
            ethertype: p.ethertype(),
        })
    }

    /// Always 4.
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the EtherType and two zero bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut IpoibHeader<T>) -> Result<()> {
        p.check_len()?;
        p.set_ethertype(self.ethertype);
        p.set_reserved(0);
        Ok(())
    }
}

/// A 20-byte IPoIB link-layer (hardware) address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpoibHwAddr {
    /// The first byte: flags and reserved bits (RFC 4391 §9.1.1).
    pub flags: u8,
    /// Queue pair number (24 bits).
    pub qpn: u32,
    /// Port GID.
    pub gid: Gid,
}

impl IpoibHwAddr {
    /// Reads the first 20 bytes of `b`.
    pub fn parse(b: &[u8]) -> Result<IpoibHwAddr> {
        if b.len() < HW_ADDR_LEN {
            return Err(Error::Truncated);
        }
        let mut gid = [0; 16];
        gid.copy_from_slice(&b[4..20]);
        Ok(IpoibHwAddr {
            flags: b[0],
            qpn: be24(b, 1),
            gid: Gid(gid),
        })
    }

    /// Writes 20 bytes into the start of `b`.
    pub fn emit(&self, b: &mut [u8]) -> Result<()> {
        if self.qpn > 0x00FF_FFFF {
            return Err(Error::Malformed("IPoIB QPN exceeds 24 bits"));
        }
        if b.len() < HW_ADDR_LEN {
            return Err(Error::Truncated);
        }
        b[0] = self.flags;
        put24(b, 1, self.qpn);
        b[4..20].copy_from_slice(&self.gid.0);
        Ok(())
    }

    /// The 20 bytes (the QPN's bits above 24 are dropped).
    pub fn to_bytes(&self) -> [u8; HW_ADDR_LEN] {
        let mut b = [0; HW_ADDR_LEN];
        b[0] = self.flags;
        put24(&mut b, 1, self.qpn & 0x00FF_FFFF);
        b[4..20].copy_from_slice(&self.gid.0);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_hw_addr() {
        let bytes = [0x08, 0x00, 0x12, 0x34, 0x45];
        let p = IpoibHeader::new_checked(&bytes[..]).unwrap();
        let r = IpoibRepr::parse(&p).unwrap();
        assert_eq!(r.ethertype, 0x0800);
        assert_eq!(p.payload(), &[0x45]);
        let mut out = [0xAAu8; 4];
        r.emit(&mut IpoibHeader::new_unchecked(&mut out[..]))
            .unwrap();
        assert_eq!(out, [0x08, 0x00, 0, 0]);

        // flags 0x80, QPN 0x000048, GID fe80::2:c903:1:2345
        let hw: [u8; 20] = [
            0x80, 0x00, 0x00, 0x48, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0x00,
            0x01, 0x23, 0x45,
        ];
        let a = IpoibHwAddr::parse(&hw).unwrap();
        assert_eq!((a.flags, a.qpn), (0x80, 0x48));
        assert_eq!(a.to_bytes(), hw);
        assert_eq!(IpoibHwAddr::parse(&hw[..19]).unwrap_err(), Error::Truncated);
    }
}
