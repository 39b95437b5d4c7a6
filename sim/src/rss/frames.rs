//! Random frames for the RSS parser: every case the parser knows, plus damage.
//!
//! Each frame is built header by header with random choices (VLAN tags, IPv4 options and
//! fragments, IPv6 extension-header chains, TCP options, RoCEv2 BTHs, InfiniBand with and without
//! GRH, IPoIB), then, now and then, truncated, corrupted in a header byte, or replaced by noise.

use rand::Rng;
use rocenic_model::wire::LinkType;

/// A random frame and its link layer.
pub fn random_frame(rng: &mut impl Rng) -> (LinkType, Vec<u8>) {
    if rng.gen_bool(0.02) {
        let len = rng.gen_range(0..200);
        let link = if rng.gen_bool(0.5) {
            LinkType::Ethernet
        } else {
            LinkType::Infiniband
        };
        return (link, (0..len).map(|_| rng.gen()).collect());
    }
    let (link, mut frame) = if rng.gen_bool(0.2) {
        (LinkType::Infiniband, infiniband(rng))
    } else {
        (LinkType::Ethernet, ethernet(rng))
    };
    damage(rng, &mut frame);
    (link, frame)
}

/// Truncation, a corrupted header byte, or a bad length field, each now and then.
pub fn damage(rng: &mut impl Rng, frame: &mut Vec<u8>) {
    if rng.gen_bool(0.08) && !frame.is_empty() {
        let cut = rng.gen_range(0..frame.len());
        frame.truncate(cut);
    }
    if rng.gen_bool(0.08) && !frame.is_empty() {
        let at = rng.gen_range(0..frame.len().min(100));
        frame[at] = rng.gen();
    }
    if rng.gen_bool(0.04) {
        // Padding past the IP length, as short Ethernet frames carry.
        let n = rng.gen_range(1..30);
        frame.extend((0..n).map(|_| rng.gen::<u8>()));
    }
}

/// The IP header's EtherType, or something else now and then.
fn ethertype(rng: &mut impl Rng) -> u16 {
    match rng.gen_range(0..20) {
        0 => 0x0806,
        1 => rng.gen(),
        2..=10 => 0x0800,
        _ => 0x86DD,
    }
}

/// Ethernet II with 0..=2 tags (now and then 3, which the parser does not unwrap).
pub fn ethernet(rng: &mut impl Rng) -> Vec<u8> {
    let mut f: Vec<u8> = (0..12).map(|_| rng.gen()).collect();
    let tags = match rng.gen_range(0..10) {
        0..=5 => 0,
        6 | 7 => 1,
        8 => 2,
        _ => 3,
    };
    for _ in 0..tags {
        let tpid: u16 = if rng.gen_bool(0.5) { 0x8100 } else { 0x88A8 };
        f.extend_from_slice(&tpid.to_be_bytes());
        f.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
    }
    let et = ethertype(rng);
    f.extend_from_slice(&et.to_be_bytes());
    f.extend(ip_packet(rng, et));
    f
}

/// LRH [+ GRH] + BTH [+ DETH [+ ImmDt] + IPoIB + IP] + ICRC + VCRC.
pub fn infiniband(rng: &mut impl Rng) -> Vec<u8> {
    let lnh: u8 = match rng.gen_range(0..10) {
        0 => 0,
        1 => 1,
        2..=5 => 2,
        _ => 3,
    };
    let mut f = vec![rng.gen::<u8>() & 0xF0, (rng.gen::<u8>() & 0xFC) | lnh];
    f.extend((0..6).map(|_| rng.gen::<u8>()));
    if lnh == 3 {
        f.extend_from_slice(&[0x60, 0, 0, 0, 0, 0, 0x1B, 64]);
        f.extend((0..32).map(|_| rng.gen::<u8>()));
    }
    let opcode: u8 = match rng.gen_range(0..10) {
        0..=5 => 0x64,
        6..=8 => 0x65,
        _ => rng.gen(),
    };
    f.push(opcode);
    f.extend((0..11).map(|_| rng.gen::<u8>()));
    f.extend((0..8).map(|_| rng.gen::<u8>())); // DETH
    if opcode == 0x65 {
        f.extend((0..4).map(|_| rng.gen::<u8>()));
    }
    let et = ethertype(rng);
    f.extend_from_slice(&et.to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend(ip_packet(rng, et));
    f.extend_from_slice(&[0xAA; 6]);
    f
}

fn ip_packet(rng: &mut impl Rng, ethertype: u16) -> Vec<u8> {
    match ethertype {
        0x0800 => ipv4(rng),
        0x86DD => ipv6(rng),
        _ => (0..rng.gen_range(0..60)).map(|_| rng.gen()).collect(),
    }
}

fn protocol(rng: &mut impl Rng) -> u8 {
    match rng.gen_range(0..12) {
        0..=4 => 6,
        5..=9 => 17,
        10 => 1,
        _ => rng.gen(),
    }
}

fn ipv4(rng: &mut impl Rng) -> Vec<u8> {
    let options = if rng.gen_bool(0.3) {
        4 * rng.gen_range(1..=10)
    } else {
        0
    };
    let proto = protocol(rng);
    let l4 = transport(rng, proto);
    let ihl = 20 + options;
    let total = ihl + l4.len();
    let mut p = vec![0x40 | (ihl / 4) as u8, rng.gen()];
    p.extend_from_slice(&(short_length(rng, total) as u16).to_be_bytes());
    p.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
    let frag: u16 = match rng.gen_range(0..10) {
        0 => 0x2000,                                // MF
        1 => rng.gen_range(1..0x2000),              // offset
        _ => 0x4000 * u16::from(rng.gen_bool(0.5)), // DF or nothing
    };
    p.extend_from_slice(&frag.to_be_bytes());
    p.extend_from_slice(&[rng.gen(), proto, 0, 0]);
    p.extend((0..8).map(|_| rng.gen::<u8>()));
    p.extend(std::iter::repeat_n(1u8, options));
    p.extend(l4);
    p
}

fn ipv6(rng: &mut impl Rng) -> Vec<u8> {
    let proto = protocol(rng);
    // The extension-header chain: types chosen first, each header then names the next.
    let hops = match rng.gen_range(0..10) {
        0..=4 => 0,
        5..=7 => rng.gen_range(1..=3),
        _ => rng.gen_range(4..=6),
    };
    let mut kinds: Vec<u8> = (0..hops)
        .map(|_| match rng.gen_range(0..20) {
            0..=5 => 0,
            6..=9 => 60,
            10..=12 => 43,
            13..=16 => 44,
            17 => 51,
            _ => 50,
        })
        .collect();
    kinds.push(proto);
    let mut ext = Vec::new();
    for w in kinds.windows(2) {
        let (kind, next) = (w[0], w[1]);
        if kind == 44 {
            let frag: u16 = match rng.gen_range(0..4) {
                0 => 1,                             // M
                1 => rng.gen_range(1..0x2000) << 3, // offset
                _ => 0,
            };
            ext.push(next);
            ext.push(0);
            ext.extend_from_slice(&frag.to_be_bytes());
            ext.extend((0..4).map(|_| rng.gen::<u8>()));
        } else {
            let units = rng.gen_range(1..=4u8);
            ext.push(next);
            ext.push(units - 1);
            ext.extend((0..usize::from(units) * 8 - 2).map(|_| rng.gen::<u8>()));
        }
    }
    let l4 = transport(rng, proto);
    let mut p = vec![
        0x60 | (rng.gen::<u8>() & 0xF),
        rng.gen(),
        rng.gen(),
        rng.gen(),
    ];
    p.extend_from_slice(&(short_length(rng, ext.len() + l4.len()) as u16).to_be_bytes());
    p.push(kinds[0]);
    p.push(rng.gen());
    p.extend((0..32).map(|_| rng.gen::<u8>()));
    p.extend(ext);
    p.extend(l4);
    p
}

/// An IP length field: now and then shorter than what follows, so that the length ends inside
/// any header (an extension header one byte short of its end, say), as a bad length field does.
fn short_length(rng: &mut impl Rng, len: usize) -> usize {
    if rng.gen_bool(0.1) {
        rng.gen_range(0..=len)
    } else {
        len
    }
}

fn transport(rng: &mut impl Rng, proto: u8) -> Vec<u8> {
    let payload = rng.gen_range(0..40);
    match proto {
        6 => {
            let options = 4 * rng.gen_range(0..=10usize) * usize::from(rng.gen_bool(0.3));
            let mut t: Vec<u8> = (0..20 + options + payload).map(|_| rng.gen()).collect();
            t[12] = (((20 + options) / 4) as u8) << 4 | (t[12] & 0xF);
            t
        }
        17 => {
            let rocev2 = rng.gen_bool(0.5);
            let body = if rocev2 { 12 + payload } else { payload };
            let mut t: Vec<u8> = (0..8 + body).map(|_| rng.gen()).collect();
            if rocev2 {
                t[2..4].copy_from_slice(&4791u16.to_be_bytes());
            }
            t[4..6].copy_from_slice(&((8 + body) as u16).to_be_bytes());
            t
        }
        _ => (0..payload).map(|_| rng.gen()).collect(),
    }
}

/// An untagged Ethernet frame with an IPv4 (4-byte addresses) or IPv6 (16-byte) TCP segment.
pub fn tcp_frame(src: &[u8], dst: &[u8], src_port: u16, dst_port: u16) -> Vec<u8> {
    let mut tcp = vec![0u8; 20];
    tcp[0..2].copy_from_slice(&src_port.to_be_bytes());
    tcp[2..4].copy_from_slice(&dst_port.to_be_bytes());
    tcp[12] = 0x50;
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    if src.len() == 4 {
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0]);
        f.extend_from_slice(&40u16.to_be_bytes());
        f.extend_from_slice(&[0, 1, 0x40, 0, 64, 6, 0, 0]);
    } else {
        f.extend_from_slice(&[0x86, 0xDD, 0x60, 0, 0, 0]);
        f.extend_from_slice(&20u16.to_be_bytes());
        f.extend_from_slice(&[6, 64]);
    }
    f.extend_from_slice(src);
    f.extend_from_slice(dst);
    f.extend(tcp);
    f
}
