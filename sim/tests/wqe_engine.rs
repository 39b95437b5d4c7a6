//! The whole WQE engine (control plane, data path, region check, frame builder, ICRC stage)
//! against the model's send engine: programmed through its registers with the model's
//! encoders, fed by host memory that answers out of order and late, its output under random
//! back-pressure; the frames (ICRC and padding included) and the completion ring must be the
//! model's, byte for byte. Each scenario runs on the default build (64 QP slots, 64 regions,
//! TSO) and on the ECP5-25F build (16 and 16, no TSO: `wqe_engine:QPS=16,MRS=16` in fpga.mk);
//! the model has TSO exactly when the build does (`CAPS.TSO`), so the same TSO work requests
//! are segmented on one and refused on the other.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::wqe::Memory;
use rocenic_sim::duts::{WqeEngine, WqeEngine16, WqeEnginePorts};
use rocenic_sim::stream::{rng, seed};
use rocenic_sim::wqe::engine::{run_on, tso_of, Load, Setup};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::scenario;

fn check<D: WqeEnginePorts>(
    test: &str,
    wqes: usize,
    big: bool,
    faults: f64,
    load: Load,
    runs: usize,
) {
    let s = seed(test);
    let mut r = rng(s);
    let tso = tso_of::<D>().expect("CAPS");
    for i in 0..runs {
        let mut sc = scenario(&mut r, wqes, big, faults);
        sc.engine.tso = tso;
        let want = sc.model();
        let what = format!("{test} run {i} (seed {s})");
        let out = match run_on::<D>(&Setup::from(&sc), &load, r.gen(), 3_000_000, None) {
            Ok(o) => o,
            Err(e) => panic!("{what}: {e}"),
        };
        assert_eq!(out.frames.len(), want.frames.len(), "{what}: frame count");
        for (n, (g, w)) in out.frames.iter().zip(&want.frames).enumerate() {
            assert_eq!(g, w, "{what}: frame {n}");
        }
        let mut cq = vec![0u8; want.cq.len()];
        out.memory.read(sc.cq.0, &mut cq).unwrap();
        assert_eq!(cq, want.cq, "{what}: completion ring");
        eprintln!(
            "{what}: {} frames in {} cycles",
            out.frames.len(),
            out.cycles
        );
    }
}

/// Four runs of 100 random WQEs, a host up to 200 cycles late and out of order, back-pressure.
fn random_streams_adversarial_host_on<D: WqeEnginePorts>(test: &str) {
    check::<D>(
        test,
        100,
        false,
        0.1,
        Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.7,
            axil_delay: 0.3,
        },
        4,
    );
}

/// Three runs of 30 WQEs of up to 12 KiB per entry, an ideal host.
fn large_messages_on<D: WqeEnginePorts>(test: &str) {
    check::<D>(test, 30, true, 0.0, Load::ideal(), 3);
}

/// Twenty runs of 12 WQEs, each kind of fault at its full rate.
fn error_storm_on<D: WqeEnginePorts>(test: &str) {
    check::<D>(
        test,
        12,
        false,
        1.0,
        Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.8,
            axil_delay: 0.0,
        },
        20,
    );
}

#[test]
fn random_streams_adversarial_host() {
    random_streams_adversarial_host_on::<WqeEngine>("wqe_engine::random_streams_adversarial_host");
}

#[test]
fn large_messages() {
    large_messages_on::<WqeEngine>("wqe_engine::large_messages");
}

#[test]
fn error_storm() {
    error_storm_on::<WqeEngine>("wqe_engine::error_storm");
}

#[test]
fn qps16_random_streams_adversarial_host() {
    random_streams_adversarial_host_on::<WqeEngine16>(
        "wqe_engine::qps16_random_streams_adversarial_host",
    );
}

#[test]
fn qps16_large_messages() {
    large_messages_on::<WqeEngine16>("wqe_engine::qps16_large_messages");
}

#[test]
fn qps16_error_storm() {
    error_storm_on::<WqeEngine16>("wqe_engine::qps16_error_storm");
}
