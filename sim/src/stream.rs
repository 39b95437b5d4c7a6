//! Valid/ready bus-functional models with seeded randomness.
//!
//! Both sides follow the AXI-Stream rules the RTL must obey: a source never drops `valid` or
//! changes its data before the handshake; a sink may change `ready` freely.

use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::fmt;

/// A seed for a test's randomness: `$ROCENIC_SEED` if set, else fresh. Printed to standard error
/// (shown by the test runner when the test fails) so that any run can be replayed.
pub fn seed(test: &str) -> u64 {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(fresh_seed);
    eprintln!("{test}: seed {seed} (replay with ROCENIC_SEED={seed})");
    seed
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // Threads of one test binary start within the same clock tick: mix in the thread.
    let thread = std::thread::current().id();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&(nanos, thread, std::process::id()), &mut h);
    std::hash::Hasher::finish(&h)
}

/// The generator of every randomized test: ChaCha8, whose stream for a seed is fixed by its
/// definition, so a printed seed replays on any machine (rand's `TestRng` may differ between
/// platforms and rand releases). `seed_from_u64` expands the seed with rand_core's fixed PCG32;
/// the draws made from the stream (`gen_range`, `gen_bool`) are rand 0.8's, pinned by Cargo.lock.
pub type TestRng = rand_chacha::ChaCha8Rng;

/// A seeded generator.
pub fn rng(seed: u64) -> TestRng {
    TestRng::seed_from_u64(seed)
}

/// Drives items into a valid/ready input with random idle cycles.
pub struct Source<T> {
    items: VecDeque<T>,
    idle: f64,
    presenting: bool,
    rng: TestRng,
}

impl<T> Source<T> {
    /// A source that, when free to start an item, idles with probability `idle` per cycle.
    pub fn new(seed: u64, idle: f64) -> Self {
        Source {
            items: VecDeque::new(),
            idle,
            presenting: false,
            rng: rng(seed ^ 0x5EED_0001),
        }
    }

    /// Queues an item.
    pub fn push(&mut self, item: T) {
        self.items.push_back(item);
    }

    /// Items not yet accepted.
    pub fn remaining(&self) -> usize {
        self.items.len()
    }

    /// The item to present this cycle (`valid` high), or `None` (`valid` low). Once an item is
    /// presented it stays until accepted.
    pub fn offer(&mut self) -> Option<&T> {
        if !self.presenting && !self.items.is_empty() {
            self.presenting = self.idle <= 0.0 || !self.rng.gen_bool(self.idle.min(1.0));
        }
        if self.presenting {
            self.items.front()
        } else {
            None
        }
    }

    /// Reports this cycle's `ready` (sampled before the edge); returns the accepted item.
    pub fn accepted(&mut self, ready: bool) -> Option<T> {
        if self.presenting && ready {
            self.presenting = false;
            self.items.pop_front()
        } else {
            None
        }
    }
}

/// Drives a valid/ready output's `ready` with random back-pressure.
pub struct Sink {
    stall: f64,
    rng: TestRng,
}

impl Sink {
    /// A sink that holds `ready` low with probability `stall` per cycle.
    pub fn new(seed: u64, stall: f64) -> Self {
        Sink {
            stall,
            rng: rng(seed ^ 0x5EED_0002),
        }
    }

    /// This cycle's `ready`.
    pub fn ready(&mut self) -> bool {
        self.stall <= 0.0 || !self.rng.gen_bool(self.stall.min(1.0))
    }
}

/// Checks the valid/ready rule a bench sees on an output: a value offered and not taken holds
/// still until it is taken.
#[derive(Debug)]
pub struct Held<T>(Option<T>);

impl<T> Default for Held<T> {
    fn default() -> Self {
        Held(None)
    }
}

impl<T: PartialEq + fmt::Debug> Held<T> {
    /// The output offers `value` this cycle, `taken` or not. Whether it is a new offer (the
    /// last one was taken, or nothing was offered), or an error when a waiting one changed.
    pub fn offer(&mut self, value: T, taken: bool) -> Result<bool, String> {
        let new = match &self.0 {
            Some(h) if *h != value => {
                return Err(format!(
                    "the output changed while it waited: {h:?} became {value:?}"
                ))
            }
            Some(_) => false,
            None => true,
        };
        self.0 = (!taken).then_some(value);
        Ok(new)
    }

    /// The output offers nothing this cycle.
    pub fn idle(&mut self) {
        self.0 = None;
    }

    /// The output offers nothing this cycle, which is an error while an offer waits (valid
    /// withdrawn before its handshake).
    pub fn none(&mut self) -> Result<(), String> {
        match self.0.take() {
            Some(h) => Err(format!("the output withdrew {h:?} while it waited")),
            None => Ok(()),
        }
    }

    /// One cycle of the output: what it shows (`None` without valid) checked as [`Self::offer`]
    /// and [`Self::none`] do, and the value it gave when `ready` took it.
    pub fn sample(&mut self, shown: Option<T>, ready: bool) -> Result<Option<T>, String>
    where
        T: Copy,
    {
        match shown {
            Some(v) => {
                self.offer(v, ready)?;
                Ok(ready.then_some(v))
            }
            None => self.none().map(|_| None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Held;

    #[test]
    fn a_waiting_output_must_hold() {
        let mut h = Held::default();
        assert_eq!(h.offer(1, false), Ok(true));
        assert_eq!(h.offer(1, false), Ok(false));
        assert!(h.offer(2, true).is_err(), "changed while it waited");
        let mut h = Held::default();
        assert_eq!(h.offer(1, false), Ok(true));
        assert!(h.none().is_err(), "withdrawn while it waited");
        assert_eq!(h.none(), Ok(()));
        let mut h = Held::default();
        assert_eq!(h.offer(1, true), Ok(true));
        assert_eq!(h.offer(2, false), Ok(true), "a new offer after a take");
        h.idle();
        assert_eq!(
            h.offer(3, true),
            Ok(true),
            "a new offer after an idle cycle"
        );
    }
}
