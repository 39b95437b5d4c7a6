//! The Base Transport Header (12 bytes), which starts every RoCEv2 transport payload.

use super::MASK24;
use crate::wire::{be16, be24, put16, put24, Error, Result};

/// Length of a BTH.
pub const BTH_LEN: usize = 12;

view_common!(
    Bth,
    BTH_LEN,
    "A view of a Base Transport Header (12 bytes)."
);

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
}
