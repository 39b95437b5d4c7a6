//! Receiving in RTR: an RC QP only in RTR takes its peer's messages (verbs receives from RTR
//! on) and refuses sends; moving it to RTS while frames wait at its input loses none, and it
//! then sends from the RTS's PSN, not the one it was written into the engine with at RTR.

use rocenic_host_driver::verbs::{
    errno, run_together, AccessFlags, Data, InitAttr, PathMtu, Psn, QpAttr, QpState, RecvWr,
    RtrAttr, RtsAttr, SendOp, SendWr, WcStatus,
};
use rocenic_tests::{ah_to, connect, on_every_backend, open, post_slots, rc_qp, wait, Backend};

on_every_backend!(receives_in_rtr, fails_in_rtr);

/// What b's QP expects from a (a's send PSN, see `rc::connect`) and what it sends from.
const B_RQ_PSN: u32 = 0xFF_FFF0;
const B_SQ_PSN: u32 = 0x12_3456;

fn receives_in_rtr<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let src = a.alloc_buffer(64 * 1024).unwrap();
    let dst = b.alloc_buffer(64 * 1024).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let data: Vec<u8> = (0..64 * 1024u32).map(|i| (i * 7 + i / 251) as u8).collect();
    src.write(0, &data).unwrap();
    let mut qa = rc_qp(&pda, &cqa, 4);
    let mut qb = rc_qp(&pdb, &cqb, 32);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    // a would expect b's PSNs from B_SQ_PSN.
    qa.bring_up(
        InitAttr::default(),
        RtrAttr::rc(
            PathMtu::Mtu1024,
            nb,
            Psn::new(B_SQ_PSN).unwrap(),
            ah_to(2, false),
        ),
        RtsAttr::new(Psn::new(B_RQ_PSN).unwrap()),
    )
    .unwrap();
    // b only to RTR; receives posted in INIT wait there.
    qb.modify(QpAttr::Init(InitAttr {
        access: AccessFlags::LOCAL_WRITE,
        ..InitAttr::default()
    }))
    .unwrap();
    post_slots(&mut qb, &mrb, 24, 2048, 100);
    qb.modify(QpAttr::Rtr(RtrAttr::rc(
        PathMtu::Mtu1024,
        na,
        Psn::new(B_RQ_PSN).unwrap(),
        ah_to(1, false),
    )))
    .unwrap();
    assert_eq!(qb.state(), QpState::Rtr);

    // In RTR: a SEND of two packets and one of one arrive.
    let s = |off: u64, len| [mra.sge(off, len).unwrap()];
    let (s0, s1) = (s(0, 2000), s(2000, 300));
    qa.post_send_list(&[
        SendWr::new(1, SendOp::Send, Data::Sgl(&s0)).signaled(),
        SendWr::new(2, SendOp::SendWithImm(0xC0FFEE), Data::Sgl(&s1)).signaled(),
    ])
    .unwrap();
    let got = wait(&cqb, 2, &[&a, &b]);
    let ids: Vec<_> = got
        .iter()
        .map(|c| (c.wr_id(), c.status(), c.byte_len()))
        .collect();
    assert_eq!(
        ids,
        [
            (100, WcStatus::Success, 2000),
            (101, WcStatus::Success, 300)
        ]
    );
    assert_eq!(got[1].imm_data(), Some(0xC0FFEE));
    let read = |off, len: usize| {
        let mut v = vec![0; len];
        dst.read(off, &mut v).unwrap();
        v
    };
    assert_eq!(read(0, 2000), data[..2000]);
    assert_eq!(read(2048, 300), data[2000..2300]);
    assert_eq!(wait(&cqa, 2, &[&a, &b]).len(), 2);

    // Sends are refused until RTS, before any register is touched.
    let sb = [mrb.sge(0, 100).unwrap()];
    let before = b.cycle();
    let e = qb
        .post_send(&SendWr::new(9, SendOp::Send, Data::Sgl(&sb)).signaled())
        .unwrap_err();
    assert_eq!(e.errno(), errno::EINVAL, "{e}");
    assert_eq!(b.cycle(), before);

    // Twenty messages wait at b's input (a runs alone) when b moves to RTS: none is lost.
    let sgls: Vec<_> = (0..20u64).map(|i| s(4096 + i * 1000, 1000)).collect();
    let wrs: Vec<_> = sgls
        .iter()
        .enumerate()
        .map(|(i, g)| SendWr::new(10 + i as u64, SendOp::Send, Data::Sgl(g)).signaled())
        .collect();
    qa.post_send_list(&wrs).unwrap();
    assert_eq!(wait(&cqa, 20, &[&a]).len(), 20);
    run_together(&[&a], 16).unwrap();
    qb.modify(QpAttr::Rts(RtsAttr::new(Psn::new(B_SQ_PSN).unwrap())))
        .unwrap();
    assert_eq!(qb.state(), QpState::Rts);
    let got = wait(&cqb, 20, &[&a, &b]);
    for (i, c) in got.iter().enumerate() {
        assert_eq!(
            (c.wr_id(), c.status(), c.byte_len()),
            (102 + i as u64, WcStatus::Success, 1000),
            "message {i}"
        );
        let off = 4096 + i * 1000;
        assert_eq!(read((2 + i as u64) * 2048, 1000), data[off..off + 1000]);
    }

    // In RTS b sends from the RTS's PSN: a (expecting B_SQ_PSN) takes it.
    let sgl = [mra.sge(60 * 1024, 1024).unwrap()];
    qa.post_recv(&RecvWr {
        wr_id: 7,
        sgl: &sgl,
    })
    .unwrap();
    qb.post_send(&SendWr::new(9, SendOp::Send, Data::Sgl(&sb)).signaled())
        .unwrap();
    let back = wait(&cqa, 1, &[&a, &b]);
    assert_eq!(
        (back[0].wr_id(), back[0].status(), back[0].byte_len()),
        (7, WcStatus::Success, 100)
    );
    assert!(wait(&cqb, 1, &[&a, &b])[0].is_success());
}

/// An RC QP that fails in RTR (a receive into a buffer too small) goes to ERR: RTS is refused
/// and its other receives flush.
fn fails_in_rtr<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(4096).unwrap();
    let dst = b.alloc_buffer(4096).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = rc_qp(&pda, &cqa, 4);
    let mut qb = rc_qp(&pdb, &cqb, 4);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    qb.modify(QpAttr::Init(InitAttr::default())).unwrap();
    qb.modify(QpAttr::Rtr(RtrAttr::rc(
        PathMtu::Mtu1024,
        na,
        Psn::new(B_RQ_PSN).unwrap(),
        ah_to(1, false),
    )))
    .unwrap();
    for (i, len) in [(1u64, 10u32), (2, 100), (3, 100)] {
        let sgl = [mrb.sge(i * 1024, len).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let s0 = [mra.sge(0, 50).unwrap()];
    qa.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&s0)).signaled())
        .unwrap();
    let got = wait(&cqb, 3, &[&a, &b]);
    let st: Vec<_> = got.iter().map(|c| (c.wr_id(), c.status())).collect();
    assert_eq!(
        st,
        [
            (1, WcStatus::LocLenErr),
            (2, WcStatus::WrFlushErr),
            (3, WcStatus::WrFlushErr)
        ]
    );
    assert_eq!(qb.state(), QpState::Err);
    let e = qb
        .modify(QpAttr::Rts(RtsAttr::new(Psn::new(B_SQ_PSN).unwrap())))
        .unwrap_err();
    assert_eq!(e.errno(), errno::EINVAL);
    // RESET and up again: it receives.
    qb.modify(QpAttr::Reset).unwrap();
    connect(&mut qb, na, 1);
    let sgl = [mrb.sge(0, 1024).unwrap()];
    qb.post_recv(&RecvWr {
        wr_id: 4,
        sgl: &sgl,
    })
    .unwrap();
    // a's next PSN follows its first message.
    qa.modify(QpAttr::Reset).unwrap();
    connect(&mut qa, nb, 2);
    qa.post_send(&SendWr::new(2, SendOp::Send, Data::Sgl(&s0)).signaled())
        .unwrap();
    let got = wait(&cqb, 1, &[&a, &b]);
    assert_eq!((got[0].wr_id(), got[0].status()), (4, WcStatus::Success));
}
