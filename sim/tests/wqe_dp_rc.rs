//! The WQE engine's data path answering a requester's picks (`pick_t.rcp`) as the model does.
//! A packet pick builds one packet of an RC WQE (`SendEngine::rc_packet`), at any index of its
//! message (again and in any order, as a go-back-N resend asks), with the PSN and AckReq the
//! pick gives; picks past a message's end and of WQEs that fail their checks, or that are not
//! on an RC QP, answer with the model's status. A prepare pick checks a WQE and counts its
//! packets for the requester's POST (`SendEngine::rc_fetch_prepare`), sending nothing. No pick
//! may take a PSN, move a QP to ERR or write a completion. Host memory answers out of order
//! and late, the frame output and the answer port are back-pressured.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::entropy::QpType;
use rocenic_model::tso::Limits;
use rocenic_sim::stream::{rng, seed, TestRng};
use rocenic_sim::wqe::dp::{rtl_picks, Load, RcAnswer, RcAsk, RcPick, Run};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::{base, post, random_wqe, scenario, wqe_bytes, QPS};

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

/// Runs `picks` through the RTL and the model and compares frames, answers and the
/// completion ring; returns the answers.
fn compare(what: &str, run: &Run, picks: &[RcPick], load: &Load, seed: u64) -> Vec<RcAnswer> {
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
    want.results
}

/// Whether each answer is a packet sent.
fn packets_sent(answers: &[RcAnswer]) -> Vec<bool> {
    answers
        .iter()
        .map(|a| matches!(a, RcAnswer::Packet(_, 0)))
        .collect()
}

/// Random WQE streams (every opcode, inline and gathered, valid and each kind of invalid) on
/// every queue, and random picks among them (three in four on the RC queues): mostly a packet
/// inside the message, sometimes just past its end or far past it.
#[test]
fn random_picks_against_the_model() {
    let s = seed("wqe_dp_rc::random_picks_against_the_model");
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
                let index = match r.gen_range(0..20) {
                    0 => n,
                    1 => r.gen_range(n..1 << 24),
                    _ => r.gen_range(0..n),
                };
                RcPick {
                    slot,
                    wqe,
                    ask: RcAsk::Packet {
                        index,
                        psn: psn(&mut r),
                        ack_req: r.gen_bool(0.5),
                    },
                }
            })
            .collect();
        let ok = packets_sent(&compare(
            &format!("run {i} (seed {s})"),
            &run,
            &picks,
            &load,
            r.gen(),
        ));
        sent += ok.iter().filter(|&&o| o).count();
        inside += picks
            .iter()
            .zip(&ok)
            .filter(|(p, &o)| o && !matches!(p.ask, RcAsk::Packet { index: 0, .. }))
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
    let s = seed("wqe_dp_rc::messages_packet_by_packet_and_again");
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
                ask: RcAsk::Packet {
                    index: i,
                    psn: (first + i) & 0xFF_FFFF,
                    ack_req: i + 1 == n,
                },
            };
            picks.extend((0..n).map(at));
            picks.extend((n / 2..n).map(at));
            picks.extend((0..n).rev().map(at));
        }
    }
    let ok = packets_sent(&compare(&format!("seed {s}"), &run, &picks, &load, r.gen()));
    assert!(
        ok.iter().all(|&o| o),
        "every packet of a valid message is sent (seed {s})"
    );
}

/// Prepare picks (the requester's POST) of every WQE of random streams on every queue (every
/// opcode, inline and gathered, valid and each kind of invalid, UD and raw QPs' too), in a
/// random order and some twice, mixed with packet picks of the RC queues' WQEs: each must
/// answer the model's status, packet count, SIGNALED flag and completion, and send nothing
/// of its own.
#[test]
fn prepare_picks_against_the_model() {
    let s = seed("wqe_dp_rc::prepare_picks_against_the_model");
    let mut r = rng(s);
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.7,
        mr_latency: 1..=6,
    };
    // (prepared and passed with more than one packet, signaled, unsignaled; refused, by status)
    let (mut multi, mut signaled, mut unsignaled) = (0, 0, 0);
    let mut refused = std::collections::BTreeMap::new();
    let mut packets_sent = 0;
    for i in 0..8 {
        let run = scenario(&mut r, 60, i % 2 == 1, 0.15);
        let mut picks: Vec<RcPick> = (0..run.queues.len())
            .flat_map(|k| (0..run.queues[k].posted).map(move |w| (k, w)))
            .flat_map(|(slot, wqe)| {
                let twice = r.gen_bool(0.1);
                let p = RcPick {
                    slot,
                    wqe,
                    ask: RcAsk::Prepare,
                };
                std::iter::repeat_n(p, 1 + usize::from(twice))
            })
            .collect();
        // Packet picks of the RC queues' WQEs among them: a prepare pick must leave the FIFOs
        // as a packet pick finds them.
        let rc: Vec<usize> = (0..run.queues.len())
            .filter(|&k| run.queues[k].posted > 0 && k < QPS.len() && QPS[k].1 == QpType::Rc)
            .collect();
        for _ in 0..if rc.is_empty() { 0 } else { picks.len() / 3 } {
            let slot = rc[r.gen_range(0..rc.len())];
            let wqe = r.gen_range(0..run.queues[slot].posted);
            let n = packets(&run, slot, wqe);
            picks.push(RcPick {
                slot,
                wqe,
                ask: RcAsk::Packet {
                    index: r.gen_range(0..n),
                    psn: psn(&mut r),
                    ack_req: r.gen_bool(0.5),
                },
            });
        }
        // A random order.
        for j in (1..picks.len()).rev() {
            picks.swap(j, r.gen_range(0..=j));
        }
        let answers = compare(&format!("run {i} (seed {s})"), &run, &picks, &load, r.gen());
        for a in &answers {
            match a {
                RcAnswer::Prepared(_, Ok(w)) => {
                    multi += usize::from(w.packets > 1);
                    if w.signaled {
                        signaled += 1;
                    } else {
                        unsignaled += 1;
                    }
                }
                RcAnswer::Prepared(_, Err(c)) => *refused.entry(c.status.code()).or_insert(0) += 1,
                RcAnswer::Packet(_, st) => packets_sent += usize::from(*st == 0),
            }
        }
    }
    println!(
        "prepared: {multi} of several packets, {signaled} signaled, {unsignaled} not; refused by \
         status code: {refused:?}; {packets_sent} packets sent among them"
    );
    // Enough of each kind of answer to have checked it.
    assert!(
        multi > 40,
        "only {multi} WQEs of several packets (seed {s})"
    );
    assert!(
        signaled > 60 && unsignaled > 20,
        "signaled {signaled}, not {unsignaled} (seed {s})"
    );
    assert!(
        refused.len() >= 3,
        "refusals of only {refused:?} (seed {s})"
    );
    assert!(
        packets_sent > 60,
        "only {packets_sent} packets sent (seed {s})"
    );
}

/// Prepare picks of WQEs that cannot be read whole (a slot whose host memory ends inside its
/// first block, after it, or that has none: `general_err` from what was read), of an RDMA READ (refused:
/// this engine has no READ) and of a UD QP's SEND (not an RC send), each with a packet pick of
/// the same WQE (refused alike) and followed by a valid WQE's prepare on the same queue.
#[test]
fn prepare_picks_of_unreadable_and_refused_wqes() {
    use rocenic_model::wqe::memory::Fill;
    use rocenic_model::wqe::{Memory, Opcode, Ring, SendRing, Status};
    let s = seed("wqe_dp_rc::prepare_picks_of_unreadable_and_refused_wqes");
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.8,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    for (k, opcode, backed, want) in [
        (0usize, Opcode::RdmaWrite, 32usize, Status::GeneralErr),
        (0, Opcode::Send, 0, Status::GeneralErr),
        (2, Opcode::SendImm, 64, Status::GeneralErr),
        (0, Opcode::RdmaRead, 128, Status::LocQpOpErr),
        (2, Opcode::Send, 128, Status::LocQpOpErr),
    ] {
        let mut run = base(rocenic_model::entropy::Profile::Linux);
        let at = 0x40_0000u64;
        if backed > 0 {
            run.mem.add(at, backed, Fill::Zero).unwrap();
        }
        run.mem.add(at + 128, 128, Fill::Zero).unwrap();
        // A ring of two slots of two blocks: slot 0 is the one under test, slot 1 valid.
        run.queues[k].ring = SendRing::new(Ring::new(1).unwrap(), 1, at).unwrap();
        let first = wqe_bytes(k, 0, opcode);
        let n = first.len().min(backed);
        run.mem.write(at, &first[..n]).unwrap();
        run.queues[k].posted = 1;
        post(&mut run, k, &wqe_bytes(k, 1, Opcode::Send));
        // Its prepare, a packet pick of it (refused alike), the valid WQE's prepare.
        let packet = RcAsk::Packet {
            index: 0,
            psn: 7,
            ack_req: true,
        };
        let picks: Vec<RcPick> = [(0, RcAsk::Prepare), (0, packet), (1, RcAsk::Prepare)]
            .into_iter()
            .map(|(wqe, ask)| RcPick { slot: k, wqe, ask })
            .collect();
        let what = format!("queue {k} {opcode:?} {backed} bytes backed (seed {s})");
        let answers = compare(&what, &run, &picks, &load, r.gen());
        // The valid WQE after it is prepared (on the UD queue, refused as not an RC send).
        match answers[..] {
            [RcAnswer::Prepared(_, Err(c)), RcAnswer::Packet(_, st), RcAnswer::Prepared(_, ref next)] =>
            {
                assert_eq!((c.status, st), (want, want.code()), "{what}");
                assert_eq!(next.is_ok(), k != 2, "{what}: {next:?}");
            }
            ref a => panic!("{what}: {a:?}"),
        }
    }
}
