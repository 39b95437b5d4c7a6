//! 24-bit packet sequence numbers, compared modulo 2^24 (docs/reference.md §7).

use core::fmt;

/// A packet sequence number: always below 2^24.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Psn(u32);

impl Psn {
    /// The PSN field's mask.
    pub const MASK: u32 = 0x00FF_FFFF;
    /// Half the PSN space: a PSN is "after" another when less than this far ahead.
    pub const HALF: u32 = 1 << 23;

    /// A PSN, if `v` fits in 24 bits.
    pub const fn new(v: u32) -> Option<Psn> {
        if v <= Self::MASK {
            Some(Psn(v))
        } else {
            None
        }
    }

    /// The low 24 bits of `v` (what a BTH field holds).
    pub const fn from_bits_truncate(v: u32) -> Psn {
        Psn(v & Self::MASK)
    }

    /// The value, below 2^24.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// `self + n` modulo 2^24; any `n`.
    pub const fn add(self, n: u32) -> Psn {
        Psn(self.0.wrapping_add(n) & Self::MASK)
    }

    /// The next PSN.
    pub const fn next(self) -> Psn {
        self.add(1)
    }

    /// `(self - earlier) mod 2^24`: how far `self` lies ahead of `earlier`.
    pub const fn distance_from(self, earlier: Psn) -> u32 {
        self.0.wrapping_sub(earlier.0) & Self::MASK
    }

    /// Whether `self` comes after `other`: `(self - other) mod 2^24` in `1..2^23`.
    pub const fn is_after(self, other: Psn) -> bool {
        let d = self.distance_from(other);
        d != 0 && d < Self::HALF
    }

    /// Whether `self` comes before `other`.
    pub const fn is_before(self, other: Psn) -> bool {
        other.is_after(self)
    }
}

impl fmt::Display for Psn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#08x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range() {
        assert_eq!(Psn::new(Psn::MASK).map(Psn::get), Some(0xFF_FFFF));
        assert_eq!(Psn::new(1 << 24), None);
        assert_eq!(Psn::from_bits_truncate(0x1234_5678).get(), 0x34_5678);
    }

    #[test]
    fn wraps() {
        let top = Psn::new(Psn::MASK).unwrap();
        assert_eq!(top.next().get(), 0);
        assert_eq!(top.add(u32::MAX).get(), Psn::MASK - 1);
        assert_eq!(Psn::default().add(3).distance_from(top), 4);
    }

    #[test]
    fn ordering_modulo() {
        let a = Psn::new(0xFF_FFFE).unwrap();
        let b = Psn::new(1).unwrap();
        assert!(b.is_after(a) && a.is_before(b) && !a.is_after(b));
        assert!(!a.is_after(a) && !a.is_before(a));
        let zero = Psn::default();
        // Exactly half way apart, neither is after the other.
        let half = zero.add(Psn::HALF);
        assert!(!half.is_after(zero) && !zero.is_after(half));
        assert!(zero.add(Psn::HALF - 1).is_after(zero));
        assert!(zero.is_after(zero.add(Psn::HALF + 1)));
    }
}
