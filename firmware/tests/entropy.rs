//! The entropy plan against the model: QPN-based and CM-based, every profile.

mod fake;

use fake::Gen;
use rocenic_firmware::entropy::{self, EntropySource, Plan};
use rocenic_firmware::Error;
use rocenic_model::entropy::{rfc_v1_cm_sport, rfc_v1_rc_sport, Profile, QpType, Request};

/// QPN-based: the address vector's label is staged as it is and the entropy is
/// `Request::Qp`'s. CM-based: under linux, rfc-v2 and rxe a staged label always gives the CM's
/// entropy; under rfc-v1 exactly when the CM port equals the QP-mode port.
#[test]
fn plans_match_the_model() {
    let mut g = Gen(0x5EED);
    let (mut cm_refused, mut cm_taken) = (0, 0);
    for i in 0..40_000u32 {
        let profile = Profile::ALL[(i % 4) as usize];
        let lqpn = g.below(0x100_0000) as u32;
        // Some pairs whose rfc-v1 ports agree: equal QPNs fold alike, ports XOR to the fold.
        let rqpn = if i % 7 == 0 {
            lqpn
        } else {
            g.below(0x100_0000) as u32
        };
        let fl = if g.below(3) == 0 {
            g.below(1 << 20) as u32
        } else {
            0
        };
        let (src_port, dst_port) = if i % 5 == 0 {
            let p = g.next() as u16;
            (p, p ^ (rfc_v1_rc_sport(lqpn, rqpn) & 0x3FFF))
        } else {
            (g.next() as u16, g.next() as u16)
        };
        let qp = profile.compute(&Request::Qp {
            lqpn,
            rqpn,
            flow_label: fl,
            qp_type: QpType::Rc,
        });
        assert_eq!(
            entropy::plan(profile, EntropySource::Qpn, lqpn, rqpn, fl),
            Ok(Plan {
                entropy: qp,
                flow_label: fl
            })
        );
        let cm = profile.compute(&Request::Cm {
            src_port,
            dst_port,
            flowinfo: fl,
            lqpn,
            rqpn,
        });
        let source = EntropySource::Cm { src_port, dst_port };
        match entropy::plan(profile, source, lqpn, rqpn, fl) {
            Ok(plan) => {
                assert_eq!(plan.entropy, cm);
                assert_eq!(entropy::engine(profile, lqpn, rqpn, plan.flow_label), cm);
                assert!(plan.flow_label < 1 << 20);
                cm_taken += 1;
            }
            Err(e) => {
                assert_eq!(e, Error::EntropyNotRepresentable { profile });
                assert_eq!(profile, Profile::RfcV1);
                assert_ne!(
                    rfc_v1_cm_sport(src_port, dst_port),
                    rfc_v1_rc_sport(lqpn, rqpn)
                );
                cm_refused += 1;
            }
        }
        if profile == Profile::RfcV1
            && rfc_v1_cm_sport(src_port, dst_port) == rfc_v1_rc_sport(lqpn, rqpn)
        {
            assert!(entropy::plan(profile, source, lqpn, rqpn, fl).is_ok());
        }
    }
    assert!(
        cm_refused > 0 && cm_taken > 30_000,
        "{cm_refused} {cm_taken}"
    );
}
