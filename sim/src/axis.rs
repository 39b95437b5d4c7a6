//! AXI-Stream beats as the benches see them, and the byte packing between frames and the
//! ports Verilator makes: one definition of a beat, its keep mask and lane order for every DUT.
//!
//! Lane order: byte `i` of a beat is in bits `[8i +: 8]` of `tdata`, so a port of up to 64 bits
//! is a little-endian integer and a wider one little-endian 32-bit words, lowest word first.

/// One beat of a byte stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// Every lane of the beat; lanes at and past `keep` are zero.
    pub data: Vec<u8>,
    /// Valid bytes: lanes `0..keep` (tkeep is contiguous from lane 0).
    pub keep: usize,
    /// `tlast`: the last beat of its packet.
    pub last: bool,
    /// `tuser` (the RSS pipeline: the frame came over the InfiniBand link layer).
    pub user: bool,
}

impl Beat {
    /// The valid bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data[..self.keep]
    }
}

/// Cuts a packet into beats of `lanes` bytes; no data is one empty last beat.
pub fn beats(packet: &[u8], lanes: usize, user: bool) -> Vec<Beat> {
    let n = packet.len().div_ceil(lanes).max(1);
    (0..n)
        .map(|i| {
            let chunk = packet
                .get(i * lanes..((i + 1) * lanes).min(packet.len()))
                .unwrap_or(&[]);
            let mut data = chunk.to_vec();
            data.resize(lanes, 0);
            Beat {
                data,
                keep: chunk.len(),
                last: i + 1 == n,
                user,
            }
        })
        .collect()
}

/// The tkeep of `n` valid lanes from lane 0.
pub fn keep_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The byte count of a tkeep of `lanes` lanes, if it is contiguous from lane 0.
pub fn keep_count(keep: u64, lanes: usize) -> Option<usize> {
    let n = keep.trailing_ones() as usize;
    let rest = if n >= 64 { 0 } else { keep >> n };
    (rest == 0 && n <= lanes).then_some(n)
}

/// Little-endian 32-bit words into bytes (as many as `out` holds; missing words read 0).
pub fn words_to_bytes(words: &[u32], out: &mut [u8]) {
    for (i, b) in out.iter_mut().enumerate() {
        *b = words.get(i / 4).map_or(0, |w| (w >> (8 * (i % 4))) as u8);
    }
}

/// Bytes into little-endian 32-bit words (words past the bytes are 0; extra bytes dropped).
pub fn bytes_to_words(bytes: &[u8], words: &mut [u32]) {
    words.fill(0);
    for (i, &b) in bytes.iter().enumerate().take(words.len() * 4) {
        words[i / 4] |= u32::from(b) << (8 * (i % 4));
    }
}

/// A port value of up to 64 bits into little-endian bytes (as many as `out` holds).
pub fn u64_to_bytes(v: u64, out: &mut [u8]) {
    for (i, b) in out.iter_mut().enumerate() {
        *b = if i < 8 { (v >> (8 * i)) as u8 } else { 0 };
    }
}

/// Up to eight little-endian bytes as a port value (extra bytes dropped).
pub fn bytes_to_u64(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |v, (i, &b)| v | u64::from(b) << (8 * i))
}

/// Bytes into the words of a `total`-byte vector that holds byte 0 in its top byte (the order
/// of keys, hash inputs and addresses, which RTL keeps as network-order vectors).
pub fn bytes_to_words_msb_first(bytes: &[u8], total: usize, words: &mut [u32]) {
    words.fill(0);
    for (i, &b) in bytes.iter().enumerate().take(total) {
        let bit = (total - 1 - i) * 8;
        words[bit / 32] |= u32::from(b) << (bit % 32);
    }
}

/// The bytes of a vector of `out.len()` bytes that holds byte 0 in its top byte.
pub fn words_to_bytes_msb_first(words: &[u32], out: &mut [u8]) {
    let total = out.len();
    for (i, b) in out.iter_mut().enumerate() {
        let bit = (total - 1 - i) * 8;
        *b = words.get(bit / 32).map_or(0, |w| (w >> (bit % 32)) as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beats_cover_the_packet_with_one_last() {
        let p: Vec<u8> = (1..=10).collect();
        let b = beats(&p, 4, true);
        assert_eq!(b.len(), 3);
        assert_eq!(b[2].data, vec![9, 10, 0, 0]);
        assert_eq!((b[2].keep, b[2].last, b[1].last), (2, true, false));
        assert!(b.iter().all(|x| x.user));
        let joined: Vec<u8> = b.iter().flat_map(|x| x.bytes().to_vec()).collect();
        assert_eq!(joined, p);
        let empty = beats(&[], 8, false);
        assert_eq!((empty.len(), empty[0].keep, empty[0].last), (1, 0, true));
    }

    #[test]
    fn keep_masks_round_trip_and_gaps_are_refused() {
        for n in 0..=64 {
            assert_eq!(keep_count(keep_mask(n), 64), Some(n));
        }
        assert_eq!(keep_count(0b101, 8), None);
        assert_eq!(keep_count(0xff, 4), None);
    }

    #[test]
    fn packing_round_trips_in_lane_order() {
        let bytes: Vec<u8> = (0..12).collect();
        let mut w = [0u32; 4];
        bytes_to_words(&bytes, &mut w);
        assert_eq!(w, [0x0302_0100, 0x0706_0504, 0x0b0a_0908, 0]);
        let mut back = [0xffu8; 16];
        words_to_bytes(&w, &mut back);
        assert_eq!(&back[..12], &bytes[..]);
        assert_eq!(&back[12..], &[0; 4]);
        assert_eq!(bytes_to_u64(&[1, 2, 3]), 0x0003_0201);
        let mut o = [0u8; 10];
        u64_to_bytes(0x0807_0605_0403_0201, &mut o);
        assert_eq!(o, [1, 2, 3, 4, 5, 6, 7, 8, 0, 0]);
    }

    #[test]
    fn network_order_vectors_hold_byte_0_on_top() {
        let mut w = [0u32; 2];
        bytes_to_words_msb_first(&[0xaa, 0xbb], 6, &mut w);
        // Byte 0 in bits [47:40], byte 1 in [39:32].
        assert_eq!(w, [0, 0xaabb]);
        let mut back = [0u8; 6];
        words_to_bytes_msb_first(&w, &mut back);
        assert_eq!(back, [0xaa, 0xbb, 0, 0, 0, 0]);
    }
}
