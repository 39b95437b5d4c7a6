//! Co-simulation speed: the entropy unit driven from Rust against the same verilated model
//! driven by a plain C++ harness (`sim/cpp/entropy_unit_bench.cpp`), measured in one run.
//!
//! Goal (issue 3): the Rust harness at 1.0 or more of native C++. Both loops apply the same
//! stimulus: a new QP request every cycle, an always-ready sink, one result read per cycle.

use rocenic_sim::duts::EntropyUnit;
use rocenic_sim::harness::Sim;
use std::hint::black_box;
use std::time::Instant;

extern "C" {
    fn entropy_unit_native_bench(cycles: u64) -> u64;
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

fn rate(cycles: u64, f: fn(u64) -> u64) -> (f64, u64) {
    let t = Instant::now();
    let check = black_box(f(black_box(cycles)));
    (cycles as f64 / t.elapsed().as_secs_f64(), check)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run short then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let cycles = if quick { 20_000 } else { 3_000_000 };
    let (mut best_rust, mut best_native) = (0f64, 0f64);
    for _ in 0..if quick { 1 } else { 5 } {
        // Alternate so that both see the same machine state.
        let (r, rc) = rate(cycles, rust_harness);
        let (n, nc) = rate(cycles, native_harness);
        assert_eq!(rc, nc, "the two harnesses saw different results");
        best_rust = best_rust.max(r);
        best_native = best_native.max(n);
    }
    println!("cosim/entropy_unit: Rust harness {:.2} M cycles/s, C++ harness {:.2} M cycles/s, ratio {:.2}", best_rust / 1e6, best_native / 1e6, best_rust / best_native);
}
