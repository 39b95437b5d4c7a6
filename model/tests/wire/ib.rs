//! InfiniBand headers (LRH, GRH, BTH, DETH, ImmDt) and the IPoIB header and hardware
//! address: known layouts, emit/parse round trips and canonical bytes.

use crate::common::*;
use proptest::prelude::*;
use rocenic_model::wire::ib::{GRH_LEN, LNH_IBA_GLOBAL};
use rocenic_model::wire::*;

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // ----- emit → parse → emit round trips (random reprs)

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
}
