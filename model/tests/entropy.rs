//! Properties of the entropy profiles (docs/reference.md §1).

use proptest::prelude::*;
use rocenic_model::entropy::*;

fn qp(lqpn: u32, rqpn: u32, flow_label: u32, qp_type: QpType) -> Request {
    Request::Qp {
        lqpn,
        rqpn,
        flow_label,
        qp_type,
    }
}

fn any_request() -> impl Strategy<Value = Request> {
    let qp_type = prop_oneof![Just(QpType::Rc), Just(QpType::Ud)];
    prop_oneof![
        (
            any::<u32>(),
            any::<u32>(),
            prop_oneof![Just(0u32), any::<u32>()],
            qp_type
        )
            .prop_map(|(l, r, fl, t)| qp(l, r, fl, t)),
        (
            any::<u16>(),
            any::<u16>(),
            prop_oneof![Just(0u32), any::<u32>()],
            any::<u32>(),
            any::<u32>()
        )
            .prop_map(|(src_port, dst_port, flowinfo, lqpn, rqpn)| Request::Cm {
                src_port,
                dst_port,
                flowinfo,
                lqpn,
                rqpn
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// linux and rfc-v2 QP entropy does not depend on which end computes it.
    #[test]
    fn qp_flow_label_is_symmetric(l in 0u32..=0xFF_FFFF, r in 0u32..=0xFF_FFFF, fl in prop_oneof![Just(0u32), any::<u32>()]) {
        for p in [Profile::Linux, Profile::RfcV2] {
            prop_assert_eq!(p.compute(&qp(l, r, fl, QpType::Rc)), p.compute(&qp(r, l, fl, QpType::Rc)));
        }
        prop_assert_eq!(flow_label(l, r), flow_label(r, l));
        prop_assert_eq!(rfc_v1_rc_sport(l, r), rfc_v1_rc_sport(r, l));
    }

    /// The rfc-v2 CM hash is symmetric; linux's is not required to be.
    #[test]
    fn rfc_v2_cm_is_symmetric(a in any::<u16>(), b in any::<u16>()) {
        prop_assert_eq!(cm_flow_label_rfc_v2(a, b), cm_flow_label_rfc_v2(b, a));
        prop_assert_eq!(rfc_v1_cm_sport(a, b), rfc_v1_cm_sport(b, a));
    }

    /// Every profile's port is in the IANA ephemeral range and its flow label fits 20 bits.
    #[test]
    fn ports_in_range_and_labels_fit(req in any_request()) {
        for p in Profile::ALL {
            let e = p.compute(&req);
            prop_assert!((0xC000..=0xFFFF).contains(&e.udp_sport), "{} gave {:#x}", p, e.udp_sport);
            prop_assert!(e.flow_label <= FLOW_LABEL_MASK);
        }
    }

    /// The port is a function of the 20 flow-label bits only.
    #[test]
    fn sport_ignores_high_bits(fl in any::<u32>()) {
        prop_assert_eq!(udp_sport(fl), udp_sport(fl & FLOW_LABEL_MASK));
    }

    /// A non-zero application flow label wins in every profile (it is what goes on the wire).
    #[test]
    fn application_flow_label_goes_on_the_wire(l in any::<u32>(), r in any::<u32>(), fl in 1u32..=FLOW_LABEL_MASK) {
        for p in Profile::ALL {
            prop_assert_eq!(p.compute(&qp(l, r, fl, QpType::Rc)).flow_label, fl);
        }
        prop_assert_eq!(Profile::Linux.compute(&qp(l, r, fl, QpType::Rc)).udp_sport, udp_sport(fl));
    }

    /// The u64 arithmetic, restated independently with u128.
    #[test]
    fn flow_label_matches_u128_restatement(l in any::<u32>(), r in any::<u32>()) {
        let v = u128::from(l) * u128::from(r);
        let v = v ^ (v >> 20);
        let v = v ^ (v >> 40);
        prop_assert_eq!(u128::from(flow_label(l, r)), v & 0xF_FFFF);
    }
}

/// Edge cases the RTL will also be driven with.
#[test]
fn edge_cases() {
    assert_eq!(flow_label(0, 0), 0);
    assert_eq!(
        Profile::Linux.compute(&qp(0, 0, 0, QpType::Rc)),
        Entropy {
            flow_label: 0,
            udp_sport: 0xC000
        }
    );
    assert_eq!(flow_label(1, 0xFF_FFFF), 0xF_FFFF ^ 0xF);
    assert_eq!(
        Profile::RfcV1.compute(&qp(7, 7, 0, QpType::Ud)).udp_sport,
        0xC007
    );
    assert_eq!(
        Profile::RfcV1
            .compute(&qp(7, MULTICAST_QPN, 0, QpType::Ud))
            .udp_sport,
        0xC007
    );
    assert_eq!(
        Profile::RfcV1
            .compute(&qp(7, MULTICAST_QPN, 0, QpType::Rc))
            .udp_sport,
        0xFF07
    );
    let cm = |s, d| Request::Cm {
        src_port: s,
        dst_port: d,
        flowinfo: 0,
        lqpn: 0,
        rqpn: 0,
    };
    assert_eq!(Profile::RfcV1.compute(&cm(0, 65535)).udp_sport, 0xFFFF);
    assert_eq!(
        Profile::Linux.compute(&cm(65535, 65535)).flow_label,
        (65535 * 32) & FLOW_LABEL_MASK
    );
}

/// The port codes the RTL takes from `rtl/entropy/entropy_pkg.sv` are one-to-one.
#[test]
fn profile_codes_round_trip_and_fit_their_width() {
    let mut seen = Vec::new();
    for p in Profile::ALL {
        assert_eq!(Profile::from_code(p.code()), Some(p));
        assert!(u32::from(p.code()) < 1 << PROFILE_BITS);
        assert!(!seen.contains(&p.code()), "{} shares a code", p.name());
        seen.push(p.code());
    }
    assert_eq!(Profile::from_code(1 << PROFILE_BITS), None);
}
