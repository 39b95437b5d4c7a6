//! The model backend (`rocenic_host_driver::model_device`) at its registers: each block
//! against its docs/*-registers.md page, and the WQE block against the co-simulated engine
//! for the same firmware calls.

mod differential;
mod regs;
