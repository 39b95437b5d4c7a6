//! The Internet checksum at its carries: all-ones words, sums that wrap many times, and
//! pseudo-header lengths of any 32-bit value, against the RFC 1071 sum in u128.

use crate::{config, edge_u16, edge_u32, edge_u8};
use proptest::prelude::*;
use rocenic_model::wire::checksum::{self, IpPseudo};
use rocenic_model::wire::{Ipv4Address, Ipv6Address};

/// The folded one's-complement sum of an integer sum: 0 only for 0, else in 1..=0xFFFF.
fn fold(s: u128) -> u16 {
    if s == 0 {
        0
    } else {
        ((s - 1) % 0xFFFF + 1) as u16
    }
}

/// The big-endian 16-bit words of `data` (an odd last byte padded with a zero), summed in u128.
fn words(data: &[u8]) -> u128 {
    data.chunks(2)
        .map(|c| u128::from(c[0]) << 8 | u128::from(*c.get(1).unwrap_or(&0)))
        .sum()
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![Just(0u8), Just(0xFF), edge_u8()], 0..300)
}

proptest! {
    #![proptest_config(config("wire::checksum", 512))]

    #[test]
    fn sums_match_u128(data in bytes(), a in edge_u16(), b in edge_u16(), parts in prop::collection::vec(edge_u16(), 0..40)) {
        prop_assert_eq!(checksum::sum(&data), fold(words(&data)));
        prop_assert_eq!(checksum::checksum(&data), !fold(words(&data)));
        // Folded sums add as their integers do.
        prop_assert_eq!(checksum::add(a, b), fold(u128::from(a) + u128::from(b)));
        let total: u128 = parts.iter().map(|&p| u128::from(p)).sum();
        prop_assert_eq!(checksum::combine(&parts), fold(total));
        // Split at an even offset, the halves combine to the whole.
        let at = (data.len() / 2) & !1;
        prop_assert_eq!(checksum::add(checksum::sum(&data[..at]), checksum::sum(&data[at..])), checksum::sum(&data));
    }

    /// The pseudo-headers of RFC 768/793 (IPv4, 16-bit length) and RFC 8200 §8.1 (IPv6, 32-bit
    /// length) for any length and protocol.
    #[test]
    fn pseudo_header_sums(
        upper_len in edge_u32(),
        proto in edge_u8(),
        v4 in any::<[u8; 8]>(),
        v6 in prop_oneof![Just([0xFF; 32]), any::<[u8; 32]>()],
        upper in bytes(),
    ) {
        let p4 = IpPseudo::V4 {
            src: Ipv4Address(v4[..4].try_into().unwrap()),
            dst: Ipv4Address(v4[4..].try_into().unwrap()),
            protocol: proto,
        };
        let want4 = words(&v4) + u128::from(proto) + u128::from(upper_len & 0xFFFF);
        prop_assert_eq!(p4.sum(upper_len), fold(want4));
        let p6 = IpPseudo::V6 {
            src: Ipv6Address(v6[..16].try_into().unwrap()),
            dst: Ipv6Address(v6[16..].try_into().unwrap()),
            next_header: proto,
        };
        let want6 = words(&v6) + u128::from(upper_len >> 16) + u128::from(upper_len & 0xFFFF) + u128::from(proto);
        prop_assert_eq!(p6.sum(upper_len), fold(want6));
        // With the upper layer itself: its real length (under 2^16 here) and its words.
        let header6 = words(&v6) + u128::from(proto);
        prop_assert_eq!(p6.sum_with(&upper), fold(header6 + upper.len() as u128 + words(&upper)));
        prop_assert!(p4.is_ipv4() && !p6.is_ipv4());
    }
}
