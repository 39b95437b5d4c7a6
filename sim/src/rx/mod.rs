//! The receive path (`rtl/rx/`): one driver per part, named as in `rtl/`. The front end,
//! rx_check, driven with frames and checked against `model::rx::packet::classify` ([`check`]),
//! with the frames its tests send ([`frames`]); the control plane, rx_ctrl ([`ctrl`]); the whole
//! path, rx_path, with host memory, registers and the send side's QP slots ([`path`]).

pub mod check;
pub mod ctrl;
pub mod frames;
pub mod path;
