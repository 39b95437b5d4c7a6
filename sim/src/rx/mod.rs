//! The receive path: its front end, rx_check, driven with frames and checked against
//! `model::rx::packet::classify` ([`check`]), and the frames its tests send ([`frames`]).

pub mod check;
pub mod frames;
