//! The receive path's control plane (rtl/rx/rx_ctrl.sv) against the model, cycle by cycle.
//!
//! A random program of register operations (work-queue writes, modifies and destroys; QP
//! attaches and detaches, legal and not; receive doorbells repeated, stale, ahead and too far;
//! completion consumer writes in range, stale and past the producer; STATUS clears; reads of
//! every register) runs through the AXI4-Lite master while the bench's stand-in data path reads
//! contexts and queues, writes contexts back, takes WQEs, writes completions, moves queues to ERR
//! and runs flush steps, with the send side's `sq_valid` and `qp_err` bits moving under it. The
//! bench logs what the DUT did with the cycle each observation reflects; this test replays the
//! log in cycle order through the model (`RecvEngine` for the queues, their `Doorbell` and
//! `CompletionRing`, and every command's refusal; `RecvEngine::flush` for the flush picks) and
//! checks every register read, every context and queue read, and every flush pick. Seeded:
//! `ROCENIC_SEED=N` replays a run.

use rand::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{PathMtu, Psn, QpTable, Status, QPN_MAX, QPN_MIN};
use rocenic_model::rx::regs::{self, command, control, op, qp_flags, qp_target, status, wq_flags};
use rocenic_model::rx::{
    qp_slot, Message, RecvEngine, RecvRing, RxError, Target, WqConfig, WqState,
};
use rocenic_model::wqe::{CompletionRing, Fault, Memory, Ring};
use rocenic_sim::axil::Op;
use rocenic_sim::duts::{RxCtrl, RxCtrl8, RxCtrlPorts};
use rocenic_sim::rx::ctrl::{Bench, Ctx, DataPath, Event, Rcv, Timed, WqView};
use rocenic_sim::rx::qp_config;
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

mod model;
mod program;
use model::*;
use program::*;

/// One run: `actions` program actions on build `D` (W queues, Q context slots), then the data
/// path's last work and the replay's last cycles.
fn run<D: RxCtrlPorts, const W: usize, const Q: usize>(name: &str, actions: u32, dp: DataPath) {
    let seed = stream::seed(name);
    let mut bench: Bench<D> = Bench::new(name, seed, W as u8, Q as u8, dp, 0.3);
    let mut model = Model::<W, Q>::new();
    let mut prog = Program::new(stream::rng(seed ^ 0x9806_7A11));
    let mut log: BTreeMap<u64, Vec<Event>> = BTreeMap::new();
    let mut replayed = 0u64;

    let (a, v) = (regs::CONTROL, control::ENABLE.put(1));
    prog.push(&mut bench, Op::write(a, v));

    let mut done_actions = 0;
    let mut end = None;
    let limit = 100_000 + 200 * u64::from(actions);
    let result: Result<(), String> = (|| loop {
        let cycle = bench.sim.cycle();
        if cycle > limit {
            return Err(format!("hang: cycle {cycle}, model {:?}", model.stats));
        }
        let events = bench.step()?;
        prog.react(&mut bench, &model, &events);
        for t in events {
            if t.at <= replayed {
                return Err(format!(
                    "event at {} logged after the replay passed it: {t:?}",
                    t.at
                ));
            }
            log.entry(t.at).or_default().push(t.event);
        }
        while replayed + LAG < bench.sim.cycle() {
            replayed += 1;
            let events = log.remove(&replayed).unwrap_or_default();
            model.cycle(replayed, events)?;
        }
        if bench.bus_pending() == 0 && !prog.waiting {
            if done_actions < actions {
                prog.act(&mut bench, &model);
                done_actions += 1;
            } else if end.is_none() {
                // The end: enabled, flush steps only, nothing moving but a rare `qp_err` flip
                // (some in the middle of a step, which must keep IDLE low), so that the flush
                // drains what it can and STATUS.IDLE must rise; STATUS read all along. Queues
                // with a backlog too long to drain are reset first.
                end = Some(cycle);
                bench.set_data_path(DataPath {
                    start: 0.5,
                    flush: 1.0,
                    count: 0.0,
                    fault: 0.0,
                    qp_err_flip: 0.002,
                    sq_flip: 0.0,
                    frame_flip: 0.0,
                    ..dp
                });
                prog.end(&mut bench, &model);
            } else if cycle < end.unwrap() + 4_000
                || (model.stats.idle_enabled == 0 && cycle < end.unwrap() + 20_000)
            {
                prog.push(&mut bench, Op::Read { addr: regs::STATUS });
            } else {
                let e = *end.get_or_insert(cycle);
                bench.set_data_path(DataPath { start: 0.0, ..dp });
                if !bench.busy() && cycle > e + 2 * LAG && log.keys().all(|&k| k > replayed) {
                    return Ok(());
                }
            }
        }
    })();
    let (pieces, flushes) = bench.pieces();
    eprintln!(
        "{name}: {:?}, {pieces} pieces of work ({flushes} flush steps), in {} cycles",
        model.stats,
        bench.sim.cycle()
    );
    if let Err(e) = result {
        panic!("{name}: {e} (replay with ROCENIC_SEED={seed})");
    }
    let s = &model.stats;
    let done = |o: u32| s.done.get(&o).copied().unwrap_or(0);
    let refused = |r: &str| s.refused.get(r).copied().unwrap_or(0);
    let covered = [
        op::WQ_WRITE,
        op::WQ_MODIFY,
        op::WQ_DESTROY,
        op::QP_ATTACH,
        op::QP_DETACH,
    ]
    .iter()
    .all(|&o| done(o) > 0)
        && [
            "wq_range",
            "wq_exists",
            "no_wq",
            "transition",
            "qpn",
            "attached",
            "slot_taken",
            "not_attached",
            "rss_not_ud",
            "no_qp",
            "in_use",
            "shape",
            "state",
            "op",
        ]
        .iter()
        .all(|r| refused(r) > 0)
        && s.db_errors > 0
        && s.cq_errors > 0
        && s.takes > 0
        && s.pushes > 0
        && s.wq_errs > 0
        && s.ctx_writes > 0
        && s.q_full > 0
        && s.flush_found > 0
        && s.flush_ip > 0
        && s.rule_moves > 0
        && s.idle_enabled > 0
        && s.busy_enabled > 0;
    assert!(
        covered,
        "{name}: the run did not cover enough: {s:?} (replay with ROCENIC_SEED={seed})"
    );
}

/// 8 queues and 8 context slots: slots, queues and flush picks collide often.
#[test]
fn wqs8_qps8() {
    run::<RxCtrl8, 8, 8>("rx_ctrl_8", 3000, DataPath::default());
}

/// A busy data path: work nearly back to back, flush steps often.
#[test]
fn wqs8_qps8_busy() {
    let dp = DataPath {
        start: 0.9,
        flush: 0.4,
        gap: 1,
        qp_err_flip: 0.02,
        ..DataPath::default()
    };
    run::<RxCtrl8, 8, 8>("rx_ctrl_8_busy", 3000, dp);
}

/// The default build: 64 queues and 64 context slots.
#[test]
fn wqs64_qps64() {
    run::<RxCtrl, 64, 64>("rx_ctrl_64", 3000, DataPath::default());
}

/// The timings docs/rx.md gives, with a bus that never waits and a data path that stays idle:
/// how long each kind of write takes to be answered, and how long each command holds the next
/// write.
#[test]
fn latencies() {
    let dp = DataPath {
        start: 0.0,
        count: 0.0,
        fault: 0.0,
        qp_err_flip: 0.0,
        sq_flip: 0.0,
        ..DataPath::default()
    };
    let mut bench: Bench<RxCtrl8> = Bench::new("rx_ctrl_latencies", 1, 8, 8, dp, 0.0);
    // A QPN whose send-side slot holds a QP.
    let sq = bench.sq_valid();
    let slot = (0..8).find(|s| sq >> s & 1 != 0).expect("some slot valid");
    let qpn = 8 + slot;
    let config = WqConfig {
        qpn,
        pd: 1,
        ring: RecvRing::new(Ring::new(4).unwrap(), 1, 0x10_0000).unwrap(),
        cq: CompletionRing::new(Ring::new(4).unwrap(), 0).unwrap(),
        cq_base: 0x20_0000,
        raw: false,
    };
    let qp = qp_config(true, 1, PathMtu::Mtu1024, 7);
    let mut ops: Vec<(u32, u32)> = vec![(regs::CONTROL, 1)];
    ops.extend(regs::wq_writes(&config));
    ops.extend(regs::qp_writes(
        qpn,
        &qp,
        Target::Own(0),
        Psn::new(5).unwrap(),
    ));
    // Each command is followed by a write it holds back.
    let staged = regs::WQ_PD;
    let cmds = [
        regs::wq_write(0),
        regs::wq_write(1),
        regs::wq_modify(0, WqState::Ready),
        regs::wq_destroy(1),
        regs::qp_attach(),
        regs::qp_detach(),
        (regs::COMMAND, 0),
    ];
    let first_cmd = ops.len();
    for cmd in cmds {
        ops.push(cmd);
        ops.push((staged, 1));
    }
    ops.push(regs::doorbell(0, 4));
    ops.push(regs::cq_consumer(0, 0));
    for (tag, &(a, v)) in ops.iter().enumerate() {
        bench.push(Op::write(a, v), tag as u64);
    }
    let mut writes = Vec::new();
    while bench.sim.cycle() < 1000 {
        for t in bench.step().unwrap() {
            if let Event::Write { accepted, tag, .. } = t.event {
                writes.push((tag as usize, accepted, t.at));
            }
        }
    }
    assert_eq!(writes.len(), ops.len());
    let answer = |i: usize| writes[i].2 - writes[i].1;
    let held = |i: usize| writes[i + 1].2 - writes[i].2;
    let holds: Vec<u64> = (0..cmds.len()).map(|k| held(first_cmd + 2 * k)).collect();
    let n = ops.len();
    eprintln!(
        "answers: plain {}, doorbell {}, CQ consumer {}; commands hold the next write {holds:?}",
        answer(0),
        answer(n - 2),
        answer(n - 1)
    );
    assert_eq!((answer(0), answer(n - 2), answer(n - 1)), (2, 7, 7));
    // WQ_WRITE, WQ_WRITE, WQ_MODIFY, WQ_DESTROY, QP_ATTACH, QP_DETACH, no command.
    assert_eq!(holds, [9, 9, 7, 7, 12, 8, 4]);
}
