//! The receive path (`rtl/rx/`): one driver per part, named as in `rtl/`. The front end,
//! rx_check, driven with frames and checked against `model::rx::packet::classify` ([`check`]),
//! with the frames its tests send ([`frames`]); the control plane, rx_ctrl ([`ctrl`]); the whole
//! path, rx_path, with host memory, registers and the send side's QP slots ([`path`]).

pub mod check;
pub mod ctrl;
pub mod frames;
pub mod path;

use rocenic_model::qp::{AddressVector, IpPair, PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::wire::{EthernetAddress, Ipv4Address};

/// A send-side QP as the receive path sees it (type, PD, MTU, Q_Key): what the receive benches
/// put in the model's QP table. An RC QP needs an address vector, which the receive side does
/// not use, so every RC QP gets the same one.
pub fn qp_config(ud: bool, pd: u32, mtu: PathMtu, q_key: u32) -> QpConfig {
    let av = AddressVector::new(
        IpPair::V4 {
            src: Ipv4Address::new(10, 0, 0, 1),
            dst: Ipv4Address::new(10, 0, 0, 2),
        },
        EthernetAddress([2, 0, 0, 0, 0, 1]),
        EthernetAddress([2, 0, 0, 0, 0, 2]),
    );
    QpConfig {
        qp_type: if ud { QpKind::Ud } else { QpKind::Rc },
        pd,
        mtu,
        psn: Psn::new(0).unwrap(),
        dest_qpn: 0,
        q_key,
        av: (!ud).then_some(av),
    }
}
