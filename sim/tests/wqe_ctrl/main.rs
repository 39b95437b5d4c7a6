//! The WQE engine's control plane (rtl/wqe/wqe_ctrl.sv) against the model, cycle by cycle.
//!
//! A random program of register operations (QP writes, modifies and destroys, legal and not;
//! memory-region writes and clears; send doorbells repeated, stale, ahead and too far; completion
//! consumer writes; STATUS clears; reads of every register) runs through the AXI4-Lite master
//! while the bench's stand-in data path takes picks with random back-pressure, holds several,
//! takes PSNs, moves QPs to ERR, writes completions and retires them. The bench logs what the DUT
//! did with the cycle each observation reflects; this test replays the log in cycle order through
//! the model (`QpTable`, `Doorbell`, `CompletionRing`, the round robin of `Queues::step`, a
//! memory-region table with the `mr_slot` rule) and checks every read, every PSN, every MR write
//! and every pick's slot, index, address and context, including the RC entropy fixed at RTR under
//! each profile. Seeded: `ROCENIC_SEED=N` replays a run.

use rand::Rng;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::qp::{
    Access, AddressVector, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpContext, QpKind,
    QpState, QpTable, QPN_MAX, QPN_MIN,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::regs::{self, command, control, op, qp_flags, status};
use rocenic_model::wqe::{CompletionRing, Doorbell, Nic, Ring, SendRing};
use rocenic_sim::axil::Op;
use rocenic_sim::duts::{WqeCtrl, WqeCtrl16, WqeCtrl8, WqeCtrlPorts};
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use rocenic_sim::wqe::ctrl::{Bench, DataPath, Event, Pick, QpCtx, Timed, PICK_LAG};
use std::collections::{BTreeMap, HashMap, VecDeque};

mod model;
mod program;
use model::*;
use program::*;
fn nic() -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(192, 168, 1, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}

/// One run: `actions` program actions on build `D` (QPS slots, MRS regions) under `profile`,
/// then a drain in which every eligible WQE must be picked.
fn run<D: WqeCtrlPorts, const N: usize>(
    name: &str,
    qps: usize,
    mrs: usize,
    profile: Profile,
    actions: u32,
    dp: DataPath,
) {
    let seed = stream::seed(name);
    let mut bench: Bench<D> = Bench::new(name, seed, dp, 0.3);
    let mut model = Model::<N>::new(qps, mrs, profile);
    let mut prog = Program {
        rng: stream::rng(seed ^ 0x9806_7A11),
        profile,
        next_tag: 0,
        staged: HashMap::new(),
        polls: HashMap::new(),
        cq_read: None,
        queue: VecDeque::new(),
        waiting: false,
        pause: 0,
    };
    let mut log: BTreeMap<u64, Vec<(Event, Staged)>> = BTreeMap::new();
    let mut replayed = 0u64;

    // Set-up: the NIC's addresses, a small completion ring, then ENABLE.
    let nic = nic();
    let cq_log2 = prog.rng.gen_range(1..=4);
    let mut setup: Vec<_> = regs::nic_writes(&nic, profile, false).to_vec();
    setup.extend(regs::cq_writes(0x4000_0000, cq_log2));
    setup.extend(&regs::nic_writes(&nic, profile, true)[7..]);
    for (a, v) in setup {
        prog.push(&mut bench, Op::write(a, v), Staged::None);
    }

    let mut done_actions = 0;
    let mut drain_from = None;
    let limit = 400_000 + 400 * u64::from(actions);
    let result: Result<(), String> = (|| loop {
        let cycle = bench.sim.cycle();
        if cycle > limit {
            return Err(format!(
                "hang: cycle {cycle}, drain from {drain_from:?}, model {:?}",
                model.stats
            ));
        }
        let events = bench.step()?;
        prog.react(&mut bench, &model, &events);
        for t in events {
            let staged = match t.event {
                Event::Write { tag, .. } => prog.staged.get(&tag).copied().unwrap_or(Staged::None),
                _ => Staged::None,
            };
            if t.at <= replayed + 1 && replayed > 0 {
                return Err(format!(
                    "event at {} logged after the replay passed it: {t:?}",
                    t.at
                ));
            }
            // A CQ_CONSUMER write is judged on the state two cycles before its B response
            // (R_CQ2): the replay applies it a cycle early, first in that cycle. Nothing reads
            // the consumer meanwhile (the bus waits for B) and a pick then sees at least the
            // room the RTL saw, so only the judgement moves.
            let at = match t.event {
                Event::Write {
                    addr: regs::CQ_CONSUMER,
                    ..
                } => t.at - 1,
                _ => t.at,
            };
            log.entry(at).or_default().push((t.event, staged));
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
            } else {
                // Drain: keep consuming completions and clearing faults until nothing eligible
                // is left and the data path is empty.
                let from = *drain_from.get_or_insert(cycle);
                bench.set_data_path(DataPath { fault: 0.0, ..dp });
                let busy = (0..qps).any(|s| model.eligible(s))
                    || model.inflight > 0
                    || bench.in_flight() > 0;
                if !busy && cycle > from + 4 * LAG {
                    return Ok(());
                }
                if cycle.is_multiple_of(16) && bench.bus_pending() == 0 {
                    prog.push(
                        &mut bench,
                        Op::write(regs::STATUS, status::CQ_FAULT.put(1)),
                        Staged::None,
                    );
                    prog.push(
                        &mut bench,
                        Op::write(
                            regs::CONTROL,
                            control::PROFILE.put(profile.code().into()) | control::ENABLE.put(1),
                        ),
                        Staged::None,
                    );
                    let tag = prog.push(
                        &mut bench,
                        Op::Read {
                            addr: regs::CQ_PRODUCER,
                        },
                        Staged::None,
                    );
                    prog.cq_read = Some(tag);
                }
            }
        }
    })();
    eprintln!("{name}: {:?} in {} cycles", model.stats, bench.sim.cycle());
    if let Err(e) = result {
        panic!("{name}: {e} (replay with ROCENIC_SEED={seed})");
    }
    assert!(
        model.mr_expect.is_empty(),
        "{name}: MR writes the RTL never made: {:?}",
        model.mr_expect
    );
    let s = &model.stats;
    assert!(
        s.picks > 200
            && s.cmd_errors > 0
            && s.db_errors > 0
            && s.mr_writes > 0
            && s.psn_takes > 0
            && s.cq_full_cycles > 0
            && s.rtr_rc > 0,
        "{name}: the run did not cover enough: {s:?} (replay with ROCENIC_SEED={seed})"
    );
}

#[test]
fn qps8_linux() {
    run::<WqeCtrl8, 8>(
        "wqe_ctrl_qps8_linux",
        8,
        8,
        Profile::Linux,
        3000,
        DataPath::default(),
    );
}

#[test]
fn qps8_rfc_v2() {
    run::<WqeCtrl8, 8>(
        "wqe_ctrl_qps8_rfc_v2",
        8,
        8,
        Profile::RfcV2,
        3000,
        DataPath::default(),
    );
}

/// rfc-v1 is the profile whose port depends on the QP type: RC must be asked for.
#[test]
fn qps8_rfc_v1() {
    run::<WqeCtrl8, 8>(
        "wqe_ctrl_qps8_rfc_v1",
        8,
        8,
        Profile::RfcV1,
        3000,
        DataPath::default(),
    );
}

/// rxe, with a data path that takes every pick at once and holds one WQE at a time for a few
/// cycles: picks back to back.
#[test]
fn qps8_rxe_back_to_back() {
    let dp = DataPath {
        stall: 0.0,
        max_in_flight: 1,
        max_hold: 2,
        max_takes: 1,
        ..DataPath::default()
    };
    run::<WqeCtrl8, 8>("wqe_ctrl_qps8_rxe", 8, 8, Profile::Rxe, 3000, dp);
}

/// The ECP5-25F build (fpga.mk's `wqe_engine:QPS=16,MRS=16`): 16 slots in two groups of the
/// round robin, 16 regions.
#[test]
fn qps16_linux() {
    run::<WqeCtrl16, 16>(
        "wqe_ctrl_qps16",
        16,
        16,
        Profile::Linux,
        3000,
        DataPath::default(),
    );
}

/// The default build: 64 slots and 64 regions, QPs spread over them.
#[test]
fn qps64_rfc_v1() {
    run::<WqeCtrl, 64>(
        "wqe_ctrl_qps64",
        64,
        64,
        Profile::RfcV1,
        3000,
        DataPath::default(),
    );
}

/// The timings docs/wqe-ctrl.md gives, with a bus that never waits and a data path that takes each
/// pick at once: how long each kind of write takes to be answered, how long each command holds
/// the next write, and the pick rate.
#[test]
fn latencies() {
    let dp = DataPath {
        stall: 0.0,
        max_in_flight: 1,
        max_hold: 0,
        max_takes: 0,
        err: 0.0,
        cqe: 0.0,
        fault: 0.0,
        frame: 0.0,
        ..DataPath::default()
    };
    let mut bench: Bench<WqeCtrl8> = Bench::new("wqe_ctrl_latencies", 1, dp, 0.0);
    let mut rng = stream::rng(1);
    let config = loop {
        let c = random_config(&mut rng);
        if c.qp_type == QpType::Rc {
            break c;
        }
    };
    let ring = SendRing::new(Ring::new(4).unwrap(), 1, 0x10_0000).unwrap();
    let mut ops: Vec<(u32, u32)> = regs::nic_writes(&nic(), Profile::Linux, true).to_vec();
    ops.extend(regs::cq_writes(0x4000_0000, 4));
    ops.extend(regs::qp_writes(0x11, &config, &ring, 0x10_0000));
    // Each command is followed by a write it holds back.
    let staged = regs::QP_PD;
    for cmd in [
        regs::qp_write(0),
        regs::qp_write(1),
        regs::qp_modify(0, QpState::Init),
        regs::qp_modify(0, QpState::Rtr),
        regs::qp_modify(0, QpState::Rts),
        regs::qp_modify(1, QpState::Init),
        regs::qp_modify(1, QpState::Rtr),
        regs::qp_modify(1, QpState::Rts),
        (
            regs::COMMAND,
            command::OP.put(op::QP_DESTROY) | command::SLOT.put(2),
        ),
        regs::mr_write(),
        (regs::COMMAND, 0),
    ] {
        ops.push(cmd);
        ops.push((staged, config.pd));
    }
    // Before any pick, which would keep the ring unit busy for three cycles.
    ops.push((regs::CQ_CONSUMER, 0));
    ops.push(regs::doorbell(0, 16));
    ops.push(regs::doorbell(1, 16));
    for (tag, &(a, v)) in ops.iter().enumerate() {
        bench.push(Op::write(a, v), tag as u64);
    }
    let mut writes = Vec::new();
    let mut picks = Vec::new();
    while bench.sim.cycle() < 2000 {
        for t in bench.step().unwrap() {
            match t.event {
                Event::Write { accepted, tag, .. } => writes.push((tag as usize, accepted, t.at)),
                Event::Pick(p) => picks.push((t.at, p.slot)),
                _ => {}
            }
        }
    }
    assert_eq!(writes.len(), ops.len());
    let answer = |i: usize| writes[i].2 - writes[i].1;
    let held = |i: usize| writes[i + 1].2 - writes[i].2;
    let first_cmd = ops.len() - 3 - 22;
    let cmds: Vec<u64> = (0..11).map(|k| held(first_cmd + 2 * k)).collect();
    let n = ops.len();
    eprintln!(
        "answers: plain {}, doorbell {}, CQ consumer {}; commands hold the next write {cmds:?}",
        answer(0),
        answer(n - 2),
        answer(n - 3)
    );
    assert_eq!((answer(0), answer(n - 2), answer(n - 3)), (2, 7, 6));
    // QP_WRITE, QP_WRITE, INIT, RTR (RC: the entropy unit), RTS, INIT, RTR, RTS, destroy, MR,
    // no command.
    assert_eq!(cmds, [11, 11, 10, 16, 10, 10, 16, 10, 6, 6, 4]);
    // 16 WQEs on each of two QPs, taken at once: one pick every 9 cycles once the doorbells are
    // in (slot 1's keeps the ring unit busy while the second pick could start), the two QPs in
    // turn once both have WQEs.
    assert_eq!(picks.len(), 32, "{picks:?}");
    assert!(
        picks[1..].windows(2).all(|w| w[1].0 - w[0].0 == 9),
        "{picks:?}"
    );
    assert!(
        picks[1..31].windows(2).all(|w| w[0].1 != w[1].1),
        "{picks:?}"
    );
}
