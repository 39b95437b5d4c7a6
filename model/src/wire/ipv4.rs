//! IPv4 (RFC 791) with options.
//!
//! Layout: version/IHL (1) | DSCP/ECN (1) | total length (2) | identification (2) |
//! flags (3 bits: reserved, DF, MF) + fragment offset (13 bits, 8-byte units) | TTL (1) |
//! protocol (1) | header checksum (2) | source (4) | destination (4) | options (0..40).

use core::fmt;
use core::ops::Range;

use super::checksum;
use super::{be16, put16, Error, Result};

/// A 32-bit IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ipv4Address(pub [u8; 4]);

impl Ipv4Address {
    /// 0.0.0.0
    pub const UNSPECIFIED: Ipv4Address = Ipv4Address([0; 4]);
    /// 255.255.255.255
    pub const BROADCAST: Ipv4Address = Ipv4Address([0xFF; 4]);

    /// From four octets, `a.b.c.d`.
    pub const fn new(a: u8, b: u8, c: u8, d: u8) -> Ipv4Address {
        Ipv4Address([a, b, c, d])
    }

    /// The four octets.
    pub const fn as_bytes(&self) -> &[u8; 4] {
        &self.0
    }

    /// The address as a big-endian integer.
    pub const fn to_u32(&self) -> u32 {
        u32::from_be_bytes(self.0)
    }
}

impl fmt::Display for Ipv4Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d] = self.0;
        write!(f, "{a}.{b}.{c}.{d}")
    }
}

/// Length of an IPv4 header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// Most option bytes an IPv4 header can carry (IHL 15).
pub const MAX_OPTIONS_LEN: usize = 40;

const DF: u16 = 0x4000;
const MF: u16 = 0x2000;
const RESERVED_FLAG: u16 = 0x8000;
const OFFSET_MASK: u16 = 0x1FFF;

/// A view of an IPv4 packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Wraps a buffer without checking it.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Verifies: at least 20 bytes, version 4, IHL ≥ 5, the options fit the buffer, total length
    /// ≥ header length and the buffer holds `total_len` bytes (more are allowed: link padding).
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < MIN_HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.version() != 4 {
            return Err(Error::Malformed("IPv4 version is not 4"));
        }
        let hl = self.header_len();
        if hl < MIN_HEADER_LEN {
            return Err(Error::Malformed("IPv4 IHL below 5"));
        }
        if b.len() < hl {
            return Err(Error::Truncated);
        }
        let total = usize::from(self.total_len());
        if total < hl {
            return Err(Error::Malformed("IPv4 total length below header length"));
        }
        if b.len() < total {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Version (high nibble of byte 0).
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }

    /// IHL in 32-bit words (low nibble of byte 0).
    pub fn ihl(&self) -> u8 {
        self.buffer.as_ref()[0] & 0x0F
    }

    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.ihl()) * 4
    }

    /// The whole TOS byte (DSCP << 2 | ECN).
    pub fn dscp_ecn(&self) -> u8 {
        self.buffer.as_ref()[1]
    }

    /// DSCP (6 bits).
    pub fn dscp(&self) -> u8 {
        self.dscp_ecn() >> 2
    }

    /// ECN (2 bits).
    pub fn ecn(&self) -> u8 {
        self.dscp_ecn() & 3
    }

    /// Total length of header plus payload.
    pub fn total_len(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Identification.
    pub fn ident(&self) -> u16 {
        be16(self.buffer.as_ref(), 4)
    }

    /// The reserved ("evil") flag bit.
    pub fn reserved_flag(&self) -> bool {
        be16(self.buffer.as_ref(), 6) & RESERVED_FLAG != 0
    }

    /// Don't fragment.
    pub fn dont_frag(&self) -> bool {
        be16(self.buffer.as_ref(), 6) & DF != 0
    }

    /// More fragments.
    pub fn more_frags(&self) -> bool {
        be16(self.buffer.as_ref(), 6) & MF != 0
    }

    /// Fragment offset in 8-byte units (13 bits).
    pub fn frag_offset(&self) -> u16 {
        be16(self.buffer.as_ref(), 6) & OFFSET_MASK
    }

    /// True for any fragment: MF set or a non-zero offset.
    pub fn is_fragment(&self) -> bool {
        self.more_frags() || self.frag_offset() != 0
    }

    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[8]
    }

    /// Protocol of the payload.
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[9]
    }

    /// Header checksum as stored.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), 10)
    }

    /// Source address.
    pub fn src_addr(&self) -> Ipv4Address {
        let b = self.buffer.as_ref();
        Ipv4Address([b[12], b[13], b[14], b[15]])
    }

    /// Destination address.
    pub fn dst_addr(&self) -> Ipv4Address {
        let b = self.buffer.as_ref();
        Ipv4Address([b[16], b[17], b[18], b[19]])
    }

    /// Header bytes, clamped to the buffer.
    fn header_range(&self) -> Range<usize> {
        let len = self.buffer.as_ref().len();
        0..self.header_len().clamp(MIN_HEADER_LEN.min(len), len)
    }

    /// Option bytes (IHL × 4 − 20 of them).
    pub fn options(&self) -> &[u8] {
        let r = self.header_range();
        let start = MIN_HEADER_LEN.min(r.end);
        &self.buffer.as_ref()[start..r.end]
    }

    fn payload_range(&self) -> Range<usize> {
        let len = self.buffer.as_ref().len();
        let start = self.header_range().end;
        let end = usize::from(self.total_len()).clamp(start, len);
        start..end
    }

    /// The payload: bytes from the header's end to `total_len` (link padding excluded).
    pub fn payload(&self) -> &[u8] {
        let r = self.payload_range();
        &self.buffer.as_ref()[r]
    }

    /// True when the header checksum is right.
    pub fn verify_checksum(&self) -> bool {
        let r = self.header_range();
        checksum::sum(&self.buffer.as_ref()[r]) == 0xFFFF
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Sets the TOS byte (DSCP << 2 | ECN).
    pub fn set_dscp_ecn(&mut self, v: u8) {
        self.buffer.as_mut()[1] = v;
    }

    /// Sets the total length.
    pub fn set_total_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v);
    }

    /// Sets the identification.
    pub fn set_ident(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 4, v);
    }

    /// Sets DF and MF and clears the reserved flag; the fragment offset is kept.
    pub fn set_flags(&mut self, dont_frag: bool, more_frags: bool) {
        let b = self.buffer.as_mut();
        let mut v = be16(b, 6) & OFFSET_MASK;
        if dont_frag {
            v |= DF;
        }
        if more_frags {
            v |= MF;
        }
        put16(b, 6, v);
    }

    /// Sets the fragment offset (8-byte units; bits above 13 are dropped).
    pub fn set_frag_offset(&mut self, v: u16) {
        let b = self.buffer.as_mut();
        let flags = be16(b, 6) & !OFFSET_MASK;
        put16(b, 6, flags | (v & OFFSET_MASK));
    }

    /// Sets the TTL.
    pub fn set_ttl(&mut self, v: u8) {
        self.buffer.as_mut()[8] = v;
    }

    /// Sets the protocol.
    pub fn set_protocol(&mut self, v: u8) {
        self.buffer.as_mut()[9] = v;
    }

    /// Sets the stored checksum.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 10, v);
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: Ipv4Address) {
        self.buffer.as_mut()[12..16].copy_from_slice(&a.0);
    }

    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: Ipv4Address) {
        self.buffer.as_mut()[16..20].copy_from_slice(&a.0);
    }

    /// Computes and stores the header checksum.
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let r = self.header_range();
        let c = checksum::checksum(&self.buffer.as_ref()[r]);
        self.set_checksum(c);
    }

    /// Mutable payload (to `total_len`).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let r = self.payload_range();
        &mut self.buffer.as_mut()[r]
    }
}

/// The fields of an IPv4 header.
#[derive(Debug, Clone, Copy, Eq)]
pub struct Ipv4Repr {
    /// Source address.
    pub src: Ipv4Address,
    /// Destination address.
    pub dst: Ipv4Address,
    /// Protocol of the payload.
    pub protocol: u8,
    /// TOS byte: DSCP << 2 | ECN.
    pub dscp_ecn: u8,
    /// Identification.
    pub ident: u16,
    /// Don't fragment.
    pub dont_frag: bool,
    /// More fragments.
    pub more_frags: bool,
    /// Fragment offset in 8-byte units (13 bits).
    pub frag_offset: u16,
    /// Time to live.
    pub ttl: u8,
    /// Option bytes; only the first `options_len` count.
    pub options: [u8; MAX_OPTIONS_LEN],
    /// Number of option bytes: a multiple of 4, at most 40.
    pub options_len: u8,
    /// Payload length; `emit` writes `header_len() + payload_len` as total length.
    pub payload_len: usize,
}

impl PartialEq for Ipv4Repr {
    fn eq(&self, o: &Self) -> bool {
        self.src == o.src
            && self.dst == o.dst
            && self.protocol == o.protocol
            && self.dscp_ecn == o.dscp_ecn
            && self.ident == o.ident
            && self.dont_frag == o.dont_frag
            && self.more_frags == o.more_frags
            && self.frag_offset == o.frag_offset
            && self.ttl == o.ttl
            && self.options_len == o.options_len
            && self.options() == o.options()
            && self.payload_len == o.payload_len
    }
}

impl Ipv4Repr {
    /// A header without options: TTL 64, DF set, TOS 0, ident 0, not fragmented.
    pub const fn new(
        src: Ipv4Address,
        dst: Ipv4Address,
        protocol: u8,
        payload_len: usize,
    ) -> Ipv4Repr {
        Ipv4Repr {
            src,
            dst,
            protocol,
            dscp_ecn: 0,
            ident: 0,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
            ttl: 64,
            options: [0; MAX_OPTIONS_LEN],
            options_len: 0,
            payload_len,
        }
    }

    /// Reads the header of a checked packet. The checksum is not verified here (see
    /// [`Ipv4Packet::verify_checksum`]) and the reserved flag is dropped.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv4Packet<T>) -> Result<Ipv4Repr> {
        p.check_len()?;
        let mut options = [0; MAX_OPTIONS_LEN];
        let o = p.options();
        options[..o.len()].copy_from_slice(o);
        Ok(Ipv4Repr {
            src: p.src_addr(),
            dst: p.dst_addr(),
            protocol: p.protocol(),
            dscp_ecn: p.dscp_ecn(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            more_frags: p.more_frags(),
            frag_offset: p.frag_offset(),
            ttl: p.ttl(),
            options,
            options_len: o.len() as u8,
            payload_len: usize::from(p.total_len()) - p.header_len(),
        })
    }

    /// The option bytes in use.
    pub fn options(&self) -> &[u8] {
        &self.options[..usize::from(self.options_len).min(MAX_OPTIONS_LEN)]
    }

    /// Replaces the options; `opts` must be a multiple of 4 bytes, at most 40.
    pub fn set_options(&mut self, opts: &[u8]) -> Result<()> {
        if opts.len() > MAX_OPTIONS_LEN || !opts.len().is_multiple_of(4) {
            return Err(Error::Malformed(
                "IPv4 options must be a multiple of 4 bytes, at most 40",
            ));
        }
        self.options = [0; MAX_OPTIONS_LEN];
        self.options[..opts.len()].copy_from_slice(opts);
        self.options_len = opts.len() as u8;
        Ok(())
    }

    /// Header length: 20 plus the options.
    pub fn header_len(&self) -> usize {
        MIN_HEADER_LEN + usize::from(self.options_len)
    }

    /// True for any fragment: MF set or a non-zero offset.
    pub fn is_fragment(&self) -> bool {
        self.more_frags || self.frag_offset != 0
    }

    /// Writes the header (total length and checksum included) into the start of the buffer,
    /// which must hold at least `header_len()` bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv4Packet<T>) -> Result<()> {
        let ol = usize::from(self.options_len);
        if ol > MAX_OPTIONS_LEN || ol % 4 != 0 {
            return Err(Error::Malformed(
                "IPv4 options must be a multiple of 4 bytes, at most 40",
            ));
        }
        if self.frag_offset > OFFSET_MASK {
            return Err(Error::Malformed("IPv4 fragment offset exceeds 13 bits"));
        }
        let hl = self.header_len();
        // Checked: `payload_len` may be anything up to usize::MAX.
        let total = hl
            .checked_add(self.payload_len)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or(Error::Malformed("IPv4 total length exceeds 65535"))?;
        let b = p.buffer.as_mut();
        if b.len() < hl {
            return Err(Error::Truncated);
        }
        b[0] = 0x40 | (hl / 4) as u8;
        b[1] = self.dscp_ecn;
        put16(b, 2, total);
        put16(b, 4, self.ident);
        let mut fl = self.frag_offset;
        if self.dont_frag {
            fl |= DF;
        }
        if self.more_frags {
            fl |= MF;
        }
        put16(b, 6, fl);
        b[8] = self.ttl;
        b[9] = self.protocol;
        put16(b, 10, 0);
        b[12..16].copy_from_slice(&self.src.0);
        b[16..20].copy_from_slice(&self.dst.0);
        b[20..hl].copy_from_slice(self.options());
        let c = checksum::checksum(&b[..hl]);
        put16(b, 10, c);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The IPv4 header of the worked example on Wikipedia's "Internet checksum" / "IPv4 header
    // checksum" page: 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7. Hand check: the words
    // without the checksum sum to 0x2479C; folded 0x479E; complement 0xB861.
    const HDR: [u8; 20] = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];

    #[test]
    fn known_header() {
        let mut buf = [0u8; 0x73];
        buf[..20].copy_from_slice(&HDR);
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        assert!(p.verify_checksum());
        assert_eq!(p.total_len(), 0x73);
        assert!(p.dont_frag() && !p.is_fragment());
        assert_eq!(p.protocol(), 17);
        assert_eq!(p.src_addr(), Ipv4Address::new(192, 168, 0, 1));
        assert_eq!(p.dst_addr(), Ipv4Address::new(192, 168, 0, 199));
        let r = Ipv4Repr::parse(&p).unwrap();
        assert_eq!(r.payload_len, 0x73 - 20);
        let mut out = [0u8; 20];
        r.emit(&mut Ipv4Packet::new_unchecked(&mut out[..]))
            .unwrap();
        assert_eq!(out, HDR);
        // The checksum field is what emit computed.
        assert_eq!(u16::from_be_bytes([out[10], out[11]]), 0xb861);
    }

    #[test]
    fn rejects() {
        let mut buf = [0u8; 0x73];
        buf[..20].copy_from_slice(&HDR);
        assert_eq!(
            Ipv4Packet::new_checked(&buf[..0x72]).unwrap_err(),
            Error::Truncated
        );
        buf[0] = 0x44;
        assert!(matches!(
            Ipv4Packet::new_checked(&buf[..]),
            Err(Error::Malformed(_))
        ));
        buf[0] = 0x65;
        assert!(matches!(
            Ipv4Packet::new_checked(&buf[..]),
            Err(Error::Malformed(_))
        ));
        buf[0] = 0x45;
        buf[2] = 0;
        buf[3] = 19;
        assert!(matches!(
            Ipv4Packet::new_checked(&buf[..]),
            Err(Error::Malformed(_))
        ));
    }
}
