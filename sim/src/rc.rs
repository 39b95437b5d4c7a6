//! The reliable connection's RTL blocks, driven from Rust: the responder's rules
//! (`rtl/rc/rc_responder.sv`) and one QP's requester (`rtl/rc/rc_requester.sv`).

pub mod requester;
pub mod responder;
