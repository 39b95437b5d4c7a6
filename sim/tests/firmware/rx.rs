//! The firmware drives the receive path's control plane (rtl/rx/rx_ctrl.sv, the build of 8 work
//! queues and 8 context slots) through its AXI4-Lite port, with random bus delays, standing for
//! a send side that holds QPs in six of the eight slots (and two more QPs that share slots, which
//! the model's QP table allows). Each call's outcome must be the
//! model's (`RecvEngine` beside it, fed the same requests): accepted, or refused with the same
//! `RxError`, or for a QP the send side does not hold, refused by the block. Doorbells the
//! firmware passes on but the model refuses must set `STATUS.DB_ERROR`, the others must not.
//! Between rounds the bench's data path reads every context and queue, which must hold what the
//! model and the firmware's attaches say.

use crate::bus::CtrlBus;
use rand::Rng;
use rocenic_firmware::{Error, RxPath};
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{PathMtu, Psn, QpConfig, QpKind, QpTable};
use rocenic_model::rx::{qp_slot, RecvEngine, RecvRing, RxError, Target, WqConfig, WqState};
use rocenic_model::wqe::{CompletionRing, Ring};
use rocenic_sim::duts::RxCtrl8;
use rocenic_sim::rx::ctrl::{Bench, DataPath, Event};
use rocenic_sim::rx::qp_config;
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use std::collections::BTreeMap;

type Rx = RxPath<CtrlBus<Bench<RxCtrl8>>, 8, 8>;

/// Starts no work, and work under way (reads) changes nothing: the control plane sees only
/// the firmware.
fn quiet() -> DataPath {
    DataPath {
        start: 0.0,
        flush: 0.0,
        take: 0.0,
        push: 0.0,
        err: 0.0,
        write: 0.0,
        count: 0.0,
        fault: 0.0,
        qp_err_flip: 0.0,
        sq_flip: 0.0,
        ..DataPath::default()
    }
}

/// Reads contexts and queues, changes nothing.
fn reader() -> DataPath {
    DataPath {
        start: 0.5,
        ..quiet()
    }
}

fn config(rng: &mut TestRng, ud: bool) -> QpConfig {
    let (pd, mtu) = (rng.gen_range(1..4), PathMtu::ALL[rng.gen_range(0..5)]);
    qp_config(ud, pd, mtu, rng.gen())
}

fn wq_config(rng: &mut TestRng, n: u64) -> WqConfig {
    let ring = Ring::new(rng.gen_range(0..=5)).unwrap();
    let qpn = if rng.gen_bool(0.05) {
        rng.gen_range(1 << 24..u32::MAX)
    } else {
        rng.gen_range(2..1 << 24)
    };
    WqConfig {
        qpn,
        pd: rng.gen_range(1..4),
        ring: RecvRing::new(ring, rng.gen_range(0..=2), 0x100_0000 * (n + 1)).unwrap(),
        cq: CompletionRing::new(Ring::new(rng.gen_range(0..=5)).unwrap(), 0).unwrap(),
        cq_base: 0x8000_0000 + 0x1_0000 * n,
        raw: rng.gen_bool(0.3),
    }
}

fn state(rng: &mut TestRng) -> WqState {
    [WqState::Reset, WqState::Ready, WqState::Err][rng.gen_range(0..3)]
}

/// What a refused call may be, given the model's refusal: the same `RxError`, except that the
/// send side's refusal (`NoQp`) is the block's, and the firmware may find another rule broken
/// first.
fn same(got: &Result<(), Error>, want: &Result<(), RxError>) -> bool {
    match (got, want) {
        (Ok(()), Ok(())) => true,
        (Err(Error::Refused { .. } | Error::Rx(_)), Err(RxError::NoQp(_))) => true,
        (Err(Error::Rx(g)), Err(w)) => g == w,
        _ => false,
    }
}

#[test]
fn rx_ctrl() {
    let run = "firmware_rx_ctrl";
    let seed = stream::seed(run);
    let mut rng = rocenic_sim::stream::rng(seed);

    // The send side: a QP in every slot but 3 and 6.
    let mut qps = QpTable::<8>::new(Profile::Linux);
    let mut sq = 0u64;
    let mut send: Vec<u32> = Vec::new();
    for (n, slot) in [0, 1, 2, 4, 5, 7].into_iter().enumerate() {
        let qpn = (rng.gen_range(1..1 << 21) << 3) | slot;
        qps.create(qpn, config(&mut rng, n % 2 == 1)).unwrap();
        sq |= 1 << slot;
        send.push(qpn);
    }
    // Two more QPs in the model's table, in the slots of the first and the fifth: the model
    // refuses a second receive side in a slot (`SlotTaken`) whoever holds it; the block sees
    // only that the send side's slot holds a QP.
    let mut twins: Vec<u32> = Vec::new();
    for slot in [0, 5] {
        let qpn = (rng.gen_range(1..1 << 21) << 3) | slot;
        if qps.create(qpn, config(&mut rng, slot == 5)).is_ok() {
            twins.push(qpn);
        }
    }
    let mut bench = Bench::<RxCtrl8>::new(run, seed, 8, 8, quiet(), 0.3);
    bench.set_sq_valid(sq);
    let mut fw: Rx = RxPath::open(CtrlBus::new(bench)).unwrap();
    assert_eq!((fw.caps().wqs, fw.caps().qps), (8, 8));
    let mut model = RecvEngine::<8, 8>::new();
    // Each slot's context as attached: QPN, target, config, first PSN.
    let mut ctxs: BTreeMap<usize, (u32, Target, QpConfig, Psn)> = BTreeMap::new();
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut note = |what: String| *seen.entry(what).or_default() += 1;
    let (mut ctx_reads, mut q_reads) = (0u32, 0u32);

    for round in 0..16u64 {
        for i in 0..40u64 {
            let w = rng.gen_range(0..10u16);
            match rng.gen_range(0..100) {
                0..=19 => {
                    let cfg = wq_config(&mut rng, round * 40 + i);
                    let want = model.create_wq(w, cfg);
                    let got = fw.create_wq(w, &cfg);
                    assert!(same(&got, &want), "create_wq({w}): {got:?}, model {want:?}");
                    note(format!("create_wq {}", kind(&want)));
                }
                20..=39 => {
                    let to = state(&mut rng);
                    let want = model.modify_wq(w, to);
                    let got = fw.modify_wq(w, to);
                    assert!(
                        same(&got, &want),
                        "modify_wq({w}, {to:?}): {got:?}, {want:?}"
                    );
                    note(format!("modify_wq {}", kind(&want)));
                }
                40..=47 => {
                    let want = model.destroy_wq(w).map(|_| ());
                    let got = fw.destroy_wq(w);
                    assert!(same(&got, &want), "destroy_wq({w}): {got:?}, {want:?}");
                    note(format!("destroy_wq {}", kind(&want)));
                }
                48..=69 => {
                    let qpn = match rng.gen_range(0..10) {
                        0..=4 => send[rng.gen_range(0..send.len())],
                        // Another QPN only where the send side's slot is empty: the block
                        // sees whether a slot holds a QP, not which (the caller's contract).
                        5 => (rng.gen_range(1..1 << 21) << 3) | [3, 6][rng.gen_range(0..2)],
                        6 | 7 => twins[rng.gen_range(0..twins.len())],
                        8 => rng.gen_range(0..2),
                        _ => rng.gen_range(1 << 24..u32::MAX),
                    };
                    let cfg = match qps.get(qpn) {
                        Some(c) => *c.config(),
                        None => {
                            let ud = rng.gen_bool(0.5);
                            config(&mut rng, ud)
                        }
                    };
                    let target = match rng.gen_range(0..3) {
                        0 => Target::Own(w),
                        1 => Target::Shared(w),
                        _ => Target::Rss,
                    };
                    let epsn = Psn::new(rng.gen_range(0..1 << 24)).unwrap();
                    let want = model.attach(&qps, qpn, target, epsn);
                    let got = fw.attach(qpn, &cfg, target, epsn);
                    let slot = qp_slot(qpn, 8);
                    match (&got, &want) {
                        (Ok(s), Ok(())) => {
                            assert_eq!(*s, slot);
                            ctxs.insert(slot, (qpn, target, cfg, epsn));
                        }
                        (g, w) => assert!(
                            same(&g.map(|_| ()), w),
                            "attach({qpn:#x}, {target:?}): {g:?}, model {w:?}"
                        ),
                    }
                    note(format!(
                        "attach {}{}",
                        kind(&want),
                        if matches!(got, Err(Error::Refused { .. })) {
                            " (block)"
                        } else {
                            ""
                        }
                    ));
                }
                70..=77 => {
                    let qpn = match ctxs.values().nth(rng.gen_range(0..ctxs.len().max(1))) {
                        Some(c) if rng.gen_bool(0.8) => c.0,
                        _ => send[rng.gen_range(0..send.len())],
                    };
                    let want = model.detach(qpn);
                    let got = fw.detach(qpn);
                    assert!(same(&got, &want), "detach({qpn:#x}): {got:?}, {want:?}");
                    if want.is_ok() {
                        ctxs.remove(&qp_slot(qpn, 8));
                    }
                    note(format!("detach {}", kind(&want)));
                }
                78..=93 => {
                    let entries = model.wq(w).map_or(4, |q| q.config.ring.ring().entries());
                    let posted = fw.wq(w).map_or(0, |q| q.posted);
                    // Behind, within the ring, or past it.
                    let ahead = match rng.gen_range(0..10) {
                        0 => rng.gen_range(1..4u32).wrapping_neg(),
                        1 | 2 => entries + rng.gen_range(1..4),
                        _ => rng.gen_range(0..=entries),
                    };
                    let producer = posted.wrapping_add(ahead);
                    let want = model.post(w, producer).map(|_| ());
                    let got = fw.post_receives(w, producer);
                    match (&got, &want) {
                        // The firmware measures from what it rang, the block from its
                        // consumer: a doorbell only the model refuses sets DB_ERROR.
                        (Ok(()), Err(RxError::Doorbell(_))) => {
                            assert!(fw.status().unwrap().db_error, "post({w}, {producer})");
                            fw.clear_errors().unwrap();
                            note("post DB_ERROR".into());
                        }
                        (Err(Error::Doorbell(_)), Err(RxError::Doorbell(_))) => {
                            note("post refused by the firmware".into())
                        }
                        (g, m) => {
                            assert!(same(g, m), "post({w}, {producer}): {g:?}, {m:?}");
                            if g.is_ok() {
                                assert!(!fw.status().unwrap().db_error, "post({w}, {producer})");
                            }
                            note(format!("post {}", kind(m)));
                        }
                    }
                }
                _ => {
                    let want = model.cq_doorbell(w, 0).map(|_| ());
                    let got = fw.release_completions(w, 0);
                    assert!(same(&got, &want), "release({w}): {got:?}, {want:?}");
                    if want.is_ok() {
                        assert_eq!(fw.cq_producer(w), Ok(0));
                        assert!(!fw.status().unwrap().db_error);
                    }
                    note(format!("release {}", kind(&want)));
                }
            }
        }

        // The data path reads every slot and queue a few times; nothing changes meanwhile.
        let from = fw.bus().events.len();
        fw.bus_mut().bench.set_data_path(reader());
        for _ in 0..600 {
            fw.bus_mut().step();
        }
        fw.bus_mut().bench.set_data_path(quiet());
        while fw.bus().bench.busy() {
            fw.bus_mut().step();
        }
        for t in &fw.bus().events[from..] {
            match t.event {
                Event::CtxRead(s, c) => {
                    ctx_reads += 1;
                    let want = ctxs.get(&usize::from(s));
                    assert_eq!(c.valid, want.is_some(), "slot {s} at {}", t.at);
                    if let Some(&(qpn, target, cfg, epsn)) = want {
                        let (kind, wq) = match target {
                            Target::Own(w) => (0, w as u8),
                            Target::Shared(w) => (1, w as u8),
                            Target::Rss => (2, c.wq),
                        };
                        assert_eq!(
                            (c.qpn, c.kind, c.wq, c.ud, c.mtu, c.pd, c.qkey),
                            (
                                qpn,
                                kind,
                                wq,
                                cfg.qp_type == QpKind::Ud,
                                cfg.mtu.code(),
                                cfg.pd,
                                cfg.q_key
                            ),
                            "slot {s} at {}",
                            t.at
                        );
                        assert_eq!((c.rcv.epsn, c.rcv.msg), (epsn.get(), 0), "slot {s}");
                        assert_eq!(model.expected_psn(qpn), Some(epsn));
                    }
                }
                Event::QRead(w, v) => {
                    q_reads += 1;
                    let want = model.wq(w.into());
                    assert_eq!(v.valid, want.is_some(), "queue {w} at {}", t.at);
                    if let Some(q) = want {
                        let c = q.config;
                        let consumer = q.doorbell.consumer();
                        let producer = q.cq.producer();
                        assert_eq!(
                            (
                                v.state,
                                v.pending,
                                v.room,
                                v.raw,
                                v.qpn,
                                v.pd,
                                v.stride_log2,
                                v.consumer,
                                v.wqe_addr,
                                v.cq_producer,
                                v.cqe_addr,
                            ),
                            (
                                q.state as u8,
                                q.doorbell.pending() > 0,
                                q.cq_room(),
                                c.raw,
                                c.qpn,
                                c.pd,
                                c.ring.stride_blocks().trailing_zeros() as u8,
                                consumer,
                                c.ring.addr(consumer),
                                producer,
                                q.cqe_addr(producer),
                            ),
                            "queue {w} at {}",
                            t.at
                        );
                        let fwq = fw.wq(w.into()).expect("the firmware knows it");
                        assert_eq!((fwq.config, fwq.state), (c, q.state));
                    }
                }
                _ => {}
            }
        }
    }

    // A second receive side in a slot, whoever holds it: the model's SlotTaken (the block sees
    // the send side's slot hold a QP and would take it).
    if model.wq(0).is_none() {
        let cfg = wq_config(&mut rng, 1000);
        let cfg = WqConfig { qpn: 2, ..cfg };
        model.create_wq(0, cfg).unwrap();
        fw.create_wq(0, &cfg).unwrap();
    }
    for &twin in &twins {
        let slot = qp_slot(twin, 8);
        let holder = send[send.iter().position(|&q| qp_slot(q, 8) == slot).unwrap()];
        let (first, second) = match ctxs.get(&slot) {
            Some(&(q, ..)) if q == twin => (None, holder),
            Some(_) => (None, twin),
            None => (Some(holder), twin),
        };
        for qpn in first.into_iter().chain([second]) {
            let cfg = *qps.get(qpn).unwrap().config();
            let want = model.attach(&qps, qpn, Target::Shared(0), Psn::new(0).unwrap());
            let got = fw.attach(qpn, &cfg, Target::Shared(0), Psn::new(0).unwrap());
            assert!(
                same(&got.map(|_| ()), &want),
                "attach({qpn:#x}): {got:?}, {want:?}"
            );
            if want.is_ok() {
                ctxs.insert(slot, (qpn, Target::Shared(0), cfg, Psn::new(0).unwrap()));
            }
            note(format!("attach {}", kind(&want)));
        }
    }

    // Every queue a context names stays.
    for &(_, target, _, _) in ctxs.values() {
        if let Target::Own(w) | Target::Shared(w) = target {
            let want = model.destroy_wq(w).map(|_| ());
            let got = fw.destroy_wq(w);
            assert!(same(&got, &want), "destroy_wq({w}): {got:?}, {want:?}");
            note(format!("destroy_wq {}", kind(&want)));
        }
    }

    eprintln!(
        "{run}: {} register accesses, {ctx_reads} context and {q_reads} queue reads; {seen:?}",
        fw.bus().accesses
    );
    assert!(ctx_reads > 100 && q_reads > 100);
    for want in [
        "create_wq Ok",
        "create_wq Err(WqRange",
        "create_wq Err(WqExists",
        "create_wq Err(Qpn",
        "modify_wq Ok",
        "modify_wq Err(Transition",
        "modify_wq Err(NoWq",
        "destroy_wq Ok",
        "destroy_wq Err(InUse",
        "attach Ok",
        "attach Err(NoQp (block)",
        "attach Err(Qpn",
        "attach Err(RssNotUd",
        "attach Err(NoWq",
        "attach Err(SlotTaken",
        "attach Err(Attached",
        "detach Ok",
        "detach Err(NotAttached",
        "post Ok",
        "post DB_ERROR",
        "post refused by the firmware",
        "release Ok",
    ] {
        assert!(
            seen.keys().any(|k| k.starts_with(want)),
            "{want} never came up (seed {seed})"
        );
    }
}

/// The outcome's variant name: what coverage counts.
fn kind(r: &Result<(), RxError>) -> String {
    match r {
        Ok(()) => "Ok".into(),
        Err(e) => {
            let s = format!("{e:?}");
            format!("Err({}", s.split(['(', ' ']).next().unwrap_or(""))
        }
    }
}
