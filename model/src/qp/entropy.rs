//! The entropy hook: a QP's UDP source port and flow label from [`crate::entropy`]
//! (docs/reference.md §1).
//!
//! An RC QP fixes them when it enters RTR, from its own QPN, the destination QPN and its address
//! vector's flow label; a UD QP computes them per work request from that request's destination
//! QPN and address vector. An application (address vector) flow label that is non-zero wins.

use super::AddressVector;
use crate::entropy::{Entropy, Profile, QpType, Request};

/// The entropy of a QP's packets to `dest_qpn` over `av` under `profile`.
pub const fn qp_entropy(
    profile: Profile,
    qp_type: QpType,
    lqpn: u32,
    dest_qpn: u32,
    av: &AddressVector,
) -> Entropy {
    profile.compute(&Request::Qp {
        lqpn,
        rqpn: dest_qpn,
        flow_label: av.flow_label,
        qp_type,
    })
}

#[cfg(test)]
mod tests {
    use super::super::av::tests::av4;
    use super::*;

    #[test]
    fn application_flow_label_wins() {
        let mut av = av4();
        av.flow_label = 0x12345;
        for t in [QpType::Rc, QpType::Ud] {
            let e = qp_entropy(Profile::Linux, t, 0x11, 0x22, &av);
            assert_eq!(e.flow_label, 0x12345);
            assert_eq!(e.udp_sport, crate::entropy::udp_sport(0x12345));
        }
        av.flow_label = 0;
        let e = qp_entropy(Profile::Linux, QpType::Rc, 0x11, 0x22, &av);
        assert_eq!(e.flow_label, crate::entropy::flow_label(0x11, 0x22));
    }
}
