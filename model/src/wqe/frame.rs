//! One RoCEv2 frame of the send engine, byte for byte (docs/wqe.md, "Frames"):
//!
//! Ethernet (802.1Q tag when the route has one) | IPv4 (IHL 5, DF, ID 0, TTL = hop limit, TOS =
//! traffic class) or IPv6 (traffic class, flow label, hop limit) | UDP (entropy source port, 4791,
//! checksum 0) | BTH | RETH | DETH | ImmDt | payload | pad to 4 | ICRC | zeros to 60 bytes.
//!
//! The UDP checksum is 0 for both families: the ICRC protects the packet, and computing the
//! checksum would force the engine to hold a whole packet before sending its header.

use crate::qp::IpPair;
use crate::wire::ib::{Bth, BthRepr, Deth, DethRepr, ImmDt, ImmDtRepr, Reth, RethRepr};
use crate::wire::{
    icrc_append, EtherType, EthernetAddress, EthernetFrame, EthernetRepr, Ipv4Packet, Ipv4Repr,
    Ipv6Packet, Ipv6Repr, UdpPacket, UdpRepr, VlanTag, ICRC_LEN, ROCEV2_PORT,
};
use crate::wire::{Error, IpProtocol, Result};

/// Largest header block: tagged Ethernet 18, IPv6 40, UDP 8, BTH 12, RETH 16, ImmDt 4 (a UD
/// packet's DETH replaces the RETH, so 106 bounds both).
pub const MAX_HEADERS: usize = 18 + 40 + 8 + 12 + 16 + 4;
/// Largest frame: the headers, a 4096-byte payload, its pad (none at 4096) and the ICRC.
pub const MAX_FRAME: usize = MAX_HEADERS + 4096 + ICRC_LEN;
/// Frames shorter than this (Ethernet's 64 less the FCS) are padded with zeros.
pub use crate::wire::icrc::MIN_FRAME;
/// The P_Key every packet carries (the default partition, full membership).
pub const PKEY: u16 = 0xFFFF;

/// Where a packet goes and how its outer headers look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Source MAC (the NIC's).
    pub src_mac: EthernetAddress,
    /// Destination MAC.
    pub dst_mac: EthernetAddress,
    /// 802.1Q tag to insert: (VID, PCP).
    pub vlan: Option<(u16, u8)>,
    /// Source and destination addresses; the family picks IPv4 or IPv6.
    pub ip: IpPair,
    /// Traffic class (IPv4: the TOS byte).
    pub traffic_class: u8,
    /// Hop limit (IPv4: TTL).
    pub hop_limit: u8,
    /// IPv6 flow label (unused on IPv4).
    pub flow_label: u32,
    /// UDP source port.
    pub udp_sport: u16,
}

/// The transport headers of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transport {
    /// The BTH.
    pub bth: BthRepr,
    /// RETH (RDMA WRITE FIRST/ONLY).
    pub reth: Option<RethRepr>,
    /// DETH (UD).
    pub deth: Option<DethRepr>,
    /// Immediate (WITH_IMM LAST/ONLY).
    pub imm: Option<u32>,
}

impl Transport {
    /// BTH and extension headers.
    pub fn len(&self) -> usize {
        12 + usize::from(self.reth.is_some()) * 16
            + usize::from(self.deth.is_some()) * 8
            + usize::from(self.imm.is_some()) * 4
    }

    /// Never empty (the BTH is always there); for clippy's `len` convention.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Bytes before the payload for `route` and `t`.
pub fn header_len(route: &Route, t: &Transport) -> usize {
    let l2 = if route.vlan.is_some() { 18 } else { 14 };
    let l3 = match route.ip {
        IpPair::V4 { .. } => 20,
        IpPair::V6 { .. } => 40,
    };
    l2 + l3 + 8 + t.len()
}

/// Writes the headers of a packet with `payload` bytes (pad excluded) into the start of `out`
/// and returns their length; the caller puts the payload right after them and then calls
/// [`finish`].
pub fn emit_headers(route: &Route, t: &Transport, payload: usize, out: &mut [u8]) -> Result<usize> {
    let hl = header_len(route, t);
    if out.len() < hl {
        return Err(Error::Truncated);
    }
    let pad = usize::from(t.bth.pad_count);
    // UDP payload: transport headers, payload, pad and ICRC.
    let udp_payload = t.len() + payload + pad + ICRC_LEN;
    let eth = EthernetRepr {
        dst: route.dst_mac,
        src: route.src_mac,
        vlan: route.vlan.map(|(vid, pcp)| VlanTag::new(pcp, false, vid)),
        ethertype: match route.ip {
            IpPair::V4 { .. } => EtherType::IPV4,
            IpPair::V6 { .. } => EtherType::IPV6,
        },
    };
    eth.emit(&mut EthernetFrame::new_unchecked(&mut out[..]))?;
    let mut at = eth.header_len();
    match route.ip {
        IpPair::V4 { src, dst } => {
            let ip = Ipv4Repr {
                dscp_ecn: route.traffic_class,
                ident: 0,
                dont_frag: true,
                ttl: route.hop_limit,
                ..Ipv4Repr::new(src, dst, IpProtocol::UDP, 8 + udp_payload)
            };
            ip.emit(&mut Ipv4Packet::new_unchecked(&mut out[at..]))?;
            at += 20;
        }
        IpPair::V6 { src, dst } => {
            let ip = Ipv6Repr {
                src,
                dst,
                next_header: IpProtocol::UDP,
                payload_len: 8 + udp_payload,
                hop_limit: route.hop_limit,
                traffic_class: route.traffic_class,
                flow_label: route.flow_label,
            };
            ip.emit(&mut Ipv6Packet::new_unchecked(&mut out[at..]))?;
            at += 40;
        }
    }
    UdpRepr {
        src_port: route.udp_sport,
        dst_port: ROCEV2_PORT,
        payload_len: udp_payload,
    }
    .emit(&mut UdpPacket::new_unchecked(&mut out[at..]))?;
    at += 8;
    t.bth.emit(&mut Bth::new_unchecked(&mut out[at..at + 12]))?;
    at += 12;
    if let Some(r) = t.reth {
        r.emit(&mut Reth::new_unchecked(&mut out[at..at + 16]))?;
        at += 16;
    }
    if let Some(d) = t.deth {
        d.emit(&mut Deth::new_unchecked(&mut out[at..at + 8]))?;
        at += 8;
    }
    if let Some(imm) = t.imm {
        ImmDtRepr { imm }.emit(&mut ImmDt::new_unchecked(&mut out[at..at + 4]))?;
        at += 4;
    }
    debug_assert_eq!(at, hl);
    Ok(hl)
}

/// Writes the pad (`pad` zeros) after the `headers` and `payload` bytes in `out` and returns the
/// length so far: the frame without its ICRC and minimum-length zeros, which is what the RTL's
/// frame builder (`rtl/wqe/wqe_frame.sv`) sends on to the ICRC stage.
pub fn pad_payload(out: &mut [u8], headers: usize, payload: usize, pad: u8) -> Result<usize> {
    let end = headers + payload + usize::from(pad);
    if out.len() < end {
        return Err(Error::Truncated);
    }
    out[headers + payload..end].fill(0);
    Ok(end)
}

/// Completes a frame whose headers (`headers` bytes, from [`emit_headers`]) and `payload` bytes
/// are in `out`: writes the pad ([`pad_payload`]), then the ICRC and the zeros up to
/// [`MIN_FRAME`] ([`icrc_append`]), and returns the frame's length.
pub fn finish(out: &mut [u8], headers: usize, payload: usize, pad: u8, l3: usize) -> Result<usize> {
    let end = pad_payload(out, headers, payload, pad)?;
    icrc_append(out, end, l3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{icrc_compute, Ipv4Address, Ipv6Address, RoceFrame};

    fn route(ip: IpPair, vlan: Option<(u16, u8)>) -> Route {
        Route {
            src_mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
            dst_mac: EthernetAddress([2, 0, 0, 0, 0, 2]),
            vlan,
            ip,
            traffic_class: 0x28,
            hop_limit: 17,
            flow_label: 0xABCDE,
            udp_sport: 0xC123,
        }
    }

    fn bth(opcode: u8, pad: u8) -> BthRepr {
        BthRepr {
            opcode,
            solicited: false,
            migreq: false,
            pad_count: pad,
            tver: 0,
            pkey: PKEY,
            fecn: false,
            becn: false,
            dest_qpn: 0x22,
            ack_req: true,
            psn: 0x100,
        }
    }

    #[test]
    fn frames_parse_back_with_a_valid_icrc() {
        let v4 = IpPair::V4 {
            src: Ipv4Address::new(192, 168, 1, 1),
            dst: Ipv4Address::new(192, 168, 1, 2),
        };
        let v6 = IpPair::V6 {
            src: Ipv6Address([0xfd; 16]),
            dst: Ipv6Address([0xfe; 16]),
        };
        for ip in [v4, v6] {
            for vlan in [None, Some((5, 3))] {
                for payload in [0usize, 1, 3, 4, 100, 4096] {
                    let r = route(ip, vlan);
                    let pad = (payload.wrapping_neg() & 3) as u8;
                    let t = Transport {
                        bth: bth(0x0B, pad),
                        reth: Some(RethRepr {
                            va: 7,
                            rkey: 9,
                            dma_len: payload as u32,
                        }),
                        deth: None,
                        imm: Some(0x1234),
                    };
                    let mut buf = [0u8; MAX_FRAME];
                    let hl = emit_headers(&r, &t, payload, &mut buf).unwrap();
                    for (i, b) in buf[hl..hl + payload].iter_mut().enumerate() {
                        *b = i as u8;
                    }
                    let l3 = if vlan.is_some() { 18 } else { 14 };
                    let n = finish(&mut buf, hl, payload, pad, l3).unwrap();
                    assert!(n >= MIN_FRAME);
                    let f = RoceFrame::parse(&buf[..n]).unwrap();
                    assert!(f.is_valid(), "{ip:?} {vlan:?} {payload}");
                    assert_eq!(f.bth().opcode(), 0x0B);
                    assert_eq!(f.bth().pad_count(), pad);
                }
            }
        }
    }

    #[test]
    fn pad_payload_is_the_frame_before_its_icrc() {
        let ip = IpPair::V4 {
            src: Ipv4Address::new(10, 0, 0, 1),
            dst: Ipv4Address::new(10, 0, 0, 2),
        };
        for payload in [0usize, 1, 2, 3, 4, 5, 61] {
            let pad = (payload.wrapping_neg() & 3) as u8;
            let t = Transport {
                bth: bth(0x04, pad),
                reth: None,
                deth: None,
                imm: None,
            };
            // Junk where the pad goes: it must come out as zeros.
            let mut body = [0xAAu8; MAX_FRAME];
            let hl = emit_headers(&route(ip, None), &t, payload, &mut body).unwrap();
            let end = pad_payload(&mut body, hl, payload, pad).unwrap();
            assert_eq!(end, hl + payload + usize::from(pad));
            assert_eq!(end % 2, 0, "whole 16-bit words");
            assert!(body[hl + payload..end].iter().all(|&b| b == 0));
            let mut frame = body;
            let n = finish(&mut frame, hl, payload, pad, 14).unwrap();
            assert_eq!(&frame[..end], &body[..end]);
            let crc = icrc_compute(&body[14..end]).unwrap();
            assert_eq!(&frame[end..end + ICRC_LEN], &crc.to_le_bytes());
            assert_eq!(n, (end + ICRC_LEN).max(MIN_FRAME));
            assert!(frame[end + ICRC_LEN..n].iter().all(|&b| b == 0));
            assert_eq!(
                pad_payload(&mut body[..end - 1], hl, payload, pad),
                Err(Error::Truncated)
            );
        }
    }
}
