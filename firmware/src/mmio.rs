//! The bus on the NIC's processor: a block's registers mapped into its address space.
//!
//! This is the crate's one `unsafe` code: volatile loads and stores at an address the caller
//! vouches for. An AXI4-Lite error response reaches a processor as a bus-fault exception, not as
//! a value, so these accesses never return an error.
#![allow(unsafe_code)]

use crate::{Bus, BusError};

/// A register block mapped at `base`.
#[derive(Debug)]
pub struct Mmio {
    base: usize,
}

impl Mmio {
    /// The block whose register 0 is at address `base`.
    ///
    /// # Safety
    ///
    /// `base` must be the 4-byte-aligned address of a register block's window, mapped for
    /// volatile 32-bit loads and stores at every offset the firmware uses (the block's map), and
    /// nothing else may own that window while this value lives.
    pub const unsafe fn new(base: usize) -> Mmio {
        Mmio { base }
    }

    fn at(&self, addr: u32) -> *mut u32 {
        (self.base + addr as usize) as *mut u32
    }
}

impl Bus for Mmio {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        // SAFETY: `new`'s contract: the window is mapped, aligned and ours.
        Ok(unsafe { self.at(addr).read_volatile() })
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        // SAFETY: as in `read`.
        unsafe { self.at(addr).write_volatile(value) };
        Ok(())
    }
}
