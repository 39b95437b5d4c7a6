//! A recording fake of a register block: every access goes into a log, reads return what a
//! script or a table of register values says (0 otherwise), and one address can be made to
//! fail. The tests compare the log with the exact sequence the model's encoders give.

#![allow(dead_code)] // each test file uses its part

use rocenic_firmware::{Bus, BusError};
use std::collections::{HashMap, VecDeque};

/// One register access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A read of `.0` that returned `.1`.
    Read(u32, u32),
    /// A write of `.1` to `.0`.
    Write(u32, u32),
}

/// The fake block.
#[derive(Default)]
pub struct FakeBus {
    /// Every access, in order.
    pub log: Vec<Access>,
    /// What reads of an address return when no script is queued for it.
    pub values: HashMap<u32, u32>,
    /// Values the next reads of an address return, in order, before `values`.
    pub script: HashMap<u32, VecDeque<u32>>,
    /// An address whose accesses fail, and how.
    pub fail: Option<(u32, BusError)>,
}

impl FakeBus {
    /// A block whose `id` and `caps` registers (at 0 and 4) read these values.
    pub fn new(id: u32, caps: u32) -> Self {
        let mut f = FakeBus::default();
        f.values.insert(0, id);
        f.values.insert(4, caps);
        f
    }

    /// Reads of `addr` return `values` first, in order.
    pub fn queue(&mut self, addr: u32, values: &[u32]) {
        self.script.entry(addr).or_default().extend(values);
    }

    /// Forgets the log; returns it.
    pub fn take(&mut self) -> Vec<Access> {
        std::mem::take(&mut self.log)
    }

    /// The writes of the log, in order.
    pub fn writes(&self) -> Vec<(u32, u32)> {
        self.log
            .iter()
            .filter_map(|a| match *a {
                Access::Write(addr, v) => Some((addr, v)),
                Access::Read(..) => None,
            })
            .collect()
    }
}

impl Bus for FakeBus {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        if let Some((a, e)) = self.fail {
            if a == addr {
                return Err(e);
            }
        }
        let v = match self.script.get_mut(&addr).and_then(VecDeque::pop_front) {
            Some(v) => v,
            None => self.values.get(&addr).copied().unwrap_or(0),
        };
        self.log.push(Access::Read(addr, v));
        Ok(v)
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        if let Some((a, e)) = self.fail {
            if a == addr {
                return Err(e);
            }
        }
        self.log.push(Access::Write(addr, value));
        Ok(())
    }
}

/// Writes as the log holds them, for comparing with an encoder's output.
pub fn writes(w: &[(u32, u32)]) -> Vec<Access> {
    w.iter().map(|&(a, v)| Access::Write(a, v)).collect()
}

/// A small deterministic generator (splitmix64): the tests' inputs are fixed, so a failure
/// replays as it is.
pub struct Gen(pub u64);

impl Gen {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
