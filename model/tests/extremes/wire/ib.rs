//! InfiniBand and IPoIB `Repr`s: every sub-byte field and 24-bit number at and past its width.

use crate::{config, edge_u16, edge_u32, edge_u8};
use proptest::prelude::*;
use rocenic_model::wire::ib::opcode;
use rocenic_model::wire::*;

const MASK24: u32 = 0xFF_FFFF;

/// A 24-bit field's values: the edges of u32 and of 24 bits.
fn u24ish() -> impl Strategy<Value = u32> {
    prop_oneof![edge_u32(), Just(MASK24 - 1), Just(MASK24), Just(MASK24 + 1)]
}

proptest! {
    #![proptest_config(config("wire::ib", 384))]

    /// LRH: `Malformed` exactly when VL, LVer, SL (4 bits), LNH (2) or PktLen (11) overflow.
    #[test]
    fn lrh_emit(
        f in (edge_u8(), edge_u8(), edge_u8(), prop_oneof![edge_u8(), 0u8..=4]),
        lids in (edge_u16(), edge_u16()),
        packet_len in prop_oneof![edge_u16(), Just(0x7FF), Just(0x800)],
        buf in prop::sample::select(vec![0usize, 7, 8, 9]),
    ) {
        let r = LrhRepr { vl: f.0, lver: f.1, sl: f.2, lnh: f.3, dlid: lids.0, packet_len, slid: lids.1 };
        let bad = f.0 > 15 || f.1 > 15 || f.2 > 15 || f.3 > 3 || packet_len > 0x7FF;
        let mut b = vec![0u8; buf];
        let got = r.emit(&mut Lrh::new_unchecked(&mut b[..]));
        if bad {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if buf < 8 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            let p = Lrh::new_unchecked(&b[..]);
            prop_assert_eq!((p.vl(), p.lver(), p.sl(), p.lnh()), (f.0, f.1, f.2, f.3));
            prop_assert_eq!((p.dlid(), p.packet_len(), p.slid()), (lids.0, packet_len, lids.1));
            prop_assert_eq!(p.packet_len_bytes(), usize::from(packet_len) * 4);
        }
    }

    /// GRH: `Malformed` exactly for a flow label past 20 bits.
    #[test]
    fn grh_emit(
        flow_label in u24ish(),
        payload_len in edge_u16(),
        tc in edge_u8(),
        buf in prop::sample::select(vec![0usize, 39, 40]),
    ) {
        let r = GrhRepr {
            traffic_class: tc,
            flow_label,
            payload_len,
            next_header: IpProtocol::IB_BTH,
            hop_limit: 1,
            sgid: Gid([0xFE; 16]),
            dgid: Gid([1; 16]),
        };
        let mut b = vec![0u8; buf];
        let got = r.emit(&mut Grh::new_unchecked(&mut b[..]));
        if flow_label > 0xF_FFFF {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if buf < 40 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            let p = Grh::new_unchecked(&b[..]);
            prop_assert_eq!(
                (p.ip_version(), p.traffic_class(), p.flow_label(), p.payload_len()),
                (6, tc, flow_label, payload_len)
            );
            prop_assert_eq!((p.sgid(), p.dgid()), (r.sgid, r.dgid));
        }
    }

    /// BTH: `Malformed` exactly when PadCnt (2 bits), TVer (4), DestQP or PSN (24) overflow;
    /// DETH: when SrcQP does; ImmDt takes any value.
    #[test]
    fn transport_headers_emit(
        op in edge_u8(),
        pad_count in prop_oneof![edge_u8(), 0u8..=4],
        tver in prop_oneof![edge_u8(), 15u8..=16],
        qpns in (u24ish(), u24ish(), u24ish()),
        pkey in edge_u16(),
        bits in any::<[bool; 5]>(),
        qkey in edge_u32(),
        buf in 0usize..=13,
    ) {
        let (dest_qpn, psn, src_qpn) = qpns;
        let [solicited, migreq, fecn, becn, ack_req] = bits;
        let r = BthRepr { opcode: op, solicited, migreq, pad_count, tver, pkey, fecn, becn, dest_qpn, ack_req, psn };
        let bad = pad_count > 3 || tver > 15 || dest_qpn > MASK24 || psn > MASK24;
        let mut b = vec![0u8; buf];
        let got = r.emit(&mut Bth::new_unchecked(&mut b[..]));
        if bad {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if buf < 12 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            prop_assert_eq!(BthRepr::parse(&Bth::new_checked(&b[..]).unwrap()), Ok(r));
        }

        let d = DethRepr { qkey, src_qpn };
        let mut b = vec![0u8; buf];
        let got = d.emit(&mut Deth::new_unchecked(&mut b[..]));
        if src_qpn > MASK24 {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if buf < 8 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(got, Ok(()));
            prop_assert_eq!(DethRepr::parse(&Deth::new_checked(&b[..]).unwrap()), Ok(d));
        }

        let i = ImmDtRepr { imm: qkey };
        let got = i.emit(&mut ImmDt::new_unchecked(&mut b[..]));
        if buf < 4 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(ImmDtRepr::parse(&ImmDt::new_checked(&b[..]).unwrap()), Ok(i));
        }

        // The opcode helpers follow their definitions for every byte.
        let (t, low) = (op & 0xE0, op & 0x1F);
        prop_assert_eq!(opcode::transport(op), t);
        prop_assert_eq!(opcode::has_deth(op), t == 0x60);
        let imm = match t {
            0x00 | 0x20 | 0x40 | 0xA0 => matches!(low, 0x03 | 0x05 | 0x09 | 0x0B),
            0x60 => low == 0x05,
            _ => false,
        };
        prop_assert_eq!(opcode::has_immdt(op), imm);
    }

    /// IPoIB: the hardware address refuses a QPN past 24 bits, `to_bytes` keeps its low 24;
    /// the encapsulation header takes any EtherType.
    #[test]
    fn ipoib_emit(
        qpn in u24ish(),
        flags in edge_u8(),
        ethertype in edge_u16(),
        buf in prop::sample::select(vec![0usize, 3, 4, 19, 20, 21]),
    ) {
        let a = IpoibHwAddr { flags, qpn, gid: Gid([0xAB; 16]) };
        let mut b = vec![0u8; buf];
        let got = a.emit(&mut b);
        if qpn > MASK24 {
            prop_assert!(matches!(got, Err(Error::Malformed(_))), "{:?}", got);
        } else if buf < 20 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            prop_assert_eq!(IpoibHwAddr::parse(&b), Ok(a));
        }
        let bytes = a.to_bytes();
        prop_assert_eq!(IpoibHwAddr::parse(&bytes), Ok(IpoibHwAddr { qpn: qpn & MASK24, ..a }));

        let r = IpoibRepr { ethertype };
        let mut b = vec![0xEEu8; buf];
        let got = r.emit(&mut IpoibHeader::new_unchecked(&mut b[..]));
        if buf < 4 {
            prop_assert_eq!(got, Err(Error::Truncated));
        } else {
            let p = IpoibHeader::new_checked(&b[..]).unwrap();
            prop_assert_eq!((p.ethertype(), p.reserved()), (ethertype, 0));
        }
    }
}
