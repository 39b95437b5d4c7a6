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

#[cfg(feature = "std")]
pub use host::{AddError, Fill, HostMemory};

/// A host memory of separate regions of bytes, for tests, scenarios and the co-simulation. It
/// allocates, so it needs the `std` feature; the engine itself only sees [`Memory`].
#[cfg(feature = "std")]
mod host {
    use super::{Fault, Memory};
    use std::collections::BTreeMap;
    use std::fmt;

    /// The initial contents of a region.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Fill<'a> {
        /// Every byte 0.
        Zero,
        /// Byte `i` of the region (counted from its base) is `i mod 256`, so a misplaced read
        /// shows its offset in the data.
        Counter,
        /// These bytes from the region's base, zero after them.
        Bytes(&'a [u8]),
    }

    /// Why [`HostMemory::add`] refused a region.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum AddError {
        /// A region of 0 bytes.
        Empty,
        /// `base + size` is past 2^64.
        PastEnd {
            /// The region's base.
            base: u64,
            /// Its size.
            size: usize,
        },
        /// The region shares bytes with the one at `other`.
        Overlap {
            /// The refused region's base.
            base: u64,
            /// The base of the region already there.
            other: u64,
        },
        /// [`Fill::Bytes`] holds more bytes than the region.
        FillTooLong {
            /// Bytes given.
            len: usize,
            /// The region's size.
            size: usize,
        },
    }

    impl fmt::Display for AddError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match *self {
                AddError::Empty => f.write_str("a host memory region of 0 bytes"),
                AddError::PastEnd { base, size } => {
                    write!(f, "host memory 0x{base:x}..+0x{size:x} ends past 2^64")
                }
                AddError::Overlap { base, other } => write!(
                    f,
                    "host memory at 0x{base:x} overlaps the region at 0x{other:x}"
                ),
                AddError::FillTooLong { len, size } => {
                    write!(f, "{len} fill bytes for a region of {size}")
                }
            }
        }
    }

    impl std::error::Error for AddError {}

    /// Non-overlapping regions of bytes, by base address. An access may run from one region
    /// into the next when they touch; a byte in no region faults the whole access.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct HostMemory {
        regions: BTreeMap<u64, Vec<u8>>,
    }

    impl HostMemory {
        /// No memory at all.
        pub fn new() -> Self {
            Self::default()
        }

        /// Adds `size` bytes at `base`, filled as `fill` says.
        pub fn add(&mut self, base: u64, size: usize, fill: Fill<'_>) -> Result<(), AddError> {
            if size == 0 {
                return Err(AddError::Empty);
            }
            // The last byte, if the region fits below 2^64.
            let last = base
                .checked_add(size as u64 - 1)
                .ok_or(AddError::PastEnd { base, size })?;
            // The only candidates: the last region starting at or before `last`.
            if let Some((&other, bytes)) = self.regions.range(..=last).next_back() {
                if other + (bytes.len() as u64 - 1) >= base {
                    return Err(AddError::Overlap { base, other });
                }
            }
            let bytes = match fill {
                Fill::Zero => vec![0; size],
                Fill::Counter => (0..size).map(|i| i as u8).collect(),
                Fill::Bytes(b) if b.len() > size => {
                    return Err(AddError::FillTooLong { len: b.len(), size })
                }
                Fill::Bytes(b) => {
                    let mut v = b.to_vec();
                    v.resize(size, 0);
                    v
                }
            };
            self.regions.insert(base, bytes);
            Ok(())
        }

        /// Takes away the region at `base` and returns its bytes, `None` when no region starts
        /// there; its addresses fault from then on (a driver freeing a buffer).
        pub fn remove(&mut self, base: u64) -> Option<Vec<u8>> {
            self.regions.remove(&base)
        }

        /// The regions, by base, with their bytes.
        pub fn regions(&self) -> impl Iterator<Item = (u64, &[u8])> {
            self.regions.iter().map(|(&b, v)| (b, v.as_slice()))
        }

        /// Every byte of `[addr, addr + len)` is memory.
        pub fn mapped(&self, addr: u64, len: usize) -> bool {
            self.pieces(addr, len).is_some()
        }

        /// The accesses `[addr, addr + len)` makes: (region base, offset in it, bytes), in
        /// address order; `None` if a byte is in no region.
        fn pieces(&self, addr: u64, len: usize) -> Option<Vec<(u64, usize, usize)>> {
            let mut out = Vec::new();
            let (mut at, mut left) = (addr, len);
            while left > 0 {
                let (&base, bytes) = self.regions.range(..=at).next_back()?;
                let off = (at - base) as usize;
                let n = bytes.len().checked_sub(off).filter(|&n| n > 0)?.min(left);
                out.push((base, off, n));
                left -= n;
                if left > 0 {
                    // Past 2^64 there is no next region.
                    at = at.checked_add(n as u64)?;
                }
            }
            Some(out)
        }
    }

    impl Memory for HostMemory {
        fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
            let len = out.len();
            let pieces = self.pieces(addr, len).ok_or(Fault { addr, len })?;
            let mut done = 0;
            for (base, off, n) in pieces {
                out[done..done + n].copy_from_slice(&self.regions[&base][off..off + n]);
                done += n;
            }
            Ok(())
        }

        fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
            let len = data.len();
            let pieces = self.pieces(addr, len).ok_or(Fault { addr, len })?;
            let mut done = 0;
            for (base, off, n) in pieces {
                let region = self.regions.get_mut(&base).expect("a piece's region");
                region[off..off + n].copy_from_slice(&data[done..done + n]);
                done += n;
            }
            Ok(())
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    #[test]
    fn fills_counter_zero_and_bytes() {
        let mut m = HostMemory::new();
        m.add(0x1000, 300, Fill::Counter).unwrap();
        m.add(0x2000, 4, Fill::Zero).unwrap();
        m.add(0x3000, 5, Fill::Bytes(&[9, 8, 7])).unwrap();
        let mut b = [0xEEu8; 4];
        m.read(0x1000 + 254, &mut b).unwrap();
        assert_eq!(
            b,
            [254, 255, 0, 1],
            "counter restarts at 256 bytes from the base"
        );
        m.read(0x2000, &mut b).unwrap();
        assert_eq!(b, [0; 4]);
        let mut c = [0xEEu8; 5];
        m.read(0x3000, &mut c).unwrap();
        assert_eq!(c, [9, 8, 7, 0, 0]);
        assert_eq!(
            m.add(0x4000, 2, Fill::Bytes(&[1, 2, 3])),
            Err(AddError::FillTooLong { len: 3, size: 2 })
        );
    }

    #[test]
    fn refuses_overlaps_empty_regions_and_the_end_of_the_address_space() {
        let mut m = HostMemory::new();
        m.add(0x100, 0x100, Fill::Zero).unwrap();
        for (base, size) in [
            (0x80, 0x81),
            (0x1FF, 1),
            (0x100, 1),
            (0x0, 0x1000),
            (0x180, 4),
        ] {
            assert_eq!(
                m.add(base, size, Fill::Zero),
                Err(AddError::Overlap { base, other: 0x100 }),
                "{base:#x}+{size:#x}"
            );
        }
        // Touching on either side is not overlapping.
        m.add(0x80, 0x80, Fill::Zero).unwrap();
        m.add(0x200, 1, Fill::Zero).unwrap();
        assert_eq!(m.add(0x300, 0, Fill::Zero), Err(AddError::Empty));
        assert_eq!(
            m.add(u64::MAX, 2, Fill::Zero),
            Err(AddError::PastEnd {
                base: u64::MAX,
                size: 2
            })
        );
        // The very last byte of the address space is fine.
        m.add(u64::MAX - 3, 4, Fill::Counter).unwrap();
        let mut b = [0u8; 4];
        m.read(u64::MAX - 3, &mut b).unwrap();
        assert_eq!(b, [0, 1, 2, 3]);
        assert_eq!(
            m.regions().map(|(b, v)| (b, v.len())).collect::<Vec<_>>(),
            [(0x80, 0x80), (0x100, 0x100), (0x200, 1), (u64::MAX - 3, 4)]
        );
    }

    #[test]
    fn accesses_span_touching_regions_and_fault_whole_on_a_gap() {
        let mut m = HostMemory::new();
        m.add(0x1000, 0x10, Fill::Counter).unwrap();
        m.add(0x1010, 0x10, Fill::Counter).unwrap();
        m.add(0x1021, 0x10, Fill::Counter).unwrap(); // one byte of gap at 0x1020
        let mut b = [0u8; 4];
        m.read(0x100E, &mut b).unwrap();
        assert_eq!(b, [14, 15, 0, 1]);
        assert!(m.mapped(0x1000, 0x20));
        assert!(!m.mapped(0x1000, 0x21));
        assert_eq!(
            m.read(0x101E, &mut b),
            Err(Fault {
                addr: 0x101E,
                len: 4
            })
        );
        // A faulting write changes nothing, even the bytes that are memory.
        let before = m.clone();
        assert!(m.write(0x101E, &[0xAA; 4]).is_err());
        assert_eq!(m, before);
        m.write(0x100F, &[0xAA, 0xBB]).unwrap();
        m.read(0x100E, &mut b).unwrap();
        assert_eq!(b, [14, 0xAA, 0xBB, 1]);
        // Outside every region, below, above, and running past 2^64.
        assert!(m.read(0xFFF, &mut b).is_err());
        assert!(m.read(0x2000, &mut b).is_err());
        m.add(u64::MAX - 1, 2, Fill::Zero).unwrap();
        assert!(m.read(u64::MAX - 1, &mut b).is_err());
        assert!(m.read(u64::MAX - 1, &mut b[..2]).is_ok());
        // Zero bytes touch no memory.
        assert!(m.read(0x5000, &mut []).is_ok());
        // A region taken away faults; its neighbours stay.
        assert_eq!(m.remove(0x1010).map(|v| v.len()), Some(0x10));
        assert_eq!(m.remove(0x1010), None);
        assert!(m.read(0x1010, &mut b).is_err());
        assert!(m.read(0x1000, &mut b).is_ok());
    }
}
