//! The reliable connection's RTL blocks, driven from Rust: the responder's rules
//! (`rtl/rc/rc_responder.sv`).

pub mod responder;
