//! The RC Acknowledge packet (opcode 0x11) as a whole frame: BTH, AETH and the ICRC, nothing
//! else (docs/rc.md, "The ACK frame"). The responder builds it with the send engine's framing
//! ([`crate::wqe::frame`]) and the requester reads it back here.

use crate::rx::Discard;
use crate::wire::ib::{opcode as op, Aeth, AethRepr, BthRepr, AETH_LEN};
use crate::wire::{Result, RoceFrame};
use crate::wqe::frame::{emit_headers, finish, Route, Transport, PKEY};

/// An acknowledgement as the wire carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// The requester's QP (the BTH destination).
    pub dest_qpn: u32,
    /// The PSN acknowledged (ACK, RNR NAK) or expected (NAK sequence error).
    pub psn: u32,
    /// Syndrome and MSN.
    pub aeth: AethRepr,
}

/// Writes `ack` as a frame along `route` into `out` and returns its length (at least the
/// Ethernet minimum, zero padded). The AETH takes the place of a payload: four bytes, no pad.
pub fn emit_ack(route: &Route, ack: &Ack, out: &mut [u8]) -> Result<usize> {
    let t = Transport {
        bth: BthRepr {
            opcode: op::RC_ACK,
            solicited: false,
            migreq: false,
            pad_count: 0,
            tver: 0,
            pkey: PKEY,
            fecn: false,
            becn: false,
            dest_qpn: ack.dest_qpn,
            ack_req: false,
            psn: ack.psn,
        },
        reth: None,
        deth: None,
        imm: None,
    };
    let hl = emit_headers(route, &t, AETH_LEN, out)?;
    let aeth = out
        .get_mut(hl..hl + AETH_LEN)
        .ok_or(crate::wire::Error::Truncated)?;
    ack.aeth.emit(&mut Aeth::new_unchecked(aeth))?;
    finish(out, hl, AETH_LEN, 0, route.l3_offset())
}

/// Reads an Acknowledge frame: a good ICRC (and IPv4 header checksum), the default P_Key,
/// TVer 0, opcode 0x11 and exactly an AETH after the BTH. Another RoCEv2 opcode is
/// [`Discard::Unsupported`]; anything not RoCEv2 or not well formed is [`Discard::Malformed`].
pub fn parse_ack(frame: &[u8]) -> core::result::Result<Ack, Discard> {
    let f = RoceFrame::parse(frame).map_err(|_| Discard::Malformed)?;
    if !f.is_valid() {
        return Err(Discard::Icrc);
    }
    if f.ip_version() == 4 {
        let ip = crate::wire::Ipv4Packet::new_unchecked(&frame[f.l3_offset()..]);
        if !ip.verify_checksum() {
            return Err(Discard::Icrc);
        }
    }
    let bth = f.bth();
    if bth.pkey() != PKEY || bth.tver() != 0 || bth.pad_count() != 0 {
        return Err(Discard::Malformed);
    }
    if bth.opcode() != op::RC_ACK {
        return Err(Discard::Unsupported);
    }
    let rest = f.bth_payload();
    if rest.len() != AETH_LEN {
        return Err(Discard::Malformed);
    }
    let aeth = AethRepr::parse(&Aeth::new_unchecked(rest)).map_err(|_| Discard::Malformed)?;
    Ok(Ack {
        dest_qpn: bth.dest_qpn(),
        psn: bth.psn(),
        aeth,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::qp::IpPair;
    use crate::wire::ib::{NakCode, Syndrome, CREDITS_UNLIMITED};
    use crate::wire::{EthernetAddress, Ipv4Address, Ipv6Address, MIN_FRAME};
    use crate::wqe::frame::MAX_FRAME;

    /// A route for the tests of this module and `read`'s.
    pub(in crate::rc) fn route(ip: IpPair, vlan: Option<(u16, u8)>) -> Route {
        Route {
            src_mac: EthernetAddress([2, 0, 0, 0, 0, 2]),
            dst_mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
            vlan,
            ip,
            traffic_class: 0,
            hop_limit: 64,
            flow_label: 0x1234,
            udp_sport: 0xC001,
        }
    }

    fn routes() -> [Route; 3] {
        let v4 = IpPair::V4 {
            src: Ipv4Address::new(10, 0, 0, 2),
            dst: Ipv4Address::new(10, 0, 0, 1),
        };
        let v6 = IpPair::V6 {
            src: Ipv6Address([0xfd; 16]),
            dst: Ipv6Address([0xfe; 16]),
        };
        [
            route(v4, None),
            route(v4, Some((100, 3))),
            route(v6, Some((7, 0))),
        ]
    }

    #[test]
    fn acks_round_trip_on_every_route() {
        let syndromes = [
            Syndrome::Ack {
                credits: CREDITS_UNLIMITED,
            },
            Syndrome::RnrNak { timer: 14 },
            Syndrome::Nak(NakCode::PsnSequence),
            Syndrome::Nak(NakCode::RemoteAccess),
        ];
        for r in routes() {
            for syndrome in syndromes {
                let ack = Ack {
                    dest_qpn: 0xAB_CDEF,
                    psn: 0xFF_FFFF,
                    aeth: AethRepr {
                        syndrome,
                        msn: 0x80_0001,
                    },
                };
                let mut buf = [0u8; MAX_FRAME];
                let n = emit_ack(&r, &ack, &mut buf).unwrap();
                // IPv4 without a tag: 14 + 20 + 8 + 12 + 4 + 4 = 62 bytes, over the minimum.
                assert!(n >= MIN_FRAME);
                let f = RoceFrame::parse(&buf[..n]).unwrap();
                assert!(f.is_valid());
                assert_eq!(f.bth().opcode(), op::RC_ACK);
                assert!(!f.bth().ack_req());
                assert_eq!(f.bth_payload().len(), AETH_LEN);
                assert_eq!(parse_ack(&buf[..n]), Ok(ack));
            }
        }
    }

    #[test]
    fn bad_acks_are_refused() {
        let r = routes()[0];
        let ack = Ack {
            dest_qpn: 0x12,
            psn: 5,
            aeth: AethRepr {
                syndrome: Syndrome::Ack { credits: 0 },
                msn: 1,
            },
        };
        let mut buf = [0u8; MAX_FRAME];
        let n = emit_ack(&r, &ack, &mut buf).unwrap();
        let bth = 14 + 20 + 8;
        // A flipped AETH bit breaks the ICRC.
        let mut bad = buf;
        bad[bth + 12] ^= 1;
        assert_eq!(parse_ack(&bad[..n]), Err(Discard::Icrc));
        // A reserved syndrome with a good ICRC is malformed.
        let mut bad = buf;
        bad[bth + 12] = 0x40;
        crate::wire::icrc_fill(&mut bad[..bth + 20]).unwrap();
        assert_eq!(parse_ack(&bad[..n]), Err(Discard::Malformed));
        // Another opcode is not an ACK.
        let mut bad = buf;
        bad[bth] = op::RC_SEND_ONLY;
        crate::wire::icrc_fill(&mut bad[..bth + 20]).unwrap();
        assert_eq!(parse_ack(&bad[..n]), Err(Discard::Unsupported));
        assert_eq!(parse_ack(&buf[..20]), Err(Discard::Malformed));
        assert!(emit_ack(&r, &ack, &mut buf[..50]).is_err());
    }
}
