//! `entropy`: every function against its definition restated in u128 arithmetic.

use crate::{config, edge_u16, edge_u32};
use proptest::prelude::*;
use rocenic_model::entropy::*;

/// The top `bits` bits (at most 32) of the 32-bit product `v · GOLDEN_RATIO_32`.
fn hash_32_reference(v: u32, bits: u32) -> u32 {
    let product = (u128::from(v) * u128::from(GOLDEN_RATIO_32)) % (1 << 32);
    ((product << bits.min(32)) >> 32) as u32
}

fn fold20(fl: u128) -> u32 {
    ((fl & 0x3FFF) ^ ((fl >> 14) & 0x3F)) as u32
}

fn any_request() -> impl Strategy<Value = Request> {
    let qp_type = prop_oneof![Just(QpType::Rc), Just(QpType::Ud)];
    prop_oneof![
        (edge_u32(), edge_u32(), edge_u32(), qp_type).prop_map(|(lqpn, rqpn, flow_label, t)| {
            Request::Qp {
                lqpn,
                rqpn,
                flow_label,
                qp_type: t,
            }
        }),
        (edge_u16(), edge_u16(), edge_u32(), edge_u32(), edge_u32()).prop_map(
            |(src_port, dst_port, flowinfo, lqpn, rqpn)| Request::Cm {
                src_port,
                dst_port,
                flowinfo,
                lqpn,
                rqpn,
            }
        ),
    ]
}

proptest! {
    #![proptest_config(config("entropy::hash_32", 512))]

    /// `hash_32` takes any width: 0 bits give 0, 32 bits and more the whole product.
    #[test]
    fn hash_32_is_the_top_bits_of_the_product(
        v in edge_u32(),
        bits in prop_oneof![edge_u32(), 0u32..=40],
    ) {
        prop_assert_eq!(hash_32(v, bits), hash_32_reference(v, bits));
        prop_assert_eq!(rxe_sport(v), 0xC000 + hash_32_reference(v, 14) as u16);
    }
}

proptest! {
    #![proptest_config(config("entropy::functions", 512))]

    /// The linux and rfc-v2 formulas in u128.
    #[test]
    fn formulas_match_u128(a in edge_u32(), b in edge_u32(), fl in edge_u32(), p in edge_u16(), q in edge_u16()) {
        let mut v = u128::from(a) * u128::from(b);
        v ^= v >> 20;
        v ^= v >> 40;
        let label = (v & 0xF_FFFF) as u32;
        prop_assert_eq!(flow_label(a, b), label);
        prop_assert_eq!(udp_sport(fl), 0xC000 | fold20(u128::from(fl)) as u16);
        let fallback = if fl == 0 { label } else { fl };
        prop_assert_eq!(get_udp_sport(fl, a, b), udp_sport(fallback));
        let linux = (u128::from(p) * 31 + u128::from(q)) & 0xF_FFFF;
        prop_assert_eq!(u128::from(cm_flow_label_linux(p, q)), linux);
        let mut h = u128::from(p) * u128::from(q);
        h ^= h >> 16;
        h ^= h >> 8;
        prop_assert_eq!(u128::from(cm_flow_label_rfc_v2(p, q)), h & 0xF_FFFF);
    }

    /// The rfc-v1 folds and ports by their definition.
    #[test]
    fn rfc_v1_by_definition(s in edge_u32(), d in edge_u32(), p in edge_u16(), q in edge_u16()) {
        let fold = |x: u32| ((x & 0xFFFF) ^ ((x >> 16) & 0xFF)) as u16;
        prop_assert_eq!(rfc_v1_fold(s), fold(s));
        let rc = if s == d { fold(s) } else { fold(s) ^ fold(d) };
        prop_assert_eq!(rfc_v1_rc_sport(s, d), rc | 0xC000);
        let ud = if s == d || d == MULTICAST_QPN { fold(s) } else { fold(s) ^ fold(d) };
        prop_assert_eq!(rfc_v1_ud_sport(s, d), ud | 0xC000);
        prop_assert_eq!(rfc_v1_cm_sport(p, q), (p ^ q) | 0xC000);
    }

    /// Every profile on any request: a port in the ephemeral range, a 20-bit label, and an
    /// application label that survives the mask wins.
    #[test]
    fn compute_stays_in_range(req in any_request()) {
        for p in Profile::ALL {
            let e = p.compute(&req);
            prop_assert!(e.udp_sport >= UDP_SPORT_BASE, "{:?} {:?}", p, e);
            prop_assert!(e.flow_label <= FLOW_LABEL_MASK, "{:?} {:?}", p, e);
            let app = match req {
                Request::Qp { flow_label, .. } => flow_label,
                Request::Cm { flowinfo, .. } => flowinfo,
            } & FLOW_LABEL_MASK;
            if app != 0 {
                prop_assert_eq!(e.flow_label, app);
            }
        }
    }
}

#[test]
fn codes_round_trip_over_every_byte() {
    for code in 0..=u8::MAX {
        match Profile::from_code(code) {
            Some(p) => assert_eq!(p.code(), code),
            None => assert!(usize::from(code) >= Profile::ALL.len(), "{code}"),
        }
    }
}
