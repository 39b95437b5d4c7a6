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
//! In bulk, CPUs with VPCLMULQDQ and AVX2 hash two tuples at once, one per 128-bit lane: one
//! instruction makes two products, at the rate the 128-bit form makes one.

use super::MAX_INPUT_LEN;
use core::arch::x86_64::{
    __m128i, __m256i, _mm256_clmulepi64_epi128, _mm256_extract_epi64, _mm256_set_epi64x,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_xor_si256, _mm_clmulepi64_si128,
    _mm_cvtsi128_si64, _mm_cvtsi64_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi8,
    _mm_xor_si128,
};

/// Input bytes per carry-less product.
const CHUNK: usize = 4;

/// The key as one reversed 63-bit window per 4-byte input chunk, two chunks (8 input bytes) to
/// a pair so that one 16-byte load brings both.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    pairs: [[u64; 2]; MAX_INPUT_LEN / (2 * CHUNK)],
    /// The CPU has the 256-bit carry-less multiply (asked with the key).
    wide: bool,
}

impl Keys {
    /// Precomputes `key`, whose length the caller has checked (4..=MAX_KEY_LEN bytes).
    pub(super) fn new(key: &[u8]) -> Self {
        let key_bits = key.len() * 8;
        let bit = |i: usize| u64::from(i < key_bits && key[i / 8] & (0x80 >> (i % 8)) != 0);
        let window = |j: usize| (0..63).fold(0, |w, t| w | bit(j * CHUNK * 8 + t) << t);
        Keys {
            pairs: core::array::from_fn(|p| [window(2 * p), window(2 * p + 1)]),
            wide: std::arch::is_x86_feature_detected!("vpclmulqdq")
                && std::arch::is_x86_feature_detected!("avx2"),
        }
    }
}

impl Keys {
    /// Whether bulk hashing makes two products per instruction.
    pub(super) fn wide(&self) -> bool {
        self.wide
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
    if keys.wide {
        // SAFETY: as in `hash`, and `wide` is set only where the CPU has VPCLMULQDQ and AVX2.
        #[allow(unsafe_code)]
        unsafe {
            hash_many_wide(keys, tuples, out)
        }
    } else {
        // SAFETY: as in `hash`.
        #[allow(unsafe_code)]
        unsafe {
            hash_many(keys, tuples, out)
        }
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

#[target_feature(enable = "pclmulqdq,ssse3,vpclmulqdq,avx2")]
fn hash_many_wide<const N: usize>(keys: &Keys, tuples: &[[u8; N]], out: &mut [u32]) {
    let mut pairs = tuples.chunks_exact(2);
    let mut outs = out.chunks_exact_mut(2);
    for (two, hashes) in (&mut pairs).zip(&mut outs) {
        let [a, b] = hash_two(keys, &two[0], &two[1]);
        hashes[0] = a;
        hashes[1] = b;
    }
    if let ([last], [hash]) = (pairs.remainder(), outs.into_remainder()) {
        *hash = hash_inline(keys, last);
    }
}

/// Two tuples' hashes, `a` in the low 128-bit lane and `b` in the high one.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3,vpclmulqdq,avx2")]
fn hash_two<const N: usize>(keys: &Keys, a: &[u8; N], b: &[u8; N]) -> [u32; 2] {
    let load = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or_default());
    let mut acc = _mm256_setzero_si256();
    let full = N / (2 * CHUNK);
    for (p, pair) in keys.pairs.iter().enumerate().take(full) {
        let at = p * 2 * CHUNK..(p + 1) * 2 * CHUNK;
        let words = (load(&a[at.clone()]), load(&b[at]));
        acc = _mm256_xor_si256(acc, products_wide(words, TAIL[0], pair));
    }
    let rest = N % (2 * CHUNK);
    if rest != 0 {
        match keys.pairs.get(full) {
            // The last 8 bytes of each, of which the shuffle keeps only the unhashed ones.
            Some(pair) if N >= 2 * CHUNK => {
                let at = N - 2 * CHUNK..N;
                let words = (load(&a[at.clone()]), load(&b[at]));
                acc = _mm256_xor_si256(acc, products_wide(words, TAIL[rest], pair));
            }
            _ => return [hash_inline(keys, a), hash_inline(keys, b)],
        }
    }
    let hash = |lane: i64| ((lane as u64 >> 31) as u32).reverse_bits();
    [
        hash(_mm256_extract_epi64::<0>(acc)),
        hash(_mm256_extract_epi64::<2>(acc)),
    ]
}

/// `products` for two tuples' 8 bytes at once, one per 128-bit lane.
#[inline]
#[target_feature(enable = "pclmulqdq,ssse3,vpclmulqdq,avx2")]
fn products_wide(words: (u64, u64), mask: [u8; 16], pair: &[u64; 2]) -> __m256i {
    let (low, high) = mask_halves(mask);
    // The casts keep the bits: the intrinsics take signed integers.
    let chunks = _mm256_shuffle_epi8(
        _mm256_set_epi64x(0, words.1 as i64, 0, words.0 as i64),
        _mm256_set_epi64x(high, low, high, low),
    );
    let (k0, k1) = (pair[0] as i64, pair[1] as i64);
    let windows = _mm256_set_epi64x(k1, k0, k1, k0);
    _mm256_xor_si256(
        _mm256_clmulepi64_epi128::<0x00>(chunks, windows),
        _mm256_clmulepi64_epi128::<0x11>(chunks, windows),
    )
}

/// A `TAIL` mask as its low and high 64-bit halves (signed: the intrinsics take them so).
#[inline]
fn mask_halves(mask: [u8; 16]) -> (i64, i64) {
    let half = |h: usize| u64::from_le_bytes(mask[8 * h..8 * h + 8].try_into().unwrap_or_default());
    (half(0) as i64, half(1) as i64)
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
    let (low, high) = mask_halves(mask);
    // The casts keep the bits: the intrinsics take signed integers.
    _mm_shuffle_epi8(_mm_cvtsi64_si128(word as i64), _mm_set_epi64x(high, low))
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
