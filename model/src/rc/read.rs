//! RDMA READ responses as whole frames (docs/rc.md, "RDMA READ"): the responder cuts the bytes
//! a READ asks for into path-MTU pieces, one PSN each, FIRST / MIDDLE… / LAST or ONLY, an AETH
//! on every one but a MIDDLE, and the requester reads them back here. The framing is the send
//! engine's ([`crate::wqe::frame`]), as for the Acknowledge frame.

use crate::qp::Psn;
use crate::rx::Discard;
use crate::wire::ib::{opcode as op, Aeth, AethRepr, BthRepr, AETH_LEN};
use crate::wire::{Result, RoceFrame};
use crate::wqe::frame::{emit_headers, finish, Route, Transport, PKEY};

/// The opcode of response `index` of `count` (the responses of one READ request).
pub const fn response_opcode(index: u32, count: u32) -> u8 {
    match (index == 0, index + 1 == count) {
        (true, true) => op::RC_RDMA_READ_RESPONSE_ONLY,
        (true, false) => op::RC_RDMA_READ_RESPONSE_FIRST,
        (false, true) => op::RC_RDMA_READ_RESPONSE_LAST,
        (false, false) => op::RC_RDMA_READ_RESPONSE_MIDDLE,
    }
}

/// One READ response as the wire carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadResponse<'a> {
    /// The requester's QP (the BTH destination).
    pub dest_qpn: u32,
    /// Its PSN.
    pub psn: Psn,
    /// FIRST, MIDDLE, LAST or ONLY.
    pub opcode: u8,
    /// The AETH (all but MIDDLE).
    pub aeth: Option<AethRepr>,
    /// The bytes, pad removed.
    pub payload: &'a [u8],
}

/// Writes `r` as a frame along `route` into `out` and returns its length. The AETH is present
/// exactly when the opcode carries one.
pub fn emit_read_response(route: &Route, r: &ReadResponse<'_>, out: &mut [u8]) -> Result<usize> {
    let aeth_len = if op::has_aeth(r.opcode) { AETH_LEN } else { 0 };
    let pad = (r.payload.len().wrapping_neg() & 3) as u8;
    let t = Transport {
        bth: BthRepr {
            opcode: r.opcode,
            solicited: false,
            migreq: false,
            pad_count: pad,
            tver: 0,
            pkey: PKEY,
            fecn: false,
            becn: false,
            dest_qpn: r.dest_qpn,
            ack_req: false,
            psn: r.psn.get(),
        },
        reth: None,
        deth: None,
        imm: None,
    };
    let body = aeth_len + r.payload.len();
    let hl = emit_headers(route, &t, body, out)?;
    let dst = out
        .get_mut(hl..hl + body)
        .ok_or(crate::wire::Error::Truncated)?;
    if aeth_len > 0 {
        let aeth = r.aeth.ok_or(crate::wire::Error::Malformed(
            "READ response without its AETH",
        ))?;
        aeth.emit(&mut Aeth::new_unchecked(&mut dst[..AETH_LEN]))?;
    }
    dst[aeth_len..].copy_from_slice(r.payload);
    finish(out, hl, body, pad, route.l3_offset())
}

/// Reads a READ response frame: a good ICRC (and IPv4 header checksum), the default P_Key,
/// TVer 0, opcode 0x0D–0x10 and an AETH where the opcode has one. Another RoCEv2 opcode is
/// [`Discard::Unsupported`]; anything not RoCEv2 or not well formed is [`Discard::Malformed`].
pub fn parse_read_response(frame: &[u8]) -> core::result::Result<ReadResponse<'_>, Discard> {
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
    if bth.pkey() != PKEY || bth.tver() != 0 {
        return Err(Discard::Malformed);
    }
    let opcode = bth.opcode();
    if !(op::RC_RDMA_READ_RESPONSE_FIRST..=op::RC_RDMA_READ_RESPONSE_ONLY).contains(&opcode) {
        return Err(Discard::Unsupported);
    }
    let rest = f.bth_payload();
    let (aeth, body) = if op::has_aeth(opcode) {
        let a = rest.get(..AETH_LEN).ok_or(Discard::Malformed)?;
        let aeth = AethRepr::parse(&Aeth::new_unchecked(a)).map_err(|_| Discard::Malformed)?;
        (Some(aeth), &rest[AETH_LEN..])
    } else {
        (None, rest)
    };
    let pad = usize::from(bth.pad_count());
    if body.len() < pad {
        return Err(Discard::Malformed);
    }
    Ok(ReadResponse {
        dest_qpn: bth.dest_qpn(),
        psn: Psn::from_bits_truncate(bth.psn()),
        opcode,
        aeth,
        payload: &body[..body.len() - pad],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::IpPair;
    use crate::rc::ack::tests::route;
    use crate::wire::ib::{Syndrome, CREDITS_UNLIMITED};
    use crate::wire::{Ipv4Address, Ipv6Address};
    use crate::wqe::frame::MAX_FRAME;

    #[test]
    fn opcodes_follow_the_position() {
        assert_eq!(response_opcode(0, 1), op::RC_RDMA_READ_RESPONSE_ONLY);
        let ops: [u8; 3] = core::array::from_fn(|i| response_opcode(i as u32, 3));
        assert_eq!(
            ops,
            [
                op::RC_RDMA_READ_RESPONSE_FIRST,
                op::RC_RDMA_READ_RESPONSE_MIDDLE,
                op::RC_RDMA_READ_RESPONSE_LAST
            ]
        );
    }

    #[test]
    fn responses_round_trip_with_and_without_aeth() {
        let v4 = IpPair::V4 {
            src: Ipv4Address::new(10, 0, 0, 2),
            dst: Ipv4Address::new(10, 0, 0, 1),
        };
        let v6 = IpPair::V6 {
            src: Ipv6Address([0xfd; 16]),
            dst: Ipv6Address([0xfe; 16]),
        };
        let data: [u8; 300] = core::array::from_fn(|i| i as u8);
        let aeth = AethRepr {
            syndrome: Syndrome::Ack {
                credits: CREDITS_UNLIMITED,
            },
            msn: 0x12_3456,
        };
        for r in [route(v4, None), route(v6, Some((100, 3)))] {
            for (opcode, len) in [
                (op::RC_RDMA_READ_RESPONSE_FIRST, 256),
                (op::RC_RDMA_READ_RESPONSE_MIDDLE, 256),
                (op::RC_RDMA_READ_RESPONSE_LAST, 5),
                (op::RC_RDMA_READ_RESPONSE_ONLY, 0),
            ] {
                let resp = ReadResponse {
                    dest_qpn: 0xAB_CDEF,
                    psn: Psn::new(Psn::MASK).unwrap(),
                    opcode,
                    aeth: op::has_aeth(opcode).then_some(aeth),
                    payload: &data[..len],
                };
                let mut buf = [0u8; MAX_FRAME];
                let n = emit_read_response(&r, &resp, &mut buf).unwrap();
                assert_eq!(parse_read_response(&buf[..n]), Ok(resp));
                // A flipped payload or AETH bit breaks the ICRC.
                let mut bad = buf;
                bad[n - 5] ^= 0x10;
                assert_eq!(parse_read_response(&bad[..n]), Err(Discard::Icrc));
            }
        }
        // An ACK is not a READ response.
        let mut buf = [0u8; MAX_FRAME];
        let ack = crate::rc::Ack {
            dest_qpn: 1,
            psn: 2,
            aeth,
        };
        let n = crate::rc::emit_ack(&route(v4, None), &ack, &mut buf).unwrap();
        assert_eq!(parse_read_response(&buf[..n]), Err(Discard::Unsupported));
    }
}
