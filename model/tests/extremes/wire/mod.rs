//! `wire`: what the parser fuzz (`model/tests/wire/fuzz.rs`) does not reach — `Repr`s whose
//! fields and lengths do not fit their wire fields, the checksum arithmetic at its carries, and
//! pcap length fields against readers with any limit.

mod checksum;
mod ib;
mod ip;
mod pcap;
