//! The WQE engine (`rtl/wqe/`): its parts' benches and the host memory they read and write.

pub mod bits;
pub mod ctrl;
pub mod dp;
pub mod frame;
pub mod host_memory;
