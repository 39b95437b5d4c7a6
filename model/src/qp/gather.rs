//! A work request's gather list, checked as a whole before any DMA (docs/reference.md §6).

use super::{Access, MrTable, Status, MAX_MSG_SIZE};

/// One gather entry (verbs `struct ibv_sge`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sge {
    /// Host address of the first byte.
    pub addr: u64,
    /// Length in bytes.
    pub length: u32,
    /// The lkey of the region it lies in.
    pub lkey: u32,
}

/// Checks the gather list of a request of a QP in `pd` that allows `max_sge` entries, and
/// returns the message length. In order:
/// - more than `max_sge` entries: [`Status::LocQpOpErr`] (a malformed request);
/// - each entry, first to last, by [`MrTable::check`] (local read, no rights needed): the first
///   failure's status;
/// - a total above [`MAX_MSG_SIZE`]: [`Status::LocLenErr`].
///
/// An empty list is a zero-length message and is allowed.
pub fn check_gather<const N: usize>(
    mrs: &MrTable<N>,
    pd: u32,
    sges: &[Sge],
    max_sge: usize,
) -> Result<u32, Status> {
    check_gather_for(mrs, pd, sges, max_sge, Access::NONE)
}

/// [`check_gather`] for entries that also need `access` (an RDMA READ's list, where the
/// remote bytes land, needs [`Access::LOCAL_WRITE`]).
pub fn check_gather_for<const N: usize>(
    mrs: &MrTable<N>,
    pd: u32,
    sges: &[Sge],
    max_sge: usize,
    access: Access,
) -> Result<u32, Status> {
    if sges.len() > max_sge {
        return Err(Status::LocQpOpErr);
    }
    let mut total: u32 = 0;
    for sge in sges {
        mrs.check(sge.lkey, pd, sge.addr, u64::from(sge.length), access)?;
        total = total.checked_add(sge.length).ok_or(Status::LocLenErr)?;
    }
    if total > MAX_MSG_SIZE {
        return Err(Status::LocLenErr);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::super::MemoryRegion;
    use super::*;

    #[test]
    fn list_checks() {
        let mut t = MrTable::<2>::new();
        let mr = MemoryRegion {
            lkey: 0x100,
            base: 0,
            length: u64::MAX,
            pd: 1,
            access: Access::NONE,
        };
        t.register(mr).unwrap();
        let e = |addr, length| Sge {
            addr,
            length,
            lkey: 0x100,
        };
        assert_eq!(check_gather(&t, 1, &[], 0), Ok(0));
        assert_eq!(check_gather(&t, 1, &[e(0, 10), e(10, 20)], 2), Ok(30));
        assert_eq!(
            check_gather(&t, 1, &[e(0, 10), e(10, 20)], 1),
            Err(Status::LocQpOpErr)
        );
        assert_eq!(
            check_gather(&t, 1, &[e(0, 10), e(10, 0)], 2),
            Err(Status::LocLenErr)
        );
        assert_eq!(check_gather(&t, 2, &[e(0, 10)], 2), Err(Status::LocProtErr));
        let half = MAX_MSG_SIZE / 2;
        assert_eq!(
            check_gather(&t, 1, &[e(0, half), e(0, half)], 2),
            Ok(MAX_MSG_SIZE)
        );
        assert_eq!(
            check_gather(&t, 1, &[e(0, half), e(0, half + 1)], 2),
            Err(Status::LocLenErr)
        );
        let big = e(0, MAX_MSG_SIZE);
        assert_eq!(
            check_gather(&t, 1, &[big, big, big], 3),
            Err(Status::LocLenErr)
        );
        // The first failing entry decides.
        let bad_key = Sge { lkey: 7, ..e(0, 1) };
        assert_eq!(
            check_gather(&t, 1, &[bad_key, e(0, 0)], 2),
            Err(Status::LocProtErr)
        );
        assert_eq!(
            check_gather(&t, 1, &[e(0, 0), bad_key], 2),
            Err(Status::LocLenErr)
        );
    }

    #[test]
    fn a_read_list_needs_local_write() {
        let mut t = MrTable::<2>::new();
        for (lkey, access) in [(1, Access::NONE), (2, Access::LOCAL_WRITE)] {
            t.register(MemoryRegion {
                lkey,
                base: 0x1000,
                length: 0x1000,
                pd: 3,
                access,
            })
            .unwrap();
        }
        let e = |lkey| Sge {
            addr: 0x1000,
            length: 64,
            lkey,
        };
        assert_eq!(check_gather(&t, 3, &[e(1)], 1), Ok(64));
        assert_eq!(
            check_gather_for(&t, 3, &[e(1)], 1, Access::LOCAL_WRITE),
            Err(Status::LocProtErr)
        );
        assert_eq!(
            check_gather_for(&t, 3, &[e(2), e(2)], 2, Access::LOCAL_WRITE),
            Ok(128)
        );
    }
}
