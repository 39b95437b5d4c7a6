//! rocenic's firmware: the NIC's control plane, `no_std`, without an allocator.
//!
//! It programs the blocks that exist in RTL today through their AXI4-Lite registers, written
//! against the [`Bus`] trait so that the same code runs on the NIC's processor ([`Mmio`]), in the
//! co-simulation (`sim/tests/firmware/`) and against a recording fake (`firmware/tests/`):
//!
//! - [`WqeEngine`]: the WQE engine's control plane (`rtl/wqe/wqe_ctrl.sv`): the NIC's addresses
//!   and entropy profile, the completion ring, memory regions, QPs through RESET, INIT, RTR, RTS,
//!   ERR and destroy, send doorbells;
//! - [`RssPipeline`]: the RSS pipeline (`rtl/rss/rss_pipeline.sv`): contexts (function, hash
//!   fields, key), indirection tables through the two banks, steering rules.
//!
//! Everything computed comes from `rocenic_model`: the register maps and their encoders, the
//! QP and region rules, and the entropy ([`entropy`]: an RC QP's flow label and UDP source port,
//! QPN-based or from the connection manager, under every profile). Every bad input is a typed
//! [`Error`], found before any register is written. docs/firmware.md describes the sequences.
#![no_std]
#![deny(unsafe_code)]
#![deny(missing_docs)]

mod bus;
pub mod entropy;
mod error;
mod mmio;
pub mod rss;
pub mod wqe;

pub use bus::{Bus, BusError};
pub use entropy::EntropySource;
pub use error::Error;
pub use mmio::Mmio;
pub use rss::RssPipeline;
pub use wqe::WqeEngine;

/// STATUS reads before a command, a commit or a wait for idle counts as lost
/// ([`Error::Timeout`]). A command waits for the WQE in flight to finish, which for a large
/// message is many thousand clocks; each read is a bus round trip of several.
pub const DEFAULT_POLLS: u32 = 100_000;
