//! The DMA host model (sim::wqe::host_memory) against a scripted engine: thousands of random
//! tagged reads and writes under random back-pressure, every returned byte checked against the
//! memory, every write against a shadow, ordering and interleaving counted, and each protocol
//! rule broken on purpose once.
//!
//! Randomized tests print their seed; `ROCENIC_SEED=N` replays them.

use rand::Rng;
use rocenic_model::wqe::{Fill, HostMemory, Memory};
use rocenic_sim::axis::{keep_count, keep_mask};
use rocenic_sim::stream::TestRng;
use rocenic_sim::stream::{self, Sink, Source};
use rocenic_sim::wqe::host_memory::*;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

/// Reads go to [READ, READ + 0x8000): a counter region, then random bytes right after it (so
/// reads run across the seam), a 0x1000-byte hole, and a zero region after the hole.
const READ: u64 = 0x1_0000_0000;
const HOLE: u64 = READ + 0x8000;
const AFTER_HOLE: u64 = HOLE + 0x1000;
const READ_END: u64 = AFTER_HOLE + 0x2000;
/// Writes go to [WRITE, WRITE + 0x8000), and some run off either end of it.
const WRITE: u64 = 0x2_0000_0000;
const WRITE_SIZE: usize = 0x8000;

fn memory(rng: &mut TestRng) -> HostMemory {
    let random: Vec<u8> = (0..0x4000).map(|_| rng.gen()).collect();
    let mut m = HostMemory::new();
    m.add(READ, 0x4000, Fill::Counter).unwrap();
    m.add(READ + 0x4000, 0x4000, Fill::Bytes(&random)).unwrap();
    m.add(AFTER_HOLE, 0x2000, Fill::Zero).unwrap();
    m.add(WRITE, WRITE_SIZE, Fill::Zero).unwrap();
    m
}

/// Mostly short accesses, some long, now and then the longest.
fn length(rng: &mut TestRng) -> usize {
    match rng.gen_range(0..10) {
        0..=4 => rng.gen_range(1..=64),
        5..=7 => rng.gen_range(65..=512),
        8 => rng.gen_range(513..=4095),
        _ => MAX_LEN,
    }
}

/// A read outstanding at the scripted engine.
struct Pending {
    seq: u64,
    addr: u64,
    len: usize,
    got: Vec<u8>,
}

/// What one run measured.
#[derive(Debug, Default, PartialEq, Eq)]
struct Report {
    /// Pairs of reads answered in the other order than requested (likewise writes).
    read_inversions: u64,
    write_inversions: u64,
    /// Response beats whose tag differs from the previous beat's, which was not last.
    interleaves: u64,
    read_faults: u64,
    write_faults: u64,
    cycles: u64,
    counters: Counters,
    /// Every cycle's outputs of both sides, hashed.
    trace: u64,
}

/// `reads` random reads and `writes` random writes through a host configured `cfg`; panics on
/// the first wrong byte, status or count.
fn run(cfg: Config, seed: u64, reads: usize, writes: usize) -> Report {
    let mut rng = stream::rng(seed);
    let mem = memory(&mut rng);
    // Read regions are never written, so this copy is what every read must see.
    let expect = mem.clone();
    let mut shadow = mem.clone();
    let lanes = cfg.data_bytes;
    let tags = 1u32 << cfg.tag_bits;
    let mut host = DmaHost::new(mem, cfg, seed);

    let mut rd_src: Source<ReadRequest> = Source::new(seed, 0.3);
    let mut wr_src: Source<WriteBeat> = Source::new(seed ^ 0x77, 0.3);
    let mut rd_sink = Sink::new(seed, 0.3);
    let mut cpl_sink = Sink::new(seed ^ 0x77, 0.3);
    let mut free_rd: Vec<u32> = (0..tags).collect();
    let mut free_wr: Vec<u32> = (0..tags).collect();
    let (mut to_read, mut to_write) = (reads, writes);
    let mut pending_rd: HashMap<u32, Pending> = HashMap::new();
    let mut pending_wr: HashMap<u32, (u64, u64, Vec<u8>)> = HashMap::new();
    // The write on the port, by tag, until its last beat is taken.
    let mut sending: HashMap<u32, (u64, Vec<u8>)> = HashMap::new();
    let (mut order_rd, mut order_wr) = (BTreeSet::new(), BTreeSet::new());
    let (mut seq_rd, mut seq_wr) = (0u64, 0u64);
    let mut prev_beat: Option<(u32, bool)> = None;
    let mut r = Report::default();
    let mut trace = DefaultHasher::new();

    let limit = 200 * (reads + writes) as u64 + 10_000;
    while to_read + to_write + rd_src.remaining() + wr_src.remaining() > 0
        || !pending_rd.is_empty()
        || !pending_wr.is_empty()
        || !host.idle()
    {
        assert!(r.cycles < limit, "no progress after {} cycles", r.cycles);
        let out = host.offer();

        // The engine: a new request whenever its port is free and a tag is.
        if to_read > 0 && rd_src.remaining() == 0 && !free_rd.is_empty() {
            let tag = free_rd.swap_remove(rng.gen_range(0..free_rd.len()));
            let len = length(&mut rng);
            let addr = rng.gen_range(READ..READ_END - len as u64 + 0x100);
            rd_src.push(ReadRequest {
                addr,
                len: len as u32,
                tag,
            });
            to_read -= 1;
        }
        if to_write > 0 && wr_src.remaining() == 0 && !free_wr.is_empty() {
            let tag = free_wr.swap_remove(rng.gen_range(0..free_wr.len()));
            let len = length(&mut rng);
            let addr = rng.gen_range(WRITE - 0x100..WRITE + WRITE_SIZE as u64 + 0x100);
            let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            for (i, chunk) in bytes.chunks(lanes).enumerate() {
                let mut data = chunk.to_vec();
                data.resize(lanes, 0);
                wr_src.push(WriteBeat {
                    addr: if i == 0 { addr } else { rng.gen() },
                    data,
                    keep: keep_mask(chunk.len()),
                    last: (i + 1) * lanes >= len,
                    tag,
                });
            }
            sending.insert(tag, (addr, bytes));
            to_write -= 1;
        }
        let e = EngineOut {
            rd_req: rd_src.offer().cloned(),
            rd_resp_ready: rd_sink.ready(),
            wr: wr_src.offer().cloned(),
            wr_cpl_ready: cpl_sink.ready(),
        };
        (&out, &e).hash(&mut trace);
        host.accepted(&e).unwrap_or_else(|v| panic!("{v}"));
        r.cycles += 1;

        if let Some(req) = rd_src.accepted(out.rd_req_ready) {
            order_rd.insert(seq_rd);
            let p = Pending {
                seq: seq_rd,
                addr: req.addr,
                len: req.len as usize,
                got: Vec::new(),
            };
            pending_rd.insert(req.tag, p);
            seq_rd += 1;
        }
        if let Some(beat) = out.rd_resp.filter(|_| e.rd_resp_ready) {
            let p = pending_rd
                .get_mut(&beat.tag)
                .unwrap_or_else(|| panic!("a beat for tag {} not outstanding", beat.tag));
            if prev_beat.is_some_and(|(t, last)| !last && t != beat.tag) {
                r.interleaves += 1;
            }
            prev_beat = Some((beat.tag, beat.last));
            let n = keep_count(beat.keep, lanes).expect("contiguous keep");
            assert_eq!(beat.data.len(), lanes);
            assert!(beat.data[n..].iter().all(|&b| b == 0), "lanes past keep");
            let mut want = vec![0; p.len];
            let fault = expect.read(p.addr, &mut want).is_err();
            if beat.err {
                assert!(fault, "err on a mapped read {:#x}+{}", p.addr, p.len);
                assert!(beat.last && n == 0 && p.got.is_empty(), "err beat alone");
            } else {
                assert!(!fault, "data for a read into the hole");
                assert!(beat.last || n == lanes, "only the last beat may be partial");
                p.got.extend_from_slice(&beat.data[..n]);
                assert!(p.got.len() <= p.len, "more bytes than asked");
                assert_eq!(beat.last, p.got.len() == p.len, "last on the last byte");
            }
            if beat.last {
                let p = pending_rd.remove(&beat.tag).expect("pending");
                if beat.err {
                    r.read_faults += 1;
                } else {
                    assert!(p.got == want, "read {:#x}+{} bytes differ", p.addr, p.len);
                }
                order_rd.remove(&p.seq);
                r.read_inversions += order_rd.range(..p.seq).count() as u64;
                free_rd.push(beat.tag);
            }
        }
        if let Some(beat) = wr_src.accepted(out.wr_ready) {
            if beat.last {
                let (addr, bytes) = sending.remove(&beat.tag).expect("a write on the port");
                order_wr.insert(seq_wr);
                pending_wr.insert(beat.tag, (seq_wr, addr, bytes));
                seq_wr += 1;
            }
        }
        if let Some(c) = out.wr_cpl.filter(|_| e.wr_cpl_ready) {
            let (seq, addr, bytes) = pending_wr
                .remove(&c.tag)
                .unwrap_or_else(|| panic!("a completion for tag {} not outstanding", c.tag));
            assert_eq!(c.err, !shadow.mapped(addr, bytes.len()), "write {addr:#x}");
            if c.err {
                r.write_faults += 1;
            } else {
                shadow.write(addr, &bytes).unwrap();
            }
            order_wr.remove(&seq);
            r.write_inversions += order_wr.range(..seq).count() as u64;
            free_wr.push(c.tag);
        }
    }
    assert!(pending_wr.is_empty() && sending.is_empty());
    assert!(host.violations().is_empty());
    r.counters = host.counters();
    r.trace = trace.finish();
    assert_eq!(r.counters.reads, reads as u64);
    assert_eq!(r.counters.writes, writes as u64);
    assert_eq!(r.counters.read_faults, r.read_faults);
    assert_eq!(r.counters.write_faults, r.write_faults);
    assert!(
        host.memory() == &shadow,
        "memory differs from the shadow of completed writes"
    );
    r
}

fn run_seeded(test: &str, cfg: Config, reads: usize, writes: usize) -> Report {
    let seed = stream::seed(test);
    let r = run(cfg, seed, reads, writes);
    eprintln!("{test}: {r:?}");
    r
}

#[test]
fn out_of_order_interleaved_responses_carry_the_right_bytes() {
    let r = run_seeded(
        "out_of_order_interleaved",
        Config::adversarial(16, 4),
        3000,
        1500,
    );
    assert!(r.read_inversions > 0 && r.write_inversions > 0, "{r:?}");
    assert!(r.interleaves > 0, "{r:?}");
    assert!(
        r.read_faults > 0 && r.write_faults > 0,
        "faults exercised: {r:?}"
    );
    assert!(r.counters.bytes_read > 0 && r.counters.bytes_written > 0);
}

#[test]
fn reordered_without_interleaving_sends_each_read_whole() {
    let cfg = Config {
        interleave: false,
        ..Config::adversarial(8, 3)
    };
    let r = run_seeded("reordered_whole", cfg, 1500, 500);
    assert!(r.read_inversions > 0 && r.write_inversions > 0, "{r:?}");
    assert_eq!(r.interleaves, 0, "{r:?}");
}

#[test]
fn in_order_host_answers_in_request_order() {
    let cfg = Config {
        reorder: false,
        interleave: true,
        ..Config::adversarial(64, 4)
    };
    let r = run_seeded("in_order", cfg, 2000, 1000);
    assert_eq!((r.read_inversions, r.write_inversions), (0, 0), "{r:?}");
    assert_eq!(r.interleaves, 0, "{r:?}");
    assert!(r.read_faults > 0 && r.write_faults > 0, "{r:?}");
}

#[test]
fn a_seed_replays_the_same_trace() {
    let seed = stream::seed("replay");
    let cfg = Config::adversarial(32, 2);
    let a = run(cfg.clone(), seed, 400, 200);
    let b = run(cfg.clone(), seed, 400, 200);
    assert_eq!(a, b);
    let c = run(cfg, seed ^ 1, 400, 200);
    assert_ne!(a.trace, c.trace, "another seed, another trace");
}

/// One host of 4 lanes, 2-bit tags, always ready, one-cycle latency, over 64 counter bytes.
fn small_host() -> DmaHost<HostMemory> {
    let mut m = HostMemory::new();
    m.add(0x100, 64, Fill::Counter).unwrap();
    DmaHost::new(m, Config::ideal(4, 2), 1)
}

fn read(addr: u64, len: u32, tag: u32) -> EngineOut {
    EngineOut {
        rd_req: Some(ReadRequest { addr, len, tag }),
        ..EngineOut::default()
    }
}

fn write(addr: u64, data: &[u8], keep: u64, last: bool, tag: u32) -> EngineOut {
    EngineOut {
        wr: Some(WriteBeat {
            addr,
            data: data.to_vec(),
            keep,
            last,
            tag,
        }),
        ..EngineOut::default()
    }
}

fn idle() -> EngineOut {
    EngineOut {
        rd_resp_ready: true,
        wr_cpl_ready: true,
        ..EngineOut::default()
    }
}

fn rule(r: Result<(), Violation>) -> Rule {
    r.expect_err("a violation").rule
}

#[test]
fn an_ideal_host_answers_the_cycle_after_and_back_to_back() {
    let mut h = small_host();
    assert!(h.offer().rd_req_ready);
    h.accepted(&read(0x102, 10, 3)).unwrap();
    let mut beats = Vec::new();
    for _ in 0..4 {
        let out = h.offer();
        beats.extend(out.rd_resp.clone());
        h.accepted(&idle()).unwrap();
    }
    let got: Vec<_> = beats
        .iter()
        .map(|b| (b.data.clone(), b.keep, b.last, b.tag, b.err))
        .collect();
    assert_eq!(
        got,
        [
            (vec![2, 3, 4, 5], 0xF, false, 3, false),
            (vec![6, 7, 8, 9], 0xF, false, 3, false),
            (vec![10, 11, 0, 0], 0x3, true, 3, false),
        ]
    );
    assert!(h.idle());
    // A write of 6 bytes that runs past the region completes, a cycle after its last beat,
    // with err, and writes nothing.
    h.accepted(&write(0x13E, &[0xA0, 0xA1, 0xA2, 0xA3], 0xF, false, 1))
        .unwrap();
    h.accepted(&write(0, &[0xA4, 0xA5, 0xEE, 0xEE], 0x3, true, 1))
        .unwrap();
    let c = h.offer().wr_cpl;
    assert_eq!(c, Some(WriteCompletion { tag: 1, err: true }));
    let mut b = [0u8; 2];
    h.memory().read(0x13E, &mut b).unwrap();
    assert_eq!(b, [62, 63]);
    h.accepted(&idle()).unwrap();
    let counters = h.counters();
    assert_eq!((counters.bytes_read, counters.read_beats), (10, 3));
    assert_eq!((counters.writes, counters.write_faults), (1, 1));
}

#[test]
fn a_write_lands_once_before_its_completion() {
    let mut h = small_host();
    h.accepted(&write(0x104, &[1, 2, 3, 4], 0xF, false, 0))
        .unwrap();
    h.accepted(&write(0, &[5, 6, 0, 0], 0x3, true, 0)).unwrap();
    let mut b = [0u8; 8];
    h.memory().read(0x103, &mut b).unwrap();
    assert_eq!(
        b,
        [3, 4, 5, 6, 7, 8, 9, 10],
        "not written before its latency"
    );
    assert_eq!(
        h.offer().wr_cpl,
        Some(WriteCompletion { tag: 0, err: false })
    );
    h.memory().read(0x103, &mut b).unwrap();
    assert_eq!(b, [3, 1, 2, 3, 4, 5, 6, 10]);
    // Not taken: offered again, unchanged, and not applied twice.
    h.memory_mut().write(0x104, &[0xFF]).unwrap();
    h.accepted(&EngineOut::default()).unwrap();
    assert_eq!(
        h.offer().wr_cpl,
        Some(WriteCompletion { tag: 0, err: false })
    );
    h.accepted(&idle()).unwrap();
    assert_eq!(h.offer().wr_cpl, None);
    h.memory().read(0x104, &mut b[..1]).unwrap();
    assert_eq!(b[0], 0xFF);
    assert_eq!(h.counters().bytes_written, 6);
}

#[test]
fn a_fault_answers_one_error_beat() {
    let mut h = small_host();
    h.accepted(&read(0x13F, 2, 0)).unwrap();
    let beat = h.offer().rd_resp.expect("a beat");
    assert_eq!(
        beat,
        ReadBeat {
            data: vec![0; 4],
            keep: 0,
            last: true,
            tag: 0,
            err: true
        }
    );
    h.accepted(&idle()).unwrap();
    assert_eq!(h.offer().rd_resp, None);
    assert!(h.idle());
    assert_eq!(h.counters().read_faults, 1);
}

#[test]
fn read_rules() {
    let mut h = small_host();
    h.accepted(&read(0x100, 4, 1)).unwrap();
    // Its tag stays taken until the last beat's handshake, at that same edge too.
    assert_eq!(
        rule(h.accepted(&read(0x100, 4, 1))),
        Rule::TagInUse(Port::Read, 1)
    );
    let mut e = read(0x100, 4, 1);
    e.rd_resp_ready = true;
    assert_eq!(h.offer().rd_resp.map(|b| b.last), Some(true));
    assert_eq!(rule(h.accepted(&e)), Rule::TagInUse(Port::Read, 1));
    h.accepted(&read(0x100, 4, 1)).unwrap();
    assert_eq!(
        rule(h.accepted(&read(0x100, 0, 2))),
        Rule::ReadLen { tag: 2, len: 0 }
    );
    assert_eq!(
        rule(h.accepted(&read(0x100, 4097, 2))),
        Rule::ReadLen { tag: 2, len: 4097 }
    );
    assert_eq!(
        rule(h.accepted(&read(0x100, 4, 4))),
        Rule::TagTooWide(Port::Read, 4)
    );
    // A refused request takes no tag.
    h.accepted(&read(0x100, MAX_LEN as u32, 2)).unwrap();
    assert_eq!(h.violations().len(), 5);
    assert!(h.violations().windows(2).all(|w| w[0].cycle < w[1].cycle));
}

#[test]
fn a_waiting_request_must_hold_still() {
    let cfg = Config {
        ready: 0.0,
        ..Config::ideal(4, 2)
    };
    let mut h = DmaHost::new(HostMemory::new(), cfg, 1);
    assert!(!h.offer().rd_req_ready);
    h.accepted(&read(0x100, 4, 0)).unwrap();
    h.accepted(&read(0x100, 4, 0)).unwrap();
    assert_eq!(
        rule(h.accepted(&read(0x100, 5, 0))),
        Rule::Unstable(Port::Read)
    );
    assert_eq!(
        rule(h.accepted(&EngineOut::default())),
        Rule::Unstable(Port::Read)
    );
    let w = write(0x100, &[1, 2, 3, 4], 0xF, false, 0);
    h.accepted(&w).unwrap();
    h.accepted(&w).unwrap();
    assert_eq!(
        rule(h.accepted(&write(0x100, &[1, 2, 3, 5], 0xF, false, 0))),
        Rule::Unstable(Port::Write)
    );
    h.accepted(&write(0x100, &[1, 2, 9, 9], 0x3, true, 0))
        .unwrap_err();
    // Lanes outside keep may change.
    h.accepted(&write(0x100, &[1, 2, 7, 7], 0x3, true, 0))
        .unwrap();
}

#[test]
fn write_rules() {
    let mut h = small_host();
    let full = [0u8; 4];
    assert_eq!(
        rule(h.accepted(&write(0x100, &full, 0b101, true, 0))),
        Rule::BadKeep(0b101)
    );
    assert_eq!(
        rule(h.accepted(&write(0x100, &full, 0x1F, true, 0))),
        Rule::BadKeep(0x1F)
    );
    assert_eq!(
        rule(h.accepted(&write(0x100, &full, 0, true, 0))),
        Rule::EmptyBeat
    );
    assert_eq!(
        rule(h.accepted(&write(0x100, &full, 0x7, false, 0))),
        Rule::ShortBeat(3)
    );
    h.accepted(&write(0, &full, 0xF, true, 0)).unwrap(); // ends the bad write: dropped
    h.accepted(&write(0x100, &full, 0xF, false, 1)).unwrap();
    assert_eq!(
        rule(h.accepted(&write(0, &full, 0xF, true, 2))),
        Rule::TagChanged { was: 1, tag: 2 }
    );
    h.accepted(&write(0x100, &full, 0xF, true, 3)).unwrap();
    // Tag 3 is not complete until its completion's handshake.
    assert_eq!(h.offer().wr_cpl.map(|c| c.tag), Some(3));
    assert_eq!(
        rule(h.accepted(&write(0x100, &full, 0xF, true, 3))),
        Rule::TagInUse(Port::Write, 3)
    );
    assert_eq!(
        rule(h.accepted(&write(0x100, &full, 0xF, true, 9))),
        Rule::TagTooWide(Port::Write, 9)
    );
    // 4097 bytes without last.
    let mut e = Ok(());
    for _ in 0..=MAX_LEN / 4 {
        e = e.and(h.accepted(&write(0x100, &full, 0xF, false, 0)));
    }
    assert_eq!(rule(e), Rule::WriteTooLong(0));
    assert_eq!(h.counters().writes, 1, "only the good write counts");
}
