//! The rows of the sets whose inputs are frames: `rss` (a context and a received frame) and
//! `icrc` (a RoCEv2 frame).

use super::{key_for, Rng};
use crate::golden::expect::hex;
use crate::golden::frames::{Ip, Roce, Rx, L4, V4, V6};
use rocenic_model::golden::sets;
use rocenic_model::rss::HashFields;
use rocenic_model::toeplitz::{MICROSOFT_KEY, VERIFICATION_IPV4, VERIFICATION_IPV6};

/// One RSS context as cells: function, key, fields, table size, queues, table.
struct Ctx {
    xor: bool,
    key: Vec<u8>,
    fields: HashFields,
    size: u32,
    queues: u16,
    table: Vec<u16>,
}

impl Ctx {
    fn cells(&self, frame: &[u8]) -> Vec<String> {
        let fields: Vec<&str> = HashFields::NAMES
            .iter()
            .filter(|(_, f)| self.fields.contains(*f) && f.0 != 0)
            .map(|(n, _)| *n)
            .collect();
        let table: Vec<String> = self.table.iter().map(u16::to_string).collect();
        vec![
            if self.xor { "xor" } else { "toeplitz" }.into(),
            hex(&self.key),
            if fields.is_empty() {
                "none".into()
            } else {
                fields.join("|")
            },
            self.size.to_string(),
            self.queues.to_string(),
            table.join("|"),
            hex(frame),
        ]
    }
}

const ADDRESS_FIELDS: HashFields = HashFields(0x0F);
const ALL_FIELDS: HashFields = HashFields(0x10FF);

/// The contexts every RSS edge frame goes through: each table size of `sets::TABLE_SIZES`
/// with a queue count of `sets::QUEUES`, under the keys and field choices that matter (the CLI's
/// default at 128 entries and 4 queues), then XOR and an explicit table.
fn rss_contexts() -> Vec<Ctx> {
    let ctx = |xor, key: &[u8], fields, size, queues| Ctx {
        xor,
        key: key.to_vec(),
        fields,
        size,
        queues,
        table: Vec::new(),
    };
    let (sizes, queues) = (sets::TABLE_SIZES, sets::QUEUES);
    let mut list = vec![
        ctx(false, &MICROSOFT_KEY, ADDRESS_FIELDS, sizes[0], queues[0]),
        ctx(
            false,
            &sets::SYMMETRIC_KEY_40,
            HashFields::NONE,
            sizes[1],
            queues[1],
        ),
        ctx(
            false,
            &MICROSOFT_KEY,
            HashFields::DEFAULT,
            sizes[2],
            queues[2],
        ),
        ctx(false, &sets::ONES_KEY_52, ALL_FIELDS, sizes[3], queues[3]),
        ctx(
            false,
            &sets::SYMMETRIC_KEY_52,
            ALL_FIELDS,
            sizes[4],
            queues[3],
        ),
        ctx(true, &sets::SHORTEST_KEY, ALL_FIELDS, sizes[1], queues[1]),
    ];
    let mut explicit = ctx(false, &MICROSOFT_KEY, HashFields::DEFAULT, 4, 4);
    explicit.table = vec![3, 0, 2, 1];
    list.push(explicit);
    list
}

fn v6(last: u8) -> [u8; 16] {
    [
        0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last,
    ]
}

fn rss_edge_frames() -> Vec<Vec<u8>> {
    let a4 = V4::new([10, 0, 0, 1], [10, 0, 0, 2]);
    let a6 = V6::new(v6(1), v6(2));
    let mut frames = Vec::new();
    // The published verification suite's tuples, as TCP.
    for v in &VERIFICATION_IPV4 {
        frames.push(Rx::new(
            Ip::V4(V4::new(v.src, v.dst)),
            L4::Tcp(v.src_port, v.dst_port),
        ));
    }
    for v in &VERIFICATION_IPV6 {
        frames.push(Rx::new(
            Ip::V6(V6::new(v.src, v.dst)),
            L4::Tcp(v.src_port, v.dst_port),
        ));
    }
    let mut more = vec![
        Rx::new(Ip::V4(a4), L4::Udp(0, 0xFFFF)),
        Rx::new(Ip::V6(a6), L4::Udp(0xFFFF, 0)),
        Rx::new(Ip::V4(a4), L4::Roce(0xC000, 0)),
        Rx::new(Ip::V6(a6), L4::Roce(0xFFFF, 0xFF_FFFF)),
        Rx::new(
            Ip::V4(V4 {
                opt_words: 10,
                ..a4
            }),
            L4::Tcp(1, 2),
        ),
        Rx::new(Ip::V4(V4 { frag: 0x2000, ..a4 }), L4::Tcp(1, 2)),
        Rx::new(Ip::V4(V4 { frag: 0x0001, ..a4 }), L4::Udp(1, 2)),
        Rx::new(Ip::V4(a4), L4::Other(1)),
        Rx::new(Ip::V6(a6), L4::Other(58)),
    ];
    let ext = |chain: &[u8], l4| Rx {
        ext: chain.to_vec(),
        ..Rx::new(Ip::V6(a6), l4)
    };
    more.push(ext(&[0, 43, 60], L4::Tcp(3, 4)));
    more.push(ext(&[44], L4::Udp(3, 4)));
    more.push(ext(&[50], L4::Tcp(3, 4)));
    more.push(ext(&[0, 60, 60, 60, 60], L4::Tcp(3, 4)));
    more.push(ext(&[0, 60], L4::Roce(0xC123, 0x12_3456)));
    let tagged = |tags: &[u16]| Rx {
        tags: tags.to_vec(),
        ..Rx::new(Ip::V4(a4), L4::Tcp(5, 6))
    };
    more.push(tagged(&[0x8100]));
    more.push(tagged(&[0x88A8, 0x8100]));
    more.push(Rx {
        ip: None,
        ..Rx::new(Ip::V4(a4), L4::Other(0))
    });
    let cut = |at| Rx {
        cut: Some(at),
        ..Rx::new(Ip::V4(a4), L4::Tcp(7, 8))
    };
    more.extend([cut(20), cut(14 + 20 + 10)]);
    frames.extend(more);
    frames.iter().map(Rx::frame).collect()
}

pub fn rss_edges() -> Vec<Vec<String>> {
    let frames = rss_edge_frames();
    let mut rows = Vec::new();
    for ctx in rss_contexts() {
        for f in &frames {
            rows.push(ctx.cells(f));
        }
    }
    rows
}

fn v4_address(rng: &mut Rng) -> [u8; 4] {
    (rng.next() as u32).to_be_bytes()
}

fn v6_address(rng: &mut Rng) -> [u8; 16] {
    (u128::from(rng.next()) << 64 | u128::from(rng.next())).to_be_bytes()
}

fn random_rx(rng: &mut Rng) -> Rx {
    let ip = if rng.one_in(2) {
        Ip::V4(V4 {
            opt_words: if rng.one_in(4) {
                rng.range(1, 10) as u8
            } else {
                0
            },
            frag: if rng.one_in(10) { 0x2000 } else { 0x4000 },
            ..V4::new(v4_address(rng), v4_address(rng))
        })
    } else {
        Ip::V6(V6::new(v6_address(rng), v6_address(rng)))
    };
    let (s, d) = (rng.next() as u16, rng.next() as u16);
    let l4 = match rng.below(8) {
        0..=2 => L4::Tcp(s, d),
        3..=4 => L4::Udp(s, d),
        5..=6 => L4::Roce(s | 0xC000, rng.below(1 << 24) as u32),
        _ => L4::Other(rng.pick(&[1, 47, 58, 132])),
    };
    let mut rx = Rx::new(ip, l4);
    rx.tags = match rng.below(8) {
        0 => vec![0x8100],
        1 => vec![0x88A8, 0x8100],
        _ => Vec::new(),
    };
    if matches!(ip, Ip::V6(_)) && rng.one_in(4) {
        let n = rng.range(1, 5);
        rx.ext = (0..n).map(|_| rng.pick(&[0, 43, 60, 60, 44, 51])).collect();
    }
    if rx.ip.is_some() && rng.one_in(32) {
        rx.ip = None;
    }
    rx.payload = rng.below(64) as usize;
    let full = rx.frame().len();
    if rng.one_in(16) {
        rx.cut = Some(rng.below(full as u64) as usize);
    }
    rx
}

pub fn rss_random(rng: &mut Rng) -> Vec<String> {
    let frame = random_rx(rng).frame();
    let xor = rng.one_in(4);
    let fields = if rng.one_in(4) {
        HashFields::DEFAULT
    } else {
        HashFields(rng.next() as u32 & ALL_FIELDS.0)
    };
    let len = if fields.longest_input() > 36 {
        52
    } else {
        rng.pick(&[40, 52])
    };
    let size = 1u32 << rng.below(13);
    let queues = rng.range(1, 16) as u16;
    let table = if size <= 64 && rng.one_in(4) {
        (0..size).map(|_| rng.below(queues.into()) as u16).collect()
    } else {
        Vec::new()
    };
    let ctx = Ctx {
        xor,
        key: key_for(rng, len),
        fields,
        size,
        queues,
        table,
    };
    ctx.cells(&frame)
}

fn roce_edge_frames() -> Vec<Roce> {
    let a4 = V4::new([10, 0, 0, 1], [10, 0, 0, 2]);
    let a6 = V6::new(v6(1), v6(2));
    let payload = |n: usize| (0..n).map(|i| (i * 7) as u8).collect::<Vec<u8>>();
    let mut list = Vec::new();
    for n in [0, 1, 2, 3, 4, 1024, 4096] {
        list.push(Roce::new(Ip::V4(a4), 0x04, 0x12, payload(n)));
        list.push(Roce::new(Ip::V6(a6), 0x64, 0x11, payload(n)));
    }
    // Every field the ICRC masks at its extreme: the ICRC is that of the plain frames above.
    let masked4 = V4 {
        tos: 0xFF,
        ttl: 1,
        ..a4
    };
    let masked6 = V6 {
        tclass: 0xFF,
        flow_label: 0xF_FFFF,
        hop_limit: 255,
        ..a6
    };
    for ip in [Ip::V4(masked4), Ip::V6(masked6)] {
        let mut r = Roce::new(ip, 0x04, 0x12, payload(16));
        r.udp_checksum = 0xFFFF;
        r.fecn_becn = 0xFF;
        list.push(r);
    }
    let mut tagged = Roce::new(Ip::V4(a4), 0x04, 0x12, payload(16));
    tagged.vlan = Some(0xE00A);
    list.push(tagged);
    list.push(Roce::new(
        Ip::V4(V4 {
            opt_words: 10,
            ..a4
        }),
        0x04,
        0x12,
        payload(8),
    ));
    // A CNP with port 0, as a ConnectX-4 Lx sends it; QPNs 0 and 0xFFFFFF; the largest PSN.
    let mut cnp = Roce::new(Ip::V4(a4), 0x81, 0x00_00D2, vec![0; 16]);
    cnp.sport = 0;
    list.push(cnp);
    for (op, qp) in [(0x05, 0), (0x0A, 0xFF_FFFF), (0x24, 1), (0x65, 0xFF_FFFF)] {
        let mut r = Roce::new(Ip::V6(a6), op, qp, payload(20));
        r.ack_psn = 0x80FF_FFFF;
        r.se_m_tver = 0xC0;
        list.push(r);
    }
    list
}

pub fn icrc_edges() -> Vec<Vec<String>> {
    roce_edge_frames()
        .iter()
        .map(|r| vec![hex(&r.frame())])
        .collect()
}

pub fn icrc_random(rng: &mut Rng) -> Vec<String> {
    let ip = if rng.one_in(2) {
        Ip::V4(V4 {
            tos: rng.next() as u8,
            ttl: rng.next() as u8,
            ident: rng.next() as u16,
            ..V4::new(v4_address(rng), v4_address(rng))
        })
    } else {
        Ip::V6(V6 {
            tclass: rng.next() as u8,
            flow_label: rng.next() as u32,
            hop_limit: rng.next() as u8,
            ..V6::new(v6_address(rng), v6_address(rng))
        })
    };
    let opcode = rng.pick(&[
        0x00, 0x01, 0x02, 0x04, 0x05, 0x0A, 0x0C, 0x11, 0x24, 0x64, 0x65, 0x81,
    ]);
    let n = if rng.one_in(8) {
        rng.below(4097)
    } else {
        rng.below(300)
    } as usize;
    let mut r = Roce::new(ip, opcode, rng.below(1 << 24) as u32, rng.bytes(n));
    r.vlan = rng.one_in(4).then(|| rng.next() as u16);
    r.sport = rng.next() as u16 | 0xC000;
    r.udp_checksum = if rng.one_in(2) { 0 } else { rng.next() as u16 };
    r.se_m_tver = rng.next() as u8 & 0xC0;
    r.pkey = rng.next() as u16;
    r.fecn_becn = rng.next() as u8;
    r.ack_psn = rng.next() as u32 & 0x80FF_FFFF;
    if r.deth.is_some() {
        r.deth = Some((rng.next() as u32, rng.below(1 << 24) as u32));
    }
    vec![hex(&r.frame())]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_model::rss::{classify, ParseFlags};
    use rocenic_model::wire::{LinkType, RoceFrame};

    /// The RSS edge frames reach every parse outcome they are there for.
    #[test]
    fn rss_edge_frames_reach_every_parse_outcome() {
        let flags: Vec<ParseFlags> = rss_edge_frames()
            .iter()
            .map(|f| classify(LinkType::Ethernet, f).flags)
            .collect();
        for (name, flag) in ParseFlags::NAMES {
            if flag == ParseFlags::IPOIB {
                continue; // Ethernet frames only
            }
            assert!(
                flags.iter().any(|f| f.contains(flag)),
                "no edge frame is `{name}`"
            );
        }
        assert!(
            flags.contains(&ParseFlags::default()),
            "no frame without IP"
        );
    }

    /// Frames that differ only in what the ICRC masks have one ICRC; every edge frame is RoCEv2.
    #[test]
    fn icrc_edge_frames() {
        let frames: Vec<Vec<u8>> = roce_edge_frames().iter().map(Roce::frame).collect();
        for f in &frames {
            assert!(RoceFrame::parse(f).is_ok_and(|r| r.is_valid()));
        }
        let a4 = V4::new([10, 0, 0, 1], [10, 0, 0, 2]);
        let plain = Roce::new(
            Ip::V4(a4),
            0x04,
            0x12,
            (0..16).map(|i| (i * 7) as u8).collect(),
        );
        let icrc = |f: &[u8]| RoceFrame::parse(f).unwrap().stored();
        let plain = icrc(&plain.frame());
        let masked: Vec<u32> = frames
            .iter()
            .map(|f| icrc(f))
            .filter(|&c| c == plain)
            .collect();
        // The masked IPv4 frame, and the tagged one: the VLAN tag is outside the ICRC.
        assert_eq!(
            masked.len(),
            2,
            "the masked and tagged frames keep the plain ICRC"
        );
    }
}
