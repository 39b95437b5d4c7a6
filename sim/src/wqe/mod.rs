//! The WQE engine's RTL blocks (`rtl/wqe/`), one bench each.

pub mod mr;
