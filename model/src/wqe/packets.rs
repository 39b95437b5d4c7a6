//! How one message becomes packets: each packet's BTH opcode, the slice of the message it
//! carries, and which extension headers follow its BTH (docs/wqe.md, "Packets of a message").
//!
//! RC cuts a message into path-MTU pieces, FIRST / MIDDLE… / LAST, or ONLY when it fits one
//! packet (a zero-length message is one ONLY packet); the RETH rides on the first packet of an
//! RDMA WRITE, the immediate on the last. UD sends exactly one packet, ONLY, with a DETH; the
//! engine refuses a UD message larger than the MTU before it gets here. An RDMA READ is one
//! request packet (READ_REQUEST, a RETH, no payload) however long the read: the bytes come
//! back in the responder's READ responses, one PSN each ([`read_psns`]).

use super::Opcode;
use crate::entropy::QpType;
use crate::qp::PathMtu;
use crate::wire::ib::opcode as op;

/// One packet of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// BTH opcode.
    pub opcode: u8,
    /// Offset of its payload in the message.
    pub offset: u32,
    /// Payload bytes (before the 0..3 pad bytes).
    pub len: u32,
    /// Index of the packet in the message (its PSN is the message's first plus this).
    pub index: u32,
    /// The message's last packet: it carries the immediate, the solicited bit and (RC) AckReq.
    pub last: bool,
}

impl Packet {
    /// A RETH follows the BTH.
    pub const fn reth(&self) -> bool {
        op::has_reth(self.opcode)
    }

    /// A DETH follows the BTH (and the RETH, which a UD packet never has).
    pub const fn deth(&self) -> bool {
        op::has_deth(self.opcode)
    }

    /// An ImmDt follows the other extension headers.
    pub const fn imm(&self) -> bool {
        op::has_immdt(self.opcode)
    }

    /// Bytes of the extension headers after the BTH.
    pub const fn ext_len(&self) -> usize {
        let mut n = 0;
        if self.reth() {
            n += crate::wire::ib::RETH_LEN;
        }
        if self.deth() {
            n += crate::wire::ib::DETH_LEN;
        }
        if self.imm() {
            n += crate::wire::ib::IMMDT_LEN;
        }
        n
    }

    /// Pad bytes after the payload (BTH PadCnt): to a multiple of 4.
    pub const fn pad(&self) -> u8 {
        (self.len.wrapping_neg() & 3) as u8
    }
}

/// The PSNs an RDMA READ of `len` bytes takes: one per response packet, at least one.
pub const fn read_psns(len: u32, mtu: PathMtu) -> u32 {
    mtu.packets(len)
}

/// The packets of one message, in order.
#[derive(Clone, Debug)]
pub struct Packets {
    qp_type: QpType,
    opcode: Opcode,
    len: u32,
    mtu: u32,
    count: u32,
    next: u32,
}

impl Packets {
    /// The packets of an `opcode` message of `len` bytes on a QP of `qp_type` with path MTU
    /// `mtu` (the count is [`PathMtu::packets`]; an RDMA READ is one request packet).
    pub const fn new(qp_type: QpType, opcode: Opcode, len: u32, mtu: PathMtu) -> Packets {
        let read = matches!(opcode, Opcode::RdmaRead);
        Packets {
            qp_type,
            opcode,
            len: if read { 0 } else { len },
            mtu: mtu.bytes(),
            count: if read { 1 } else { mtu.packets(len) },
            next: 0,
        }
    }

    /// How many packets the message takes.
    pub const fn packets(&self) -> u32 {
        self.count
    }

    const fn opcode_of(&self, index: u32) -> u8 {
        let first = index == 0;
        let last = index + 1 == self.count;
        match (self.qp_type, self.opcode) {
            (QpType::Ud, Opcode::SendImm) => op::UD_SEND_ONLY_WITH_IMM,
            (QpType::Ud, _) => op::UD_SEND_ONLY,
            (QpType::Rc, Opcode::RdmaRead) => op::RC_RDMA_READ_REQUEST,
            (QpType::Rc, o) => {
                let imm = o.has_imm();
                let (first_op, middle, last_op, last_imm, only, only_imm) = if o.has_raddr() {
                    (
                        op::RC_RDMA_WRITE_FIRST,
                        op::RC_RDMA_WRITE_MIDDLE,
                        op::RC_RDMA_WRITE_LAST,
                        op::RC_RDMA_WRITE_LAST_WITH_IMM,
                        op::RC_RDMA_WRITE_ONLY,
                        op::RC_RDMA_WRITE_ONLY_WITH_IMM,
                    )
                } else {
                    (
                        op::RC_SEND_FIRST,
                        op::RC_SEND_MIDDLE,
                        op::RC_SEND_LAST,
                        op::RC_SEND_LAST_WITH_IMM,
                        op::RC_SEND_ONLY,
                        op::RC_SEND_ONLY_WITH_IMM,
                    )
                };
                match (first, last, imm) {
                    (true, true, false) => only,
                    (true, true, true) => only_imm,
                    (true, false, _) => first_op,
                    (false, false, _) => middle,
                    (false, true, false) => last_op,
                    (false, true, true) => last_imm,
                }
            }
        }
    }
}

impl Iterator for Packets {
    type Item = Packet;

    fn next(&mut self) -> Option<Packet> {
        if self.next >= self.count {
            return None;
        }
        let index = self.next;
        self.next += 1;
        // index < count = ceil(len / mtu), so offset < len and nothing overflows.
        let offset = index * self.mtu;
        let len = if self.len - offset < self.mtu {
            self.len - offset
        } else {
            self.mtu
        };
        Some(Packet {
            opcode: self.opcode_of(index),
            offset,
            len: if self.len == 0 { 0 } else { len },
            index,
            last: index + 1 == self.count,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.count - self.next) as usize;
        (n, Some(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(bytes: u32) -> PathMtu {
        PathMtu::from_bytes(bytes).unwrap()
    }

    fn ops(t: QpType, o: Opcode, len: u32, mtu: u32) -> ([u8; 8], usize) {
        let mut out = [0u8; 8];
        let mut n = 0;
        for p in Packets::new(t, o, len, m(mtu)) {
            out[n] = p.opcode;
            n += 1;
        }
        (out, n)
    }

    #[test]
    fn a_read_is_one_request_packet_and_a_psn_per_response() {
        for (len, psns) in [(0, 1), (1, 1), (256, 1), (257, 2), (1000, 4)] {
            let mut it = Packets::new(QpType::Rc, Opcode::RdmaRead, len, m(256));
            assert_eq!(it.packets(), 1);
            let p = it.next().unwrap();
            assert_eq!(
                (p.opcode, p.len, p.last),
                (op::RC_RDMA_READ_REQUEST, 0, true)
            );
            assert!(p.reth() && !p.imm() && it.next().is_none());
            assert_eq!(read_psns(len, m(256)), psns);
        }
    }

    #[test]
    fn rc_send_split_by_mtu() {
        let (o, n) = ops(QpType::Rc, Opcode::Send, 3000, 1024);
        assert_eq!(&o[..n], &[0x00, 0x01, 0x02]);
        let (o, n) = ops(QpType::Rc, Opcode::SendImm, 2048, 1024);
        assert_eq!(&o[..n], &[0x00, 0x03]);
        let (o, n) = ops(QpType::Rc, Opcode::SendImm, 1024, 1024);
        assert_eq!(&o[..n], &[0x05]);
        let (o, n) = ops(QpType::Rc, Opcode::Send, 0, 256);
        assert_eq!(&o[..n], &[0x04]);
    }

    #[test]
    fn rc_write_carries_reth_first_and_imm_last() {
        let p: [Packet; 3] = {
            let mut it = Packets::new(QpType::Rc, Opcode::RdmaWriteImm, 600, m(256));
            [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
        };
        assert_eq!([p[0].opcode, p[1].opcode, p[2].opcode], [0x06, 0x07, 0x09]);
        assert_eq!(
            [p[0].reth(), p[1].reth(), p[2].reth()],
            [true, false, false]
        );
        assert_eq!([p[0].imm(), p[1].imm(), p[2].imm()], [false, false, true]);
        assert_eq!([p[0].len, p[1].len, p[2].len], [256, 256, 88]);
        assert_eq!([p[0].offset, p[1].offset, p[2].offset], [0, 256, 512]);
        assert!(p[2].last && !p[1].last);
        assert_eq!(p[2].ext_len(), 4);
        let only = Packets::new(QpType::Rc, Opcode::RdmaWriteImm, 5, m(256))
            .next()
            .unwrap();
        assert_eq!((only.opcode, only.ext_len(), only.pad()), (0x0B, 20, 3));
        let only = Packets::new(QpType::Rc, Opcode::RdmaWrite, 8, m(256))
            .next()
            .unwrap();
        assert_eq!((only.opcode, only.ext_len(), only.pad()), (0x0A, 16, 0));
    }

    #[test]
    fn ud_is_one_packet_with_deth() {
        let p = Packets::new(QpType::Ud, Opcode::SendImm, 100, m(1024))
            .next()
            .unwrap();
        assert_eq!((p.opcode, p.ext_len(), p.last), (0x65, 12, true));
        assert_eq!(
            Packets::new(QpType::Ud, Opcode::Send, 0, m(256)).packets(),
            1
        );
    }

    #[test]
    fn counts_and_lengths_cover_the_message() {
        for mtu in [256u32, 512, 1024, 2048, 4096] {
            for len in [0u32, 1, 255, 256, 257, 4095, 4096, 4097, 65536, u32::MAX] {
                let it = Packets::new(QpType::Rc, Opcode::Send, len, m(mtu));
                // ceil(len / mtu), at least one, in u64 so nothing can wrap.
                let want = u64::from(len).div_ceil(u64::from(mtu)).max(1);
                assert_eq!(u64::from(it.packets()), want);
                if it.packets() > 20 {
                    let last = it.clone().last().unwrap();
                    assert_eq!(u64::from(last.offset) + u64::from(last.len), u64::from(len));
                    continue;
                }
                let total: u64 = it.clone().map(|p| u64::from(p.len)).sum();
                assert_eq!(total, u64::from(len), "len {len} mtu {mtu}");
                assert!(it.clone().all(|p| p.len <= mtu && (p.len > 0 || len == 0)));
            }
        }
    }
}
