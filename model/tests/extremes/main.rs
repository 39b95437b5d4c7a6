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
use proptest::test_runner::{Config, RngSeed};

/// The config of one property: `cases` cases from the seed `$ROCENIC_SEED`, or a fresh one,
/// printed to standard error (which the test runner shows when the test fails).
pub fn config(test: &str, cases: u32) -> Config {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(fresh_seed);
    eprintln!("{test}: seed {seed} (replay with ROCENIC_SEED={seed})");
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        // The seed replays a failure; no regression files next to the sources.
        failure_persistence: None,
        ..Config::default()
    }
}

fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    // RandomState is keyed from the OS once per process and per thread: different every run.
    RandomState::new().hash_one(std::time::SystemTime::now())
}

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
