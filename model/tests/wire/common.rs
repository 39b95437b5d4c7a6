//! Test-only frame construction and strategies shared by the wire tests.

// Not every helper is used by every build of the tests.
#![allow(dead_code)]

use proptest::prelude::*;
use rocenic_model::wire::*;

/// Bytes from hex text; whitespace ignored.
pub fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    assert!(digits.len().is_multiple_of(2), "odd hex length");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// What a test RoCEv2 frame is made of.
#[derive(Debug, Clone)]
pub struct Spec {
    pub vlan: Option<VlanTag>,
    pub v6: bool,
    pub ip_options: Vec<u8>,
    pub tos: u8,
    pub ttl: u8,
    pub flow_label: u32,
    pub sport: u16,
    pub bth: BthRepr,
    pub deth: Option<DethRepr>,
    pub imm: Option<u32>,
    pub payload: Vec<u8>,
}

pub fn mac(last: u8) -> EthernetAddress {
    EthernetAddress([0x02, 0, 0, 0, 0, last])
}

pub fn v4(last: u8) -> Ipv4Address {
    Ipv4Address::new(10, 0, 0, last)
}

pub fn v6(last: u8) -> Ipv6Address {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = last;
    Ipv6Address(a)
}

pub fn bth(opcode: u8, dest_qpn: u32, psn: u32) -> BthRepr {
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
pub fn build(spec: &Spec) -> Vec<u8> {
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

pub fn rc_send_only_v4() -> Spec {
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

pub fn ud_send_only_v6() -> Spec {
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

pub fn arb_vlan() -> impl Strategy<Value = VlanTag> {
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

pub fn arb_options() -> impl Strategy<Value = Vec<u8>> {
    (0usize..=10).prop_flat_map(|words| proptest::collection::vec(any::<u8>(), words * 4))
}

pub fn arb_ipv6() -> impl Strategy<Value = Ipv6Repr> {
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

pub fn arb_spec() -> impl Strategy<Value = Spec> {
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
