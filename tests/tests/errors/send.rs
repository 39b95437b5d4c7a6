//! Send errors across two NICs: a request the sender's engine refuses (each status its checks
//! give on this path, docs/wqe.md "Checks and statuses") completes with that status after the
//! good request before it; everything behind it on that QP, unsignaled too, completes
//! `WR_FLUSH_ERR`; the QP is in ERR, and posting in ERR flushes. The peer sees only the good
//! request: one frame on the wire, one receive taken, the others left for later. RESET and up
//! again, the QP sends into the peer's next receive.
//!
//! Not here: `GENERAL_ERR` (host memory refusing a read the region check allowed; the driver's
//! buffers are always mapped), and what the driver refuses before the device (its own tests,
//! host-driver/tests/verbs/errors.rs).

use rocenic_host_driver::verbs::{
    AccessFlags, Data, Error, Feature, InitAttr, PathMtu, Psn, QpAttr, QpState, RemoteAddr,
    RtrAttr, RtsAttr, SendOp, SendWr, Sge, UdDest, WcStatus,
};
use rocenic_tests::{
    ah_to, connect, flushed, open, post_slots, quiet, rc_qp, ud_qp, wait, Backend,
};

const QKEY: u32 = 0x5151;

/// The bad requests, each with the status the engine gives it.
#[derive(Clone, Copy, Debug)]
enum Bad {
    /// A gather entry in a region of another PD.
    WrongPd,
    /// A gather entry one byte past its region's end.
    PastEnd,
    /// An lkey no region has.
    UnknownLkey,
    /// The lkey of a region deregistered since.
    Stale,
    /// A gather entry of no bytes.
    ZeroLength,
    /// A UD message longer than the path MTU (1024).
    OverMtu,
    /// A TSO header template that is not IPoIB, IPv4 or IPv6, and TCP.
    TsoTemplate,
}

impl Bad {
    const ALL: [Bad; 7] = [
        Bad::WrongPd,
        Bad::PastEnd,
        Bad::UnknownLkey,
        Bad::Stale,
        Bad::ZeroLength,
        Bad::OverMtu,
        Bad::TsoTemplate,
    ];

    fn status(self) -> WcStatus {
        match self {
            Bad::WrongPd | Bad::PastEnd | Bad::UnknownLkey | Bad::Stale => WcStatus::LocProtErr,
            Bad::ZeroLength | Bad::OverMtu => WcStatus::LocLenErr,
            Bad::TsoTemplate => WcStatus::LocQpOpErr,
        }
    }
}

pub fn send_errors_reach_no_peer<B: Backend>(backend: &mut B) {
    for bad in Bad::ALL {
        ud_case(backend, bad);
    }
}

fn ud_case<B: Backend>(backend: &mut B, which: Bad) {
    let what = format!("{which:?}");
    let (a, b) = open(backend);
    let nics = [&a, &b];
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let other = a.alloc_pd().unwrap();
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(0x4000).unwrap();
    src.write(0, &[0x3C; 0x4000]).unwrap();
    let mr = pda
        .reg_mr_range(&src, 0, 0x2000, AccessFlags::LOCAL_WRITE)
        .unwrap();
    let foreign = other
        .reg_mr_range(&src, 0x2000, 0x1000, AccessFlags::LOCAL_WRITE)
        .unwrap();
    let stale = pda
        .reg_mr_range(&src, 0x3000, 0x100, AccessFlags::LOCAL_WRITE)
        .unwrap();
    let stale_sge = stale.sge(0, 16).unwrap();
    stale.deregister().unwrap();
    let dst = b.alloc_buffer(4 * 2048).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let mut qb = ud_qp(&pdb, &cqb, 4, 1, QKEY);
    post_slots(&mut qb, &mrb, 4, 2048, 0);
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    let dest = UdDest {
        ah: &ah,
        remote_qpn: qb.qp_num(),
        remote_qkey: QKEY,
    };
    let ok = [mr.sge(0x10, 64).unwrap()];
    let good = |id| {
        SendWr::new(id, SendOp::Send, Data::Sgl(&ok))
            .signaled()
            .to(dest)
    };
    let one = |s: Sge| [s];
    let sgl = match which {
        Bad::WrongPd => one(foreign.sge(0, 64).unwrap()),
        Bad::PastEnd => one(Sge {
            length: 0x11,
            ..mr.sge(0x1FF0, 0x10).unwrap()
        }),
        Bad::UnknownLkey => one(Sge {
            lkey: 0xFFFF_FF77,
            ..ok[0]
        }),
        Bad::Stale => one(stale_sge),
        Bad::ZeroLength => one(Sge { length: 0, ..ok[0] }),
        Bad::OverMtu => one(mr.sge(0, 1025).unwrap()),
        Bad::TsoTemplate => one(mr.sge(0, 2000).unwrap()),
    };
    let op = match which {
        Bad::TsoTemplate => SendOp::Tso {
            mss: 500,
            header: &[0; 44],
        },
        _ => SendOp::Send,
    };
    let bad = SendWr::new(2, op, Data::Sgl(&sgl)).signaled().to(dest);
    let unsignaled = SendWr::new(4, SendOp::Send, Data::Sgl(&ok)).to(dest);
    if matches!(which, Bad::TsoTemplate) && !B::TSO {
        // No TSO on this device: the driver refuses the request before the device sees it.
        let e = qa
            .post_send_list(&[good(1), bad, good(3), unsignaled])
            .expect_err("a TSO request on a device without TSO");
        assert_eq!(e.bad_wr, 1, "{what}: the TSO request is the one refused");
        assert_eq!(e.error, Error::Unsupported(Feature::Tso), "{what}");
        let c = wait(&cqa, 1, &nics);
        assert_eq!(
            (c[0].wr_id(), c[0].status()),
            (1, WcStatus::Success),
            "{what}"
        );
        return;
    }
    qa.post_send_list(&[good(1), bad, good(3), unsignaled])
        .unwrap();
    let c = wait(&cqa, 4, &nics);
    assert_eq!(
        c.iter()
            .map(|c| (c.wr_id(), c.status()))
            .collect::<Vec<_>>(),
        [
            (1, WcStatus::Success),
            (2, which.status()),
            (3, WcStatus::WrFlushErr),
            (4, WcStatus::WrFlushErr)
        ],
        "{what}: the error, then everything behind it flushed"
    );
    assert_eq!(
        qa.state(),
        QpState::Err,
        "{what}: learnt from the completion"
    );
    // The peer: the good request only.
    let r = wait(&cqb, 1, &nics);
    assert_eq!(
        (r[0].wr_id(), r[0].status(), r[0].byte_len()),
        (0, WcStatus::Success, 40 + 64),
        "{what}"
    );
    quiet(&cqb, 500, &nics);
    assert_eq!(
        backend.sent_by_a().len(),
        1,
        "{what}: one frame on the wire"
    );
    // In ERR, a request completes flushed and sends nothing.
    qa.post_send(&good(5)).unwrap();
    assert_eq!(flushed(&cqa, 1, &nics), [5], "{what}");
    quiet(&cqb, 500, &nics);
    assert_eq!(backend.sent_by_a().len(), 1, "{what}: still one frame");
    // RESET and up again: it sends, into the peer's next receive.
    qa.modify(QpAttr::Reset).unwrap();
    qa.bring_up(
        InitAttr::ud(QKEY),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .unwrap();
    qa.post_send(&good(6)).unwrap();
    let c = wait(&cqa, 1, &nics);
    assert_eq!(
        (c[0].wr_id(), c[0].status()),
        (6, WcStatus::Success),
        "{what}"
    );
    let r = wait(&cqb, 1, &nics);
    assert_eq!(
        (r[0].wr_id(), r[0].status()),
        (1, WcStatus::Success),
        "{what}"
    );
}

/// RC: an RDMA WRITE with a bad lkey between two SENDs: the first SEND lands, the WRITE writes
/// nothing into the peer's region, the second SEND is flushed and takes no receive.
pub fn send_error_on_rc_reaches_no_peer<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let nics = [&a, &b];
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(4096).unwrap();
    src.write(0, &[0x77; 4096]).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let dst = b.alloc_buffer(8192).unwrap();
    let remote = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let mrb = pdb.reg_mr(&dst, remote).unwrap();
    let mut qa = rc_qp(&pda, &cqa, 1);
    let mut qb = rc_qp(&pdb, &cqb, 4);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    connect(&mut qb, na, 1);
    post_slots(&mut qb, &mrb, 2, 1024, 0);
    let ok = [mra.sge(0, 100).unwrap()];
    let bad = [Sge {
        lkey: mra.lkey() ^ 0x80,
        ..ok[0]
    }];
    let at = RemoteAddr {
        addr: mrb.addr() + 4096,
        rkey: mrb.rkey(),
    };
    qa.post_send_list(&[
        SendWr::new(1, SendOp::Send, Data::Sgl(&ok)).signaled(),
        SendWr::new(2, SendOp::RdmaWrite(at), Data::Sgl(&bad)).signaled(),
        SendWr::new(3, SendOp::Send, Data::Sgl(&ok)).signaled(),
    ])
    .unwrap();
    let c = wait(&cqa, 3, &nics);
    assert_eq!(
        c.iter().map(|c| c.status()).collect::<Vec<_>>(),
        [
            WcStatus::Success,
            WcStatus::LocProtErr,
            WcStatus::WrFlushErr
        ]
    );
    let r = wait(&cqb, 1, &nics);
    assert_eq!((r[0].wr_id(), r[0].byte_len()), (0, 100));
    quiet(&cqb, 500, &nics);
    assert_eq!(backend.sent_by_a().len(), 1, "the first SEND only");
    let mut got = vec![0u8; 4096];
    dst.read(4096, &mut got).unwrap();
    assert!(got.iter().all(|&x| x == 0), "nothing written");
    assert_eq!(qb.state(), QpState::Rts, "the peer goes on");
}
