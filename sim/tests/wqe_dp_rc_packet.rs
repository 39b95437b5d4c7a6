//! The WQE engine's data path building a requester's packets (`pick_t.rcp`) against the
//! model's `SendEngine::rc_packet`: one packet of an RC WQE per pick, at any index of its
//! message (again and in any order, as a go-back-N resend asks), with the PSN and AckReq the
//! pick gives; picks past a message's end and of WQEs that fail their checks, or that are not
//! on an RC QP, answer with the model's status. No pick may take a PSN, move a QP to ERR or
//! write a completion. Host memory answers out of order and late, the frame output and the
//! outcome port are back-pressured.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::entropy::QpType;
use rocenic_model::tso::Limits;
use rocenic_sim::stream::{rng, seed, TestRng};
use rocenic_sim::wqe::dp::{rtl_picks, Load, RcPick, Run};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::{base, post, random_wqe, scenario, QPS};

/// The packets of the WQE at `wqe` of slot `slot`: the model's count for an RC WQE that
/// passes its checks, else 1.
fn packets(run: &Run, slot: usize, wqe: u32) -> u32 {
    run.fetched_wqe(slot, wqe)
        .ok()
        .and_then(|b| run.engine.rc_prepare(run.queues[slot].qpn, &b).ok())
        .map_or(1, |w| w.packets)
}

/// A PSN anywhere, often just below the wrap.
fn psn(r: &mut TestRng) -> u32 {
    if r.gen_bool(0.3) {
        0xFF_FFFF - r.gen_range(0..4)
    } else {
        r.gen_range(0..1 << 24)
    }
}

/// Runs `picks` through the RTL and the model and compares frames, outcomes and the
/// completion ring; returns whether each pick sent its packet.
fn compare(what: &str, run: &Run, picks: &[RcPick], load: &Load, seed: u64) -> Vec<bool> {
    let mut run = run.clone();
    // The DUT is built with TSO: the model's checks must be that engine's.
    run.engine.tso = Some(Limits::default());
    let want = run.rc_model(picks);
    let (got, stats) = match rtl_picks(&run, run.rc_picks(picks), load, seed, 400_000) {
        Ok(x) => x,
        Err(e) => panic!("{what}: {e}"),
    };
    // The completion ring too: nothing may be written to it.
    got.assert_matches(what, &want);
    assert_eq!(stats.psn_takes, 0, "{what}: PSNs taken");
    assert_eq!(stats.err_sets, 0, "{what}: QPs moved to ERR");
    want.results.iter().map(|r| r.1 == 0).collect()
}

/// Random WQE streams (every opcode, inline and gathered, valid and each kind of invalid) on
/// every queue, and random picks among them (three in four on the RC queues): mostly a packet
/// inside the message, sometimes just past its end or far past it.
#[test]
fn random_picks_against_the_model() {
    let s = seed("wqe_dp_rc_packet::random_picks_against_the_model");
    let mut r = rng(s);
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.7,
        mr_latency: 1..=6,
    };
    let (mut sent, mut inside) = (0, 0);
    for i in 0..4 {
        let run = scenario(&mut r, 60, i % 2 == 1, 0.15);
        let posted: Vec<usize> = (0..run.queues.len())
            .filter(|&k| run.queues[k].posted > 0)
            .collect();
        let rc: Vec<usize> = posted
            .iter()
            .copied()
            .filter(|&k| k < QPS.len() && QPS[k].1 == QpType::Rc)
            .collect();
        let picks: Vec<RcPick> = (0..200)
            .map(|_| {
                let slot = if !rc.is_empty() && r.gen_bool(0.75) {
                    rc[r.gen_range(0..rc.len())]
                } else {
                    posted[r.gen_range(0..posted.len())]
                };
                let wqe = r.gen_range(0..run.queues[slot].posted);
                let n = packets(&run, slot, wqe);
                let packet = match r.gen_range(0..20) {
                    0 => n,
                    1 => r.gen_range(n..1 << 24),
                    _ => r.gen_range(0..n),
                };
                RcPick {
                    slot,
                    wqe,
                    packet,
                    psn: psn(&mut r),
                    ack_req: r.gen_bool(0.5),
                }
            })
            .collect();
        let ok = compare(&format!("run {i} (seed {s})"), &run, &picks, &load, r.gen());
        sent += ok.iter().filter(|&&o| o).count();
        inside += picks
            .iter()
            .zip(&ok)
            .filter(|(p, &o)| o && p.packet > 0)
            .count();
    }
    println!("{sent} of 800 picks sent a packet, {inside} of them past a message's first");
    // The run must have sent packets, and from inside messages, to have checked anything.
    assert!(sent > 100, "only {sent} picks sent a packet (seed {s})");
    assert!(
        inside > 50,
        "only {inside} packets past a first one (seed {s})"
    );
}

/// Long gathered messages on the three RC QPs (MTU 256, 1,024 and 4,096), each sent packet
/// by packet with consecutive PSNs across the wrap, then every packet again from the
/// middle (a go-back-N resend), then its packets in reverse.
#[test]
fn messages_packet_by_packet_and_again() {
    let s = seed("wqe_dp_rc_packet::messages_packet_by_packet_and_again");
    let mut r = rng(s);
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.8,
        mr_latency: 1..=3,
    };
    let mut run = base(rocenic_model::entropy::Profile::Linux);
    let rc: Vec<usize> = (0..QPS.len()).filter(|&k| QPS[k].1 == QpType::Rc).collect();
    for &k in &rc {
        for i in 0..3 {
            // A WQE that passes its checks (an entry may still run past its region).
            let qpn = run.queues[k].qpn;
            let wqe = (0..1000)
                .map(|_| random_wqe(&mut r, k, i, true, 0.0))
                .find(|w| run.engine.rc_prepare(qpn, w).is_ok())
                .expect("a valid WQE in 1,000 draws");
            post(&mut run, k, &wqe);
        }
    }
    let mut picks = Vec::new();
    for &k in &rc {
        for wqe in 0..3 {
            let n = packets(&run, k, wqe);
            let first = 0xFF_FFFF - r.gen_range(0..n.max(2));
            let at = |i: u32| RcPick {
                slot: k,
                wqe,
                packet: i,
                psn: (first + i) & 0xFF_FFFF,
                ack_req: i + 1 == n,
            };
            picks.extend((0..n).map(at));
            picks.extend((n / 2..n).map(at));
            picks.extend((0..n).rev().map(at));
        }
    }
    let ok = compare(&format!("seed {s}"), &run, &picks, &load, r.gen());
    assert!(
        ok.iter().all(|&o| o),
        "every packet of a valid message is sent (seed {s})"
    );
}
