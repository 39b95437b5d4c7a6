//! Ethernet, IPv4, IPv6, UDP and TCP `Repr`s: `emit` refuses exactly the values that do not fit
//! their wire fields (lengths summed in u128), reports a short buffer, and otherwise writes a
//! header that parses back to the same repr.

use crate::{config, edge_u16, edge_u32, edge_u8, edge_usize_near};
use proptest::prelude::*;
use rocenic_model::wire::*;

/// Option lengths around the legal ones (multiples of 4 up to 40).
fn options_len() -> impl Strategy<Value = u8> {
    prop_oneof![
        edge_u8(),
        prop::sample::select(vec![0u8, 3, 4, 36, 38, 40, 41, 44])
    ]
}

/// Buffer lengths around a header of `hl` bytes.
fn buffer_len(hl: usize) -> impl Strategy<Value = usize> {
    prop::sample::select(vec![0, 1, hl.saturating_sub(1), hl, hl + 1, hl + 64])
}

/// Payload lengths around the 16-bit length field, given the bytes the field counts besides it.
fn payload_len(counted: usize) -> impl Strategy<Value = usize> {
    edge_usize_near(vec![
        0,
        1,
        0xFFFF - counted - 1,
        0xFFFF - counted,
        0xFFFF - counted + 1,
        0xFFFF,
        0x1_0000,
    ])
}

proptest! {
    #![proptest_config(config("wire::ip", 384))]

    /// IPv4: `Malformed` for options that are not a multiple of 4 up to 40, a fragment offset
    /// past 13 bits or a total length past 65535; `Truncated` for a buffer shorter than the
    /// header; otherwise a round trip.
    #[test]
    fn ipv4_emit(
        ol in options_len(),
        frag_offset in prop_oneof![edge_u16(), Just(0x1FFF), Just(0x2000)],
        payload in payload_len(20),
        buf in (0usize..6, any::<bool>()),
        fields in (edge_u8(), edge_u16(), edge_u8(), edge_u8(), any::<[bool; 2]>(), any::<[u8; 8]>()),
        options in any::<[u8; 40]>(),
    ) {
        let (protocol, ident, ttl, dscp_ecn, [dont_frag, more_frags], addrs) = fields;
        let src = Ipv4Address::new(addrs[0], addrs[1], addrs[2], addrs[3]);
        let dst = Ipv4Address::new(addrs[4], addrs[5], addrs[6], addrs[7]);
        let mut r = Ipv4Repr::new(src, dst, protocol, payload);
        r.ident = ident;
        r.ttl = ttl;
        r.dscp_ecn = dscp_ecn;
        r.dont_frag = dont_frag;
        r.more_frags = more_frags;
        r.frag_offset = frag_offset;
        r.options = options;
        r.options_len = ol;
        let hl = 20 + usize::from(ol);
        let total = 20 + u128::from(ol) + payload as u128;
        let malformed = ol > 40 || ol % 4 != 0 || frag_offset > 0x1FFF || total > 0xFFFF;
        // A buffer for the whole packet when it fits, else one around the header.
        let len = if buf.1 && !malformed { total as usize } else {
            [0, 1, hl - 1, hl, hl + 1, hl + 64][buf.0]
        };
        let mut b = vec![0u8; len];
        let got = r.emit(&mut Ipv4Packet::new_unchecked(&mut b[..]));
        if malformed {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if len < hl {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            let p = Ipv4Packet::new_unchecked(&b[..]);
            prop_assert_eq!(p.header_len(), hl);
            prop_assert_eq!(u128::from(p.total_len()), total);
            prop_assert!(p.verify_checksum());
            if len as u128 >= total {
                prop_assert_eq!(Ipv4Repr::parse(&Ipv4Packet::new_checked(&b[..]).unwrap()), Ok(r));
            }
        }
        let opts: Vec<u8> = options.iter().cycle().take(usize::from(ol).min(44)).copied().collect();
        let set = r.set_options(&opts);
        prop_assert_eq!(set.is_ok(), ol <= 40 && ol % 4 == 0);
        if set.is_ok() {
            prop_assert_eq!(r.options(), &opts[..]);
        }
    }

    /// UDP: `Malformed` exactly when 8 + payload passes 65535.
    #[test]
    fn udp_emit(payload in payload_len(8), ports in (edge_u16(), edge_u16()), buf in buffer_len(8)) {
        let r = UdpRepr { src_port: ports.0, dst_port: ports.1, payload_len: payload };
        let total = 8 + payload as u128;
        let fits = total <= 0xFFFF;
        let len = if fits && buf > 8 { total as usize } else { buf };
        let mut b = vec![0u8; len];
        let got = r.emit(&mut UdpPacket::new_unchecked(&mut b[..]));
        if !fits {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if len < 8 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            prop_assert_eq!(u128::from(UdpPacket::new_unchecked(&b[..]).len()), total);
            if len as u128 >= total {
                prop_assert_eq!(UdpRepr::parse(&UdpPacket::new_checked(&b[..]).unwrap()), Ok(r));
            }
        }
    }

    /// IPv6: `Malformed` exactly for a flow label past 20 bits or a payload past 65535.
    #[test]
    fn ipv6_emit(
        payload in payload_len(0),
        flow_label in prop_oneof![edge_u32(), Just(0xF_FFFF), Just(0x10_0000)],
        fields in (edge_u8(), edge_u8(), edge_u8(), any::<[u8; 16]>()),
        buf in buffer_len(40),
    ) {
        let (next_header, hop_limit, traffic_class, a) = fields;
        let r = Ipv6Repr {
            src: Ipv6Address(a),
            dst: Ipv6Address::UNSPECIFIED,
            next_header,
            payload_len: payload,
            hop_limit,
            traffic_class,
            flow_label,
        };
        let fits = payload <= 0xFFFF && flow_label <= 0xF_FFFF;
        let len = if fits && buf > 40 { 40 + payload } else { buf };
        let mut b = vec![0u8; len];
        let got = r.emit(&mut Ipv6Packet::new_unchecked(&mut b[..]));
        if !fits {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if len < 40 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            let p = Ipv6Packet::new_unchecked(&b[..]);
            prop_assert_eq!((p.flow_label(), usize::from(p.payload_len())), (flow_label, payload));
            if len >= 40 + payload {
                prop_assert_eq!(Ipv6Repr::parse(&Ipv6Packet::new_checked(&b[..]).unwrap()), Ok(r));
            }
        }
    }

    /// TCP: `Malformed` exactly for options that are not a multiple of 4 up to 40.
    #[test]
    fn tcp_emit(
        ol in options_len(),
        fields in (edge_u32(), edge_u32(), edge_u16(), edge_u16(), edge_u16()),
        flags in edge_u16(),
        options in any::<[u8; 40]>(),
        buf in 0usize..6,
    ) {
        let (seq, ack, window, urgent, port) = fields;
        let r = TcpRepr {
            src_port: port,
            dst_port: !port,
            seq,
            ack,
            flags: TcpFlags::from_bits(flags),
            window,
            urgent,
            options,
            options_len: ol,
        };
        prop_assert_eq!(r.flags.bits(), flags & 0x1FF);
        let hl = 20 + usize::from(ol);
        let len = [0, 1, hl - 1, hl, hl + 1, hl + 64][buf];
        let mut b = vec![0u8; len];
        let got = r.emit(&mut TcpPacket::new_unchecked(&mut b[..]));
        if ol > 40 || ol % 4 != 0 {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if len < hl {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            prop_assert_eq!(TcpRepr::parse(&TcpPacket::new_checked(&b[..]).unwrap()), Ok(r));
        }
    }

    /// Ethernet: `Malformed` exactly for a tag with a TPID other than 0x8100/0x88A8, PCP past
    /// 3 bits or VID past 12 bits.
    #[test]
    fn ethernet_emit(
        tag in proptest::option::of((
            prop_oneof![edge_u16(), Just(EtherType::VLAN), Just(EtherType::QINQ)],
            edge_u8(),
            any::<bool>(),
            prop_oneof![edge_u16(), Just(0xFFF), Just(0x1000)],
        )),
        ethertype in edge_u16(),
        buf in buffer_len(18),
    ) {
        let vlan = tag.map(|(tpid, pcp, dei, vid)| VlanTag { tpid, pcp, dei, vid });
        let r = EthernetRepr { dst: EthernetAddress::BROADCAST, src: EthernetAddress([2, 0, 0, 0, 0, 1]), vlan, ethertype };
        let is_tpid = |v: u16| v == EtherType::VLAN || v == EtherType::QINQ;
        let bad = vlan.is_some_and(|t| !is_tpid(t.tpid) || t.pcp > 7 || t.vid > 0xFFF);
        let mut b = vec![0u8; buf];
        let got = r.emit(&mut EthernetFrame::new_unchecked(&mut b[..]));
        if bad {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if buf < r.header_len() {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            // An untagged frame whose EtherType is a TPID reads back as tagged: skip those.
            if vlan.is_some() || !is_tpid(ethertype) {
                prop_assert_eq!(EthernetRepr::parse(&EthernetFrame::new_checked(&b[..]).unwrap()), Ok(r));
            }
        }
        if let Some(t) = vlan {
            // The TCI keeps the bits of each field that fit it.
            let tci = t.tci();
            prop_assert_eq!(
                (tci >> 13, tci >> 12 & 1, tci & 0xFFF),
                (u16::from(t.pcp & 7), u16::from(t.dei), t.vid & 0xFFF)
            );
        }
    }
}
