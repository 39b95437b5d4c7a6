//! Where a memory region lives in the hardware table (docs/qp.md, "Memory regions and the
//! protection check").
//!
//! [`MrTable`](super::MrTable) finds a region by searching for its lkey. The RTL does not
//! search: a region sits in the slot its lkey names, bits `idx_lsb ..` of the lkey modulo the
//! table size (mlx5's mkey convention: the table index above a key byte), and a lookup compares
//! the whole lkey stored there. Two regions whose lkeys share those bits cannot both be
//! registered; these functions say which slot a key takes and whether a set of keys fits.

/// The slot of `lkey` in a table of `entries` slots (a power of two): `(lkey >> idx_lsb) mod
/// entries`. An `idx_lsb` of 32 or more leaves no key bits, so every key takes slot 0.
pub const fn mr_slot(lkey: u32, entries: u32, idx_lsb: u32) -> u32 {
    let index = match lkey.checked_shr(idx_lsb) {
        Some(i) => i,
        None => 0,
    };
    index & entries.wrapping_sub(1)
}

/// Whether regions with these lkeys can all be registered in a table of `entries` slots (a
/// power of two) indexed from bit `idx_lsb`: `Err((i, j))` names the first pair, `i < j`, whose
/// keys take the same slot (equal keys included: a key names one region).
pub fn mr_lkeys_fit(lkeys: &[u32], entries: u32, idx_lsb: u32) -> Result<(), (usize, usize)> {
    for (j, &b) in lkeys.iter().enumerate() {
        let slot = mr_slot(b, entries, idx_lsb);
        if let Some(i) = lkeys[..j]
            .iter()
            .position(|&a| mr_slot(a, entries, idx_lsb) == slot)
        {
            return Err((i, j));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots() {
        assert_eq!(mr_slot(0x0000_0300, 64, 8), 3);
        assert_eq!(mr_slot(0x0001_0300, 64, 8), 3); // bit 16 is above a 64-slot index
        assert_eq!(mr_slot(0x0000_41FF, 64, 8), 1); // the key byte does not count
        assert_eq!(mr_slot(0xFFFF_FFFF, 8, 8), 7);
        assert_eq!(mr_slot(0xFFFF_FFFF, 256, 24), 0xFF);
        assert_eq!(mr_slot(0x8000_0000, 2, 31), 1);
        assert_eq!(mr_slot(0xFFFF_FFFF, 64, 32), 0);
        assert_eq!(mr_slot(0x1234_5678, 1, 0), 0);
    }

    #[test]
    fn sets_of_keys() {
        assert_eq!(mr_lkeys_fit(&[], 64, 8), Ok(()));
        assert_eq!(mr_lkeys_fit(&[0x100, 0x200, 0x3FF], 64, 8), Ok(()));
        // Same index, other key byte: the hardware cannot hold both.
        assert_eq!(mr_lkeys_fit(&[0x100, 0x200, 0x1AB], 64, 8), Err((0, 2)));
        // Index bits above the table size wrap onto the same slot.
        assert_eq!(mr_lkeys_fit(&[0x0500, 0x4500], 64, 8), Err((0, 1)));
        assert_eq!(mr_lkeys_fit(&[0x0500, 0x4500], 128, 8), Ok(()));
        assert_eq!(mr_lkeys_fit(&[7, 7], 64, 8), Err((0, 1)));
        // A full table fits; one key more cannot.
        let keys: [u32; 8] = core::array::from_fn(|i| (i as u32) << 8 | 0x5A);
        assert_eq!(mr_lkeys_fit(&keys, 8, 8), Ok(()));
        let mut more = [0u32; 9];
        more[..8].copy_from_slice(&keys);
        more[8] = 0x0800;
        assert_eq!(mr_lkeys_fit(&more, 8, 8), Err((0, 8)));
    }
}
