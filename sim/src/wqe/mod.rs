//! Co-simulation pieces of the WQE engine's test bench.

pub mod host_memory;
