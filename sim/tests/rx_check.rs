//! The receive path's front end (rtl/rx/rx_check.sv) against model::rx::packet::classify: the
//! send engine's frames and frames built by its frame builder (every opcode the receive path
//! takes, IPv4 with any IHL and IPv6, tagged or not, up to the longest frame), each also damaged
//! in each of the ways `sim::rx::frames::damage` knows (ICRC, IPv4 header checksum, truncation,
//! pad, P_Key, TVer, other opcodes, UDP and IP lengths, fragments, IPv6 extension headers, too
//! long, ...), and frames that are not RoCEv2 (TCP and UDP over IPv4 and IPv6 with good and bad
//! checksums, ARP, runts, noise); random input gaps, descriptor back-pressure and data-path
//! pauses that fill the buffer. Every descriptor is compared with the model's field by field,
//! and what it points at is read back through the buffer's read port byte for byte.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::rx::{classify, Incoming};
use rocenic_sim::rx::check::{CheckRtl, Frame, Outcome, Rss, Traffic};
use rocenic_sim::rx::frames::{self, Shape};
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use std::collections::BTreeMap;

fn rss(rng: &mut TestRng) -> Rss {
    Rss {
        queue: rng.gen(),
        hash: rng.gen(),
        hash_type: rng.gen_range(0..32),
    }
}

/// What the model makes of a frame, for the coverage counts.
fn outcome(bytes: &[u8]) -> String {
    match classify(bytes) {
        Err(d) => format!("discard {d}"),
        Ok(Incoming::Raw { csum_ok, .. }) => format!("raw, csum_ok {csum_ok}"),
        Ok(Incoming::Roce(p)) => {
            let ext = match (p.reth.is_some(), p.deth.is_some(), p.imm.is_some()) {
                (true, _, true) => "RETH+ImmDt",
                (true, _, false) => "RETH",
                (_, true, true) => "DETH+ImmDt",
                (_, true, false) => "DETH",
                (_, _, true) => "ImmDt",
                _ => "BTH only",
            };
            format!("RoCEv2 {ext}")
        }
    }
}

fn run(name: &str, frames: &[Frame], traffic: Traffic) -> Outcome {
    let seed = traffic.seed;
    let started = std::time::Instant::now();
    let mut rtl = CheckRtl::new(name);
    // Releases before any descriptor is out free nothing.
    rtl.stray_releases(3);
    let out = rtl
        .run(frames, traffic)
        .unwrap_or_else(|e| panic!("{name}: {e} (seed {seed})"));
    assert_eq!(out.descriptors, frames.len());
    eprintln!(
        "{name}: {} frames, {} beats in, {} input stalls, at most {} frames held, {} reads, {} \
         cycles, first descriptor {} cycles after its last beat at the least, {:.1} s",
        frames.len(),
        out.in_beats,
        out.in_stalls,
        out.max_held,
        out.reads,
        out.cycles,
        out.latency,
        started.elapsed().as_secs_f64()
    );
    out
}

/// A random frame from one of the kinds, and the kind's name.
fn random_frame(rng: &mut TestRng, pool: &mut Vec<Vec<u8>>) -> (Vec<u8>, &'static str) {
    let damaged = rng.gen_bool(0.4);
    let (mut f, kind) = match rng.gen_range(0..100) {
        0..=34 => {
            // A scenario whose every QP fails at its first request sends nothing.
            while pool.is_empty() {
                *pool = frames::send_engine(rng, 40);
            }
            (pool.pop().expect("not empty"), "send engine")
        }
        35..=59 => {
            let shape = Shape::random(rng);
            (frames::roce(rng, shape), "frame builder")
        }
        60..=67 => {
            let mut shape = Shape::random(rng);
            shape.v6 = false;
            shape.payload %= 2048;
            let n = 4 * rng.gen_range(1..=10);
            let f = frames::roce(rng, shape);
            (frames::with_options(rng, &f, n), "IPv4 options")
        }
        68..=69 => (frames::pad_over_payload(rng), "pad over payload"),
        70 => (frames::longest(rng), "longest"),
        _ => return frames::raw(rng),
    };
    if damaged {
        let what = frames::damage(rng, &mut f);
        return (f, what);
    }
    (f, kind)
}

/// The mix above under input gaps, descriptor back-pressure and data-path pauses long enough
/// to fill the buffer: every descriptor and every byte read back as the model says, and every
/// kind and every verdict rx_check gives seen.
#[test]
fn random_frames() {
    let name = "rx_check_random";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut pool = Vec::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let frames: Vec<Frame> = (0..6000)
        .map(|_| {
            let (bytes, kind) = random_frame(&mut rng, &mut pool);
            *kinds.entry(kind).or_default() += 1;
            *outcomes.entry(outcome(&bytes)).or_default() += 1;
            Frame {
                bytes,
                rss: rss(&mut rng),
            }
        })
        .collect();
    let traffic = Traffic {
        idle: 0.3,
        stall: 0.3,
        pause: 0.001,
        pause_len: 4000,
        seed,
    };
    let out = run(name, &frames, traffic);
    eprintln!("{name}: kinds {kinds:?}");
    eprintln!("{name}: verdicts {outcomes:?}");
    for want in [
        "discard malformed",
        "discard icrc",
        "discard unsupported",
        "raw, csum_ok true",
        "raw, csum_ok false",
        "RoCEv2 BTH only",
        "RoCEv2 RETH",
        "RoCEv2 RETH+ImmDt",
        "RoCEv2 ImmDt",
        "RoCEv2 DETH",
        "RoCEv2 DETH+ImmDt",
    ] {
        assert!(
            outcomes.contains_key(want),
            "{name}: no frame gave {want} (seed {seed})"
        );
    }
    assert!(
        out.in_stalls > 0,
        "{name}: the buffer never filled (seed {seed})"
    );
}

/// RoCEv2 frames (IPv4 and IPv6, tagged or not, with Ethernet padding after the packet) cut at
/// every length from 0 up: the ICRC, the checksums and every header field end in every lane of
/// every beat. First 100 one-beat runts, a frame end every clock. At full rate, then under gaps
/// and back-pressure.
#[test]
fn every_length() {
    let name = "rx_check_lengths";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut frames: Vec<Frame> = (0..100)
        .map(|_| Frame {
            bytes: (0..rng.gen_range(1..=8)).map(|_| rng.gen()).collect(),
            rss: rss(&mut rng),
        })
        .collect();
    for v6 in [false, true] {
        for vlan in [false, true] {
            let shape = Shape {
                v6,
                vlan,
                opcode: 0x65,
                payload: 13,
                pad: None,
            };
            let mut f = frames::roce(&mut rng, shape);
            f.extend([0xA5; 9]);
            for n in 0..=f.len() {
                frames.push(Frame {
                    bytes: f[..n].to_vec(),
                    rss: rss(&mut rng),
                });
            }
        }
    }
    run(
        name,
        &frames,
        Traffic {
            seed,
            ..Traffic::FULL_RATE
        },
    );
    let traffic = Traffic {
        idle: 0.5,
        stall: 0.5,
        pause: 0.0,
        pause_len: 0,
        seed,
    };
    run(name, &frames, traffic);
}

/// Back-to-back frames from the send engine and the frame builder, descriptors taken at once,
/// the data path never pausing: one beat a clock goes in, the input never waits.
#[test]
fn full_rate() {
    let name = "rx_check_full_rate";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut bytes = frames::send_engine(&mut rng, 40);
    for _ in 0..200 {
        let shape = Shape::random(&mut rng);
        bytes.push(frames::roce(&mut rng, shape));
    }
    let frames: Vec<Frame> = bytes
        .into_iter()
        .map(|b| Frame {
            bytes: b,
            rss: rss(&mut rng),
        })
        .collect();
    let out = run(
        name,
        &frames,
        Traffic {
            seed,
            ..Traffic::FULL_RATE
        },
    );
    assert_eq!(out.in_stalls, 0, "{name}: the input waited (seed {seed})");
    assert_eq!(
        out.cycles,
        out.in_beats + out.latency,
        "{name}: not one beat a clock (seed {seed})"
    );
}

/// Runts and short frames back to back while the data path pauses: first 400 one-beat runts,
/// which stop the input at 256 frames held (the descriptor FIFO's depth), then a mix that fills
/// the buffer; nothing is lost.
#[test]
fn frames_held() {
    let name = "rx_check_frames_held";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let frames: Vec<Frame> = (0..1000)
        .map(|i| {
            let bytes = if i < 400 || i % 3 == 0 {
                let n = if i < 400 { 8 } else { 20 };
                (0..rng.gen_range(1..n)).map(|_| rng.gen()).collect()
            } else {
                let mut shape = Shape::random(&mut rng);
                shape.payload %= if i % 7 == 0 { 4096 } else { 64 };
                frames::roce(&mut rng, shape)
            };
            Frame {
                bytes,
                rss: rss(&mut rng),
            }
        })
        .collect();
    let traffic = Traffic {
        idle: 0.0,
        stall: 0.2,
        pause: 0.02,
        pause_len: 2000,
        seed,
    };
    let out = run(name, &frames, traffic);
    assert!(
        out.in_stalls > 0,
        "{name}: the input never waited (seed {seed})"
    );
    assert_eq!(out.max_held, 256, "{name}: frames held (seed {seed})");
}
