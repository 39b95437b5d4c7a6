//! The full core (`rtl/top/nic_core.sv`, docs/top.md): the steppable [`core::Bench`] of one
//! core with its host memory, and [`device::CoreDevice`], the core as a host-driver `Device`,
//! two of which make a pair on a `sim::link` wire.

pub mod core;
pub mod device;
