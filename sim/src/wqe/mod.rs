//! The WQE engine (`rtl/wqe/`): one driver per part, named as in `rtl/`, and the host memory
//! behind its DMA ports.

pub mod bits;
pub mod ctrl;
pub mod device;
pub mod dma_ports;
pub mod dp;
pub mod engine;
pub mod frame;
pub mod host_memory;
pub mod icrc;
pub mod mr;
pub mod reliable;
pub mod replay;
pub mod scenario;
