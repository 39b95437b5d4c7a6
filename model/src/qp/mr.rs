//! Memory regions and the protection check every gather entry passes before any DMA
//! (docs/reference.md §6).
//!
//! A region maps an lkey to `[base, base + length)` in host memory, a protection domain and
//! access rights. A gather entry `(addr, len, lkey)` of a QP in protection domain `pd` is allowed
//! when `len` is in `1..=MAX_MSG_SIZE`, the lkey names a region of that PD with the rights the
//! operation needs, and `[addr, addr + len)` lies inside it. All bounds are compared without
//! forming a sum that could wrap.

use super::Status;

/// The largest message (and so gather entry), 2^31 bytes: the IBTA limit, and what RoCE devices
/// report as `max_msg_sz`.
pub const MAX_MSG_SIZE: u32 = 1 << 31;

/// Access rights of a memory region (verbs `enum ibv_access_flags` bit values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Access(u32);

impl Access {
    /// Local read only: enough for a send's gather list.
    pub const NONE: Access = Access(0);
    /// The NIC may write the region (receive buffers, READ responses).
    pub const LOCAL_WRITE: Access = Access(1);
    /// A peer may RDMA WRITE into it.
    pub const REMOTE_WRITE: Access = Access(2);
    /// A peer may RDMA READ it.
    pub const REMOTE_READ: Access = Access(4);
    /// A peer may run atomics on it.
    pub const REMOTE_ATOMIC: Access = Access(8);
    /// Every bit this model knows.
    pub const ALL: Access = Access(0xF);

    /// The rights of a bit mask; unknown bits are dropped.
    pub const fn from_bits_truncate(bits: u32) -> Access {
        Access(bits & Self::ALL.0)
    }

    /// The bit mask.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Both sets of rights.
    pub const fn union(self, other: Access) -> Access {
        Access(self.0 | other.0)
    }

    /// Whether every right of `needed` is in `self`.
    pub const fn contains(self, needed: Access) -> bool {
        self.0 & needed.0 == needed.0
    }
}

/// One registered memory region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemoryRegion {
    /// The local key naming it.
    pub lkey: u32,
    /// First byte's address.
    pub base: u64,
    /// Length in bytes, at least 1; `base + length` may be exactly 2^64.
    pub length: u64,
    /// Protection domain.
    pub pd: u32,
    /// Access rights.
    pub access: Access,
}

impl MemoryRegion {
    /// Whether `[addr, addr + len)` lies inside the region, for any values (no wrapping sum).
    pub const fn covers(&self, addr: u64, len: u64) -> bool {
        // offset + len <= length, written without the sum.
        match addr.checked_sub(self.base) {
            Some(offset) => offset <= self.length && len <= self.length - offset,
            None => false,
        }
    }
}

/// Why a registration was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MrError {
    /// The lkey is already registered.
    DuplicateLkey,
    /// Every slot is taken.
    Full,
    /// Length 0, or `base + length` past 2^64.
    BadRange,
    /// No region has this lkey (deregistration).
    NotFound,
}

/// A fixed-capacity table of `N` memory regions, keyed by lkey.
#[derive(Clone, Debug)]
pub struct MrTable<const N: usize> {
    slots: [Option<MemoryRegion>; N],
}

impl<const N: usize> Default for MrTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> MrTable<N> {
    /// An empty table.
    pub const fn new() -> Self {
        MrTable { slots: [None; N] }
    }

    /// Registers a region; its lkey must be unused.
    pub fn register(&mut self, mr: MemoryRegion) -> Result<(), MrError> {
        // base + length may end exactly at 2^64 (the last byte is u64::MAX).
        if mr.length == 0 || mr.length - 1 > u64::MAX - mr.base {
            return Err(MrError::BadRange);
        }
        if self.get(mr.lkey).is_some() {
            return Err(MrError::DuplicateLkey);
        }
        let slot = self
            .slots
            .iter_mut()
            .find(|s| s.is_none())
            .ok_or(MrError::Full)?;
        *slot = Some(mr);
        Ok(())
    }

    /// Removes the region of `lkey`, returning it.
    pub fn deregister(&mut self, lkey: u32) -> Result<MemoryRegion, MrError> {
        self.slots
            .iter_mut()
            .find(|s| matches!(s, Some(m) if m.lkey == lkey))
            .and_then(Option::take)
            .ok_or(MrError::NotFound)
    }

    /// The region of `lkey`.
    pub fn get(&self, lkey: u32) -> Option<&MemoryRegion> {
        self.slots.iter().flatten().find(|m| m.lkey == lkey)
    }

    /// Regions registered.
    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// Whether no region is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks one gather (or scatter) entry of a QP in `pd` that needs `access`:
    /// - `len` 0 or above [`MAX_MSG_SIZE`]: [`Status::LocLenErr`];
    /// - no region with `lkey`, another PD, missing rights, or `[addr, addr + len)` not inside
    ///   the region (including a range past 2^64): [`Status::LocProtErr`].
    pub fn check(
        &self,
        lkey: u32,
        pd: u32,
        addr: u64,
        len: u64,
        access: Access,
    ) -> Result<(), Status> {
        if len == 0 || len > u64::from(MAX_MSG_SIZE) {
            return Err(Status::LocLenErr);
        }
        match self.get(lkey) {
            Some(mr) if mr.pd == pd && mr.access.contains(access) && mr.covers(addr, len) => Ok(()),
            _ => Err(Status::LocProtErr),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mr(lkey: u32, base: u64, length: u64) -> MemoryRegion {
        MemoryRegion {
            lkey,
            base,
            length,
            pd: 1,
            access: Access::LOCAL_WRITE,
        }
    }

    #[test]
    fn register_and_deregister() {
        let mut t = MrTable::<2>::new();
        assert!(t.is_empty());
        assert_eq!(t.register(mr(0x100, 0x1000, 0x100)), Ok(()));
        assert_eq!(
            t.register(mr(0x100, 0x9000, 0x100)),
            Err(MrError::DuplicateLkey)
        );
        assert_eq!(t.register(mr(0x101, 0, 0)), Err(MrError::BadRange));
        assert_eq!(t.register(mr(0x101, u64::MAX, 2)), Err(MrError::BadRange));
        assert_eq!(t.register(mr(0x101, u64::MAX, 1)), Ok(()));
        assert_eq!(t.register(mr(0x102, 0, 1)), Err(MrError::Full));
        assert_eq!(t.len(), 2);
        assert_eq!(t.deregister(0x100).map(|m| m.base), Ok(0x1000));
        assert_eq!(t.deregister(0x100), Err(MrError::NotFound));
        assert_eq!(t.register(mr(0x102, 0, u64::MAX)), Ok(()));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn every_check() {
        let mut t = MrTable::<4>::new();
        t.register(mr(0x100, 0x1000, 0x1000)).unwrap();
        t.register(mr(0x200, 1, u64::MAX)).unwrap(); // ends exactly at 2^64
        let r = Access::NONE;
        let cases = [
            // (lkey, pd, addr, len, access, result)
            (0x100, 1, 0x1000, 0x1000, r, Ok(())),
            (0x100, 1, 0x1FFF, 1, r, Ok(())),
            (0x100, 1, 0x1000, 0x1000, Access::LOCAL_WRITE, Ok(())),
            (0x100, 1, 0x1000, 0, r, Err(Status::LocLenErr)),
            (0x100, 1, 0x1000, 1 << 31, r, Err(Status::LocProtErr)),
            (0x100, 1, 0x1000, (1 << 31) + 1, r, Err(Status::LocLenErr)),
            (0x100, 1, 0x1000, u64::MAX, r, Err(Status::LocLenErr)),
            (0x100, 1, 0x0FFF, 1, r, Err(Status::LocProtErr)),
            (0x100, 1, 0x1FFF, 2, r, Err(Status::LocProtErr)),
            (0x100, 1, 0x2000, 1, r, Err(Status::LocProtErr)),
            (0x100, 2, 0x1000, 1, r, Err(Status::LocProtErr)),
            (0x101, 1, 0x1000, 1, r, Err(Status::LocProtErr)),
            (
                0x100,
                1,
                0x1000,
                1,
                Access::REMOTE_READ,
                Err(Status::LocProtErr),
            ),
            (0x200, 1, u64::MAX, 1, r, Ok(())),
            (0x200, 1, u64::MAX, 2, r, Err(Status::LocProtErr)),
            (0x200, 1, u64::MAX - 0x7FFF_FFFF, 1 << 31, r, Ok(())),
            (0x200, 1, 0, 1, r, Err(Status::LocProtErr)),
        ];
        for (i, &(lkey, pd, addr, len, acc, want)) in cases.iter().enumerate() {
            assert_eq!(t.check(lkey, pd, addr, len, acc), want, "case {i}");
        }
    }

    #[test]
    fn access_bits() {
        let rw = Access::LOCAL_WRITE.union(Access::REMOTE_WRITE);
        assert!(rw.contains(Access::LOCAL_WRITE) && rw.contains(Access::NONE));
        assert!(!rw.contains(Access::REMOTE_READ));
        assert_eq!(Access::from_bits_truncate(u32::MAX), Access::ALL);
        assert_eq!(Access::ALL.bits(), 0xF);
    }
}
