//! Cycle-accurate co-simulation of rocenic's RTL from Rust.
//!
//! The build script verilates every DUT under `rtl/` and generates a typed wrapper per DUT in
//! [`duts`]: a struct whose methods are its ports, and one trait per top module over its ports
//! (`EntropyUnitPorts`, `TsoSegmenterPorts`, …) that every DUT built from it implements. On top
//! of them:
//! - [`axil`]: an AXI4-Lite master with seeded random delays, for any register block;
//! - [`axis`]: the one stream beat, keep masks and byte packing of every DUT's ports;
//! - [`harness`]: clock and reset, cycle-limited runs that fail with the cycle count and VCD path
//!   instead of hanging, VCD tracing per test or via `ROCENIC_VCD=1`;
//! - [`stream`]: seeded valid/ready bus-functional models (a source with random idle gaps, a sink
//!   with random back-pressure) that print their seed;
//! - [`scoreboard`]: in-order comparison with the reference model, item by item;
//! - one driver per pipeline ([`entropy`], [`tso`], [`rss`], [`wqe`], [`rx`]) that the tests,
//!   benches and the CLI share; [`wqe`] also holds the host memory behind the WQE engine's DMA
//!   ports;
//! - [`board`]: the board tops' core behind its UART pins, as a host-driver link;
//! - [`top`]: the full core with its host memory, and as a host-driver `Device` (two on a link);
//! - [`link`]: two NICs' frame streams joined back to back, with delay, seeded loss and a pcap.

pub mod axil;
pub mod axis;
pub mod board;
pub mod entropy;
pub mod fst;
pub mod harness;
pub mod link;
pub mod mismatch;
pub mod rc;
pub mod rss;
pub mod rx;
pub mod scoreboard;
pub mod stream;
pub mod top;
pub mod tso;
pub mod wqe;

/// The generated wrappers, one per DUT (see `sim/build/`).
#[allow(missing_docs, clippy::all)]
pub mod duts {
    include!(concat!(env!("OUT_DIR"), "/duts.rs"));
}
