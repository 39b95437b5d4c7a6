//! The reliable transport end to end through the driver, on a wire that loses, corrupts and
//! duplicates frames: two NICs exchange random messages (SEND, SEND with immediate, RDMA WRITE
//! with and without immediate, 1 B to 6 KB) on three RC QPs, each sending both ways, with
//! path MTUs of 256, 1024 and 4096 bytes over IPv4 and IPv6 and PSNs that cross 2^24. Each
//! message must land once, byte for byte, and every work request complete once, in order, with
//! its status, opcode, length and immediate; then nothing more may complete.
//!
//! The same test runs on the reference model's NICs (`ModelRc`) and on two co-simulated cores
//! built with the transport (`CoreRc`, `nic_core_rel`): both against what the messages say,
//! which is what the model's verbs semantics give. The wire's faults are drawn from the printed
//! seed, so a run replays with `ROCENIC_SEED`.

use rand::Rng;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::model_device::Side;
use rocenic_host_driver::verbs::{
    run_together, AccessFlags, Completion, CompletionQueue, Context, Data, InitAttr, PathMtu, Psn,
    QpInitAttr, QpType, QueuePair, RecvWr, RemoteAddr, RtrAttr, RtsAttr, SendOp, SendWr, WcOpcode,
    WcStatus,
};
use rocenic_model::link::Faults;
use rocenic_tests::{ah_to, open, seeded, Backend, CoreRc, ModelRc};
use std::collections::VecDeque;

/// Messages each way on each QP.
const MESSAGES: usize = 12;
/// The QPs: path MTU, IPv6, first PSN (the last crosses 2^24).
const QPS: [(PathMtu, bool, u32); 3] = [
    (PathMtu::Mtu1024, false, 0x100),
    (PathMtu::Mtu256, true, 0xFF_FFF0),
    (PathMtu::Mtu4096, false, 0x8000),
];
/// The largest message.
const MAX_LEN: u32 = 6000;
/// Each message's landing slot at the receiver, and the source bytes' span at the sender.
const SLOT: u64 = 8192;
const SOURCE: u64 = 64 * 1024;
/// Cycles a run may go without a completion before it is called a hang.
const STALL: u64 = 400_000;

/// One message: what was posted and where it lands.
#[derive(Clone, Debug)]
struct Msg {
    id: u64,
    op: WcOpcode,
    imm: Option<u32>,
    from: u64,
    len: u32,
    /// The landing slot's index at the receiver.
    slot: u64,
}

impl Msg {
    /// It consumes a receive work request at the peer.
    fn takes_recv(&self) -> bool {
        self.op != WcOpcode::RdmaWrite || self.imm.is_some()
    }
}

fn messages(r: &mut impl Rng, qp: usize, side: usize) -> Vec<Msg> {
    (0..MESSAGES)
        .map(|k| {
            let (op, imm) = match r.gen_range(0..4) {
                0 => (WcOpcode::Send, None),
                1 => (WcOpcode::Send, Some(r.gen())),
                2 => (WcOpcode::RdmaWrite, None),
                _ => (WcOpcode::RdmaWrite, Some(r.gen())),
            };
            let len = if r.gen_bool(0.2) {
                r.gen_range(1..=64)
            } else {
                r.gen_range(1..=MAX_LEN)
            };
            Msg {
                id: (side as u64) << 32 | (qp as u64) << 16 | k as u64,
                op,
                imm,
                from: r.gen_range(0..SOURCE - u64::from(len)),
                len,
                slot: (qp * MESSAGES + k) as u64,
            }
        })
        .collect()
}

fn bring_up<D: Device>(q: &mut QueuePair<'_, D>, peer: u32, other: u8, qp: usize, mine: bool) {
    let (mtu, v6, psn) = QPS[qp];
    // Each side's first PSN differs, so an ACK for the wrong direction cannot pass.
    let (sq, rq) = if mine {
        (psn, psn ^ 0x55)
    } else {
        (psn ^ 0x55, psn)
    };
    let p = |v: u32| Psn::new(v & 0xFF_FFFF).unwrap();
    q.bring_up(
        InitAttr {
            access: AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE),
            ..InitAttr::default()
        },
        RtrAttr::rc(mtu, peer, p(rq), ah_to(other, v6)),
        RtsAttr::new(p(sq)),
    )
    .expect("RC to RTS");
}

/// Polls every CQ until `want[i]` completions came on CQ `i`, both NICs running; panics with
/// the cycle of the last completion when none comes for [`STALL`] cycles.
fn drain<D: Device>(
    cqs: &[&CompletionQueue<'_, D>],
    want: &[usize],
    nics: &[&Context<D>],
) -> Vec<Vec<Completion>> {
    let mut got: Vec<Vec<Completion>> = vec![Vec::new(); cqs.len()];
    let (mut cycle, mut last) = (0u64, 0u64);
    while got.iter().zip(want).any(|(g, &w)| g.len() < w) {
        for (i, cq) in cqs.iter().enumerate() {
            let more = cq.poll(64).expect("poll");
            if !more.is_empty() {
                last = cycle;
            }
            got[i].extend(more);
        }
        let counts: Vec<usize> = got.iter().map(Vec::len).collect();
        assert!(
            cycle - last < STALL,
            "a hang: completions {counts:?} of {want:?}, the last at cycle {last} (now {cycle})"
        );
        run_together(nics, 64).expect("the devices run");
        cycle += 64;
    }
    got
}

fn messages_over_a_faulty_wire<B: Backend>(backend: &mut B, r: &mut impl Rng) {
    let (a, b) = open(backend);
    let nics = [&a, &b];
    let remote = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let land_len = (QPS.len() * MESSAGES) as u64 * SLOT;
    let pds = [a.alloc_pd().unwrap(), b.alloc_pd().unwrap()];
    // Send and receive completions on separate CQs, so each arrives in its queue's order.
    let scq = [a.create_cq(256).unwrap(), b.create_cq(256).unwrap()];
    let rcq = [a.create_cq(256).unwrap(), b.create_cq(256).unwrap()];
    let src = [
        a.alloc_buffer(SOURCE).unwrap(),
        b.alloc_buffer(SOURCE).unwrap(),
    ];
    let land = [
        a.alloc_buffer(land_len).unwrap(),
        b.alloc_buffer(land_len).unwrap(),
    ];
    let data: Vec<Vec<u8>> = (0..2)
        .map(|_| (0..SOURCE).map(|_| r.gen()).collect())
        .collect();
    for s in 0..2 {
        src[s].write(0, &data[s]).unwrap();
    }
    let mr_src = [
        pds[0].reg_mr(&src[0], AccessFlags::LOCAL_WRITE).unwrap(),
        pds[1].reg_mr(&src[1], AccessFlags::LOCAL_WRITE).unwrap(),
    ];
    let mr_land = [
        pds[0].reg_mr(&land[0], remote).unwrap(),
        pds[1].reg_mr(&land[1], remote).unwrap(),
    ];
    let attr = QpInitAttr {
        max_send_wr: 64,
        max_recv_wr: 64,
        max_recv_sge: 1,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qps: [Vec<QueuePair<'_, _>>; 2] = [
        (0..QPS.len())
            .map(|_| pds[0].create_qp_with_cqs(&scq[0], &rcq[0], &attr).unwrap())
            .collect(),
        (0..QPS.len())
            .map(|_| pds[1].create_qp_with_cqs(&scq[1], &rcq[1], &attr).unwrap())
            .collect(),
    ];
    let [qa, qb] = &mut qps;
    for (q, (x, y)) in qa.iter_mut().zip(qb.iter_mut()).enumerate() {
        let (na, nb) = (x.qp_num(), y.qp_num());
        bring_up(x, nb, 2, q, true);
        bring_up(y, na, 1, q, false);
    }
    // msgs[s][q]: what side s sends on QP q.
    let msgs: Vec<Vec<Vec<Msg>>> = (0..2)
        .map(|s| (0..QPS.len()).map(|q| messages(r, q, s)).collect())
        .collect();
    // The receives first, one per message that takes one, into its landing slot.
    for (s, mine) in msgs.iter().enumerate() {
        let peer = 1 - s;
        for (q, sent) in mine.iter().enumerate() {
            for m in sent.iter().filter(|m| m.takes_recv()) {
                let sgl = [mr_land[peer].sge(m.slot * SLOT, SLOT as u32).unwrap()];
                qps[peer][q]
                    .post_recv(&RecvWr {
                        wr_id: m.id,
                        sgl: &sgl,
                    })
                    .unwrap();
            }
        }
    }
    for s in 0..2 {
        let peer = 1 - s;
        for q in 0..QPS.len() {
            let sgls: Vec<_> = msgs[s][q]
                .iter()
                .map(|m| [mr_src[s].sge(m.from, m.len).unwrap()])
                .collect();
            let wrs: Vec<SendWr<'_>> = msgs[s][q]
                .iter()
                .zip(&sgls)
                .map(|(m, sgl)| {
                    let at = RemoteAddr {
                        addr: mr_land[peer].addr() + m.slot * SLOT,
                        rkey: mr_land[peer].rkey(),
                    };
                    let op = match (m.op, m.imm) {
                        (WcOpcode::Send, None) => SendOp::Send,
                        (WcOpcode::Send, Some(i)) => SendOp::SendWithImm(i),
                        (_, None) => SendOp::RdmaWrite(at),
                        (_, Some(i)) => SendOp::RdmaWriteWithImm(at, i),
                    };
                    SendWr::new(m.id, op, Data::Sgl(sgl)).signaled()
                })
                .collect();
            qps[s][q].post_send_list(&wrs).unwrap();
        }
    }
    let sends = QPS.len() * MESSAGES;
    let recvs: Vec<usize> = (0..2)
        .map(|s| {
            msgs[1 - s]
                .iter()
                .flatten()
                .filter(|m| m.takes_recv())
                .count()
        })
        .collect();
    let got = drain(
        &[&scq[0], &scq[1], &rcq[0], &rcq[1]],
        &[sends, sends, recvs[0], recvs[1]],
        &nics,
    );
    // Late ACKs, duplicates and resends may still cross: nothing more may complete.
    run_together(&nics, 50_000).expect("the devices run");
    for cq in scq.iter().chain(&rcq) {
        let extra = cq.poll(16).unwrap();
        assert!(extra.is_empty(), "completions after the last: {extra:?}");
    }

    for s in 0..2 {
        let peer = 1 - s;
        // The sender's completions: each QP's in posting order, each once, successful.
        let mut want: Vec<VecDeque<&Msg>> = msgs[s].iter().map(|v| v.iter().collect()).collect();
        for c in &got[s] {
            let q = (0..QPS.len())
                .find(|&q| qps[s][q].qp_num() == c.qp_num())
                .unwrap_or_else(|| panic!("side {s}: a completion of no QP: {c:?}"));
            let m = want[q]
                .pop_front()
                .unwrap_or_else(|| panic!("side {s} QP {q}: one completion too many: {c:?}"));
            assert_eq!(c.status(), WcStatus::Success, "side {s} QP {q}: {c:?}");
            assert_eq!(c.wr_id(), m.id, "side {s} QP {q}: out of order: {c:?}");
            assert!(!c.is_recv(), "{c:?}");
        }
        // The receiver's: each QP's in order of the messages that take a receive.
        let mut want: Vec<VecDeque<&Msg>> = msgs[s]
            .iter()
            .map(|v| v.iter().filter(|m| m.takes_recv()).collect())
            .collect();
        for c in &got[2 + peer] {
            let q = (0..QPS.len())
                .find(|&q| qps[peer][q].qp_num() == c.qp_num())
                .unwrap_or_else(|| panic!("side {peer}: a receive of no QP: {c:?}"));
            let m = want[q]
                .pop_front()
                .unwrap_or_else(|| panic!("side {peer} QP {q}: a receive too many: {c:?}"));
            let op = match m.op {
                WcOpcode::Send => WcOpcode::Recv,
                _ => WcOpcode::RecvRdmaWithImm,
            };
            assert_eq!(c.status(), WcStatus::Success, "{c:?}");
            assert_eq!(
                (c.wr_id(), c.opcode(), c.byte_len(), c.imm_data()),
                (m.id, Some(op), m.len, m.imm),
                "side {peer} QP {q}: {m:?}"
            );
        }
        // Every message's bytes where they landed.
        for m in msgs[s].iter().flatten() {
            let mut v = vec![0; m.len as usize];
            land[peer].read(m.slot * SLOT, &mut v).unwrap();
            let want = &data[s][m.from as usize..][..m.len as usize];
            assert!(v == want, "side {s} message {m:?}: the bytes landed differ");
        }
    }
}

/// The faults: 2 % lost, 0.5 % corrupted, 0.5 % doubled, each way.
const FAULTS: Faults = Faults {
    loss: 0.02,
    corrupt: 0.005,
    duplicate: 0.005,
};

#[test]
fn model_clean_wire() {
    let (seed, mut r) = seeded("rc_lossy::model_clean_wire");
    messages_over_a_faulty_wire(&mut ModelRc::lossy(Faults::NONE, seed), &mut r);
}

#[test]
fn model_faulty_wire() {
    let (seed, mut r) = seeded("rc_lossy::model_faulty_wire");
    let mut backend = ModelRc::lossy(FAULTS, seed);
    messages_over_a_faulty_wire(&mut backend, &mut r);
    let lost = backend.link().fates(Side::A);
    eprintln!(
        "model: {} frames from a, faults {:?}",
        lost.len(),
        count(&lost)
    );
}

#[test]
fn rtl_clean_wire() {
    let (seed, mut r) = seeded("rc_lossy::rtl_clean_wire");
    let mut backend = CoreRc::lossy(Faults::NONE, seed);
    messages_over_a_faulty_wire(&mut backend, &mut r);
    // On a clean wire the timeout never fires: nothing is sent twice.
    for side in [Side::A, Side::B] {
        let sent = backend.link().sent(side);
        let mut seen = std::collections::HashSet::new();
        for f in &sent {
            assert!(seen.insert(f.clone()), "{side:?} sent a frame twice");
        }
    }
}

#[test]
fn rtl_faulty_wire() {
    let (seed, mut r) = seeded("rc_lossy::rtl_faulty_wire");
    let mut backend = CoreRc::lossy(FAULTS, seed);
    messages_over_a_faulty_wire(&mut backend, &mut r);
    report(&backend);
}

/// A tenth of the frames lost each way, and more corrupted and doubled: resends on resends,
/// lost NAKs and ACKs, timeouts.
#[test]
fn rtl_very_faulty_wire() {
    let (seed, mut r) = seeded("rc_lossy::rtl_very_faulty_wire");
    let faults = Faults {
        loss: 0.1,
        corrupt: 0.02,
        duplicate: 0.02,
    };
    let mut backend = CoreRc::lossy(faults, seed);
    messages_over_a_faulty_wire(&mut backend, &mut r);
    report(&backend);
}

fn report(backend: &CoreRc) {
    let frames = backend.link().frames();
    let lost = frames.iter().filter(|f| f.lost()).count();
    let sent: Vec<usize> = [Side::A, Side::B]
        .into_iter()
        .map(|s| backend.link().sent(s).len())
        .collect();
    eprintln!("rtl: {sent:?} frames sent by a and b; {lost} of them lost");
}

fn count(f: &[rocenic_model::link::Fate]) -> [usize; 4] {
    use rocenic_model::link::Fate;
    let mut n = [0; 4];
    for x in f {
        n[match x {
            Fate::Pass => 0,
            Fate::Lost => 1,
            Fate::Corrupt { .. } => 2,
            Fate::Duplicate => 3,
        }] += 1;
    }
    n
}

/// Settings the registers cannot hold fail the open before any QP: a timeout above 31, a
/// window of 0.
#[test]
fn rtl_settings_out_of_range_are_refused() {
    use rocenic_host_driver::verbs::{Error, Invalid, OpenAttr};
    use rocenic_sim::link::Config as LinkConfig;
    use rocenic_sim::top::core::Load;
    use rocenic_sim::top::device::{CoreDevice, TRANSPORT};
    for bad in [
        rocenic_model::rc::Reliable {
            timeout: 32,
            ..TRANSPORT
        },
        rocenic_model::rc::Reliable {
            max_inflight: 0,
            ..TRANSPORT
        },
    ] {
        let (a, _b, _) = CoreDevice::pair_reliable(&Load::ideal(), LinkConfig::default(), 1, bad);
        match Context::open(a, &OpenAttr::default()) {
            Err(Error::Invalid(Invalid::Attr(what))) => {
                assert!(what.starts_with("transport settings"), "{what}")
            }
            Err(e) => panic!("{bad:?}: {e:?}"),
            Ok(_) => panic!("{bad:?} opened"),
        }
    }
}
