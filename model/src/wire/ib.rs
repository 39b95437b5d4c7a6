//! InfiniBand headers: LRH and GRH (native link, pcap link type 247) and the transport headers
//! BTH, DETH and ImmDt that RoCEv2 carries over UDP.
//!
//! Layouts (bit 7 is the most significant bit of a byte):
//!
//! * LRH, 8 bytes: VL (4) | LVer (4) | SL (4) | resv (2) | LNH (2) | DLID (16) |
//!   resv (5) | PktLen (11, in 4-byte words, LRH to ICRC inclusive) | SLID (16).
//! * GRH, 40 bytes: IPVer (4) = 6 | TClass (8) | FlowLabel (20) | PayLen (16, bytes after the GRH
//!   up to and including the ICRC) | NxtHdr (8) = 0x1B | HopLmt (8) | SGID (128) | DGID (128).
//! * BTH, 12 bytes: OpCode (8) | SE (1) M (1) PadCnt (2) TVer (4) | P_Key (16) |
//!   FECN (1) BECN (1) resv (6) | DestQP (24) | AckReq (1) resv (7) | PSN (24).
//! * DETH, 8 bytes: Q_Key (32) | resv (8) | SrcQP (24).
//! * ImmDt, 4 bytes: immediate data (32).

use core::fmt;

use super::ipv6::{fmt_v6, Ipv6Address};
use super::{be16, be24, be32, put16, put24, put32, Error, Result};

/// BTH opcodes (docs/reference.md §3) and helpers. The top three bits are the transport (RC 0x00,
/// UC 0x20, RD 0x40, UD 0x60, CNP 0x80, XRC 0xA0), the low five the operation.
pub mod opcode {
    /// RC SEND First.
    pub const RC_SEND_FIRST: u8 = 0x00;
    /// RC SEND Middle.
    pub const RC_SEND_MIDDLE: u8 = 0x01;
    /// RC SEND Last.
    pub const RC_SEND_LAST: u8 = 0x02;
    /// RC SEND Last with Immediate.
    pub const RC_SEND_LAST_WITH_IMM: u8 = 0x03;
    /// RC SEND Only.
    pub const RC_SEND_ONLY: u8 = 0x04;
    /// RC SEND Only with Immediate.
    pub const RC_SEND_ONLY_WITH_IMM: u8 = 0x05;
    /// RC RDMA WRITE Last with Immediate.
    pub const RC_RDMA_WRITE_LAST_WITH_IMM: u8 = 0x09;
    /// RC RDMA WRITE Only with Immediate.
    pub const RC_RDMA_WRITE_ONLY_WITH_IMM: u8 = 0x0B;
    /// RC Acknowledge.
    pub const RC_ACK: u8 = 0x11;
    /// UD SEND Only.
    pub const UD_SEND_ONLY: u8 = 0x64;
    /// UD SEND Only with Immediate.
    pub const UD_SEND_ONLY_WITH_IMM: u8 = 0x65;
    /// RoCEv2 congestion notification packet.
    pub const CNP: u8 = 0x81;

    /// Transport bits of the RC opcodes.
    pub const TRANSPORT_RC: u8 = 0x00;
    /// Transport bits of the UC opcodes.
    pub const TRANSPORT_UC: u8 = 0x20;
    /// Transport bits of the RD opcodes.
    pub const TRANSPORT_RD: u8 = 0x40;
    /// Transport bits of the UD opcodes.
    pub const TRANSPORT_UD: u8 = 0x60;
    /// Transport bits of the XRC opcodes.
    pub const TRANSPORT_XRC: u8 = 0xA0;

    /// The transport bits (`opcode & 0xE0`).
    pub const fn transport(op: u8) -> u8 {
        op & 0xE0
    }

    /// True when a DETH follows the BTH: the UD opcodes 0x60..=0x7F. (RD also carries a DETH,
    /// after an RDETH; RD is not modelled.)
    pub const fn has_deth(op: u8) -> bool {
        transport(op) == TRANSPORT_UD
    }

    /// True when an ImmDt header is present: SEND Last/Only with Immediate (0x03, 0x05) and
    /// RDMA WRITE Last/Only with Immediate (0x09, 0x0B) on RC, UC, RD and XRC; SEND Only with
    /// Immediate (0x65) on UD. (For RDMA WRITE Only with Immediate a RETH comes first.)
    pub const fn has_immdt(op: u8) -> bool {
        let low = op & 0x1F;
        match transport(op) {
            TRANSPORT_RC | TRANSPORT_UC | TRANSPORT_RD | TRANSPORT_XRC => {
                matches!(low, 0x03 | 0x05 | 0x09 | 0x0B)
            }
            TRANSPORT_UD => low == 0x05,
            _ => false,
        }
    }

    /// True for the SEND opcodes (First, Middle, Last, Only, with or without Immediate) of RC,
    /// UC, RD and XRC, and the UD SEND Only opcodes.
    pub const fn is_send(op: u8) -> bool {
        let low = op & 0x1F;
        match transport(op) {
            TRANSPORT_RC | TRANSPORT_UC | TRANSPORT_RD | TRANSPORT_XRC => low <= 0x05,
            TRANSPORT_UD => low == 0x04 || low == 0x05,
            _ => false,
        }
    }

    /// A short name for the opcodes above, `None` for the others.
    pub const fn name(op: u8) -> Option<&'static str> {
        Some(match op {
            RC_SEND_FIRST => "RC_SEND_FIRST",
            RC_SEND_MIDDLE => "RC_SEND_MIDDLE",
            RC_SEND_LAST => "RC_SEND_LAST",
            RC_SEND_LAST_WITH_IMM => "RC_SEND_LAST_WITH_IMM",
            RC_SEND_ONLY => "RC_SEND_ONLY",
            RC_SEND_ONLY_WITH_IMM => "RC_SEND_ONLY_WITH_IMM",
            RC_RDMA_WRITE_LAST_WITH_IMM => "RC_RDMA_WRITE_LAST_WITH_IMM",
            RC_RDMA_WRITE_ONLY_WITH_IMM => "RC_RDMA_WRITE_ONLY_WITH_IMM",
            RC_ACK => "RC_ACK",
            UD_SEND_ONLY => "UD_SEND_ONLY",
            UD_SEND_ONLY_WITH_IMM => "UD_SEND_ONLY_WITH_IMM",
            CNP => "CNP",
            _ => return None,
        })
    }
}

/// A 128-bit InfiniBand global identifier (for RoCEv2 an IPv6 or IPv4-mapped address).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gid(pub [u8; 16]);

impl From<Ipv6Address> for Gid {
    fn from(a: Ipv6Address) -> Gid {
        Gid(a.0)
    }
}

impl From<Gid> for Ipv6Address {
    fn from(g: Gid) -> Ipv6Address {
        Ipv6Address(g.0)
    }
}

impl fmt::Display for Gid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_v6(f, &self.0)
    }
}

/// Largest 24-bit value (QPN, PSN).
const MASK24: u32 = 0x00FF_FFFF;

/// Length of a BTH.
pub const BTH_LEN: usize = 12;
/// Length of a DETH.
pub const DETH_LEN: usize = 8;
/// Length of an ImmDt header.
pub const IMMDT_LEN: usize = 4;
/// Length of an LRH.
pub const LRH_LEN: usize = 8;
/// Length of a GRH.
pub const GRH_LEN: usize = 40;

macro_rules! view_common {
    ($name:ident, $len:expr, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// Length of the header in bytes.
            pub const HEADER_LEN: usize = $len;

            /// Wraps a buffer without checking it.
            pub const fn new_unchecked(buffer: T) -> Self {
                $name { buffer }
            }

            /// Wraps a buffer after `check_len`.
            pub fn new_checked(buffer: T) -> Result<Self> {
                let p = Self::new_unchecked(buffer);
                p.check_len()?;
                Ok(p)
            }

            /// Gives the buffer back.
            pub fn into_inner(self) -> T {
                self.buffer
            }

            /// Bytes after the header.
            pub fn payload(&self) -> &[u8] {
                let b = self.buffer.as_ref();
                &b[$len.min(b.len())..]
            }
        }
    };
}

view_common!(
    Bth,
    BTH_LEN,
    "A view of a Base Transport Header (12 bytes)."
);
view_common!(
    Deth,
    DETH_LEN,
    "A view of a Datagram Extended Transport Header (8 bytes)."
);
view_common!(
    ImmDt,
    IMMDT_LEN,
    "A view of an Immediate Data header (4 bytes)."
);
view_common!(Lrh, LRH_LEN, "A view of a Local Route Header (8 bytes).");
view_common!(Grh, GRH_LEN, "A view of a Global Route Header (40 bytes).");

// ---------------------------------------------------------------------------------------------
// BTH

impl<T: AsRef<[u8]>> Bth<T> {
    /// Verifies the buffer holds 12 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < 12 {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// OpCode.
    pub fn opcode(&self) -> u8 {
        self.buffer.as_ref()[0]
    }

    /// Solicited event.
    pub fn solicited(&self) -> bool {
        self.buffer.as_ref()[1] & 0x80 != 0
    }

    /// Migration request.
    pub fn migreq(&self) -> bool {
        self.buffer.as_ref()[1] & 0x40 != 0
    }

    /// Pad count 0..=3.
    pub fn pad_count(&self) -> u8 {
        (self.buffer.as_ref()[1] >> 4) & 3
    }

    /// Transport header version (4 bits).
    pub fn tver(&self) -> u8 {
        self.buffer.as_ref()[1] & 0x0F
    }

    /// Partition key.
    pub fn pkey(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Forward explicit congestion notification.
    pub fn fecn(&self) -> bool {
        self.buffer.as_ref()[4] & 0x80 != 0
    }

    /// Backward explicit congestion notification.
    pub fn becn(&self) -> bool {
        self.buffer.as_ref()[4] & 0x40 != 0
    }

    /// The six reserved bits of byte 4.
    pub fn resv6(&self) -> u8 {
        self.buffer.as_ref()[4] & 0x3F
    }

    /// Destination QP (24 bits).
    pub fn dest_qpn(&self) -> u32 {
        be24(self.buffer.as_ref(), 5)
    }

    /// Acknowledge request.
    pub fn ack_req(&self) -> bool {
        self.buffer.as_ref()[8] & 0x80 != 0
    }

    /// The seven reserved bits of byte 8.
    pub fn resv7(&self) -> u8 {
        self.buffer.as_ref()[8] & 0x7F
    }

    /// Packet sequence number (24 bits).
    pub fn psn(&self) -> u32 {
        be24(self.buffer.as_ref(), 9)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Bth<T> {
    /// Sets the opcode.
    pub fn set_opcode(&mut self, v: u8) {
        self.buffer.as_mut()[0] = v;
    }

    /// Sets SE, M, PadCnt (2 bits) and TVer (4 bits).
    pub fn set_flags(&mut self, solicited: bool, migreq: bool, pad_count: u8, tver: u8) {
        self.buffer.as_mut()[1] = (u8::from(solicited) << 7)
            | (u8::from(migreq) << 6)
            | ((pad_count & 3) << 4)
            | (tver & 0x0F);
    }

    /// Sets the partition key.
    pub fn set_pkey(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v);
    }

    /// Sets FECN and BECN (reserved bits cleared).
    pub fn set_ecn(&mut self, fecn: bool, becn: bool) {
        self.buffer.as_mut()[4] = (u8::from(fecn) << 7) | (u8::from(becn) << 6);
    }

    /// Sets the destination QP (24 bits).
    pub fn set_dest_qpn(&mut self, v: u32) {
        put24(self.buffer.as_mut(), 5, v & MASK24);
    }

    /// Sets AckReq (reserved bits cleared).
    pub fn set_ack_req(&mut self, v: bool) {
        self.buffer.as_mut()[8] = u8::from(v) << 7;
    }

    /// Sets the PSN (24 bits).
    pub fn set_psn(&mut self, v: u32) {
        put24(self.buffer.as_mut(), 9, v & MASK24);
    }
}

/// The fields of a BTH (reserved bits are written as zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BthRepr {
    /// OpCode.
    pub opcode: u8,
    /// Solicited event.
    pub solicited: bool,
    /// Migration request.
    pub migreq: bool,
    /// Pad count 0..=3.
    pub pad_count: u8,
    /// Transport header version (4 bits; 0 today).
    pub tver: u8,
    /// Partition key.
    pub pkey: u16,
    /// FECN.
    pub fecn: bool,
    /// BECN.
    pub becn: bool,
    /// Destination QP (24 bits).
    pub dest_qpn: u32,
    /// Acknowledge request.
    pub ack_req: bool,
    /// PSN (24 bits).
    pub psn: u32,
}

impl BthRepr {
    /// Reads a checked BTH.
    pub fn parse<T: AsRef<[u8]>>(p: &Bth<T>) -> Result<BthRepr> {
        p.check_len()?;
        Ok(BthRepr {
            opcode: p.opcode(),
            solicited: p.solicited(),
            migreq: p.migreq(),
            pad_count: p.pad_count(),
            tver: p.tver(),
            pkey: p.pkey(),
            fecn: p.fecn(),
            becn: p.becn(),
            dest_qpn: p.dest_qpn(),
            ack_req: p.ack_req(),
            psn: p.psn(),
        })
    }

    /// Always 12.
    pub const fn header_len(&self) -> usize {
        12
    }

    /// Writes the 12 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Bth<T>) -> Result<()> {
        if self.pad_count > 3 || self.tver > 15 {
            return Err(Error::Malformed("BTH PadCnt or TVer out of range"));
        }
        if self.dest_qpn > MASK24 || self.psn > MASK24 {
            return Err(Error::Malformed("BTH DestQP or PSN exceeds 24 bits"));
        }
        p.check_len()?;
        p.set_opcode(self.opcode);
        p.set_flags(self.solicited, self.migreq, self.pad_count, self.tver);
        p.set_pkey(self.pkey);
        p.set_ecn(self.fecn, self.becn);
        p.set_dest_qpn(self.dest_qpn);
        p.set_ack_req(self.ack_req);
        p.set_psn(self.psn);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// DETH

impl<T: AsRef<[u8]>> Deth<T> {
    /// Verifies the buffer holds 8 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < 8 {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Queue key.
    pub fn qkey(&self) -> u32 {
        be32(self.buffer.as_ref(), 0)
    }

    /// The reserved byte 4.
    pub fn reserved(&self) -> u8 {
        self.buffer.as_ref()[4]
    }

    /// Source QP (24 bits).
    pub fn src_qpn(&self) -> u32 {
        be24(self.buffer.as_ref(), 5)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Deth<T> {
    /// Sets the queue key.
    pub fn set_qkey(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 0, v);
    }

    /// Sets the source QP (24 bits; the reserved byte is cleared).
    pub fn set_src_qpn(&mut self, v: u32) {
        let b = self.buffer.as_mut();
        b[4] = 0;
        put24(b, 5, v & MASK24);
    }
}

/// The fields of a DETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DethRepr {
    /// Queue key.
    pub qkey: u32,
    /// Source QP (24 bits).
    pub src_qpn: u32,
}

impl DethRepr {
    /// Reads a checked DETH.
    pub fn parse<T: AsRef<[u8]>>(p: &Deth<T>) -> Result<DethRepr> {
        p.check_len()?;
        Ok(DethRepr {
            qkey: p.qkey(),
            src_qpn: p.src_qpn(),
        })
    }

    /// Always 8.
    pub const fn header_len(&self) -> usize {
        8
    }

    /// Writes the 8 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Deth<T>) -> Result<()> {
        if self.src_qpn > MASK24 {
            return Err(Error::Malformed("DETH SrcQP exceeds 24 bits"));
        }
        p.check_len()?;
        p.set_qkey(self.qkey);
        p.set_src_qpn(self.src_qpn);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// ImmDt

impl<T: AsRef<[u8]>> ImmDt<T> {
    /// Verifies the buffer holds 4 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < 4 {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Immediate data (as a big-endian integer; it is opaque to the transport).
    pub fn imm(&self) -> u32 {
        be32(self.buffer.as_ref(), 0)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ImmDt<T> {
    /// Sets the immediate data.
    pub fn set_imm(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 0, v);
    }
}

/// The immediate data of an ImmDt header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImmDtRepr {
    /// Immediate data.
    pub imm: u32,
}

impl ImmDtRepr {
    /// Reads a checked ImmDt.
    pub fn parse<T: AsRef<[u8]>>(p: &ImmDt<T>) -> Result<ImmDtRepr> {
        p.check_len()?;
        Ok(ImmDtRepr { imm: p.imm() })
    }

    /// Always 4.
    pub const fn header_len(&self) -> usize {
        4
    }

    /// Writes the 4 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut ImmDt<T>) -> Result<()> {
        p.check_len()?;
        p.set_imm(self.imm);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// LRH

/// LRH link next header: raw packet.
pub const LNH_RAW: u8 = 0b00;
/// LRH link next header: IP non-IBA transport (raw IPv6).
pub const LNH_IP: u8 = 0b01;
/// LRH link next header: IBA local — a BTH follows.
pub const LNH_IBA_LOCAL: u8 = 0b10;
/// LRH link next header: IBA global — a GRH follows.
pub const LNH_IBA_GLOBAL: u8 = 0b11;

impl<T: AsRef<[u8]>> Lrh<T> {
    /// Verifies: 8 bytes, PktLen × 4 ≥ 8, and the buffer holds PktLen × 4 bytes (a VCRC may follow).
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < 8 {
            return Err(Error::Truncated);
        }
        let n = self.packet_len_bytes();
        if n < 8 {
            return Err(Error::Malformed("LRH PktLen below the LRH itself"));
        }
        if b.len() < n {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Virtual lane (4 bits).
    pub fn vl(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }

    /// Link version (4 bits).
    pub fn lver(&self) -> u8 {
        self.buffer.as_ref()[0] & 0x0F
    }

    /// Service level (4 bits).
    pub fn sl(&self) -> u8 {
        self.buffer.as_ref()[1] >> 4
    }

    /// Link next header (2 bits): see [`LNH_IBA_LOCAL`], [`LNH_IBA_GLOBAL`].
    pub fn lnh(&self) -> u8 {
        self.buffer.as_ref()[1] & 3
    }

    /// Destination LID.
    pub fn dlid(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Packet length in 4-byte words (11 bits), LRH through ICRC.
    pub fn packet_len(&self) -> u16 {
        be16(self.buffer.as_ref(), 4) & 0x07FF
    }

    /// Packet length in bytes.
    pub fn packet_len_bytes(&self) -> usize {
        usize::from(self.packet_len()) * 4
    }

    /// Source LID.
    pub fn slid(&self) -> u16 {
        be16(self.buffer.as_ref(), 6)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Lrh<T> {
    /// Sets VL and LVer (4 bits each).
    pub fn set_vl_lver(&mut self, vl: u8, lver: u8) {
        self.buffer.as_mut()[0] = (vl << 4) | (lver & 0x0F);
    }

    /// Sets SL (4 bits) and LNH (2 bits), reserved bits cleared.
    pub fn set_sl_lnh(&mut self, sl: u8, lnh: u8) {
        self.buffer.as_mut()[1] = (sl << 4) | (lnh & 3);
    }

    /// Sets the destination LID.
    pub fn set_dlid(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v);
    }

    /// Sets the packet length in words (11 bits, reserved bits cleared).
    pub fn set_packet_len(&mut self, words: u16) {
        put16(self.buffer.as_mut(), 4, words & 0x07FF);
    }

    /// Sets the source LID.
    pub fn set_slid(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 6, v);
    }
}

/// The fields of an LRH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LrhRepr {
    /// Virtual lane (4 bits).
    pub vl: u8,
    /// Link version (4 bits).
    pub lver: u8,
    /// Service level (4 bits).
    pub sl: u8,
    /// Link next header (2 bits).
    pub lnh: u8,
    /// Destination LID.
    pub dlid: u16,
    /// Packet length in 4-byte words (11 bits).
    pub packet_len: u16,
    /// Source LID.
    pub slid: u16,
}

impl LrhRepr {
    /// Reads a checked LRH.
    pub fn parse<T: AsRef<[u8]>>(p: &Lrh<T>) -> Result<LrhRepr> {
        p.check_len()?;
        Ok(LrhRepr {
            vl: p.vl(),
            lver: p.lver(),
            sl: p.sl(),
            lnh: p.lnh(),
            dlid: p.dlid(),
            packet_len: p.packet_len(),
            slid: p.slid(),
        })
    }

    /// Always 8.
    pub const fn header_len(&self) -> usize {
        8
    }

    /// Writes the 8 bytes (the buffer needs only those 8).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Lrh<T>) -> Result<()> {
        if self.vl > 15 || self.lver > 15 || self.sl > 15 || self.lnh > 3 {
            return Err(Error::Malformed("LRH VL, LVer, SL or LNH out of range"));
        }
        if self.packet_len > 0x07FF {
            return Err(Error::Malformed("LRH PktLen exceeds 11 bits"));
        }
        if p.buffer.as_ref().len() < 8 {
            return Err(Error::Truncated);
        }
        p.set_vl_lver(self.vl, self.lver);
        p.set_sl_lnh(self.sl, self.lnh);
        p.set_dlid(self.dlid);
        p.set_packet_len(self.packet_len);
        p.set_slid(self.slid);
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// GRH

impl<T: AsRef<[u8]>> Grh<T> {
    /// Verifies: 40 bytes, IPVer 6, and the buffer holds `40 + PayLen` bytes.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < 40 {
            return Err(Error::Truncated);
        }
        if self.ip_version() != 6 {
            return Err(Error::Malformed("GRH IPVer is not 6"));
        }
        if b.len() < 40 + usize::from(self.payload_len()) {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// IPVer (4 bits, 6).
    pub fn ip_version(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }

    /// Traffic class.
    pub fn traffic_class(&self) -> u8 {
        ((be16(self.buffer.as_ref(), 0) >> 4) & 0xFF) as u8
    }

    /// Flow label (20 bits).
    pub fn flow_label(&self) -> u32 {
        be32(self.buffer.as_ref(), 0) & 0x000F_FFFF
    }

    /// Payload length: bytes after the GRH up to and including the ICRC.
    pub fn payload_len(&self) -> u16 {
        be16(self.buffer.as_ref(), 4)
    }

    /// Next header (0x1B for a BTH).
    pub fn next_header(&self) -> u8 {
        self.buffer.as_ref()[6]
    }

    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[7]
    }

    /// Source GID.
    pub fn sgid(&self) -> Gid {
        let mut g = [0; 16];
        g.copy_from_slice(&self.buffer.as_ref()[8..24]);
        Gid(g)
    }

    /// Destination GID.
    pub fn dgid(&self) -> Gid {
        let mut g = [0; 16];
        g.copy_from_slice(&self.buffer.as_ref()[24..40]);
        Gid(g)
    }
}

/// The fields of a GRH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrhRepr {
    /// Traffic class.
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
    /// Payload length: bytes after the GRH up to and including the ICRC.
    pub payload_len: u16,
    /// Next header (0x1B for a BTH).
    pub next_header: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// Source GID.
    pub sgid: Gid,
    /// Destination GID.
    pub dgid: Gid,
}

impl GrhRepr {
    /// Reads a checked GRH.
    pub fn parse<T: AsRef<[u8]>>(p: &Grh<T>) -> Result<GrhRepr> {
        p.check_len()?;
        Ok(GrhRepr {
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
            payload_len: p.payload_len(),
            next_header: p.next_header(),
            hop_limit: p.hop_limit(),
            sgid: p.sgid(),
            dgid: p.dgid(),
        })
    }

    /// Always 40.
    pub const fn header_len(&self) -> usize {
        40
    }

    /// Writes the 40 bytes (the buffer needs only those 40).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Grh<T>) -> Result<()> {
        if self.flow_label > 0x000F_FFFF {
            return Err(Error::Malformed("GRH flow label exceeds 20 bits"));
        }
        let b = p.buffer.as_mut();
        if b.len() < 40 {
            return Err(Error::Truncated);
        }
        let w0 = (6u32 << 28) | (u32::from(self.traffic_class) << 20) | self.flow_label;
        put32(b, 0, w0);
        put16(b, 4, self.payload_len);
        b[6] = self.next_header;
        b[7] = self.hop_limit;
        b[8..24].copy_from_slice(&self.sgid.0);
        b[24..40].copy_from_slice(&self.dgid.0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bth_known_bytes() {
        // UC SEND Only (0x24), M = 1, PadCnt = 2, P_Key 0xFFFF, DestQP 211, PSN 13571856
        // (0xCF1710): the BTH of the example packet in Scapy's test/contrib/roce.uts.
        let bytes = [
            0x24, 0x60, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0xD3, 0x00, 0xCF, 0x17, 0x10,
        ];
        let p = Bth::new_checked(&bytes[..]).unwrap();
        let r = BthRepr::parse(&p).unwrap();
        assert_eq!(r.opcode, 0x24);
        assert!(r.migreq && !r.solicited);
        assert_eq!(r.pad_count, 2);
        assert_eq!(r.dest_qpn, 211);
        assert_eq!(r.psn, 13_571_856);
        let mut out = [0u8; 12];
        r.emit(&mut Bth::new_unchecked(&mut out[..])).unwrap();
        assert_eq!(out, bytes);
    }

    #[test]
    fn opcode_helpers() {
        use opcode::*;
        assert!(has_deth(UD_SEND_ONLY) && has_deth(UD_SEND_ONLY_WITH_IMM) && has_deth(0x7F));
        assert!(!has_deth(RC_SEND_ONLY) && !has_deth(0x80));
        for op in [0x03, 0x05, 0x09, 0x0B, 0x23, 0x25, 0x65, 0xA3] {
            assert!(has_immdt(op), "{op:#x}");
        }
        for op in [0x00, 0x01, 0x02, 0x04, 0x64, 0x81, 0x63] {
            assert!(!has_immdt(op), "{op:#x}");
        }
        assert!(is_send(RC_SEND_MIDDLE) && is_send(UD_SEND_ONLY) && !is_send(RC_ACK));
        assert_eq!(name(UD_SEND_ONLY), Some("UD_SEND_ONLY"));
    }

    #[test]
    fn lrh_known_bytes() {
        // VL 0, LVer 0, SL 3, LNH IBA local, DLID 0x0004, PktLen 9 words, SLID 0x0001.
        let mut bytes = [0u8; 36];
        bytes[..8].copy_from_slice(&[0x00, 0x32, 0x00, 0x04, 0x00, 0x09, 0x00, 0x01]);
        let p = Lrh::new_checked(&bytes[..]).unwrap();
        assert_eq!(
            (p.sl(), p.lnh(), p.dlid(), p.slid()),
            (3, LNH_IBA_LOCAL, 4, 1)
        );
        assert_eq!(p.packet_len_bytes(), 36);
        assert_eq!(
            Lrh::new_checked(&bytes[..35]).unwrap_err(),
            Error::Truncated
        );
        let r = LrhRepr::parse(&p).unwrap();
        let mut out = [0u8; 8];
        r.emit(&mut Lrh::new_unchecked(&mut out[..])).unwrap();
        assert_eq!(out, bytes[..8]);
    }
}
