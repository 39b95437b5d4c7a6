//! Host side of rocenic: a verbs-shaped driver, and the register bus of the boards.
//!
//! - [`verbs`]: what a libibverbs user recognises, in Rust: a [`verbs::Context`] opened on a
//!   [`Device`], `query_device`, protection domains, memory regions over buffers the device
//!   DMAs, completion queues, queue pairs moved RESET→INIT→RTR→RTS with typed attributes,
//!   `post_send`, `post_recv`, `poll_cq`, and the RSS objects (work queues, indirection tables,
//!   RSS QPs, flows). Every format and rule comes from `rocenic_model`, every register sequence
//!   from `rocenic_firmware`.
//! - [`device`]: what a backend provides: register buses, host memory the NIC DMAs, a clock
//!   to run, capabilities. The co-simulated WQE engine is one (`rocenic_sim::wqe::device`).
//! - [`Board`], [`RegisterBus`], [`Link`], [`serial`]: a board's UART register bridge
//!   (`serial:PORT`) and the board core's entropy and RSS hash units.
//!
//! docs/host-driver.md describes the driver.

mod board;
pub mod device;
pub mod serial;
pub mod verbs;

pub use board::{Board, Caps, Error, Link, RegisterBus};
pub use device::Device;
