//! The WQE engine's control plane against a recording fake: the exact register sequences
//! (the model's encoders, each command followed by its STATUS poll), the entropy fixed at RTR
//! against the model's QP table, and every refusal made before any register write.

mod fake;

use fake::{writes, Access, FakeBus, Gen};
use rocenic_firmware::wqe::{Caps, QpInfo, Status};
use rocenic_firmware::{BusError, EntropySource, Error, WqeEngine};
use rocenic_model::entropy::{Entropy, Profile, QpType, Request};
use rocenic_model::qp::{
    Access as MrAccess, AddressVector, AvError, ConfigError, IllegalTransition, IpPair,
    MemoryRegion, PathMtu, Psn, QpConfig, QpKind, QpState, QpTable,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::regs::{self, caps, command, control, op, status};
use rocenic_model::wqe::{DoorbellError, Nic, Ring, SendRing};

const IDLE: u32 = 1 << 4;
const BUSY: u32 = 1;
const CMD_ERROR: u32 = 2;

fn fake(qps: u32, mrs: u32) -> FakeBus {
    let caps = caps::QPS.put(qps)
        | caps::MRS.put(mrs)
        | caps::MAX_SGE.put(16)
        | caps::DATA_BYTES.put(8)
        | caps::RAW.put(1);
    let mut f = FakeBus::new(regs::ID_VALUE, caps);
    f.values.insert(regs::STATUS, IDLE);
    f
}

fn engine(qps: u32, mrs: u32) -> WqeEngine<FakeBus, 8, 64> {
    let mut e = WqeEngine::open(fake(qps, mrs)).unwrap();
    e.bus_mut().take();
    e
}

fn nic() -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(10, 0, 0, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}

fn rc(dest_qpn: u32, flow_label: u32, v6: bool) -> QpConfig {
    let ip = if v6 {
        IpPair::V6 {
            src: nic().ipv6,
            dst: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]),
        }
    } else {
        IpPair::V4 {
            src: nic().ipv4,
            dst: Ipv4Address::new(10, 0, 0, 2),
        }
    };
    let mut av = AddressVector::new(ip, nic().mac, EthernetAddress([2, 0, 0, 0, 0, 2]));
    av.flow_label = flow_label;
    av.vlan = Some(5);
    av.pcp = 3;
    QpConfig {
        qp_type: QpKind::Rc,
        pd: 7,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0x100).unwrap(),
        dest_qpn,
        q_key: 0,
        av: Some(av),
    }
}

fn ud() -> QpConfig {
    QpConfig {
        qp_type: QpKind::Ud,
        av: None,
        q_key: 0x1111_1111,
        ..rc(0, 0, false)
    }
}

fn ring() -> SendRing {
    SendRing::new(Ring::new(4).unwrap(), 1, 0x10_0000).unwrap()
}

/// A command's write and the STATUS read that found it done.
fn command(w: (u32, u32)) -> Vec<Access> {
    vec![Access::Write(w.0, w.1), Access::Read(regs::STATUS, IDLE)]
}

#[test]
fn open_checks_the_block() {
    let mut wrong = fake(8, 64);
    wrong.values.insert(regs::ID, 0x5253_5331);
    assert!(matches!(
        WqeEngine::<_, 8, 64>::open(&mut wrong),
        Err(Error::NotThisBlock {
            expected: regs::ID_VALUE,
            found: 0x5253_5331
        })
    ));
    // A region or QP slot the firmware could not track is refused: an lkey or a QPN may name
    // any of them.
    assert!(matches!(
        WqeEngine::<_, 8, 32>::open(fake(8, 64)),
        Err(Error::Capacity {
            what: "memory-region slots",
            block: 64,
            firmware: 32,
        })
    ));
    assert!(matches!(
        WqeEngine::<_, 8, 64>::open(fake(0, 64)),
        Err(Error::Capacity {
            what: "QP slots",
            block: 256,
            firmware: 8,
        })
    ));
    let mut f = fake(0, 64);
    f.values.insert(
        regs::CONTROL,
        control::ENABLE.put(1) | control::PROFILE.put(2),
    );
    let e = WqeEngine::<_, 256, 64>::open(&mut f).unwrap();
    assert_eq!(
        e.caps(),
        Caps {
            qps: 256,
            mrs: 64,
            max_sge: 16,
            data_bytes: 8,
            tso: false,
            raw: true,
            reliable: false,
        }
    );
    assert_eq!(e.qp_slots(), 256);
    assert_eq!(e.profile(), Profile::RfcV1);
    assert!(e.is_enabled());
    let reads: Vec<u32> = f
        .log
        .iter()
        .map(|a| match a {
            Access::Read(addr, _) => *addr,
            Access::Write(..) => panic!("open writes nothing"),
        })
        .collect();
    assert_eq!(reads, [regs::ID, regs::CAPS, regs::CAPS2, regs::CONTROL]);
}

/// The reliable transport: its three writes as the model's encoder makes them, `CONTROL`'s bit
/// kept through `configure`, `enable` and `disable`; refused while enabled, on an engine
/// without it (`CAPS2.RELIABLE` 0), and for settings the registers cannot hold, before any
/// write.
#[test]
fn reliable_transport() {
    use rocenic_model::rc::{Reliable, Scale};
    use rocenic_model::wqe::regs::caps2;
    let rel = Reliable {
        timeout: 11,
        retry_cnt: 5,
        rnr_retry: 3,
        max_inflight: 24,
        scale: Scale(3),
        ..Reliable::default()
    };
    let mut without = engine(8, 64);
    assert!(!without.caps().reliable);
    assert_eq!(without.set_reliable(Some(rel), 16), Err(Error::NoReliable));
    assert_eq!(without.bus_mut().take(), vec![]);
    // Off is always allowed: it is the reset state.
    without.set_reliable(None, 512).unwrap();

    let mut f = fake(8, 64);
    f.values.insert(regs::CAPS2, caps2::RELIABLE.put(1));
    let mut e = WqeEngine::<_, 8, 64>::open(f).unwrap();
    e.bus_mut().take();
    assert!(e.caps().reliable);
    e.set_reliable(Some(rel), 16).unwrap();
    assert_eq!(e.reliable(), Some(rel));
    assert_eq!(
        e.bus_mut().take(),
        writes(&regs::reliable_writes(
            Some(&rel),
            16,
            Profile::default(),
            false
        ))
    );
    let on = control::RELIABLE.put(1);
    e.configure(&nic(), Profile::RfcV2).unwrap();
    let mut want = regs::nic_writes(&nic(), Profile::RfcV2, false);
    want.last_mut().unwrap().1 |= on;
    assert_eq!(e.bus_mut().take(), writes(&want));
    e.enable().unwrap();
    e.disable().unwrap();
    assert_eq!(
        e.bus_mut().take(),
        [
            Access::Write(
                regs::CONTROL,
                control::ENABLE.put(1) | control::PROFILE.put(1) | on
            ),
            Access::Write(regs::CONTROL, control::PROFILE.put(1) | on),
        ]
    );
    for (bad, tick) in [
        (Reliable { timeout: 32, ..rel }, 16),
        (
            Reliable {
                retry_cnt: 8,
                ..rel
            },
            16,
        ),
        (
            Reliable {
                rnr_retry: 8,
                ..rel
            },
            16,
        ),
        (
            Reliable {
                max_inflight: 0,
                ..rel
            },
            16,
        ),
        (
            Reliable {
                max_inflight: 256,
                ..rel
            },
            16,
        ),
        (
            Reliable {
                scale: Scale(0),
                ..rel
            },
            16,
        ),
        (
            Reliable {
                scale: Scale(0x1_0000),
                ..rel
            },
            16,
        ),
        (rel, 0),
    ] {
        assert_eq!(
            e.set_reliable(Some(bad), tick),
            Err(Error::ReliableSettings(bad, tick))
        );
        assert_eq!(e.bus_mut().take(), vec![]);
        assert_eq!(e.reliable(), Some(rel));
    }
    e.enable().unwrap();
    e.bus_mut().take();
    assert_eq!(e.set_reliable(None, 16), Err(Error::Enabled));
    assert_eq!(e.bus_mut().take(), vec![]);
    e.disable().unwrap();
    e.set_reliable(None, 16).unwrap();
    assert_eq!(e.reliable(), None);
    assert_eq!(
        e.bus_mut().take()[1..],
        writes(&regs::reliable_writes(None, 16, Profile::RfcV2, false))
    );
}

#[test]
fn configuration_sequences() {
    let mut e = engine(8, 64);
    e.configure(&nic(), Profile::RfcV2).unwrap();
    e.set_completion_ring(0x4000_0040, 6).unwrap();
    e.enable().unwrap();
    e.release_completions(9).unwrap();
    e.clear_errors().unwrap();
    let mut want = writes(&regs::nic_writes(&nic(), Profile::RfcV2, false));
    want.extend(writes(&regs::cq_writes(0x4000_0040, 6)));
    want.extend(writes(&regs::nic_writes(&nic(), Profile::RfcV2, true)[7..]));
    want.push(Access::Write(regs::CQ_CONSUMER, 9));
    want.push(Access::Write(
        regs::STATUS,
        status::DB_ERROR.put(1) | status::CQ_FAULT.put(1),
    ));
    assert_eq!(e.bus_mut().take(), want);

    // Enabled: the ring, the addresses and the profile stay; nothing is written.
    assert_eq!(e.set_completion_ring(0, 4), Err(Error::Enabled));
    assert_eq!(e.configure(&nic(), Profile::Linux), Err(Error::Enabled));
    assert_eq!(e.profile(), Profile::RfcV2);
    e.disable().unwrap();
    assert_eq!(
        e.bus_mut().take(),
        [Access::Write(regs::CONTROL, control::PROFILE.put(1))]
    );
    assert_eq!(e.set_completion_ring(0x20, 17), Err(Error::RingSize(17)));
    assert_eq!(
        e.set_completion_ring(0x30, 4),
        Err(Error::Misaligned {
            addr: 0x30,
            align: 32
        })
    );
    assert_eq!(
        e.set_completion_ring(u64::MAX - 31, 1),
        Err(Error::RingPastEnd {
            base: u64::MAX - 31,
            bytes: 64
        })
    );
    e.set_completion_ring(u64::MAX - 31, 0).unwrap();
    assert_eq!(e.bus_mut().writes().len(), 3);
}

#[test]
fn status_counters_and_wait() {
    let mut e = engine(8, 64);
    e.bus_mut().queue(regs::STATUS, &[0b01110, 0, 0, IDLE | 4]);
    assert_eq!(
        e.status().unwrap(),
        Status {
            busy: false,
            cmd_error: true,
            db_error: true,
            cq_fault: true,
            idle: false
        }
    );
    assert!(e.wait_idle().unwrap().db_error);
    assert_eq!(e.bus().log.len(), 4);
    e.bus_mut().values.insert(regs::STATUS, 0);
    e.set_poll_limit(5);
    assert_eq!(
        e.wait_idle(),
        Err(Error::Timeout {
            addr: regs::STATUS,
            polls: 5,
            last: 0
        })
    );
    for (addr, f) in [
        (regs::WQES, WqeEngine::wqes as fn(&mut _) -> _),
        (regs::FRAMES, WqeEngine::frames),
        (regs::CQ_PRODUCER, WqeEngine::cq_producer),
    ] {
        e.bus_mut().values.insert(addr, addr * 3);
        assert_eq!(f(&mut e), Ok(addr * 3));
    }
}

/// Create and bring up under every profile, QPN-based: the staged context is `qp_writes`, each
/// command is followed by one STATUS read, and the entropy is the model's.
#[test]
fn rc_qp_lifecycle_and_entropy() {
    for profile in Profile::ALL {
        for fl in [0, 0xABCDE] {
            let mut e = engine(8, 64);
            e.configure(&nic(), profile).unwrap();
            e.bus_mut().take();
            let cfg = rc(0x22, fl, true);
            let slot = e
                .create_qp(0x11, &cfg, &ring(), EntropySource::Qpn)
                .unwrap();
            assert_eq!(slot, 1, "QPN 0x11's low three bits");
            let mut want = writes(&regs::qp_writes(0x11, &cfg, &ring(), 0x10_0000));
            want.extend(command(regs::qp_write(1)));
            for s in [QpState::Init, QpState::Rtr, QpState::Rts] {
                want.extend(command(regs::qp_modify(1, s)));
            }
            e.bring_up(0x11).unwrap();
            assert_eq!(e.bus_mut().take(), want);

            let mut model = QpTable::<8>::new(profile);
            model.create(0x11, cfg).unwrap();
            model.bring_up(0x11).unwrap();
            let info = e.qp(0x11).unwrap();
            assert_eq!(
                info,
                QpInfo {
                    qpn: 0x11,
                    slot: 1,
                    state: QpState::Rts,
                    entropy: model.get(0x11).unwrap().entropy(),
                    posted: 0
                }
            );
            assert!(info.entropy.is_some());

            // ERR, RESET (the entropy is forgotten), INIT again, then destroy.
            for s in [QpState::Err, QpState::Reset, QpState::Init] {
                e.modify_qp(0x11, s).unwrap();
            }
            assert_eq!(e.qp(0x11).unwrap().entropy, None);
            e.destroy_qp(0x11).unwrap();
            let mut want = Vec::new();
            for s in [QpState::Err, QpState::Reset, QpState::Init] {
                want.extend(command(regs::qp_modify(1, s)));
            }
            want.extend(command(regs::qp_destroy(1)));
            assert_eq!(e.bus_mut().take(), want);
            assert_eq!(e.qp(0x11), None);
            assert_eq!(e.qps().count(), 0);
        }
    }
}

/// CM entropy: the staged flow label makes the engine's QP-mode result the CM's, under every
/// profile where one exists; rfc-v1's CM port is refused before anything is written.
#[test]
fn cm_entropy_is_staged_as_the_flow_label() {
    let mut g = Gen(0xC0FFEE);
    for profile in Profile::ALL {
        for _ in 0..200 {
            let lqpn = 2 + g.below(0xFF_FFFE) as u32;
            let rqpn = g.below(0x100_0000) as u32;
            let fl = if g.below(3) == 0 {
                g.below(1 << 20) as u32
            } else {
                0
            };
            let (src_port, dst_port) = (g.next() as u16, g.next() as u16);
            let mut e = engine(8, 64);
            e.configure(&nic(), profile).unwrap();
            e.bus_mut().take();
            let cfg = rc(rqpn, fl, g.below(2) == 0);
            let source = EntropySource::Cm { src_port, dst_port };
            let want = profile.compute(&Request::Cm {
                src_port,
                dst_port,
                flowinfo: fl,
                lqpn,
                rqpn,
            });
            let qp_mode = |staged: u32| {
                profile.compute(&Request::Qp {
                    lqpn,
                    rqpn,
                    flow_label: staged,
                    qp_type: QpType::Rc,
                })
            };
            match e.create_qp(lqpn, &cfg, &ring(), source) {
                Ok(_) => {
                    let log = e.bus_mut().take();
                    let staged = log
                        .iter()
                        .find_map(|a| match *a {
                            Access::Write(regs::QP_FLOW_LABEL, v) => Some(v),
                            _ => None,
                        })
                        .unwrap();
                    assert_eq!(qp_mode(staged), want, "{profile} {lqpn:#x} {rqpn:#x}");
                    e.bring_up(lqpn).unwrap();
                    assert_eq!(e.qp(lqpn).unwrap().entropy, Some(want));
                }
                Err(err) => {
                    assert_eq!(err, Error::EntropyNotRepresentable { profile });
                    assert_eq!(profile, Profile::RfcV1);
                    assert_ne!(qp_mode(want.flow_label), want);
                    assert!(e.bus().log.is_empty());
                }
            }
        }
    }
    // A UD QP's entropy is per request: CM entropy is refused for it.
    let mut e = engine(8, 64);
    let cm = EntropySource::Cm {
        src_port: 1,
        dst_port: 2,
    };
    assert_eq!(e.create_qp(0x11, &ud(), &ring(), cm), Err(Error::CmNeedsRc));
    assert!(e.bus().log.is_empty());
}

/// A profile change between create and RTR is checked again at RTR, before the modify.
#[test]
fn rtr_rechecks_entropy_under_the_profile_in_force() {
    let mut e = engine(8, 64);
    e.configure(&nic(), Profile::Linux).unwrap();
    let cm = EntropySource::Cm {
        src_port: 0x1234,
        dst_port: 4791,
    };
    e.create_qp(0x11, &rc(0x22, 0, false), &ring(), cm).unwrap();
    e.modify_qp(0x11, QpState::Init).unwrap();
    e.configure(&nic(), Profile::RfcV1).unwrap();
    e.bus_mut().take();
    assert_eq!(
        e.modify_qp(0x11, QpState::Rtr),
        Err(Error::EntropyNotRepresentable {
            profile: Profile::RfcV1
        })
    );
    assert!(e.bus().log.is_empty());
    assert_eq!(e.qp(0x11).unwrap().state, QpState::Init);
    // Under rfc-v2 the CM label differs from linux's, so the staged one no longer gives it.
    e.configure(&nic(), Profile::RfcV2).unwrap();
    e.bus_mut().take();
    assert_eq!(
        e.modify_qp(0x11, QpState::Rtr),
        Err(Error::EntropyNotRepresentable {
            profile: Profile::RfcV2
        })
    );
    e.configure(&nic(), Profile::Linux).unwrap();
    e.modify_qp(0x11, QpState::Rtr).unwrap();
}

#[test]
fn ud_qp_has_no_fixed_entropy() {
    let mut e = engine(8, 64);
    e.create_qp(0x33, &ud(), &ring(), EntropySource::Qpn)
        .unwrap();
    e.bring_up(0x33).unwrap();
    assert_eq!(e.qp(0x33).unwrap().entropy, None);
    let want = Profile::RfcV1.compute(&Request::Qp {
        lqpn: 0x33,
        rqpn: 0x44,
        flow_label: 0,
        qp_type: QpType::Ud,
    });
    assert_eq!(
        rocenic_firmware::entropy::ud(Profile::RfcV1, 0x33, 0x44, 0),
        want
    );
}

/// Every refusal of `create_qp` comes before any write.
#[test]
fn bad_qps_are_refused_before_any_write() {
    let mut e = engine(4, 64);
    let q = EntropySource::Qpn;
    let r = ring();
    let with_av = |f: fn(&mut AddressVector)| {
        let mut c = rc(0x22, 0, false);
        f(c.av.as_mut().unwrap());
        c
    };
    let cases = [
        (0, rc(0x22, 0, false), Error::Qp(ConfigError::Qpn)),
        (1, rc(0x22, 0, false), Error::Qp(ConfigError::Qpn)),
        (1 << 24, rc(0x22, 0, false), Error::Qp(ConfigError::Qpn)),
        (2, rc(1 << 24, 0, false), Error::Qp(ConfigError::DestQpn)),
        (
            2,
            QpConfig {
                av: None,
                ..rc(0x22, 0, false)
            },
            Error::Qp(ConfigError::MissingAv),
        ),
        (
            2,
            rc(0x22, 1 << 20, false),
            Error::Qp(ConfigError::Av(AvError::FlowLabel)),
        ),
        (
            2,
            with_av(|a| a.vlan = Some(0xFFF)),
            Error::Qp(ConfigError::Av(AvError::Vlan)),
        ),
        (
            2,
            with_av(|a| a.pcp = 8),
            Error::Qp(ConfigError::Av(AvError::Pcp)),
        ),
        (
            2,
            with_av(|a| a.hop_limit = 0),
            Error::Qp(ConfigError::Av(AvError::HopLimit)),
        ),
    ];
    for (qpn, cfg, err) in cases {
        assert_eq!(e.create_qp(qpn, &cfg, &r, q), Err(err), "QPN {qpn:#x}");
    }
    assert!(e.bus().log.is_empty());
    // Four slots (CAPS.QPS 4, fewer than the firmware's 8): each QP sits in its QPN's low two
    // bits, so 6 finds 2 there.
    for qpn in 2..6 {
        assert_eq!(e.create_qp(qpn, &ud(), &r, q), Ok(qpn as usize % 4));
    }
    e.bus_mut().take();
    assert_eq!(e.create_qp(2, &ud(), &r, q), Err(Error::DuplicateQpn(2)));
    assert_eq!(
        e.create_qp(6, &ud(), &r, q),
        Err(Error::QpSlotTaken {
            qpn: 6,
            slot: 2,
            holder: 2
        })
    );
    assert_eq!(e.modify_qp(6, QpState::Init), Err(Error::NoSuchQp(6)));
    assert_eq!(e.destroy_qp(6), Err(Error::NoSuchQp(6)));
    assert_eq!(e.ring_doorbell(6, 1), Err(Error::NoSuchQp(6)));
    assert!(e.bus().log.is_empty());
    // A freed slot is free for another QPN of the same low bits, and for no other.
    e.destroy_qp(3).unwrap();
    assert!(matches!(
        e.create_qp(8, &ud(), &r, q),
        Err(Error::QpSlotTaken { slot: 0, .. })
    ));
    assert_eq!(e.create_qp(7, &ud(), &r, q), Ok(3));
}

/// Every one of the 25 state pairs: legal exactly when the model says so, refused unwritten.
#[test]
fn every_transition_is_the_models() {
    // The shortest legal path from RESET to each state.
    let path = |s: QpState| -> &'static [QpState] {
        match s {
            QpState::Reset => &[],
            QpState::Init => &[QpState::Init],
            QpState::Rtr => &[QpState::Init, QpState::Rtr],
            QpState::Rts => &[QpState::Init, QpState::Rtr, QpState::Rts],
            QpState::Err => &[QpState::Init, QpState::Err],
        }
    };
    for from in QpState::ALL {
        for to in QpState::ALL {
            let mut e = engine(8, 64);
            e.create_qp(0x11, &rc(0x22, 0, false), &ring(), EntropySource::Qpn)
                .unwrap();
            for &s in path(from) {
                e.modify_qp(0x11, s).unwrap();
            }
            e.bus_mut().take();
            let got = e.modify_qp(0x11, to);
            if from.can_modify_to(to) {
                assert_eq!(got, Ok(()), "{from} -> {to}");
                assert_eq!(e.bus_mut().take(), command(regs::qp_modify(1, to)));
                assert_eq!(e.qp(0x11).unwrap().state, to);
            } else {
                assert_eq!(
                    got,
                    Err(Error::Transition(IllegalTransition { from, to })),
                    "{from} -> {to}"
                );
                assert!(e.bus().log.is_empty());
                assert_eq!(e.qp(0x11).unwrap().state, from);
            }
        }
    }
}

/// What the block refuses: the firmware keeps its tables as the block has them, and a refused
/// modify that only ERR explains records ERR (the engine moved the QP there on a failed WQE).
#[test]
fn block_refusals() {
    let mut e = engine(8, 64);
    e.bus_mut().queue(regs::STATUS, &[BUSY, BUSY, CMD_ERROR]);
    let word = regs::qp_write(1).1;
    assert_eq!(
        e.create_qp(0x11, &ud(), &ring(), EntropySource::Qpn),
        Err(Error::Refused { command: word })
    );
    assert_eq!(e.qp(0x11), None);
    let log = e.bus_mut().take();
    assert_eq!(
        log.iter().filter(|a| matches!(a, Access::Read(..))).count(),
        3
    );

    e.create_qp(0x11, &rc(0x22, 0, false), &ring(), EntropySource::Qpn)
        .unwrap();
    e.bring_up(0x11).unwrap();
    e.bus_mut().queue(regs::STATUS, &[CMD_ERROR]);
    assert!(matches!(
        e.modify_qp(0x11, QpState::Rts),
        Err(Error::Refused { .. })
    ));
    assert_eq!(e.qp(0x11).unwrap().state, QpState::Err);
    // A refusal ERR does not explain changes nothing.
    e.bus_mut().queue(regs::STATUS, &[CMD_ERROR]);
    assert!(matches!(
        e.modify_qp(0x11, QpState::Reset),
        Err(Error::Refused { .. })
    ));
    assert_eq!(e.qp(0x11).unwrap().state, QpState::Err);
    e.modify_qp(0x11, QpState::Reset).unwrap();

    // A command that never finishes, and a bus that fails.
    e.set_poll_limit(3);
    e.bus_mut().queue(regs::STATUS, &[BUSY, BUSY, BUSY]);
    assert_eq!(
        e.modify_qp(0x11, QpState::Init),
        Err(Error::Timeout {
            addr: regs::STATUS,
            polls: 3,
            last: BUSY
        })
    );
    e.bus_mut().fail = Some((regs::QP_PD, BusError::Slave { addr: regs::QP_PD }));
    assert_eq!(
        e.create_qp(0x12, &ud(), &ring(), EntropySource::Qpn),
        Err(Error::Bus(BusError::Slave { addr: regs::QP_PD }))
    );
    assert_eq!(e.qp(0x12), None);
    assert_eq!(BusError::check(0, 8), Ok(()));
    assert_eq!(BusError::check(1, 8), Ok(()));
    assert_eq!(BusError::check(2, 8), Err(BusError::Slave { addr: 8 }));
    assert_eq!(BusError::check(3, 8), Err(BusError::Decode { addr: 8 }));
}

#[test]
fn doorbells() {
    let mut e = engine(8, 64);
    let q = EntropySource::Qpn;
    e.create_qp(0x11, &ud(), &ring(), q).unwrap();
    e.create_qp(0x12, &ud(), &ring(), q).unwrap();
    // Nothing is posted before RTS.
    for s in [QpState::Reset, QpState::Init, QpState::Rtr] {
        if s != QpState::Reset {
            e.modify_qp(0x12, s).unwrap();
        }
        e.bus_mut().take();
        assert_eq!(
            e.ring_doorbell(0x12, 1),
            Err(Error::NotPostable {
                qpn: 0x12,
                state: s
            })
        );
        assert!(e.bus().log.is_empty());
    }
    e.modify_qp(0x12, QpState::Rts).unwrap();
    e.bus_mut().take();
    // A ring of 16: up to 16 ahead of what was rung; repeated and older indices pass.
    e.ring_doorbell(0x12, 16).unwrap();
    e.ring_doorbell(0x12, 16).unwrap();
    e.ring_doorbell(0x12, 3).unwrap();
    assert_eq!(
        e.ring_doorbell(0x12, 33),
        Err(Error::Doorbell(DoorbellError::TooFarAhead {
            written: 33,
            base: 16,
            entries: 16
        }))
    );
    e.ring_doorbell(0x12, 32).unwrap();
    assert_eq!(e.qp(0x12).unwrap().posted, 32);
    assert_eq!(
        e.bus_mut().take(),
        writes(&[
            regs::doorbell(2, 16),
            regs::doorbell(2, 16),
            regs::doorbell(2, 3),
            regs::doorbell(2, 32)
        ])
    );
    // ERR still takes doorbells (their WQEs are flushed); RESET restarts the ring at 0.
    e.modify_qp(0x12, QpState::Err).unwrap();
    e.ring_doorbell(0x12, 40).unwrap();
    e.modify_qp(0x12, QpState::Reset).unwrap();
    assert_eq!(e.qp(0x12).unwrap().posted, 0);
    // The index wraps at 2^32 as the engine's does: a ring of 2^16, rung a whole ring ahead
    // each time, comes round to 0 and goes on.
    let big = SendRing::new(Ring::new(16).unwrap(), 0, 0x20_0000).unwrap();
    e.create_qp(0x13, &ud(), &big, q).unwrap();
    e.bring_up(0x13).unwrap();
    let mut p = 0u32;
    for _ in 0..1 << 16 {
        p = p.wrapping_add(1 << 16);
        e.ring_doorbell(0x13, p).unwrap();
        e.bus_mut().take();
    }
    assert_eq!(p, 0);
    e.ring_doorbell(0x13, 5).unwrap();
    assert_eq!(e.qp(0x13).unwrap().posted, 5);
}

#[test]
fn memory_regions() {
    let mut e = engine(8, 64);
    let mr = |lkey, base, length| MemoryRegion {
        lkey,
        base,
        length,
        pd: 7,
        access: MrAccess::LOCAL_WRITE,
    };
    let a = mr(0x0305, 0x1000, 0x2000);
    assert_eq!(e.register_mr(&a), Ok(3));
    let mut want = writes(&regs::mr_writes(&a));
    want.extend(command(regs::mr_write()));
    assert_eq!(e.bus_mut().take(), want);
    // The same lkey again is written again; another in the slot is refused unwritten.
    assert_eq!(e.register_mr(&mr(0x0305, 0x1000, 0x10)), Ok(3));
    e.bus_mut().take();
    assert_eq!(
        e.register_mr(&mr(0x4300, 0, 1)),
        Err(Error::MrSlotTaken {
            lkey: 0x4300,
            slot: 3,
            holder: 0x0305
        })
    );
    for (base, length) in [(0, 0), (u64::MAX, 2), (2, u64::MAX)] {
        assert_eq!(
            e.register_mr(&mr(0x0400, base, length)),
            Err(Error::MrRange { base, length })
        );
    }
    assert_eq!(e.deregister_mr(0x0400), Err(Error::NoSuchMr(0x0400)));
    assert_eq!(e.deregister_mr(0x4300), Err(Error::NoSuchMr(0x4300)));
    assert!(e.bus().log.is_empty());
    // A region may end exactly at 2^64.
    assert_eq!(e.register_mr(&mr(0x0400, u64::MAX, 1)), Ok(4));
    e.bus_mut().take();
    e.deregister_mr(0x0305).unwrap();
    let [stage, cmd] = regs::mr_clear(0x0305);
    let mut want = vec![Access::Write(stage.0, stage.1)];
    want.extend(command(cmd));
    assert_eq!(e.bus_mut().take(), want);
    assert_eq!(cmd.1, command::OP.put(op::MR_CLEAR));
    assert_eq!(e.mr_slots()[3], None);
    assert_eq!(e.mr_slots()[4], Some(0x0400));
    e.register_mr(&mr(0x4300, 0, 1)).unwrap();
}

/// The entropy `EntropySource::Qpn` gives is the model QP table's for every profile and QPN
/// pair, flow label or not.
#[test]
fn qpn_entropy_matches_the_qp_table() {
    let mut g = Gen(7);
    for _ in 0..500 {
        let profile = Profile::ALL[g.below(4) as usize];
        let lqpn = 2 + g.below(0xFF_FFFE) as u32;
        let rqpn = g.below(0x100_0000) as u32;
        let fl = if g.below(2) == 0 {
            g.below(1 << 20) as u32
        } else {
            0
        };
        let cfg = rc(rqpn, fl, false);
        let mut e = engine(8, 64);
        e.configure(&nic(), profile).unwrap();
        e.create_qp(lqpn, &cfg, &ring(), EntropySource::Qpn)
            .unwrap();
        e.bring_up(lqpn).unwrap();
        let mut t = QpTable::<1>::new(profile);
        t.create(lqpn, cfg).unwrap();
        t.bring_up(lqpn).unwrap();
        let want: Option<Entropy> = t.get(lqpn).unwrap().entropy();
        assert_eq!(e.qp(lqpn).unwrap().entropy, want);
    }
}
