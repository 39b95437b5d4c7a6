//! Ethernet II with at most one VLAN tag.
//!
//! Layout: destination (6) | source (6) | [TPID (2) | TCI (2)] | EtherType (2). A tag is present
//! when the EtherType position holds 0x8100 (802.1Q) or 0x88A8 (802.1ad); only the outer tag is
//! decoded, so a second tag shows up as the inner EtherType 0x8100.

use core::fmt;

use super::{be16, put16, write_hex, Error, Result};

/// EtherType values used in this crate.
#[derive(Debug)]
pub enum EtherType {}

impl EtherType {
    /// IPv4.
    pub const IPV4: u16 = 0x0800;
    /// ARP.
    pub const ARP: u16 = 0x0806;
    /// IEEE 802.1Q VLAN tag (TPID).
    pub const VLAN: u16 = 0x8100;
    /// IEEE 802.1ad service tag (TPID), also accepted as a tag.
    pub const QINQ: u16 = 0x88A8;
    /// IPv6.
    pub const IPV6: u16 = 0x86DD;
}

/// A 48-bit Ethernet MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct EthernetAddress(pub [u8; 6]);

impl EthernetAddress {
    /// ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: EthernetAddress = EthernetAddress([0xFF; 6]);

    /// The six bytes.
    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// True for ff:ff:ff:ff:ff:ff.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }

    /// True when the group bit (least significant bit of the first byte) is set.
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 0x01 != 0
    }

    /// True when the group bit is clear.
    pub fn is_unicast(&self) -> bool {
        !self.is_multicast()
    }
}

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0, ':')
    }
}

/// One VLAN tag: TPID plus the TCI fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlanTag {
    /// Tag protocol identifier: [`EtherType::VLAN`] (0x8100) or [`EtherType::QINQ`] (0x88A8).
    pub tpid: u16,
    /// Priority code point, 3 bits (RoCE: PCP = SL & 7).
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 12 bits.
    pub vid: u16,
}

impl VlanTag {
    /// An 802.1Q (TPID 0x8100) tag.
    pub const fn new(pcp: u8, dei: bool, vid: u16) -> VlanTag {
        VlanTag {
            tpid: EtherType::VLAN,
            pcp,
            dei,
            vid,
        }
    }

    /// The 16-bit tag control information.
    pub fn tci(&self) -> u16 {
        (u16::from(self.pcp & 7) << 13) | (u16::from(self.dei) << 12) | (self.vid & 0x0FFF)
    }

    fn from_tci(tpid: u16, tci: u16) -> VlanTag {
        VlanTag {
            tpid,
            pcp: (tci >> 13) as u8,
            dei: tci & 0x1000 != 0,
            vid: tci & 0x0FFF,
        }
    }
}

/// Length of an untagged Ethernet II header.
pub const HEADER_LEN: usize = 14;
/// Length of a header with one VLAN tag.
pub const TAGGED_HEADER_LEN: usize = 18;

fn is_tpid(v: u16) -> bool {
    v == EtherType::VLAN || v == EtherType::QINQ
}

/// A view of an Ethernet II frame (without FCS).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }

    /// Wraps a buffer that holds the whole header (14 bytes, 18 when tagged).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let f = Self::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Verifies the buffer holds the header, including a tag if one is announced.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if is_tpid(be16(b, 12)) && b.len() < TAGGED_HEADER_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Destination address (bytes 0..6).
    pub fn dst_addr(&self) -> EthernetAddress {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[0..6]);
        EthernetAddress(a)
    }

    /// Source address (bytes 6..12).
    pub fn src_addr(&self) -> EthernetAddress {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[6..12]);
        EthernetAddress(a)
    }

    /// True when bytes 12..14 hold a TPID (0x8100 or 0x88A8) and the buffer has room for the
    /// tag (always so after `new_checked`, unless `set_ethertype` wrote a TPID afterwards).
    pub fn is_tagged(&self) -> bool {
        let b = self.buffer.as_ref();
        is_tpid(be16(b, 12)) && b.len() >= TAGGED_HEADER_LEN
    }

    /// The tag, if any.
    pub fn vlan(&self) -> Option<VlanTag> {
        let b = self.buffer.as_ref();
        self.is_tagged()
            .then(|| VlanTag::from_tci(be16(b, 12), be16(b, 14)))
    }

    /// The EtherType of the payload (after the tag when tagged).
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), self.header_len() - 2)
    }

    /// 14, or 18 when tagged.
    pub fn header_len(&self) -> usize {
        if self.is_tagged() {
            TAGGED_HEADER_LEN
        } else {
            HEADER_LEN
        }
    }

    /// Everything after the header (including any padding and FCS the buffer holds).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination address.
    pub fn set_dst_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[0..6].copy_from_slice(&a.0);
    }

    /// Sets the source address.
    pub fn set_src_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[6..12].copy_from_slice(&a.0);
    }

    /// Sets the payload EtherType (after the tag when tagged; the layout is kept).
    pub fn set_ethertype(&mut self, v: u16) {
        let at = self.header_len() - 2;
        put16(self.buffer.as_mut(), at, v);
    }

    /// Rewrites the TCI of an existing tag (the TPID is kept); does nothing when untagged.
    pub fn set_vlan_tci(&mut self, pcp: u8, dei: bool, vid: u16) {
        if self.is_tagged() {
            let tci = VlanTag::new(pcp, dei, vid).tci();
            put16(self.buffer.as_mut(), 14, tci);
        }
    }

    /// Mutable payload.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let at = self.header_len();
        &mut self.buffer.as_mut()[at..]
    }
}

/// The fields of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetRepr {
    /// Destination address.
    pub dst: EthernetAddress,
    /// Source address.
    pub src: EthernetAddress,
    /// Optional single tag.
    pub vlan: Option<VlanTag>,
    /// EtherType of the payload.
    pub ethertype: u16,
}

impl EthernetRepr {
    /// Reads the header of a checked frame.
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<EthernetRepr> {
        frame.check_len()?;
        Ok(EthernetRepr {
            dst: frame.dst_addr(),
            src: frame.src_addr(),
            vlan: frame.vlan(),
            ethertype: frame.ethertype(),
        })
    }

    /// 14, or 18 with a tag.
    pub fn header_len(&self) -> usize {
        if self.vlan.is_some() {
            TAGGED_HEADER_LEN
        } else {
            HEADER_LEN
        }
    }

    /// Writes the header into the start of the frame's buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) -> Result<()> {
        if let Some(tag) = self.vlan {
            if !is_tpid(tag.tpid) {
                return Err(Error::Malformed("VLAN TPID must be 0x8100 or 0x88A8"));
            }
            if tag.pcp > 7 || tag.vid > 0x0FFF {
                return Err(Error::Malformed("VLAN PCP or VID out of range"));
            }
        }
        let b = frame.buffer.as_mut();
        if b.len() < self.header_len() {
            return Err(Error::Truncated);
        }
        b[0..6].copy_from_slice(&self.dst.0);
        b[6..12].copy_from_slice(&self.src.0);
        match self.vlan {
            Some(tag) => {
                put16(b, 12, tag.tpid);
                put16(b, 14, tag.tci());
                put16(b, 16, self.ethertype);
            }
            None => put16(b, 12, self.ethertype),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagged_frame() {
        let bytes = [
            1, 2, 3, 4, 5, 6, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x81, 0x00, 0xA0, 0x64, 0x08, 0x00,
            0x45,
        ];
        let f = EthernetFrame::new_checked(&bytes[..]).unwrap();
        let r = EthernetRepr::parse(&f).unwrap();
        assert_eq!(r.vlan, Some(VlanTag::new(5, false, 100)));
        assert_eq!(r.ethertype, EtherType::IPV4);
        assert_eq!(f.payload(), &[0x45]);
        assert_eq!(f.dst_addr(), EthernetAddress([1, 2, 3, 4, 5, 6]));
        let mut out = [0u8; 18];
        r.emit(&mut EthernetFrame::new_unchecked(&mut out[..]))
            .unwrap();
        assert_eq!(out[..], bytes[..18]);
        // A TPID announced with no room for the tag is truncated.
        assert_eq!(
            EthernetFrame::new_checked(&bytes[..16]).unwrap_err(),
            Error::Truncated
        );
    }
}
