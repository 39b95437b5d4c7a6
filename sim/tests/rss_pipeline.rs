//! The RSS pipeline (rtl/rss/rss_pipeline.sv) against model::rss::{classify, distribute}, at
//! 64 and 512 bits per beat: the published verification table as packets, random packet mixes
//! with random rules, keys and tables under random back-pressure, configuration commits in the
//! middle of traffic with the old/new boundary checked, malformed frames, register read-back,
//! and full rate with back-to-back 64-byte frames.

use rand::Rng;
use rocenic_model::rss::regs::{self, ContextRegs, KEY_BYTES};
use rocenic_model::rss::{classify, Action, Function, HashFields, Rule, SteeringKey};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY, VERIFICATION_IPV4, VERIFICATION_IPV6};
use rocenic_model::wire::LinkType;
use rocenic_sim::duts::RssPipelinePorts;
use rocenic_sim::rss::frames;
use rocenic_sim::rss::pipeline::{data_bytes, table_writes, Bench, Delivered, Mirror};
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;

const RULES: usize = 16;
const CONTEXTS: usize = 4;
const TABLE_LOG2: u8 = 12;

fn key52(key: &[u8]) -> [u8; KEY_BYTES] {
    let mut k = [0; KEY_BYTES];
    k[..key.len()].copy_from_slice(key);
    k
}

/// Configures a context (table into `bank`, then the commit) on the bench and the mirror.
fn set_context<D: RssPipelinePorts>(
    bench: &mut Bench<D>,
    mirror: &mut Mirror,
    index: u8,
    ctx: ContextRegs,
    table: &[u16],
) {
    bench.write_all(&table_writes(index, ctx.bank, table));
    let banks = &mut mirror.tables[usize::from(index)];
    banks[usize::from(ctx.bank)][..table.len()].copy_from_slice(table);
    bench.write_all(&regs::context_writes(&ctx));
    bench.write_all(&[regs::commit_context(index)]);
    mirror.set_context(usize::from(index), ctx);
}

fn set_rule<D: RssPipelinePorts>(bench: &mut Bench<D>, mirror: &mut Mirror, index: u8, rule: Rule) {
    bench.write_all(&regs::rule_writes(&rule));
    bench.write_all(&[regs::commit_rule(index)]);
    mirror.set_rule(usize::from(index), rule);
}

fn random_context(rng: &mut TestRng, bank: u8) -> ContextRegs {
    let key = match rng.gen_range(0..4) {
        0 => symmetric_key::<KEY_BYTES>(),
        1 => key52(&MICROSOFT_KEY),
        _ => core::array::from_fn(|_| rng.gen()),
    };
    let fields = if rng.gen_bool(0.3) {
        HashFields::DEFAULT | HashFields::BTH_DEST_QPN
    } else {
        HashFields(rng.gen::<u32>() & 0x10FF)
    };
    ContextRegs {
        function: if rng.gen_bool(0.2) {
            Function::Xor
        } else {
            Function::Toeplitz
        },
        fields,
        key,
        table_log2: rng.gen_range(0..=TABLE_LOG2),
        bank,
    }
}

fn random_table(rng: &mut TestRng, log2: u8) -> Vec<u16> {
    let queues = rng.gen_range(1..=64u16);
    (0..1usize << log2)
        .map(|_| rng.gen_range(0..queues))
        .collect()
}

/// A rule built from a real packet's key, so that it matches some traffic: each field is
/// compared fully, partly or not at all.
fn random_rule(rng: &mut TestRng) -> Rule {
    let (link, frame) = frames::random_frame(rng);
    let key = SteeringKey::of(&classify(link, &frame));
    let mut mask = SteeringKey::default();
    let pick = |rng: &mut TestRng| rng.gen_range(0..4);
    if pick(rng) == 0 {
        mask.ethertype = 0xFFFF;
    }
    if pick(rng) == 0 {
        mask.l4_protocol = 0xFF;
    }
    if pick(rng) == 0 {
        mask.src = core::array::from_fn(|i| if i < rng.gen_range(0..=16) { 0xFF } else { 0 });
    }
    if pick(rng) == 0 {
        mask.dst = [0xFF; 16];
    }
    if pick(rng) == 0 {
        mask.src_port = rng.gen();
    }
    if pick(rng) == 0 {
        mask.dst_port = 0xFFFF;
    }
    if pick(rng) == 0 {
        mask.qpn = 0xFF_FFFF;
    }
    if mask == SteeringKey::default() {
        // Compare something: a catch-all rule would hide every rule after it.
        mask.dst_port = 0xFFFF;
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

/// Checks every delivered packet against the configuration versions: each packet must equal
/// the model under one version, versions never go back, a packet whose first beat came after a
/// commit completed sees it, and a packet whose last beat came before a commit was written does
/// not.
fn check_versions(
    sent: &[(LinkType, Vec<u8>)],
    delivered: &[Delivered],
    versions: &[Mirror],
    commits: &[rocenic_sim::rss::pipeline::CommitTimes],
    seed: u64,
) -> usize {
    assert_eq!(
        delivered.len(),
        sent.len(),
        "packets lost or duplicated (seed {seed})"
    );
    let mut v = 0;
    let mut boundaries = 0;
    for (i, ((link, frame), out)) in sent.iter().zip(delivered).enumerate() {
        assert_eq!(
            &out.frame, frame,
            "packet {i} changed in flight (seed {seed})"
        );
        assert_eq!(
            out.ib,
            *link == LinkType::Infiniband,
            "packet {i} tuser (seed {seed})"
        );
        let lo = commits.iter().filter(|c| c.done < out.first_in).count();
        let hi = commits.iter().filter(|c| c.written < out.last_in).count();
        let start = v.max(lo);
        let found = (start..=hi.min(versions.len() - 1))
            .find(|&k| versions[k].expect(*link, frame) == out.meta);
        let Some(k) = found else {
            panic!(
                "packet {i}: metadata {:?} matches no configuration in {start}..={hi}; \
                 version {start} expects {:?} ({link:?} {:02x?}) (seed {seed})",
                out.meta,
                versions[start.min(versions.len() - 1)].expect(*link, frame),
                frame
            );
        };
        if k != v {
            boundaries += 1;
        }
        v = k;
    }
    boundaries
}

macro_rules! pipeline_tests {
    ($module:ident, $dut:ty) => {
        mod $module {
            use super::*;
            use rocenic_sim::duts::*;

            type Dut = $dut;
            const NAME: &str = stringify!($module);

            fn bench(test: &str, seed: u64, idle: f64, stall: f64) -> Bench<Dut> {
                Bench::new(&format!("{NAME}_{test}"), seed, idle, stall)
            }

            #[test]
            fn verification_table_as_packets() {
                let seed = stream::seed(&format!("{NAME}::verification_table"));
                let mut b = bench("verification", seed, 0.2, 0.2);
                let mut mirror = Mirror::new(RULES, CONTEXTS, TABLE_LOG2);
                let table: Vec<u16> = (0..128).map(|i| i % 4).collect();
                let ctx = ContextRegs {
                    function: Function::Toeplitz,
                    fields: HashFields::DEFAULT,
                    key: key52(&MICROSOFT_KEY),
                    table_log2: 7,
                    bank: 1,
                };
                set_context(&mut b, &mut mirror, 0, ctx, &table);
                b.drain(100_000).unwrap();
                let mut expected = Vec::new();
                for v in VERIFICATION_IPV4 {
                    b.send(
                        LinkType::Ethernet,
                        &frames::tcp_frame(&v.src, &v.dst, v.src_port, v.dst_port),
                    );
                    expected.push(v.hash_l3l4);
                }
                for v in VERIFICATION_IPV6 {
                    b.send(
                        LinkType::Ethernet,
                        &frames::tcp_frame(&v.src, &v.dst, v.src_port, v.dst_port),
                    );
                    expected.push(v.hash_l3l4);
                }
                b.drain(10_000).unwrap();
                assert_eq!(b.delivered.len(), expected.len());
                for (out, want) in b.delivered.iter().zip(expected) {
                    assert_eq!(out.meta.hash, want, "published hash (seed {seed})");
                    assert_eq!(out.meta.queue, table[want as usize & 127]);
                    assert_eq!(out.meta.rule, None);
                }
            }

            #[test]
            fn random_mix_with_rules_keys_and_tables() {
                let seed = stream::seed(&format!("{NAME}::random_mix"));
                let mut rng = stream::rng(seed);
                let mut b = bench("random_mix", seed, 0.3, 0.3);
                let mut mirror = Mirror::new(RULES, CONTEXTS, TABLE_LOG2);
                for c in 0..CONTEXTS as u8 {
                    let ctx = random_context(&mut rng, 1);
                    let table = random_table(&mut rng, ctx.table_log2);
                    set_context(&mut b, &mut mirror, c, ctx, &table);
                }
                let n = 12_000;
                let sent: Vec<(LinkType, Vec<u8>)> =
                    (0..n).map(|_| frames::random_frame(&mut rng)).collect();
                // Random rules, adjusted (by the model, before any reaches the RTL) so that the
                // mix takes both paths: a rule set that matches every packet loses enabled rules
                // one by one, one that matches none gets an exact-match rule for a sent packet.
                let mut rules: Vec<Rule> = (0..RULES).map(|_| random_rule(&mut rng)).collect();
                loop {
                    let mut probe = mirror.clone();
                    for (r, rule) in rules.iter().enumerate() {
                        probe.rules[r] = *rule;
                    }
                    let hits = sent
                        .iter()
                        .filter(|(link, frame)| probe.expect(*link, frame).rule.is_some())
                        .count();
                    if hits == n {
                        let enabled: Vec<usize> =
                            (0..RULES).filter(|&r| rules[r].enabled).collect();
                        rules[enabled[rng.gen_range(0..enabled.len())]].enabled = false;
                    } else if hits == 0 {
                        let (link, frame) = &sent[rng.gen_range(0..n)];
                        rules[rng.gen_range(0..RULES)] = Rule {
                            enabled: true,
                            value: SteeringKey::of(&classify(*link, frame)),
                            mask: SteeringKey {
                                ethertype: 0xFFFF,
                                l4_protocol: 0xFF,
                                src: [0xFF; 16],
                                dst: [0xFF; 16],
                                src_port: 0xFFFF,
                                dst_port: 0xFFFF,
                                qpn: 0xFF_FFFF,
                            },
                            action: Action::Context(0),
                        };
                    } else {
                        break;
                    }
                }
                for (r, rule) in rules.into_iter().enumerate() {
                    set_rule(&mut b, &mut mirror, r as u8, rule);
                }
                b.drain(1_000_000).unwrap();
                for (link, frame) in &sent {
                    b.send(*link, frame);
                }
                b.drain(200 * n as u64).unwrap();
                let delivered: Vec<Delivered> = b.delivered.drain(..).collect();
                check_versions(&sent, &delivered, &[mirror.clone()], &[], seed);
                // The mix reached rules, both actions and the RSS contexts.
                let hits = delivered.iter().filter(|d| d.meta.rule.is_some()).count();
                assert!(hits > 0 && hits < n, "{hits} of {n} packets matched a rule");
            }

            #[test]
            fn commits_in_the_middle_of_traffic() {
                let seed = stream::seed(&format!("{NAME}::commits_mid_traffic"));
                let mut rng = stream::rng(seed);
                let mut b = bench("commits", seed, 0.2, 0.2);
                let mut mirror = Mirror::new(RULES, CONTEXTS, TABLE_LOG2);
                let mut banks = [0u8; CONTEXTS];
                // Small tables so that a whole-table rewrite fits between packets.
                for c in 0..CONTEXTS as u8 {
                    let mut ctx = random_context(&mut rng, 0);
                    ctx.table_log2 = rng.gen_range(0..=6);
                    let table = random_table(&mut rng, ctx.table_log2);
                    set_context(&mut b, &mut mirror, c, ctx, &table);
                }
                b.drain(100_000).unwrap();
                let mut versions = vec![mirror.clone()];
                let mut sent = Vec::new();
                let n = 6000;
                for i in 0..n {
                    let (link, frame) = frames::random_frame(&mut rng);
                    b.send(link, &frame);
                    sent.push((link, frame));
                    // Every ~60 packets, one change: a key and table, or a rule.
                    if i % 60 == 30 {
                        if rng.gen_bool(0.6) {
                            let c = rng.gen_range(0..CONTEXTS);
                            banks[c] ^= 1;
                            let mut ctx = random_context(&mut rng, banks[c]);
                            ctx.table_log2 = rng.gen_range(0..=6);
                            let table = random_table(&mut rng, ctx.table_log2);
                            set_context(&mut b, &mut mirror, c as u8, ctx, &table);
                        } else {
                            let r = rng.gen_range(0..RULES as u8);
                            let rule = random_rule(&mut rng);
                            set_rule(&mut b, &mut mirror, r, rule);
                        }
                        versions.push(mirror.clone());
                    }
                }
                b.drain(500 * n as u64).unwrap();
                let delivered: Vec<Delivered> = b.delivered.drain(..).collect();
                assert_eq!(b.commits.len(), versions.len() - 1 + CONTEXTS);
                let commits = &b.commits[CONTEXTS..];
                let boundaries = check_versions(&sent, &delivered, &versions, commits, seed);
                // Changes landed while packets flowed, not all before or after.
                assert!(
                    boundaries >= versions.len() / 2,
                    "{boundaries} boundaries (seed {seed})"
                );
            }

            #[test]
            fn malformed_and_empty_frames_leave_neighbours_alone() {
                let seed = stream::seed(&format!("{NAME}::malformed"));
                let mut rng = stream::rng(seed);
                let mut b = bench("malformed", seed, 0.1, 0.4);
                let mut mirror = Mirror::new(RULES, CONTEXTS, TABLE_LOG2);
                let ctx = random_context(&mut rng, 1);
                let table = random_table(&mut rng, ctx.table_log2);
                set_context(&mut b, &mut mirror, 0, ctx, &table);
                b.drain(100_000).unwrap();
                let mut sent = Vec::new();
                for i in 0..600 {
                    let (link, mut frame) = frames::random_frame(&mut rng);
                    match i % 4 {
                        0 => frame.truncate(rng.gen_range(0..=14)),
                        1 => frame.clear(),
                        // IHL below 5, or an IPv4 total length past the frame.
                        2 if frame.len() > 20 && link == LinkType::Ethernet => {
                            frame[14] = rng.gen_range(0x40..0x45);
                        }
                        _ => {}
                    }
                    b.send(link, &frame);
                    sent.push((link, frame));
                }
                b.drain(400_000).unwrap();
                let delivered: Vec<Delivered> = b.delivered.drain(..).collect();
                check_versions(&sent, &delivered, &[mirror], &[], seed);
            }

            #[test]
            fn registers_read_back() {
                let seed = stream::seed(&format!("{NAME}::registers"));
                let mut b = bench("registers", seed, 0.0, 0.0);
                let rule = Rule {
                    enabled: true,
                    value: SteeringKey {
                        dst_port: 4791,
                        qpn: 0xAB_CDEF,
                        ..SteeringKey::default()
                    },
                    mask: SteeringKey {
                        dst_port: 0xFFFF,
                        ..SteeringKey::default()
                    },
                    action: Action::Queue(7),
                };
                let staged = regs::rule_writes(&rule);
                b.write_all(&staged);
                for addr in [regs::ID, regs::CAPS, regs::STATUS, 0x1F0] {
                    b.read(addr);
                }
                for (addr, _) in staged {
                    b.read(addr);
                }
                b.drain(10_000).unwrap();
                let reads: Vec<(u32, u32)> = b.reads.drain(..).collect();
                assert_eq!(reads[0].1, regs::ID_VALUE);
                let caps = reads[1].1;
                assert_eq!(regs::caps::RULES.get(caps) as usize, RULES);
                assert_eq!(regs::caps::CONTEXTS.get(caps) as usize, CONTEXTS);
                assert_eq!(regs::caps::TABLE_LOG2.get(caps), u32::from(TABLE_LOG2));
                assert_eq!(regs::caps::QUEUE_W.get(caps), 16);
                assert_eq!(reads[2].1, 0, "not busy");
                assert_eq!(reads[3].1, 0, "unmapped reads 0");
                assert_eq!(&reads[4..], &staged[..], "staging registers read back");
            }

            /// Back-to-back 64-byte frames with an always-ready sink: one beat per clock in and
            /// out, no bubble, once the pipeline is full.
            #[test]
            fn back_to_back_minimum_frames_at_full_rate() {
                let seed = stream::seed(&format!("{NAME}::full_rate"));
                let mut rng = stream::rng(seed);
                let mut b = bench("full_rate", seed, 0.0, 0.0);
                let n = 3000;
                let sent: Vec<Vec<u8>> = (0..n)
                    .map(|_| {
                        let v = VERIFICATION_IPV4[rng.gen_range(0..VERIFICATION_IPV4.len())];
                        let mut f = frames::tcp_frame(&v.src, &v.dst, rng.gen(), rng.gen());
                        f.resize(64, 0); // Ethernet's minimum (padding, then the FCS's place)
                        f
                    })
                    .collect();
                // Out of reset the FIFO's s_ready rises one cycle late.
                b.step().unwrap();
                for f in &sent {
                    b.send(LinkType::Ethernet, f);
                }
                let start = b.sim.cycle();
                let mut stalls_in = 0;
                while b.beats_waiting() > 0 {
                    let before = b.beats_waiting();
                    b.step().unwrap();
                    if b.beats_waiting() == before {
                        stalls_in += 1;
                    }
                }
                let in_cycles = b.sim.cycle() - start;
                b.drain(10_000).unwrap();
                let total = b.sim.cycle() - start;
                let beats = (n * 64 / data_bytes::<Dut>()) as u64;
                assert_eq!(b.out_beats, beats);
                assert_eq!(stalls_in, 0, "the input stalled {stalls_in} times");
                assert_eq!(in_cycles, beats);
                // Out: every beat plus the fill latency (window, parse, steer, hash, table,
                // FIFOs) and nothing more.
                assert!(total <= beats + 24, "{total} cycles for {beats} beats");
                eprintln!("{NAME}: {beats} beats in {total} cycles");
            }
        }
    };
}

pipeline_tests!(width_64, RssPipeline64);
pipeline_tests!(width_512, RssPipeline512);
