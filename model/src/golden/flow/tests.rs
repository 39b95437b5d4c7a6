//! The rule of `golden::flow`: worked examples (expected sets worked out from docs/reference.md
//! §1 by a separate implementation, not by this code), then sweeps over generated flows.

use super::*;
use crate::entropy::{
    cm_flow_label_linux, cm_flow_label_rfc_v2, udp_sport, Entropy, FLOW_LABEL_MASK,
};

fn obs(src: Option<u32>, dst: u32, label: Option<u32>, sport: u16) -> Observed {
    Observed {
        src_qpn: src,
        dst_qpn: dst,
        qp_type: QpType::Rc,
        flow_label: label,
        udp_sport: sport,
        map_flow_label: None,
    }
}

/// The set as the CSV shows it.
fn shown(o: &Observed) -> String {
    o.profiles().map_or("unknown".into(), |s| s.to_string())
}

#[test]
fn profile_set() {
    assert_eq!(ProfileSet::EMPTY.to_string(), "none");
    assert_eq!(ProfileSet::ALL.to_string(), "linux|rfc-v2|rfc-v1|rxe");
    let s = ProfileSet::single(Profile::Rxe).with(Profile::Linux);
    assert_eq!(s.to_string(), "linux|rxe");
    assert_eq!(s.len(), 2);
    assert!(s.contains(Profile::Rxe) && !s.contains(Profile::RfcV1));
    assert_eq!(s.and(ProfileSet::single(Profile::Rxe)).to_string(), "rxe");
    assert!(s.and(ProfileSet::single(Profile::RfcV2)).is_empty());
    assert_eq!(ProfileSet::ALL.iter().collect::<Vec<_>>(), Profile::ALL);
}

#[test]
fn transports() {
    assert_eq!(qp_type(opcode::RC_SEND_ONLY), Some(QpType::Rc));
    assert_eq!(qp_type(0x0C), Some(QpType::Rc)); // RC RDMA READ Request
    assert_eq!(qp_type(0x24), Some(QpType::Rc)); // UC SEND Only
    assert_eq!(qp_type(0xA4), Some(QpType::Rc)); // XRC SEND Only
    assert_eq!(qp_type(opcode::UD_SEND_ONLY), Some(QpType::Ud));
    for op in [opcode::CNP, 0x44, 0xC0, 0xFF] {
        assert_eq!(qp_type(op), None, "{op:#x}");
    }
}

#[test]
fn worked_examples() {
    // linux: QPNs 0x12, 0x34 give flow label 0x3A8 and port 0xC3A8; rfc-v1 would give 0xC026,
    // rxe 0xF806.
    assert_eq!(shown(&obs(Some(0x12), 0x34, None, 0xC3A8)), "linux|rfc-v2");
    assert_eq!(
        shown(&obs(Some(0x12), 0x34, Some(0x3A8), 0xC3A8)),
        "linux|rfc-v2"
    );
    // One bit off in the port or the label: nothing explains it.
    assert_eq!(shown(&obs(Some(0x12), 0x34, None, 0xC3A9)), "none");
    assert_eq!(shown(&obs(Some(0x12), 0x34, Some(0x3A9), 0xC3A8)), "none");
    // rfc-v1: fold(1) ^ fold(2) = 3.
    assert_eq!(shown(&obs(Some(1), 2, None, 0xC003)), "rfc-v1");
    // The soft-RoCE RC RDMA READ request of PcapPlusPlus's test data: port 0xDF94 towards QP
    // 0x11 is rxe's hash of QPN 0x11 (0xC000 + 0x1F94), and no other profile's port.
    assert_eq!(shown(&obs(Some(0x11), 0x11, None, 0xDF94)), "rxe");
    // Unknown source QPN.
    assert_eq!(obs(None, 0x11, None, 0xDF94).profiles(), None);
    assert!(!obs(None, 0x11, None, 0xDF94).explained_by(Profile::Rxe));
}

#[test]
fn application_and_map_labels() {
    // The application's label 0xABCDE is on the wire over IPv6 and gives port 0xFCF4.
    assert_eq!(
        shown(&obs(Some(0x12), 0x34, Some(0xABCDE), 0xFCF4)),
        "linux|rfc-v2"
    );
    // Over IPv4 the label is not on the wire: only the map can supply it.
    let mut v4 = obs(Some(0x12), 0x34, None, 0xFCF4);
    assert_eq!(shown(&v4), "none");
    v4.map_flow_label = Some(0xABCDE);
    assert_eq!(shown(&v4), "linux|rfc-v2");
    // A map label that disagrees with the wire's is no candidate for the wire's.
    let mut v6 = obs(Some(0x12), 0x34, Some(0xABCDE), 0xFCF4);
    v6.map_flow_label = Some(0x12345);
    assert_eq!(shown(&v6), "linux|rfc-v2");
    v6.flow_label = Some(0x12345);
    assert_eq!(shown(&v6), "none", "label 0x12345 gives another port");
    // 0x100000 is non-zero but has no label bits: label 0 and port 0xC000 (docs/reference.md §1).
    let mut wide = obs(Some(5), 7, Some(0), 0xC000);
    assert_eq!(shown(&wide), "none");
    wide.map_flow_label = Some(0x10_0000);
    assert_eq!(shown(&wide), "linux|rfc-v2");
    wide.flow_label = None;
    assert_eq!(shown(&wide), "linux|rfc-v2");
}

#[test]
fn cm_labels() {
    // CM ports 18515 -> 4791 give label 0x8D4C4 (linux); its port is 0xD4E7.
    let fl = cm_flow_label_linux(18515, 4791);
    assert_eq!(
        shown(&obs(Some(0x12), 0x34, Some(fl), udp_sport(fl))),
        "linux|rfc-v2"
    );
    assert_eq!(udp_sport(fl), 0xD4E7);
}

#[test]
fn ud_multicast() {
    // rfc-v1 skips the XOR for the UD multicast QPN only.
    let mut o = obs(Some(1), 0xFF_FFFF, None, 0xC001);
    o.qp_type = QpType::Ud;
    assert_eq!(shown(&o), "rfc-v1");
    o.udp_sport = 0xFF01;
    assert_eq!(shown(&o), "none");
    o.qp_type = QpType::Rc;
    assert_eq!(shown(&o), "rfc-v1");
}

#[test]
fn verdicts() {
    let set = Some(ProfileSet::single(Profile::Linux).with(Profile::RfcV2));
    assert_eq!(Verdict::of(set, Profile::Linux), Verdict::Match);
    assert_eq!(Verdict::of(set, Profile::RfcV2), Verdict::Match);
    assert_eq!(Verdict::of(set, Profile::Rxe), Verdict::Mismatch);
    assert_eq!(
        Verdict::of(Some(ProfileSet::EMPTY), Profile::Linux),
        Verdict::Mismatch
    );
    assert_eq!(Verdict::of(None, Profile::Linux), Verdict::Unknown);
    assert_eq!(Verdict::Mismatch.to_string(), "mismatch");
}

/// splitmix64 from a fixed seed: the sweeps below are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn qpn(&mut self) -> u32 {
        // Small QPNs and the edges as well as any 24-bit value.
        match self.next() % 8 {
            0 => 0,
            1 => 0xFF_FFFF,
            2 => (self.next() % 64) as u32,
            _ => (self.next() as u32) & 0xFF_FFFF,
        }
    }
}

const SWEEP: usize = 4000;

/// The frame a sender following `p` puts on the wire for `req`: over IPv6 the label goes
/// out as computed, over IPv4 it is lost.
fn seen(req: &Request, e: Entropy, ipv6: bool, map_fl: Option<u32>) -> Observed {
    let (lqpn, rqpn, qp_type) = match *req {
        Request::Qp {
            lqpn,
            rqpn,
            qp_type,
            ..
        } => (lqpn, rqpn, qp_type),
        Request::Cm { lqpn, rqpn, .. } => (lqpn, rqpn, QpType::Rc),
    };
    Observed {
        src_qpn: Some(lqpn),
        dst_qpn: rqpn,
        qp_type,
        flow_label: ipv6.then_some(e.flow_label),
        udp_sport: e.udp_sport,
        map_flow_label: map_fl,
    }
}

#[test]
fn every_profile_recognises_its_own_flows() {
    let mut rng = Rng(0x1605_0003);
    for i in 0..SWEEP {
        let (lqpn, rqpn) = (rng.qpn(), rng.qpn());
        let qp_type = if i % 2 == 0 { QpType::Rc } else { QpType::Ud };
        let app = match rng.next() % 3 {
            0 => 0,
            _ => (rng.next() as u32 & FLOW_LABEL_MASK) | 1,
        };
        for p in Profile::ALL {
            let req = Request::Qp {
                lqpn,
                rqpn,
                flow_label: app,
                qp_type,
            };
            let e = p.compute(&req);
            // IPv6 carries the label; IPv4 needs the map for an application's label.
            for (ipv6, map) in [(true, None), (false, (app != 0).then_some(app))] {
                let o = seen(&req, e, ipv6, map);
                let set = o.profiles().unwrap();
                let ctx = format!("{p} {lqpn:#x}->{rqpn:#x} fl {app:#x} ipv6 {ipv6}: {set}");
                assert!(set.contains(p), "{ctx}");
                assert_eq!(Verdict::of(Some(set), p), Verdict::Match, "{ctx}");
                // linux and rfc-v2 differ only in the CM hash.
                assert_eq!(
                    set.contains(Profile::Linux),
                    set.contains(Profile::RfcV2),
                    "{ctx}"
                );
                // A profile whose rule gives another port under every candidate label is
                // not claimed.
                for q in Profile::ALL {
                    let ports = [0, app, e.flow_label].map(|fl| {
                        q.compute(&Request::Qp {
                            lqpn,
                            rqpn,
                            flow_label: fl,
                            qp_type,
                        })
                        .udp_sport
                    });
                    if !ports.contains(&e.udp_sport) {
                        assert!(!set.contains(q), "{q} claimed: {ctx}");
                    }
                }
            }
        }
    }
}

#[test]
fn cm_flows_are_linux_and_rfc_v2() {
    let mut rng = Rng(0x1605_0cf1);
    for _ in 0..SWEEP {
        let (src_port, dst_port) = (rng.next() as u16, rng.next() as u16);
        let (lqpn, rqpn) = (rng.qpn(), rng.qpn());
        for p in [Profile::Linux, Profile::RfcV2] {
            let req = Request::Cm {
                src_port,
                dst_port,
                flowinfo: 0,
                lqpn,
                rqpn,
            };
            let e = p.compute(&req);
            let cm = match p {
                Profile::Linux => cm_flow_label_linux(src_port, dst_port),
                _ => cm_flow_label_rfc_v2(src_port, dst_port),
            };
            // Over IPv6 the CM's label is on the wire; over IPv4 the map gives it.
            for (ipv6, map) in [(true, None), (false, Some(cm))] {
                let set = seen(&req, e, ipv6, map).profiles().unwrap();
                let ctx = format!("{p} CM {src_port}->{dst_port} ipv6 {ipv6}: {set}");
                assert!(
                    set.contains(Profile::Linux) && set.contains(Profile::RfcV2),
                    "{ctx}"
                );
            }
        }
    }
}

#[test]
fn profiles_told_apart_where_they_differ() {
    // A flow from one profile, over IPv4 with no map, is claimed by another exactly when that
    // profile's port for the pair is the same.
    let mut rng = Rng(0x1605_d1ff);
    let mut told_apart = 0;
    for _ in 0..SWEEP {
        let (lqpn, rqpn) = (rng.qpn(), rng.qpn());
        let req = Request::Qp {
            lqpn,
            rqpn,
            flow_label: 0,
            qp_type: QpType::Rc,
        };
        for p in Profile::ALL {
            let e = p.compute(&req);
            let set = seen(&req, e, false, None).profiles().unwrap();
            for q in Profile::ALL {
                let same = q.compute(&req).udp_sport == e.udp_sport;
                assert_eq!(set.contains(q), same, "{p} flow, {q}: {lqpn:#x}->{rqpn:#x}");
                told_apart += usize::from(!same);
            }
        }
    }
    // Most pairs tell most profiles apart (linux and rfc-v2 never).
    assert!(told_apart > SWEEP * 8, "{told_apart}");
}
