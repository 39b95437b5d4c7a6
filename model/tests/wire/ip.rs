//! IPv4 (with options) and IPv6 headers: emit/parse round trips and canonical bytes.

use crate::common::*;
use proptest::prelude::*;
use rocenic_model::wire::*;

fn arb_ipv4() -> impl Strategy<Value = Ipv4Repr> {
    (
        (any::<[u8; 4]>(), any::<[u8; 4]>(), any::<u8>(), any::<u8>()),
        (
            any::<u16>(),
            any::<bool>(),
            any::<bool>(),
            0u16..0x2000,
            any::<u8>(),
        ),
        arb_options(),
        0usize..2000,
    )
        .prop_map(|((s, d, proto, tos), (id, df, mf, off, ttl), opts, pl)| {
            let mut r = Ipv4Repr::new(Ipv4Address(s), Ipv4Address(d), proto, pl);
            r.dscp_ecn = tos;
            r.ident = id;
            r.dont_frag = df;
            r.more_frags = mf;
            r.frag_offset = off;
            r.ttl = ttl;
            r.set_options(&opts).unwrap();
            r
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // ----- emit → parse → emit round trips (random reprs)

    #[test]
    fn ipv4_repr_round_trip(r in arb_ipv4()) {
        let mut b = vec![0u8; r.header_len() + r.payload_len];
        r.emit(&mut Ipv4Packet::new_unchecked(&mut b[..])).unwrap();
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        prop_assert!(p.verify_checksum());
        prop_assert_eq!(p.is_fragment(), r.is_fragment());
        let r2 = Ipv4Repr::parse(&p).unwrap();
        prop_assert_eq!(r2, r);
        let mut b2 = vec![0u8; r2.header_len() + r2.payload_len];
        r2.emit(&mut Ipv4Packet::new_unchecked(&mut b2[..])).unwrap();
        prop_assert_eq!(b2, b);
    }

    #[test]
    fn ipv6_repr_round_trip(r in arb_ipv6()) {
        let mut b = vec![0u8; 40 + r.payload_len];
        r.emit(&mut Ipv6Packet::new_unchecked(&mut b[..])).unwrap();
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        let r2 = Ipv6Repr::parse(&p).unwrap();
        prop_assert_eq!(r2, r);
        let mut b2 = vec![0u8; 40 + r2.payload_len];
        r2.emit(&mut Ipv6Packet::new_unchecked(&mut b2[..])).unwrap();
        prop_assert_eq!(b2, b);
    }

    // ----- parse → emit of arbitrary valid, canonical bytes

    #[test]
    fn ipv4_bytes_canonical(words in 5usize..=15, raw in any::<[u8; 60]>(), pl in 0usize..100) {
        let hl = words * 4;
        let mut b = raw[..hl].to_vec();
        b.resize(hl + pl, 0xEE);
        b[0] = 0x40 | words as u8;
        b[2..4].copy_from_slice(&((hl + pl) as u16).to_be_bytes());
        b[6] &= 0x7F; // reserved flag is zero
        let mut m = Ipv4Packet::new_unchecked(&mut b[..]);
        m.fill_checksum();
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        prop_assert!(p.verify_checksum());
        let r = Ipv4Repr::parse(&p).unwrap();
        let mut out = vec![0u8; hl];
        r.emit(&mut Ipv4Packet::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(&out[..], &b[..hl]);
    }

    #[test]
    fn ipv6_bytes_canonical(raw in any::<[u8; 40]>(), pl in 0usize..100) {
        let mut b = raw.to_vec();
        b.resize(40 + pl, 0);
        b[0] = 0x60 | (b[0] & 0x0F);
        b[4..6].copy_from_slice(&(pl as u16).to_be_bytes());
        let r = Ipv6Repr::parse(&Ipv6Packet::new_checked(&b[..]).unwrap()).unwrap();
        let mut out = [0u8; 40];
        r.emit(&mut Ipv6Packet::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(&out[..], &b[..40]);
    }
}
