//! A stand-in for `rocenic_model::wqe::HostMemory` (same names and behaviour, fewer methods)
//! until that lands on main; then this file goes and `send` imports the model's.

use rocenic_model::wqe::{Fault, Memory};
use std::collections::BTreeMap;

/// The initial contents of a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill<'a> {
    /// Every byte 0.
    Zero,
    /// Byte `i` of the region is `i mod 256`.
    Counter,
    /// These bytes from the region's base, zero after them.
    Bytes(&'a [u8]),
}

/// Non-overlapping regions of bytes by base address; a byte in no region faults the access.
#[derive(Clone, Debug, Default)]
pub struct HostMemory {
    regions: BTreeMap<u64, Vec<u8>>,
}

impl HostMemory {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `size` bytes at `base`; the caller has checked that regions do not overlap.
    pub fn add(&mut self, base: u64, size: usize, fill: Fill<'_>) -> Result<(), String> {
        let bytes = match fill {
            Fill::Zero => vec![0; size],
            Fill::Counter => (0..size).map(|i| i as u8).collect(),
            Fill::Bytes(b) => {
                let mut v = b.to_vec();
                v.resize(size, 0);
                v
            }
        };
        self.regions.insert(base, bytes);
        Ok(())
    }

    /// The region holding `[addr, addr + len)` whole, and the offset in it.
    fn find(&self, addr: u64, len: usize) -> Option<(u64, usize)> {
        let (&base, bytes) = self.regions.range(..=addr).next_back()?;
        let off = usize::try_from(addr - base).ok()?;
        (off.checked_add(len)? <= bytes.len()).then_some((base, off))
    }
}

impl Memory for HostMemory {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let len = out.len();
        let (base, off) = self.find(addr, len).ok_or(Fault { addr, len })?;
        out.copy_from_slice(&self.regions[&base][off..off + len]);
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let len = data.len();
        let (base, off) = self.find(addr, len).ok_or(Fault { addr, len })?;
        let region = self.regions.get_mut(&base).expect("found above");
        region[off..off + len].copy_from_slice(data);
        Ok(())
    }
}
