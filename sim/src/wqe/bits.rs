//! SystemVerilog packed structs as Verilator's wide ports carry them: the first field declared
//! is the most significant, and the port is little-endian 32-bit words.

/// Builds a packed value field by field, first field first.
#[derive(Clone, Debug, Default)]
pub struct Packer {
    /// Bits, most significant first.
    bits: Vec<bool>,
}

impl Packer {
    /// An empty value.
    pub fn new() -> Packer {
        Packer::default()
    }

    /// Appends a field of `width` bits (at most 128) holding the low bits of `value`.
    pub fn put(&mut self, width: usize, value: u128) -> &mut Packer {
        assert!(width <= 128);
        for i in (0..width).rev() {
            self.bits.push(i < 128 && (value >> i) & 1 == 1);
        }
        self
    }

    /// Appends a packed value built elsewhere (a nested struct).
    pub fn nest(&mut self, inner: &Packer) -> &mut Packer {
        self.bits.extend_from_slice(&inner.bits);
        self
    }

    /// Bits so far.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// Nothing put yet.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// The value as `N` little-endian words; panics unless it has exactly the port's width
    /// rounded up to words (the bits above the width stay 0).
    pub fn words<const N: usize>(&self) -> [u32; N] {
        assert!(self.bits.len() <= 32 * N && self.bits.len() > 32 * (N - 1));
        let mut w = [0u32; N];
        for (i, &b) in self.bits.iter().rev().enumerate() {
            if b {
                w[i / 32] |= 1 << (i % 32);
            }
        }
        w
    }
}

/// Reads a packed value field by field, first field first.
#[derive(Clone, Debug)]
pub struct Unpacker {
    bits: Vec<bool>,
    at: usize,
}

impl Unpacker {
    /// The `width`-bit value held in `words` (little-endian).
    pub fn new(words: &[u32], width: usize) -> Unpacker {
        let bits = (0..width)
            .rev()
            .map(|i| (words[i / 32] >> (i % 32)) & 1 == 1)
            .collect();
        Unpacker { bits, at: 0 }
    }

    /// The next field of `width` bits (at most 128).
    pub fn take(&mut self, width: usize) -> u128 {
        let mut v = 0u128;
        for _ in 0..width {
            v = (v << 1) | u128::from(self.bits[self.at]);
            self.at += 1;
        }
        v
    }

    /// Bits not yet read.
    pub fn remaining(&self) -> usize {
        self.bits.len() - self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_field_is_most_significant() {
        let mut p = Packer::new();
        p.put(4, 0xA).put(32, 0x1234_5678).put(4, 0x5);
        let w: [u32; 2] = p.words();
        // 40 bits: A 12345678 5 -> 0xA_1234_5678_5
        assert_eq!(w, [0x2345_6785, 0xA1]);
        let mut u = Unpacker::new(&w, 40);
        assert_eq!((u.take(4), u.take(32), u.take(4)), (0xA, 0x1234_5678, 5));
        assert_eq!(u.remaining(), 0);
    }
}
