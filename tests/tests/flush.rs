//! Flush semantics: a QP moved to ERR by software.
//!
//! Receive: an RC QP's five receives complete `WR_FLUSH_ERR` once each, in order, and nothing
//! else completes on either side; a work queue refuses RESET→ERR and ERR→READY, and READY→ERR
//! flushes what it holds, naming the queue.
//!
//! Send: requests posted in ERR complete `WR_FLUSH_ERR` in order and nothing reaches the wire;
//! a QP moved to ERR with sends still queued completes each request once, in order, a run of
//! successes then flushes, and the peer receives exactly the successes' messages, no more.

use rocenic_host_driver::verbs::{
    errno, AccessFlags, Data, Error, InitAttr, Invalid, PathMtu, Psn, QpAttr, QpInitAttr, QpState,
    QpType, RecvWr, RtrAttr, RtsAttr, SendOp, SendWr, UdDest, WcStatus, WqInitAttr, WqState,
};
use rocenic_tests::{
    ah_to, connect, flushed, on_every_backend, open, post_slots, quiet, rc_qp, ud_qp, ud_qp_with,
    wait, Backend,
};

on_every_backend!(recv_flush_on_err, send_flush_on_err);

const QKEY: u32 = 0x0F1F;

fn recv_flush_on_err<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let buf = b.alloc_buffer(8192).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    // RC: both sides up, five receives posted on b, then b to ERR.
    let mut qa = rc_qp(&pda, &cqa, 1);
    let mut qb = rc_qp(&pdb, &cqb, 8);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    connect(&mut qb, na, 1);
    post_slots(&mut qb, &mr, 5, 1024, 0);
    qb.modify(QpAttr::Err).unwrap();
    assert_eq!(flushed(&cqb, 5, &[&a, &b]), [0, 1, 2, 3, 4]);
    quiet(&cqb, 300, &[&a, &b]);
    let c = cqb.poll(1).unwrap();
    assert!(c.is_empty());
    assert!(cqa.poll(1).unwrap().is_empty());

    // A work queue: RESET→ERR and ERR→READY are refused; READY→ERR flushes what it holds.
    let mut wq = b
        .create_wq(
            &pdb,
            &cqb,
            &WqInitAttr {
                max_wr: 4,
                max_sge: 1,
            },
        )
        .unwrap();
    let e = wq.modify(WqState::Err).unwrap_err();
    assert!(
        matches!(e, Error::Invalid(Invalid::WqTransition(_))),
        "{e:?}"
    );
    assert_eq!(e.errno(), errno::EINVAL);
    for i in 0..3u64 {
        let sgl = [mr.sge(i * 64, 64).unwrap()];
        wq.post_recv(&RecvWr {
            wr_id: 50 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    wq.modify(WqState::Ready).unwrap();
    wq.modify(WqState::Err).unwrap();
    let f = wait(&cqb, 3, &[&a, &b]);
    assert!(f
        .iter()
        .all(|c| c.status() == WcStatus::WrFlushErr && c.wq_num() == Some(wq.wq_num())));
    assert_eq!(
        f.iter().map(|c| c.wr_id()).collect::<Vec<_>>(),
        [50, 51, 52]
    );
    assert_eq!(
        wq.modify(WqState::Ready).unwrap_err().errno(),
        errno::EINVAL
    );
    wq.modify(WqState::Reset).unwrap();
    wq.modify(WqState::Ready).unwrap();
    assert_eq!(wq.state(), WqState::Ready);
}

fn send_flush_on_err<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let nics = [&a, &b];
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let dst = b.alloc_buffer(32 * 128).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let attr = QpInitAttr {
        max_send_wr: 16,
        max_inline_data: 64,
        ..QpInitAttr::new(QpType::Ud)
    };
    let mut qa = ud_qp_with(&pda, &cqa, &attr, QKEY);
    let mut qb = ud_qp(&pdb, &cqb, 32, 1, QKEY);
    post_slots(&mut qb, &mrb, 32, 128, 0);
    let ah = pda.create_ah(&ah_to(2, true)).unwrap();
    let dest = UdDest {
        ah: &ah,
        remote_qpn: qb.qp_num(),
        remote_qkey: QKEY,
    };
    let payloads: Vec<[u8; 8]> = (0..16u64).map(u64::to_le_bytes).collect();
    let wrs: Vec<SendWr<'_>> = payloads
        .iter()
        .enumerate()
        .map(|(i, p)| {
            SendWr::new(i as u64, SendOp::Send, Data::Inline(p))
                .signaled()
                .to(dest)
        })
        .collect();

    // Moved to ERR before anything is posted: every request flushes, nothing is sent.
    qa.modify(QpAttr::Err).unwrap();
    qa.post_send_list(&wrs[..4]).unwrap();
    assert_eq!(flushed(&cqa, 4, &nics), [0, 1, 2, 3]);
    quiet(&cqb, 500, &nics);
    quiet(&cqa, 100, &nics);
    assert!(backend.sent_by_a().is_empty(), "nothing on the wire");

    // Up again, sixteen requests queued, then ERR at once: each completes once, in order,
    // successes first; the peer gets exactly those.
    qa.modify(QpAttr::Reset).unwrap();
    qa.bring_up(
        InitAttr::ud(QKEY),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .unwrap();
    qa.post_send_list(&wrs).unwrap();
    qa.modify(QpAttr::Err).unwrap();
    let c = wait(&cqa, 16, &nics);
    assert_eq!(
        c.iter().map(|c| c.wr_id()).collect::<Vec<_>>(),
        (0..16).collect::<Vec<u64>>(),
        "each once, in order"
    );
    let sent = c.iter().take_while(|c| c.is_success()).count();
    assert!(
        c[sent..].iter().all(|c| c.status() == WcStatus::WrFlushErr),
        "successes, then flushes: {c:?}"
    );
    eprintln!("{sent} of 16 sent before the QP went to ERR");
    // b's receives first: a send's completion can come before its frame has left the core
    // under back-pressure, so the wire is read once b has them all.
    let r = wait(&cqb, sent, &nics);
    assert_eq!(backend.sent_by_a().len(), sent, "a frame per success");
    quiet(&cqb, 500, &nics);
    for (k, x) in r.iter().enumerate() {
        assert_eq!((x.wr_id(), x.status()), (k as u64, WcStatus::Success));
        let mut got = [0u8; 8];
        dst.read(k as u64 * 128 + 40, &mut got).unwrap();
        assert_eq!(u64::from_le_bytes(got), k as u64, "message {k}");
    }
    assert_eq!(qa.state(), QpState::Err);
    assert_eq!(qb.state(), QpState::Rts, "the peer goes on");
}
