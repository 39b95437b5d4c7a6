//! In-order comparison of a DUT's outputs with the reference model's.

use std::collections::VecDeque;
use std::fmt::Debug;

/// Expected items in order; every observed item must equal the oldest expected one.
#[derive(Debug)]
pub struct Scoreboard<T> {
    name: String,
    expected: VecDeque<(u64, T)>,
    next_index: u64,
    matched: u64,
}

/// An observed item that differs from the expectation, or arrived unexpected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Which scoreboard.
    pub name: String,
    /// The item's position in the stream (from 0).
    pub index: u64,
    /// What was expected, formatted.
    pub expected: String,
    /// What the DUT gave, formatted.
    pub observed: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: item {}: expected {}, observed {}",
            self.name, self.index, self.expected, self.observed
        )
    }
}

impl std::error::Error for Mismatch {}

impl<T: PartialEq + Debug> Scoreboard<T> {
    /// An empty scoreboard called `name` in messages.
    pub fn new(name: &str) -> Self {
        Scoreboard {
            name: name.into(),
            expected: VecDeque::new(),
            next_index: 0,
            matched: 0,
        }
    }

    /// Queues the model's result for the next input.
    pub fn expect(&mut self, item: T) {
        self.expected.push_back((self.next_index, item));
        self.next_index += 1;
    }

    /// Compares one DUT output with the oldest expectation.
    pub fn observe(&mut self, item: T) -> Result<(), Mismatch> {
        match self.expected.pop_front() {
            Some((index, want)) if want == item => {
                let _ = index;
                self.matched += 1;
                Ok(())
            }
            Some((index, want)) => Err(Mismatch {
                name: self.name.clone(),
                index,
                expected: format!("{want:?}"),
                observed: format!("{item:?}"),
            }),
            None => Err(Mismatch {
                name: self.name.clone(),
                index: self.matched,
                expected: "nothing (no input outstanding)".into(),
                observed: format!("{item:?}"),
            }),
        }
    }

    /// Items expected but not yet observed.
    pub fn pending(&self) -> usize {
        self.expected.len()
    }

    /// Items matched so far.
    pub fn matched(&self) -> u64 {
        self.matched
    }
}
