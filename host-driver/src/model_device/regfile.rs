//! A block's register words as its map (`model::regmap`) describes them: what an address
//! names, what a read-write register keeps, what reads 0.

use rocenic_model::regmap::{Access, Register};
use std::collections::BTreeMap;

/// The stored words of one register map.
pub(super) struct RegFile {
    map: &'static [Register],
    words: BTreeMap<u32, u32>,
}

impl RegFile {
    pub(super) fn new(map: &'static [Register]) -> Self {
        RegFile {
            map,
            words: BTreeMap::new(),
        }
    }

    /// The register (or array) holding byte address `addr` (word aligned), and the word's
    /// index in it; `None` for an unmapped address.
    pub(super) fn find(&self, addr: u32) -> Option<(&'static Register, u32)> {
        self.map.iter().find_map(|r| {
            let i = addr.checked_sub(r.offset)? / 4;
            (i < r.words).then_some((r, i))
        })
    }

    /// The access of `addr`'s register, `None` unmapped.
    pub(super) fn access(&self, addr: u32) -> Option<Access> {
        self.find(addr).map(|(r, _)| r.access)
    }

    /// What a read-write register holds (0 until written).
    pub(super) fn get(&self, addr: u32) -> u32 {
        self.words.get(&addr).copied().unwrap_or(0)
    }

    /// Stores a write to a read-write register: the bits of its fields, or the whole word when
    /// it has none (what the RTL's flip-flops keep).
    pub(super) fn set(&mut self, addr: u32, value: u32) {
        if let Some((r, _)) = self.find(addr) {
            let mask = if r.fields.is_empty() {
                u32::MAX
            } else {
                r.fields.iter().fold(0, |m, f| m | f.put(f.max_value()))
            };
            self.words.insert(addr, value & mask);
        }
    }

    /// A 64-bit value in two words, the low one first.
    pub(super) fn get64(&self, addr: u32) -> u64 {
        u64::from(self.get(addr)) | (u64::from(self.get(addr + 4)) << 32)
    }

    /// `N` words from `addr` as bytes, byte 4i in bits 31:24 of word i.
    pub(super) fn bytes<const N: usize>(&self, addr: u32) -> [u8; N] {
        let mut out = [0u8; N];
        for (i, b) in out.iter_mut().enumerate() {
            *b = (self.get(addr + 4 * (i as u32 / 4)) >> (24 - 8 * (i % 4))) as u8;
        }
        out
    }
}

/// A command written to a block, carried out once the clock reaches `due`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    pub(super) word: u32,
    pub(super) due: u64,
}
