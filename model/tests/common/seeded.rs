//! The proptest config every property of the model's test binaries uses: the seed from
//! `$ROCENIC_SEED`, or a fresh one, printed to standard error so a failure replays.

use proptest::test_runner::{Config, RngSeed};

/// The config of one property: `cases` cases from the seed.
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
