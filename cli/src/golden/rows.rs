//! The input rows of every vector set: the edge cases of `model::golden::sets` first, in a fixed
//! order, then `count` random rows from the seed. Each row is its input cells in the set's order
//! of input columns; `expect.rs` computes the rest.

use super::expect::hex;
use super::frames::{Ip, Roce, Rx, Send, L4, V4, V6};
use super::rng::Rng;
use rocenic_model::entropy::{Profile, MULTICAST_QPN};
use rocenic_model::golden::sets::{self, Set};
use rocenic_model::rss::HashFields;
use rocenic_model::toeplitz::{
    VerificationVector, MICROSOFT_KEY, VERIFICATION_IPV4, VERIFICATION_IPV6,
};

/// A set's rows: how many edge cases lead, and every row in order.
pub struct Rows {
    pub edges: usize,
    pub rows: Box<dyn Iterator<Item = Vec<String>>>,
}

/// Draws one random row.
type Draw = dyn FnMut(&mut Rng) -> Vec<String>;

/// The rows of `set` (any but `tso`; see [`sends`]).
pub fn rows(set: &Set, profile: Profile, count: u64, rng: Rng) -> Rows {
    let p = profile.name().to_string();
    let (edges, mut draw): (Vec<Vec<String>>, Box<Draw>) = if set.name == sets::ENTROPY_QP.name {
        (
            entropy_qp_edges(&p),
            Box::new(move |r| entropy_qp_random(&p, r)),
        )
    } else if set.name == sets::ENTROPY_CM.name {
        (
            entropy_cm_edges(&p),
            Box::new(move |r| entropy_cm_random(&p, r)),
        )
    } else if set.name == sets::TOEPLITZ.name {
        (toeplitz_edges(), Box::new(toeplitz_random))
    } else if set.name == sets::RSS.name {
        (rss_edges(), Box::new(rss_random))
    } else {
        (icrc_edges(), Box::new(icrc_random))
    };
    let n = edges.len();
    let mut rng = rng;
    let random = (0..count).map(move |_| draw(&mut rng));
    Rows {
        edges: n,
        rows: Box::new(edges.into_iter().chain(random)),
    }
}

fn x(v: impl Into<u64>) -> String {
    format!("{:#x}", v.into())
}

fn entropy_qp_row(p: &str, l: u32, r: u32, fl: u32, ud: bool) -> Vec<String> {
    let ty = if ud { "ud" } else { "rc" };
    vec![p.into(), x(l), x(r), x(fl), ty.into()]
}

fn entropy_qp_edges(p: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for l in sets::QPNS {
        for r in sets::QPNS {
            rows.push(entropy_qp_row(p, l, r, 0, false));
        }
    }
    for q in sets::QPNS {
        rows.push(entropy_qp_row(p, q, MULTICAST_QPN, 0, true));
        rows.push(entropy_qp_row(p, q, q, 0, true));
    }
    for fl in sets::FLOW_LABELS {
        for (l, r) in [(0, 0), (0x12, 0x34), (0xFF_FFFF, 0xFF_FFFF)] {
            rows.push(entropy_qp_row(p, l, r, fl, false));
        }
    }
    rows
}

fn qpn(rng: &mut Rng) -> u32 {
    if rng.one_in(8) {
        rng.below(256) as u32
    } else {
        rng.below(1 << 24) as u32
    }
}

fn app_flow_label(rng: &mut Rng) -> u32 {
    match rng.below(4) {
        0 | 1 => 0,
        2 => rng.below(1 << 20) as u32,
        _ => rng.next() as u32,
    }
}

fn entropy_qp_random(p: &str, rng: &mut Rng) -> Vec<String> {
    let l = qpn(rng);
    let r = if rng.one_in(16) {
        MULTICAST_QPN
    } else {
        qpn(rng)
    };
    let fl = app_flow_label(rng);
    entropy_qp_row(p, l, r, fl, rng.one_in(2))
}

fn entropy_cm_row(p: &str, s: u16, d: u16, fl: u32, l: u32, r: u32) -> Vec<String> {
    vec![p.into(), s.to_string(), d.to_string(), x(fl), x(l), x(r)]
}

fn entropy_cm_edges(p: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for s in sets::CM_PORTS {
        for d in sets::CM_PORTS {
            rows.push(entropy_cm_row(p, s, d, 0, 0x12, 0x34));
        }
    }
    for fl in sets::FLOW_LABELS {
        rows.push(entropy_cm_row(p, 18515, 4791, fl, 0x12, 0x34));
    }
    // Ports whose flow label comes out 0 fall back to the QPNs: 0 and 0 in every profile, and
    // 33825 * 31 + 1 = 2^20 in linux.
    for q in sets::QPNS {
        rows.push(entropy_cm_row(p, 0, 0, 0, q, 0xFF_FFFF));
        rows.push(entropy_cm_row(p, 33825, 1, 0, q, 0x12));
    }
    rows
}

fn entropy_cm_random(p: &str, rng: &mut Rng) -> Vec<String> {
    let (s, d) = (rng.next() as u16, rng.next() as u16);
    let fl = app_flow_label(rng);
    let (l, r) = (qpn(rng), qpn(rng));
    entropy_cm_row(p, s, d, fl, l, r)
}

/// A verification vector's hash inputs: addresses only, and with ports.
fn verification_inputs<const N: usize>(v: &VerificationVector<N>) -> [Vec<u8>; 2] {
    let l3 = [&v.src[..], &v.dst[..]].concat();
    let l4 = [
        &l3[..],
        &v.src_port.to_be_bytes(),
        &v.dst_port.to_be_bytes(),
    ]
    .concat();
    [l3, l4]
}

fn toeplitz_edges() -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let inputs = VERIFICATION_IPV4
        .iter()
        .flat_map(verification_inputs)
        .chain(VERIFICATION_IPV6.iter().flat_map(verification_inputs));
    for input in inputs {
        rows.push(vec![hex(&MICROSOFT_KEY), hex(&input)]);
    }
    for key in sets::KEYS {
        let max = key.len() - 4;
        for n in sets::INPUT_LENGTHS.into_iter().filter(|&n| n <= max) {
            rows.push(vec![hex(key), hex(&sets::ONES_INPUT[..n])]);
        }
        if max > 0 {
            // The first and the last input bit alone select the first and the last key window.
            let mut last = vec![0u8; max];
            last[max - 1] = 1;
            rows.push(vec![hex(key), "80".into()]);
            rows.push(vec![hex(key), hex(&last)]);
        }
    }
    rows
}

fn key_for(rng: &mut Rng, len: usize) -> Vec<u8> {
    match rng.below(4) {
        0 if len == 40 => MICROSOFT_KEY.to_vec(),
        1 if len == 40 => sets::SYMMETRIC_KEY_40.to_vec(),
        1 => sets::SYMMETRIC_KEY_52.to_vec(),
        _ => rng.bytes(len),
    }
}

fn toeplitz_random(rng: &mut Rng) -> Vec<String> {
    let key = if rng.one_in(2) {
        let len = rng.pick(&[40, 52]);
        key_for(rng, len)
    } else {
        let len = rng.range(4, 52) as usize;
        rng.bytes(len)
    };
    let n = rng.range(0, key.len() as u64 - 4) as usize;
    vec![hex(&key), hex(&rng.bytes(n))]
}

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

fn rss_contexts() -> Vec<Ctx> {
    let ctx = |xor, key: &[u8], fields, size, queues| Ctx {
        xor,
        key: key.to_vec(),
        fields,
        size,
        queues,
        table: Vec::new(),
    };
    let mut list = vec![
        ctx(false, &MICROSOFT_KEY, HashFields::DEFAULT, 128, 4),
        ctx(false, &MICROSOFT_KEY, ADDRESS_FIELDS, 1, 1),
        ctx(false, &sets::SYMMETRIC_KEY_52, ALL_FIELDS, 65536, 0xFFFF),
        ctx(false, &sets::ONES_KEY_52, ALL_FIELDS, 4096, 3),
        ctx(false, &sets::SYMMETRIC_KEY_40, HashFields::NONE, 2, 3),
        ctx(true, &sets::SHORTEST_KEY, ALL_FIELDS, 2, 1),
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

fn rss_edges() -> Vec<Vec<String>> {
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

fn rss_random(rng: &mut Rng) -> Vec<String> {
    let frame = random_rx(rng).frame();
    let xor = rng.one_in(4);
    let fields = if rng.one_in(4) {
        HashFields::DEFAULT
    } else {
        HashFields(rng.next() as u32 & ALL_FIELDS.0)
    };
    let len = if crate::rss::longest_input(fields) > 36 {
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

fn icrc_edges() -> Vec<Vec<String>> {
    roce_edge_frames()
        .iter()
        .map(|r| vec![hex(&r.frame())])
        .collect()
}

fn icrc_random(rng: &mut Rng) -> Vec<String> {
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

/// The header forms TSO edge cases go through: (tag, IPv4 option words or IPv6, TCP option
/// words). The last is the longest header the segmenter takes whole: 18 + 48 + 60 = 126 bytes.
const SEND_FORMS: [(Option<u16>, Option<u8>, u8); 5] = [
    (None, Some(0), 0),
    (Some(0x8100), Some(1), 3),
    (None, None, 5),
    (Some(0x88A8), None, 10),
    (Some(0x8100), Some(7), 10),
];

/// TCP flags the edge cases go through: ACK|PSH, with FIN, with CWR, all three, ACK alone.
const SEND_FLAGS: [u8; 5] = [0x18, 0x19, 0x98, 0x99, 0x10];

fn send(
    form: (Option<u16>, Option<u8>, u8),
    flags: u8,
    seq: u32,
    ident: u16,
    payload: Vec<u8>,
) -> Send {
    Send {
        tag: form.0,
        ipv4: form.1,
        tcp_words: form.2,
        ident,
        seq,
        flags,
        flow: (seq % 200) as u8 + 1,
        payload,
    }
}

/// The TSO rows: each send and its MSS. Edge cases first, then `count` random sends.
pub fn sends(count: u64, rng: Rng) -> (usize, Box<dyn Iterator<Item = (Send, u16)>>) {
    let mut edges = Vec::new();
    let mut k = 0usize;
    let payload = |n: usize| (0..n).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
    for mss in sets::MSS {
        let m = usize::from(mss);
        let mut lens = vec![0, 1, m - 1, m, m + 1, 3 * m];
        lens.dedup();
        for n in lens {
            let form = SEND_FORMS[k % SEND_FORMS.len()];
            let flags = SEND_FLAGS[k % SEND_FLAGS.len()];
            edges.push((
                send(form, flags, 1000 + k as u32, k as u16, payload(n)),
                mss,
            ));
            k += 1;
        }
    }
    // Sequence numbers and IPv4 identifications that wrap, and the largest send a pcap record
    // holds (262144 bytes, libpcap's largest snap length: 256 KiB less 128 bytes of payload).
    edges.push((
        send(SEND_FORMS[0], 0x18, 0xFFFF_FFF0, 0xFFFF, payload(100)),
        8,
    ));
    edges.push((
        send(
            SEND_FORMS[2],
            0x99,
            0xFFFF_FFFF,
            0,
            payload(256 * 1024 - 128),
        ),
        9000,
    ));
    let n = edges.len();
    let mut rng = rng;
    let random = (0..count).map(move |_| {
        let form = (
            match rng.below(4) {
                0 => Some(0x8100),
                1 => Some(0x88A8),
                _ => None,
            },
            rng.one_in(2).then(|| rng.below(8) as u8),
            rng.below(11) as u8,
        );
        let mss = if rng.one_in(8) {
            rng.pick(&sets::MSS)
        } else {
            rng.range(64, 9000) as u16
        };
        let len = rng.below((8 * u64::from(mss)).min(32 * 1024) + 1) as usize;
        // ACK, and any of FIN, PSH, URG, ECE and CWR.
        let flags = 0x10 | (rng.next() as u8 & 0xE9);
        let (seq, ident) = (rng.next() as u32, rng.next() as u16);
        (send(form, flags, seq, ident, rng.bytes(len)), mss)
    });
    (n, Box::new(edges.into_iter().chain(random)))
}
