//! UDP (RFC 768).
//!
//! Layout: source port (2) | destination port (2) | length (2, header included) | checksum (2).
//! The checksum covers the IP pseudo-header, the header and the payload. Over IPv4 a stored
//! checksum of 0 means "none"; a computed 0 is sent as 0xFFFF (over IPv6 the checksum is
//! mandatory).

use super::checksum::{self, IpPseudo};
use super::{be16, put16, Error, Result};

/// The RoCEv2 UDP destination port.
pub const ROCEV2_PORT: u16 = 4791;
/// Length of the UDP header.
pub const HEADER_LEN: usize = 8;

/// A view of a UDP datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Wraps a buffer without checking it.
    pub const fn new_unchecked(buffer: T) -> Self {
        UdpPacket { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Verifies: 8 bytes, length field ≥ 8, and the buffer holds `length` bytes.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let l = usize::from(self.len());
        if l < HEADER_LEN {
            return Err(Error::Malformed("UDP length below 8"));
        }
        if b.len() < l {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), 0)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Length field: header plus payload.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u16 {
        be16(self.buffer.as_ref(), 4)
    }

    /// Stored checksum.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), 6)
    }

    fn datagram_end(&self) -> usize {
        let n = self.buffer.as_ref().len();
        usize::from(self.len()).clamp(HEADER_LEN.min(n), n)
    }

    /// Payload: bytes 8..length (clamped to the buffer).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        let end = self.datagram_end();
        &b[HEADER_LEN.min(end)..end]
    }

    /// Checks the stored checksum against the pseudo-header. Over IPv4 a stored 0 ("no
    /// checksum") passes; over IPv6 it fails.
    pub fn verify_checksum(&self, pseudo: &IpPseudo) -> bool {
        if self.checksum() == 0 {
            return pseudo.is_ipv4();
        }
        let end = self.datagram_end();
        pseudo.sum_with(&self.buffer.as_ref()[..end]) == 0xFFFF
    }

    /// The checksum the datagram should carry (0 computed is returned as 0xFFFF).
    pub fn compute_checksum(&self, pseudo: &IpPseudo) -> u16 {
        let b = self.buffer.as_ref();
        let end = self.datagram_end();
        // Sum everything but the checksum field: header words 0..6, then the payload.
        let head = checksum::sum(&b[..6.min(end)]);
        let body = checksum::sum(&b[HEADER_LEN.min(end)..end]);
        let s = checksum::combine(&[pseudo.sum(end as u32), head, body]);
        match checksum::finish(s) {
            0 => 0xFFFF,
            c => c,
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 0, v);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v);
    }

    /// Sets the length field.
    pub fn set_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 4, v);
    }

    /// Sets the stored checksum.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 6, v);
    }

    /// Computes and stores the checksum over the pseudo-header, header and payload (the
    /// payload must be in place).
    pub fn fill_checksum(&mut self, pseudo: &IpPseudo) {
        let c = self.compute_checksum(pseudo);
        self.set_checksum(c);
    }

    /// Mutable payload.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = self.datagram_end();
        &mut self.buffer.as_mut()[HEADER_LEN.min(end)..end]
    }
}

/// The fields of a UDP header (the checksum is not kept: `emit` writes 0 and
/// [`UdpPacket::fill_checksum`] fills it once the payload is in place).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Payload length; `emit` writes `8 + payload_len` as the length.
    pub payload_len: usize,
}

impl UdpRepr {
    /// Reads the header of a checked datagram.
    pub fn parse<T: AsRef<[u8]>>(p: &UdpPacket<T>) -> Result<UdpRepr> {
        p.check_len()?;
        Ok(UdpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload_len: usize::from(p.len()) - HEADER_LEN,
        })
    }

    /// Always 8.
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header with checksum 0 into the first 8 bytes of the buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut UdpPacket<T>) -> Result<()> {
        // Checked: `payload_len` may be anything up to usize::MAX.
        let len = HEADER_LEN
            .checked_add(self.payload_len)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or(Error::Malformed("UDP length exceeds 65535"))?;
        let b = p.buffer.as_mut();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        put16(b, 0, self.src_port);
        put16(b, 2, self.dst_port);
        put16(b, 4, len);
        put16(b, 6, 0);
        Ok(())
    }
}
