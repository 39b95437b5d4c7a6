//! `query_device`, and the QP state machine: every one of the 25 state pairs on RC and UD,
//! illegal ones refused with `EINVAL` before any register access (the device's clock does not
//! move), and the attributes each state needs.

use crate::common::{open, Dev};
use rocenic_host_driver::verbs::{
    errno, AccessFlags, AhAttr, Context, EntropySource, Error, Feature, Gid, InitAttr, Invalid,
    OpenAttr, PathMtu, Profile, Psn, QpAttr, QpInitAttr, QpState, QpType, QueuePair, RcPeer,
    RecvWr, RtrAttr, RtsAttr, TsoCaps, WqInitAttr,
};
use rocenic_model::entropy::Request;
use rocenic_model::qp::IllegalTransition;
use rocenic_model::wire::{EthernetAddress, Ipv4Address};
use rocenic_sim::wqe::engine::Load;

fn ah() -> AhAttr {
    AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(192, 168, 1, 2)),
        EthernetAddress([2, 0, 0, 0, 0, 2]),
    )
}

fn attr_for(qp_type: QpType, to: QpState) -> QpAttr {
    match to {
        QpState::Reset => QpAttr::Reset,
        QpState::Init => QpAttr::Init(InitAttr::ud(0x1111)),
        QpState::Rtr if qp_type == QpType::Rc => QpAttr::Rtr(RtrAttr::rc(
            PathMtu::Mtu1024,
            0x900,
            Psn::new(5).unwrap(),
            ah(),
        )),
        QpState::Rtr => QpAttr::Rtr(RtrAttr::ud(PathMtu::Mtu1024)),
        QpState::Rts => QpAttr::Rts(RtsAttr::new(Psn::new(0x10).unwrap())),
        QpState::Err => QpAttr::Err,
    }
}

/// Moves a new QP to `state` along legal changes; ERR through RTS, so the engine holds it.
fn drive(qp: &mut QueuePair<'_, Dev>, state: QpState) {
    let path: &[QpState] = match state {
        QpState::Reset => &[],
        QpState::Init => &[QpState::Init],
        QpState::Rtr => &[QpState::Init, QpState::Rtr],
        QpState::Rts => &[QpState::Init, QpState::Rtr, QpState::Rts],
        QpState::Err => &[QpState::Init, QpState::Rtr, QpState::Rts, QpState::Err],
    };
    for &s in path {
        qp.modify(attr_for(qp.qp_type(), s)).unwrap();
    }
    assert_eq!(qp.state(), state);
}

#[test]
fn query_device_and_what_needs_a_receive_path() {
    let ctx: Context<Dev> = open(&Load::ideal(), 1, &OpenAttr::default());
    let a = ctx.query_device();
    assert_eq!((a.max_qp, a.max_mr, a.max_sge), (64, 64, 16));
    assert_eq!(
        (a.max_qp_wr, a.max_cqe, a.max_msg_sz),
        (65536, 65536, 1 << 31)
    );
    assert_eq!(
        a.max_inline_data, 944,
        "a UD SEND's inline bytes in 16 blocks"
    );
    // TSO (CAPS.TSO) at the segmenter's limits, for UD and raw-packet QPs (CAPS.RAW).
    let limits = rocenic_model::tso::Limits::default();
    let tso = TsoCaps {
        max_tso: limits.max_tso as u32,
        max_header: limits.max_header as u32,
        max_mss: limits.max_mss as u32,
        raw_packet: true,
    };
    assert_eq!((a.tso, a.rss, a.receive), (Some(tso), None, false));
    assert_eq!(a.completion_ring, 1024);
    assert_eq!(a.profile, Profile::Linux);

    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let recv = QpInitAttr {
        max_recv_wr: 4,
        ..QpInitAttr::new(QpType::Ud)
    };
    let e = pd.create_qp(&cq, &recv).err().unwrap();
    assert_eq!(e, Error::Unsupported(Feature::Receive));
    assert_eq!(e.errno(), errno::EOPNOTSUPP);
    let wq = ctx.create_wq(
        &pd,
        &cq,
        &WqInitAttr {
            max_wr: 4,
            max_sge: 1,
        },
    );
    assert_eq!(wq.err().map(|e| e.errno()), Some(errno::EOPNOTSUPP));
    assert_eq!(
        ctx.create_rwq_ind_table(&[]).err(),
        Some(Error::Unsupported(Feature::Receive))
    );
    let mut qp = pd.create_qp(&cq, &QpInitAttr::new(QpType::Ud)).unwrap();
    drive(&mut qp, QpState::Rts);
    let r = qp.post_recv(&RecvWr { wr_id: 1, sgl: &[] });
    assert_eq!(r, Err(Error::Unsupported(Feature::Receive)));
}

#[test]
fn every_transition_on_rc_and_ud() {
    let ctx = open(&Load::ideal(), 2, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let mut legal = 0;
    for qp_type in [QpType::Rc, QpType::Ud] {
        for from in QpState::ALL {
            for to in QpState::ALL {
                let mut qp = pd.create_qp(&cq, &QpInitAttr::new(qp_type)).unwrap();
                drive(&mut qp, from);
                let before = ctx.cycle();
                let r = qp.modify(attr_for(qp_type, to));
                let what = format!("{qp_type:?} {from} -> {to}");
                if from.can_modify_to(to) {
                    r.unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(qp.state(), to, "{what}");
                    // The engine holds the QP exactly from RTS until a reset.
                    let held = matches!(
                        (from, to),
                        (_, QpState::Rts) | (QpState::Rts | QpState::Err, QpState::Err)
                    );
                    assert_eq!(qp.engine_context().is_some(), held, "{what}");
                    assert_eq!(
                        qp.entropy().is_some(),
                        held && qp_type == QpType::Rc,
                        "{what}"
                    );
                    legal += 1;
                } else {
                    let want = Error::Invalid(Invalid::Transition(IllegalTransition { from, to }));
                    assert_eq!(r, Err(want), "{what}");
                    assert_eq!(r.unwrap_err().errno(), errno::EINVAL);
                    assert_eq!(ctx.cycle(), before, "{what}: no register touched");
                    assert_eq!(qp.state(), from, "{what}");
                }
            }
        }
    }
    assert_eq!(legal, 2 * 14, "the verbs table has 14 legal pairs");
}

#[test]
fn attributes_each_state_needs() {
    let ctx = open(&Load::ideal(), 3, &OpenAttr::default());
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8).unwrap();
    let mut rc = pd.create_qp(&cq, &QpInitAttr::new(QpType::Rc)).unwrap();
    let mut ud = pd.create_qp(&cq, &QpInitAttr::new(QpType::Ud)).unwrap();
    rc.modify(QpAttr::Init(InitAttr::default())).unwrap();
    ud.modify(QpAttr::Init(InitAttr::ud(7))).unwrap();
    let before = ctx.cycle();
    let no_peer = rc.modify(QpAttr::Rtr(RtrAttr::ud(PathMtu::Mtu256)));
    assert!(matches!(no_peer, Err(Error::Invalid(Invalid::Attr(_)))));
    let peer = ud.modify(attr_for(QpType::Rc, QpState::Rtr));
    assert!(matches!(peer, Err(Error::Invalid(Invalid::Attr(_)))));
    let mut bad = ah();
    bad.hop_limit = 0;
    let r = rc.modify(QpAttr::Rtr(RtrAttr::rc(
        PathMtu::Mtu256,
        9,
        Psn::new(0).unwrap(),
        bad,
    )));
    assert_eq!(r.map_err(|e| e.errno()), Err(errno::EINVAL));
    assert_eq!(
        pd.create_ah(&bad).err().map(|e| e.errno()),
        Some(errno::EINVAL)
    );
    let wide = rc.modify(QpAttr::Rtr(RtrAttr::rc(
        PathMtu::Mtu256,
        1 << 24,
        Psn::new(0).unwrap(),
        ah(),
    )));
    assert!(matches!(wide, Err(Error::Invalid(Invalid::Qp(_)))));
    assert_eq!(ctx.cycle(), before, "refused before any register access");
    assert_eq!((rc.state(), ud.state()), (QpState::Init, QpState::Init));

    // RTS → RTS keeps the send PSN.
    drive_on(&mut rc, QpState::Rts);
    let r = rc.modify(QpAttr::Rts(RtsAttr::new(Psn::new(0x11).unwrap())));
    assert!(matches!(r, Err(Error::Invalid(Invalid::Attr(_)))));
    rc.modify(attr_for(QpType::Rc, QpState::Rts)).unwrap();
    assert_eq!(rc.engine_context().unwrap().0.psn.get(), 0x10);
}

fn drive_on(qp: &mut QueuePair<'_, Dev>, to: QpState) {
    let mut s = qp.state();
    while s != to {
        s = match s {
            QpState::Reset => QpState::Init,
            QpState::Init => QpState::Rtr,
            _ => QpState::Rts,
        };
        qp.modify(attr_for(qp.qp_type(), s)).unwrap();
    }
}

#[test]
fn connection_manager_entropy() {
    for profile in Profile::ALL {
        let attr = OpenAttr {
            profile,
            ..OpenAttr::default()
        };
        let ctx = open(&Load::ideal(), 4, &attr);
        let pd = ctx.alloc_pd().unwrap();
        let cq = ctx.create_cq(8).unwrap();
        let mut qp = pd.create_qp(&cq, &QpInitAttr::new(QpType::Rc)).unwrap();
        qp.modify(QpAttr::Init(InitAttr {
            access: AccessFlags::LOCAL_WRITE,
            ..InitAttr::default()
        }))
        .unwrap();
        let (src_port, dst_port) = (0xC123, 4791);
        let mut a = ah();
        a.dgid = Gid([0xfe; 16]);
        let rtr = RtrAttr {
            path_mtu: PathMtu::Mtu512,
            rq_psn: Psn::new(0).unwrap(),
            peer: Some(RcPeer {
                dest_qpn: 0x4242,
                ah: a,
                entropy: EntropySource::Cm { src_port, dst_port },
            }),
        };
        let want = profile.compute(&Request::Cm {
            src_port,
            dst_port,
            flowinfo: 0,
            lqpn: qp.qp_num(),
            rqpn: 0x4242,
        });
        match qp.modify(QpAttr::Rtr(rtr)) {
            Ok(()) => {
                qp.modify(attr_for(QpType::Rc, QpState::Rts)).unwrap();
                assert_eq!(qp.entropy(), Some(want), "{profile:?}");
            }
            // rfc-v1 derives the CM's port from the CM's ports, which QP mode never sees.
            Err(e) => {
                assert_eq!(profile, Profile::RfcV1);
                assert_eq!(e, Error::Invalid(Invalid::Entropy(profile)));
            }
        }
    }
}
