//! The whole WQE engine (control plane, data path, region check, frame builder, ICRC stage)
//! against the model's send engine: programmed through its registers with the model's
//! encoders, fed by host memory that answers out of order and late, its output under random
//! back-pressure; the frames (ICRC and padding included) and the completion ring must be the
//! model's, byte for byte.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::wqe::Memory;
use rocenic_sim::stream::{rng, seed};
use rocenic_sim::wqe::dp::Run;
use rocenic_sim::wqe::engine::{run, Load, Queue, Setup};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::scenario;

fn setup(r: &Run) -> Setup {
    Setup {
        nic: r.engine.nic,
        profile: r.engine.qps.profile(),
        mrs: r.mrs.clone(),
        queues: r
            .queues
            .iter()
            .map(|q| Queue {
                qpn: q.qpn,
                config: *r.engine.qps.get(q.qpn).expect("QP").config(),
                ring: q.ring,
                producer: q.posted,
            })
            .collect(),
        cq: r.cq,
        memory: r.mem.clone(),
    }
}

fn check(test: &str, wqes: usize, big: bool, faults: f64, load: Load, runs: usize) {
    let s = seed(test);
    let mut r = rng(s);
    for i in 0..runs {
        let sc = scenario(&mut r, wqes, big, faults);
        let want = sc.model();
        let what = format!("{test} run {i} (seed {s})");
        let out = match run(&setup(&sc), &load, r.gen(), 3_000_000, None) {
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

#[test]
fn random_streams_adversarial_host() {
    check(
        "wqe_engine::random_streams_adversarial_host",
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

#[test]
fn large_messages() {
    check(
        "wqe_engine::large_messages",
        30,
        true,
        0.0,
        Load::ideal(),
        3,
    );
}

#[test]
fn error_storm() {
    check(
        "wqe_engine::error_storm",
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
