//! The firmware (`firmware/`) against the RTL: it drives the WQE engine's control plane and the
//! RSS pipeline through their AXI4-Lite ports, as it would on the NIC's processor, and what the
//! RTL then does is checked against the model. Seeded: `ROCENIC_SEED=N` replays a run.

mod bus;
mod rss;
mod wqe;
