//! Co-simulation speed: each pipeline driven from Rust against the same verilated model driven
//! by a plain C++ harness (`sim/cpp/<dut>_bench.cpp`), with the same stimulus, in one run.
//!
//! Goal: the Rust harness at 1.0 or more of native C++, for every pipeline. The entropy unit
//! gets a new QP request every cycle; the RSS pipeline frames back to back; the TSO segmenter
//! 64 KiB sends at MSS 1448; every sink always ready. The WQE engine's stimulus is a host
//! memory behind DMA and a register master, so both loops replay the inputs recorded from a
//! run of the whole Rust bench (`sim::wqe::replay`): 4 KiB RC SENDs, the host ideal.

use rocenic_sim::axis::{beats, Beat};
use rocenic_sim::duts::{EntropyUnit, RssPipeline64, Tso64};
use rocenic_sim::harness::Sim;
use rocenic_sim::rss::frames;
use rocenic_sim::stream;
use rocenic_sim::wqe::engine::{run_recorded, Load, Setup};
use rocenic_sim::wqe::replay::{replay, EngineInputs};
use rocenic_sim::wqe::scenario::sends;
use std::hint::black_box;
use std::time::Instant;

extern "C" {
    fn entropy_unit_native_bench(cycles: u64) -> u64;
    fn rss_pipeline_64_native_bench(
        data: *const u64,
        keep: *const u8,
        last: *const u8,
        user: *const u8,
        beats: usize,
        cycles: u64,
    ) -> u64;
    fn tso_64_native_bench(
        desc: *const u32,
        sends: usize,
        data: *const u64,
        keep: *const u8,
        last: *const u8,
        beats: usize,
        cycles: u64,
    ) -> u64;
    fn wqe_engine_native_replay(inputs: *const EngineInputs, n: usize, beats: *mut u64) -> u64;
}

fn rust_harness(cycles: u64) -> u64 {
    let mut sim: Sim<EntropyUnit> = Sim::with_trace("bench", false);
    sim.reset(4);
    sim.dut.set_m_res_ready(1);
    let (mut check, mut q) = (0u64, 1u32);
    for _ in 0..cycles {
        q = q.wrapping_mul(1_103_515_245).wrapping_add(12_345) & 0xFF_FFFF;
        let d = &mut sim.dut;
        d.set_s_req_valid(1);
        d.set_s_req_mode(0);
        d.set_s_req_profile(0);
        d.set_s_req_qp_type(0);
        d.set_s_req_lqpn(q);
        d.set_s_req_rqpn(q ^ 0x5A_5A5A);
        d.set_s_req_fl(0);
        d.set_s_req_src_port(0);
        d.set_s_req_dst_port(0);
        if d.m_res_valid() == 1 {
            check += u64::from(d.m_res_udp_sport());
        }
        sim.step();
    }
    check
}

fn native_harness(cycles: u64) -> u64 {
    // SAFETY: a self-contained C++ function taking and returning plain integers.
    unsafe { entropy_unit_native_bench(cycles) }
}

/// The index after `i` in a stream of `n` items repeated from its start, if item `i` was taken
/// (`bench_next` in sim/cpp/bench.h).
fn next(i: usize, taken: bool, n: usize) -> usize {
    match (taken, i + 1 == n) {
        (false, _) => i,
        (true, true) => 0,
        (true, false) => i + 1,
    }
}

/// A stream of 64-bit beats as the C++ harnesses take it: one array per signal.
#[derive(Default)]
struct Lanes {
    data: Vec<u64>,
    keep: Vec<u8>,
    last: Vec<u8>,
    user: Vec<u8>,
}

impl Lanes {
    fn push(&mut self, beat: &Beat) {
        self.data.push(u64::from_le_bytes(
            beat.data[..8].try_into().expect("64-bit beats"),
        ));
        self.keep.push(((1u16 << beat.keep) - 1) as u8);
        self.last.push(u8::from(beat.last));
        self.user.push(u8::from(beat.user));
    }
}

/// 64 frames of the RSS tests' traffic (Ethernet and InfiniBand, every kind the parser knows),
/// as 64-bit beats.
fn rss_stimulus() -> Lanes {
    let mut rng = stream::rng(1);
    let mut lanes = Lanes::default();
    for i in 0..64 {
        let (ib, frame) = if i % 4 == 3 {
            (true, frames::infiniband(&mut rng))
        } else {
            (false, frames::ethernet(&mut rng))
        };
        for beat in beats(&frame, 8, ib) {
            lanes.push(&beat);
        }
    }
    lanes
}

fn rss_rust(lanes: &Lanes, cycles: u64) -> u64 {
    let mut sim: Sim<RssPipeline64> = Sim::with_trace("bench", false);
    sim.reset(4);
    sim.dut.set_m_axis_tready(1);
    let (mut check, mut i) = (0u64, 0usize);
    for _ in 0..cycles {
        let d = &mut sim.dut;
        d.set_s_axis_tvalid(1);
        d.set_s_axis_tdata(lanes.data[i]);
        d.set_s_axis_tkeep(lanes.keep[i]);
        d.set_s_axis_tlast(lanes.last[i]);
        d.set_s_axis_tuser(lanes.user[i]);
        if d.m_axis_tvalid() == 1 {
            check += u64::from(d.m_axis_tkeep());
            if d.m_axis_tlast() == 1 {
                check += u64::from(d.m_meta_hash()) + u64::from(d.m_meta_queue());
            }
        }
        let take = d.s_axis_tready() == 1;
        sim.step();
        i = next(i, take, lanes.data.len());
    }
    check
}

fn rss_native(lanes: &Lanes, cycles: u64) -> u64 {
    // SAFETY: the arrays live for the call and each holds `beats` entries.
    unsafe {
        rss_pipeline_64_native_bench(
            lanes.data.as_ptr(),
            lanes.keep.as_ptr(),
            lanes.last.as_ptr(),
            lanes.user.as_ptr(),
            lanes.data.len(),
            cycles,
        )
    }
}

/// Sends for the TSO segmenter: descriptors (header length, MSS, payload length, IPoIB) and
/// their data beats, in step.
struct TsoStimulus {
    desc: Vec<u32>,
    lanes: Lanes,
}

/// Four 64 KiB sends at MSS 1448 behind an Ethernet, IPv4 and TCP (timestamps) header.
fn tso_stimulus() -> TsoStimulus {
    let mut header = [0u8; 14 + 20 + 32];
    header[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    header[14] = 0x45;
    header[22] = 64;
    header[23] = 6;
    header[26..30].copy_from_slice(&[10, 0, 0, 1]);
    header[30..34].copy_from_slice(&[10, 0, 0, 2]);
    header[46] = 0x80;
    header[47] = 0x18;
    let mut s = TsoStimulus {
        desc: Vec::new(),
        lanes: Lanes::default(),
    };
    for k in 0..4u32 {
        let payload: Vec<u8> = (0..65536u32).map(|i| (i + k) as u8).collect();
        s.desc
            .extend([header.len() as u32, 1448, payload.len() as u32, 0]);
        for beat in beats(&[&header[..], &payload].concat(), 8, false) {
            s.lanes.push(&beat);
        }
    }
    s
}

fn tso_rust(s: &TsoStimulus, cycles: u64) -> u64 {
    let mut sim: Sim<Tso64> = Sim::with_trace("bench", false);
    sim.reset(4);
    sim.dut.set_m_axis_tready(1);
    sim.dut.set_m_sts_ready(1);
    let (mut check, mut d_at, mut b_at) = (0u64, 0usize, 0usize);
    let sends = s.desc.len() / 4;
    for _ in 0..cycles {
        let d = &mut sim.dut;
        d.set_s_desc_valid(1);
        d.set_s_desc_hdr_len(s.desc[4 * d_at] as u16);
        d.set_s_desc_mss(s.desc[4 * d_at + 1] as u16);
        d.set_s_desc_len(s.desc[4 * d_at + 2]);
        d.set_s_desc_ipoib(s.desc[4 * d_at + 3] as u8);
        d.set_s_axis_tvalid(1);
        d.set_s_axis_tdata(s.lanes.data[b_at]);
        d.set_s_axis_tkeep(s.lanes.keep[b_at]);
        d.set_s_axis_tlast(s.lanes.last[b_at]);
        if d.m_axis_tvalid() == 1 {
            check += u64::from(d.m_axis_tkeep());
        }
        if d.m_sts_valid() == 1 {
            check += u64::from(d.m_sts_segments());
        }
        let take_desc = d.s_desc_ready() == 1;
        let take_beat = d.s_axis_tready() == 1;
        sim.step();
        d_at = next(d_at, take_desc, sends);
        b_at = next(b_at, take_beat, s.lanes.data.len());
    }
    check
}

fn tso_native(s: &TsoStimulus, cycles: u64) -> u64 {
    // SAFETY: the arrays live for the call; `desc` holds 4 words a send, the others `beats`.
    unsafe {
        tso_64_native_bench(
            s.desc.as_ptr(),
            s.desc.len() / 4,
            s.lanes.data.as_ptr(),
            s.lanes.keep.as_ptr(),
            s.lanes.last.as_ptr(),
            s.lanes.data.len(),
            cycles,
        )
    }
}

/// The recording `inputs` replayed `cycles / inputs.len()` times (at least once), each time
/// into a fresh model; the checksums of all, with the beats taken.
fn wqe_rust(inputs: &[EngineInputs], cycles: u64) -> u64 {
    let mut check = 0u64;
    for _ in 0..(cycles / inputs.len() as u64).max(1) {
        let seen = replay(inputs);
        check = check.wrapping_add(seen.check).wrapping_add(seen.beats);
    }
    check
}

fn wqe_native(inputs: &[EngineInputs], cycles: u64) -> u64 {
    let mut check = 0u64;
    for _ in 0..(cycles / inputs.len() as u64).max(1) {
        let mut beats = 0u64;
        // SAFETY: `inputs` lives for the call and holds `len` records of the C++ layout
        // (`repr(C)`); `beats` is a live u64.
        let sum = unsafe { wqe_engine_native_replay(inputs.as_ptr(), inputs.len(), &mut beats) };
        check = check.wrapping_add(sum).wrapping_add(beats);
    }
    check
}

fn rate(cycles: u64, f: impl Fn(u64) -> u64) -> (f64, u64) {
    let t = Instant::now();
    let check = black_box(f(black_box(cycles)));
    (cycles as f64 / t.elapsed().as_secs_f64(), check)
}

/// Both harnesses, alternated `rounds` times so that both see the same machine state; the best
/// rate of each, and their ratio.
fn compare(
    name: &str,
    cycles: u64,
    rounds: usize,
    rust: impl Fn(u64) -> u64,
    native: impl Fn(u64) -> u64,
) {
    let (mut best_rust, mut best_native) = (0f64, 0f64);
    for _ in 0..rounds {
        let (r, rc) = rate(cycles, &rust);
        let (n, nc) = rate(cycles, &native);
        assert_eq!(rc, nc, "{name}: the two harnesses saw different results");
        assert_ne!(rc, 0, "{name}: the outputs were never seen");
        best_rust = best_rust.max(r);
        best_native = best_native.max(n);
    }
    println!(
        "cosim/{name}: Rust harness {:.2} M cycles/s, C++ harness {:.2} M cycles/s, ratio {:.2}",
        best_rust / 1e6,
        best_native / 1e6,
        best_rust / best_native
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run short then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let (scale, rounds) = if quick { (1, 1) } else { (100, 5) };
    compare(
        "entropy_unit",
        30_000 * scale,
        rounds,
        rust_harness,
        native_harness,
    );
    let rss = rss_stimulus();
    compare(
        "rss_pipeline_64",
        10_000 * scale,
        rounds,
        |c| rss_rust(&rss, c),
        |c| rss_native(&rss, c),
    );
    let tso = tso_stimulus();
    compare(
        "tso_64",
        10_000 * scale,
        rounds,
        |c| tso_rust(&tso, c),
        |c| tso_native(&tso, c),
    );
    // The WQE engine: a run of the whole bench recorded, then replayed by both loops. The
    // replay must reproduce the run: the same output beats.
    let run = sends(3, if quick { 4 } else { 16 }, 4096);
    let (out, inputs) =
        run_recorded(&Setup::from(&run), &Load::ideal(), 1, 10_000_000).expect("4 KiB sends");
    assert_eq!(
        replay(&inputs).beats,
        out.beats,
        "the replay reproduces the run"
    );
    let n = inputs.len() as u64;
    compare(
        "wqe_engine (replayed)",
        n * if quick { 1 } else { 10 },
        rounds,
        |c| wqe_rust(&inputs, c),
        |c| wqe_native(&inputs, c),
    );
}
