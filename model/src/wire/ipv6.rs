//! IPv6 (RFC 8200): the fixed 40-byte header and a walker over extension headers.
//!
//! Layout: version (4 bits) | traffic class (8) | flow label (20) | payload length (2) |
//! next header (1) | hop limit (1) | source (16) | destination (16).

use core::fmt;

use super::{be16, be32, put16, Error, IpProtocol, Result};

/// A 128-bit IPv6 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Ipv6Address(pub [u8; 16]);

impl Ipv6Address {
    /// `::`
    pub const UNSPECIFIED: Ipv6Address = Ipv6Address([0; 16]);

    /// From eight 16-bit groups.
    pub const fn new(g: [u16; 8]) -> Ipv6Address {
        let mut a = [0u8; 16];
        let mut i = 0;
        while i < 8 {
            a[2 * i] = (g[i] >> 8) as u8;
            a[2 * i + 1] = g[i] as u8;
            i += 1;
        }
        Ipv6Address(a)
    }

    /// The sixteen bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The eight 16-bit groups.
    pub fn groups(&self) -> [u16; 8] {
        let mut g = [0u16; 8];
        for (i, w) in g.iter_mut().enumerate() {
            *w = be16(&self.0, 2 * i);
        }
        g
    }
}

/// Writes 16 bytes the way RFC 5952 prints IPv6 addresses (longest run of two or more zero
/// groups shortened to `::`, lower-case hex, no leading zeros).
pub(crate) fn fmt_v6(f: &mut fmt::Formatter<'_>, bytes: &[u8; 16]) -> fmt::Result {
    let g = Ipv6Address(*bytes).groups();
    // Longest run of zero groups (first one on ties), if two or more.
    let (mut best_at, mut best_len) = (8, 0);
    let mut i = 0;
    while i < 8 {
        if g[i] == 0 {
            let start = i;
            while i < 8 && g[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best_at = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    if best_len < 2 {
        best_at = 8;
        best_len = 0;
    }
    let mut i = 0;
    while i < 8 {
        if i == best_at {
            f.write_str("::")?;
            i += best_len;
            continue;
        }
        if i > 0 && i != best_at + best_len {
            f.write_str(":")?;
        }
        write!(f, "{:x}", g[i])?;
        i += 1;
    }
    Ok(())
}

impl fmt::Display for Ipv6Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_v6(f, &self.0)
    }
}

/// Length of the fixed IPv6 header.
pub const HEADER_LEN: usize = 40;
/// Largest flow label (20 bits).
pub const FLOW_LABEL_MASK: u32 = 0x000F_FFFF;

/// A view of an IPv6 packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Wraps a buffer without checking it.
    pub const fn new_unchecked(buffer: T) -> Self {
        Ipv6Packet { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Verifies: 40 bytes, version 6, and the buffer holds `40 + payload_len` bytes (jumbograms,
    /// payload length 0 with a jumbo option, are not recognised).
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if self.version() != 6 {
            return Err(Error::Malformed("IPv6 version is not 6"));
        }
        if b.len() < HEADER_LEN + usize::from(self.payload_len()) {
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

    /// Traffic class (DSCP << 2 | ECN).
    pub fn traffic_class(&self) -> u8 {
        ((be16(self.buffer.as_ref(), 0) >> 4) & 0xFF) as u8
    }

    /// Flow label (20 bits).
    pub fn flow_label(&self) -> u32 {
        be32(self.buffer.as_ref(), 0) & FLOW_LABEL_MASK
    }

    /// Payload length (extension headers included).
    pub fn payload_len(&self) -> u16 {
        be16(self.buffer.as_ref(), 4)
    }

    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[6]
    }

    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[7]
    }

    /// Source address.
    pub fn src_addr(&self) -> Ipv6Address {
        let mut a = [0; 16];
        a.copy_from_slice(&self.buffer.as_ref()[8..24]);
        Ipv6Address(a)
    }

    /// Destination address.
    pub fn dst_addr(&self) -> Ipv6Address {
        let mut a = [0; 16];
        a.copy_from_slice(&self.buffer.as_ref()[24..40]);
        Ipv6Address(a)
    }

    /// The payload: `payload_len` bytes after the fixed header (clamped to the buffer).
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        let start = HEADER_LEN.min(b.len());
        let end = (HEADER_LEN + usize::from(self.payload_len())).clamp(start, b.len());
        &b[start..end]
    }

    /// Walks the extension headers of the payload; see [`skip_extension_headers`].
    pub fn upper_layer(&self) -> Result<Ipv6ExtChain> {
        skip_extension_headers(self.next_header(), self.payload())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    /// Sets the traffic class.
    pub fn set_traffic_class(&mut self, v: u8) {
        let b = self.buffer.as_mut();
        b[0] = (b[0] & 0xF0) | (v >> 4);
        b[1] = (b[1] & 0x0F) | (v << 4);
    }

    /// Sets the flow label (bits above 20 are dropped).
    pub fn set_flow_label(&mut self, v: u32) {
        let b = self.buffer.as_mut();
        b[1] = (b[1] & 0xF0) | ((v >> 16) & 0x0F) as u8;
        b[2] = (v >> 8) as u8;
        b[3] = v as u8;
    }

    /// Sets the payload length.
    pub fn set_payload_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 4, v);
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[6] = v;
    }

    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[7] = v;
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: Ipv6Address) {
        self.buffer.as_mut()[8..24].copy_from_slice(&a.0);
    }

    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: Ipv6Address) {
        self.buffer.as_mut()[24..40].copy_from_slice(&a.0);
    }

    /// Mutable payload (clamped to the buffer).
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let len = self.buffer.as_ref().len();
        let start = HEADER_LEN.min(len);
        let end = (HEADER_LEN + usize::from(self.payload_len())).clamp(start, len);
        &mut self.buffer.as_mut()[start..end]
    }
}

/// The fields of a fixed IPv6 header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Repr {
    /// Source address.
    pub src: Ipv6Address,
    /// Destination address.
    pub dst: Ipv6Address,
    /// Next header.
    pub next_header: u8,
    /// Payload length (extension headers included); at most 65535.
    pub payload_len: usize,
    /// Hop limit.
    pub hop_limit: u8,
    /// Traffic class.
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
}

impl Ipv6Repr {
    /// Reads the header of a checked packet.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Result<Ipv6Repr> {
        p.check_len()?;
        Ok(Ipv6Repr {
            src: p.src_addr(),
            dst: p.dst_addr(),
            next_header: p.next_header(),
            payload_len: usize::from(p.payload_len()),
            hop_limit: p.hop_limit(),
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
        })
    }

    /// Always 40.
    pub const fn header_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into the first 40 bytes of the buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv6Packet<T>) -> Result<()> {
        if self.flow_label > FLOW_LABEL_MASK {
            return Err(Error::Malformed("IPv6 flow label exceeds 20 bits"));
        }
        let pl = u16::try_from(self.payload_len)
            .map_err(|_| Error::Malformed("IPv6 payload length exceeds 65535"))?;
        let b = p.buffer.as_mut();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let w0 = (6u32 << 28) | (u32::from(self.traffic_class) << 20) | self.flow_label;
        b[0..4].copy_from_slice(&w0.to_be_bytes());
        put16(b, 4, pl);
        b[6] = self.next_header;
        b[7] = self.hop_limit;
        b[8..24].copy_from_slice(&self.src.0);
        b[24..40].copy_from_slice(&self.dst.0);
        Ok(())
    }
}

/// Where the upper-layer header starts after the IPv6 extension headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6ExtChain {
    /// The protocol of the first header that is not hop-by-hop, routing, destination options
    /// or fragment (or the fragment header's next header when the walk stopped at a fragment).
    pub next_header: u8,
    /// Offset of that header from the start of the IPv6 payload.
    pub offset: usize,
    /// True when a fragment header with a non-zero offset or the M flag was seen. The upper
    /// layer's ports are then not trustworthy (RSS must hash L3 only). An "atomic" fragment
    /// header (offset 0, M clear; RFC 6946) does not count.
    pub is_fragment: bool,
}

/// Walks the IPv6 extension headers hop-by-hop (0), routing (43), destination options (60) —
/// each `(hdr_ext_len + 1) × 8` bytes — and fragment (44, 8 bytes) from `payload`, the bytes
/// after the fixed header, with `next_header` the fixed header's next header. Any other value
/// ends the walk. At a non-first fragment (offset ≠ 0) the walk stops there, since what follows
/// is not a header. Returns [`Error::Truncated`] when an extension header runs past `payload`.
/// Terminates on any input: every step consumes at least 8 bytes.
pub fn skip_extension_headers(next_header: u8, payload: &[u8]) -> Result<Ipv6ExtChain> {
    let mut nh = next_header;
    let mut off = 0usize;
    let mut is_fragment = false;
    loop {
        match nh {
            IpProtocol::HOP_BY_HOP | IpProtocol::IPV6_ROUTE | IpProtocol::IPV6_OPTS => {
                let h = payload.get(off..off + 2).ok_or(Error::Truncated)?;
                let len = (usize::from(h[1]) + 1) * 8;
                if payload.len() < off + len {
                    return Err(Error::Truncated);
                }
                nh = h[0];
                off += len;
            }
            IpProtocol::IPV6_FRAG => {
                let h = payload.get(off..off + 8).ok_or(Error::Truncated)?;
                let frag = be16(h, 2);
                let offset = frag >> 3;
                let more = frag & 1 != 0;
                nh = h[0];
                off += 8;
                if offset != 0 || more {
                    is_fragment = true;
                }
                if offset != 0 {
                    break;
                }
            }
            _ => break,
        }
    }
    Ok(Ipv6ExtChain {
        next_header: nh,
        offset: off,
        is_fragment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_header_fields() {
        // 6 | tc 0xAB | flow 0xCDEF1 | plen 8 | nh 17 | hop 64 | ::1 -> ::2
        let mut b = [0u8; 48];
        b[..8].copy_from_slice(&[0x6A, 0xBC, 0xDE, 0xF1, 0x00, 0x08, 17, 64]);
        b[23] = 1;
        b[39] = 2;
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.traffic_class(), 0xAB);
        assert_eq!(p.flow_label(), 0xCDEF1);
        assert_eq!(p.payload().len(), 8);
        let r = Ipv6Repr::parse(&p).unwrap();
        let mut out = [0u8; 40];
        r.emit(&mut Ipv6Packet::new_unchecked(&mut out[..]))
            .unwrap();
        assert_eq!(out[..], b[..40]);
        assert_eq!(
            Ipv6Packet::new_checked(&b[..47]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn ext_headers() {
        // hop-by-hop (8 bytes) -> dest opts (16 bytes) -> fragment (offset 0, M) -> UDP
        let mut pl = [0u8; 40];
        pl[0] = 60;
        pl[1] = 0;
        pl[8] = 44;
        pl[9] = 1;
        pl[24] = 17;
        pl[26] = 0x00;
        pl[27] = 0x01; // M = 1, offset 0: first fragment
        let c = skip_extension_headers(0, &pl).unwrap();
        assert_eq!(
            c,
            Ipv6ExtChain {
                next_header: 17,
                offset: 32,
                is_fragment: true
            }
        );
        // A later fragment stops the walk.
        pl[26] = 0x00;
        pl[27] = 0x08; // offset 1, M = 0
        pl[32] = 0; // would look like hop-by-hop if walked
        let c = skip_extension_headers(0, &pl).unwrap();
        assert_eq!((c.next_header, c.offset, c.is_fragment), (17, 32, true));
        // Truncated chain.
        assert_eq!(
            skip_extension_headers(0, &pl[..12]).unwrap_err(),
            Error::Truncated
        );
        // No extension headers.
        let c = skip_extension_headers(6, &[]).unwrap();
        assert_eq!((c.next_header, c.offset, c.is_fragment), (6, 0, false));
    }
}
