//! Memory regions: a range of a [`DmaBuffer`] registered in the engine's region table, with
//! its keys and access rights.

use super::buffer::DmaBuffer;
use super::context::Context;
use super::pd::ProtectionDomain;
use super::{Error, Exhausted, Invalid, Sge};
use crate::device::Device;
use rocenic_model::qp;
use rocenic_model::wqe::regs;

/// Access rights of a region: the verbs `ibv_access_flags` bits (local read is always
/// allowed).
pub use rocenic_model::qp::Access as AccessFlags;

/// A registered memory region (`ibv_mr`). It borrows its buffer and its protection domain,
/// so neither goes away while the engine may still reach the memory through its keys;
/// dropping it deregisters it.
pub struct MemoryRegion<'a, D: Device> {
    ctx: &'a Context<D>,
    region: qp::MemoryRegion,
    offset: u64,
    registered: bool,
}

impl<'a, D: Device> MemoryRegion<'a, D> {
    /// Registers `len` bytes of `buf` from `offset` in `pd`: a free slot of the engine's
    /// region table, an lkey naming it (`regs::mr_slot`) with the slot's next key byte.
    pub(super) fn register<'c>(
        pd: &'a ProtectionDomain<'c, D>,
        buf: &'a DmaBuffer<'c, D>,
        offset: u64,
        len: u64,
        access: AccessFlags,
    ) -> Result<Self, Error> {
        let ctx = pd.context();
        if !std::ptr::eq(ctx, buf.context()) {
            return Err(Error::ForeignBuffer);
        }
        if len == 0 {
            return Err(Invalid::Size("region length", 0, buf.len()).into());
        }
        buf.check(offset, len)?;
        let remote = AccessFlags::REMOTE_WRITE.union(AccessFlags::REMOTE_ATOMIC);
        if access.bits() & remote.bits() != 0 && !access.contains(AccessFlags::LOCAL_WRITE) {
            return Err(Invalid::Access(access.bits()).into());
        }
        let mut inner = ctx.inner.borrow_mut();
        let slot = inner
            .fw
            .mr_slots()
            .iter()
            .position(Option::is_none)
            .ok_or(Exhausted::MrTable)?;
        let key = inner.mr_keys[slot];
        inner.mr_keys[slot] = key.wrapping_add(1);
        let lkey = ((slot as u32) << regs::MR_SLOT_LSB) | u32::from(key);
        let region = qp::MemoryRegion {
            lkey,
            base: buf.addr() + offset,
            length: len,
            pd: pd.pdn(),
            access,
        };
        let got = inner.fw.register_mr(&region)?;
        debug_assert_eq!(got, slot, "the lkey names the slot it was made for");
        Ok(MemoryRegion {
            ctx,
            region,
            offset,
            registered: true,
        })
    }

    /// The local key: gather entries name the region by it.
    pub fn lkey(&self) -> u32 {
        self.region.lkey
    }

    /// The remote key a peer names the region by (the engine keeps one key per region).
    pub fn rkey(&self) -> u32 {
        self.region.lkey
    }

    /// The device address of its first byte.
    pub fn addr(&self) -> u64 {
        self.region.base
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.region.length
    }

    /// Never: a region holds at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Where it starts in its buffer.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// What the engine's region table holds for it.
    pub fn region(&self) -> qp::MemoryRegion {
        self.region
    }

    /// A gather entry of `len` bytes at `offset` in the region (`EFAULT` outside it).
    pub fn sge(&self, offset: u64, len: u32) -> Result<Sge, Error> {
        let size = self.region.length;
        if offset > size || u64::from(len) > size - offset {
            return Err(Error::Range {
                offset,
                len: len.into(),
                size,
            });
        }
        Ok(Sge {
            addr: self.region.base + offset,
            length: len,
            lkey: self.region.lkey,
        })
    }

    /// Deregisters it (`ibv_dereg_mr`), reporting a failure that dropping it would hide.
    pub fn deregister(mut self) -> Result<(), Error> {
        self.registered = false;
        self.release()
    }

    fn release(&self) -> Result<(), Error> {
        Ok(self
            .ctx
            .inner
            .borrow_mut()
            .fw
            .deregister_mr(self.region.lkey)?)
    }
}

impl<D: Device> Drop for MemoryRegion<'_, D> {
    fn drop(&mut self) {
        if self.registered {
            // A failing device cannot be reported from a drop; `deregister` reports it.
            let _ = self.release();
        }
    }
}
