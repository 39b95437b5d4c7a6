//! The one reference model of rocenic.
//!
//! Every other part of the project — the RTL test benches, the firmware, the host driver and the
//! `rocenic` CLI — checks against or calls this crate; none of them re-derives a flow label, a
//! hash or a checksum. The formulas and their public sources are in the repository's
//! `docs/reference.md`; module docs cite its sections (`docs/reference.md §N`).
//!
//! The crate is `no_std`, allocates nothing and contains no `unsafe`. The `std` feature (on by
//! default) only adds runtime SIMD detection for CRC-32, `std::error::Error` impls and the pcap
//! file writer `wire::PcapWriter` over `std::io::Write`. The `simd` feature (off by default; the
//! CLI, the test benches and the benchmarks turn it on) adds the carry-less Toeplitz form
//! (`toeplitz::Toeplitz`), whose two calls into x86-64 instructions are the crate's only
//! `unsafe`, each after the CPU was asked whether it has them.
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(not(feature = "simd"), forbid(unsafe_code))]
#![cfg_attr(feature = "simd", deny(unsafe_code))]
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
