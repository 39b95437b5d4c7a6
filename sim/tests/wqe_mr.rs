//! The memory-region check (rtl/wqe/wqe_mr.sv) against `model::qp::MrTable::check` of a model
//! table kept in step with the RTL's writes (`sim::wqe::mr::Mirror`), at 64 slots and at 8,
//! where random lkeys share a slot often. Seeded: `ROCENIC_SEED=N` replays a run.

use rand::Rng;
use rocenic_model::qp::{Access, MemoryRegion, Status, MAX_MSG_SIZE};
use rocenic_sim::duts::{WqeMr, WqeMr8, WqeMrPorts};
use rocenic_sim::scoreboard::Scoreboard;
use rocenic_sim::stream::TestRng;
use rocenic_sim::stream::{self, Sink};
use rocenic_sim::wqe::mr::{Answer, Lookup, Mirror, MrRtl, TableWrite, LATENCY};

const CYCLES: u64 = 300_000;
/// Probability of a table write per clock (far above what a driver does, to race lookups).
const P_WRITE: f64 = 0.15;

/// Bytes from `base` to 2^64: the longest region there (`u64::MAX` at 0, which cannot hold
/// 2^64 bytes).
fn room(base: u64) -> u64 {
    base.wrapping_neg().wrapping_sub(u64::from(base == 0))
}

/// A random region, often at the ends of the address space; now and then one the model refuses
/// to register (length 0, past 2^64).
fn region(rng: &mut TestRng) -> MemoryRegion {
    let base = match rng.gen_range(0..8) {
        0 => 0,
        1 => 1,
        2 => u64::MAX,
        3 => u64::MAX - rng.gen_range(0..0x1_0000),
        4 => 1 << 63,
        5 => rng.gen::<u64>() & !0xFFF,
        _ => rng.gen(),
    };
    let room = room(base);
    let length = match rng.gen_range(0..16) {
        0..=2 => room, // ends exactly at 2^64
        3 => 1,
        4 => u64::from(MAX_MSG_SIZE).min(room),
        5 | 6 => rng.gen_range(1..=room),
        7 => 0,
        8 if base > 1 => room + rng.gen_range(1..=base - 1), // past 2^64
        _ => rng.gen_range(1..=0x1_0000).min(room),
    };
    MemoryRegion {
        lkey: rng.gen(),
        base,
        length,
        pd: rng.gen_range(1..=3),
        access: Access::from_bits_truncate(rng.gen()),
    }
}

/// A lookup aimed at a region the table holds (most of the time) or at a random one: at its
/// edges, with lengths around 2^31, a wrong PD, wrong key bits or rights it lacks now and then.
fn lookup(rng: &mut TestRng, mirror: &Mirror, tag: u8) -> Lookup {
    let held = rng
        .gen_bool(0.85)
        .then(|| mirror.get(rng.gen_range(0..mirror.slots())).copied())
        .flatten();
    let r = held.unwrap_or_else(|| region(rng));
    let mut lkey = r.lkey;
    if rng.gen_bool(0.08) {
        lkey ^= 1 << rng.gen_range(0..32); // the key byte or the slot bits
    }
    let mut pd = r.pd;
    if rng.gen_bool(0.08) {
        pd = pd.wrapping_add(rng.gen_range(1..=3));
    }
    let access = if rng.gen_bool(0.75) {
        Access::NONE
    } else {
        Access::from_bits_truncate(rng.gen())
    };
    let fits = r.length.clamp(1, u64::from(MAX_MSG_SIZE)) as u32;
    let len = match rng.gen_range(0..16) {
        0 => 0,
        1 => MAX_MSG_SIZE,
        2 => MAX_MSG_SIZE + 1,
        3 => u32::MAX,
        4 => 1,
        5 => rng.gen_range(1..=64),
        _ => rng.gen_range(1..=fits),
    };
    // The region's end as a number, so that the edges below are exact (cast back modulo 2^64).
    let end = u128::from(r.base) + u128::from(r.length);
    let addr = match rng.gen_range(0..12) {
        0 => r.base,
        1 => r.base.wrapping_sub(1),
        2 => end.wrapping_sub(u128::from(len)) as u64, // the last range that fits
        3 => end.wrapping_sub(u128::from(len)).wrapping_add(1) as u64, // one byte past
        4 => end.wrapping_sub(1) as u64,
        // Anywhere inside, and a range inside when one fits.
        5 => r.base.wrapping_add(rng.gen_range(0..r.length.max(1))),
        6..=8 => r
            .base
            .wrapping_add(rng.gen_range(0..=r.length.saturating_sub(u64::from(len)))),
        9 => u64::MAX - rng.gen_range(0..4),
        10 => rng.gen_range(0..4),
        _ => rng.gen(),
    };
    Lookup {
        lkey,
        pd,
        addr,
        len,
        access,
        tag,
    }
}

/// A table write. With a lookup on offer, half the writes go to its slot and would change its
/// answer (free the region it reads, or put one there that holds it), so that a write in the
/// lookup's accepting clock decides between the old and the new entry.
fn table_write(rng: &mut TestRng, mirror: &Mirror, offered: Option<&Lookup>) -> TableWrite {
    let slots = mirror.slots();
    if let Some(l) = offered.filter(|_| rng.gen_bool(0.5)) {
        let slot = mirror.slot_of(l.lkey);
        let region = mirror.get(slot).is_none().then(|| MemoryRegion {
            lkey: l.lkey,
            base: l.addr,
            length: room(l.addr).min(u64::from(l.len).max(1)),
            pd: l.pd,
            access: Access::ALL,
        });
        return TableWrite { slot, region };
    }
    match rng.gen_range(0..20) {
        0..=2 => TableWrite {
            slot: rng.gen_range(0..slots),
            region: None,
        },
        // In a slot other than its lkey's: never found.
        3 => {
            let r = region(rng);
            let slot = (mirror.slot_of(r.lkey) + rng.gen_range(1..slots)) % slots;
            TableWrite {
                slot,
                region: Some(r),
            }
        }
        // A held region again, with new bounds and rights under its own lkey.
        4..=6 => {
            let slot = rng.gen_range(0..slots);
            let lkey = mirror.get(slot).map_or_else(|| rng.gen(), |r| r.lkey);
            let r = MemoryRegion {
                lkey,
                ..region(rng)
            };
            TableWrite {
                slot: mirror.slot_of(lkey),
                region: Some(r),
            }
        }
        _ => {
            let r = region(rng);
            TableWrite {
                slot: mirror.slot_of(r.lkey),
                region: Some(r),
            }
        }
    }
}

/// What a random run covered.
#[derive(Debug, Default)]
struct Covered {
    by_status: [u64; 3],
    /// Lookups whose answer the write in their own accepting clock changed.
    races: u64,
    /// Successful lookups whose range ends exactly at 2^64.
    at_top: u64,
    lookups: u64,
    writes: u64,
}

fn random_against_model<D: WqeMrPorts>(name: &str) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut rtl: MrRtl<D> = MrRtl::new(name);
    let mut mirror = Mirror::new(rtl.slots());
    // Back-pressure in phases: none, some, heavy.
    let mut sinks = [0.0, 0.3, 0.8].map(|stall| Sink::new(seed, stall));
    let mut board: Scoreboard<Answer> = Scoreboard::new(name);
    let mut offered: Option<Lookup> = None;
    let mut tag = 0u8;
    let mut cov = Covered::default();
    let fail = |what: String| -> ! { panic!("{what} (seed {seed}, ROCENIC_SEED={seed} replays)") };

    for cycle in 0..CYCLES {
        if offered.is_none() && rng.gen_bool(0.8) {
            offered = Some(lookup(&mut rng, &mirror, tag));
            tag = tag.wrapping_add(1);
        }
        let write = rng
            .gen_bool(P_WRITE)
            .then(|| table_write(&mut rng, &mirror, offered.as_ref()));
        let ready = sinks[(cycle / 3000 % 3) as usize].ready();
        let clock = rtl
            .cycle(write.as_ref(), offered.as_ref(), ready)
            .unwrap_or_else(|e| fail(format!("{name}: {e}")));
        let before = clock
            .accepted
            .then(|| mirror.check(offered.as_ref().unwrap()));
        if let Some(w) = &write {
            mirror.apply(w);
            cov.writes += 1;
        }
        if clock.accepted {
            let l = offered.take().unwrap();
            // The write of the accepting clock counts (docs/wqe-mr.md: the new entry).
            let want = mirror.check(&l);
            cov.races += u64::from(before != Some(want));
            cov.by_status[match want.status {
                Status::Success => 0,
                Status::LocLenErr => 1,
                _ => 2,
            }] += 1;
            let top = u128::from(l.addr) + u128::from(l.len) == 1 << 64;
            cov.at_top += u64::from(top && want.status == Status::Success);
            cov.lookups += 1;
            board.expect(want);
        }
        if let Some(a) = clock.answer {
            board
                .observe(a)
                .unwrap_or_else(|m| fail(format!("cycle {cycle}: {m}")));
        }
    }
    // Drain with a ready sink.
    for _ in 0..4 * LATENCY + 40 {
        let clock = rtl
            .cycle(None, None, true)
            .unwrap_or_else(|e| fail(format!("{name}: {e}")));
        if let Some(a) = clock.answer {
            board
                .observe(a)
                .unwrap_or_else(|m| fail(format!("drain: {m}")));
        }
    }
    assert_eq!(board.pending(), 0, "answers missing (seed {seed})");
    eprintln!("{name}: {cov:?}");
    let [ok, len_err, prot_err] = cov.by_status;
    let n = cov.lookups;
    assert!(n > CYCLES / 2, "too few lookups: {n}");
    assert!(
        ok > n / 16 && len_err > n / 20 && prot_err > n / 10,
        "{cov:?}"
    );
    assert!(
        cov.races > n / 100,
        "too few decisive same-clock writes: {cov:?}"
    );
    assert!(cov.at_top > 20, "too few hits ending at 2^64: {cov:?}");
}

#[test]
fn random_against_model_64_slots() {
    random_against_model::<WqeMr>("wqe_mr::random_64");
}

#[test]
fn random_against_model_8_slots() {
    random_against_model::<WqeMr8>("wqe_mr::random_8");
}

/// Stores `r` in its own slot, waiting for nothing.
fn store<D: WqeMrPorts>(rtl: &mut MrRtl<D>, mirror: &mut Mirror, r: MemoryRegion) {
    let w = TableWrite {
        slot: mirror.slot_of(r.lkey),
        region: Some(r),
    };
    rtl.cycle(Some(&w), None, true).unwrap();
    mirror.apply(&w);
}

/// Runs `lookups` back to back into an always-ready sink; returns the answers and, for each,
/// the clocks from acceptance to answer.
fn back_to_back<D: WqeMrPorts>(rtl: &mut MrRtl<D>, lookups: &[Lookup]) -> Vec<(Answer, u64)> {
    let mut accepted_at = std::collections::VecDeque::new();
    let mut out = Vec::new();
    let mut next = 0;
    let start = rtl.sim().cycle();
    while out.len() < lookups.len() {
        let now = rtl.sim().cycle();
        assert!(now - start < 4 * lookups.len() as u64 + 100, "hang");
        let clock = rtl.cycle(None, lookups.get(next), true).unwrap();
        if clock.accepted {
            accepted_at.push_back(now);
            next += 1;
        }
        if let Some(a) = clock.answer {
            out.push((a, now - accepted_at.pop_front().unwrap()));
        }
    }
    out
}

/// The model's unit-test regions and entries (model/src/qp/mr.rs), through the RTL.
#[test]
fn model_edge_cases() {
    let mut rtl: MrRtl = MrRtl::new("wqe_mr_edges");
    let mut mirror = Mirror::new(rtl.slots());
    let mr = |lkey, base, length| MemoryRegion {
        lkey,
        base,
        length,
        pd: 1,
        access: Access::LOCAL_WRITE,
    };
    store(&mut rtl, &mut mirror, mr(0x100, 0x1000, 0x1000));
    store(&mut rtl, &mut mirror, mr(0x200, 1, u64::MAX)); // ends exactly at 2^64
    store(&mut rtl, &mut mirror, mr(0x305, 0x40, 0)); // empty: never matches
    let r = Access::NONE;
    let cases = [
        (0x100, 1, 0x1000, 0x1000, r, Status::Success),
        (0x100, 1, 0x1FFF, 1, r, Status::Success),
        (
            0x100,
            1,
            0x1000,
            0x1000,
            Access::LOCAL_WRITE,
            Status::Success,
        ),
        (0x100, 1, 0x1000, 0, r, Status::LocLenErr),
        (0x100, 1, 0x1000, 1 << 31, r, Status::LocProtErr),
        (0x100, 1, 0x1000, (1 << 31) + 1, r, Status::LocLenErr),
        (0x100, 1, 0x1000, u32::MAX, r, Status::LocLenErr),
        (0x100, 1, 0x0FFF, 1, r, Status::LocProtErr),
        (0x100, 1, 0x1FFF, 2, r, Status::LocProtErr),
        (0x100, 1, 0x2000, 1, r, Status::LocProtErr),
        (0x100, 2, 0x1000, 1, r, Status::LocProtErr),
        (0x101, 1, 0x1000, 1, r, Status::LocProtErr), // same slot, other key byte
        (0x4100, 1, 0x1000, 1, r, Status::LocProtErr), // same slot, other index bits above it
        (0x100, 1, 0x1000, 1, Access::REMOTE_READ, Status::LocProtErr),
        (0x200, 1, u64::MAX, 1, r, Status::Success),
        (0x200, 1, u64::MAX, 2, r, Status::LocProtErr),
        (
            0x200,
            1,
            u64::MAX - 0x7FFF_FFFF,
            1 << 31,
            r,
            Status::Success,
        ),
        (0x200, 1, 0, 1, r, Status::LocProtErr),
        (0x305, 1, 0x40, 1, r, Status::LocProtErr),
        (0x999, 1, 0, 1, r, Status::LocProtErr), // a free slot
    ];
    let lookups: Vec<Lookup> = cases
        .iter()
        .enumerate()
        .map(|(i, &(lkey, pd, addr, len, access, _))| Lookup {
            lkey,
            pd,
            addr,
            len,
            access,
            tag: i as u8,
        })
        .collect();
    let answers = back_to_back(&mut rtl, &lookups);
    for ((l, &(.., want)), &(a, _)) in lookups.iter().zip(&cases).zip(&answers) {
        assert_eq!(mirror.check(l).status, want, "model, case {}", l.tag);
        assert_eq!(
            a,
            Answer {
                status: want,
                tag: l.tag
            },
            "RTL, {l:?}"
        );
    }
}

/// One lookup per clock, every answer exactly LATENCY clocks after its acceptance.
#[test]
fn full_rate_and_latency() {
    let seed = stream::seed("wqe_mr::full_rate");
    let mut rng = stream::rng(seed);
    let mut rtl: MrRtl = MrRtl::new("wqe_mr_full_rate");
    let mut mirror = Mirror::new(rtl.slots());
    for _ in 0..48 {
        let w = table_write(&mut rng, &mirror, None);
        rtl.cycle(Some(&w), None, true).unwrap();
        mirror.apply(&w);
    }
    let lookups: Vec<Lookup> = (0..5000)
        .map(|i| lookup(&mut rng, &mirror, i as u8))
        .collect();
    let start = rtl.sim().cycle();
    let answers = back_to_back(&mut rtl, &lookups);
    let cycles = rtl.sim().cycle() - start;
    for (l, &(a, latency)) in lookups.iter().zip(&answers) {
        assert_eq!(a, mirror.check(l), "{l:?} (seed {seed})");
        assert_eq!(latency, LATENCY, "{l:?} (seed {seed})");
    }
    assert_eq!(cycles, lookups.len() as u64 + LATENCY, "not one per clock");
}

/// A write in the clock a lookup is accepted is seen by it; one a clock later is not; and so on
/// for writes up to three clocks either side, freeing the slot or replacing the region.
#[test]
fn write_in_the_lookup_clock_wins() {
    let mut rtl: MrRtl = MrRtl::new("wqe_mr_same_clock");
    let a = MemoryRegion {
        lkey: 0x0000_0742,
        base: 0x10_0000,
        length: 0x1000,
        pd: 7,
        access: Access::NONE,
    };
    let moved = MemoryRegion {
        base: 0x20_0000,
        ..a
    };
    let slot = 7;
    let l = Lookup {
        lkey: a.lkey,
        pd: 7,
        addr: 0x10_0800,
        len: 16,
        access: Access::NONE,
        tag: 0x5A,
    };
    for replacement in [None, Some(moved)] {
        for offset in -3i64..=3 {
            rtl.reset();
            let store = TableWrite {
                slot,
                region: Some(a),
            };
            let change = TableWrite {
                slot,
                region: replacement,
            };
            rtl.cycle(Some(&store), None, true).unwrap();
            let mut answer = None;
            for t in -4i64..=LATENCY as i64 + 4 {
                let w = (t == offset).then_some(&change);
                let c = rtl.cycle(w, (t == 0).then_some(&l), true).unwrap();
                assert_eq!(c.accepted, t == 0, "clock {t}");
                answer = answer.or(c.answer);
            }
            let want = if offset <= 0 {
                Status::LocProtErr
            } else {
                Status::Success
            };
            assert_eq!(
                answer,
                Some(Answer {
                    status: want,
                    tag: 0x5A
                }),
                "write {replacement:?} at clock {offset} of the lookup's"
            );
        }
    }
}

/// Reset frees every slot.
#[test]
fn reset_frees_every_slot() {
    let mut rtl: MrRtl<WqeMr8> = MrRtl::new("wqe_mr_reset");
    let mut mirror = Mirror::new(rtl.slots());
    let lookups: Vec<Lookup> = (0..8u32)
        .map(|slot| {
            let r = MemoryRegion {
                lkey: slot << 8 | 0x33,
                base: 0x1000 * u64::from(slot),
                length: 0x1000,
                pd: 1,
                access: Access::NONE,
            };
            store(&mut rtl, &mut mirror, r);
            Lookup {
                lkey: r.lkey,
                pd: 1,
                addr: r.base,
                len: 0x1000,
                access: Access::NONE,
                tag: slot as u8,
            }
        })
        .collect();
    assert!(back_to_back(&mut rtl, &lookups)
        .iter()
        .all(|(a, _)| a.status == Status::Success));
    rtl.reset();
    assert!(back_to_back(&mut rtl, &lookups)
        .iter()
        .all(|(a, _)| a.status == Status::LocProtErr));
}
