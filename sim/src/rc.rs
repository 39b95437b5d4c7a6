//! The reliable connection's RTL blocks, driven from Rust: the responder's rules
//! (`rtl/rc/rc_responder.sv`), the requester (`rtl/rc/rc_requester.sv`) and the timers in
//! ticks (`rtl/rc/rc_timer.sv`).

pub mod requester;
pub mod responder;
pub mod timer;
