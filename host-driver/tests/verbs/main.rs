//! The verbs driver on the co-simulated WQE engine (`rocenic_sim::wqe::device::WqeDevice`):
//! objects, QP states, every send opcode on RC and UD against the model's send engine (the
//! same frames, byte for byte, and the same completions), the error paths with their verbs
//! errnos, and rings that fill up and wrap around.
//!
//! Randomized tests print their seed; `ROCENIC_SEED=N` replays one.

mod common;
mod errors;
mod rings;
mod sends;
mod states;
