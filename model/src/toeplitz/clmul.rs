//! The Toeplitz hash as carry-less products, on x86-64 CPUs with PCLMULQDQ (`simd` feature).
//!
//! Why a product: bit `r` of the hash (0 = most significant) is the XOR over the input bits
//! `b_i` of `b_i · k_(i+r)`, a correlation of the input with the key. Take four input bytes as
//! the big-endian word `w` (bit `m` of the chunk at power `31 − m`) and the next 63 key bits
//! reversed (key bit `32j + t` at power `t`). In their carry-less product the power `31 + r`
//! gathers exactly the pairs with `t = m + r`, so bits 31..62 of the product are this chunk's
//! share of the hash, least significant bit first. XOR is linear: the products of every chunk
//! are summed first and the 32 bits taken and reversed once.
//!
//! One product per four input bytes: three for an IPv4 4-tuple, nine for IPv6. The precomputed
//! key is twelve words rather than the table form's 48 KiB, so it stays in L1 beside anything.

use super::MAX_INPUT_LEN;
use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_cvtsi64_si128, _mm_set_epi64x,
    _mm_setzero_si128, _mm_shuffle_epi8, _mm_xor_si128,
};

/// Input bytes per carry-less product.
const CHUNK: usize = 4;

/// The key as one reversed 63-bit window per 4-byte input chunk, two chunks (8 input bytes) to
/// a pair so that one 16-byte load brings both.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    pairs: [[u64; 2]; MAX_INPUT_LEN / (2 * CHUNK)],
}

impl Keys {
    /// Precomputes `key`, whose length the caller has checked (4..=MAX_KEY_LEN bytes).
    pub(super) fn new(key: &[u8]) -> Self {
        let key_bits = key.len() * 8;
        let bit = |i: usize| u64::from(i < key_bits && key[i / 8] & (0x80 >> (i % 8)) != 0);
        let window = |j: usize| (0..63).fold(0, |w, t| w | bit(j * CHUNK * 8 + t) << t);
        Keys {
            pairs: core::array::from_fn(|p| [window(2 * p), window(2 * p + 1)]),
        }
    }
}

/// Whether this CPU has the carry-less multiply and the byte shuffle (asked once per key, by
/// `Toeplitz::new`).
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("pclmulqdq") && std::arch::is_x86_feature_detected!("ssse3")
}

/// One tuple's hash; `input` is at most `MAX_INPUT_LEN` bytes and no longer than the key covers
/// (checked by the caller: the key's windows past its end are zero, so nothing reads past them).
#[inline(always)]
pub(super) fn hash(keys: &Keys, input: &[u8]) -> u32 {
    debug_assert!(available() && input.len() <= MAX_INPUT_LEN);
    // SAFETY: `Toeplitz` builds `Keys` only after `available()` returned true on this CPU, so
    // the instructions `hash_one` is compiled with exist.
    #[allow(unsafe_code)]
    unsafe {
        hash_one(keys, input)
    }
}

/// Hashes every tuple of `tuples` into `out` (same length, checked by the caller).
pub(super) fn hash_bulk<const N: usize>(keys: &Keys, tuples: &[[u8; N]], out: &mut [u32]) {
    debug_assert!(available() && N <= MAX_INPUT_LEN && tuples.len() == out.len());
    // SAFETY: as in `hash`.
    #[allow(unsafe_code)]
    unsafe {
        hash_many(keys, tuples, out)
    }
}

#[target_feature(enable = "pclmulqdq,ssse3")]
fn hash_one(keys: &Keys, input: &[u8]) -> u32 {
    // The usual tuples as straight-line code: IPv6 addresses, with ports, and with the QPN.
    match input.len() {
        32 => hash_inline(keys, &input[..32]),
        36 => hash_inline(keys, &input[..36]),
        40 => hash_inline(keys, &input[..40]),
        _ => hash_inline(keys, input),
    }
}

#[target_feature(enable = "pclmulqdq,ssse3")]
fn hash_many<const N: usize>(keys: &Keys, tuples: &[[u8; N]], out: &mut [u32]) {
    for (tuple, hash) in tuples.iter().zip(out) {
        // N is a constant: each tuple is straight-line code, and the CPU overlaps the
        // independent products of neighbouring tuples.
        *hash = hash_inline(keys, tuple);
    }
}

#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
fn hash_inline(keys: &Keys, input: &[u8]) -> u32 {
    let mut acc = _mm_setzero_si128();
    let mut pieces = input.chunks_exact(2 * CHUNK);
    let mut pairs = keys.pairs.iter();
    for (piece, pair) in (&mut pieces).zip(&mut pairs) {
        let word = u64::from_le_bytes(piece.try_into().unwrap_or_default());
        acc = _mm_xor_si128(acc, products(spread(word, TAIL[0]), pair));
    }
    let rest = pieces.remainder();
    if let (false, Some(pair)) = (rest.is_empty(), pairs.next()) {
        let chunks = match input.len().checked_sub(2 * CHUNK) {
            // The last 8 bytes, of which the shuffle keeps only the unhashed ones.
            Some(start) => {
                let last = u64::from_le_bytes(input[start..].try_into().unwrap_or_default());
                spread(last, TAIL[rest.len()])
            }
            // Inputs shorter than 8 bytes, built byte by byte.
            None => {
                let word = rest
                    .iter()
                    .enumerate()
                    .fold(0, |w, (i, &b)| w | u64::from(b) << (8 * i));
                spread(word, TAIL[0])
            }
        };
        acc = _mm_xor_si128(acc, products(chunks, pair));
    }
    // Bits 31..62 of the summed products, least significant first, are the hash.
    ((_mm_cvtsi128_si64(acc) as u64 >> 31) as u32).reverse_bits()
}

/// Shuffles for `spread`, by the number of bytes that are left at the top of the 8 loaded (0
/// meaning all 8): each 4-byte chunk big-endian in the low half of its own 64-bit lane, zeros
/// above and in place of the bytes already hashed. An index of 0x80 or more writes a zero.
const TAIL: [[u8; 16]; 8] = {
    let mut masks = [[0x80u8; 16]; 8];
    let mut left = 0;
    while left < 8 {
        let skip = (8 - left) % 8;
        let mut lane = 0;
        while lane < 2 {
            let mut byte = 0;
            while byte < 4 {
                // Chunk byte `byte` (0 = most significant) of lane `lane`.
                let from = skip + 4 * lane + byte;
                if from < 8 {
                    masks[left][8 * lane + 3 - byte] = from as u8;
                }
                byte += 1;
            }
            lane += 1;
        }
        left += 1;
    }
    masks
};

/// 8 input bytes (loaded little-endian) as two chunks, one per 64-bit lane, by a `TAIL` mask.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
fn spread(word: u64, mask: [u8; 16]) -> __m128i {
    // The casts keep the bits: the intrinsics take signed integers.
    let mask = _mm_set_epi64x(
        u64::from_le_bytes([
            mask[8], mask[9], mask[10], mask[11], mask[12], mask[13], mask[14], mask[15],
        ]) as i64,
        u64::from_le_bytes([
            mask[0], mask[1], mask[2], mask[3], mask[4], mask[5], mask[6], mask[7],
        ]) as i64,
    );
    _mm_shuffle_epi8(_mm_cvtsi64_si128(word as i64), mask)
}

/// The carry-less products of two spread chunks with their two key windows, summed.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3")]
fn products(chunks: __m128i, pair: &[u64; 2]) -> __m128i {
    let windows = _mm_set_epi64x(pair[1] as i64, pair[0] as i64);
    _mm_xor_si128(
        _mm_clmulepi64_si128::<0x00>(chunks, windows),
        _mm_clmulepi64_si128::<0x11>(chunks, windows),
    )
}
