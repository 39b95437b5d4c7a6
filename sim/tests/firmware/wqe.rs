//! The firmware drives the WQE engine's control plane (rtl/wqe/wqe_ctrl.sv, the 8-slot build)
//! through its AXI4-Lite port, with random bus delays and the bench's stand-in data path taking
//! picks. What the RTL does is checked against the model: each region on the table's write
//! port, and each pick's QP context, index and address, the RC entropy included (QPN-based from
//! the model's QP table, CM-based from `Profile::compute`), under every profile; and the QP
//! states the firmware keeps against the RTL's `qp_err`.

use crate::bus::CtrlBus;
use rand::Rng;
use rocenic_firmware::{EntropySource, Error, WqeEngine};
use rocenic_model::entropy::{Entropy, Profile, QpType, Request};
use rocenic_model::qp::{
    Access, AddressVector, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpState, QpTable,
};
use rocenic_model::rx::qp_slot;
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::{Nic, Ring, SendRing};
use rocenic_sim::duts::WqeCtrl8;
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use rocenic_sim::wqe::ctrl::{Bench, DataPath, Event, Pick, QpCtx};

type Engine = WqeEngine<CtrlBus<Bench<WqeCtrl8>>, 8, 8>;

fn nic() -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(192, 168, 1, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}

/// A data path that completes every WQE and never faults (the engine moves no QP to ERR).
fn clean() -> DataPath {
    DataPath {
        err: 0.0,
        fault: 0.0,
        ..DataPath::default()
    }
}

/// One QP of a run: what the firmware was given and what its packets must carry.
#[derive(Clone, Copy, Debug)]
struct Qp {
    qpn: u32,
    config: QpConfig,
    ring: SendRing,
    source: EntropySource,
    slot: usize,
    /// WQEs rung since the ring last restarted.
    posted: u32,
}

impl Qp {
    /// The entropy the model gives this QP at RTR under `profile`: the QP table's for
    /// QPN-based entropy, `Request::Cm`'s for the connection manager's.
    fn entropy(&self, profile: Profile) -> Option<Entropy> {
        let av = self.config.av?;
        match self.source {
            EntropySource::Qpn => {
                let mut t = QpTable::<1>::new(profile);
                t.create(self.qpn, self.config).unwrap();
                t.bring_up(self.qpn).unwrap();
                t.get(self.qpn).unwrap().entropy()
            }
            EntropySource::Cm { src_port, dst_port } => Some(profile.compute(&Request::Cm {
                src_port,
                dst_port,
                flowinfo: av.flow_label,
                lqpn: self.qpn,
                rqpn: self.config.dest_qpn,
            })),
        }
    }

    /// The context a pick of this QP carries (`wqe_pkg::qp_ctx_t`).
    fn ctx(&self, profile: Profile) -> QpCtx {
        let cfg = &self.config;
        let av = cfg.av;
        let v4 = |a: Ipv4Address| {
            let mut b = [0u8; 16];
            b[12..].copy_from_slice(&a.0);
            b
        };
        let (src_ip, dst_ip) = match av.map(|a| a.ip) {
            Some(IpPair::V4 { src, dst }) => (v4(src), v4(dst)),
            Some(IpPair::V6 { src, dst }) => (src.0, dst.0),
            None => ([0; 16], [0; 16]),
        };
        let e = self.entropy(profile);
        QpCtx {
            qpn: self.qpn,
            ud: cfg.qp_type == QpType::Ud,
            pd: cfg.pd,
            mtu: cfg.mtu.code(),
            dest_qpn: cfg.dest_qpn,
            qkey: cfg.q_key,
            ipv6: av.is_some_and(|a| a.is_ipv6()),
            vlan: av.is_some_and(|a| a.vlan.is_some()),
            vid: av.and_then(|a| a.vlan).unwrap_or(0),
            pcp: av.map_or(0, |a| a.pcp),
            tclass: av.map_or(0, |a| a.traffic_class),
            hop_limit: av.map_or(0, |a| a.hop_limit),
            flow_label: e.map_or(0, |e| e.flow_label),
            udp_sport: e.map_or(0, |e| e.udp_sport),
            dmac: av.map_or([0; 6], |a| a.dst_mac.0),
            smac: av.map_or([0; 6], |a| a.src_mac.0),
            src_ip,
            dst_ip,
            raw: false, // the test's QPs are RC and UD
        }
    }
}

fn random_config(rng: &mut TestRng, qp_type: QpType, v6: bool) -> QpConfig {
    let ip = if v6 {
        IpPair::V6 {
            src: nic().ipv6,
            dst: Ipv6Address(rng.gen()),
        }
    } else {
        IpPair::V4 {
            src: nic().ipv4,
            dst: Ipv4Address(rng.gen()),
        }
    };
    let mut av = AddressVector::new(ip, nic().mac, EthernetAddress(rng.gen()));
    av.vlan = rng.gen_bool(0.5).then(|| rng.gen_range(0..0xFFF));
    av.pcp = rng.gen_range(0..8);
    av.traffic_class = rng.gen();
    av.hop_limit = rng.gen_range(1..=255);
    av.flow_label = if rng.gen_bool(0.3) {
        rng.gen_range(1..1 << 20)
    } else {
        0
    };
    QpConfig {
        qp_type: qp_type.into(),
        pd: rng.gen_range(1..4),
        mtu: PathMtu::ALL[rng.gen_range(0..PathMtu::ALL.len())],
        psn: Psn::new(rng.gen_range(0..1 << 24)).unwrap(),
        dest_qpn: rng.gen_range(0..1 << 24),
        q_key: rng.gen(),
        av: (qp_type == QpType::Rc).then_some(av),
    }
}

fn random_ring(rng: &mut TestRng, n: u64) -> SendRing {
    let log2 = rng.gen_range(2..=6);
    let stride = rng.gen_range(0..=4);
    SendRing::new(Ring::new(log2).unwrap(), stride, 0x100_0000 * (n + 1)).unwrap()
}

/// Creates and brings up `qp` (a CM source the profile cannot give falls back to QPN-based,
/// which the model must agree is needed); checks the entropy the firmware reports.
fn create(fw: &mut Engine, profile: Profile, mut qp: Qp) -> Qp {
    match fw.create_qp(qp.qpn, &qp.config, &qp.ring, qp.source) {
        Ok(slot) => qp.slot = slot,
        Err(Error::EntropyNotRepresentable { .. }) => {
            let want = qp.entropy(profile).unwrap();
            let fl = want.flow_label;
            let qp_mode = profile.compute(&Request::Qp {
                lqpn: qp.qpn,
                rqpn: qp.config.dest_qpn,
                flow_label: fl,
                qp_type: QpType::Rc,
            });
            assert_eq!(profile, Profile::RfcV1);
            assert_ne!(qp_mode, want);
            qp.source = EntropySource::Qpn;
            qp.slot = fw
                .create_qp(qp.qpn, &qp.config, &qp.ring, qp.source)
                .unwrap();
        }
        Err(e) => panic!("QP {:#x}: {e}", qp.qpn),
    }
    fw.bring_up(qp.qpn).unwrap();
    let info = fw.qp(qp.qpn).unwrap();
    assert_eq!(info.state, QpState::Rts);
    assert_eq!(info.entropy, qp.entropy(profile), "QP {:#x}", qp.qpn);
    qp.posted = 0;
    qp
}

/// Rings `n` more WQEs on `qp`.
fn post(fw: &mut Engine, qp: &mut Qp, n: u32) {
    qp.posted += n;
    fw.ring_doorbell(qp.qpn, qp.posted).unwrap();
}

/// Steps until `n` picks beyond `seen` have been logged, releasing completions as software
/// does (the engine starts a WQE only with room for its completion); returns them.
fn picks(fw: &mut Engine, seen: &mut usize, n: usize) -> Vec<Pick> {
    let start = fw.bus().bench.sim.cycle();
    loop {
        let all: Vec<Pick> = fw
            .bus()
            .events
            .iter()
            .filter_map(|t| match t.event {
                Event::Pick(p) => Some(p),
                _ => None,
            })
            .collect();
        if all.len() >= *seen + n {
            let new = all[*seen..].to_vec();
            *seen = all.len();
            assert_eq!(new.len(), n, "more picks than WQEs posted");
            return new;
        }
        let cycle = fw.bus().bench.sim.cycle();
        assert!(cycle - start < 50_000, "{} of {n} picks", all.len() - *seen);
        if cycle % 64 == 0 {
            let producer = fw.cq_producer().unwrap();
            fw.release_completions(producer).unwrap();
        } else {
            fw.bus_mut().step();
        }
    }
}

/// Steps until the data path has taken all `seen` picks and finished them, so that a change of
/// its behaviour applies to later picks only.
fn settle(fw: &mut Engine, seen: usize) {
    while fw.bus().bench.picks() < seen as u64 || fw.bus().bench.in_flight() > 0 {
        fw.bus_mut().step();
    }
}

/// Checks each pick against its QP: slot, context, the index running on from `next`, address.
fn check_picks(picks: &[Pick], qps: &[Qp], next: &mut [u32], profile: Profile) {
    for p in picks {
        let qp = qps
            .iter()
            .find(|q| q.slot == usize::from(p.slot))
            .unwrap_or_else(|| panic!("a pick of slot {} with no QP", p.slot));
        assert_eq!(p.ctx, qp.ctx(profile), "QP {:#x}", qp.qpn);
        let i = &mut next[qp.slot];
        assert_eq!(p.index, *i, "QP {:#x}", qp.qpn);
        assert_eq!(p.addr, qp.ring.addr(*i));
        assert_eq!(1u32 << p.stride_log2, qp.ring.stride_blocks());
        *i += 1;
    }
}

/// The RTL's `qp_err` against the states the firmware keeps.
fn check_err_states(fw: &Engine) {
    let mask = fw
        .bus()
        .events
        .iter()
        .rev()
        .find_map(|t| match t.event {
            Event::QpErr(m) => Some(m),
            _ => None,
        })
        .unwrap_or(0);
    for info in fw.qps() {
        assert_eq!(
            mask >> info.slot & 1 == 1,
            info.state == QpState::Err,
            "QP {:#x} in slot {}: firmware {:?}, qp_err {mask:#x}",
            info.qpn,
            info.slot,
            info.state
        );
    }
}

fn run(name: &str, profile: Profile) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let bench: Bench<WqeCtrl8> = Bench::new(name, seed, clean(), 0.3);
    let mut fw: Engine = WqeEngine::open(CtrlBus::new(bench)).unwrap();
    assert_eq!((fw.caps().qps, fw.caps().mrs), (8, 8));
    fw.configure(&nic(), profile).unwrap();
    fw.set_completion_ring(0x4000_0000, rng.gen_range(2..=6))
        .unwrap();

    // Regions: each reaches the table's write port in the slot the firmware named.
    let mr = |lkey: u32| MemoryRegion {
        lkey,
        base: 0x1000 * u64::from(lkey),
        length: 0x1000,
        pd: 1,
        access: Access::LOCAL_WRITE,
    };
    let mut regions = Vec::new();
    for lkey in [0x0105, 0x0233, 0x07FF] {
        let slot = fw.register_mr(&mr(lkey)).unwrap();
        regions.push((slot as u32, false, lkey));
    }
    let before = fw.bus().accesses;
    assert!(matches!(
        fw.register_mr(&mr(0x0A01)),
        Err(Error::MrSlotTaken { slot: 2, .. })
    ));
    assert_eq!(fw.bus().accesses, before, "a refusal writes nothing");
    fw.deregister_mr(0x0233).unwrap();
    regions.push((2, true, 0x0233));
    fw.register_mr(&mr(0x0A01)).unwrap();
    regions.push((2, false, 0x0A01));
    let seen: Vec<(u32, bool, u32)> = fw
        .bus()
        .events
        .iter()
        .filter_map(|t| match t.event {
            Event::MrWrite { slot, clear, lkey } => Some((slot, clear, lkey)),
            _ => None,
        })
        .collect();
    assert_eq!(seen, regions);

    // QPs: RC over IPv4 and IPv6, QPN-based and CM-based, and UD.
    // Each sits in the slot of its QPN's low bits: five in five slots, and a sixth for the
    // slot the second frees below.
    let slots = fw.qp_slots();
    let mut qpns: Vec<u32> = Vec::new();
    while qpns.len() < 5 {
        let q = rng.gen_range(2..1 << 24);
        if !qpns.iter().any(|&p| qp_slot(p, slots) == qp_slot(q, slots)) {
            qpns.push(q);
        }
    }
    let again = loop {
        let q = rng.gen_range(2..1 << 24);
        if q != qpns[1] && qp_slot(q, slots) == qp_slot(qpns[1], slots) {
            break q;
        }
    };
    qpns.push(again);
    let cm = |rng: &mut TestRng| EntropySource::Cm {
        src_port: rng.gen(),
        dst_port: rng.gen(),
    };
    let shapes = [
        (QpType::Rc, false, EntropySource::Qpn),
        (QpType::Rc, true, cm(&mut rng)),
        (QpType::Rc, false, cm(&mut rng)),
        (QpType::Ud, false, EntropySource::Qpn),
        (QpType::Rc, true, EntropySource::Qpn),
    ];
    let mut qps: Vec<Qp> = Vec::new();
    for (n, &(t, v6, source)) in shapes.iter().enumerate() {
        let qp = Qp {
            qpn: qpns[n],
            config: random_config(&mut rng, t, v6),
            ring: random_ring(&mut rng, n as u64),
            source,
            slot: 0,
            posted: 0,
        };
        qps.push(create(&mut fw, profile, qp));
    }
    check_err_states(&fw);

    // Doorbells before the enable, then rounds of them while the engine runs: each WQE is
    // picked with its QP's context, index and address. A round rings at most a ring's worth,
    // since the one before was all picked.
    let mut next = [0u32; 8];
    let mut seen = 0;
    for round in 0..6 {
        let mut total = 0;
        for qp in qps.iter_mut() {
            let n = rng.gen_range(0..=qp.ring.ring().entries());
            if n > 0 {
                post(&mut fw, qp, n);
            }
            total += n as usize;
        }
        if round == 0 {
            fw.enable().unwrap();
        }
        let p = picks(&mut fw, &mut seen, total);
        check_picks(&p, &qps, &mut next, profile);
    }

    // ERR still serves the queue (its WQEs are flushed); RESET restarts the ring at index 0
    // with the entropy fixed again at RTR.
    let a = qps[0].qpn;
    fw.modify_qp(a, QpState::Err).unwrap();
    post(&mut fw, &mut qps[0], 2);
    let p = picks(&mut fw, &mut seen, 2);
    check_picks(&p, &qps, &mut next, profile);
    check_err_states(&fw);
    fw.modify_qp(a, QpState::Reset).unwrap();
    fw.bring_up(a).unwrap();
    qps[0].posted = 0;
    next[qps[0].slot] = 0;
    post(&mut fw, &mut qps[0], 1);
    let p = picks(&mut fw, &mut seen, 1);
    check_picks(&p, &qps, &mut next, profile);

    // A CM QP destroyed and created again with other ports, in the slot it freed: the new
    // connection's entropy.
    let b = qps[1];
    fw.destroy_qp(b.qpn).unwrap();
    let b2 = create(
        &mut fw,
        profile,
        Qp {
            qpn: qpns[5],
            source: cm(&mut rng),
            ..b
        },
    );
    assert_eq!(b2.slot, b.slot);
    qps[1] = b2;
    next[b2.slot] = 0;
    post(&mut fw, &mut qps[1], 3);
    let p = picks(&mut fw, &mut seen, 3);
    check_picks(&p, &qps, &mut next, profile);

    // The engine moves a QP to ERR when a WQE fails; the registers do not show it, so the
    // firmware learns it from the refused modify, and then agrees with the RTL's qp_err.
    settle(&mut fw, seen);
    fw.bus_mut().bench.set_data_path(DataPath {
        err: 1.0,
        ..clean()
    });
    post(&mut fw, &mut qps[2], 1);
    let p = picks(&mut fw, &mut seen, 1);
    check_picks(&p, &qps, &mut next, profile);
    settle(&mut fw, seen);
    fw.bus_mut().bench.set_data_path(clean());
    let c = qps[2].qpn;
    assert!(matches!(
        fw.modify_qp(c, QpState::Rts),
        Err(Error::Refused { .. })
    ));
    assert_eq!(fw.qp(c).unwrap().state, QpState::Err);
    check_err_states(&fw);
    fw.modify_qp(c, QpState::Reset).unwrap();
    fw.bring_up(c).unwrap();
    check_err_states(&fw);
    fw.wait_idle().unwrap();
    let status = fw.status().unwrap();
    assert!(!status.db_error && !status.cq_fault, "{status:?}");
    eprintln!(
        "{name}: {seen} picks, {} register accesses, {} cycles",
        fw.bus().accesses,
        fw.bus().bench.sim.cycle()
    );
}

#[test]
fn wqe_ctrl_linux() {
    run("firmware_wqe_ctrl_linux", Profile::Linux);
}

#[test]
fn wqe_ctrl_rfc_v2() {
    run("firmware_wqe_ctrl_rfc_v2", Profile::RfcV2);
}

/// rfc-v1 cannot give an RC QP the CM's port: the firmware says so before writing, and the QP
/// is created QPN-based instead.
#[test]
fn wqe_ctrl_rfc_v1() {
    run("firmware_wqe_ctrl_rfc_v1", Profile::RfcV1);
}

#[test]
fn wqe_ctrl_rxe() {
    run("firmware_wqe_ctrl_rxe", Profile::Rxe);
}
