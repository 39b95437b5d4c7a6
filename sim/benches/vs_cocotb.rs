//! The Rust half of `make bench-cocotb`: the entropy unit's random back-pressure check, timed,
//! and the vectors the cocotb half (sim/cocotb/entropy_unit/) checks the same way.
//!
//! Both halves take the same requests with the same expected results (the model's), offer a
//! request with probability 0.7 a cycle and hold the sink ready with probability 0.7, check
//! every result in order, and report simulated cycles per wall-clock second. Writes
//! `target/cocotb/entropy_unit.csv` (one request and its expected result per row) and
//! `target/cocotb/rust.txt` (the rate).

use rand::Rng;
use rocenic_model::entropy::{Profile, Request};
use rocenic_sim::entropy::{encode, random_request, EntropyRtl, Traffic};
use rocenic_sim::scoreboard::Scoreboard;
use rocenic_sim::stream;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// Requests per run.
const REQUESTS: usize = 20_000;
/// Probability that the source waits a cycle, and that the sink stalls one.
const IDLE: f64 = 0.3;
const STALL: f64 = 0.3;
/// Times the Rust half runs the check.
const REPEAT: usize = 50;

fn requests(seed: u64) -> Vec<(Profile, Request)> {
    let mut rng = stream::rng(seed);
    (0..REQUESTS)
        .map(|_| (Profile::ALL[rng.gen_range(0..4)], random_request(&mut rng)))
        .collect()
}

fn main() {
    let seed = stream::seed("vs_cocotb");
    let reqs = requests(seed);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/cocotb");
    std::fs::create_dir_all(&dir).expect("target/cocotb");
    let mut csv =
        String::from("mode,profile,qp_type,lqpn,rqpn,fl,src_port,dst_port,flow_label,udp_sport\n");
    let mut expected = Vec::with_capacity(REQUESTS);
    for (i, (p, r)) in reqs.iter().enumerate() {
        let e = p.compute(r);
        let q = encode(i, *p, r).expect("QPNs within 24 bits");
        writeln!(
            csv,
            "{},{},{},{},{},{},{},{},{},{}",
            q.mode,
            q.profile,
            q.qp_type,
            q.lqpn,
            q.rqpn,
            q.fl,
            q.src_port,
            q.dst_port,
            e.flow_label,
            e.udp_sport
        )
        .expect("write to a String");
        expected.push(e);
    }
    std::fs::write(dir.join("entropy_unit.csv"), csv).expect("write the vectors");

    // The Rust run is short: repeat it on fresh models and take the total, so that the rate is
    // not a few milliseconds' measurement.
    let (mut cycles, mut secs) = (0u64, 0f64);
    for _ in 0..REPEAT {
        let mut board = Scoreboard::new("vs_cocotb");
        for e in &expected {
            board.expect(*e);
        }
        let mut rtl: EntropyRtl = EntropyRtl::new("vs_cocotb");
        let start = rtl.sim().cycle();
        let t = Instant::now();
        let mut mismatch = None;
        rtl.run(
            &reqs,
            Traffic {
                idle: IDLE,
                stall: STALL,
                seed,
            },
            |_, e| {
                if let Err(m) = board.observe(e) {
                    mismatch.get_or_insert(m);
                }
            },
        )
        .unwrap_or_else(|e| panic!("{e} (seed {seed})"));
        secs += t.elapsed().as_secs_f64();
        if let Some(m) = mismatch {
            panic!("{m} (seed {seed})");
        }
        assert_eq!(board.matched(), REQUESTS as u64);
        cycles += rtl.sim().cycle() - start;
    }
    println!(
        "vs_cocotb/rust: {REQUESTS} requests checked {REPEAT} times in {cycles} cycles, {secs:.3} s: {:.3} M cycles/s",
        cycles as f64 / secs / 1e6
    );
    std::fs::write(dir.join("rust.txt"), format!("{cycles} {secs}\n")).expect("write the rate");
}
