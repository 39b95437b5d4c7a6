//! The public API of the model driven with extreme values — 0, 1, MAX − 1 and MAX of each
//! integer type, empty and over-long slices, limits of `usize::MAX`, indexes past the end —
//! mixed with random ones, in the debug build, where an overflow panics.
//!
//! Every call is checked against a reference (a wider type, or the plain definition), an error
//! exactly when the input is out of range, or an invariant. One module per model module.
//!
//! Each property prints its seed; `ROCENIC_SEED=N` replays it.

mod bridge;
mod entropy;
mod qp;
mod regmap;
mod rss;
mod toeplitz;
mod tso;
mod wire;
mod wqe;

use proptest::prelude::*;

#[path = "../common/seeded.rs"]
mod seeded;
pub use seeded::config;

/// Values of an integer type: half of them from {0, 1, MAX − 1, MAX}, half uniform.
macro_rules! edges {
    ($name:ident, $t:ty) => {
        #[allow(dead_code)]
        pub fn $name() -> impl Strategy<Value = $t> {
            prop_oneof![
                prop::sample::select(vec![0, 1, <$t>::MAX - 1, <$t>::MAX]),
                any::<$t>(),
            ]
        }
    };
}

edges!(edge_u8, u8);
edges!(edge_u16, u16);
edges!(edge_u32, u32);
edges!(edge_u64, u64);
edges!(edge_usize, usize);

/// Like [`edge_usize`], with a third of the values drawn from `near` (the boundaries of the
/// API under test, where an off-by-one would show).
pub fn edge_usize_near(near: Vec<usize>) -> impl Strategy<Value = usize> {
    prop_oneof![edge_usize(), prop::sample::select(near)]
}
