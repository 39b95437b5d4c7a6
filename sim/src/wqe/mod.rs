//! The WQE engine from Rust: benches around its parts.

pub mod ctrl;
