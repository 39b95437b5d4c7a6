//! Rings of the WQE engine: slots, phases and fill levels at every ring size across the u32
//! index wrap, send doorbells written twice, stale or too far ahead, completion rings polled by
//! phase, send-ring addresses (docs/wqe.md).
//!
//! Each property prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::wqe::*;

#[path = "common/seeded.rs"]
mod seeded;
use seeded::config;

/// Start indices that put the wrap of 2^32 inside the test's range.
const STARTS: [u32; 4] = [0, u32::MAX - 70_000, u32::MAX - 1, 0x8000_0000 - 3];

#[test]
fn rings_of_every_size_across_the_wrap() {
    assert_eq!(Ring::new(17), None);
    assert_eq!(Ring::new(u32::MAX), None);
    for log2 in 0..=Ring::MAX_LOG2 {
        let ring = Ring::new(log2).unwrap();
        let n = 1u64 << log2;
        assert_eq!(u64::from(ring.entries()), n);
        for start in STARTS {
            // Two and a bit laps from `start`, sampled: the slot and phase against the
            // definition in u64 (no wrap), the fill level against the distance.
            let steps = (2 * n + 3).min(1 << 18);
            let stride = ((2 * n + 3) / steps).max(1);
            let mut i = 0u64;
            while i < 2 * n + 3 {
                let idx = (u64::from(start) + i) as u32;
                let abs = u64::from(start) + i;
                let abs = abs % (1 << 32);
                assert_eq!(u64::from(ring.slot(idx)), abs % n);
                assert_eq!(
                    ring.phase(idx),
                    (abs / n).is_multiple_of(2),
                    "log2 {log2} idx {idx}"
                );
                let used = ring.used(idx, start);
                assert_eq!(used, (i <= n).then_some(i as u32));
                i += stride;
            }
            // Adjacent laps have opposite phases at the same slot.
            assert_ne!(
                ring.phase(start),
                ring.phase(start.wrapping_add(ring.entries()))
            );
        }
    }
}

#[test]
fn doorbells_repeated_stale_and_too_far_ahead() {
    for log2 in 0..=Ring::MAX_LOG2 {
        let ring = Ring::new(log2).unwrap();
        let n = ring.entries();
        for start in STARTS {
            let mut db = Doorbell::new(ring, start);
            assert_eq!(db.take(), None);
            // One past the ring: refused, nothing changes.
            let far = start.wrapping_add(n).wrapping_add(1);
            assert!(matches!(
                db.write(far),
                Err(DoorbellError::TooFarAhead { .. })
            ));
            assert_eq!(db.producer(), start);
            // The whole ring at once, then the same write again, then a stale one.
            let full = start.wrapping_add(n);
            assert_eq!(db.write(full), Ok(n));
            assert_eq!(db.write(full), Ok(0));
            assert_eq!(db.write(start.wrapping_add(n / 2)), Ok(0));
            assert_eq!(db.write(start.wrapping_sub(1)), Ok(0));
            assert_eq!(db.producer(), full);
            // Take one; the producer may now move one further, not two.
            assert_eq!(db.take(), Some(start));
            assert!(db.write(full.wrapping_add(2)).is_err());
            assert_eq!(db.write(full.wrapping_add(1)), Ok(1));
            assert_eq!(db.pending(), n);
            let mut taken = 0;
            while let Some(i) = db.take() {
                assert_eq!(i, start.wrapping_add(1 + taken));
                taken += 1;
            }
            assert_eq!(taken, n);
            assert_eq!(db.consumer(), db.producer());
            // Half the index space ahead is an error, beyond it is stale.
            let c = db.consumer();
            assert!(db.write(c.wrapping_add(0x7FFF_FFFF)).is_err());
            assert_eq!(db.write(c.wrapping_add(0x8000_0000)), Ok(0));
        }
    }
}

#[test]
fn completion_ring_never_overwrites() {
    for log2 in 0..=Ring::MAX_LOG2.min(12) {
        let ring = Ring::new(log2).unwrap();
        let n = ring.entries();
        for start in STARTS {
            let start = start & !((n << 1) - 1);
            assert_eq!(CompletionRing::new(ring, start.wrapping_add(n)), None);
            if n > 1 {
                assert_eq!(CompletionRing::new(ring, start.wrapping_add(1)), None);
            }
            let mut cq = CompletionRing::new(ring, start).unwrap();
            for k in 0..n {
                let i = start.wrapping_add(k);
                assert_eq!(cq.push(), Some((i, ring.phase(i))));
            }
            assert_eq!(cq.push(), None);
            let p = cq.producer();
            assert!(cq.write_consumer(p.wrapping_add(1)).is_err());
            assert_eq!(cq.write_consumer(start.wrapping_add(1)), Ok(1));
            assert_eq!(cq.write_consumer(start.wrapping_add(1)), Ok(0));
            assert_eq!(cq.write_consumer(start), Ok(0));
            let (i, phase) = cq.push().unwrap();
            assert_eq!(i, p);
            assert_eq!(phase, !ring.phase(start), "second lap flips the phase");
            let before = cq;
            assert!(cq
                .write_consumer(cq.producer().wrapping_add(0x7FFF_FFFF))
                .is_err());
            assert_eq!(
                cq.write_consumer(cq.producer().wrapping_add(0x8000_0000)),
                Ok(0)
            );
            assert_eq!(cq, before);
            assert_eq!(cq.write_consumer(cq.producer()), Ok(n));
            assert_eq!(cq.used(), 0);
        }
    }
}

proptest! {
    #![proptest_config(config("wqe::phase_polling", 256))]

    /// The owner/phase rule end to end: the engine writes completions into a zeroed ring of
    /// 2^k entries over several laps, software polls by phase alone and reports its consumer
    /// index late, repeated or stale; software sees every completion once, in order, and the
    /// engine never overwrites one it has not been told is consumed.
    #[test]
    fn phase_polling_sees_each_completion_once(
        log2 in 0u32..=5,
        start in prop_oneof![Just(0u32), Just(u32::MAX - 40), any::<u32>()],
        steps in prop::collection::vec((any::<bool>(), 0u8..4), 1..400),
    ) {
        let ring = Ring::new(log2).unwrap();
        let n = ring.entries() as usize;
        let mut mem = vec![[0u8; CQE_BYTES]; n];
        // The first slot of an even lap, as the ring requires.
        let start = start & !((ring.entries() << 1) - 1);
        let mut cq = CompletionRing::new(ring, start).unwrap();
        let mut next_id = 0u64;
        let mut seen = 0u64;
        let mut sw_consumer = start;
        for (engine, report) in steps {
            if engine {
                if let Some((i, phase)) = cq.push() {
                    let c = Cqe { wr_id: next_id, qpn: 1, byte_len: 0, wqe_index: i,
                                  opcode: Some(Opcode::Send), status: Status::Success, phase };
                    c.encode(&mut mem[ring.slot(i) as usize]).unwrap();
                    next_id += 1;
                } else {
                    prop_assert_eq!(cq.used() as usize, n);
                }
            } else {
                let c = Cqe::decode(&mem[ring.slot(sw_consumer) as usize]).unwrap();
                if c.phase == ring.phase(sw_consumer) {
                    prop_assert_eq!(c.wr_id, seen);
                    prop_assert_eq!(c.wqe_index, sw_consumer);
                    seen += 1;
                    sw_consumer = sw_consumer.wrapping_add(1);
                } else {
                    prop_assert_eq!(seen, next_id, "a written completion went unseen");
                }
                match report {
                    0 => {}
                    1 => {
                        let freed = cq.write_consumer(sw_consumer).unwrap();
                        prop_assert_eq!(cq.consumer(), sw_consumer);
                        prop_assert!(freed as usize <= n);
                    }
                    2 => {
                        // What the engine already has, and one behind it: no change.
                        let before = cq;
                        prop_assert_eq!(cq.write_consumer(cq.consumer()), Ok(0));
                        prop_assert_eq!(cq.write_consumer(cq.consumer().wrapping_sub(1)), Ok(0));
                        prop_assert_eq!(cq, before);
                    }
                    _ => { prop_assert!(cq.write_consumer(cq.producer().wrapping_add(1)).is_err()); }
                }
            }
        }
        prop_assert!(seen <= next_id);
    }
}

#[test]
fn send_ring_slots_and_strides() {
    for log2 in 0..=Ring::MAX_LOG2 {
        let ring = Ring::new(log2).unwrap();
        for s in 0..=SendRing::MAX_STRIDE_LOG2 {
            let bytes = u64::from(ring.entries()) << (s + 6);
            assert_eq!(SendRing::new(ring, s, 32), None, "unaligned base");
            if bytes > 64 {
                // Aligned, but its last byte would be past 2^64 − 1.
                assert_eq!(SendRing::new(ring, s, (u64::MAX - bytes + 1) + 64), None);
            }
            let top = SendRing::new(ring, s, (u64::MAX - bytes + 1) & !63).unwrap();
            assert_eq!(top.bytes(), bytes);
            let sr = SendRing::new(ring, s, 0x1_0000).unwrap();
            for i in STARTS
                .iter()
                .flat_map(|&x| [x, x.wrapping_add(ring.entries() - 1)])
            {
                let off = u64::from(i % ring.entries()) * (64 << s);
                assert_eq!(sr.addr(i), 0x1_0000 + off);
                assert_eq!(top.addr(i) - top.addr(0), off);
            }
            for blocks in 1..=MAX_BLOCKS as u8 {
                let c = Control {
                    opcode: Opcode::Send,
                    flags: Flags::default(),
                    blocks,
                    nsge: 0,
                    index: 0,
                    imm: 0,
                    inline_len: 0,
                    av: false,
                    wr_id: 0,
                    mss: 0,
                    hdr_len: 0,
                };
                assert_eq!(sr.check(&c).is_ok(), u32::from(blocks) <= 1 << s);
            }
        }
        assert_eq!(SendRing::new(ring, 5, 0), None);
    }
}
