//! Ethernet headers (with and without VLAN tags): emit/parse round trips and canonical bytes.

use crate::common::*;
use proptest::prelude::*;
use rocenic_model::wire::*;

fn arb_ethernet() -> impl Strategy<Value = EthernetRepr> {
    (
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        proptest::option::of(arb_vlan()),
        any::<u16>(),
    )
        .prop_filter(
            "an untagged EtherType must not look like a TPID",
            |(_, _, v, et)| v.is_some() || (*et != EtherType::VLAN && *et != EtherType::QINQ),
        )
        .prop_map(|(d, s, vlan, ethertype)| EthernetRepr {
            dst: EthernetAddress(d),
            src: EthernetAddress(s),
            vlan,
            ethertype,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // ----- emit → parse → emit round trips (random reprs)

    #[test]
    fn ethernet_repr_round_trip(r in arb_ethernet()) {
        let mut b = vec![0u8; r.header_len()];
        r.emit(&mut EthernetFrame::new_unchecked(&mut b[..])).unwrap();
        let p = EthernetFrame::new_checked(&b[..]).unwrap();
        let r2 = EthernetRepr::parse(&p).unwrap();
        prop_assert_eq!(r2, r);
        let mut b2 = vec![0u8; r2.header_len()];
        r2.emit(&mut EthernetFrame::new_unchecked(&mut b2[..])).unwrap();
        prop_assert_eq!(b2, b);
    }

    // ----- parse → emit of arbitrary valid, canonical bytes

    #[test]
    fn ethernet_bytes_canonical(b in any::<[u8; 18]>()) {
        let p = EthernetFrame::new_checked(&b[..]).unwrap();
        let r = EthernetRepr::parse(&p).unwrap();
        let mut out = vec![0u8; r.header_len()];
        r.emit(&mut EthernetFrame::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(&out[..], &b[..p.header_len()]);
    }
}
