//! `toeplitz`: key and input lengths at and past every limit; the forms against each other and
//! against the definition.

use crate::config;
use proptest::prelude::*;
use rocenic_model::toeplitz::*;

/// Lengths around the limits of keys (4..=52) and inputs (key − 4).
fn key_len() -> impl Strategy<Value = usize> {
    prop::sample::select(vec![
        0,
        1,
        3,
        4,
        5,
        8,
        40,
        MAX_KEY_LEN - 1,
        MAX_KEY_LEN,
        MAX_KEY_LEN + 1,
        100,
    ])
}

/// The definition, one key bit at a time in u128: a set input bit `i` XORs in the 32 key bits
/// from bit `i` on.
fn reference(key: &[u8], input: &[u8]) -> u32 {
    let key_bit = |i: usize| u128::from(key[i / 8] >> (7 - i % 8) & 1);
    let mut h = 0u128;
    for i in 0..input.len() * 8 {
        if input[i / 8] >> (7 - i % 8) & 1 == 1 {
            h ^= (0..32).fold(0, |w, j| (w << 1) | key_bit(i + j));
        }
    }
    h as u32
}

proptest! {
    #![proptest_config(config("toeplitz::lengths", 384))]

    /// Errors exactly when the key is under 4 bytes (or over 52 for the table) or the input
    /// longer than the key covers; otherwise both forms give the definition's hash.
    #[test]
    fn errors_exactly_out_of_range(
        klen in key_len(),
        extra in prop::sample::select(vec![-5i64, -4, -3, -1, 0, 1, 2, 60]),
        seed in any::<u64>(),
    ) {
        let fill = |n: usize, salt: u64| -> Vec<u8> {
            (0..n).map(|i| (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 57)) as u8 ^ salt as u8 ^ i as u8).collect()
        };
        let key = fill(klen, 1);
        let ilen = (klen as i64 + extra).max(0) as usize;
        let input = fill(ilen, 2);
        let bitserial = hash_bitserial(&key, &input);
        if klen < 4 {
            prop_assert_eq!(bitserial, Err(Error::BadKeyLength(klen)));
        } else if ilen > klen - 4 {
            prop_assert_eq!(bitserial, Err(Error::InputTooLong { input_len: ilen, max: klen - 4 }));
        } else {
            prop_assert_eq!(bitserial, Ok(reference(&key, &input)));
        }
        match ToeplitzTable::new(&key) {
            Ok(t) => {
                prop_assert!((4..=MAX_KEY_LEN).contains(&klen));
                prop_assert_eq!(t.max_input_len(), klen - 4);
                prop_assert_eq!(t.hash(&input), bitserial);
            }
            Err(e) => {
                prop_assert!(!(4..=MAX_KEY_LEN).contains(&klen));
                prop_assert_eq!(e, Error::BadKeyLength(klen));
            }
        }
    }

    /// The XOR hash of any length: byte `i` lands at bits `24 − 8·(i mod 4)` of the result.
    #[test]
    fn xor_hash_by_definition(input in prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], 0..80)) {
        let want = input
            .iter()
            .enumerate()
            .fold(0u128, |h, (i, &b)| h ^ (u128::from(b) << (24 - 8 * (i % 4))));
        prop_assert_eq!(u128::from(hash_xor(&input)), want);
    }
}

#[test]
fn all_ones_key_and_input_at_the_longest() {
    let key = [0xFF; MAX_KEY_LEN];
    let input = [0xFF; MAX_INPUT_LEN];
    // Every window of an all-ones key is all ones; an even number of them cancels out.
    let want = if (MAX_INPUT_LEN * 8).is_multiple_of(2) {
        0
    } else {
        u32::MAX
    };
    assert_eq!(hash_bitserial(&key, &input), Ok(want));
    assert_eq!(ToeplitzTable::new(&key).unwrap().hash(&input), Ok(want));
}
