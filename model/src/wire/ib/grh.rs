//! The Global Route Header (40 bytes, laid out as an IPv6 header) and the GID it carries.

use core::fmt;

use crate::wire::ipv6::{fmt_v6, Ipv6Address};
use crate::wire::{be16, be32, put16, put32, Error, Result};

/// A 128-bit InfiniBand global identifier (for RoCEv2 an IPv6 or IPv4-mapped address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gid(pub [u8; 16]);

impl From<Ipv6Address> for Gid {
    fn from(a: Ipv6Address) -> Gid {
        Gid(a.0)
    }
}

impl From<Gid> for Ipv6Address {
    fn from(g: Gid) -> Ipv6Address {
        Ipv6Address(g.0)
    }
}

impl fmt::Display for Gid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_v6(f, &self.0)
    }
}

/// Length of a GRH.
pub const GRH_LEN: usize = 40;

view_common!(Grh, GRH_LEN, "A view of a Global Route Header (40 bytes).");

impl<T: AsRef<[u8]>> Grh<T> {
    /// Verifies: 40 bytes, IPVer 6, and the buffer holds `40 + PayLen` bytes.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < 40 {
            return Err(Error::Truncated);
        }
        if self.ip_version() != 6 {
            return Err(Error::Malformed("GRH IPVer is not 6"));
        }
        if b.len() < 40 + usize::from(self.payload_len()) {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// IPVer (4 bits, 6).
    pub fn ip_version(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }

    /// Traffic class.
    pub fn traffic_class(&self) -> u8 {
        ((be16(self.buffer.as_ref(), 0) >> 4) & 0xFF) as u8
    }

    /// Flow label (20 bits).
    pub fn flow_label(&self) -> u32 {
        be32(self.buffer.as_ref(), 0) & 0x000F_FFFF
    }

    /// Payload length: bytes after the GRH up to and including the ICRC.
    pub fn payload_len(&self) -> u16 {
        be16(self.buffer.as_ref(), 4)
    }

    /// Next header (0x1B for a BTH).
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[6]
    }

    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[7]
    }

    /// Source GID.
    pub fn sgid(&self) -> Gid {
        let mut g = [0; 16];
        g.copy_from_slice(&self.buffer.as_ref()[8..24]);
        Gid(g)
    }

    /// Destination GID.
    pub fn dgid(&self) -> Gid {
        let mut g = [0; 16];
        g.copy_from_slice(&self.buffer.as_ref()[24..40]);
        Gid(g)
    }
}

/// The fields of a GRH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrhRepr {
    /// Traffic class.
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Payload length: bytes after the GRH up to and including the ICRC.
    pub payload_len: u16,
    /// Next header (0x1B for a BTH).
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Source GID.
    pub sgid: Gid,
    /// Destination GID.
    pub dgid: Gid,
}

impl GrhRepr {
    /// Reads a checked GRH.
    pub fn parse<T: AsRef<[u8]>>(p: &Grh<T>) -> Result<GrhRepr> {
        p.check_len()?;
        Ok(GrhRepr {
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
            payload_len: p.payload_len(),
            next_header: p.next_header(),
            hop_limit: p.hop_limit(),
            sgid: p.sgid(),
            dgid: p.dgid(),
        })
    }

    /// Always 40.
    pub const fn header_len(&self) -> usize {
        40
    }

    /// Writes the 40 bytes (the buffer needs only those 40).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Grh<T>) -> Result<()> {
        if self.flow_label > 0x000F_FFFF {
            return Err(Error::Malformed("GRH flow label exceeds 20 bits"));
        }
        let b = p.buffer.as_mut();
        if b.len() < 40 {
            return Err(Error::Truncated);
        }
        let w0 = (6u32 << 28) | (u32::from(self.traffic_class) << 20) | self.flow_label;
        put32(b, 0, w0);
        put16(b, 4, self.payload_len);
        b[6] = self.next_header;
        b[7] = self.hop_limit;
        b[8..24].copy_from_slice(&self.sgid.0);
        b[24..40].copy_from_slice(&self.dgid.0);
        Ok(())
    }
}
