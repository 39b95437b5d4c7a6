//! What a faulty link does to each frame: lose it, flip one of its bits, or deliver it twice,
//! with seeded probabilities (docs/rc.md, "The link's faults"). A frame's fate is a pure
//! function of the seed, its direction and its place in that direction's stream, not of the
//! order anything else draws random numbers in: so the co-simulated cores' wire
//! (`sim::link`), the model NICs' wire behind the driver and `rocenic sim`'s wire, given the
//! same seed and the same frames in the same order, do the same thing to each.

/// The probabilities of a link's faults, each frame, each way.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Faults {
    /// The frame is lost.
    pub loss: f64,
    /// One bit of it is flipped (a receiver's ICRC or FCS check then refuses it).
    pub corrupt: f64,
    /// It is delivered twice, back to back.
    pub duplicate: f64,
}

/// What happens to one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Delivered as sent.
    Pass,
    /// Lost.
    Lost,
    /// Delivered with bit `bit % 8` of byte `bit / 8` flipped.
    Corrupt {
        /// The bit flipped, counted from the first byte's least significant bit.
        bit: u64,
    },
    /// Delivered twice.
    Duplicate,
}

/// SplitMix64's finaliser: every input bit reaches every output bit.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform number in `[0, 1)` from 53 bits of `x`.
fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

impl Faults {
    /// No faults.
    pub const NONE: Faults = Faults {
        loss: 0.0,
        corrupt: 0.0,
        duplicate: 0.0,
    };

    /// Whether every probability is in `0..=1`.
    pub fn valid(&self) -> bool {
        [self.loss, self.corrupt, self.duplicate]
            .iter()
            .all(|p| (0.0..=1.0).contains(p))
    }

    /// The fate of frame `index` (counted from 0) of direction `dir` of a link seeded `seed`,
    /// the frame `len` bytes long. Loss is drawn first, then corruption (a frame of 0 bytes has
    /// no bit to flip), then duplication; each from its own bits of the hash.
    pub fn fate(&self, seed: u64, dir: u8, index: u64, len: usize) -> Fate {
        let base = mix(seed ^ mix(u64::from(dir) << 56 ^ index));
        let draw = |k: u64| mix(base ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if self.loss > 0.0 && unit(draw(1)) < self.loss {
            return Fate::Lost;
        }
        if self.corrupt > 0.0 && len > 0 && unit(draw(2)) < self.corrupt {
            return Fate::Corrupt {
                bit: draw(3) % (len as u64 * 8),
            };
        }
        if self.duplicate > 0.0 && unit(draw(4)) < self.duplicate {
            return Fate::Duplicate;
        }
        Fate::Pass
    }
}

impl Fate {
    /// Applies a corruption to `frame` (nothing for the other fates).
    pub fn apply(&self, frame: &mut [u8]) {
        if let Fate::Corrupt { bit } = *self {
            frame[(bit / 8) as usize] ^= 1 << (bit % 8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(f: &Faults, seed: u64, dir: u8, n: u64) -> [u64; 4] {
        let mut c = [0u64; 4];
        for i in 0..n {
            c[match f.fate(seed, dir, i, 100) {
                Fate::Pass => 0,
                Fate::Lost => 1,
                Fate::Corrupt { bit } => {
                    assert!(bit < 800);
                    2
                }
                Fate::Duplicate => 3,
            }] += 1;
        }
        c
    }

    /// The fates follow their probabilities, differ by seed and direction, and are the same
    /// for the same frame whenever asked.
    #[test]
    fn fates_at_their_rates() {
        let f = Faults {
            loss: 0.1,
            corrupt: 0.05,
            duplicate: 0.02,
        };
        let c = count(&f, 7, 0, 20_000);
        assert!((1800..2200).contains(&c[1]), "{c:?}");
        // Corruption and duplication are drawn among the frames not lost.
        assert!((780..1020).contains(&c[2]), "{c:?}");
        assert!((270..450).contains(&c[3]), "{c:?}");
        assert_eq!(count(&f, 7, 0, 20_000), c);
        assert_ne!(count(&f, 8, 0, 20_000), c);
        assert_ne!(count(&f, 7, 1, 20_000), c);
        assert_eq!(f.fate(7, 0, 12_345, 100), f.fate(7, 0, 12_345, 100));
        assert_eq!(count(&Faults::NONE, 7, 0, 1000), [1000, 0, 0, 0]);
        let all = Faults {
            loss: 1.0,
            ..Faults::NONE
        };
        assert_eq!(count(&all, 3, 1, 100)[1], 100);
    }

    /// A corruption flips exactly the bit it names; an empty frame is never corrupted.
    #[test]
    fn corruption_flips_one_bit() {
        let f = Faults {
            corrupt: 1.0,
            ..Faults::NONE
        };
        for i in 0..200 {
            let fate = f.fate(1, 0, i, 60);
            let mut frame = [0u8; 60];
            fate.apply(&mut frame);
            let ones: u32 = frame.iter().map(|b| b.count_ones()).sum();
            assert_eq!(ones, 1, "{fate:?}");
        }
        assert_eq!(f.fate(1, 0, 0, 0), Fate::Pass);
        assert!(!Faults {
            loss: 1.5,
            ..Faults::NONE
        }
        .valid());
    }
}
