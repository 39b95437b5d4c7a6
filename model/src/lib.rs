//! The one reference model of rocenic.
//!
//! Every other part of the project — the RTL test benches, the firmware, the host driver and the
//! `rocenic` CLI — checks against or calls this crate; none of them re-derives a flow label, a
//! hash or a checksum. The formulas and their public sources are in the repository's
//! `docs/reference.md`; module docs cite its sections (`docs/reference.md §N`).
//!
//! The crate is `no_std`, allocates nothing and contains no `unsafe`. The `std` feature (on by
//! default) only adds runtime SIMD detection for CRC-32, `std::error::Error` impls and the pcap
//! file writer `wire::PcapWriter` over `std::io::Write`.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bridge;
pub mod entropy;
pub mod golden;
pub mod link;
pub mod nic;
pub mod qp;
pub mod rc;
pub mod regmap;
pub mod rss;
pub mod rx;
pub mod toeplitz;
pub mod tso;
pub mod wire;
pub mod wqe;
