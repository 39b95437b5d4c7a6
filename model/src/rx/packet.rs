//! What the receive path reads from a frame before any queue is touched: RoCEv2 or not, the
//! ICRC, and the transport headers (docs/rx.md, "Classification").

use super::Discard;
use crate::qp::PathMtu;
use crate::wire::ib::{opcode as op, BTH_LEN, DETH_LEN, IMMDT_LEN, RETH_LEN};
use crate::wire::Error as WireError;
use crate::wire::{
    be32, ethernet, ipv4, udp, EtherType, EthernetFrame, IpProtocol, IpPseudo, Ipv4Packet,
    Ipv6Packet, RoceFrame, TcpPacket, UdpPacket, ICRC_LEN,
};
use crate::wqe::frame::PKEY;

/// Bytes of the GRH area a UD receive buffer starts with.
pub const GRH_AREA: usize = 40;

/// The longest frame the receive path takes: a full 4096-byte MTU payload under the longest
/// headers it parses (a tagged Ethernet header, IPv4 with 40 option bytes, UDP, BTH, RETH and
/// ImmDt), and the ICRC. A longer frame, of any kind, is malformed: the hardware's packet buffer
/// keeps no more of a frame.
pub const MAX_FRAME: usize = ethernet::TAGGED_HEADER_LEN
    + ipv4::MIN_HEADER_LEN
    + ipv4::MAX_OPTIONS_LEN
    + udp::HEADER_LEN
    + BTH_LEN
    + RETH_LEN
    + IMMDT_LEN
    + PathMtu::Mtu4096.bytes() as usize
    + ICRC_LEN;

/// A RoCEv2 packet whose ICRC and headers checked out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RocePacket<'a> {
    /// BTH opcode.
    pub opcode: u8,
    /// BTH destination QP.
    pub dest_qpn: u32,
    /// BTH PSN.
    pub psn: u32,
    /// BTH AckReq: the requester asks for an acknowledgement (RC).
    pub ack_req: bool,
    /// DETH: Q_Key and source QP (UD opcodes).
    pub deth: Option<(u32, u32)>,
    /// RETH: virtual address, R_Key, DMA length (RDMA WRITE FIRST/ONLY, READ request).
    pub reth: Option<(u64, u32, u32)>,
    /// Immediate data, as the wire carries it (big-endian read).
    pub imm: Option<u32>,
    /// The payload, pad removed.
    pub payload: &'a [u8],
    /// What a UD receive buffer's first 40 bytes get: the IPv6 header, or 20 zero bytes and
    /// the IPv4 header's first 20.
    pub grh: [u8; GRH_AREA],
}

/// A frame as the receive path sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incoming<'a> {
    /// RoCEv2 (UDP destination port 4791).
    Roce(RocePacket<'a>),
    /// Anything else: delivered whole to a raw work queue. `csum_ok` when it is IPv4 or IPv6
    /// with TCP or UDP and every checksum it carries is good.
    Raw {
        /// The whole frame.
        frame: &'a [u8],
        /// Checksums checked and good.
        csum_ok: bool,
    },
}

/// Whether the receive path handles `opcode` here: RC SEND and RDMA WRITE, UD SEND. With the
/// reliable transport on, the READ request too ([`classify_with`]).
pub const fn supported(opcode: u8) -> bool {
    matches!(
        opcode,
        op::RC_SEND_FIRST
            ..=op::RC_RDMA_WRITE_ONLY_WITH_IMM | op::UD_SEND_ONLY | op::UD_SEND_ONLY_WITH_IMM
    )
}

/// Classifies `frame` (Ethernet, no FCS). No frame may be longer than [`MAX_FRAME`]. A RoCEv2
/// frame must be well formed, carry a good ICRC (and IPv4 header checksum), the default P_Key,
/// TVer 0 and an opcode [`supported`].
pub fn classify(frame: &[u8]) -> Result<Incoming<'_>, Discard> {
    classify_with(frame, false)
}

/// [`classify`], also taking RC READ requests when `reads` (the reliable transport is on).
/// Without it a READ request is [`Discard::Unsupported`] at the same point as before, which is
/// what the RTL receive path, compared frame by frame, does.
pub fn classify_with(frame: &[u8], reads: bool) -> Result<Incoming<'_>, Discard> {
    if frame.len() > MAX_FRAME {
        return Err(Discard::Malformed);
    }
    let f = match RoceFrame::parse(frame) {
        Ok(f) => f,
        Err(WireError::NotRoce) => {
            return Ok(Incoming::Raw {
                frame,
                csum_ok: raw_csum_ok(frame),
            })
        }
        Err(_) => return Err(Discard::Malformed),
    };
    if !f.is_valid() {
        return Err(Discard::Icrc);
    }
    let l3 = &frame[f.l3_offset()..];
    let mut grh = [0u8; GRH_AREA];
    if f.ip_version() == 4 {
        let ip = Ipv4Packet::new_unchecked(l3);
        // The ICRC masks the header checksum, so it is checked on its own.
        if !ip.verify_checksum() {
            return Err(Discard::Icrc);
        }
        grh[20..].copy_from_slice(&l3[..20]);
    } else {
        grh.copy_from_slice(&l3[..GRH_AREA]);
    }
    let bth = f.bth();
    let opcode = bth.opcode();
    if bth.pkey() != PKEY || bth.tver() != 0 {
        return Err(Discard::Malformed);
    }
    if !(supported(opcode) || (reads && opcode == op::RC_RDMA_READ_REQUEST)) {
        return Err(Discard::Unsupported);
    }
    let rest = f.bth_payload();
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8], Discard> {
        let s = rest.get(at..at + n).ok_or(Discard::Malformed)?;
        at += n;
        Ok(s)
    };
    let reth = if op::has_reth(opcode) {
        let r = take(RETH_LEN)?;
        let va = u64::from(be32(r, 0)) << 32 | u64::from(be32(r, 4));
        Some((va, be32(r, 8), be32(r, 12)))
    } else {
        None
    };
    let deth = if op::has_deth(opcode) {
        let d = take(DETH_LEN)?;
        Some((be32(d, 0), be32(d, 4) & 0xFF_FFFF))
    } else {
        None
    };
    let imm = if op::has_immdt(opcode) {
        Some(be32(take(IMMDT_LEN)?, 0))
    } else {
        None
    };
    let pad = usize::from(bth.pad_count());
    let body = &rest[at..];
    if body.len() < pad {
        return Err(Discard::Malformed);
    }
    Ok(Incoming::Roce(RocePacket {
        opcode,
        dest_qpn: bth.dest_qpn(),
        psn: bth.psn(),
        ack_req: bth.ack_req(),
        deth,
        reth,
        imm,
        payload: &body[..body.len() - pad],
        grh,
    }))
}

/// IPv4 header checksum and the TCP or UDP checksum of a frame that is not RoCEv2: true only
/// when there is one to check and all are good.
fn raw_csum_ok(frame: &[u8]) -> bool {
    let Ok(eth) = EthernetFrame::new_checked(frame) else {
        return false;
    };
    let l3 = &frame[eth.header_len()..];
    let (pseudo, upper) = match eth.ethertype() {
        EtherType::IPV4 => {
            let Ok(ip) = Ipv4Packet::new_checked(l3) else {
                return false;
            };
            if !ip.verify_checksum() || ip.is_fragment() {
                return false;
            }
            let pseudo = IpPseudo::V4 {
                src: ip.src_addr(),
                dst: ip.dst_addr(),
                protocol: ip.protocol(),
            };
            (pseudo, &l3[ip.header_len()..usize::from(ip.total_len())])
        }
        EtherType::IPV6 => {
            let Ok(ip) = Ipv6Packet::new_checked(l3) else {
                return false;
            };
            let pseudo = IpPseudo::V6 {
                src: ip.src_addr(),
                dst: ip.dst_addr(),
                next_header: ip.next_header(),
            };
            let end = crate::wire::ipv6::HEADER_LEN + usize::from(ip.payload_len());
            (pseudo, &l3[crate::wire::ipv6::HEADER_LEN..end])
        }
        _ => return false,
    };
    let protocol = match pseudo {
        IpPseudo::V4 { protocol, .. } => protocol,
        IpPseudo::V6 { next_header, .. } => next_header,
    };
    match protocol {
        IpProtocol::TCP => TcpPacket::new_checked(upper).is_ok_and(|t| t.verify_checksum(&pseudo)),
        // A UDP checksum of 0 over IPv4 is "none": nothing was checked.
        IpProtocol::UDP => UdpPacket::new_checked(upper)
            .is_ok_and(|u| u.checksum() != 0 && u.verify_checksum(&pseudo)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::IpPair;
    use crate::wire::ib::{BthRepr, RethRepr};
    use crate::wire::{checksum, icrc_fill, EthernetAddress, Ipv4Address};
    use crate::wqe::frame::{emit_headers, Route, Transport};

    /// The longest frame [`classify`] takes: tagged, IPv4 with 40 option bytes, RDMA WRITE ONLY
    /// with immediate, a 4096-byte payload; `extra` bytes of Ethernet padding after it.
    fn longest(out: &mut [u8], extra: usize) -> usize {
        let route = Route {
            src_mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
            dst_mac: EthernetAddress([2, 0, 0, 0, 0, 2]),
            vlan: Some((7, 3)),
            ip: IpPair::V4 {
                src: Ipv4Address::new(10, 0, 0, 1),
                dst: Ipv4Address::new(10, 0, 0, 2),
            },
            traffic_class: 0,
            hop_limit: 64,
            flow_label: 0,
            udp_sport: 0xC000,
        };
        let t = Transport {
            bth: BthRepr {
                opcode: op::RC_RDMA_WRITE_ONLY_WITH_IMM,
                solicited: false,
                migreq: true,
                pad_count: 0,
                tver: 0,
                pkey: PKEY,
                fecn: false,
                becn: false,
                dest_qpn: 0x12,
                ack_req: true,
                psn: 7,
            },
            reth: Some(RethRepr {
                va: 0x1000,
                rkey: 0x300,
                dma_len: 4096,
            }),
            deth: None,
            imm: Some(0xA5A5_5A5A),
        };
        let payload = PathMtu::Mtu4096.bytes() as usize;
        let mut plain = [0u8; 128];
        let hl = emit_headers(&route, &t, payload, &mut plain).unwrap();
        // The IPv4 header grows by 40 option bytes (NOPs); its length fields follow.
        let (l3, opts) = (route.l3_offset(), ipv4::MAX_OPTIONS_LEN);
        let ip_end = l3 + ipv4::MIN_HEADER_LEN;
        out[..ip_end].copy_from_slice(&plain[..ip_end]);
        out[ip_end..ip_end + opts].fill(1);
        out[ip_end + opts..hl + opts].copy_from_slice(&plain[ip_end..hl]);
        let mut at = hl + opts;
        for i in 0..payload {
            out[at] = i as u8;
            at += 1;
        }
        at += ICRC_LEN;
        out[l3] = 0x40 | ((ipv4::MIN_HEADER_LEN + opts) / 4) as u8;
        let total = (at - l3) as u16;
        out[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
        out[l3 + 10..l3 + 12].fill(0);
        let sum = checksum::checksum(&out[l3..ip_end + opts]);
        out[l3 + 10..l3 + 12].copy_from_slice(&sum.to_be_bytes());
        icrc_fill(&mut out[..at]).unwrap();
        out[at..at + extra].fill(0);
        at + extra
    }

    /// A frame of exactly MAX_FRAME bytes is taken, RoCEv2 or raw; a byte more, and it is
    /// malformed whatever it holds.
    #[test]
    fn frames_up_to_max_frame() {
        let mut f = [0u8; MAX_FRAME + 1];
        let n = longest(&mut f, 0);
        assert_eq!(n, MAX_FRAME);
        match classify(&f[..n]) {
            Ok(Incoming::Roce(p)) => {
                assert_eq!(p.payload.len(), 4096);
                assert_eq!(p.reth, Some((0x1000, 0x300, 4096)));
                assert_eq!(p.imm, Some(0xA5A5_5A5A));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(longest(&mut f, 1), MAX_FRAME + 1);
        assert_eq!(classify(&f), Err(Discard::Malformed));
        // Not IP at all: raw up to the limit, then malformed too.
        let mut raw = [0x5Au8; MAX_FRAME + 1];
        raw[12..14].copy_from_slice(&EtherType::ARP.to_be_bytes());
        assert!(matches!(
            classify(&raw[..MAX_FRAME]),
            Ok(Incoming::Raw { csum_ok: false, .. })
        ));
        assert_eq!(classify(&raw), Err(Discard::Malformed));
    }

    #[test]
    fn opcodes_handled_here() {
        for o in 0u8..=0xFF {
            let want = o <= 0x0B || o == 0x64 || o == 0x65;
            assert_eq!(supported(o), want, "{o:#x}");
        }
    }
}
