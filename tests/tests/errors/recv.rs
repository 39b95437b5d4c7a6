//! Receive errors: a buffer too short (`LOC_LEN_ERR`) and an lkey no region has
//! (`LOC_PROT_ERR`) move the QP and its own queue to ERR (docs/rx.md, the target table), the
//! receives posted behind them complete `WR_FLUSH_ERR` exactly once each and later frames are
//! dropped, and the QP comes back through RESET; on an RSS QP a failure takes only its queue
//! to ERR. Then frames b's receive path drops without a completion (a wrong Q_Key, no such QP,
//! an RDMA WRITE outside b's region) leave its QPs as they were.

use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    AccessFlags, AddressHandle, CompletionQueue, Context, Data, FlowAction, FlowAttr, HashFields,
    HashFunction, QpAttr, QpState, QueuePair, RecvWr, RxHashConf, SendOp, SendWr, SteeringKey,
    UdDest, WcStatus, WqInitAttr, WqState,
};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_tests::{
    ah_to, connect, flushed, open, post_slots, quiet, rc_qp, ud_qp, wait, Backend,
};

pub const QKEY: u32 = 0x4242;

/// Sends `len` bytes (inline) from `qa` to `dqpn` and waits for the send completion.
pub fn send<D: Device>(
    nics: [&Context<D>; 2],
    qa: &mut QueuePair<'_, D>,
    cqa: &CompletionQueue<'_, D>,
    ah: &AddressHandle<'_>,
    dqpn: u32,
    len: usize,
) {
    let data = vec![0x5A; len];
    let wr = SendWr::new(0, SendOp::Send, Data::Inline(&data))
        .signaled()
        .to(UdDest {
            ah,
            remote_qpn: dqpn,
            remote_qkey: QKEY,
        });
    qa.post_send(&wr).unwrap();
    assert!(wait(cqa, 1, &nics)[0].is_success());
}

pub fn recv_short_buffer_and_bad_lkey<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let buf = b.alloc_buffer(64 * 1024).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    for (case, bad_lkey) in [("short buffer", false), ("bad lkey", true)] {
        buf.write(0, &[0; 4096]).unwrap();
        let mut qb = ud_qp(&pdb, &cqb, 8, 1, QKEY);
        // The first receive fails: 40 + 99 bytes for a 100-byte message, or an lkey no region
        // has; three good ones behind it.
        let first = if bad_lkey {
            rocenic_host_driver::verbs::Sge {
                lkey: mr.lkey() ^ 0x8000,
                ..mr.sge(0, 2048).unwrap()
            }
        } else {
            mr.sge(0, 139).unwrap()
        };
        qb.post_recv(&RecvWr {
            wr_id: 1,
            sgl: &[first],
        })
        .unwrap();
        for i in 2..5u64 {
            let sgl = [mr.sge(i * 4096, 2048).unwrap()];
            qb.post_recv(&RecvWr {
                wr_id: i,
                sgl: &sgl,
            })
            .unwrap();
        }
        send([&a, &b], &mut qa, &cqa, &ah, qb.qp_num(), 100);
        let c = wait(&cqb, 1, &[&a, &b]);
        let want = if bad_lkey {
            WcStatus::LocProtErr
        } else {
            WcStatus::LocLenErr
        };
        assert_eq!((c[0].wr_id(), c[0].status()), (1, want), "{case}");
        assert_eq!(qb.state(), QpState::Err, "{case}: the QP went to ERR");
        // Nothing landed.
        let mut got = [0u8; 8];
        buf.read(40, &mut got).unwrap();
        assert_eq!(got, [0; 8], "{case}: nothing written");
        // The others flush, each once, in order; a receive posted now flushes too.
        assert_eq!(flushed(&cqb, 3, &[&a, &b]), [2, 3, 4], "{case}");
        let sgl = [mr.sge(8192, 64).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: 9,
            sgl: &sgl,
        })
        .unwrap();
        assert_eq!(flushed(&cqb, 1, &[&a, &b]), [9], "{case}");
        // A frame for the QP in ERR is dropped; nothing more completes.
        send([&a, &b], &mut qa, &cqa, &ah, qb.qp_num(), 10);
        quiet(&cqb, 200, &[&a, &b]);
        // RESET and up again: it receives.
        qb.modify(QpAttr::Reset).unwrap();
        qb.bring_up(
            rocenic_host_driver::verbs::InitAttr::ud(QKEY),
            rocenic_host_driver::verbs::RtrAttr::ud(rocenic_host_driver::verbs::PathMtu::Mtu1024),
            rocenic_host_driver::verbs::RtsAttr::new(
                rocenic_host_driver::verbs::Psn::new(0).unwrap(),
            ),
        )
        .unwrap();
        let sgl = [mr.sge(0, 2048).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: 20,
            sgl: &sgl,
        })
        .unwrap();
        send([&a, &b], &mut qa, &cqa, &ah, qb.qp_num(), 33);
        let c = wait(&cqb, 1, &[&a, &b]);
        assert_eq!(
            (c[0].wr_id(), c[0].status(), c[0].byte_len()),
            (20, WcStatus::Success, 73)
        );
    }
}

pub fn recv_rss_queue_fails_alone<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(64).unwrap());
    let buf = b.alloc_buffer(64 * 1024).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let attr = WqInitAttr {
        max_wr: 4,
        max_sge: 1,
    };
    let mut w0 = b.create_wq(&pdb, &cqb, &attr).unwrap();
    let mut w1 = b.create_wq(&pdb, &cqb, &attr).unwrap();
    // w0's first buffer is too short; every other buffer is long enough.
    for (k, w) in [&mut w0, &mut w1].into_iter().enumerate() {
        w.modify(WqState::Ready).unwrap();
        for i in 0..4u64 {
            let len = if k == 0 && i == 0 { 41 } else { 1024 };
            let sgl = [mr.sge((k as u64 * 4 + i) * 1024, len).unwrap()];
            w.post_recv(&RecvWr {
                wr_id: k as u64 * 10 + i,
                sgl: &sgl,
            })
            .unwrap();
        }
    }
    let table = b.create_rwq_ind_table(&[&w0, &w1]).unwrap();
    let hash = RxHashConf {
        function: HashFunction::Toeplitz,
        key: MICROSOFT_KEY.to_vec(),
        fields: HashFields::SRC_IPV4.union(HashFields::DST_IPV4),
    };
    let rss = pdb.create_rss_qp(&table, &hash, QKEY).unwrap();
    // A flow sends everything from a to w0 first: the failure.
    let all = SteeringKey::default();
    let flow = rss
        .create_flow(&FlowAttr {
            value: all,
            mask: all,
            action: FlowAction::Wq(w0.wq_num()),
        })
        .unwrap();
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    send([&a, &b], &mut qa, &cqa, &ah, rss.qp_num(), 100);
    let c = wait(&cqb, 4, &[&a, &b]);
    assert_eq!((c[0].wr_id(), c[0].status()), (0, WcStatus::LocLenErr));
    assert_eq!(
        c[1..]
            .iter()
            .map(|x| (x.wr_id(), x.status(), x.qp_num()))
            .collect::<Vec<_>>(),
        [1, 2, 3].map(|i| (i, WcStatus::WrFlushErr, rss.qp_num())),
        "w0 flushed, naming the RSS QP"
    );
    assert_eq!(w0.state(), WqState::Err);
    // The QP goes on: steered to w1 now, it lands.
    drop(flow);
    let flow = rss
        .create_flow(&FlowAttr {
            value: all,
            mask: all,
            action: FlowAction::Wq(w1.wq_num()),
        })
        .unwrap();
    send([&a, &b], &mut qa, &cqa, &ah, rss.qp_num(), 100);
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].status(), c[0].byte_len()),
        (10, WcStatus::Success, 140)
    );
    drop(flow);
}

pub fn recv_dropped_frames_change_nothing<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(4096).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    src.write(0, &[0xC3; 4096]).unwrap();
    let dst = b.alloc_buffer(16 * 1024).unwrap();
    let remote = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let mrb = pdb.reg_mr_range(&dst, 0, 8192, remote).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let mut qb = ud_qp(&pdb, &cqb, 4, 1, QKEY);
    post_slots(&mut qb, &mrb, 2, 2048, 0);
    let rc_pair = || {
        let mut ra = rc_qp(&pda, &cqa, 1);
        let mut rb = rc_qp(&pdb, &cqb, 1);
        let (na, nb) = (ra.qp_num(), rb.qp_num());
        connect(&mut ra, nb, 2);
        connect(&mut rb, na, 1);
        // A receive for the immediate: what refuses the WRITE is its R_Key, not a missing WQE.
        let sgl = [mrb.sge(4096, 64).unwrap()];
        rb.post_recv(&RecvWr {
            wr_id: 9,
            sgl: &sgl,
        })
        .unwrap();
        (ra, rb)
    };
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    let nics = [&a, &b];
    let ud = |qpn, qkey| UdDest {
        ah: &ah,
        remote_qpn: qpn,
        remote_qkey: qkey,
    };
    let payload = [0xA5u8; 64];
    let (_rc_a, rc_b) = rc_pair();
    // UD: a Q_Key that is not b's, a QPN b has no QP for, and an RC QP's QPN (the wrong
    // transport): each leaves a (the send completes) and b drops it.
    for (what, dest) in [
        ("wrong Q_Key", ud(qb.qp_num(), QKEY + 1)),
        ("no such QP", ud(0xABCDE, QKEY)),
        ("UD into an RC QP", ud(rc_b.qp_num(), QKEY)),
    ] {
        let wr = SendWr::new(1, SendOp::Send, Data::Inline(&payload))
            .signaled()
            .to(dest);
        qa.post_send(&wr).unwrap();
        assert!(wait(&cqa, 1, &nics)[0].is_success(), "{what}: sent");
        quiet(&cqb, 300, &nics);
        assert_eq!(qb.state(), QpState::Rts, "{what}");
    }
    // RC, each on a fresh pair (a dropped packet leaves b expecting its PSN): an RDMA WRITE
    // reaching past b's region (its R_Key is good), and one under an R_Key no region has:
    // dropped, nothing written, no receive taken.
    for (what, addr, rkey) in [
        ("past the region", mrb.addr() + 8192 - 32, mrb.rkey()),
        ("unknown R_Key", mrb.addr(), mrb.rkey() ^ 0x8000),
    ] {
        let (mut ra, _rb) = rc_pair();
        let sge = [mra.sge(0, 64).unwrap()];
        let op = SendOp::RdmaWriteWithImm(rocenic_host_driver::verbs::RemoteAddr { addr, rkey }, 7);
        ra.post_send(&SendWr::new(2, op, Data::Sgl(&sge)).signaled())
            .unwrap();
        assert!(wait(&cqa, 1, &nics)[0].is_success(), "{what}: sent");
        quiet(&cqb, 300, &nics);
    }
    let mut region = vec![0u8; 16 * 1024];
    dst.read(0, &mut region).unwrap();
    assert!(region.iter().all(|&x| x == 0), "nothing written at b");
    assert_eq!(backend.sent_by_a().len(), 5, "every frame left a");
    // b's UD QP took none of its receives: the next good message lands in the first.
    send(nics, &mut qa, &cqa, &ah, qb.qp_num(), 64);
    let c = wait(&cqb, 1, &nics);
    assert_eq!(
        (c[0].wr_id(), c[0].status(), c[0].byte_len()),
        (0, WcStatus::Success, 40 + 64)
    );
}
