//! The Internet checksum (RFC 1071) and the TCP/UDP pseudo-header.
//!
//! Sums here are *folded, not inverted* 16-bit one's-complement sums; the checksum written into a
//! header is the complement of the sum ([`finish`]). A received header checks out when the sum
//! over it, checksum field included (plus the pseudo-header for TCP/UDP), is `0xFFFF`.
//!
//! When a sum is split over several slices with [`combine`] or [`add`], every slice but the last
//! must have an even length (each must start at an even offset of the whole), as RFC 1071 says.

use super::ipv4::Ipv4Address;
use super::ipv6::Ipv6Address;

/// One's-complement addition of two folded sums.
#[inline]
pub fn add(a: u16, b: u16) -> u16 {
    let s = u32::from(a) + u32::from(b);
    ((s & 0xFFFF) + (s >> 16)) as u16
}

/// One's-complement sum of several folded sums.
pub fn combine(sums: &[u16]) -> u16 {
    sums.iter().fold(0, |acc, &s| add(acc, s))
}

/// Folds a wide one's-complement accumulator down to 16 bits.
#[inline]
fn fold64(mut acc: u64) -> u16 {
    acc = (acc & 0xFFFF_FFFF) + (acc >> 32);
    acc = (acc & 0xFFFF_FFFF) + (acc >> 32);
    let mut s = ((acc & 0xFFFF) + (acc >> 16)) as u32;
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    s as u16
}

/// Folded one's-complement sum of `data` read as big-endian 16-bit words; an odd last byte is
/// padded with a zero low byte. Sums eight bytes at a time with end-around carry.
pub fn sum(data: &[u8]) -> u16 {
    let mut acc: u64 = 0;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let (s, carry) = acc.overflowing_add(w);
        acc = s + u64::from(carry);
    }
    let rest = chunks.remainder();
    let mut tail = [0u8; 8];
    tail[..rest.len()].copy_from_slice(rest);
    let w = u64::from_be_bytes(tail);
    let (s, carry) = acc.overflowing_add(w);
    acc = s + u64::from(carry);
    fold64(acc)
}

/// The checksum field value for a folded sum: its complement.
#[inline]
pub fn finish(sum: u16) -> u16 {
    !sum
}

/// The Internet checksum of `data` (the complement of [`sum`]): what goes into an IPv4 header
/// whose checksum field was zero while summing.
#[inline]
pub fn checksum(data: &[u8]) -> u16 {
    finish(sum(data))
}

/// The IP pseudo-header that TCP and UDP checksums cover, without its length (the upper-layer
/// length is given when summing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpPseudo {
    /// IPv4: source, destination, zero, protocol, upper-layer length (16 bits).
    V4 {
        /// Source address.
        src: Ipv4Address,
        /// Destination address.
        dst: Ipv4Address,
        /// IP protocol (6 TCP, 17 UDP).
        protocol: u8,
    },
    /// IPv6 (RFC 8200 §8.1): source, destination, upper-layer length (32 bits), zero, next header.
    V6 {
        /// Source address.
        src: Ipv6Address,
        /// Destination address.
        dst: Ipv6Address,
        /// Upper-layer protocol (the final next header after extension headers).
        next_header: u8,
    },
}

impl IpPseudo {
    /// Folded sum of the pseudo-header for an upper-layer packet of `upper_len` bytes (IPv4's
    /// pseudo-header holds the length in 16 bits: only the low 16 bits of `upper_len` count).
    pub fn sum(&self, upper_len: u32) -> u16 {
        match self {
            IpPseudo::V4 { src, dst, protocol } => {
                let a = sum(&src.0);
                let b = sum(&dst.0);
                // The IPv4 pseudo-header carries the length in 16 bits.
                let rest = u32::from(*protocol) + (upper_len & 0xFFFF);
                combine(&[a, b, fold64(u64::from(rest))])
            }
            IpPseudo::V6 {
                src,
                dst,
                next_header,
            } => {
                let a = sum(&src.0);
                let b = sum(&dst.0);
                let rest = u64::from(upper_len >> 16)
                    + u64::from(upper_len & 0xFFFF)
                    + u64::from(*next_header);
                combine(&[a, b, fold64(rest)])
            }
        }
    }

    /// True for an IPv4 pseudo-header (where a UDP checksum of 0 means "none").
    pub fn is_ipv4(&self) -> bool {
        matches!(self, IpPseudo::V4 { .. })
    }

    /// Folded sum of pseudo-header plus `upper` (the whole TCP segment or UDP datagram).
    ///
    /// The length goes in modulo 2^32, as IPv6's 32-bit field holds it: no IP packet is longer
    /// (and IPv4 keeps its low 16 bits, see [`Self::sum`]).
    pub fn sum_with(&self, upper: &[u8]) -> u16 {
        add(self.sum(upper.len() as u32), sum(upper))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytewise reference: sum 16-bit words one by one.
    fn slow(data: &[u8]) -> u16 {
        let mut s: u32 = 0;
        for c in data.chunks(2) {
            let w = if c.len() == 2 {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], 0])
            };
            s += u32::from(w);
            s = (s & 0xFFFF) + (s >> 16);
        }
        s as u16
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3: words 0001 f203 f4f5 f6f7 sum to ddf2 (folded).
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(sum(&d), 0xddf2);
        assert_eq!(checksum(&d), !0xddf2);
    }

    #[test]
    fn matches_slow_on_many_lengths() {
        let mut data = [0u8; 300];
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(197).wrapping_add(0xA5);
        }
        for n in 0..data.len() {
            assert_eq!(sum(&data[..n]), slow(&data[..n]), "length {n}");
        }
        let ff = [0xFFu8; 64];
        for n in 0..ff.len() {
            assert_eq!(sum(&ff[..n]), slow(&ff[..n]), "ones, length {n}");
        }
    }

    #[test]
    fn combine_even_splits() {
        let data: [u8; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(combine(&[sum(&data[..4]), sum(&data[4..])]), sum(&data));
    }
}
