//! The send engine's RTL blocks (`rtl/wqe/`), one driver each.

pub mod frame;
