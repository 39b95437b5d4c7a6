//! Host memory as the send engine sees it: DMA reads of WQEs and gathered payload, DMA writes
//! of completions. The model's engine and the co-simulation's host-memory model
//! (`sim/src/wqe/host_memory.rs`) both go through this trait, so a scenario's memory is one
//! value whichever engine runs it.

use core::fmt;

/// A DMA access that host memory refused: no memory backs some byte of `[addr, addr + len)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// First byte of the access.
    pub addr: u64,
    /// Its length in bytes.
    pub len: usize,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no host memory at 0x{:x}..+0x{:x} ({} bytes)",
            self.addr, self.len, self.len
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Fault {}

/// Byte-addressed host memory. An access either completes whole or faults whole.
pub trait Memory {
    /// Reads `out.len()` bytes from `addr`.
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault>;
    /// Writes `data` at `addr`.
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault>;
}
