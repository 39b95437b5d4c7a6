//! Error paths: what the engine refuses (protection errors, then the flush of everything after
//! on that QP, and only on it), and what the driver refuses before touching the device, each
//! with its verbs errno.

use crate::common::{open, same_completion, wait_frames, Dev, Mirror, LIMIT};
use rocenic_host_driver::verbs::{
    errno, AccessFlags, AhAttr, Context, Data, Error, Exhausted, Gid, InitAttr, Invalid, OpenAttr,
    PathMtu, Psn, QpAttr, QpInitAttr, QpState, QpType, QueuePair, RemoteAddr, RtrAttr, RtsAttr,
    SendOp, SendWr, Sge, UdDest, WcStatus,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address};
use rocenic_sim::wqe::engine::Load;

fn ah() -> AhAttr {
    AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(192, 168, 1, 2)),
        EthernetAddress([2, 0, 0, 0, 0, 2]),
    )
}

fn rc_up(qp: &mut QueuePair<'_, Dev>, dest: u32) {
    qp.bring_up(
        InitAttr::default(),
        RtrAttr::rc(PathMtu::Mtu1024, dest, Psn::new(0).unwrap(), ah()),
        RtsAttr::new(Psn::new(100).unwrap()),
    )
    .unwrap();
}

fn send(wr_id: u64, sges: &[Sge]) -> SendWr<'_> {
    SendWr::new(wr_id, SendOp::Send, Data::Sgl(sges)).signaled()
}

/// The bad gather entries the engine must refuse.
#[derive(Clone, Copy, Debug)]
enum Bad {
    /// A region of another PD.
    WrongPd,
    /// One byte past the region's end.
    PastEnd,
    /// An lkey no region has.
    Unknown,
    /// The lkey of a region deregistered since.
    Stale,
}

#[test]
fn protection_errors_then_flush_on_that_qp_only() {
    for (n, bad) in [Bad::WrongPd, Bad::PastEnd, Bad::Unknown, Bad::Stale]
        .into_iter()
        .enumerate()
    {
        protection_case(n as u64, bad);
    }
}

fn protection_case(seed: u64, which: Bad) {
    let what = format!("{which:?}");
    let ctx: Context<Dev> = open(&Load::ideal(), seed, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let other = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x2000).unwrap();
    let mr = pd.reg_mr_range(&buf, 0, 0x1000, AccessFlags::NONE).unwrap();
    let foreign = other
        .reg_mr_range(&buf, 0x1000, 0x1000, AccessFlags::NONE)
        .unwrap();
    let stale = pd
        .reg_mr_range(&buf, 0x1000, 0x100, AccessFlags::NONE)
        .unwrap();
    let stale_sge = stale.sge(0, 16).unwrap();
    stale.deregister().unwrap();
    let cq = ctx.create_cq(32).unwrap();
    let attr = QpInitAttr::new(QpType::Rc);
    let mut bad = pd.create_qp(&cq, &attr).unwrap();
    let mut good = pd.create_qp(&cq, &attr).unwrap();
    rc_up(&mut bad, 0x800);
    rc_up(&mut good, 0x801);
    let mut mirror = Mirror::new(&ctx);
    mirror.mr(&mr);
    mirror.mr(&foreign);
    mirror.qp(&bad);
    mirror.qp(&good);

    let ok = [mr.sge(0x10, 64).unwrap()];
    let sge = match which {
        Bad::WrongPd => foreign.sge(0, 64).unwrap(),
        Bad::PastEnd => Sge {
            length: 0x11,
            ..mr.sge(0xFF0, 0x10).unwrap()
        },
        Bad::Unknown => Sge {
            lkey: 0xFFFF_FF77,
            ..ok[0]
        },
        Bad::Stale => stale_sge,
    };
    // A good request, the bad one, two more after it (one unsignaled); and the other QP's.
    bad.post_send(&send(1, &ok)).unwrap();
    bad.post_send(&send(2, &[sge])).unwrap();
    bad.post_send(&send(3, &ok)).unwrap();
    bad.post_send(&SendWr::new(4, SendOp::Send, Data::Sgl(&ok)))
        .unwrap();
    good.post_send(&send(5, &ok)).unwrap();
    mirror.run(&ctx, &[(bad.qp_num(), 4), (good.qp_num(), 1)]);
    let (got, done) = cq.poll_until(5, LIMIT);
    done.unwrap();
    let mine: Vec<_> = got.iter().filter(|c| c.qp_num() == bad.qp_num()).collect();
    let statuses: Vec<WcStatus> = mine.iter().map(|c| c.status()).collect();
    assert_eq!(
        statuses,
        [
            WcStatus::Success,
            WcStatus::LocProtErr,
            WcStatus::WrFlushErr,
            WcStatus::WrFlushErr
        ],
        "{what}: the unsignaled request after the error completes flushed too"
    );
    for (g, w) in mine.iter().zip(&mirror.cqes[&bad.qp_num()]) {
        same_completion(g, w, &what);
    }
    let theirs: Vec<_> = got.iter().filter(|c| c.qp_num() == good.qp_num()).collect();
    assert_eq!(theirs.len(), 1);
    assert!(theirs[0].is_success(), "{what}: the other QP goes on");
    assert_eq!(
        bad.state(),
        QpState::Err,
        "{what}: learnt from the completion"
    );
    // Two frames, the model's: the good request before the error, and the other QP's.
    let f = wait_frames(&ctx, 2);
    let want: Vec<&Vec<u8>> = mirror.frames.values().flatten().collect();
    assert_eq!(f.len(), 2, "{what}");
    assert!(
        f.iter().all(|g| want.contains(&g)),
        "{what}: the model's frames"
    );
    ctx.run(2000).unwrap();
    assert_eq!(ctx.with_device(|d| d.bench().frames().len()), 0, "{what}");

    // In ERR, posted requests complete flushed and send nothing.
    bad.post_send(&send(6, &ok)).unwrap();
    let (c, done) = cq.poll_until(1, LIMIT);
    done.unwrap();
    assert_eq!((c[0].wr_id(), c[0].status()), (6, WcStatus::WrFlushErr));
    // ERR → RTS is illegal: refused before the device.
    let before = ctx.cycle();
    let r = bad.modify(QpAttr::Rts(RtsAttr::new(Psn::new(100).unwrap())));
    assert_eq!(r.map_err(|e| e.errno()), Err(errno::EINVAL));
    assert_eq!(ctx.cycle(), before);
    // RESET and up again: the send queue restarts at index 0, and sends.
    bad.modify(QpAttr::Reset).unwrap();
    assert_eq!(bad.send_queue_used(), 0);
    rc_up(&mut bad, 0x800);
    bad.post_send(&send(7, &ok)).unwrap();
    let (c, done) = cq.poll_until(1, LIMIT);
    done.unwrap();
    assert!(c[0].is_success(), "{what}: {:?}", c[0]);
    assert_eq!((c[0].wr_id(), c[0].wqe_index()), (7, 0));
    assert_eq!(wait_frames(&ctx, 1).len(), 1);
}

#[test]
fn an_err_the_driver_has_not_polled_yet() {
    let ctx: Context<Dev> = open(&Load::ideal(), 12, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let mut qp = pd.create_qp(&cq, &QpInitAttr::new(QpType::Rc)).unwrap();
    rc_up(&mut qp, 0x800);
    let bad = [Sge {
        lkey: mr.lkey() ^ 0x80,
        ..mr.sge(0, 8).unwrap()
    }];
    qp.post_send(&send(1, &bad)).unwrap();
    ctx.run(3000).unwrap();
    // The engine moved the QP to ERR; the driver has not seen the completion.
    assert_eq!(qp.state(), QpState::Rts);
    let r = qp.modify(QpAttr::Rts(RtsAttr::new(Psn::new(100).unwrap())));
    assert_eq!(
        r,
        Err(Error::Invalid(Invalid::Transition(
            rocenic_model::qp::IllegalTransition {
                from: QpState::Err,
                to: QpState::Rts
            }
        )))
    );
    assert_eq!(qp.state(), QpState::Err, "learnt from the refusal");
    let c = cq.poll(8).unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].status(), WcStatus::LocProtErr);
    qp.modify(QpAttr::Err).unwrap();
    qp.modify(QpAttr::Reset).unwrap();
}

#[test]
fn a_full_send_queue_is_enomem() {
    let ctx: Context<Dev> = open(&Load::ideal(), 13, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let attr = QpInitAttr {
        max_send_wr: 3,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qp = pd.create_qp(&cq, &attr).unwrap();
    assert_eq!(qp.send_queue_entries(), 4, "rounded up to a power of two");
    rc_up(&mut qp, 0x800);
    let ok = [mr.sge(0, 32).unwrap()];
    let quiet = SendWr::new(0, SendOp::Send, Data::Sgl(&ok));
    for _ in 0..3 {
        qp.post_send(&quiet).unwrap();
    }
    qp.post_send(&send(9, &ok)).unwrap();
    let full = |qp: &mut QueuePair<'_, Dev>| {
        let before = ctx.cycle();
        let e = qp.post_send(&send(10, &ok)).unwrap_err();
        assert_eq!(
            e,
            Error::Exhausted(Exhausted::SendQueue {
                qpn: qp.qp_num(),
                entries: 4
            })
        );
        assert_eq!(e.errno(), errno::ENOMEM);
        assert_eq!(ctx.cycle(), before, "refused before the device");
    };
    full(&mut qp);
    // Sent, but the queue frees only when the driver takes the completion from the ring.
    assert_eq!(wait_frames(&ctx, 4).len(), 4);
    full(&mut qp);
    cq.wait(1, LIMIT).unwrap();
    assert_eq!(qp.send_queue_used(), 0, "one completion frees all four");
    let c = cq.poll(8).unwrap();
    assert_eq!((c.len(), c[0].wqe_index()), (1, 3));
    for i in 0..4 {
        qp.post_send(&send(20 + i, &ok)).unwrap();
    }
    full(&mut qp);
}

#[test]
fn a_list_stops_at_its_bad_request() {
    let ctx: Context<Dev> = open(&Load::ideal(), 14, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let attr = QpInitAttr {
        max_send_sge: 2,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qp = pd.create_qp(&cq, &attr).unwrap();
    rc_up(&mut qp, 0x800);
    let one = [mr.sge(0, 8).unwrap()];
    let three = [one[0]; 3];
    let list = [send(1, &one), send(2, &one), send(3, &three), send(4, &one)];
    let e = qp.post_send_list(&list).unwrap_err();
    assert_eq!(e.bad_wr, 2);
    assert_eq!(
        e.error,
        Error::Invalid(Invalid::TooManySge { n: 3, max: 2 })
    );
    assert_eq!(e.errno(), errno::EINVAL);
    let (c, done) = cq.poll_until(2, LIMIT);
    done.unwrap();
    assert_eq!(c.iter().map(|c| c.wr_id()).collect::<Vec<_>>(), [1, 2]);
    ctx.run(2000).unwrap();
    assert!(cq.poll(8).unwrap().is_empty(), "nothing past the bad one");
}

#[test]
fn refused_before_the_device() {
    let ctx: Context<Dev> = open(&Load::ideal(), 15, &OpenAttr::default());
    let elsewhere: Context<Dev> = open(&Load::ideal(), 16, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let far = elsewhere.alloc_buffer(0x1000).unwrap();
    let far_cq = elsewhere.create_cq(4).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let attr = QpInitAttr {
        max_inline_data: 16,
        max_send_sge: 1,
        ..QpInitAttr::new(QpType::Ud)
    };
    let mut ud = pd.create_qp(&cq, &attr).unwrap();
    let mut rc = pd
        .create_qp(
            &cq,
            &QpInitAttr {
                qp_type: QpType::Rc,
                ..attr
            },
        )
        .unwrap();
    let ah = pd.create_ah(&ah()).unwrap();
    let dest = UdDest {
        ah: &ah,
        remote_qpn: 0x55,
        remote_qkey: 1,
    };
    let sge = [mr.sge(0, 8).unwrap()];
    let two = [sge[0]; 2];
    let to_ud = |op| SendWr::new(1, op, Data::Sgl(&sge)).to(dest);
    let raddr = RemoteAddr { addr: 0, rkey: 0 };
    let check = |r: Result<(), Error>, want: i32, what: &str, before: u64| {
        let e = r.expect_err(what);
        assert_eq!(e.errno(), want, "{what}: {e}");
        assert_eq!(ctx.cycle(), before, "{what}: no register touched");
    };
    // Posting before RTS.
    for (to, name) in [
        (None, "reset"),
        (Some(QpAttr::Init(InitAttr::ud(1))), "init"),
    ] {
        if let Some(a) = to {
            ud.modify(a).unwrap();
        }
        let b = ctx.cycle();
        check(ud.post_send(&to_ud(SendOp::Send)), errno::EINVAL, name, b);
    }
    ud.modify(QpAttr::Rtr(RtrAttr::ud(PathMtu::Mtu1024)))
        .unwrap();
    let b = ctx.cycle();
    check(ud.post_send(&to_ud(SendOp::Send)), errno::EINVAL, "rtr", b);
    ud.modify(QpAttr::Rts(RtsAttr::new(Psn::new(0).unwrap())))
        .unwrap();
    rc_up(&mut rc, 0x800);

    let b = ctx.cycle();
    let cases: Vec<(Result<(), Error>, i32, &str)> = vec![
        (
            ud.post_send(&to_ud(SendOp::RdmaWrite(raddr))),
            errno::EINVAL,
            "RDMA WRITE on UD",
        ),
        (
            ud.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&sge))),
            errno::EINVAL,
            "UD without a destination",
        ),
        (
            rc.post_send(&to_ud(SendOp::Send)),
            errno::EINVAL,
            "RC with a destination",
        ),
        (
            rc.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&two))),
            errno::EINVAL,
            "too many gather entries",
        ),
        (
            rc.post_send(&SendWr::new(1, SendOp::Send, Data::Inline(&[0; 17]))),
            errno::EINVAL,
            "too many inline bytes",
        ),
        (
            rc.post_send(&SendWr::new(
                1,
                SendOp::Tso {
                    mss: 1000,
                    header: &[0; 54],
                },
                Data::Sgl(&sge),
            )),
            errno::EINVAL,
            "TSO on RC",
        ),
        (
            ud.post_send(&SendWr::new(1, SendOp::Send, Data::Sgl(&sge)).to(UdDest {
                remote_qpn: 1 << 24,
                ..dest
            })),
            errno::EINVAL,
            "a remote QPN past 24 bits",
        ),
        (
            pd.reg_mr(&buf, AccessFlags::REMOTE_WRITE).map(drop),
            errno::EINVAL,
            "remote write without local write",
        ),
        (
            pd.reg_mr_range(&buf, 0x800, 0x801, AccessFlags::NONE)
                .map(drop),
            errno::EFAULT,
            "a region past its buffer",
        ),
        (
            pd.reg_mr_range(&buf, 0, 0, AccessFlags::NONE).map(drop),
            errno::EINVAL,
            "an empty region",
        ),
        (
            mr.sge(0x1000, 1).map(drop),
            errno::EFAULT,
            "a gather entry past its region",
        ),
        (
            buf.write(0xFFF, &[1, 2]),
            errno::EFAULT,
            "a write past a buffer",
        ),
        (
            pd.reg_mr(&far, AccessFlags::NONE).map(drop),
            errno::EPERM,
            "a buffer of another device",
        ),
        (
            pd.create_qp(&far_cq, &QpInitAttr::new(QpType::Rc))
                .map(drop),
            errno::EINVAL,
            "a CQ of another device",
        ),
        (
            ctx.create_cq(0).map(drop),
            errno::EINVAL,
            "a CQ of no entries",
        ),
        (
            ctx.create_cq(1 << 17).map(drop),
            errno::EINVAL,
            "a CQ too large",
        ),
        (
            ctx.alloc_buffer(0).map(drop),
            errno::EINVAL,
            "an empty buffer",
        ),
        (
            pd.create_qp(
                &cq,
                &QpInitAttr {
                    max_send_sge: 17,
                    ..attr
                },
            )
            .map(drop),
            errno::EINVAL,
            "more gather entries than the engine takes",
        ),
        (
            pd.create_qp(
                &cq,
                &QpInitAttr {
                    max_inline_data: 945,
                    ..attr
                },
            )
            .map(drop),
            errno::EINVAL,
            "more inline bytes than a WQE holds",
        ),
        (
            pd.create_qp(
                &cq,
                &QpInitAttr {
                    max_send_wr: 1 << 17,
                    ..attr
                },
            )
            .map(drop),
            errno::EINVAL,
            "a send queue too large",
        ),
        (
            pd.create_qp(
                &cq,
                &QpInitAttr {
                    max_recv_wr: 1,
                    ..attr
                },
            )
            .map(drop),
            errno::EOPNOTSUPP,
            "a receive queue",
        ),
        (
            pd.create_qp(
                &cq,
                &QpInitAttr {
                    max_recv_wr: 1,
                    ..QpInitAttr::new(QpType::RawPacket)
                },
            )
            .map(drop),
            errno::EOPNOTSUPP,
            "a raw packet QP's receive queue on an engine without a receive path",
        ),
    ];
    for (r, want, what) in cases {
        check(r, want, what, b);
    }
    // The engine has raw-packet QPs (CAPS.RAW, read by the firmware): a send-only one is made.
    assert!(ctx.query_device().raw_packet && ctx.device_info().raw);
    let mut raw = pd
        .create_qp(&cq, &QpInitAttr::new(QpType::RawPacket))
        .unwrap();
    raw.bring_up(
        InitAttr::default(),
        RtrAttr::raw(),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .unwrap();
    // Its segmenter (CAPS.TSO) takes a raw QP's Ethernet templates too (tests/tests/raw.rs
    // sends them through the full core).
    assert!(ctx.query_device().tso.is_some_and(|t| t.raw_packet));
    drop(raw);
}

#[test]
fn tables_run_out() {
    let ctx: Context<Dev> = open(&Load::ideal(), 17, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let mut mrs: Vec<_> = (0..64)
        .map(|i| pd.reg_mr_range(&buf, i, 1, AccessFlags::NONE).unwrap())
        .collect();
    let e = pd.reg_mr(&buf, AccessFlags::NONE).err().unwrap();
    assert_eq!(e, Error::Exhausted(Exhausted::MrTable));
    let old = mrs.swap_remove(5).lkey();
    let again = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    assert_ne!(again.lkey(), old, "the slot's next key");
    assert_eq!(again.lkey() >> 8, old >> 8, "the same slot");

    let cq = ctx.create_cq(4).unwrap();
    let attr = QpInitAttr {
        max_send_wr: 1,
        ..QpInitAttr::new(QpType::Ud)
    };
    let qps: Vec<_> = (0..64).map(|_| pd.create_qp(&cq, &attr).unwrap()).collect();
    let e = pd.create_qp(&cq, &attr).err().unwrap();
    assert_eq!(
        (e.clone(), e.errno()),
        (Error::Exhausted(Exhausted::QpTable), errno::ENOMEM)
    );
    drop(qps);
    pd.create_qp(&cq, &attr).unwrap();
}
