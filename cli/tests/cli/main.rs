//! The `rocenic` CLI contracts, run as a user would: real files, real exit codes. One test
//! binary, one file per command (linking the co-simulation once instead of once per file).

mod common;

mod csv_input;
mod partial_output;
mod pcapng;
mod streams;

mod demo;
mod engine;
mod entropy;
mod golden;
mod golden_pcap;
mod icrc;
mod rss;
mod send;
mod sim;
mod sim_link;
#[cfg(feature = "rtl")]
mod sim_rtl;
mod soak;
mod toeplitz;
mod tso;
