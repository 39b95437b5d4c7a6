//! Memory regions: staged and written into the slot their lkey names (`MR_WRITE`), or cleared
//! (`MR_CLEAR`).

use super::WqeEngine;
use crate::{Bus, Error};
use rocenic_model::qp::MemoryRegion;
use rocenic_model::wqe::regs;

impl<B: Bus, const QPS: usize, const MRS: usize> WqeEngine<B, QPS, MRS> {
    /// Registers `mr`: its range must be 1 byte or more and end by 2^64, and its slot
    /// (`regs::mr_slot` of its lkey) must be free or hold the same lkey (which is then written
    /// again). Returns the slot.
    pub fn register_mr(&mut self, mr: &MemoryRegion) -> Result<usize, Error> {
        // base + length may end exactly at 2^64 (the model's rule, `MrTable::register`).
        if mr.length == 0 || mr.length - 1 > u64::MAX - mr.base {
            return Err(Error::MrRange {
                base: mr.base,
                length: mr.length,
            });
        }
        let slot = regs::mr_slot(mr.lkey, self.caps.mrs) as usize;
        if let Some(holder) = self.mrs[slot].filter(|&l| l != mr.lkey) {
            return Err(Error::MrSlotTaken {
                lkey: mr.lkey,
                slot: slot as u32,
                holder,
            });
        }
        self.bus.write_all(&regs::mr_writes(mr))?;
        self.command(regs::mr_write())?;
        self.mrs[slot] = Some(mr.lkey);
        Ok(slot)
    }

    /// Deregisters the region of `lkey`.
    pub fn deregister_mr(&mut self, lkey: u32) -> Result<(), Error> {
        let slot = regs::mr_slot(lkey, self.caps.mrs) as usize;
        if self.mrs[slot] != Some(lkey) {
            return Err(Error::NoSuchMr(lkey));
        }
        let [stage, command] = regs::mr_clear(lkey);
        self.bus.write(stage.0, stage.1)?;
        self.command(command)?;
        self.mrs[slot] = None;
        Ok(())
    }

    /// The lkey registered in each region slot (`None`: free), slots `0..CAPS.MRS`.
    pub fn mr_slots(&self) -> &[Option<u32>] {
        &self.mrs[..self.caps.mrs as usize]
    }
}
