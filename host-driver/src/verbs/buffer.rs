//! Host memory the device DMAs: the driver's placement of rings and buffers, and
//! [`DmaBuffer`], a buffer to register as a memory region.

use super::context::{Context, ALIGN};
use super::Error;
use crate::device::Device;
use rocenic_model::wqe::Memory;

/// Where the next allocation goes: addresses only grow, and a guard page separates
/// allocations, so a DMA past a buffer's end faults instead of reaching its neighbour, and a
/// stale address never names a newer buffer.
pub(super) struct Heap {
    next: u64,
}

impl Heap {
    pub(super) fn new(base: u64) -> Self {
        Heap {
            // A base in the last page leaves nothing to allocate.
            next: base.checked_next_multiple_of(ALIGN).unwrap_or(u64::MAX),
        }
    }

    /// The address of `len` more bytes, `None` past 2^64.
    pub(super) fn take(&mut self, len: u64) -> Option<u64> {
        let addr = self.next;
        let end = addr.checked_add(len)?.checked_next_multiple_of(ALIGN)?;
        self.next = end.checked_add(ALIGN)?;
        Some(addr)
    }
}

/// Bytes of host memory the device can DMA, zeroed when allocated
/// ([`Context::alloc_buffer`]); freed when dropped. A memory region borrows the buffer it
/// covers, so the buffer outlives every region over it.
pub struct DmaBuffer<'c, D: Device> {
    ctx: &'c Context<D>,
    addr: u64,
    len: u64,
}

impl<'c, D: Device> DmaBuffer<'c, D> {
    pub(super) fn new(ctx: &'c Context<D>, addr: u64, len: u64) -> Self {
        DmaBuffer { ctx, addr, len }
    }

    /// The device address of its first byte.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Never: a buffer holds at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The context it belongs to.
    pub(super) fn context(&self) -> &'c Context<D> {
        self.ctx
    }

    /// `EFAULT` unless `len` bytes at `offset` lie inside.
    pub(super) fn check(&self, offset: u64, len: u64) -> Result<(), Error> {
        if offset <= self.len && len <= self.len - offset {
            Ok(())
        } else {
            Err(Error::Range {
                offset,
                len,
                size: self.len,
            })
        }
    }

    /// Writes `data` at `offset`.
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<(), Error> {
        self.check(offset, data.len() as u64)?;
        let inner = self.ctx.inner.borrow();
        let mut dev = inner.device.borrow_mut();
        dev.memory()
            .write(self.addr + offset, data)
            .expect("a live buffer is host memory");
        Ok(())
    }

    /// Reads `out.len()` bytes at `offset`.
    pub fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), Error> {
        self.check(offset, out.len() as u64)?;
        let inner = self.ctx.inner.borrow();
        let mut dev = inner.device.borrow_mut();
        dev.memory()
            .read(self.addr + offset, out)
            .expect("a live buffer is host memory");
        Ok(())
    }
}

impl<D: Device> Drop for DmaBuffer<'_, D> {
    fn drop(&mut self) {
        self.ctx.inner.borrow_mut().free(self.addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_and_apart() {
        let mut h = Heap::new(0x1001);
        let a = h.take(1).unwrap();
        let b = h.take(ALIGN).unwrap();
        let c = h.take(5).unwrap();
        assert_eq!(a, 0x2000);
        assert_eq!(b, a + 2 * ALIGN, "one guard page after a's page");
        assert_eq!(c, b + 2 * ALIGN);
        let mut top = Heap::new(u64::MAX - 3 * ALIGN + 1);
        assert!(top.take(ALIGN).is_some());
        assert_eq!(top.take(1), None, "past 2^64");
    }
}
