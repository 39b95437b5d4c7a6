//! The Local Route Header (8 bytes) that starts a native InfiniBand packet.

use crate::wire::{be16, put16, Error, Result};

/// Length of an LRH.
pub const LRH_LEN: usize = 8;

view_common!(Lrh, LRH_LEN, "A view of a Local Route Header (8 bytes).");

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

#[cfg(test)]
mod tests {
    use super::*;

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
