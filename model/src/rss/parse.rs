//! The RSS parser: what of a received frame can be hashed (docs/reference.md §2, §4).
//!
//! It never fails. A frame is read header by header while each header is present and
//! consistent; what was valid up to the first problem goes into the [`FlowTuple`], the problem is
//! flagged [`ParseFlags::MALFORMED`], and the hash covers only the valid part. Nothing a frame
//! holds can make this panic (property-tested over arbitrary bytes).
//!
//! Frames: Ethernet II with up to two 802.1Q/802.1ad tags, native InfiniBand (LRH, optional GRH,
//! BTH, and for UD a DETH, then IPoIB's 4-byte header and an IP packet), or IPoIB as captured
//! above the InfiniBand headers (the 4-byte header and the IP packet).
//! IPv4 with options and fragments; IPv6 with hop-by-hop, routing, destination-options and
//! fragment headers skipped, other extension headers falling back to an L3-only hash; TCP; UDP;
//! RoCEv2 (UDP destination port 4791) with its BTH destination QP.
//!
//! Like a NIC's parser, it reads only the first [`PARSE_WINDOW`] bytes of a frame and walks at
//! most [`MAX_EXTENSION_HEADERS`] IPv6 extension headers; the RTL parser has the same limits,
//! so the two agree bit for bit. A transport header or extension header that lies past either
//! limit is not an error: the packet is hashed on its L3 fields and flagged
//! [`ParseFlags::L3_ONLY`] and [`ParseFlags::DEEP`] (a BTH past the window only loses its QPN).
//! Lengths are still checked against the whole frame.

use super::{FlowTuple, IpPair, L4};
use crate::wire::{be16, be24, EtherType, IpProtocol, LinkType, ROCEV2_PORT};
use core::fmt;

/// What the parser found, as a NIC reports it next to the hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParseFlags(pub u16);

impl ParseFlags {
    /// An IPv4 header was parsed.
    pub const IPV4: Self = Self(1 << 0);
    /// An IPv6 header was parsed.
    pub const IPV6: Self = Self(1 << 1);
    /// A TCP header was parsed.
    pub const TCP: Self = Self(1 << 2);
    /// A UDP header was parsed.
    pub const UDP: Self = Self(1 << 3);
    /// A BTH was parsed (RoCEv2, or native InfiniBand).
    pub const BTH: Self = Self(1 << 4);
    /// The IP packet came inside IPoIB.
    pub const IPOIB: Self = Self(1 << 5);
    /// An IP fragment: hashed on L3 fields only.
    pub const FRAGMENT: Self = Self(1 << 6);
    /// An IPv6 extension header the parser does not skip: hashed on L3 fields only.
    pub const L3_ONLY: Self = Self(1 << 7);
    /// A header was truncated or inconsistent: hashed on what was valid before it.
    pub const MALFORMED: Self = Self(1 << 8);
    /// The frame carried at least one VLAN tag.
    pub const VLAN: Self = Self(1 << 9);
    /// A header lay past [`PARSE_WINDOW`] or [`MAX_EXTENSION_HEADERS`]: hashed on what came
    /// before it.
    pub const DEEP: Self = Self(1 << 10);

    /// Every flag with its name, in report order.
    pub const NAMES: [(&'static str, Self); 11] = [
        ("vlan", Self::VLAN),
        ("ipoib", Self::IPOIB),
        ("ipv4", Self::IPV4),
        ("ipv6", Self::IPV6),
        ("tcp", Self::TCP),
        ("udp", Self::UDP),
        ("bth", Self::BTH),
        ("frag", Self::FRAGMENT),
        ("l3only", Self::L3_ONLY),
        ("malformed", Self::MALFORMED),
        ("deep", Self::DEEP),
    ];

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    fn set(&mut self, other: Self) {
        self.0 |= other.0;
    }
}

impl fmt::Display for ParseFlags {
    /// The set flags' names joined by `|`, or `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, flag) in Self::NAMES {
            if self.contains(flag) {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

/// A parsed frame: the hashable tuple and the flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Parsed {
    /// What the hash may cover.
    pub tuple: FlowTuple,
    /// What was found.
    pub flags: ParseFlags,
    /// The EtherType of the L3 payload (0 when none was reached); steering matches on it.
    pub ethertype: u16,
    /// The IP protocol / final IPv6 next header (0 when no IP header was parsed).
    pub l4_protocol: u8,
}

/// How many leading bytes of a frame the parser reads (the RTL parser's window).
pub const PARSE_WINDOW: usize = 128;

/// How many IPv6 extension headers the parser skips before it gives up on the transport.
pub const MAX_EXTENSION_HEADERS: usize = 4;

/// IPv6 extension headers that end the walk with an L3-only hash: ESP, AH, mobility, HIP,
/// shim6 and the two experimental values (RFC 7045's list, less the four the walk skips).
pub const UNSKIPPED_EXTENSIONS: [u8; 7] = [
    IpProtocol::ESP,
    IpProtocol::AH,
    IpProtocol::IPV6_MOBILITY,
    IpProtocol::HIP,
    IpProtocol::SHIM6,
    IpProtocol::EXPERIMENT_1,
    IpProtocol::EXPERIMENT_2,
];

/// Parses a frame for RSS.
pub fn classify(link: LinkType, frame: &[u8]) -> Parsed {
    let mut p = Parsed {
        tuple: FlowTuple::EMPTY,
        flags: ParseFlags::default(),
        ethertype: 0,
        l4_protocol: 0,
    };
    match link {
        LinkType::Ethernet => ethernet(&mut p, frame),
        LinkType::Ipoib => ipoib(&mut p, frame, 0),
        LinkType::Infiniband => infiniband(&mut p, frame),
    }
    p
}

fn ethernet(p: &mut Parsed, frame: &[u8]) {
    let Some(mut ethertype) = frame.get(12..14).map(|b| be16(b, 0)) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    let mut at = 14;
    for _ in 0..2 {
        if ethertype != EtherType::VLAN && ethertype != EtherType::QINQ {
            break;
        }
        p.flags.set(ParseFlags::VLAN);
        let Some(next) = frame.get(at + 2..at + 4) else {
            p.flags.set(ParseFlags::MALFORMED);
            return;
        };
        ethertype = be16(next, 0);
        at += 4;
    }
    p.ethertype = ethertype;
    ip(p, ethertype, frame, at.min(frame.len()));
}

/// LRH [+ GRH] + BTH [+ DETH [+ ImmDt]] + IPoIB header + IP.
fn infiniband(p: &mut Parsed, frame: &[u8]) {
    let Some(lrh) = frame.get(..8) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    let bth_at = match lrh[1] & 0b11 {
        0b10 => 8,
        0b11 => 48,
        // Raw and IP link next headers carry no BTH.
        _ => return,
    };
    let Some(bth) = frame.get(bth_at..bth_at + 12) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    p.flags.set(ParseFlags::BTH);
    p.tuple.bth_dest_qpn = Some(be24(bth, 5));
    let opcode = bth[0];
    // IPoIB is datagram traffic: UD SEND Only (0x64), with immediate data (0x65).
    let payload_at = match opcode {
        0x64 => bth_at + 12 + 8,
        0x65 => bth_at + 12 + 8 + 4,
        _ => return,
    };
    ipoib(p, frame, payload_at);
}

/// IPoIB's 4-byte header at offset `at` (EtherType, two reserved bytes) + IP.
fn ipoib(p: &mut Parsed, frame: &[u8], at: usize) {
    let Some(encap) = frame.get(at..at + 4) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    let ethertype = be16(encap, 0);
    if ethertype != EtherType::IPV4 && ethertype != EtherType::IPV6 {
        return;
    }
    p.flags.set(ParseFlags::IPOIB);
    p.ethertype = ethertype;
    ip(p, ethertype, frame, at + 4);
}

/// The IP packet at offset `at` of `frame`. Offsets stay absolute so that the window limit can
/// be checked; the fixed IPv4 and IPv6 headers always lie inside it.
fn ip(p: &mut Parsed, ethertype: u16, frame: &[u8], at: usize) {
    match ethertype {
        EtherType::IPV4 => ipv4(p, &frame[at..], at),
        EtherType::IPV6 => ipv6(p, &frame[at..], at),
        _ => {}
    }
}

fn ipv4(p: &mut Parsed, packet: &[u8], at: usize) {
    let Some(hdr) = packet.get(..20).filter(|h| h[0] >> 4 == 4) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    // The addresses sit at fixed offsets: valid as soon as 20 bytes of version 4 are there.
    p.flags.set(ParseFlags::IPV4);
    p.tuple.ip = IpPair::V4 {
        src: [hdr[12], hdr[13], hdr[14], hdr[15]],
        dst: [hdr[16], hdr[17], hdr[18], hdr[19]],
    };
    p.l4_protocol = hdr[9];
    let ihl = usize::from(hdr[0] & 0xF) * 4;
    let total = usize::from(be16(hdr, 2));
    if ihl < 20 || total < ihl || total > packet.len() {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    }
    if be16(hdr, 6) & 0x3FFF != 0 {
        p.flags.set(ParseFlags::FRAGMENT);
        p.tuple.fragment = true;
        return;
    }
    transport(p, hdr[9], &packet[ihl..total], at + ihl);
}

fn ipv6(p: &mut Parsed, packet: &[u8], at: usize) {
    let Some(hdr) = packet.get(..40).filter(|h| h[0] >> 4 == 6) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    p.flags.set(ParseFlags::IPV6);
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src.copy_from_slice(&hdr[8..24]);
    dst.copy_from_slice(&hdr[24..40]);
    p.tuple.ip = IpPair::V6 { src, dst };
    let payload_len = usize::from(be16(hdr, 4));
    let Some(payload) = packet.get(40..40 + payload_len) else {
        p.flags.set(ParseFlags::MALFORMED);
        return;
    };
    let payload_at = at + 40;
    let mut next_header = hdr[6];
    let mut offset = 0;
    let mut fragment = false;
    for hops in 0.. {
        let fixed_len = match next_header {
            IpProtocol::HOP_BY_HOP | IpProtocol::IPV6_ROUTE | IpProtocol::IPV6_OPTS => 2,
            IpProtocol::IPV6_FRAG => 8,
            _ => break,
        };
        // Order matters for agreement with the RTL: the hop limit, then truncation against the
        // IPv6 payload, then the window.
        if hops == MAX_EXTENSION_HEADERS {
            p.l4_protocol = next_header;
            p.flags
                .set(ParseFlags(ParseFlags::L3_ONLY.0 | ParseFlags::DEEP.0));
            return;
        }
        if offset + fixed_len > payload_len {
            p.flags.set(ParseFlags::MALFORMED);
            return;
        }
        if payload_at + offset + fixed_len > PARSE_WINDOW {
            p.l4_protocol = next_header;
            p.flags
                .set(ParseFlags(ParseFlags::L3_ONLY.0 | ParseFlags::DEEP.0));
            return;
        }
        let ext = &payload[offset..];
        if next_header == IpProtocol::IPV6_FRAG {
            let frag = be16(ext, 2);
            next_header = ext[0];
            offset += 8;
            fragment |= frag & 0xFFF9 != 0;
            if frag >> 3 != 0 {
                break;
            }
        } else {
            let len = (usize::from(ext[1]) + 1) * 8;
            if offset + len > payload_len {
                p.flags.set(ParseFlags::MALFORMED);
                return;
            }
            next_header = ext[0];
            offset += len;
        }
    }
    p.l4_protocol = next_header;
    if fragment {
        p.flags.set(ParseFlags::FRAGMENT);
        p.tuple.fragment = true;
        return;
    }
    if UNSKIPPED_EXTENSIONS.contains(&next_header) {
        p.flags.set(ParseFlags::L3_ONLY);
        return;
    }
    transport(p, next_header, &payload[offset..], payload_at + offset);
}

/// TCP or UDP (and RoCEv2's BTH) inside an IP payload bounded by the IP length; `at` is the
/// segment's offset in the frame.
fn transport(p: &mut Parsed, protocol: u8, segment: &[u8], at: usize) {
    let deep = |p: &mut Parsed| {
        p.flags
            .set(ParseFlags(ParseFlags::L3_ONLY.0 | ParseFlags::DEEP.0))
    };
    match protocol {
        IpProtocol::TCP => {
            let Some(hdr) = segment.get(..20) else {
                p.flags.set(ParseFlags::MALFORMED);
                return;
            };
            if at + 20 > PARSE_WINDOW {
                deep(p);
                return;
            }
            let doff = usize::from(hdr[12] >> 4) * 4;
            if doff < 20 || doff > segment.len() {
                p.flags.set(ParseFlags::MALFORMED);
                return;
            }
            p.flags.set(ParseFlags::TCP);
            p.tuple.l4 = L4::Tcp;
            p.tuple.src_port = be16(hdr, 0);
            p.tuple.dst_port = be16(hdr, 2);
        }
        IpProtocol::UDP => {
            let Some(hdr) = segment.get(..8) else {
                p.flags.set(ParseFlags::MALFORMED);
                return;
            };
            if at + 8 > PARSE_WINDOW {
                deep(p);
                return;
            }
            let len = usize::from(be16(hdr, 4));
            if len < 8 || len > segment.len() {
                p.flags.set(ParseFlags::MALFORMED);
                return;
            }
            p.flags.set(ParseFlags::UDP);
            p.tuple.l4 = L4::Udp;
            p.tuple.src_port = be16(hdr, 0);
            p.tuple.dst_port = be16(hdr, 2);
            if p.tuple.dst_port == ROCEV2_PORT {
                match segment.get(8..20).filter(|_| len >= 20) {
                    Some(_) if at + 20 > PARSE_WINDOW => p.flags.set(ParseFlags::DEEP),
                    Some(bth) => {
                        p.flags.set(ParseFlags::BTH);
                        p.tuple.bth_dest_qpn = Some(be24(bth, 5));
                    }
                    None => p.flags.set(ParseFlags::MALFORMED),
                }
            }
        }
        _ => {}
    }
}
