//! Frames for the receive path's front end: RoCEv2 frames as the send engine builds them (every
//! opcode the receive path takes, IPv4 with any IHL and IPv6, tagged or not), each of the ways
//! they go wrong, and frames that are not RoCEv2 (TCP and UDP with good and bad checksums, ARP,
//! runts, noise). Every builder names what it made, so that a test can count what it covered;
//! what each frame *is* stays the model's word (`model::rx::packet::classify`).

use crate::stream::TestRng;
use rand::Rng;
use rocenic_model::qp::IpPair;
use rocenic_model::rx::packet::supported;
use rocenic_model::rx::MAX_FRAME;
use rocenic_model::wire::checksum::{checksum, IpPseudo};
use rocenic_model::wire::ib::{opcode as op, BthRepr, DethRepr, RethRepr};
use rocenic_model::wire::{icrc_compute, EthernetAddress, Ipv4Address, Ipv6Address, ICRC_LEN};
use rocenic_model::wqe::frame::{emit_headers, finish, Route, Transport, PKEY};

/// The send engine's frames for a random scenario of `wqes` work requests (`sim::wqe::scenario`:
/// RC over IPv4, RC over IPv6 with a tag, UD over either, RC with 4 KiB packets; every SEND and
/// RDMA WRITE opcode), as its model sends them.
pub fn send_engine(rng: &mut TestRng, wqes: usize) -> Vec<Vec<u8>> {
    let big = rng.gen_bool(0.4);
    crate::wqe::scenario::scenario(rng, wqes, big, 0.0)
        .model()
        .frames
}

/// Where a frame's IP header starts: after a TPID (0x8100 or 0x88A8) and its TCI, or at 14.
pub fn l3_of(frame: &[u8]) -> usize {
    match frame.get(12..14) {
        Some([0x81, 0x00] | [0x88, 0xA8]) => 18,
        _ => 14,
    }
}

/// The shape of a RoCEv2 frame [`roce`] builds.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// IPv6, else IPv4.
    pub v6: bool,
    /// An 802.1Q tag.
    pub vlan: bool,
    /// The BTH opcode (its extension headers follow from it).
    pub opcode: u8,
    /// Payload bytes.
    pub payload: usize,
    /// The BTH's pad count; `None`: what the payload needs.
    pub pad: Option<u8>,
}

impl Shape {
    /// A random shape with an opcode the receive path takes.
    pub fn random(rng: &mut TestRng) -> Shape {
        const TAKEN: [u8; 14] = [
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x64, 0x65,
        ];
        Shape {
            v6: rng.gen(),
            vlan: rng.gen_bool(0.4),
            opcode: TAKEN[rng.gen_range(0..TAKEN.len())],
            payload: match rng.gen_range(0..10) {
                0..=2 => rng.gen_range(0..8),
                3..=6 => rng.gen_range(0..400),
                _ => rng.gen_range(0..=4096),
            },
            pad: None,
        }
    }
}

/// A RoCEv2 frame of `shape` through the send engine's frame builder (`model::wqe::frame`):
/// headers, payload, pad, ICRC, zeros up to 60 bytes; every other field random.
pub fn roce(rng: &mut TestRng, shape: Shape) -> Vec<u8> {
    let route = route(rng, shape.v6, shape.vlan);
    let o = shape.opcode;
    let pad = shape.pad.unwrap_or(((4 - shape.payload % 4) % 4) as u8);
    let t = Transport {
        bth: BthRepr {
            opcode: o,
            solicited: rng.gen(),
            migreq: rng.gen(),
            pad_count: pad,
            tver: 0,
            pkey: PKEY,
            fecn: rng.gen(),
            becn: rng.gen(),
            dest_qpn: rng.gen_range(0..1 << 24),
            ack_req: rng.gen(),
            psn: rng.gen_range(0..1 << 24),
        },
        reth: op::has_reth(o).then(|| RethRepr {
            va: rng.gen(),
            rkey: rng.gen(),
            dma_len: rng.gen(),
        }),
        deth: op::has_deth(o).then(|| DethRepr {
            qkey: rng.gen(),
            src_qpn: rng.gen_range(0..1 << 24),
        }),
        imm: op::has_immdt(o).then(|| rng.gen()),
    };
    let payload: Vec<u8> = (0..shape.payload).map(|_| rng.gen()).collect();
    build(&route, &t, &payload)
}

/// A random route: addresses, tag (when `vlan`), traffic class, hop limit, flow label and UDP
/// source port, over IPv6 or IPv4.
pub fn route(rng: &mut TestRng, v6: bool, vlan: bool) -> Route {
    let ip = if v6 {
        IpPair::V6 {
            src: Ipv6Address(rng.gen()),
            dst: Ipv6Address(rng.gen()),
        }
    } else {
        IpPair::V4 {
            src: Ipv4Address(rng.gen()),
            dst: Ipv4Address(rng.gen()),
        }
    };
    Route {
        src_mac: EthernetAddress(rng.gen()),
        dst_mac: EthernetAddress(rng.gen()),
        vlan: vlan.then(|| (rng.gen_range(0..4096), rng.gen_range(0..8))),
        ip,
        traffic_class: rng.gen(),
        hop_limit: rng.gen(),
        flow_label: rng.gen_range(0..1 << 20),
        udp_sport: rng.gen(),
    }
}

/// The frame of `t` carrying `payload` over `route` through the send engine's frame builder:
/// headers, payload, the pad the BTH names, ICRC, zeros up to 60 bytes.
pub fn build(route: &Route, t: &Transport, payload: &[u8]) -> Vec<u8> {
    let n = payload.len();
    let mut out = vec![0u8; 128 + n + 64];
    let hl = emit_headers(route, t, n, &mut out).expect("headers fit");
    out[hl..hl + n].copy_from_slice(payload);
    let len = finish(&mut out, hl, n, t.bth.pad_count, route.l3_offset()).expect("frame fits");
    out.truncate(len);
    out
}

/// The longest frame the receive path takes (`model::rx::MAX_FRAME` bytes): tagged, IPv4 with
/// 40 option bytes, RDMA WRITE ONLY with immediate, a 4096-byte payload.
pub fn longest(rng: &mut TestRng) -> Vec<u8> {
    let shape = Shape {
        v6: false,
        vlan: true,
        opcode: op::RC_RDMA_WRITE_ONLY_WITH_IMM,
        payload: 4096,
        pad: None,
    };
    let plain = roce(rng, shape);
    let f = with_options(rng, &plain, 40);
    assert_eq!(f.len(), MAX_FRAME);
    f
}

/// `frame` (IPv4, IHL 5) with `n` option bytes (a multiple of 4, at most 40) after its IPv4
/// header: the IHL, the total length, the header checksum and the ICRC follow.
pub fn with_options(rng: &mut TestRng, frame: &[u8], n: usize) -> Vec<u8> {
    let l3 = l3_of(frame);
    let mut f = frame[..l3 + 20].to_vec();
    // NOPs, or options of random bytes (nothing reads them).
    let nop = rng.gen_bool(0.5);
    f.extend((0..n).map(|_| if nop { 1 } else { rng.gen::<u8>() }));
    f.extend_from_slice(&frame[l3 + 20..]);
    f[l3] = 0x40 | ((20 + n) / 4) as u8;
    let total = u16::from_be_bytes([f[l3 + 2], f[l3 + 3]]) + n as u16;
    f[l3 + 2..l3 + 4].copy_from_slice(&total.to_be_bytes());
    fix_ipv4_checksum(&mut f);
    fix_icrc(&mut f);
    f
}

/// Writes the IPv4 header checksum of `f` (IPv4, its header whole).
pub fn fix_ipv4_checksum(f: &mut [u8]) {
    let l3 = l3_of(f);
    let hl = usize::from(f[l3] & 0xF) * 4;
    if hl < 20 || f.len() < l3 + hl {
        return;
    }
    f[l3 + 10..l3 + 12].fill(0);
    let c = checksum(&f[l3..l3 + hl]);
    f[l3 + 10..l3 + 12].copy_from_slice(&c.to_be_bytes());
}

/// Where the IP header of `f` ends the packet: its length fields read, IPv4 or IPv6 by the
/// version nibble; `None` when they do not fit the frame.
fn ip_end(f: &[u8]) -> Option<usize> {
    let l3 = l3_of(f);
    let end = match f.get(l3)? >> 4 {
        4 => l3 + usize::from(u16::from_be_bytes([*f.get(l3 + 2)?, *f.get(l3 + 3)?])),
        6 => l3 + 40 + usize::from(u16::from_be_bytes([*f.get(l3 + 4)?, *f.get(l3 + 5)?])),
        _ => return None,
    };
    (end <= f.len()).then_some(end)
}

/// Writes the ICRC of `f` into the packet's last four bytes (as the IP length says; nothing
/// when that does not fit, or the headers are not there for the ICRC to read).
pub fn fix_icrc(f: &mut [u8]) {
    let l3 = l3_of(f);
    let Some(end) = ip_end(f) else { return };
    if end < l3 + ICRC_LEN {
        return;
    }
    let at = end - ICRC_LEN;
    if let Ok(crc) = icrc_compute(&f[l3..at]) {
        f[at..end].copy_from_slice(&crc.to_le_bytes());
    }
}

/// The BTH's offset in a RoCEv2 frame built by [`roce`] or the send engine, if it is there.
fn bth_of(f: &[u8]) -> Option<usize> {
    let l3 = l3_of(f);
    let ip = match f.get(l3)? >> 4 {
        4 => usize::from(f[l3] & 0xF) * 4,
        6 => 40,
        _ => return None,
    };
    let bth = l3 + ip + 8;
    (f.len() >= bth + 12).then_some(bth)
}

/// One way a RoCEv2 frame goes wrong (or changes only where the ICRC does not look), applied
/// to `f`; returns its name. What becomes of the frame is the model's call.
pub fn damage(rng: &mut TestRng, f: &mut Vec<u8>) -> &'static str {
    let l3 = l3_of(f);
    let v4 = f[l3] >> 4 == 4;
    let Some(bth) = bth_of(f) else {
        return "none";
    };
    let end = ip_end(f).unwrap_or(f.len());
    match rng.gen_range(0..19) {
        0 if end > bth + 12 => {
            // a bit the ICRC covers, after the BTH
            let at = rng.gen_range(bth + 12..end);
            f[at] ^= 1 << rng.gen_range(0..8);
            "icrc_bit"
        }
        1 if v4 => {
            f[l3 + 10] ^= rng.gen_range(1..=255);
            "ipv4_checksum"
        }
        2 => {
            // the ICRC's variant fields: it does not change, the IPv4 checksum is fixed
            if v4 {
                f[l3 + 1] = rng.gen();
                f[l3 + 8] = rng.gen();
                fix_ipv4_checksum(f);
            } else {
                f[l3] = 0x60 | (rng.gen::<u8>() & 0xF);
                f[l3 + 1] = rng.gen();
                f[l3 + 2] = rng.gen();
                f[l3 + 3] = rng.gen();
                f[l3 + 7] = rng.gen();
            }
            f[bth - 2] = rng.gen();
            f[bth - 1] = rng.gen();
            f[bth + 4] = rng.gen();
            "masked_fields"
        }
        3 => {
            let cut = rng.gen_range(0..f.len());
            f.truncate(cut);
            "truncated"
        }
        4 => {
            f[bth + 1] = (f[bth + 1] & !0x30) | (rng.gen_range(0..4) << 4);
            fix_icrc(f);
            "pad_count"
        }
        5 => {
            let mut pkey: u16 = rng.gen();
            if pkey == PKEY {
                pkey = 0x7FFF;
            }
            f[bth + 2..bth + 4].copy_from_slice(&pkey.to_be_bytes());
            fix_icrc(f);
            "pkey"
        }
        6 => {
            f[bth + 1] = (f[bth + 1] & 0xF0) | rng.gen_range(1..16);
            fix_icrc(f);
            "tver"
        }
        7 => {
            // ACK, CNP, READ, atomics, UC, XRC, and any other
            const OTHERS: [u8; 8] = [0x11, 0x81, 0x0C, 0x13, 0x14, 0x24, 0xA4, 0x10];
            f[bth] = if rng.gen_bool(0.7) {
                OTHERS[rng.gen_range(0..OTHERS.len())]
            } else {
                rng.gen()
            };
            fix_icrc(f);
            if supported(f[bth]) {
                "opcode_taken"
            } else {
                "opcode_other"
            }
        }
        8 => {
            let udp = bth - 8;
            let len = u16::from_be_bytes([f[udp + 4], f[udp + 5]]);
            let d: u16 = rng.gen_range(1..64);
            let len = if rng.gen() {
                len.wrapping_add(d)
            } else {
                len.wrapping_sub(d)
            };
            f[udp + 4..udp + 6].copy_from_slice(&len.to_be_bytes());
            fix_icrc(f);
            "udp_length"
        }
        9 if v4 => {
            let frag: u16 = if rng.gen() {
                0x2000
            } else {
                rng.gen_range(1..0x2000)
            };
            f[l3 + 6..l3 + 8].copy_from_slice(&frag.to_be_bytes());
            fix_ipv4_checksum(f);
            fix_icrc(f);
            "ipv4_fragment"
        }
        9 => {
            const EXT: [u8; 4] = [0, 43, 44, 60];
            f[l3 + 6] = EXT[rng.gen_range(0..4)];
            "ipv6_extension"
        }
        10 => {
            let n = rng.gen_range(1..48);
            f.extend((0..n).map(|_| rng.gen::<u8>()));
            "ethernet_padding"
        }
        11 if l3 == 18 => {
            f[12..14].copy_from_slice(&[0x88, 0xA8]);
            "qinq_tag"
        }
        12 => {
            // just past the limit, or far past it (the buffer keeps MAX_FRAME of it)
            let past = if rng.gen_bool(0.8) {
                rng.gen_range(0..40)
            } else {
                rng.gen_range(0..5000)
            };
            let n = MAX_FRAME + 1 - f.len().min(MAX_FRAME) + past;
            f.extend((0..n).map(|_| rng.gen::<u8>()));
            "too_long"
        }
        13 => {
            // the IP length, shorter or longer
            let at = if v4 { l3 + 2 } else { l3 + 4 };
            let len = u16::from_be_bytes([f[at], f[at + 1]]);
            let d: u16 = rng.gen_range(1..40);
            let len = if rng.gen() {
                len.wrapping_add(d)
            } else {
                len.wrapping_sub(d)
            };
            f[at..at + 2].copy_from_slice(&len.to_be_bytes());
            if v4 {
                fix_ipv4_checksum(f);
            }
            "ip_length"
        }
        14 => {
            // the version nibble, or (IPv4) an IHL under 5
            if v4 && rng.gen() {
                f[l3] = 0x40 | rng.gen_range(0..5);
            } else {
                f[l3] = (rng.gen_range(0..16) << 4) | (f[l3] & 0xF);
            }
            "ip_version_ihl"
        }
        15 => {
            let udp = bth - 8;
            let mut port: u16 = rng.gen();
            if port == 4791 {
                port = 4790;
            }
            f[udp + 2..udp + 4].copy_from_slice(&port.to_be_bytes());
            "udp_port"
        }
        16 => {
            f[bth] = if rng.gen() {
                op::RC_RDMA_WRITE_ONLY
            } else {
                op::UD_SEND_ONLY_WITH_IMM
            };
            fix_icrc(f);
            "opcode_swapped"
        }
        17 if v4 && f.len() + 40 <= MAX_FRAME => {
            let n = 4 * rng.gen_range(1..=10);
            *f = with_options(rng, f, n);
            "ipv4_options"
        }
        _ => "none",
    }
}

/// A RoCEv2 frame whose pad count is more than its payload (0 to 2 bytes), ICRC right.
pub fn pad_over_payload(rng: &mut TestRng) -> Vec<u8> {
    let mut shape = Shape::random(rng);
    shape.payload = rng.gen_range(0..3);
    shape.pad = Some(rng.gen_range(shape.payload as u8 + 1..=3));
    roce(rng, shape)
}

/// A frame that is not RoCEv2, and what it is.
pub fn raw(rng: &mut TestRng) -> (Vec<u8>, &'static str) {
    match rng.gen_range(0..12) {
        0 => {
            let n = rng.gen_range(0..18);
            let mut f: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            if n >= 14 && rng.gen() {
                f[12..14].copy_from_slice(&[0x81, 0x00]);
            }
            (f, "runt")
        }
        1 => {
            let mut f = ethernet(rng, 0x0806);
            f.extend((0..28).map(|_| rng.gen::<u8>()));
            (f, "arp")
        }
        2 => {
            let et = rng.gen();
            let mut f = ethernet(rng, et);
            f.extend((0..rng.gen_range(0..100)).map(|_| rng.gen::<u8>()));
            (f, "other_ethertype")
        }
        3 => {
            let noise = rng.gen_bool(0.5);
            let mut f = crate::rss::frames::ethernet(rng);
            if noise {
                crate::rss::frames::damage(rng, &mut f);
            }
            (f, "rss_frames")
        }
        _ => ip_l4(rng),
    }
}

/// An Ethernet header with EtherType `et`, tagged now and then.
fn ethernet(rng: &mut TestRng, et: u16) -> Vec<u8> {
    let mut f: Vec<u8> = (0..12).map(|_| rng.gen()).collect();
    if rng.gen_bool(0.3) {
        let tpid: u16 = if rng.gen_bool(0.8) { 0x8100 } else { 0x88A8 };
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
    }
    f.extend_from_slice(&et.to_be_bytes());
    f
}

/// IPv4 or IPv6 with TCP or UDP (now and then ICMP, or IPv6 with an extension header first),
/// checksums right, then now and then one made wrong or a field the checks read changed.
fn ip_l4(rng: &mut TestRng) -> (Vec<u8>, &'static str) {
    let v6 = rng.gen_bool(0.5);
    let proto: u8 = match rng.gen_range(0..20) {
        0 => 1,
        1..=9 => 6,
        _ => 17,
    };
    let payload: Vec<u8> = (0..match rng.gen_range(0..4) {
        0 => rng.gen_range(0..4),
        1 | 2 => rng.gen_range(0..300),
        _ => rng.gen_range(0..1500),
    })
        .map(|_| rng.gen())
        .collect();
    let mut l4 = match proto {
        6 => {
            let opts = 4 * rng.gen_range(0..=10) * usize::from(rng.gen_bool(0.3));
            let mut t: Vec<u8> = (0..20 + opts).map(|_| rng.gen()).collect();
            t[12] = (((20 + opts) / 4) as u8) << 4 | (t[12] & 0xF);
            t[16..18].fill(0);
            t.extend(&payload);
            t
        }
        17 => {
            let mut u: Vec<u8> = (0..8).map(|_| rng.gen()).collect();
            if u[2..4] == [0x12, 0xB7] {
                u[3] = 0xB8;
            }
            u[4..6].copy_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
            u[6..8].fill(0);
            u.extend(&payload);
            u
        }
        _ => payload.clone(),
    };
    // an IPv6 extension header before TCP or UDP: malformed, as for RoCEv2
    let ext6 = v6 && rng.gen_bool(0.05);
    let (src, dst): (Vec<u8>, Vec<u8>) = if v6 {
        (
            (0..16).map(|_| rng.gen()).collect(),
            (0..16).map(|_| rng.gen()).collect(),
        )
    } else {
        (
            (0..4).map(|_| rng.gen()).collect(),
            (0..4).map(|_| rng.gen()).collect(),
        )
    };
    let pseudo = if v6 {
        IpPseudo::V6 {
            src: Ipv6Address(src.clone().try_into().unwrap()),
            dst: Ipv6Address(dst.clone().try_into().unwrap()),
            next_header: proto,
        }
    } else {
        IpPseudo::V4 {
            src: Ipv4Address(src.clone().try_into().unwrap()),
            dst: Ipv4Address(dst.clone().try_into().unwrap()),
            protocol: proto,
        }
    };
    let at = match proto {
        6 => Some(16),
        17 => Some(6),
        _ => None,
    };
    if let Some(at) = at {
        let c = !pseudo.sum_with(&l4);
        let c = if c == 0 && proto == 17 { 0xFFFF } else { c };
        l4[at..at + 2].copy_from_slice(&c.to_be_bytes());
    }
    let mut f = ethernet(rng, if v6 { 0x86DD } else { 0x0800 });
    let l3 = f.len();
    if v6 {
        let ext = if ext6 { 8 } else { 0 };
        f.extend_from_slice(&[0x60, rng.gen(), rng.gen(), rng.gen()]);
        f.extend_from_slice(&((ext + l4.len()) as u16).to_be_bytes());
        f.push(if ext6 { 0 } else { proto });
        f.push(rng.gen());
        f.extend(&src);
        f.extend(&dst);
        if ext6 {
            f.extend_from_slice(&[proto, 0, 1, 4, 0, 0, 0, 0]);
        }
    } else {
        let opts = 4 * rng.gen_range(0..=10) * usize::from(rng.gen_bool(0.2));
        let total = 20 + opts + l4.len();
        f.extend_from_slice(&[0x40 | ((20 + opts) / 4) as u8, rng.gen()]);
        f.extend_from_slice(&(total as u16).to_be_bytes());
        f.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
        f.extend_from_slice(&(0x4000 * u16::from(rng.gen_bool(0.5))).to_be_bytes());
        f.extend_from_slice(&[rng.gen(), proto, 0, 0]);
        f.extend(&src);
        f.extend(&dst);
        f.extend((0..opts).map(|_| 1u8));
        fix_ipv4_checksum(&mut f);
    }
    let l4_at = f.len();
    f.extend(&l4);
    let name = match (proto, v6) {
        (1, _) => "icmp",
        (6, false) => "tcp4",
        (6, true) => "tcp6",
        (_, false) => "udp4",
        (_, true) => "udp6",
    };
    if ext6 {
        return (f, "ipv6_extension_l4");
    }
    if rng.gen_bool(0.4) {
        match rng.gen_range(0..7) {
            0 if f.len() > l4_at => {
                let i = rng.gen_range(l4_at..f.len());
                f[i] ^= 1 << rng.gen_range(0..8);
            }
            1 if !v6 => f[l3 + 10] ^= 0x40,
            2 if proto == 17 => f[l4_at + 6..l4_at + 8].fill(0),
            3 if proto == 6 => f[l4_at + 12] &= 0x4F,
            4 if !v6 => {
                let frag: u16 = if rng.gen() {
                    0x2000
                } else {
                    rng.gen_range(1..0x2000)
                };
                f[l3 + 6..l3 + 8].copy_from_slice(&frag.to_be_bytes());
                fix_ipv4_checksum(&mut f);
            }
            5 if proto == 17 => {
                // a UDP length short of the IP payload: the checksum covers what it says
                let n = rng.gen_range(8..=8 + payload.len());
                f[l4_at + 4..l4_at + 6].copy_from_slice(&(n as u16).to_be_bytes());
                f[l4_at + 6..l4_at + 8].fill(0);
                let c = !pseudo.sum_with(&f[l4_at..l4_at + n]);
                let c = if c == 0 { 0xFFFF } else { c };
                f[l4_at + 6..l4_at + 8].copy_from_slice(&c.to_be_bytes());
            }
            _ => {
                let n = rng.gen_range(1..30);
                f.extend((0..n).map(|_| rng.gen::<u8>()));
            }
        }
        return (f, "ip_l4_changed");
    }
    (f, name)
}
