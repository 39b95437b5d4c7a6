//! The RC timers in ticks (rtl/rc/rc_timer.sv) against `model::rc::Scale`: every ACK timeout and
//! every RNR delay (the 32 codes of each) at the scales of 125 MHz, 250 MHz and 1 GHz clocks, the
//! bench's scales of 1 to 4 ticks, the largest scale, 0 and random ones, then random requests, each
//! with random gaps on the input and back-pressure on the answers, which must come in order and
//! hold while they wait. Seeded: `ROCENIC_SEED=N` replays a run.

use rand::Rng;
use rocenic_model::rc::Scale;
use rocenic_sim::duts::{RcTimer, RcTimerPorts};
use rocenic_sim::harness::Sim;
use rocenic_sim::rc::timer::{drive, Request};
use rocenic_sim::stream;
use rocenic_sim::stream::Held;
use std::collections::VecDeque;

/// Runs `requests` through the block at `scale`, checking every answer against the model.
fn run(sim: &mut Sim<RcTimer>, rng: &mut impl Rng, scale: u64, requests: &[Request], seed: u64) {
    sim.dut.set_cfg_scale(scale as u16);
    let mut todo = requests.iter().copied();
    let mut offer = todo.next();
    let mut waiting: VecDeque<Request> = VecDeque::new();
    let mut held: Held<u64> = Held::default();
    let mut cycles = 0u64;
    while offer.is_some() || !waiting.is_empty() {
        cycles += 1;
        assert!(
            cycles < 100 * requests.len() as u64 + 100,
            "no progress (seed {seed})"
        );
        let gap = rng.gen_bool(0.3);
        let ready = rng.gen_bool(0.6);
        drive(&mut sim.dut, offer.filter(|_| !gap), ready);
        sim.settle();
        if RcTimerPorts::m_valid(&sim.dut) {
            let got = sim.dut.m_ticks();
            held.offer(got, ready)
                .unwrap_or_else(|e| panic!("scale {scale}: {e} (seed {seed})"));
            if ready {
                let r = waiting.pop_front().expect("an answer with no request");
                assert_eq!(
                    got,
                    r.ticks(Scale(scale)),
                    "scale {scale}: {r:?} (seed {seed})"
                );
            }
        } else {
            held.idle();
        }
        if RcTimerPorts::s_ready(&sim.dut) && !gap {
            if let Some(r) = offer.take() {
                waiting.push_back(r);
                offer = todo.next();
            }
        }
        sim.step();
    }
}

#[test]
fn against_the_model() {
    let seed = stream::seed("rc_timer::against_the_model");
    let mut rng = stream::rng(seed);
    let mut sim: Sim<RcTimer> = Sim::new("rc_timer");
    drive(&mut sim.dut, None, false);
    sim.reset(4);
    let every: Vec<Request> = (0..32)
        .flat_map(|c| [Request::AckTimeout(c), Request::RnrDelay(c)])
        .collect();
    let mut scales = vec![
        Scale::from_mhz(125).0,
        Scale::from_mhz(250).0,
        Scale::from_mhz(1000).0,
        1,
        2,
        3,
        4,
        0xFFFF,
        // Not a clock's (from_mhz gives 1 at least), but the block must agree: an RNR delay
        // is one tick at least.
        0,
    ];
    scales.extend((0..24).map(|_| rng.gen_range(1..=0xFFFF)));
    for &scale in &scales {
        run(&mut sim, &mut rng, scale, &every, seed);
    }
    // Random requests, the scale changing between runs (with nothing in the block).
    for _ in 0..50 {
        let scale = scales[rng.gen_range(0..scales.len())];
        let requests: Vec<Request> = (0..rng.gen_range(1..200))
            .map(|_| {
                let c = rng.gen_range(0..32);
                if rng.gen_bool(0.5) {
                    Request::AckTimeout(c)
                } else {
                    Request::RnrDelay(c)
                }
            })
            .collect();
        run(&mut sim, &mut rng, scale, &requests, seed);
    }
    eprintln!("rc_timer: seed {seed}: {} scales checked", scales.len());
}
