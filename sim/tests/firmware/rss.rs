//! The firmware drives the RSS pipeline (rtl/rss/rss_pipeline.sv, 64-bit build) through its
//! AXI4-Lite port while packets flow under random gaps and back-pressure. Every packet's
//! metadata (rule, hash, hash type, queue) must be `model::rss::distribute`'s under the
//! configuration the firmware was given, built with the model's own types (not the firmware's
//! register images): random contexts (Toeplitz with random, published and symmetric keys of the
//! lengths the fields need, XOR) and rules; tables switched bank by bank in the middle of
//! traffic; the published verification hashes; a flow and its reverse on the same queue.

use rand::Rng;
use rocenic_firmware::rss::{key_min_len, ContextConfig, HASH_FIELDS, SYMMETRIC_KEY};
use rocenic_firmware::{Error, RssPipeline};
use rocenic_model::rss::{
    classify, distribute, Action, Context, ContextView, Function, HashFields, Meta, Rule,
    SteeringKey,
};
use rocenic_model::toeplitz::{MICROSOFT_KEY, VERIFICATION_IPV4, VERIFICATION_IPV6};
use rocenic_model::wire::LinkType;
use rocenic_sim::duts::RssPipeline64;
use rocenic_sim::rss::frames;
use rocenic_sim::rss::pipeline::{Bench, Delivered, FirmwareBus};
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;

type Fw = RssPipeline<FirmwareBus<RssPipeline64>, 4>;

const RULES: usize = 16;
const CONTEXTS: usize = 4;

/// What the firmware was told, as model values, with the contexts built from them.
#[derive(Clone, Debug)]
struct Setup {
    hashes: Vec<(Function, HashFields, Vec<u8>)>,
    tables: Vec<Vec<u16>>,
    rules: Vec<Rule>,
    built: Vec<Context>,
}

impl Setup {
    /// The RTL's reset state: every context hashes nothing into a one-entry table of queue 0.
    fn reset() -> Setup {
        let mut s = Setup {
            hashes: vec![(Function::Toeplitz, HashFields::NONE, vec![0; 52]); CONTEXTS],
            tables: vec![vec![0]; CONTEXTS],
            rules: vec![Rule::default(); RULES],
            built: Vec::new(),
        };
        s.build();
        s
    }

    fn set_hash(&mut self, c: usize, hash: (Function, HashFields, Vec<u8>)) {
        self.hashes[c] = hash;
        self.build();
    }

    /// The model's contexts, with the firmware's keys as given (a short key unpadded).
    fn build(&mut self) {
        self.built = self
            .hashes
            .iter()
            .map(|(f, fields, key)| Context::new(*f, *fields, key).unwrap())
            .collect();
    }

    fn expect(&self, link: LinkType, frame: &[u8]) -> Meta {
        let views: Vec<ContextView<'_>> = self
            .built
            .iter()
            .zip(&self.tables)
            .map(|(context, table)| ContextView { context, table })
            .collect();
        distribute(&classify(link, frame), &self.rules, &views)
    }
}

fn open(name: &str, seed: u64, idle: f64, stall: f64) -> Fw {
    let bench: Bench<RssPipeline64> = Bench::new(name, seed, idle, stall);
    let fw: Fw = RssPipeline::open(FirmwareBus::new(bench)).unwrap();
    let caps = fw.caps();
    assert_eq!(
        (caps.rules, caps.contexts, caps.table_log2, caps.queue_w),
        (16, 4, 12, 16)
    );
    fw
}

fn random_hash(rng: &mut TestRng) -> (Function, HashFields, Vec<u8>) {
    let fields = if rng.gen_bool(0.3) {
        HashFields::DEFAULT | HashFields::BTH_DEST_QPN
    } else {
        HashFields(rng.gen::<u32>() & HASH_FIELDS)
    };
    let min = key_min_len(fields);
    let key = match rng.gen_range(0..4) {
        0 => SYMMETRIC_KEY.to_vec(),
        1 if min <= MICROSOFT_KEY.len() => MICROSOFT_KEY.to_vec(),
        _ => (0..rng.gen_range(min..=52)).map(|_| rng.gen()).collect(),
    };
    let function = if rng.gen_bool(0.2) {
        Function::Xor
    } else {
        Function::Toeplitz
    };
    (function, fields, key)
}

fn random_table(rng: &mut TestRng, max_log2: u32) -> Vec<u16> {
    let queues = rng.gen_range(1..=64u16);
    (0..1usize << rng.gen_range(0..=max_log2))
        .map(|_| rng.gen_range(0..queues))
        .collect()
}

/// A rule built from a real packet's key, each field compared fully, partly or not at all.
fn random_rule(rng: &mut TestRng) -> Rule {
    let (link, frame) = frames::random_frame(rng);
    let key = SteeringKey::of(&classify(link, &frame));
    let mut mask = SteeringKey::default();
    if rng.gen_bool(0.25) {
        mask.ethertype = 0xFFFF;
    }
    if rng.gen_bool(0.25) {
        mask.l4_protocol = 0xFF;
    }
    if rng.gen_bool(0.25) {
        let n = rng.gen_range(0..=16);
        mask.src = core::array::from_fn(|i| if i < n { 0xFF } else { 0 });
    }
    if rng.gen_bool(0.25) {
        mask.dst = [0xFF; 16];
    }
    if rng.gen_bool(0.25) {
        mask.src_port = rng.gen();
    }
    if rng.gen_bool(0.25) || mask == SteeringKey::default() {
        mask.dst_port = 0xFFFF;
    }
    if rng.gen_bool(0.25) {
        mask.qpn = 0xFF_FFFF;
    }
    Rule {
        enabled: rng.gen_bool(0.9),
        value: key,
        mask,
        action: if rng.gen_bool(0.4) {
            Action::Queue(rng.gen())
        } else {
            Action::Context(rng.gen_range(0..CONTEXTS as u8))
        },
    }
}

fn config(h: &(Function, HashFields, Vec<u8>)) -> ContextConfig<'_> {
    ContextConfig {
        function: h.0,
        fields: h.1,
        key: &h.2,
    }
}

/// Sends `frames` and waits until all are out.
fn deliver(fw: &mut Fw, frames: &[(LinkType, Vec<u8>)]) -> Vec<Delivered> {
    let bench = &mut fw.bus_mut().bench;
    for (link, frame) in frames {
        bench.send(*link, frame);
    }
    bench.drain(500 * frames.len() as u64 + 10_000).unwrap();
    bench.delivered.drain(..).collect()
}

/// Contexts and rules set by the firmware steer a random mix exactly as the model does.
#[test]
fn rss_contexts_and_rules_steer_as_the_model() {
    let name = "firmware_rss_mix";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut fw = open(name, seed, 0.3, 0.3);
    let mut setup = Setup::reset();
    for c in 0..CONTEXTS {
        let hash = random_hash(&mut rng);
        let table = random_table(&mut rng, 12);
        fw.set_context(c, &config(&hash), &table).unwrap();
        setup.set_hash(c, hash);
        setup.tables[c] = table;
    }
    let n = 4000;
    let sent: Vec<(LinkType, Vec<u8>)> = (0..n).map(|_| frames::random_frame(&mut rng)).collect();
    // Rules that some packets match and some do not: the model decides which to keep before
    // the firmware writes any.
    let mut rules: Vec<Rule> = (0..RULES).map(|_| random_rule(&mut rng)).collect();
    loop {
        let probe = Setup {
            rules: rules.clone(),
            ..setup.clone()
        };
        let hits = sent
            .iter()
            .filter(|(l, f)| probe.expect(*l, f).rule.is_some())
            .count();
        if hits == n {
            let on: Vec<usize> = (0..RULES).filter(|&r| rules[r].enabled).collect();
            rules[on[rng.gen_range(0..on.len())]].enabled = false;
        } else if hits == 0 {
            let (link, frame) = &sent[rng.gen_range(0..n)];
            rules[rng.gen_range(0..RULES)] = Rule {
                enabled: true,
                value: SteeringKey::of(&classify(*link, frame)),
                mask: SteeringKey {
                    dst: [0xFF; 16],
                    dst_port: 0xFFFF,
                    ..SteeringKey::default()
                },
                action: Action::Context(rng.gen_range(0..CONTEXTS as u8)),
            };
        } else {
            break;
        }
    }
    for (r, rule) in rules.iter().enumerate() {
        fw.set_rule(r, rule).unwrap();
    }
    setup.rules = rules;
    let delivered = deliver(&mut fw, &sent);
    assert_eq!(delivered.len(), n);
    let mut hits = 0;
    for (i, ((link, frame), out)) in sent.iter().zip(&delivered).enumerate() {
        assert_eq!(&out.frame, frame, "packet {i} changed (seed {seed})");
        let want = setup.expect(*link, frame);
        assert_eq!(
            out.meta, want,
            "packet {i}: {link:?} {frame:02x?} (seed {seed})"
        );
        hits += usize::from(want.rule.is_some());
    }
    assert!(hits > 0 && hits < n, "{hits} of {n} matched a rule");
    assert_eq!(fw.packets().unwrap(), n as u32);

    // Refusals reach no register: a table past the block's 2^12 entries, a rule to context 4.
    let before = fw.bus().accesses;
    assert_eq!(
        fw.set_table(0, &vec![0; 8192]),
        Err(Error::TableTooLarge {
            len: 8192,
            max: 4096
        })
    );
    let to4 = Rule {
        action: Action::Context(4),
        ..Rule::default()
    };
    assert!(matches!(
        fw.set_rule(0, &to4),
        Err(Error::ContextIndex { index: 4, .. })
    ));
    assert_eq!(fw.bus().accesses, before);
}

/// Tables replaced at run time through the other bank, and hashes changed, while packets flow:
/// each packet equals the model under one configuration, configurations never go back, a packet
/// that started after a change returned sees it, and one that ended before it was committed
/// does not.
#[test]
fn rss_tables_switch_banks_in_traffic() {
    let name = "firmware_rss_banks";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut fw = open(name, seed, 0.2, 0.2);
    let mut setup = Setup::reset();
    for c in 0..CONTEXTS {
        let hash = random_hash(&mut rng);
        let table = random_table(&mut rng, 7);
        fw.set_context(c, &config(&hash), &table).unwrap();
        setup.set_hash(c, hash);
        setup.tables[c] = table;
    }
    let commits_before = fw.bus().bench.commits.len();
    let mut versions = vec![setup.clone()];
    // When each change was written (its COMMIT's W handshake) and when the firmware returned.
    let mut times: Vec<(u64, u64)> = Vec::new();
    let mut sent = Vec::new();
    for i in 0..3000 {
        let (link, frame) = frames::random_frame(&mut rng);
        fw.bus_mut().bench.send(link, &frame);
        sent.push((link, frame));
        if i % 50 == 25 {
            let c = rng.gen_range(0..CONTEXTS);
            if rng.gen_bool(0.7) {
                let table = random_table(&mut rng, 7);
                fw.set_table(c, &table).unwrap();
                setup.tables[c] = table;
            } else {
                let hash = random_hash(&mut rng);
                fw.set_hash(c, &config(&hash)).unwrap();
                setup.set_hash(c, hash);
            }
            let written = fw.bus().bench.commits.last().unwrap().written;
            times.push((written, fw.bus().bench.sim.cycle()));
            versions.push(setup.clone());
        }
    }
    fw.bus_mut().bench.drain(1_000_000).unwrap();
    assert_eq!(fw.bus().bench.commits.len(), commits_before + times.len());
    let delivered: Vec<Delivered> = fw.bus_mut().bench.delivered.drain(..).collect();
    assert_eq!(delivered.len(), sent.len());
    let mut v = 0;
    let mut boundaries = 0;
    for (i, ((link, frame), out)) in sent.iter().zip(&delivered).enumerate() {
        let lo = times.iter().filter(|t| t.1 < out.first_in).count();
        let hi = times.iter().filter(|t| t.0 < out.last_in).count();
        let start = v.max(lo);
        let found = (start..=hi.min(versions.len() - 1))
            .find(|&k| versions[k].expect(*link, frame) == out.meta);
        let Some(k) = found else {
            panic!(
                "packet {i}: {:?} under no configuration in {start}..={hi} (seed {seed})",
                out.meta
            );
        };
        boundaries += usize::from(k != v);
        v = k;
    }
    assert!(
        boundaries >= times.len() / 2,
        "{boundaries} of {} changes seen between packets (seed {seed})",
        times.len()
    );
    eprintln!(
        "{name}: {} changes, {boundaries} seen mid-traffic",
        times.len()
    );
}

/// The published verification hashes through a context the firmware set, and the symmetric key
/// putting a flow and its reverse on the same queue.
#[test]
fn rss_published_hashes_and_symmetric_key() {
    let name = "firmware_rss_keys";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut fw = open(name, seed, 0.2, 0.2);
    let table: Vec<u16> = (0..128).map(|i| i % 5).collect();
    let published = (
        Function::Toeplitz,
        HashFields::DEFAULT,
        MICROSOFT_KEY.to_vec(),
    );
    fw.set_context(0, &config(&published), &table).unwrap();
    let mut frames = Vec::new();
    let mut want = Vec::new();
    for v in VERIFICATION_IPV4 {
        frames.push((
            LinkType::Ethernet,
            frames::tcp_frame(&v.src, &v.dst, v.src_port, v.dst_port),
        ));
        want.push(v.hash_l3l4);
    }
    for v in VERIFICATION_IPV6 {
        frames.push((
            LinkType::Ethernet,
            frames::tcp_frame(&v.src, &v.dst, v.src_port, v.dst_port),
        ));
        want.push(v.hash_l3l4);
    }
    for (out, hash) in deliver(&mut fw, &frames).iter().zip(want) {
        assert_eq!(out.meta.hash, hash, "published hash (seed {seed})");
        assert_eq!(out.meta.queue, table[hash as usize & 127]);
    }

    let sym = (
        Function::Toeplitz,
        HashFields::DEFAULT,
        SYMMETRIC_KEY.to_vec(),
    );
    let table: Vec<u16> = (0..256).map(|_| rng.gen_range(0..16)).collect();
    fw.set_context(0, &config(&sym), &table).unwrap();
    let mut setup = Setup::reset();
    setup.set_hash(0, sym);
    setup.tables[0] = table;
    let mut frames = Vec::new();
    for _ in 0..300 {
        let v6 = rng.gen_bool(0.5);
        let n = if v6 { 16 } else { 4 };
        let a: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let b: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let (p, q) = (rng.gen(), rng.gen());
        frames.push((LinkType::Ethernet, frames::tcp_frame(&a, &b, p, q)));
        frames.push((LinkType::Ethernet, frames::tcp_frame(&b, &a, q, p)));
    }
    let out = deliver(&mut fw, &frames);
    for (pair, sent) in out.chunks(2).zip(frames.chunks(2)) {
        assert_eq!(pair[0].meta, setup.expect(sent[0].0, &sent[0].1));
        assert_eq!(pair[0].meta.hash, pair[1].meta.hash, "seed {seed}");
        assert_eq!(pair[0].meta.queue, pair[1].meta.queue);
    }
}
