//! The wire formats (`model::wire`) against hand-built and random frames: one test binary, one
//! file per concern.

mod common;

mod display;
mod ethernet;
mod fuzz;
mod ib;
mod icrc;
mod ip;
mod pcap;
mod tcp_udp;
