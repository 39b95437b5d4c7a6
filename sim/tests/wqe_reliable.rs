//! The reliable transport's send side for RC queues (rtl/wqe/wqe_reliable.sv) against the
//! model's `Queues` with the transport on, step by step: the three RC queues of the data path's
//! scenario (MTUs 256, 1024 and 4096, IPv4 and IPv6, a VLAN tag, PSNs starting just below the
//! 2^24 wrap) carry random WQE streams (every opcode but RDMA READ, inline and gathered, and in
//! some runs each kind of invalid one), rung in by doorbells at random steps. A peer answers
//! the model's frames with a `model::rc::Responder` per QP over a link that loses frames both
//! ways and delays the acknowledgements, runs out of receive WQEs (RNR NAKs) and, in some runs,
//! refuses an access (a fatal NAK); in some runs software moves a QP to ERR, a queue's first WQE
//! fails, a 2 GiB SEND asks for half the PSN space, or the QPs have their own transport
//! attributes. Each acknowledgement goes to both, each step runs on both,
//! and each must agree (half the runs ask for each step as the engine does: a sweep, then a
//! turn on the slot the model chose): the requester's answer to an acknowledgement and its
//! state after it,
//! then for each step whether a turn ran and on which QP, its frames byte for byte, the
//! completion written, and every QP's state. A run ends when everything posted has completed
//! and nothing is in flight; a run that does not end is a hang.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{Access, MemoryRegion, Psn, QpState};
use rocenic_model::rc::{
    AckOutcome, Executed, QpTransport, Reliable, Reply, Request, Responder, Scale,
};
use rocenic_model::wire::RoceFrame;
use rocenic_model::wqe::{
    CompletionRing, DataSegment, Flags, Opcode, Payload, Queues, Ring, Step, WorkRequest,
};
use rocenic_sim::duts::WqeReliable;
use rocenic_sim::stream::{rng, seed, TestRng};
use rocenic_sim::wqe::reliable::{Counts, Load, Outside, Slot, StepOut};
use rocenic_sim::wqe::scenario::{base, encoded, post, random_wqe, rc_wqe, CQ};
use std::collections::{BTreeMap, VecDeque};

/// The scenario's RC queues.
const RC_QUEUES: [usize; 3] = [0, 1, 3];
/// Steps a run may take.
const MAX_STEPS: u64 = 60_000;

/// One run's settings.
#[derive(Clone, Copy, Debug)]
struct Case {
    wqes: u32,
    /// A queue whose first WQE has an unknown opcode: a failure held with nothing outstanding.
    first_bad: Option<usize>,
    /// A queue and index whose WQE is a 2 GiB SEND at MTU 256: 2^23 packets, half the PSN
    /// space, which the requester refuses to post (loc_len_err).
    huge: Option<(usize, u32)>,
    /// The step at which software moves a QP in RTS to ERR (the requester's outstanding
    /// requests then flush).
    kill: Option<u64>,
    /// Whether each QP may have its own transport attributes (`QpTransport`: timeout,
    /// retry_cnt, rnr_retry), drawn per QP; else every QP takes `rel`'s.
    own: bool,
    /// The three QPs' own attributes, given (over `own`).
    fixed: Option<[QpTransport; 3]>,
    /// Each step asked for as the engine does (`Outside::step_split`): a sweep alone, then a
    /// turn on the slot the model's round robin chose.
    split: bool,
    faults: f64,
    loss: f64,
    rnr: f64,
    fatal: f64,
    delay: u64,
    rel: Reliable,
    load: Load,
}

impl Case {
    /// A directed run's defaults: nothing faulty, a clean link with a one-step delay, the
    /// NIC's settings for every QP, some back-pressure and latency.
    fn directed() -> Case {
        Case {
            wqes: 8,
            first_bad: None,
            huge: None,
            kill: None,
            own: false,
            fixed: None,
            split: false,
            faults: 0.0,
            loss: 0.0,
            rnr: 0.0,
            fatal: 0.0,
            delay: 1,
            rel: Reliable::default(),
            load: Load {
                ready: 0.75,
                latency: 3,
            },
        }
    }

    /// Run `i`'s: its faults, loss, RNR and fatal NAKs from `i` (every mix comes up in 12
    /// runs), the rest drawn.
    fn random(r: &mut TestRng, i: usize) -> Case {
        Case {
            wqes: r.gen_range(8..40),
            first_bad: (i % 4 == 1).then_some(RC_QUEUES[i % 3]),
            huge: i.is_multiple_of(4).then(|| (0, r.gen_range(1..4))),
            kill: (i % 4 == 2).then(|| r.gen_range(10..60)),
            own: i % 4 < 2,
            fixed: None,
            split: i >= 8,
            faults: [0.0, 0.02, 0.05, 0.1][i % 4],
            loss: [0.0, 0.02, 0.08][i % 3],
            rnr: [0.0, 0.03][i % 2],
            fatal: if i % 4 == 3 { 0.002 } else { 0.0 },
            delay: r.gen_range(1..8),
            rel: Reliable {
                timeout: r.gen_range(5..8),
                retry_cnt: r.gen_range(1..8),
                rnr_retry: r.gen_range(0..8),
                scale: Scale(1),
                max_inflight: r.gen_range(1..25),
                ack_every: r.gen_range(1..9),
                // Code 0 is the longest delay (655 ms, 160,000 ticks here): 1 to 3 are 3 to 5 ticks.
                rnr_timer: r.gen_range(1..4),
            },
            load: Load {
                ready: r.gen_range(0.4..1.0),
                latency: r.gen_range(0..6),
            },
        }
    }
}

/// What the runs went through, summed.
#[derive(Clone, Debug, Default)]
struct Seen {
    steps: u64,
    turns: u64,
    acks: u64,
    go_backs: u64,
    rnr_waits: u64,
    ack_errors: u64,
    timeouts: u64,
    resent: u64,
    dut: Counts,
    /// Completions written, by status.
    statuses: BTreeMap<String, u64>,
    /// QPs in ERR at the end of their run.
    qps_in_err: u64,
    /// QPs software moved to ERR.
    kills: u64,
}

/// The huge region's lkey and base.
const HUGE_LKEY: u32 = 0x400;
const HUGE_BASE: u64 = 0x1_0000_0000;

/// A signaled SEND of 2^31 bytes, the largest message, from the huge region.
fn huge_send(index: u32) -> Vec<u8> {
    let sges = [DataSegment {
        addr: HUGE_BASE,
        length: 1 << 31,
        lkey: HUGE_LKEY,
    }];
    encoded(&WorkRequest {
        opcode: Opcode::Send,
        flags: Flags::SIGNALED,
        index,
        imm: 0,
        wr_id: 0x4855_4745,
        av: None,
        raddr: None,
        tso: None,
        payload: Payload::Gather(&sges),
    })
}

/// The requester's state in the model, as the block shows it.
fn model_shown(q: &Queues<64>, k: usize, qpn: u32) -> (usize, u32, u32, u32, bool, usize) {
    let r = q.requester(qpn).expect("a requester");
    (
        k,
        r.una().get(),
        r.snd().get(),
        r.nxt().get(),
        r.is_error(),
        r.outstanding(),
    )
}

/// The answer code the block gives for `o` (rc_pkg::RC_REQ_ANS_*).
fn ack_code(o: AckOutcome) -> u8 {
    match o {
        AckOutcome::Stale => 6,
        AckOutcome::Progress => 7,
        AckOutcome::GoBack(_) => 8,
        AckOutcome::RnrWait(_) => 9,
        AckOutcome::Error(_) => 10,
    }
}

/// One run; panics at the first difference.
fn run(name: &str, case: Case, s: u64, seen: &mut Seen) {
    let mut r = rng(s);
    let mut run = base(Profile::ALL[r.gen_range(0..4)]);
    // A region of 4 GiB (PD 1) with no memory behind it, for the huge SEND.
    run.engine
        .mrs
        .register(MemoryRegion {
            lkey: HUGE_LKEY,
            base: HUGE_BASE,
            length: 1 << 32,
            pd: 1,
            access: Access::LOCAL_WRITE,
        })
        .expect("the huge region");
    for &k in &RC_QUEUES {
        for i in 0..case.wqes {
            let big = r.gen_bool(0.3);
            let bytes = if r.gen_bool(case.faults) {
                // Any kind of invalid WQE, but no RDMA READ: the block's data path has none
                // (a flipped bit may make one).
                loop {
                    let b = random_wqe(&mut r, k, i, big, 1.0);
                    if b[0] != 4 {
                        break b;
                    }
                }
            } else {
                let hole = k != 1 && r.gen_bool(case.faults);
                let mut b = rc_wqe(&mut r, k, i, big, hole);
                if i == 0 && case.first_bad == Some(k) {
                    b[0] = 0x7F;
                }
                if case.huge == Some((k, i)) {
                    b = huge_send(i);
                }
                b
            };
            post(&mut run, k, &bytes);
        }
    }
    let rel = case.rel;
    if case.own || case.fixed.is_some() {
        for (j, &k) in RC_QUEUES.iter().enumerate() {
            let t = case.fixed.map_or_else(
                || QpTransport {
                    timeout: r.gen_bool(0.7).then(|| r.gen_range(5..9)),
                    retry_cnt: r.gen_bool(0.7).then(|| r.gen_range(0..8)),
                    rnr_retry: r.gen_bool(0.7).then(|| r.gen_range(0..8)),
                    min_rnr_timer: None,
                },
                |f| f[j],
            );
            let qp = run.engine.qps.get_mut(run.queues[k].qpn).expect("QP");
            assert!(qp.set_transport(t));
        }
    }
    let mut engine = run.engine.clone();
    let mut mem = run.mem.clone();
    let mut q = Queues::<64>::new(
        CompletionRing::new(Ring::new(10).expect("ring"), 0).expect("CQ"),
        CQ,
    );
    q.set_reliable(Some(rel));
    let mut slots = Vec::new();
    let mut peers = Vec::new();
    for &k in &RC_QUEUES {
        let qs = &run.queues[k];
        q.attach(qs.qpn, qs.ring, 0).expect("attach");
        slots.push(Slot {
            qpn: qs.qpn,
            ring: qs.ring,
            producer: 0,
            consumer: 0,
        });
        let psn = engine.qps.get(qs.qpn).expect("QP").next_psn();
        peers.push(Responder::new(rel.responder(psn)));
    }
    let mut o = Outside::<WqeReliable>::new(
        name,
        run.engine.clone(),
        run.mem.clone(),
        slots,
        rel,
        case.load,
        rng(s ^ 0x5EED),
    );
    // Acknowledgements on their way: (due, slot, PSN, syndrome byte).
    let mut acks: VecDeque<(u64, usize, u32, u8)> = VecDeque::new();
    let what = |step: u64| format!("{name}, seed {s}, step {step}, {case:?}");
    let mut step = 0;
    loop {
        if step == MAX_STEPS {
            let left: Vec<_> = o
                .slots
                .iter()
                .map(|sl| {
                    let r = q.requester(sl.qpn).expect("a requester");
                    let st = engine.qps.get(sl.qpn).map(|q| q.state());
                    (
                        sl.producer,
                        q.pending(sl.qpn),
                        r.outstanding(),
                        r.una(),
                        r.snd(),
                        r.nxt(),
                        st,
                    )
                })
                .collect();
            panic!("{}: hang: {left:?}, acks in flight {acks:?}", what(step));
        }
        // Doorbells.
        if r.gen_bool(0.2) {
            let k = r.gen_range(0..RC_QUEUES.len());
            let p = (o.slots[k].producer + r.gen_range(1..5)).min(case.wqes);
            q.doorbell(o.slots[k].qpn, p).expect("doorbell");
            o.slots[k].producer = p;
        }
        // Software moves a QP to ERR, on both sides.
        if case.kill == Some(step) {
            let rts = o.slots.iter().map(|sl| sl.qpn).find(|&qpn| {
                engine.qps.get(qpn).map(|q| q.state()) == Some(QpState::Rts)
                    && q.requester(qpn).is_some_and(|r| r.outstanding() > 0)
            });
            if let Some(qpn) = rts {
                engine.qps.get_mut(qpn).expect("QP").set_error();
                o.engine.qps.get_mut(qpn).expect("QP").set_error();
                seen.kills += 1;
            }
        }
        // Acknowledgements due, to both.
        while acks.front().is_some_and(|a| a.0 <= q.now()) {
            let (_, k, psn, syn) = acks.pop_front().expect("due");
            let qpn = o.slots[k].qpn;
            let aeth = rocenic_model::wire::ib::AethRepr {
                syndrome: rocenic_model::wire::ib::Syndrome::from_byte(syn).expect("syndrome"),
                msn: 0,
            };
            let want = q
                .acknowledge(&mut engine.qps, qpn, Psn::from_bits_truncate(psn), aeth)
                .expect("a requester");
            o.set_now(q.now());
            let got = o.ack(k, psn, syn);
            assert_eq!(got, ack_code(want), "{}: answer to {want:?}", what(step));
            assert_eq!(
                o.shown(),
                model_shown(&q, k, qpn),
                "{}: after {want:?}",
                what(step)
            );
            seen.acks += 1;
            match want {
                AckOutcome::GoBack(_) => seen.go_backs += 1,
                AckOutcome::RnrWait(_) => seen.rnr_waits += 1,
                AckOutcome::Error(_) => seen.ack_errors += 1,
                _ => {}
            }
        }
        // The step, on both.
        let mut frames = Vec::new();
        let st = q
            .step(&mut engine, &mut mem, &mut |f: &[u8]| {
                frames.push(f.to_vec())
            })
            .unwrap_or_else(|e| panic!("{}: model: {e}", what(step)));
        let want = match st {
            Step::Idle => StepOut {
                ran: None,
                cqe: None,
                frames: Vec::new(),
            },
            Step::CqFull => panic!("{}: the completion ring holds every completion", what(step)),
            Step::Ran { qpn, cqe } => StepOut {
                ran: Some(qpn),
                cqe: cqe.map(|(_, c)| rocenic_model::wqe::Cqe { phase: false, ..c }),
                frames,
            },
        };
        let got = if case.split {
            let k = want
                .ran
                .map(|qpn| o.slots.iter().position(|sl| sl.qpn == qpn).expect("a slot"));
            o.step_split(q.now(), k)
        } else {
            o.step(q.now())
        };
        assert_eq!(got, want, "{}", what(step));
        for (k, sl) in o.slots.iter().enumerate() {
            let m = engine.qps.get(sl.qpn).map(|q| q.state());
            let d = o.engine.qps.get(sl.qpn).map(|q| q.state());
            assert_eq!(d, m, "{}: slot {k}'s QP state", what(step));
        }
        seen.steps += 1;
        seen.turns += u64::from(want.ran.is_some());
        if let Some(c) = want.cqe {
            *seen.statuses.entry(format!("{:?}", c.status)).or_default() += 1;
        }
        // The peer answers the frames.
        for f in &want.frames {
            if r.gen_bool(case.loss) {
                continue;
            }
            let roce = RoceFrame::parse(f).expect("a RoCEv2 frame");
            let bth = roce.bth();
            let k = o
                .slots
                .iter()
                .position(|sl| 0x900 + sl.qpn == bth.dest_qpn())
                .expect("a peer QP");
            let req = Request {
                psn: Psn::from_bits_truncate(bth.psn()),
                ack_req: bth.ack_req(),
                last: matches!(bth.opcode(), 0x02..=0x05 | 0x08..=0x0B),
            };
            let exec = if r.gen_bool(case.fatal) {
                Executed::AccessError
            } else if r.gen_bool(case.rnr) {
                Executed::NoReceiveWqe
            } else {
                Executed::Done
            };
            if let Reply::Send { psn, aeth } = peers[k].request(req, || exec).reply {
                if !r.gen_bool(case.loss) {
                    let due = q.now() + r.gen_range(1..=case.delay);
                    let at = acks.partition_point(|a| a.0 <= due);
                    acks.insert(at, (due, k, psn.get(), aeth.syndrome.to_byte()));
                }
            }
        }
        step += 1;
        // Done: everything rung, taken and completed, nothing in flight.
        let settled = o.slots.iter().all(|sl| {
            sl.producer == case.wqes
                && q.pending(sl.qpn) == Some(0)
                && q.requester(sl.qpn).is_some_and(|r| r.outstanding() == 0)
        });
        if settled && acks.is_empty() && matches!(st, Step::Idle) {
            break;
        }
    }
    for sl in &o.slots {
        assert_eq!(sl.consumer, case.wqes, "{}: WQEs left", what(step));
        let st = engine.qps.get(sl.qpn).map(|q| q.state());
        seen.qps_in_err += u64::from(st == Some(QpState::Err));
    }
    let c = q.rc_counters();
    seen.timeouts += c.timeouts;
    seen.resent += c.resent;
    let d = o.counts;
    seen.dut.prepares += d.prepares;
    seen.dut.packets += d.packets;
    seen.dut.refused += d.refused;
    seen.dut.flushes += d.flushes;
    seen.dut.cqes += d.cqes;
    seen.dut.errors += d.errors;
    seen.dut.held_at_once += d.held_at_once;
    seen.dut.held_later += d.held_later;
    seen.dut.cycles += d.cycles;
}

/// Random runs: each prints what it covered, and together they must have gone through every
/// path of a turn and of an acknowledgement.
#[test]
fn steps_against_the_model() {
    let s = seed("wqe_reliable::steps_against_the_model");
    let mut r = rng(s);
    let mut seen = Seen::default();
    for i in 0..16 {
        let case = Case::random(&mut r, i);
        run(&format!("wqe_reliable_{i}"), case, r.gen(), &mut seen);
    }
    println!("seed {s}: {seen:?}");
    let d = seen.dut;
    assert!(d.prepares > 100 && d.packets > 500, "{seen:?}");
    assert!(d.refused > 0 && d.flushes > 0 && d.errors > 0, "{seen:?}");
    assert!(d.held_at_once > 0 && d.held_later > 0, "{seen:?}");
    assert!(
        seen.kills > 0 && seen.statuses.contains_key("LocLenErr"),
        "{seen:?}"
    );
    assert!(
        seen.go_backs > 0 && seen.rnr_waits > 0 && seen.timeouts > 0,
        "{seen:?}"
    );
    assert!(seen.ack_errors > 0 || seen.timeouts > 0, "{seen:?}");
}

/// A dead link: every request times out until `retry_cnt` runs out; the oldest request
/// completes with retry_exc_err, the rest of each queue flushes, and the QPs end in ERR.
#[test]
fn dead_link_exhausts_the_retries() {
    let s = seed("wqe_reliable::dead_link_exhausts_the_retries");
    let mut seen = Seen::default();
    let case = Case {
        wqes: 6,
        loss: 1.0,
        rel: Reliable {
            timeout: 5,
            retry_cnt: 2,
            max_inflight: 8,
            ..Reliable::default()
        },
        ..Case::directed()
    };
    run("wqe_reliable_dead", case, s, &mut seen);
    println!("seed {s}: {seen:?}");
    assert_eq!(seen.acks, 0);
    assert_eq!(seen.qps_in_err, 3, "{seen:?}");
    // Each QP's oldest request ran out of retries, unless one of its WQEs failed its checks
    // first; every WQE completed with an error, by the block or flushed by the data path.
    let st = &seen.statuses;
    assert!(st.get("RetryExcErr").copied().unwrap_or(0) >= 1, "{seen:?}");
    assert!(!st.contains_key("Success"), "{seen:?}");
    assert_eq!(st.values().sum::<u64>(), 3 * 6, "{seen:?}");
    assert_eq!(seen.dut.cqes + seen.dut.flushes, 3 * 6, "{seen:?}");
}

/// A clean link at full speed (no back-pressure, answers at once): nothing is sent twice, no
/// timer fires, and every WQE completes with success. Prints the cycles a step and a turn
/// take (docs/wqe-reliable.md).
#[test]
fn clean_link_resends_nothing() {
    let s = seed("wqe_reliable::clean_link_resends_nothing");
    let mut seen = Seen::default();
    let case = Case {
        wqes: 40,
        delay: 2,
        rel: Reliable {
            timeout: 10,
            max_inflight: 16,
            ack_every: 4,
            ..Reliable::default()
        },
        load: Load {
            ready: 1.0,
            latency: 0,
        },
        ..Case::directed()
    };
    run("wqe_reliable_clean", case, s, &mut seen);
    let d = seen.dut;
    println!(
        "seed {s}: {seen:?}; {:.1} cycles a step, {:.1} a turn",
        d.cycles as f64 / seen.steps as f64,
        d.cycles as f64 / seen.turns as f64
    );
    assert_eq!(
        (seen.resent, seen.timeouts, seen.go_backs),
        (0, 0, 0),
        "{seen:?}"
    );
    assert_eq!(seen.statuses.get("Success"), Some(&d.cqes), "{seen:?}");
    assert_eq!(seen.qps_in_err, 0, "{seen:?}");
}

/// Each QP's own `timeout`, `retry_cnt` and `rnr_retry` (three different ones), on a dead link
/// (every QP runs out of retries after its own number of timeouts) and on a peer that never
/// has a receive WQE (every QP runs out of RNR retries after its own number of RNR NAKs): the
/// block must take each slot's settings, not one slot's for all.
#[test]
fn each_qp_its_own_settings() {
    let s = seed("wqe_reliable::each_qp_its_own_settings");
    let own = |timeout: u8, retry_cnt: u8, rnr_retry: u8| QpTransport {
        timeout: Some(timeout),
        retry_cnt: Some(retry_cnt),
        rnr_retry: Some(rnr_retry),
        min_rnr_timer: None,
    };
    let base = Case {
        wqes: 4,
        fixed: Some([own(5, 0, 0), own(6, 3, 2), own(7, 6, 5)]),
        rel: Reliable {
            timeout: 5,
            retry_cnt: 7,
            rnr_retry: 7,
            max_inflight: 8,
            ..Reliable::default()
        },
        ..Case::directed()
    };
    for (what, case, status) in [
        ("dead", Case { loss: 1.0, ..base }, "RetryExcErr"),
        ("rnr", Case { rnr: 1.0, ..base }, "RnrRetryExcErr"),
    ] {
        let mut seen = Seen::default();
        run(&format!("wqe_reliable_own_{what}"), case, s, &mut seen);
        println!("seed {s}, {what}: {seen:?}");
        assert_eq!(seen.qps_in_err, 3, "{what}: {seen:?}");
        assert_eq!(seen.statuses.get(status), Some(&3), "{what}: {seen:?}");
    }
}
