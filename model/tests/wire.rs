//! Tests of `rocenic_model::wire`: known bytes for every header, emit/parse round trips,
//! the RoCEv2 ICRC (including two public reference packets) and a no-panic fuzz of every
//! `new_checked`, getter, `parse`, the pcap reader and the RoCEv2 frame locator.

use proptest::prelude::*;
use rocenic_model::wire::checksum;
use rocenic_model::wire::ib::{GRH_LEN, LNH_IBA_GLOBAL};
use rocenic_model::wire::*;

// ---------------------------------------------------------------------------------------------
// Helpers (test-only frame construction)

/// Bytes from hex text; whitespace ignored.
fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(digits.len() % 2 == 0, "odd hex length");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// What a test RoCEv2 frame is made of.
#[derive(Debug, Clone)]
struct Spec {
    vlan: Option<VlanTag>,
    v6: bool,
    ip_options: Vec<u8>,
    tos: u8,
    ttl: u8,
    flow_label: u32,
    sport: u16,
    bth: BthRepr,
    deth: Option<DethRepr>,
    imm: Option<u32>,
    payload: Vec<u8>,
}

fn mac(last: u8) -> EthernetAddress {
    EthernetAddress([0x02, 0, 0, 0, 0, last])
}

fn v4(last: u8) -> Ipv4Address {
    Ipv4Address::new(10, 0, 0, last)
}

fn v6(last: u8) -> Ipv6Address {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = last;
    Ipv6Address(a)
}

fn bth(opcode: u8, dest_qpn: u32, psn: u32) -> BthRepr {
    BthRepr {
        opcode,
        solicited: false,
        migreq: true,
        pad_count: 0,
        tver: 0,
        pkey: 0xFFFF,
        fecn: false,
        becn: false,
        dest_qpn,
        ack_req: true,
        psn,
    }
}

/// Builds Ethernet [+ VLAN] + IPv4/IPv6 + UDP(4791) + BTH [+ DETH] [+ ImmDt] + payload + pad
/// + 4 zero ICRC bytes. The BTH pad count is set from the payload length.
fn build(spec: &Spec) -> Vec<u8> {
    let pad = (4 - spec.payload.len() % 4) % 4;
    let ib_len = 12
        + spec.deth.map_or(0, |_| 8)
        + spec.imm.map_or(0, |_| 4)
        + spec.payload.len()
        + pad
        + ICRC_LEN;
    let udp_len = 8 + ib_len;
    let eth = EthernetRepr {
        dst: mac(1),
        src: mac(2),
        vlan: spec.vlan,
        ethertype: if spec.v6 {
            EtherType::IPV6
        } else {
            EtherType::IPV4
        },
    };
    let ip_hlen = if spec.v6 {
        40
    } else {
        20 + spec.ip_options.len()
    };
    let mut f = vec![0u8; eth.header_len() + ip_hlen + udp_len];
    eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]))
        .unwrap();
    let mut at = eth.header_len();
    if spec.v6 {
        let ip = Ipv6Repr {
            src: v6(1),
            dst: v6(2),
            next_header: IpProtocol::UDP,
            payload_len: udp_len,
            hop_limit: spec.ttl,
            traffic_class: spec.tos,
            flow_label: spec.flow_label,
        };
        ip.emit(&mut Ipv6Packet::new_unchecked(&mut f[at..]))
            .unwrap();
    } else {
        let mut ip = Ipv4Repr::new(v4(1), v4(2), IpProtocol::UDP, udp_len);
        ip.dscp_ecn = spec.tos;
        ip.ttl = spec.ttl;
        ip.ident = 0x1234;
        ip.set_options(&spec.ip_options).unwrap();
        ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[at..]))
            .unwrap();
    }
    at += ip_hlen;
    UdpRepr {
        src_port: spec.sport,
        dst_port: ROCEV2_PORT,
        payload_len: ib_len,
    }
    .emit(&mut UdpPacket::new_unchecked(&mut f[at..]))
    .unwrap();
    at += 8;
    let mut b = spec.bth;
    b.pad_count = pad as u8;
    b.emit(&mut Bth::new_unchecked(&mut f[at..])).unwrap();
    at += 12;
    if let Some(d) = spec.deth {
        d.emit(&mut Deth::new_unchecked(&mut f[at..])).unwrap();
        at += 8;
    }
    if let Some(imm) = spec.imm {
        ImmDtRepr { imm }
            .emit(&mut ImmDt::new_unchecked(&mut f[at..]))
            .unwrap();
        at += 4;
    }
    f[at..at + spec.payload.len()].copy_from_slice(&spec.payload);
    f
}

fn rc_send_only_v4() -> Spec {
    Spec {
        vlan: Some(VlanTag::new(3, false, 100)),
        v6: false,
        ip_options: vec![],
        tos: 0x02,
        ttl: 64,
        flow_label: 0,
        sport: 0xC123,
        bth: bth(opcode::RC_SEND_ONLY, 0x00_0011, 0x00_0100),
        deth: None,
        imm: None,
        payload: b"hello, rocenic!".to_vec(),
    }
}

fn ud_send_only_v6() -> Spec {
    Spec {
        vlan: None,
        v6: true,
        ip_options: vec![],
        tos: 0x68,
        ttl: 64,
        flow_label: 0xFFF1E,
        sport: 0xFF21,
        bth: bth(opcode::UD_SEND_ONLY, 0x00_0001, 0x12_3456),
        deth: Some(DethRepr {
            qkey: 0x8001_1111,
            src_qpn: 0x00_0048,
        }),
        imm: None,
        payload: (0..=255u8).collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Known bytes

/// A TCP SYN generated by Scapy (`Ether()/IP(dst='10.1.0.1')/TCP(sport=5793, dport=80)`, as
/// printed in jafingerhut/p4-guide README-scapy.md). Checksums verified by hand:
/// IP: 4500+0028+0001+0000+4006+0a00+020f+0a01+0001 = 0x9b40 → !0x9b40 = 0x64bf.
/// TCP: pseudo 0a00+020f+0a01+0001+0006+0014 plus header 16a1+0050+5002+2000 = 0x9d1e →
/// !0x9d1e = 0x62e1.
const SCAPY_TCP_SYN: &str = "525400123502 080027018bbc 0800
    4500 0028 0001 0000 4006 64bf 0a00 020f 0a01 0001
    16a1 0050 0000 0000 0000 0000 5002 2000 62e1 0000";

#[test]
fn known_tcp_syn() {
    let f = hex(SCAPY_TCP_SYN);
    let eth = EthernetFrame::new_checked(&f[..]).unwrap();
    let er = EthernetRepr::parse(&eth).unwrap();
    assert_eq!(er.ethertype, EtherType::IPV4);
    assert_eq!(er.dst.to_string(), "52:54:00:12:35:02");
    let ip = Ipv4Packet::new_checked(eth.payload()).unwrap();
    assert!(ip.verify_checksum());
    assert_eq!(ip.checksum(), 0x64bf);
    assert_eq!(ip.src_addr().to_string(), "10.0.2.15");
    let ir = Ipv4Repr::parse(&ip).unwrap();
    let mut out = [0u8; 20];
    ir.emit(&mut Ipv4Packet::new_unchecked(&mut out[..]))
        .unwrap();
    assert_eq!(&out[..], &eth.payload()[..20]);

    let pseudo = IpPseudo::V4 {
        src: ip.src_addr(),
        dst: ip.dst_addr(),
        protocol: IpProtocol::TCP,
    };
    let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
    assert_eq!((tcp.src_port(), tcp.dst_port()), (5793, 80));
    assert_eq!(tcp.flags(), TcpFlags::SYN);
    assert_eq!(tcp.window(), 0x2000);
    assert!(tcp.verify_checksum(&pseudo));
    assert_eq!(tcp.compute_checksum(&pseudo), 0x62e1);

    let tr = TcpRepr::parse(&tcp).unwrap();
    let mut seg = [0u8; 20];
    tr.emit(&mut TcpPacket::new_unchecked(&mut seg[..]))
        .unwrap();
    let mut seg = TcpPacket::new_unchecked(&mut seg[..]);
    seg.fill_checksum(&pseudo);
    assert_eq!(seg.into_inner(), ip.payload());
}

/// UDP checksums computed by hand.
/// IPv4 192.168.0.1 → 192.168.0.199, ports 0x1234 → 53, payload "hi":
/// c0a8+0001+c0a8+00c7+0011+000a + 1234+0035+000a+6869 = 0x1fd0f → 0xfd10 → !0xfd10 = 0x02ef.
/// IPv6 ::1 → ::2, same datagram: 0001+0002+000a+0011 + 1234+0035+000a+6869 = 0x7afa → 0x8505.
#[test]
fn known_udp_checksums() {
    let mut d = [0x12, 0x34, 0x00, 0x35, 0x00, 0x0a, 0x00, 0x00, b'h', b'i'];
    let p4 = IpPseudo::V4 {
        src: Ipv4Address::new(192, 168, 0, 1),
        dst: Ipv4Address::new(192, 168, 0, 199),
        protocol: IpProtocol::UDP,
    };
    let mut u = UdpPacket::new_checked(&mut d[..]).unwrap();
    assert!(u.verify_checksum(&p4), "IPv4 checksum 0 means none");
    assert_eq!(u.compute_checksum(&p4), 0x02ef);
    u.fill_checksum(&p4);
    assert_eq!(u.checksum(), 0x02ef);
    assert!(u.verify_checksum(&p4));
    assert_eq!(u.payload(), b"hi");

    let p6 = IpPseudo::V6 {
        src: Ipv6Address::new([0, 0, 0, 0, 0, 0, 0, 1]),
        dst: Ipv6Address::new([0, 0, 0, 0, 0, 0, 0, 2]),
        next_header: IpProtocol::UDP,
    };
    u.set_checksum(0);
    assert!(!u.verify_checksum(&p6), "IPv6 checksum 0 is invalid");
    assert_eq!(u.compute_checksum(&p6), 0x8505);
    u.fill_checksum(&p6);
    assert!(u.verify_checksum(&p6));
    // A one's-complement sum that comes out 0 is sent as 0xFFFF.
    assert_ne!(u.checksum(), 0);
}

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

#[test]
fn displays() {
    assert_eq!(
        EthernetAddress([0, 0x1b, 0x21, 0xa, 0xb, 0xc]).to_string(),
        "00:1b:21:0a:0b:0c"
    );
    assert_eq!(Ipv4Address::new(192, 0, 2, 1).to_string(), "192.0.2.1");
    let cases: [([u16; 8], &str); 6] = [
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1], "2001:db8::1"),
        ([0; 8], "::"),
        ([0, 0, 0, 0, 0, 0, 0, 1], "::1"),
        (
            [0xfe80, 0, 0, 0, 0x2, 0xc903, 0x1, 0x2345],
            "fe80::2:c903:1:2345",
        ),
        ([1, 0, 1, 0, 0, 1, 0, 0], "1:0:1::1:0:0"),
        ([1, 2, 3, 4, 5, 6, 7, 8], "1:2:3:4:5:6:7:8"),
    ];
    for (g, s) in cases {
        assert_eq!(Ipv6Address::new(g).to_string(), s);
        assert_eq!(Gid::from(Ipv6Address::new(g)).to_string(), s);
    }
    assert_eq!(
        Error::Unsupported("pcapng").to_string(),
        "unsupported: pcapng"
    );
    assert!(Error::Truncated.to_string().starts_with("truncated"));
    #[cfg(feature = "std")]
    {
        let e: Box<dyn std::error::Error> = Box::new(Error::NotRoce);
        assert_eq!(e.to_string(), "not a RoCEv2 packet");
    }
    assert_eq!(
        format!("{:?}", TcpFlags::SYN | TcpFlags::ACK),
        "TcpFlags(SYN|ACK)"
    );
}

#[test]
fn native_ib_headers() {
    // LRH (global) + GRH + BTH + DETH + 4 payload bytes + ICRC (+ VCRC).
    let grh = GrhRepr {
        traffic_class: 0,
        flow_label: 0x12345,
        payload_len: 12 + 8 + 4 + 4,
        next_header: IpProtocol::IB_BTH,
        hop_limit: 255,
        sgid: Gid([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        dgid: Gid([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]),
    };
    let total = 8 + GRH_LEN + usize::from(grh.payload_len);
    let lrh = LrhRepr {
        vl: 0,
        lver: 0,
        sl: 0,
        lnh: LNH_IBA_GLOBAL,
        dlid: 0xFFFF,
        packet_len: (total / 4) as u16,
        slid: 3,
    };
    let mut f = vec![0u8; total + 2];
    lrh.emit(&mut Lrh::new_unchecked(&mut f[..])).unwrap();
    grh.emit(&mut Grh::new_unchecked(&mut f[8..])).unwrap();
    let l = Lrh::new_checked(&f[..]).unwrap();
    assert_eq!(LrhRepr::parse(&l).unwrap(), lrh);
    let g = Grh::new_checked(l.payload()).unwrap();
    assert_eq!(GrhRepr::parse(&g).unwrap(), grh);
    assert_eq!(g.payload().len(), 28 + 2);
}

// ---------------------------------------------------------------------------------------------
// Strategies

fn arb_vlan() -> impl Strategy<Value = VlanTag> {
    (
        prop_oneof![Just(EtherType::VLAN), Just(EtherType::QINQ)],
        0u8..8,
        any::<bool>(),
        0u16..4096,
    )
        .prop_map(|(tpid, pcp, dei, vid)| VlanTag {
            tpid,
            pcp,
            dei,
            vid,
        })
}

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

fn arb_options() -> impl Strategy<Value = Vec<u8>> {
    (0usize..=10).prop_flat_map(|words| proptest::collection::vec(any::<u8>(), words * 4))
}

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

fn arb_ipv6() -> impl Strategy<Value = Ipv6Repr> {
    (
        any::<[u8; 16]>(),
        any::<[u8; 16]>(),
        any::<u8>(),
        0usize..2000,
        any::<u8>(),
        any::<u8>(),
        0u32..=0xFFFFF,
    )
        .prop_map(|(s, d, nh, pl, hop, tc, fl)| Ipv6Repr {
            src: Ipv6Address(s),
            dst: Ipv6Address(d),
            next_header: nh,
            payload_len: pl,
            hop_limit: hop,
            traffic_class: tc,
            flow_label: fl,
        })
}

fn arb_tcp() -> impl Strategy<Value = TcpRepr> {
    (
        (any::<u16>(), any::<u16>(), any::<u32>(), any::<u32>()),
        (0u16..0x200, any::<u16>(), any::<u16>()),
        arb_options(),
    )
        .prop_map(|((sp, dp, seq, ack), (fl, win, urg), opts)| {
            let mut r = TcpRepr {
                src_port: sp,
                dst_port: dp,
                seq,
                ack,
                flags: TcpFlags::from_bits(fl),
                window: win,
                urgent: urg,
                options: [0; 40],
                options_len: 0,
            };
            r.set_options(&opts).unwrap();
            r
        })
}

fn arb_bth() -> impl Strategy<Value = BthRepr> {
    (
        (any::<u8>(), any::<bool>(), any::<bool>(), 0u8..4, 0u8..16),
        (any::<u16>(), any::<bool>(), any::<bool>()),
        (0u32..=0xFF_FFFF, any::<bool>(), 0u32..=0xFF_FFFF),
    )
        .prop_map(
            |(
                (opcode, solicited, migreq, pad_count, tver),
                (pkey, fecn, becn),
                (dest_qpn, ack_req, psn),
            )| {
                BthRepr {
                    opcode,
                    solicited,
                    migreq,
                    pad_count,
                    tver,
                    pkey,
                    fecn,
                    becn,
                    dest_qpn,
                    ack_req,
                    psn,
                }
            },
        )
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (
        (
            proptest::option::of(arb_vlan()),
            any::<bool>(),
            arb_options(),
        ),
        (any::<u8>(), any::<u8>(), 0u32..=0xFFFFF, any::<u16>()),
        (
            prop_oneof![
                Just(opcode::RC_SEND_FIRST),
                Just(opcode::RC_SEND_MIDDLE),
                Just(opcode::RC_SEND_LAST),
                Just(opcode::RC_SEND_LAST_WITH_IMM),
                Just(opcode::RC_SEND_ONLY),
                Just(opcode::RC_SEND_ONLY_WITH_IMM),
                Just(opcode::UD_SEND_ONLY),
                Just(opcode::UD_SEND_ONLY_WITH_IMM),
            ],
            0u32..=0xFF_FFFF,
            0u32..=0xFF_FFFF,
            any::<u32>(),
            any::<u32>(),
        ),
        proptest::collection::vec(any::<u8>(), 0..96),
    )
        .prop_map(
            |((vlan, v6, opts), (tos, ttl, fl, sport), (op, qpn, psn, qkey, imm), payload)| Spec {
                vlan,
                v6,
                ip_options: if v6 { vec![] } else { opts },
                tos,
                ttl,
                flow_label: fl,
                sport,
                bth: bth(op, qpn, psn),
                deth: opcode::has_deth(op).then_some(DethRepr {
                    qkey,
                    src_qpn: qpn ^ 0x5A5A5A,
                }),
                imm: opcode::has_immdt(op).then_some(imm),
                payload,
            },
        )
}

/// Every getter of every view over `b` after a successful `new_checked`, every `parse`, and
/// the layout-preserving setters on a copy. Must not panic.
fn exercise_all(b: &[u8], nh: u8) {
    if let Ok(p) = EthernetFrame::new_checked(b) {
        let _ = (
            p.dst_addr(),
            p.src_addr(),
            p.vlan(),
            p.ethertype(),
            p.header_len(),
        );
        let _ = (p.payload().len(), p.is_tagged());
        let _ = EthernetRepr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = EthernetFrame::new_checked(&mut c[..]).unwrap();
        m.set_ethertype(0x0800);
        m.set_vlan_tci(7, true, 4095);
        let _ = m.payload_mut().len();
        // Writing a TPID into an untagged header must not make the getters overrun.
        m.set_ethertype(EtherType::VLAN);
        let _ = (m.vlan(), m.ethertype(), m.header_len(), m.payload().len());
    }
    if let Ok(p) = Ipv4Packet::new_checked(b) {
        let _ = (
            p.version(),
            p.ihl(),
            p.dscp(),
            p.ecn(),
            p.total_len(),
            p.ident(),
        );
        let _ = (
            p.dont_frag(),
            p.more_frags(),
            p.frag_offset(),
            p.is_fragment(),
            p.ttl(),
        );
        let _ = (
            p.protocol(),
            p.checksum(),
            p.src_addr(),
            p.dst_addr(),
            p.reserved_flag(),
        );
        let _ = (p.options().len(), p.payload().len(), p.verify_checksum());
        let r = Ipv4Repr::parse(&p).unwrap();
        let _ = (r.header_len(), r.options().len());
        let mut c = b.to_vec();
        let mut m = Ipv4Packet::new_checked(&mut c[..]).unwrap();
        m.set_total_len((u16::from(nh) << 8) | u16::from(nh));
        m.set_flags(true, true);
        m.set_frag_offset(0xFFFF);
        m.fill_checksum();
        let _ = (m.payload().len(), m.payload_mut().len(), m.options().len());
    }
    if let Ok(p) = Ipv6Packet::new_checked(b) {
        let _ = (
            p.version(),
            p.traffic_class(),
            p.flow_label(),
            p.payload_len(),
        );
        let _ = (p.next_header(), p.hop_limit(), p.src_addr(), p.dst_addr());
        let _ = (p.payload().len(), p.upper_layer());
        let _ = Ipv6Repr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = Ipv6Packet::new_checked(&mut c[..]).unwrap();
        m.set_payload_len(0xFFFF);
        m.set_flow_label(u32::MAX);
        m.set_traffic_class(nh);
        let _ = (m.payload().len(), m.payload_mut().len(), m.flow_label());
    }
    let _ = skip_extension_headers(nh, b);
    let p4 = IpPseudo::V4 {
        src: v4(1),
        dst: v4(2),
        protocol: nh,
    };
    let p6 = IpPseudo::V6 {
        src: v6(1),
        dst: v6(2),
        next_header: nh,
    };
    if let Ok(p) = UdpPacket::new_checked(b) {
        let _ = (
            p.src_port(),
            p.dst_port(),
            p.len(),
            p.checksum(),
            p.payload().len(),
        );
        let _ = (
            p.verify_checksum(&p4),
            p.verify_checksum(&p6),
            p.compute_checksum(&p6),
        );
        let _ = UdpRepr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = UdpPacket::new_checked(&mut c[..]).unwrap();
        m.set_len(u16::MAX);
        m.fill_checksum(&p4);
        let _ = (m.payload().len(), m.payload_mut().len());
        m.set_len(0);
        m.fill_checksum(&p6);
        let _ = m.payload().len();
    }
    if let Ok(p) = TcpPacket::new_checked(b) {
        let _ = (p.src_port(), p.dst_port(), p.seq_number(), p.ack_number());
        let _ = (
            p.data_offset(),
            p.header_len(),
            p.reserved(),
            p.flags(),
            p.window(),
        );
        let _ = (
            p.checksum(),
            p.urgent(),
            p.options().len(),
            p.payload().len(),
        );
        let _ = (p.verify_checksum(&p4), p.compute_checksum(&p6));
        let _ = TcpRepr::parse(&p).unwrap();
        let mut c = b.to_vec();
        let mut m = TcpPacket::new_checked(&mut c[..]).unwrap();
        m.set_flags(TcpFlags::ALL);
        m.fill_checksum(&p6);
        let _ = m.payload_mut().len();
    }
    if let Ok(p) = Bth::new_checked(b) {
        let _ = (
            p.opcode(),
            p.solicited(),
            p.migreq(),
            p.pad_count(),
            p.tver(),
            p.pkey(),
        );
        let _ = (
            p.fecn(),
            p.becn(),
            p.resv6(),
            p.dest_qpn(),
            p.ack_req(),
            p.resv7(),
            p.psn(),
        );
        let _ = (BthRepr::parse(&p).unwrap(), p.payload().len());
    }
    if let Ok(p) = Deth::new_checked(b) {
        let _ = (
            p.qkey(),
            p.reserved(),
            p.src_qpn(),
            DethRepr::parse(&p).unwrap(),
        );
    }
    if let Ok(p) = ImmDt::new_checked(b) {
        let _ = (p.imm(), ImmDtRepr::parse(&p).unwrap());
    }
    if let Ok(p) = Lrh::new_checked(b) {
        let _ = (
            p.vl(),
            p.lver(),
            p.sl(),
            p.lnh(),
            p.dlid(),
            p.packet_len(),
            p.slid(),
        );
        let _ = (
            LrhRepr::parse(&p).unwrap(),
            p.packet_len_bytes(),
            p.payload().len(),
        );
    }
    if let Ok(p) = Grh::new_checked(b) {
        let _ = (
            p.ip_version(),
            p.traffic_class(),
            p.flow_label(),
            p.payload_len(),
        );
        let _ = (p.next_header(), p.hop_limit(), p.sgid(), p.dgid());
        let _ = GrhRepr::parse(&p).unwrap();
    }
    if let Ok(p) = IpoibHeader::new_checked(b) {
        let _ = (p.ethertype(), p.reserved(), p.payload().len());
        let _ = IpoibRepr::parse(&p).unwrap();
    }
    let _ = IpoibHwAddr::parse(b);
    let _ = icrc_compute(b);
    if let Ok(r) = RoceFrame::parse(b) {
        let _ = (r.stored(), r.computed(), r.is_valid(), r.l3_packet().len());
        let _ = (
            r.ip_version(),
            r.l3_offset(),
            r.udp_offset(),
            r.bth_offset(),
        );
        let bth = r.bth();
        assert!(Bth::new_checked(bth.into_inner()).is_ok());
        assert_eq!(r.bth_payload().len() + 12, r.icrc_offset() - r.bth_offset());
    }
    let mut c = b.to_vec();
    let _ = icrc_fill(&mut c);
    if let Ok(r) = PcapReader::new(b) {
        let _ = (r.link_type(), r.snaplen(), r.version(), r.is_nanosecond());
        let mut n = 0;
        for rec in r.records() {
            n += 1;
            assert!(n <= b.len(), "pcap iteration must end");
            if let Ok(rec) = rec {
                let _ = (rec.ts_sec, rec.ts_frac, rec.orig_len, rec.data.len());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Property tests

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

    #[test]
    fn udp_repr_round_trip(sp in any::<u16>(), dp in any::<u16>(), pl in 0usize..600) {
        let r = UdpRepr { src_port: sp, dst_port: dp, payload_len: pl };
        let mut b = vec![0u8; 8 + pl];
        r.emit(&mut UdpPacket::new_unchecked(&mut b[..])).unwrap();
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        let r2 = UdpRepr::parse(&p).unwrap();
        prop_assert_eq!(r2, r);
        let mut b2 = vec![0u8; 8 + pl];
        r2.emit(&mut UdpPacket::new_unchecked(&mut b2[..])).unwrap();
        prop_assert_eq!(b2, b);
    }

    #[test]
    fn tcp_repr_round_trip(r in arb_tcp()) {
        let mut b = vec![0u8; r.header_len()];
        r.emit(&mut TcpPacket::new_unchecked(&mut b[..])).unwrap();
        let p = TcpPacket::new_checked(&b[..]).unwrap();
        let r2 = TcpRepr::parse(&p).unwrap();
        prop_assert_eq!(r2, r);
        let mut b2 = vec![0u8; r2.header_len()];
        r2.emit(&mut TcpPacket::new_unchecked(&mut b2[..])).unwrap();
        prop_assert_eq!(b2, b);
    }

    #[test]
    fn bth_repr_round_trip(r in arb_bth()) {
        let mut b = [0u8; 12];
        r.emit(&mut Bth::new_unchecked(&mut b[..])).unwrap();
        let r2 = BthRepr::parse(&Bth::new_checked(&b[..]).unwrap()).unwrap();
        prop_assert_eq!(r2, r);
        let mut b2 = [0u8; 12];
        r2.emit(&mut Bth::new_unchecked(&mut b2[..])).unwrap();
        prop_assert_eq!(b2, b);
    }

    #[test]
    fn deth_immdt_ipoib_round_trip(qkey in any::<u32>(), qpn in 0u32..=0xFF_FFFF, et in any::<u16>()) {
        let d = DethRepr { qkey, src_qpn: qpn };
        let mut b = [0u8; 8];
        d.emit(&mut Deth::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(DethRepr::parse(&Deth::new_checked(&b[..]).unwrap()).unwrap(), d);
        let i = ImmDtRepr { imm: qkey };
        let mut b = [0u8; 4];
        i.emit(&mut ImmDt::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(b, qkey.to_be_bytes());
        prop_assert_eq!(ImmDtRepr::parse(&ImmDt::new_checked(&b[..]).unwrap()).unwrap(), i);
        let o = IpoibRepr { ethertype: et };
        o.emit(&mut IpoibHeader::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(IpoibRepr::parse(&IpoibHeader::new_checked(&b[..]).unwrap()).unwrap(), o);
        prop_assert_eq!(&b[2..], &[0, 0]);
    }

    #[test]
    fn lrh_grh_round_trip(
        (vl, lver, sl, lnh) in (0u8..16, 0u8..16, 0u8..16, 0u8..4),
        (dlid, slid, words) in (any::<u16>(), any::<u16>(), 2u16..0x800),
        g in arb_ipv6(),
    ) {
        let l = LrhRepr { vl, lver, sl, lnh, dlid, packet_len: words, slid };
        let mut b = vec![0u8; usize::from(words) * 4];
        l.emit(&mut Lrh::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(LrhRepr::parse(&Lrh::new_checked(&b[..]).unwrap()).unwrap(), l);
        let gr = GrhRepr {
            traffic_class: g.traffic_class,
            flow_label: g.flow_label,
            payload_len: g.payload_len as u16,
            next_header: g.next_header,
            hop_limit: g.hop_limit,
            sgid: g.src.into(),
            dgid: g.dst.into(),
        };
        let mut b = vec![0u8; 40 + g.payload_len];
        gr.emit(&mut Grh::new_unchecked(&mut b[..])).unwrap();
        prop_assert_eq!(GrhRepr::parse(&Grh::new_checked(&b[..]).unwrap()).unwrap(), gr);
        // A GRH is laid out as an IPv6 header.
        prop_assert_eq!(Ipv6Repr::parse(&Ipv6Packet::new_checked(&b[..]).unwrap()).unwrap(), g);
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

    #[test]
    fn udp_bytes_canonical(raw in any::<[u8; 8]>(), pl in 0usize..100) {
        let mut b = raw.to_vec();
        b.resize(8 + pl, 0);
        b[4..6].copy_from_slice(&((8 + pl) as u16).to_be_bytes());
        b[6] = 0;
        b[7] = 0; // the repr does not keep the checksum: emit writes 0
        let r = UdpRepr::parse(&UdpPacket::new_checked(&b[..]).unwrap()).unwrap();
        let mut out = [0u8; 8];
        r.emit(&mut UdpPacket::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(&out[..], &b[..8]);
    }

    #[test]
    fn tcp_bytes_canonical(words in 5usize..=15, raw in any::<[u8; 60]>()) {
        let hl = words * 4;
        let mut b = raw[..hl].to_vec();
        b[12] = ((words as u8) << 4) | (b[12] & 0x01); // reserved bits zero, NS kept
        b[16] = 0;
        b[17] = 0;
        let r = TcpRepr::parse(&TcpPacket::new_checked(&b[..]).unwrap()).unwrap();
        let mut out = vec![0u8; hl];
        r.emit(&mut TcpPacket::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(out, b);
    }

    #[test]
    fn ib_bytes_canonical(raw in any::<[u8; 40]>(), hw in any::<[u8; 20]>()) {
        let mut b = raw;
        b[4] &= 0xC0; // BTH resv6
        b[8] &= 0x80; // BTH resv7
        let r = BthRepr::parse(&Bth::new_checked(&b[..12]).unwrap()).unwrap();
        let mut out = [0u8; 12];
        r.emit(&mut Bth::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(&out[..], &b[..12]);

        let mut d = [0u8; 8];
        d.copy_from_slice(&raw[..8]);
        d[4] = 0; // DETH reserved byte
        let r = DethRepr::parse(&Deth::new_checked(&d[..]).unwrap()).unwrap();
        let mut out = [0u8; 8];
        r.emit(&mut Deth::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(out, d);

        let mut l = [0u8; 8];
        l.copy_from_slice(&raw[..8]);
        l[1] &= 0xF3; // LRH reserved bits
        l[4] = 0; // reserved bits and the high PktLen bits
        l[5] = l[5].max(2); // PktLen ≥ 8 bytes
        let mut lb = l.to_vec();
        lb.resize(usize::from(l[5]) * 4, 0);
        let r = LrhRepr::parse(&Lrh::new_checked(&lb[..]).unwrap()).unwrap();
        let mut out = [0u8; 8];
        r.emit(&mut Lrh::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(out, l);

        let mut g = raw;
        g[0] = 0x60 | (g[0] & 0x0F);
        g[4] = 0;
        g[5] = 0;
        let r = GrhRepr::parse(&Grh::new_checked(&g[..]).unwrap()).unwrap();
        let mut out = [0u8; 40];
        r.emit(&mut Grh::new_unchecked(&mut out[..])).unwrap();
        prop_assert_eq!(out, g);

        let a = IpoibHwAddr::parse(&hw).unwrap();
        prop_assert_eq!(a.to_bytes(), hw);
        let mut out = [0u8; 20];
        a.emit(&mut out).unwrap();
        prop_assert_eq!(out, hw);
    }

    // ----- checksums

    #[test]
    fn tcp_udp_checksums_verify(r in arb_tcp(), payload in proptest::collection::vec(any::<u8>(), 0..300), is_v6 in any::<bool>()) {
        let pseudo = if is_v6 {
            IpPseudo::V6 { src: v6(9), dst: v6(8), next_header: IpProtocol::TCP }
        } else {
            IpPseudo::V4 { src: v4(9), dst: v4(8), protocol: IpProtocol::TCP }
        };
        let mut b = vec![0u8; r.header_len() + payload.len()];
        r.emit(&mut TcpPacket::new_unchecked(&mut b[..])).unwrap();
        b[r.header_len()..].copy_from_slice(&payload);
        let mut p = TcpPacket::new_checked(&mut b[..]).unwrap();
        p.fill_checksum(&pseudo);
        prop_assert!(p.verify_checksum(&pseudo));
        prop_assert_eq!(p.payload(), &payload[..]);
        // Reference: a byte-by-byte sum over pseudo-header + segment.
        let seg = p.into_inner().to_vec();
        let mut ph = Vec::new();
        match pseudo {
            IpPseudo::V4 { src, dst, protocol } => {
                ph.extend_from_slice(&src.0);
                ph.extend_from_slice(&dst.0);
                ph.extend_from_slice(&[0, protocol]);
                ph.extend_from_slice(&(seg.len() as u16).to_be_bytes());
            }
            IpPseudo::V6 { src, dst, next_header } => {
                ph.extend_from_slice(&src.0);
                ph.extend_from_slice(&dst.0);
                ph.extend_from_slice(&(seg.len() as u32).to_be_bytes());
                ph.extend_from_slice(&[0, 0, 0, next_header]);
            }
        }
        ph.extend_from_slice(&seg);
        let mut s: u32 = 0;
        for c in ph.chunks(2) {
            s += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
        }
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        prop_assert_eq!(s, 0xFFFF);
        prop_assert_eq!(checksum::sum(&ph), 0xFFFF);

        // UDP over the same payload.
        let u = UdpRepr { src_port: r.src_port, dst_port: r.dst_port, payload_len: payload.len() };
        let mut d = vec![0u8; 8 + payload.len()];
        u.emit(&mut UdpPacket::new_unchecked(&mut d[..])).unwrap();
        d[8..].copy_from_slice(&payload);
        let mut p = UdpPacket::new_checked(&mut d[..]).unwrap();
        p.fill_checksum(&pseudo);
        prop_assert_ne!(p.checksum(), 0);
        prop_assert!(p.verify_checksum(&pseudo));
    }

    // ----- ICRC

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

    // ----- pcap

    #[test]
    fn pcap_round_trip(
        link in prop_oneof![Just(LinkType::ETHERNET), Just(LinkType::INFINIBAND)],
        recs in proptest::collection::vec((any::<u32>(), 0u32..1_000_000, proptest::collection::vec(any::<u8>(), 0..80)), 0..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut file = write_global_header(link, 65535).to_vec();
        for (s, us, data) in &recs {
            file.extend_from_slice(&record_header(*s, *us, data.len() as u32, data.len() as u32 + 4));
            file.extend_from_slice(data);
        }
        let r = PcapReader::new(&file).unwrap();
        prop_assert_eq!(r.link_type(), link);
        prop_assert_eq!(r.snaplen(), 65535);
        prop_assert!(!r.is_nanosecond() && !r.is_big_endian());
        let got: Vec<_> = r.records().collect::<Result<Vec<_>>>().unwrap();
        prop_assert_eq!(got.len(), recs.len());
        for (g, (s, us, data)) in got.iter().zip(&recs) {
            prop_assert_eq!((g.ts_sec, g.ts_frac, g.orig_len), (*s, *us, data.len() as u32 + 4));
            prop_assert_eq!(g.data, &data[..]);
        }
        // Cutting the file anywhere after the global header yields whole records, then at
        // most one Truncated, then the end.
        let n = 24 + cut.index(file.len() - 23);
        let r = PcapReader::new(&file[..n]).unwrap();
        let items: Vec<_> = r.records().collect();
        for (i, it) in items.iter().enumerate() {
            if it.is_err() {
                prop_assert_eq!(*it, Err(Error::Truncated));
                prop_assert_eq!(i, items.len() - 1);
            }
        }
    }

}

proptest! {
    // The fuzz cases are cheap: run more of them.
    #![proptest_config(ProptestConfig::with_cases(2048))]

    // ----- no-panic fuzz

    #[test]
    fn fuzz_arbitrary_bytes(b in proptest::collection::vec(any::<u8>(), 0..200), nh in any::<u8>()) {
        exercise_all(&b, nh);
    }

    /// Starts from valid frames and headers, so the deeper paths get random bytes too.
    #[test]
    fn fuzz_mutated_frames(
        spec in arb_spec(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        start in 0usize..64,
        nh in any::<u8>(),
    ) {
        let mut f = build(&spec);
        icrc_fill(&mut f).unwrap();
        for (i, v) in &edits {
            let at = i.index(f.len());
            f[at] = *v;
        }
        let end = cut.map_or(f.len(), |c| c.index(f.len() + 1));
        let f = &f[..end];
        exercise_all(f, nh);
        let s = start.min(f.len());
        exercise_all(&f[s..], nh);
        // Valid pcap headers in front of the mutated bytes.
        let mut file = write_global_header(LinkType::ETHERNET, 65535).to_vec();
        file.extend_from_slice(&record_header(1, 2, (f.len() / 2) as u32, f.len() as u32));
        file.extend_from_slice(f);
        exercise_all(&file, nh);
    }
}
