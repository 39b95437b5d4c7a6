//! Shared receive queues: two RC QPs of b on one SRQ, a's multi-packet messages to them
//! delivered with their packets interleaved (so a later WQE completes before an earlier one),
//! every receive completing once with its own wr_id into its QP's receive CQ; a slot held by a
//! message in progress is not reused; an SRQ QP's failure leaves the SRQ serving the other; a
//! QP reset in the middle of a message gives the SRQ's receive back; the SRQ's limits and
//! refusals.

use rand::Rng;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    errno, run_together, AccessFlags, Completion, CompletionQueue, Data, Error, Exhausted,
    InitAttr, PathMtu, ProtectionDomain, Psn, QpAttr, QpInitAttr, QpType, QueuePair, RecvWr,
    RtrAttr, RtsAttr, SendOp, SendWr, SharedReceiveQueue, SrqInitAttr, WcStatus,
};
use rocenic_model::rx::packet::{classify, Incoming};
use rocenic_tests::{ah_to, connect, on_every_backend, open, seeded, wait, Backend};

on_every_backend!(
    interleaved,
    slot_held,
    err_mid_message,
    reset_mid_message,
    errors_and_limits
);

/// a's frames by destination QP, in the order sent.
fn frames_to<B: Backend>(backend: &B, qpn: u32) -> Vec<Vec<u8>> {
    backend
        .sent_by_a()
        .into_iter()
        .filter(|f| matches!(classify(f), Ok(Incoming::Roce(p)) if p.dest_qpn == qpn))
        .collect()
}

/// An RC QP attribute set without receives of its own.
fn rc_attr() -> QpInitAttr {
    QpInitAttr::new(QpType::Rc)
}

/// Two RC QPs of a (completing into `cqa`), each connected to one of two RC QPs of b on `srq`
/// (sending into `scq`, receiving into `rcqs`), which stay in RESET: `([qa1, qa2], [qb1, qb2])`.
fn two_pairs<'q, D: Device>(
    pda: &'q ProtectionDomain<'q, D>,
    cqa: &'q CompletionQueue<'q, D>,
    srq: &'q SharedReceiveQueue<'q, D>,
    scq: &'q CompletionQueue<'q, D>,
    rcqs: [&'q CompletionQueue<'q, D>; 2],
) -> ([QueuePair<'q, D>; 2], [QueuePair<'q, D>; 2]) {
    let qb = rcqs.map(|rcq| srq.create_qp(scq, rcq, &rc_attr()).unwrap());
    let qa = [0, 1].map(|i| {
        let mut q = pda.create_qp(cqa, &QpInitAttr::new(QpType::Rc)).unwrap();
        connect(&mut q, qb[i].qp_num(), 2);
        q
    });
    (qa, qb)
}

/// b's QP `q` to RTS, connected to a's `peer`.
fn up<D: Device>(q: &mut QueuePair<'_, D>, peer: u32) {
    q.bring_up(
        InitAttr {
            access: AccessFlags::LOCAL_WRITE,
            ..InitAttr::default()
        },
        RtrAttr::rc(
            PathMtu::Mtu1024,
            peer,
            Psn::new(0xFF_FFF0).unwrap(),
            ah_to(1, false),
        ),
        RtsAttr::new(Psn::new(0xFF_FFF0).unwrap()),
    )
    .unwrap();
}

/// Eight messages of one to three packets from two QPs of a, their packets interleaved at
/// random (each QP's in order), into one SRQ of eight receives on b.
fn interleaved<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("srq_interleaved");
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let cqa = a.create_cq(64).unwrap();
    let (scq, rcq1, rcq2) = (
        b.create_cq(8).unwrap(),
        b.create_cq(8).unwrap(),
        b.create_cq(8).unwrap(),
    );
    let src = a.alloc_buffer(32 * 1024).unwrap();
    let dst = b.alloc_buffer(32 * 1024).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let data: Vec<u8> = (0..32 * 1024).map(|_| r.gen()).collect();
    src.write(0, &data).unwrap();
    let srq = pdb
        .create_srq(&SrqInitAttr {
            max_wr: 8,
            max_sge: 2,
            srq_limit: 0,
        })
        .unwrap();
    let ([mut qa1, mut qa2], [mut qb1, mut qb2]) =
        two_pairs(&pda, &cqa, &srq, &scq, [&rcq1, &rcq2]);
    // a sends while b's QPs are not up: b drops every frame, the test delivers them again.
    let lens: Vec<u32> = (0..8).map(|_| r.gen_range(1..=3000)).collect();
    let sgls: Vec<_> = (0..8u64)
        .map(|i| [mra.sge(i * 3072, lens[i as usize]).unwrap()])
        .collect();
    for (i, g) in sgls.iter().enumerate() {
        let q = if i % 2 == 0 { &mut qa1 } else { &mut qa2 };
        q.post_send(&SendWr::new(i as u64, SendOp::Send, Data::Sgl(g)).signaled())
            .unwrap();
    }
    assert_eq!(wait(&cqa, 8, &[&a, &b]).len(), 8);
    run_together(&[&a, &b], 64).unwrap();
    up(&mut qb1, qa1.qp_num());
    up(&mut qb2, qa2.qp_num());
    for i in 0..8u64 {
        let sgl = [mrb.sge(i * 4096, 4096).unwrap()];
        srq.post_recv(&RecvWr {
            wr_id: 100 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    assert_eq!(srq.used(), 8);
    let mut f1 = frames_to(backend, qb1.qp_num()).into_iter().peekable();
    let mut f2 = frames_to(backend, qb2.qp_num()).into_iter().peekable();
    // Which WQE each message takes: the order of their first packets.
    let first = |f: &[u8]| match classify(f) {
        Ok(Incoming::Roce(p)) => matches!(p.opcode, 0x00 | 0x04),
        _ => false,
    };
    let (mut msgs1, mut msgs2) = ((0..8).step_by(2), (1..8).step_by(2));
    let mut taken = Vec::new();
    while f1.peek().is_some() || f2.peek().is_some() {
        let one = f2.peek().is_none() || (f1.peek().is_some() && r.gen());
        let (f, msgs) = if one {
            (f1.next().unwrap(), &mut msgs1)
        } else {
            (f2.next().unwrap(), &mut msgs2)
        };
        if first(&f) {
            taken.push(msgs.next().unwrap());
        }
        backend.inject(&b, &f);
    }
    let mut got: Vec<Completion> = wait(&rcq1, 4, &[&a, &b]);
    got.extend(wait(&rcq2, 4, &[&a, &b]));
    assert_eq!(srq.used(), 0);
    let mut seen = [false; 8];
    for c in &got {
        assert_eq!(c.status(), WcStatus::Success, "{c:?}");
        assert_eq!(c.wq_num(), Some(srq.wq_num()));
        let wqe = (c.wr_id() - 100) as usize;
        assert!(!seen[wqe], "wr_id {} twice", c.wr_id());
        seen[wqe] = true;
        let m = taken[wqe];
        let want_qp = if m % 2 == 0 {
            qb1.qp_num()
        } else {
            qb2.qp_num()
        };
        assert_eq!((c.qp_num(), c.byte_len()), (want_qp, lens[m]), "{c:?}");
        assert_eq!(c.wqe_index() as usize, wqe);
        let mut v = vec![0; lens[m] as usize];
        dst.read(wqe as u64 * 4096, &mut v).unwrap();
        let off = m * 3072;
        assert_eq!(v, data[off..off + v.len()], "message {m} in WQE {wqe}");
    }
    assert!(scq.poll(8).unwrap().is_empty());
}

/// A two-entry SRQ: the second message completes while the first is in progress; its slot is
/// free, the first's is not, so the next receive (which would land on the first's slot) is
/// refused until the first completes.
fn slot_held<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(8192).unwrap();
    let dst = b.alloc_buffer(16 * 1024).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let data: Vec<u8> = (0..8192u32).map(|i| (i % 253) as u8).collect();
    src.write(0, &data).unwrap();
    let srq = pdb
        .create_srq(&SrqInitAttr {
            max_wr: 2,
            max_sge: 1,
            srq_limit: 0,
        })
        .unwrap();
    assert_eq!(srq.entries(), 2);
    let ([mut qa1, mut qa2], [mut qb1, mut qb2]) = two_pairs(&pda, &cqa, &srq, &cqb, [&cqb, &cqb]);
    let (s1, s2) = ([mra.sge(0, 2500).unwrap()], [mra.sge(4096, 2100).unwrap()]);
    qa1.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&s1)).signaled())
        .unwrap();
    qa2.post_send(&SendWr::new(2, SendOp::Send, Data::Sgl(&s2)).signaled())
        .unwrap();
    assert_eq!(wait(&cqa, 2, &[&a, &b]).len(), 2);
    run_together(&[&a, &b], 64).unwrap();
    up(&mut qb1, qa1.qp_num());
    up(&mut qb2, qa2.qp_num());
    let post = |wr_id: u64, at: u64| {
        let sgl = [mrb.sge(at, 4096).unwrap()];
        srq.post_recv(&RecvWr { wr_id, sgl: &sgl })
    };
    post(10, 0).unwrap();
    post(11, 4096).unwrap();
    let (m1, m2) = (
        frames_to(backend, qb1.qp_num()),
        frames_to(backend, qb2.qp_num()),
    );
    assert_eq!((m1.len(), m2.len()), (3, 3));
    // m1 FIRST takes WQE 10, m2 FIRST takes 11; m2 completes, m1 is still in progress.
    for f in [&m1[0], &m2[0], &m1[1], &m2[1], &m2[2]] {
        backend.inject(&b, f);
    }
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].byte_len()),
        (11, qb2.qp_num(), 2100)
    );
    assert_eq!(srq.used(), 1);
    // Index 2 lands on WQE 10's slot, which m1 still reads at each packet.
    let e = post(12, 8192).unwrap_err();
    assert_eq!(
        e,
        Error::Exhausted(Exhausted::RecvQueue {
            wq: srq.wq_num(),
            entries: 2
        })
    );
    backend.inject(&b, &m1[2]);
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].byte_len()),
        (10, qb1.qp_num(), 2500)
    );
    let mut v = vec![0; 2500];
    dst.read(0, &mut v).unwrap();
    assert_eq!(v, data[..2500]);
    let mut v = vec![0; 2100];
    dst.read(4096, &mut v).unwrap();
    assert_eq!(v, data[4096..6196]);
    post(12, 8192).unwrap();
    post(13, 12288).unwrap();
    assert_eq!(post(14, 0).unwrap_err().errno(), errno::ENOMEM);
}

/// A QP moved to ERR in the middle of a message: the SRQ receive that message took completes
/// `WR_FLUSH_ERR` on that QP (verbs completes work in progress in error), its slot is free
/// again, and the SRQ goes on serving the other QP.
fn err_mid_message<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(8192).unwrap();
    let dst = b.alloc_buffer(16 * 1024).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let data: Vec<u8> = (0..8192u32).map(|i| (i % 251) as u8).collect();
    src.write(0, &data).unwrap();
    let srq = pdb
        .create_srq(&SrqInitAttr {
            max_wr: 2,
            max_sge: 1,
            srq_limit: 0,
        })
        .unwrap();
    let ([mut qa1, mut qa2], [mut qb1, mut qb2]) = two_pairs(&pda, &cqa, &srq, &cqb, [&cqb, &cqb]);
    let (s1, s2) = ([mra.sge(0, 2500).unwrap()], [mra.sge(4096, 2100).unwrap()]);
    qa1.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&s1)).signaled())
        .unwrap();
    qa2.post_send(&SendWr::new(2, SendOp::Send, Data::Sgl(&s2)).signaled())
        .unwrap();
    qa2.post_send(&SendWr::new(3, SendOp::Send, Data::Sgl(&s2)).signaled())
        .unwrap();
    assert_eq!(wait(&cqa, 3, &[&a, &b]).len(), 3);
    run_together(&[&a, &b], 64).unwrap();
    up(&mut qb1, qa1.qp_num());
    up(&mut qb2, qa2.qp_num());
    let post = |wr_id: u64, at: u64| {
        let sgl = [mrb.sge(at, 4096).unwrap()];
        srq.post_recv(&RecvWr { wr_id, sgl: &sgl })
    };
    post(10, 0).unwrap();
    post(11, 4096).unwrap();
    let (m1, m2) = (
        frames_to(backend, qb1.qp_num()),
        frames_to(backend, qb2.qp_num()),
    );
    assert_eq!((m1.len(), m2.len()), (3, 6));
    // m1's FIRST takes WQE 10; qb2's first message takes 11 and completes.
    for f in [&m1[0], &m2[0], &m2[1], &m2[2]] {
        backend.inject(&b, f);
    }
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!((c[0].wr_id(), c[0].status()), (11, WcStatus::Success));
    assert_eq!(srq.used(), 1);
    // qb1 to ERR with its message half in: WQE 10 completes flushed, on qb1.
    qb1.modify(QpAttr::Err).unwrap();
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status()),
        (10, qb1.qp_num(), WcStatus::WrFlushErr)
    );
    assert_eq!(srq.used(), 0);
    // Both slots serve again: qb2's second message lands in one of them.
    post(12, 8192).unwrap();
    post(13, 12288).unwrap();
    backend.inject(&b, &m1[1]);
    for f in &m2[3..] {
        backend.inject(&b, f);
    }
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status(), c[0].byte_len()),
        (12, qb2.qp_num(), WcStatus::Success, 2100)
    );
    let mut v = vec![0; 2100];
    dst.read(8192, &mut v).unwrap();
    assert_eq!(v, data[4096..6196]);
    assert_eq!(srq.used(), 1);
}

/// A QP moved to RESET in the middle of a message: the SRQ receive that message took is not
/// lost with it (the receive path forgets the message at the detach): it completes
/// `WR_FLUSH_ERR` on that QP, the reset keeps that completion in the receive CQ, and its slot
/// is free again; the QP comes back up and receives from the SRQ.
fn reset_mid_message<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(8192).unwrap();
    let dst = b.alloc_buffer(16 * 1024).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let data: Vec<u8> = (0..8192u32).map(|i| (i % 247) as u8).collect();
    src.write(0, &data).unwrap();
    let srq = pdb
        .create_srq(&SrqInitAttr {
            max_wr: 2,
            max_sge: 1,
            srq_limit: 0,
        })
        .unwrap();
    let ([mut qa1, mut qa2], [mut qb1, mut qb2]) = two_pairs(&pda, &cqa, &srq, &cqb, [&cqb, &cqb]);
    let (s1, s2) = ([mra.sge(0, 2500).unwrap()], [mra.sge(4096, 2100).unwrap()]);
    qa1.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&s1)).signaled())
        .unwrap();
    qa2.post_send(&SendWr::new(2, SendOp::Send, Data::Sgl(&s2)).signaled())
        .unwrap();
    assert_eq!(wait(&cqa, 2, &[&a, &b]).len(), 2);
    run_together(&[&a, &b], 64).unwrap();
    up(&mut qb1, qa1.qp_num());
    up(&mut qb2, qa2.qp_num());
    let post = |wr_id: u64, at: u64| {
        let sgl = [mrb.sge(at, 4096).unwrap()];
        srq.post_recv(&RecvWr { wr_id, sgl: &sgl })
    };
    post(10, 0).unwrap();
    post(11, 4096).unwrap();
    let (m1, m2) = (
        frames_to(backend, qb1.qp_num()),
        frames_to(backend, qb2.qp_num()),
    );
    assert_eq!((m1.len(), m2.len()), (3, 3));
    // m1's FIRST takes WQE 10 and stops there; qb2's message takes 11 and completes (so the
    // FIRST, fed before it, is in).
    for f in [&m1[0], &m2[0], &m2[1], &m2[2]] {
        backend.inject(&b, f);
    }
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status(), c[0].byte_len()),
        (11, qb2.qp_num(), WcStatus::Success, 2100)
    );
    assert_eq!(srq.used(), 1);
    // qb1 to RESET (from RTS) with its message half in: WQE 10 completes flushed, on qb1.
    qb1.modify(QpAttr::Reset).unwrap();
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status()),
        (10, qb1.qp_num(), WcStatus::WrFlushErr)
    );
    assert_eq!(srq.used(), 0);
    // Both slots take new receives.
    post(12, 8192).unwrap();
    post(13, 12288).unwrap();
    assert_eq!(srq.used(), 2);
    // qb1 back up receives a whole new message into the SRQ.
    qa1.modify(QpAttr::Reset).unwrap();
    connect(&mut qa1, qb1.qp_num(), 2);
    up(&mut qb1, qa1.qp_num());
    qa1.post_send(&SendWr::new(3, SendOp::Send, Data::Sgl(&s1)).signaled())
        .unwrap();
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status(), c[0].byte_len()),
        (12, qb1.qp_num(), WcStatus::Success, 2500)
    );
    let mut v = vec![0; 2500];
    dst.read(8192, &mut v).unwrap();
    assert_eq!(v, data[..2500]);
    assert_eq!(srq.used(), 1);
}

/// A bad receive on the SRQ fails the QP it was taken for (LOC_PROT_ERR, that QP to ERR); the
/// SRQ stays and serves the other QP. Then the refusals.
fn errors_and_limits<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(4096).unwrap();
    let dst = b.alloc_buffer(8192).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let srq = pdb
        .create_srq(&SrqInitAttr {
            max_wr: 4,
            max_sge: 1,
            srq_limit: 0,
        })
        .unwrap();
    let ([mut qa1, mut qa2], [mut qb1, mut qb2]) = two_pairs(&pda, &cqa, &srq, &cqb, [&cqb, &cqb]);
    up(&mut qb1, qa1.qp_num());
    up(&mut qb2, qa2.qp_num());
    // The first receive has an lkey no region has.
    let mut bad = mrb.sge(0, 1024).unwrap();
    bad.lkey ^= 0x8000;
    srq.post_recv(&RecvWr {
        wr_id: 1,
        sgl: &[bad],
    })
    .unwrap();
    for i in 2..4u64 {
        let sgl = [mrb.sge(i * 1024, 1024).unwrap()];
        srq.post_recv(&RecvWr {
            wr_id: i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let s = [mra.sge(0, 500).unwrap()];
    let send = |q: &mut rocenic_host_driver::verbs::QueuePair<'_, B::Dev>, id| {
        q.post_send(&SendWr::new(id, SendOp::Send, Data::Sgl(&s)).signaled())
            .unwrap()
    };
    send(&mut qa1, 1);
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status()),
        (1, qb1.qp_num(), WcStatus::LocProtErr)
    );
    assert_eq!(qb1.state(), rocenic_host_driver::verbs::QpState::Err);
    // qb1's next message is dropped (its QP is in ERR), the SRQ flushes nothing.
    send(&mut qa1, 2);
    run_together(&[&a, &b], 200).unwrap();
    assert!(cqb.poll(4).unwrap().is_empty());
    assert_eq!(srq.used(), 2);
    // qb2 goes on with the next two receives.
    send(&mut qa2, 3);
    send(&mut qa2, 4);
    let c = wait(&cqb, 2, &[&a, &b]);
    let got: Vec<_> = c
        .iter()
        .map(|c| (c.wr_id(), c.qp_num(), c.status()))
        .collect();
    assert_eq!(
        got,
        [
            (2, qb2.qp_num(), WcStatus::Success),
            (3, qb2.qp_num(), WcStatus::Success)
        ]
    );
    // ibv_post_recv on an SRQ QP, limits.
    let sgl = [mrb.sge(0, 1024).unwrap()];
    let e = qb2
        .post_recv(&RecvWr {
            wr_id: 9,
            sgl: &sgl,
        })
        .unwrap_err();
    assert_eq!(e.errno(), errno::EINVAL, "{e}");
    let srq_with = |max_wr, max_sge, srq_limit| {
        pdb.create_srq(&SrqInitAttr {
            max_wr,
            max_sge,
            srq_limit,
        })
        .err()
        .map(|e| e.errno())
    };
    assert_eq!(srq_with(4, 1, 1), Some(errno::EOPNOTSUPP));
    assert_eq!(srq_with(0, 1, 0), Some(errno::EINVAL));
    assert_eq!(srq_with(1 << 17, 1, 0), Some(errno::EINVAL));
    assert_eq!(srq_with(4, 0, 0), Some(errno::EINVAL));
    assert_eq!(srq_with(4, 64, 0), Some(errno::EINVAL));
    assert_eq!(srq_with(4, 63, 0), None);
    // Too many entries, none, a full SRQ.
    let two = [sgl[0], sgl[0]];
    let e = srq
        .post_recv(&RecvWr {
            wr_id: 9,
            sgl: &two,
        })
        .unwrap_err();
    assert_eq!(e.errno(), errno::EINVAL);
    let e = srq.post_recv(&RecvWr { wr_id: 9, sgl: &[] }).unwrap_err();
    assert_eq!(e.errno(), errno::EINVAL);
    for i in 0..4 {
        srq.post_recv(&RecvWr {
            wr_id: 20 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let e = srq
        .post_recv(&RecvWr {
            wr_id: 9,
            sgl: &sgl,
        })
        .unwrap_err();
    assert_eq!(e.errno(), errno::ENOMEM);
    // qb1 reset and up again receives from the SRQ.
    qb1.modify(QpAttr::Reset).unwrap();
    qa1.modify(QpAttr::Reset).unwrap();
    connect(&mut qa1, qb1.qp_num(), 2);
    up(&mut qb1, qa1.qp_num());
    send(&mut qa1, 5);
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].qp_num(), c[0].status()),
        (20, qb1.qp_num(), WcStatus::Success)
    );
}
