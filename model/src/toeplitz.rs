//! The Toeplitz hash of RSS, in its bit-serial definition, a table form and (with the `simd`
//! feature, on x86-64) carry-less products, plus the XOR hash (docs/reference.md §2).
//! [`Toeplitz`] is the fastest form this CPU runs; every form is proven equal to the bit-serial
//! one (tests/toeplitz.rs).
//!
//! For every input bit, most significant bit of byte 0 first, a set bit XORs into the result the
//! 32-bit window of the key that starts at that bit's position. A key of `k` bytes therefore
//! covers inputs of up to `k − 4` bytes: 36 for the usual 40-byte key (IPv6 addresses and ports).

use core::fmt;

#[cfg(all(feature = "simd", target_arch = "x86_64"))]
mod clmul;

/// The key of the public Microsoft/Intel RSS verification suite, also the common default.
pub const MICROSOFT_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// One row of the public RSS verification suite (Microsoft "Verifying the RSS hash
/// calculation", the 82599 datasheet §7.1.2.8.3, DPDK `app/test/test_thash.c`), for
/// [`MICROSOFT_KEY`]. Addresses of `N` bytes (4 or 16), ports in host order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerificationVector<const N: usize> {
    /// Source address.
    pub src: [u8; N],
    /// Source port.
    pub src_port: u16,
    /// Destination address.
    pub dst: [u8; N],
    /// Destination port.
    pub dst_port: u16,
    /// The hash of source and destination address.
    pub hash_l3: u32,
    /// The hash of both addresses and both ports.
    pub hash_l3l4: u32,
}

const fn v4(
    src: [u8; 4],
    src_port: u16,
    dst: [u8; 4],
    dst_port: u16,
    l3: u32,
    l3l4: u32,
) -> VerificationVector<4> {
    VerificationVector {
        src,
        src_port,
        dst,
        dst_port,
        hash_l3: l3,
        hash_l3l4: l3l4,
    }
}

const fn v6(
    src: [u16; 8],
    src_port: u16,
    dst: [u16; 8],
    dst_port: u16,
    l3: u32,
    l3l4: u32,
) -> VerificationVector<16> {
    const fn bytes(g: [u16; 8]) -> [u8; 16] {
        let mut out = [0u8; 16];
        let mut i = 0;
        while i < 8 {
            out[2 * i] = (g[i] >> 8) as u8;
            out[2 * i + 1] = g[i] as u8;
            i += 1;
        }
        out
    }
    VerificationVector {
        src: bytes(src),
        src_port,
        dst: bytes(dst),
        dst_port,
        hash_l3: l3,
        hash_l3l4: l3l4,
    }
}

/// The suite's IPv4 rows.
pub const VERIFICATION_IPV4: [VerificationVector<4>; 5] = [
    v4(
        [66, 9, 149, 187],
        2794,
        [161, 142, 100, 80],
        1766,
        0x323e_8fc2,
        0x51cc_c178,
    ),
    v4(
        [199, 92, 111, 2],
        14230,
        [65, 69, 140, 83],
        4739,
        0xd718_262a,
        0xc626_b0ea,
    ),
    v4(
        [24, 19, 198, 95],
        12898,
        [12, 22, 207, 184],
        38024,
        0xd2d0_a5de,
        0x5c2b_394a,
    ),
    v4(
        [38, 27, 205, 30],
        48228,
        [209, 142, 163, 6],
        2217,
        0x8298_9176,
        0xafc7_327f,
    ),
    v4(
        [153, 39, 163, 191],
        44251,
        [202, 188, 127, 2],
        1303,
        0x5d18_09c5,
        0x10e8_28a2,
    ),
];

/// The suite's IPv6 rows.
pub const VERIFICATION_IPV6: [VerificationVector<16>; 3] = [
    // 3ffe:2501:200:1fff::7 :2794 -> 3ffe:2501:200:3::1 :1766
    v6(
        [0x3ffe, 0x2501, 0x200, 0x1fff, 0, 0, 0, 7],
        2794,
        [0x3ffe, 0x2501, 0x200, 0x3, 0, 0, 0, 1],
        1766,
        0x2cc1_8cd5,
        0x4020_7d3d,
    ),
    // 3ffe:501:8::260:97ff:fe40:efab :14230 -> ff02::1 :4739
    v6(
        [0x3ffe, 0x501, 0x8, 0, 0x260, 0x97ff, 0xfe40, 0xefab],
        14230,
        [0xff02, 0, 0, 0, 0, 0, 0, 1],
        4739,
        0x0f0c_461c,
        0xdde5_1bbf,
    ),
    // 3ffe:1900:4545:3:200:f8ff:fe21:67cf :44251 -> fe80::200:f8ff:fe21:67cf :38024
    v6(
        [0x3ffe, 0x1900, 0x4545, 0x3, 0x200, 0xf8ff, 0xfe21, 0x67cf],
        44251,
        [0xfe80, 0, 0, 0, 0x200, 0xf8ff, 0xfe21, 0x67cf],
        38024,
        0x4b61_e985,
        0x02d1_feef,
    ),
];

/// The longest key the table form and the RTL take, in bytes (some NICs use 52).
pub const MAX_KEY_LEN: usize = 52;
/// The longest input the table form takes, in bytes.
pub const MAX_INPUT_LEN: usize = MAX_KEY_LEN - 4;

/// A key that makes the hash symmetric: `0x6d5a` repeated.
///
/// Every window of the key then repeats with a period of 16 bits, so swapping the 16-bit-aligned
/// source and destination fields of a tuple (addresses, ports) yields the same hash
/// (Woo & Park, 2012).
pub const fn symmetric_key<const N: usize>() -> [u8; N] {
    let mut key = [0u8; N];
    let mut i = 0;
    while i < N {
        key[i] = if i % 2 == 0 { 0x6d } else { 0x5a };
        i += 1;
    }
    key
}

/// Why a hash could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input has more bytes than the key covers (`key length − 4`).
    InputTooLong {
        /// Input length in bytes.
        input_len: usize,
        /// The longest input this key covers.
        max: usize,
    },
    /// The key is shorter than one 32-bit window, or longer than [`MAX_KEY_LEN`] for the table.
    BadKeyLength(usize),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InputTooLong { input_len, max } => write!(
                f,
                "input of {input_len} bytes is longer than the {max} bytes the key covers"
            ),
            Error::BadKeyLength(len) => write!(
                f,
                "a key of {len} byte{} is not supported: keys are 4 to {MAX_KEY_LEN} bytes",
                if *len == 1 { "" } else { "s" }
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

fn check_lengths(key_len: usize, input_len: usize) -> Result<(), Error> {
    if key_len < 4 {
        return Err(Error::BadKeyLength(key_len));
    }
    if input_len > key_len - 4 {
        return Err(Error::InputTooLong {
            input_len,
            max: key_len - 4,
        });
    }
    Ok(())
}

fn bit(bytes: &[u8], index: usize) -> u32 {
    u32::from(bytes[index / 8] >> (7 - index % 8) & 1)
}

/// The 32 key bits starting at bit `start` (bit 0 = MSB of byte 0), as the most significant first.
fn key_window(key: &[u8], start: usize) -> u32 {
    (0..32).fold(0, |w, j| (w << 1) | bit(key, start + j))
}

/// The bit-serial definition, literally: the specification the other forms are proven against.
///
/// Takes any key of 4 bytes or more and any input of up to `key.len() − 4` bytes.
pub fn hash_bitserial(key: &[u8], input: &[u8]) -> Result<u32, Error> {
    check_lengths(key.len(), input.len())?;
    Ok((0..input.len() * 8)
        .filter(|&i| bit(input, i) == 1)
        .fold(0, |h, i| h ^ key_window(key, i)))
}

/// The XOR hash: the input as 32-bit big-endian words (the last one zero-padded), XORed together.
///
/// With the usual field order (source address, destination address, source port, destination
/// port) it is symmetric for the addresses, but not for a port pair packed into one word.
pub fn hash_xor(input: &[u8]) -> u32 {
    input.chunks(4).fold(0, |h, chunk| {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        h ^ u32::from_be_bytes(word)
    })
}

/// The Toeplitz hash with a key precomputed into one 256-entry table per input byte position.
///
/// `table[i][v]` is the XOR of the key windows selected by byte value `v` at position `i`, so a
/// hash is one lookup and one XOR per input byte. The table is 48 KiB for a 52-byte key and
/// lives wherever the caller puts the struct (no allocation).
#[derive(Clone)]
pub struct ToeplitzTable {
    table: [[u32; 256]; MAX_INPUT_LEN],
    max_input: usize,
}

impl ToeplitzTable {
    /// Precomputes `key` (4..=[`MAX_KEY_LEN`] bytes).
    pub fn new(key: &[u8]) -> Result<Self, Error> {
        let mut this = ToeplitzTable {
            table: [[0; 256]; MAX_INPUT_LEN],
            max_input: 0,
        };
        this.set_key(key)?;
        Ok(this)
    }

    /// Replaces the key in place.
    pub fn set_key(&mut self, key: &[u8]) -> Result<(), Error> {
        if !(4..=MAX_KEY_LEN).contains(&key.len()) {
            return Err(Error::BadKeyLength(key.len()));
        }
        self.max_input = key.len() - 4;
        for (pos, row) in self.table.iter_mut().enumerate() {
            if pos >= self.max_input {
                *row = [0; 256];
                continue;
            }
            // Windows for the eight bits of this byte position, MSB first.
            let windows: [u32; 8] = core::array::from_fn(|b| key_window(key, pos * 8 + b));
            for (value, entry) in row.iter_mut().enumerate() {
                *entry = (0..8)
                    .filter(|b| value & (0x80 >> b) != 0)
                    .fold(0, |h, b| h ^ windows[b]);
            }
        }
        Ok(())
    }

    /// The longest input this key covers, in bytes.
    pub fn max_input_len(&self) -> usize {
        self.max_input
    }

    /// `InputTooLong` for an input longer than this key covers (every form's one check).
    fn check_input(&self, input_len: usize) -> Result<(), Error> {
        if input_len > self.max_input {
            return Err(Error::InputTooLong {
                input_len,
                max: self.max_input,
            });
        }
        Ok(())
    }

    /// Hashes `input` (up to [`Self::max_input_len`] bytes).
    #[inline]
    pub fn hash(&self, input: &[u8]) -> Result<u32, Error> {
        self.check_input(input.len())?;
        // Four independent XOR chains instead of one, so that the dependency chain is a quarter
        // as long and the lookups overlap.
        let mut acc = [0u32; 4];
        let mut bytes = input.chunks_exact(4);
        let mut rows = self.table.chunks_exact(4);
        for (quad, row) in (&mut bytes).zip(&mut rows) {
            for lane in 0..4 {
                acc[lane] ^= row[lane][usize::from(quad[lane])];
            }
        }
        for (lane, (&byte, row)) in bytes
            .remainder()
            .iter()
            .zip(rows.next().unwrap_or(&[]))
            .enumerate()
        {
            acc[lane] ^= row[usize::from(byte)];
        }
        Ok(acc[0] ^ acc[1] ^ acc[2] ^ acc[3])
    }
}

impl fmt::Debug for ToeplitzTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToeplitzTable")
            .field("max_input", &self.max_input)
            .finish_non_exhaustive()
    }
}

/// Which form a [`Toeplitz`] hashes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// [`ToeplitzTable`]: one lookup per input byte, in safe portable code.
    Table,
    /// Carry-less products, one per four input bytes (x86-64 PCLMULQDQ, `simd` feature).
    Clmul,
}

impl Form {
    /// The form's name in reports: `table` or `clmul`.
    pub fn name(self) -> &'static str {
        match self {
            Form::Table => "table",
            Form::Clmul => "clmul",
        }
    }
}

/// One call with an input shorter than this takes the table even where the carry-less form
/// runs: its products, the moves between register files and the final bit reversal cost more
/// than 20 table lookups (one AMD EPYC, Zen 3: at 12 bytes a carry-less call took 1.4 times the
/// table's, at 24 about the same, at 36 bytes 0.8 times). Bulk hashing with the 256-bit
/// carry-less multiply takes every length: two tuples per instruction beat the table at 12
/// bytes too (0.6 times; docs/rss.md#speed).
pub const CLMUL_FROM_LEN: usize = 21;

/// The Toeplitz hash in the fastest form this CPU runs: carry-less products for inputs of
/// [`CLMUL_FROM_LEN`] bytes or more (and in bulk for any length where the CPU multiplies 256
/// bits at once) where the `simd` feature is on and the CPU has them (asked once, when the key
/// is first set), the table otherwise. Every form gives the same hashes.
#[derive(Clone, Debug)]
pub struct Toeplitz {
    table: ToeplitzTable,
    #[cfg(all(feature = "simd", target_arch = "x86_64"))]
    clmul: Option<clmul::Keys>,
}

impl Toeplitz {
    /// Precomputes `key` (4..=[`MAX_KEY_LEN`] bytes) for the fastest forms available.
    pub fn new(key: &[u8]) -> Result<Self, Error> {
        #[allow(unused_mut)]
        let mut this = Self::portable(key)?;
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        if clmul::available() {
            this.clmul = Some(clmul::Keys::new(key));
        }
        Ok(this)
    }

    /// Precomputes `key` for the table form alone, whatever the CPU has (the fallback, and the
    /// form to compare with).
    pub fn portable(key: &[u8]) -> Result<Self, Error> {
        Ok(Toeplitz {
            table: ToeplitzTable::new(key)?,
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            clmul: None,
        })
    }

    /// Replaces the key in place, keeping the forms; on an error the old key stays.
    pub fn set_key(&mut self, key: &[u8]) -> Result<(), Error> {
        self.table.set_key(key)?;
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        if let Some(keys) = &mut self.clmul {
            *keys = clmul::Keys::new(key);
        }
        Ok(())
    }

    /// The fastest form this hasher has: [`Form::Clmul`] when it has the carry-less one (which
    /// then hashes inputs of [`CLMUL_FROM_LEN`] bytes or more).
    pub fn form(&self) -> Form {
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        if self.clmul.is_some() {
            return Form::Clmul;
        }
        Form::Table
    }

    /// The longest input this key covers, in bytes.
    pub fn max_input_len(&self) -> usize {
        self.table.max_input_len()
    }

    fn check_input(&self, input_len: usize) -> Result<(), Error> {
        self.table.check_input(input_len)
    }

    /// Hashes `input` (up to [`Self::max_input_len`] bytes).
    #[inline(always)]
    pub fn hash(&self, input: &[u8]) -> Result<u32, Error> {
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        if let (Some(keys), true) = (&self.clmul, input.len() >= CLMUL_FROM_LEN) {
            self.check_input(input.len())?;
            return Ok(clmul::hash(keys, input));
        }
        self.table.hash(input)
    }

    /// Hashes many tuples of one length into `out`, as DPDK's `rte_thash_gfni_bulk` does: one
    /// length check and one dispatch for the lot. `out` must be as long as `tuples`.
    pub fn hash_bulk<const N: usize>(
        &self,
        tuples: &[[u8; N]],
        out: &mut [u32],
    ) -> Result<(), Error> {
        self.check_input(N)?;
        assert_eq!(tuples.len(), out.len(), "one output per tuple");
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        if let Some(keys) = self
            .clmul
            .as_ref()
            .filter(|k| N >= CLMUL_FROM_LEN || k.wide())
        {
            clmul::hash_bulk(keys, tuples, out);
            return Ok(());
        }
        for (tuple, hash) in tuples.iter().zip(out) {
            *hash = self.table.hash(tuple)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_bits_select_key_windows() {
        let key = MICROSOFT_KEY;
        // The first input bit selects the first 32 key bits.
        assert_eq!(hash_bitserial(&key, &[0x80]), Ok(0x6d5a_56da));
        // The 8th bit selects the window starting at bit 7: 0x6d5a56da25 << 7, top 32 bits.
        let w = ((0x006d_5a56_da25_u64 << 7) >> 8) as u32;
        assert_eq!(hash_bitserial(&key, &[0x01]), Ok(w));
        assert_eq!(hash_bitserial(&key, &[]), Ok(0));
    }

    #[test]
    fn input_length_is_bounded_by_key() {
        let key = [0u8; 40];
        assert!(hash_bitserial(&key, &[0; 36]).is_ok());
        assert_eq!(
            hash_bitserial(&key, &[0; 37]),
            Err(Error::InputTooLong {
                input_len: 37,
                max: 36
            })
        );
        assert_eq!(hash_bitserial(&[0; 3], &[]), Err(Error::BadKeyLength(3)));
        assert_eq!(
            ToeplitzTable::new(&[0; 53]).unwrap_err(),
            Error::BadKeyLength(53)
        );
        let t = ToeplitzTable::new(&key).unwrap();
        assert!(t.hash(&[0; 37]).is_err());
    }

    #[test]
    fn xor_hash_by_hand() {
        assert_eq!(
            hash_xor(&[1, 2, 3, 4, 5, 6, 7, 8]),
            0x0102_0304 ^ 0x0506_0708
        );
        assert_eq!(hash_xor(&[0xAA]), 0xAA00_0000);
        assert_eq!(hash_xor(&[]), 0);
    }

    #[test]
    fn symmetric_key_pattern() {
        let k: [u8; 6] = symmetric_key();
        assert_eq!(k, [0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a]);
    }
}
