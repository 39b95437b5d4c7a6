//! RoCEv2 frames and their ICRC: two public reference packets, frames built here over IPv4
//! and IPv6, the frame locator's errors, and which fields the ICRC masks.

use crate::common::*;
use proptest::prelude::*;
use rocenic_model::wire::*;

/// The RoCEv2 example of Scapy's `test/contrib/roce.uts` (a UC SEND Only over IPv4 whose
/// ICRC, UDP and IP checksums Scapy computes): IP checksum 0xb4d5, UDP checksum 0xaca2 (over
/// the datagram including the ICRC), ICRC bytes on the wire 78 f3 53 f3.
#[test]
fn scapy_roce_example() {
    let a = EthernetAddress([0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22]);
    let payload = b"F0\x81\x8b\xe2\x895\xd9\x0e\x9a\x95PT\x01\xbe\x88^P\x00\x00";
    let mut f = vec![0u8; 14 + 64];
    EthernetRepr {
        dst: a,
        src: a,
        vlan: None,
        ethertype: EtherType::IPV4,
    }
    .emit(&mut EthernetFrame::new_unchecked(&mut f[..]))
    .unwrap();
    let mut ip = Ipv4Repr::new(
        Ipv4Address::new(192, 168, 0, 7),
        Ipv4Address::new(192, 168, 0, 7),
        IpProtocol::UDP,
        44,
    );
    ip.dscp_ecn = 1;
    ip.ident = 1144;
    ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[14..]))
        .unwrap();
    UdpRepr {
        src_port: 49152,
        dst_port: ROCEV2_PORT,
        payload_len: 36,
    }
    .emit(&mut UdpPacket::new_unchecked(&mut f[34..]))
    .unwrap();
    BthRepr {
        opcode: 0x24, // UC SEND Only
        solicited: false,
        migreq: true,
        pad_count: 2,
        tver: 0,
        pkey: 0xFFFF,
        fecn: false,
        becn: false,
        dest_qpn: 211,
        ack_req: false,
        psn: 13_571_856,
    }
    .emit(&mut Bth::new_unchecked(&mut f[42..]))
    .unwrap();
    f[54..74].copy_from_slice(payload);

    let ip = Ipv4Packet::new_checked(&f[14..]).unwrap();
    assert_eq!(ip.checksum(), 0xb4d5);
    let icrc = icrc_fill(&mut f).unwrap();
    assert_eq!(icrc, 0xf353_f378);
    assert_eq!(&f[74..78], &[0x78, 0xf3, 0x53, 0xf3]);
    let pseudo = IpPseudo::V4 {
        src: Ipv4Address::new(192, 168, 0, 7),
        dst: Ipv4Address::new(192, 168, 0, 7),
        protocol: IpProtocol::UDP,
    };
    let mut udp = UdpPacket::new_checked(&mut f[34..]).unwrap();
    udp.fill_checksum(&pseudo);
    assert_eq!(udp.checksum(), 0xaca2);
    // The UDP checksum is masked: the ICRC still holds.
    assert!(RoceFrame::parse(&f).unwrap().is_valid());
}

/// A RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx, as published in Scapy's
/// `test/contrib/roce.uts` ("RoCE CNP captured on ConnectX-4 Lx"): hardware wrote the ICRC
/// bytes 82 fd 00 2a. Independent of this code and of Scapy's ICRC implementation.
const CX4_CNP: &str = "e41d2dab2bc2 7cfe90643b32 0800
    45c2 003c 718c 4000 4011 9161 0a00 1101 0a00 1201
    0000 12b7 0028 0000
    8100 ffff 4000 0118 0000 0000
    0000 0000 0000 0000 0000 0000 0000 0000
    82fd 002a";

#[test]
fn hardware_cnp_icrc() {
    let f = hex(CX4_CNP);
    let r = RoceFrame::parse(&f).unwrap();
    assert_eq!(r.ip_version(), 4);
    assert_eq!(r.icrc_offset(), 70);
    assert_eq!(r.stored(), 0x2a00_fd82);
    assert_eq!(r.computed(), 0x2a00_fd82);
    let b = BthRepr::parse(&r.bth()).unwrap();
    assert_eq!(b.opcode, opcode::CNP);
    assert!(b.becn && !b.fecn);
    assert_eq!(b.dest_qpn, 0x0118);
    assert!(Ipv4Packet::new_checked(&f[14..]).unwrap().verify_checksum());
    assert_eq!(icrc_compute(r.l3_packet()), Ok(0x2a00_fd82));
    // With Ethernet padding and an FCS after the IP packet, nothing changes.
    let mut padded = f.clone();
    padded.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    let r2 = RoceFrame::parse(&padded).unwrap();
    assert!(r2.is_valid());
    assert_eq!(r2.icrc_offset(), 70);
}

#[test]
fn roce_rc_ipv4_and_ud_ipv6() {
    for spec in [rc_send_only_v4(), ud_send_only_v6()] {
        let mut f = build(&spec);
        let icrc = icrc_fill(&mut f).unwrap();
        let r = RoceFrame::parse(&f).unwrap();
        assert_eq!(r.stored(), icrc);
        assert_eq!(r.stored(), r.computed());
        assert!(r.is_valid());
        assert_eq!(r.ip_version(), if spec.v6 { 6 } else { 4 });
        let b = BthRepr::parse(&r.bth()).unwrap();
        assert_eq!(b.opcode, spec.bth.opcode);
        assert_eq!(usize::from(b.pad_count), (4 - spec.payload.len() % 4) % 4);
        if opcode::has_deth(b.opcode) {
            let d = Deth::new_checked(r.bth_payload()).unwrap();
            assert_eq!(DethRepr::parse(&d).unwrap(), spec.deth.unwrap());
        }
        // Corrupt one payload byte: stored and computed now differ.
        let at = r.bth_offset() + 12 + spec.deth.map_or(0, |_| 8) + 3;
        let mut bad = f.clone();
        bad[at] ^= 0x01;
        let r = RoceFrame::parse(&bad).unwrap();
        assert_ne!(r.stored(), r.computed());
        assert!(!r.is_valid());
        // Corrupt the ICRC itself.
        let mut bad = f.clone();
        let i = r.icrc_offset();
        bad[i + 2] ^= 0x80;
        assert!(!RoceFrame::parse(&bad).unwrap().is_valid());
    }
}

#[test]
fn roce_with_ipv4_options_and_immediate() {
    let mut spec = rc_send_only_v4();
    spec.ip_options = vec![0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00]; // router alert, NOPs, EOL
    spec.bth.opcode = opcode::RC_SEND_ONLY_WITH_IMM;
    spec.imm = Some(0xdead_beef);
    let mut f = build(&spec);
    icrc_fill(&mut f).unwrap();
    let r = RoceFrame::parse(&f).unwrap();
    assert!(r.is_valid());
    assert_eq!(r.udp_offset(), 18 + 28);
    let imm = ImmDt::new_checked(r.bth_payload()).unwrap();
    assert_eq!(imm.imm(), 0xdead_beef);
}

#[test]
fn roce_frame_errors() {
    let good = {
        let mut f = build(&rc_send_only_v4());
        icrc_fill(&mut f).unwrap();
        f
    };
    // Truncated anywhere inside the IP packet.
    for n in [0, 5, 13, 17, 20, 30, 40, good.len() - 1] {
        assert_eq!(
            RoceFrame::parse(&good[..n]).unwrap_err(),
            Error::Truncated,
            "cut at {n}"
        );
    }
    // ARP is not RoCE.
    let mut arp = good.clone();
    arp[16..18].copy_from_slice(&EtherType::ARP.to_be_bytes());
    assert_eq!(RoceFrame::parse(&arp).unwrap_err(), Error::NotRoce);
    // Another UDP port is not RoCE.
    let mut other = good.clone();
    other[18 + 20 + 2..18 + 20 + 4].copy_from_slice(&4789u16.to_be_bytes());
    assert_eq!(RoceFrame::parse(&other).unwrap_err(), Error::NotRoce);
    let mut f = other.clone();
    assert_eq!(icrc_fill(&mut f).unwrap_err(), Error::NotRoce);
    // TCP is not RoCE.
    let mut tcp = good.clone();
    tcp[18 + 9] = IpProtocol::TCP;
    assert_eq!(RoceFrame::parse(&tcp).unwrap_err(), Error::NotRoce);
    // UDP length disagreeing with the IP length is malformed.
    let mut ml = good.clone();
    ml[18 + 20 + 5] -= 1;
    assert!(matches!(RoceFrame::parse(&ml), Err(Error::Malformed(_))));
    // IP version 5 under EtherType IPv4 is malformed.
    let mut ver = good.clone();
    ver[18] = 0x55;
    assert!(matches!(RoceFrame::parse(&ver), Err(Error::Malformed(_))));
    // Fragments are not handled.
    let mut frag = good.clone();
    frag[18 + 6] |= 0x20;
    assert!(matches!(
        RoceFrame::parse(&frag),
        Err(Error::Unsupported(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn icrc_ignores_masked_fields(
        spec in arb_spec(),
        masked in any::<[u8; 8]>(),
        flip_at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
    ) {
        let mut f = build(&spec);
        let icrc = icrc_fill(&mut f).unwrap();
        let r = RoceFrame::parse(&f).unwrap();
        prop_assert!(r.is_valid());
        prop_assert_eq!(icrc_compute(r.l3_packet()), Ok(icrc));
        let (l3, udp, bth) = (r.l3_offset(), r.udp_offset(), r.bth_offset());
        let icrc_at = r.icrc_offset();

        // Rewrite every masked field with random values.
        let mut g = f.clone();
        if spec.v6 {
            let mut ip = Ipv6Packet::new_unchecked(&mut g[l3..]);
            ip.set_traffic_class(masked[0]);
            ip.set_flow_label(u32::from_be_bytes([0, masked[1], masked[2], masked[3]]));
            ip.set_hop_limit(masked[4]);
        } else {
            let mut ip = Ipv4Packet::new_unchecked(&mut g[l3..]);
            ip.set_dscp_ecn(masked[0]);
            ip.set_ttl(masked[1]);
            ip.set_checksum(u16::from_be_bytes([masked[2], masked[3]]));
        }
        g[udp + 6] = masked[5];
        g[udp + 7] = masked[6];
        g[bth + 4] = masked[7];
        let r = RoceFrame::parse(&g).unwrap();
        prop_assert_eq!(r.computed(), icrc);
        prop_assert!(r.is_valid());

        // Change one unmasked byte after the BTH's masked byte (BTH rest, DETH, ImmDt,
        // payload, pad): the ICRC changes.
        let covered: Vec<usize> = (bth..icrc_at).filter(|&i| i != bth + 4).collect();
        let at = covered[flip_at.index(covered.len())];
        let mut h = f.clone();
        h[at] ^= flip;
        let r = RoceFrame::parse(&h).unwrap();
        prop_assert_ne!(r.computed(), icrc);
        prop_assert!(!r.is_valid());
    }

    #[test]
    fn icrc_changes_with_addresses(spec in arb_spec(), which in 0usize..4, flip in 1u8..=255) {
        let mut f = build(&spec);
        let icrc = icrc_fill(&mut f).unwrap();
        let r = RoceFrame::parse(&f).unwrap();
        let l3 = r.l3_offset();
        // Source address, destination address, UDP source port, IPv4 ident / IPv6 next header
        // (unmasked fields whose change keeps the frame a RoCEv2 frame).
        let at = match (which, spec.v6) {
            (0, false) => l3 + 12,
            (1, false) => l3 + 19,
            (0, true) => l3 + 8,
            (1, true) => l3 + 39,
            (2, _) => r.udp_offset(),
            (_, false) => l3 + 4,
            (_, true) => l3 + 5, // payload length low byte: changes the layout, so recompute
        };
        let mut g = f.clone();
        g[at] ^= flip;
        match RoceFrame::parse(&g) {
            Ok(r) => prop_assert_ne!(icrc_compute(r.l3_packet()), Ok(icrc)),
            Err(e) => prop_assert!(matches!(e, Error::Truncated | Error::Malformed(_))),
        }
    }
}
