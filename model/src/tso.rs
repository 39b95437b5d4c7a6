//! TCP segmentation offload (docs/reference.md §5): one large send becomes MSS-sized segments.
//!
//! The host hands a header template (link header, IPv4 or IPv6, TCP) and a payload. Segment `i`
//! of `n` is the template with: IPv4 total length, identification `ID0 + i` and a fresh header
//! checksum, or the IPv6 payload length; TCP sequence `seq0 + i·mss`; FIN and PSH only on the
//! last segment, CWR only on the first; and a TCP checksum over pseudo-header, header and segment
//! payload. The length and checksum fields of the template are ignored: hosts leave totals or
//! partial sums there.
//!
//! Link headers ([`LinkType`]): Ethernet II with an optional 802.1Q/802.1ad tag, or the 4-byte
//! IPoIB encapsulation header (IPoIB on a UD QP); native InfiniBand is refused. Nothing here allocates: segments are written into a
//! caller's buffer one at a time.

mod status;

pub use status::{Status, STATUS_BITS};

use crate::wire::checksum::{self, IpPseudo};
use crate::wire::{be16, EtherType, IpProtocol, LinkType};
use crate::wire::{Ipv4Address, Ipv6Address};
use core::fmt;

/// Device limits (verbs `max_tso_header` and `max_tso`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest header template, in bytes.
    pub max_header: usize,
    /// The longest payload of one send, in bytes.
    pub max_tso: usize,
    /// The largest MSS, in bytes: the segment buffer of the device.
    pub max_mss: usize,
}

impl Default for Limits {
    /// The RTL's defaults: `MAX_HDR` 128 bytes, `MAX_TSO` 256 KiB, `MAX_MSS` 9000 bytes (jumbo).
    fn default() -> Self {
        Limits {
            max_header: 128,
            max_tso: 256 * 1024,
            max_mss: 9000,
        }
    }
}

/// Why a send cannot be segmented; the NIC completes it with an error and sends nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// MSS 0.
    MssZero,
    /// An MSS over `max_mss`, or so large that a segment's IPv4 total length (or IPv6 payload
    /// length) overflows.
    MssTooLarge(usize),
    /// The header template is longer than `max_header`.
    HeaderTooLong {
        /// Template length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The payload is longer than `max_tso`.
    PayloadTooLong {
        /// Payload length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The template is not a link header + IPv4/IPv6 + TCP (the reason says where it is not).
    NotTcp(&'static str),
    /// The template's lengths disagree with its size (the reason says which).
    Malformed(&'static str),
    /// The output buffer cannot hold the segment.
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
    },
    /// A segment index past the last segment.
    NoSuchSegment(usize),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::MssZero => f.write_str("MSS is 0"),
            Error::MssTooLarge(mss) => write!(
                f,
                "MSS {mss} exceeds the device's segment buffer or what IP lengths allow"
            ),
            Error::HeaderTooLong { len, max } => {
                write!(f, "header of {len} bytes exceeds the {max}-byte limit")
            }
            Error::PayloadTooLong { len, max } => {
                write!(f, "payload of {len} bytes exceeds the {max}-byte TSO limit")
            }
            Error::NotTcp(why) => write!(f, "header is not IPv4/IPv6 + TCP: {why}"),
            Error::Malformed(why) => write!(f, "malformed header: {why}"),
            Error::BufferTooSmall { needed } => write!(f, "output buffer needs {needed} bytes"),
            Error::NoSuchSegment(i) => write!(f, "segment {i} does not exist"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

const TCP_FIN: u8 = 0x01;
const TCP_PSH: u8 = 0x08;
const TCP_CWR: u8 = 0x80;

/// Where the headers of a template are, and what kind of IP it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderLayout {
    /// Offset of the IP header.
    pub ip_offset: usize,
    /// Offset of the TCP header.
    pub tcp_offset: usize,
    /// Length of the whole template (link + IP + TCP headers).
    pub header_len: usize,
    /// IPv4 (else IPv6).
    pub ipv4: bool,
}

impl HeaderLayout {
    /// Finds the headers at the start of `bytes` (a template or a whole frame).
    ///
    /// Only the header fields are read; IP length fields are not checked against `bytes`.
    pub fn parse(link: LinkType, bytes: &[u8]) -> Result<Self, Error> {
        let truncated = Error::Malformed("shorter than its headers");
        let (ip_offset, ethertype) = match link {
            LinkType::Ethernet => {
                let mut at = 12;
                let mut ethertype = be16(bytes.get(..14).ok_or(truncated)?, 12);
                if ethertype == 0x8100 || ethertype == 0x88A8 {
                    at += 4;
                    ethertype = be16(bytes.get(..18).ok_or(truncated)?, 16);
                }
                (at + 2, ethertype)
            }
            LinkType::Ipoib => (4, be16(bytes.get(..4).ok_or(truncated)?, 0)),
            LinkType::Infiniband => return Err(Error::NotTcp("native InfiniBand link header")),
        };
        let ip = bytes.get(ip_offset..).ok_or(truncated)?;
        let (ipv4, tcp_offset) = match ethertype {
            EtherType::IPV4 => {
                let first = *ip.first().ok_or(truncated)?;
                if first >> 4 != 4 {
                    return Err(Error::Malformed("IPv4 EtherType but IP version is not 4"));
                }
                let ihl = usize::from(first & 0xF) * 4;
                if ihl < 20 {
                    return Err(Error::Malformed("IPv4 header length below 20 bytes"));
                }
                let hdr = ip.get(..ihl).ok_or(truncated)?;
                if hdr[9] != IpProtocol::TCP {
                    return Err(Error::NotTcp("IPv4 protocol is not TCP"));
                }
                if be16(hdr, 6) & 0x3FFF != 0 {
                    return Err(Error::NotTcp("IPv4 header is a fragment"));
                }
                (true, ip_offset + ihl)
            }
            EtherType::IPV6 => {
                let hdr = ip.get(..40).ok_or(truncated)?;
                if hdr[0] >> 4 != 6 {
                    return Err(Error::Malformed("IPv6 EtherType but IP version is not 6"));
                }
                if hdr[6] != IpProtocol::TCP {
                    return Err(Error::NotTcp("IPv6 next header is not TCP"));
                }
                (false, ip_offset + 40)
            }
            _ => return Err(Error::NotTcp("EtherType is neither IPv4 nor IPv6")),
        };
        let data_offset = usize::from(*bytes.get(tcp_offset + 12).ok_or(truncated)? >> 4) * 4;
        if data_offset < 20 {
            return Err(Error::Malformed("TCP data offset below 20 bytes"));
        }
        let header_len = tcp_offset + data_offset;
        if bytes.len() < header_len {
            return Err(truncated);
        }
        Ok(HeaderLayout {
            ip_offset,
            tcp_offset,
            header_len,
            ipv4,
        })
    }
}

/// A checked send, ready to be cut into segments.
#[derive(Clone, Copy, Debug)]
pub struct Segmenter<'a> {
    header: &'a [u8],
    /// The payload, or empty when the send was checked by its length only ([`Self::with_len`]).
    payload: &'a [u8],
    payload_len: usize,
    mss: usize,
    layout: HeaderLayout,
}

impl<'a> Segmenter<'a> {
    /// Checks a send: `header` must be exactly link + IP + TCP headers.
    pub fn new(
        link: LinkType,
        header: &'a [u8],
        payload: &'a [u8],
        mss: usize,
        limits: Limits,
    ) -> Result<Self, Error> {
        Ok(Segmenter {
            payload,
            ..Self::with_len(link, header, payload.len(), mss, limits)?
        })
    }

    /// Checks a send of `payload_len` bytes whose payload the caller brings segment by segment
    /// ([`Self::segment_range`], [`Self::write_segment_with`]): how an engine that gathers from
    /// host memory uses it, without holding the whole payload.
    pub fn with_len(
        link: LinkType,
        header: &'a [u8],
        payload_len: usize,
        mss: usize,
        limits: Limits,
    ) -> Result<Self, Error> {
        let payload: &[u8] = &[];
        if mss == 0 {
            return Err(Error::MssZero);
        }
        if header.len() > limits.max_header {
            return Err(Error::HeaderTooLong {
                len: header.len(),
                max: limits.max_header,
            });
        }
        if payload_len > limits.max_tso {
            return Err(Error::PayloadTooLong {
                len: payload_len,
                max: limits.max_tso,
            });
        }
        let layout = HeaderLayout::parse(link, header)?;
        if layout.header_len != header.len() {
            return Err(Error::Malformed(
                "header length is not link + IP + TCP header lengths",
            ));
        }
        // The IPv4 total length and the IPv6 payload length are 16-bit fields. Checked sums:
        // a caller's limits may be anything up to usize::MAX.
        let ip_len = header.len() - layout.ip_offset - if layout.ipv4 { 0 } else { 40 };
        if mss > limits.max_mss || ip_len.checked_add(mss).is_none_or(|n| n > 0xFFFF) {
            return Err(Error::MssTooLarge(mss));
        }
        Ok(Segmenter {
            header,
            payload,
            payload_len,
            mss,
            layout,
        })
    }

    /// Splits a whole oversized frame, as a host hands it, into template and payload.
    pub fn from_frame(
        link: LinkType,
        frame: &'a [u8],
        mss: usize,
        limits: Limits,
    ) -> Result<Self, Error> {
        let layout = HeaderLayout::parse(link, frame)?;
        let (header, payload) = frame.split_at(layout.header_len);
        Segmenter::new(link, header, payload, mss, limits)
    }

    /// Where the template's headers are.
    pub fn layout(&self) -> HeaderLayout {
        self.layout
    }

    /// The number of segments: the payload in MSS pieces, and one segment for an empty payload.
    pub fn segment_count(&self) -> usize {
        self.payload_len.div_ceil(self.mss).max(1)
    }

    /// Where segment `i`'s payload lies in the payload; [`Error::NoSuchSegment`] past the last
    /// segment.
    pub fn segment_range(&self, i: usize) -> Result<core::ops::Range<usize>, Error> {
        if i >= self.segment_count() {
            return Err(Error::NoSuchSegment(i));
        }
        // i < segment_count, so i · mss ≤ payload length (or 0 for the one empty segment).
        let start = i * self.mss;
        Ok(start..self.payload_len.min(start + self.mss))
    }

    /// The payload bytes of segment `i`; [`Error::NoSuchSegment`] past the last segment, or
    /// for a send checked by its length only.
    pub fn segment_payload(&self, i: usize) -> Result<&'a [u8], Error> {
        self.payload
            .get(self.segment_range(i)?)
            .ok_or(Error::NoSuchSegment(i))
    }

    /// The length of segment `i` on the wire; [`Error::NoSuchSegment`] past the last segment.
    pub fn segment_len(&self, i: usize) -> Result<usize, Error> {
        Ok(self.header.len() + self.segment_range(i)?.len())
    }

    /// Writes segment `i` into `out` and returns its length.
    pub fn write_segment(&self, i: usize, out: &mut [u8]) -> Result<usize, Error> {
        self.write_segment_with(i, self.segment_payload(i)?, out)
    }

    /// Writes segment `i` with `body` as its payload (the bytes of [`Self::segment_range`],
    /// which the caller gathered) into `out` and returns its length.
    pub fn write_segment_with(
        &self,
        i: usize,
        body: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let n = self.segment_count();
        if body.len() != self.segment_range(i)?.len() {
            return Err(Error::Malformed("segment payload of the wrong length"));
        }
        let len = self.header.len() + body.len();
        let out = out
            .get_mut(..len)
            .ok_or(Error::BufferTooSmall { needed: len })?;
        let HeaderLayout {
            ip_offset: ip,
            tcp_offset: tcp,
            header_len,
            ipv4,
        } = self.layout;
        out[..header_len].copy_from_slice(self.header);
        out[header_len..].copy_from_slice(body);
        let tcp_len = len - tcp;

        let pseudo = if ipv4 {
            let total = (len - ip) as u16;
            out[ip + 2..ip + 4].copy_from_slice(&total.to_be_bytes());
            // ID0 + i modulo 2^16, as IPv4 identifications wrap.
            let ident = be16(out, ip + 4).wrapping_add(i as u16);
            out[ip + 4..ip + 6].copy_from_slice(&ident.to_be_bytes());
            out[ip + 10..ip + 12].fill(0);
            let sum = checksum::checksum(&out[ip..tcp]);
            out[ip + 10..ip + 12].copy_from_slice(&sum.to_be_bytes());
            IpPseudo::V4 {
                src: Ipv4Address(out[ip + 12..ip + 16].try_into().expect("4 bytes")),
                dst: Ipv4Address(out[ip + 16..ip + 20].try_into().expect("4 bytes")),
                protocol: IpProtocol::TCP,
            }
        } else {
            out[ip + 4..ip + 6].copy_from_slice(&(tcp_len as u16).to_be_bytes());
            IpPseudo::V6 {
                src: Ipv6Address(out[ip + 8..ip + 24].try_into().expect("16 bytes")),
                dst: Ipv6Address(out[ip + 24..ip + 40].try_into().expect("16 bytes")),
                next_header: IpProtocol::TCP,
            }
        };

        // seq0 + i·mss modulo 2^32, as TCP sequence numbers wrap (i·mss ≤ the payload length).
        let seq = u32::from_be_bytes(out[tcp + 4..tcp + 8].try_into().expect("4 bytes"))
            .wrapping_add((i * self.mss) as u32);
        out[tcp + 4..tcp + 8].copy_from_slice(&seq.to_be_bytes());
        let mut flags = out[tcp + 13];
        if i + 1 != n {
            flags &= !(TCP_FIN | TCP_PSH);
        }
        if i != 0 {
            flags &= !TCP_CWR;
        }
        out[tcp + 13] = flags;
        out[tcp + 16..tcp + 18].fill(0);
        let sum = checksum::finish(pseudo.sum_with(&out[tcp..]));
        out[tcp + 16..tcp + 18].copy_from_slice(&sum.to_be_bytes());
        Ok(len)
    }
}

/// What the independent checker read from a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentInfo<'a> {
    /// The IPv4 identification (`None` for IPv6).
    pub ipv4_ident: Option<u16>,
    /// TCP sequence number.
    pub seq: u32,
    /// TCP flags byte (CWR 0x80 … FIN 0x01).
    pub flags: u8,
    /// The TCP payload.
    pub payload: &'a [u8],
}

/// Checks one segment as a receiver would, through the wire views rather than the segmenter's
/// offsets: IP lengths consistent with the frame, IPv4 header checksum, TCP checksum.
///
/// Frames may carry link-layer padding after the IP packet (Ethernet minimum size).
pub fn verify_segment(link: LinkType, frame: &[u8]) -> Result<SegmentInfo<'_>, &'static str> {
    use crate::wire::{Ipv4Packet, Ipv6Packet, TcpPacket};
    let layout = HeaderLayout::parse(link, frame).map_err(|_| "headers do not parse")?;
    let ip = &frame[layout.ip_offset..];
    let (pseudo, tcp, ipv4_ident) = if layout.ipv4 {
        let p = Ipv4Packet::new_checked(ip).map_err(|_| "IPv4 lengths inconsistent")?;
        if !p.verify_checksum() {
            return Err("bad IPv4 header checksum");
        }
        let ident = p.ident();
        let end = usize::from(p.total_len());
        let pseudo = IpPseudo::V4 {
            src: p.src_addr(),
            dst: p.dst_addr(),
            protocol: IpProtocol::TCP,
        };
        (pseudo, &ip[p.header_len()..end], Some(ident))
    } else {
        let p = Ipv6Packet::new_checked(ip).map_err(|_| "IPv6 lengths inconsistent")?;
        let pseudo = IpPseudo::V6 {
            src: p.src_addr(),
            dst: p.dst_addr(),
            next_header: IpProtocol::TCP,
        };
        (pseudo, &ip[40..40 + usize::from(p.payload_len())], None)
    };
    let t = TcpPacket::new_checked(tcp).map_err(|_| "TCP lengths inconsistent")?;
    if !t.verify_checksum(&pseudo) {
        return Err("bad TCP checksum");
    }
    Ok(SegmentInfo {
        ipv4_ident,
        seq: t.seq_number(),
        flags: tcp[13],
        payload: &tcp[t.header_len()..],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IPoIB + IPv4 + TCP, the seed's 44-byte template; seq 1000, ID 7, flags PSH|ACK|FIN|CWR.
    fn ipoib_v4() -> [u8; 44] {
        let mut h = [0u8; 44];
        h[0..2].copy_from_slice(&EtherType::IPV4.to_be_bytes());
        h[4] = 0x45;
        h[8..10].copy_from_slice(&7u16.to_be_bytes());
        h[12] = 64;
        h[13] = IpProtocol::TCP;
        h[16..20].copy_from_slice(&[10, 0, 0, 1]);
        h[20..24].copy_from_slice(&[10, 0, 0, 2]);
        h[24..26].copy_from_slice(&1234u16.to_be_bytes());
        h[26..28].copy_from_slice(&80u16.to_be_bytes());
        h[28..32].copy_from_slice(&1000u32.to_be_bytes());
        h[36] = 0x50;
        h[37] = 0x80 | 0x10 | TCP_PSH | TCP_FIN;
        h
    }

    /// Extreme limits and indexes: no overflow in debug, no wrong answer in release.
    #[test]
    fn extreme_arguments() {
        let h = ipoib_v4();
        let open = Limits {
            max_header: usize::MAX,
            max_tso: usize::MAX,
            max_mss: usize::MAX,
        };
        for mss in [usize::MAX, usize::MAX - 1, 0xFFFF, 0xFFFF - 40 + 1] {
            assert_eq!(
                Segmenter::new(LinkType::Ipoib, &h, &[0; 10], mss, open).unwrap_err(),
                Error::MssTooLarge(mss)
            );
        }
        // The largest MSS an IPv4 total length allows: 0xFFFF − 20 − 20.
        let s = Segmenter::new(LinkType::Ipoib, &h, &[0; 10], 0xFFFF - 40, open).unwrap();
        assert_eq!(s.segment_count(), 1);
        assert_eq!(s.segment_len(0), Ok(54));
        for i in [1, 2, usize::MAX] {
            assert_eq!(s.segment_payload(i), Err(Error::NoSuchSegment(i)));
            assert_eq!(s.segment_len(i), Err(Error::NoSuchSegment(i)));
        }
        let s = Segmenter::new(LinkType::Ipoib, &h, &[0; 10], 3, open).unwrap();
        assert_eq!(s.segment_count(), 4);
        assert_eq!(s.segment_payload(3), Ok(&[0u8][..]));
        assert_eq!(s.segment_len(4), Err(Error::NoSuchSegment(4)));
        assert_eq!(
            s.write_segment(usize::MAX, &mut [0; 100]),
            Err(Error::NoSuchSegment(usize::MAX))
        );
    }

    #[test]
    fn errors() {
        let h = ipoib_v4();
        let l = Limits::default();
        fn seg(h: &[u8], mss: usize, limits: Limits) -> Result<Segmenter<'_>, Error> {
            Segmenter::new(LinkType::Ipoib, h, &[0; 10], mss, limits)
        }
        assert_eq!(seg(&h, 0, l).unwrap_err(), Error::MssZero);
        assert_eq!(
            seg(
                &h,
                100,
                Limits {
                    max_header: 40,
                    ..l
                }
            )
            .unwrap_err(),
            Error::HeaderTooLong { len: 44, max: 40 }
        );
        assert!(matches!(
            seg(&h, 100, Limits { max_tso: 9, ..l }).unwrap_err(),
            Error::PayloadTooLong { len: 10, max: 9 }
        ));
        let mut udp = h;
        udp[13] = 17;
        assert!(matches!(seg(&udp, 100, l).unwrap_err(), Error::NotTcp(_)));
        assert!(matches!(
            seg(&h[..43], 100, l).unwrap_err(),
            Error::Malformed(_)
        ));
        assert!(matches!(
            seg(&h, 65_500, l).unwrap_err(),
            Error::MssTooLarge(_)
        ));
        // Past the segment buffer, though IP would allow it.
        let big = Limits {
            max_mss: 60_000,
            ..l
        };
        assert!(seg(&h, 9001, big).is_ok());
        assert_eq!(seg(&h, 9001, l).unwrap_err(), Error::MssTooLarge(9001));
        assert!(seg(&h, 9000, l).is_ok());
        let s = seg(&h, 4, l).unwrap();
        assert_eq!(s.segment_count(), 3);
        assert_eq!(
            s.write_segment(3, &mut [0; 100]),
            Err(Error::NoSuchSegment(3))
        );
        assert_eq!(
            s.write_segment(0, &mut [0; 10]),
            Err(Error::BufferTooSmall { needed: 48 })
        );
    }

    #[test]
    fn fields_per_segment() {
        let h = ipoib_v4();
        let payload = [0xAB; 25];
        let s = Segmenter::new(LinkType::Ipoib, &h, &payload, 10, Limits::default()).unwrap();
        assert_eq!(s.segment_count(), 3);
        let mut out = [0u8; 64];
        for i in 0..3 {
            let len = s.write_segment(i, &mut out).unwrap();
            let body = [10, 10, 5][i];
            assert_eq!(len, 44 + body);
            assert_eq!(be16(&out, 6), (40 + body) as u16, "total length");
            assert_eq!(be16(&out, 8), 7 + i as u16, "IPv4 ID");
            assert_eq!(checksum::sum(&out[4..24]), 0xFFFF, "IPv4 header checksum");
            let seq = u32::from_be_bytes(out[28..32].try_into().unwrap());
            assert_eq!(seq, 1000 + 10 * i as u32);
            let flags = out[37];
            assert_eq!(flags & TCP_CWR != 0, i == 0);
            assert_eq!(flags & (TCP_FIN | TCP_PSH) != 0, i == 2);
            assert_eq!(flags & 0x10, 0x10, "ACK kept");
        }
    }
}
