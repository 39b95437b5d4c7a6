//! `regmap`: fields at any position and width, and register look-ups by any name.

use crate::{config, edge_u32};
use proptest::prelude::*;
use rocenic_model::bridge::regs as core_regs;
use rocenic_model::regmap::{self, field};
use rocenic_model::rss::regs as rss_regs;

/// The bits of a 32-bit word a field covers, in u128: bits `lsb..lsb + width` that lie below 32.
fn field_mask(lsb: u32, width: u32) -> u128 {
    let ones = (1u128 << width.min(64)) - 1;
    if lsb >= 64 {
        0
    } else {
        (ones << lsb) & 0xFFFF_FFFF
    }
}

proptest! {
    #![proptest_config(config("regmap::field", 512))]

    /// `put` places the value's low `width` bits at `lsb`, keeping those inside the word;
    /// `get` reads them back; bits outside the word are 0. Neither panics for any `lsb`.
    #[test]
    fn put_and_get_match_u128(
        lsb in prop_oneof![edge_u32(), 0u32..=40],
        width in prop_oneof![edge_u32(), 0u32..=40],
        value in edge_u32(),
        word in edge_u32(),
    ) {
        let f = field("F", lsb, width, "");
        let mask = field_mask(lsb, width);
        let placed = if lsb >= 64 { 0 } else { (u128::from(value) << lsb) & mask };
        prop_assert_eq!(u128::from(f.put(value)), placed);
        let read = if lsb >= 64 { 0 } else { (u128::from(word) & mask) >> lsb };
        prop_assert_eq!(u128::from(f.get(word)), read);
        // A value that fits the field reads back unchanged.
        prop_assert_eq!(u128::from(f.get(f.put(value))), placed >> lsb.min(63));
    }
}

/// Every register of both maps is found by its name; any other name is not, without a panic.
#[test]
fn offsets_by_name() {
    for map in [rss_regs::MAP, core_regs::MAP] {
        for r in map {
            assert_eq!(regmap::offset(map, r.name), Some(r.offset), "{}", r.name);
        }
        for name in ["", "ID ", "id", "NO_SUCH_REGISTER", "CTX_KEY\0"] {
            assert_eq!(regmap::offset(map, name), None, "{name:?}");
        }
    }
    assert_eq!(rss_regs::offset("COMMIT"), Some(rss_regs::COMMIT));
    assert_eq!(rss_regs::offset("TABLE"), None);
}
