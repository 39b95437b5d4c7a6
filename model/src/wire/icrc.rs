//! The RoCEv2 invariant CRC (ICRC), docs/reference.md §3.
//!
//! CRC-32 (IEEE 802.3: reflected polynomial 0xEDB88320, initial 0xFFFFFFFF, final inversion)
//! over
//!
//! 1. 8 bytes of 0xFF (stand-in for the LRH),
//! 2. the IP header with its variant fields set to all ones — IPv4: TOS (DSCP+ECN), TTL and
//!    header checksum; IPv6: traffic class, flow label and hop limit,
//! 3. the UDP header with its checksum set to all ones,
//! 4. the BTH with byte 4 (FECN, BECN, reserved) set to all ones,
//! 5. the rest as it is: remaining headers (DETH, ImmDt, ...), payload and pad.
//!
//! The result is appended little-endian after the pad. Frames that differ only in masked fields
//! have the same ICRC.
//!
//! Instead of hashing the 8 bytes of 0xFF, the CRC starts from their state: the CRC register is
//! 0xDEBB20E3 after them ([`PREFIX_REGISTER`]). Only the IP, UDP and BTH headers (at most
//! 60 + 8 + 12 bytes) are copied to the stack for masking; the payload streams through the same
//! hasher without a copy.

use super::ethernet::{EtherType, EthernetFrame};
use super::ib::{Bth, BTH_LEN};
use super::ipv4::Ipv4Packet;
use super::ipv6::{Ipv6Packet, HEADER_LEN as IPV6_HEADER_LEN};
use super::udp::{HEADER_LEN as UDP_HEADER_LEN, ROCEV2_PORT};
use super::{be16, Error, IpProtocol, Result};

/// Length of the ICRC trailer.
pub const ICRC_LEN: usize = 4;

/// The CRC-32 shift register after 8 bytes of 0xFF, starting from 0xFFFFFFFF
/// (docs/reference.md §3).
pub const PREFIX_REGISTER: u32 = 0xDEBB_20E3;

/// The same state in `crc32fast`'s convention, which keeps the *finalised* (inverted) value:
/// `crc32(&[0xFF; 8])`.
const PREFIX_STATE: u32 = !PREFIX_REGISTER;

/// Largest IP + UDP + BTH header block that gets masked (IPv4 with 40 option bytes).
const MAX_MASKED: usize = 60 + UDP_HEADER_LEN + BTH_LEN;

/// A hasher already past the 8 bytes of 0xFF.
fn seeded_hasher() -> crc32fast::Hasher {
    crc32fast::Hasher::new_with_initial(PREFIX_STATE)
}

/// ICRC of `l3` whose IP header is `ip_hlen` bytes long (4 or 6 as `version`), already checked
/// to hold IP + UDP + BTH headers.
fn compute_validated(l3: &[u8], version: u8, ip_hlen: usize) -> u32 {
    let n = ip_hlen + UDP_HEADER_LEN + BTH_LEN;
    let mut h = [0u8; MAX_MASKED];
    h[..n].copy_from_slice(&l3[..n]);
    if version == 4 {
        h[1] = 0xFF; // TOS
        h[8] = 0xFF; // TTL
        h[10] = 0xFF; // header checksum
        h[11] = 0xFF;
    } else {
        h[0] |= 0x0F; // traffic class (high nibble)
        h[1] = 0xFF; // traffic class (low nibble), flow label
        h[2] = 0xFF;
        h[3] = 0xFF;
        h[7] = 0xFF; // hop limit
    }
    h[ip_hlen + 6] = 0xFF; // UDP checksum
    h[ip_hlen + 7] = 0xFF;
    h[ip_hlen + UDP_HEADER_LEN + 4] = 0xFF; // BTH FECN, BECN, reserved
    let mut hasher = seeded_hasher();
    hasher.update(&h[..n]);
    hasher.update(&l3[n..]);
    hasher.finalize()
}

/// Checks the start of an IP packet for the ICRC: returns (version, IP header length).
fn ip_header_for_icrc(l3: &[u8]) -> Result<(u8, usize)> {
    let first = *l3.first().ok_or(Error::Truncated)?;
    let (version, hlen, proto) = match first >> 4 {
        4 => {
            if l3.len() < 20 {
                return Err(Error::Truncated);
            }
            let hl = usize::from(first & 0x0F) * 4;
            if hl < 20 {
                return Err(Error::Malformed("IPv4 IHL below 5"));
            }
            (4, hl, l3[9])
        }
        6 => {
            if l3.len() < IPV6_HEADER_LEN {
                return Err(Error::Truncated);
            }
            (6, IPV6_HEADER_LEN, l3[6])
        }
        _ => return Err(Error::Malformed("IP version is neither 4 nor 6")),
    };
    if proto != IpProtocol::UDP {
        return Err(udp_missing(proto));
    }
    if l3.len() < hlen + UDP_HEADER_LEN + BTH_LEN {
        return Err(Error::Truncated);
    }
    Ok((version, hlen))
}

fn udp_missing(proto: u8) -> Error {
    match proto {
        IpProtocol::HOP_BY_HOP
        | IpProtocol::IPV6_ROUTE
        | IpProtocol::IPV6_FRAG
        | IpProtocol::IPV6_OPTS => Error::Unsupported("IPv6 extension headers before UDP"),
        _ => Error::NotRoce,
    }
}

/// The ICRC of a RoCEv2 packet given from the first byte of its IP header (IPv4 or IPv6) to the
/// last byte before the ICRC. The IP header must carry UDP directly (protocol / next header 17)
/// and be followed by the UDP header and a BTH; the UDP port and the IP lengths are not checked
/// here ([`RoceFrame`] checks them).
///
/// Errors: [`Error::Truncated`] when IP + UDP + BTH headers do not fit, [`Error::Malformed`]
/// for a version other than 4/6 or IHL < 5, [`Error::NotRoce`] when the payload is not UDP.
pub fn icrc_compute(l3_packet: &[u8]) -> Result<u32> {
    let (version, hlen) = ip_header_for_icrc(l3_packet)?;
    Ok(compute_validated(l3_packet, version, hlen))
}

/// Offsets of a RoCEv2 packet inside an Ethernet frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    l3: usize,
    ip_version: u8,
    ip_hlen: usize,
    udp: usize,
    icrc: usize,
}

impl Layout {
    fn bth(&self) -> usize {
        self.udp + UDP_HEADER_LEN
    }
}

fn locate(frame: &[u8]) -> Result<Layout> {
    let eth = EthernetFrame::new_checked(frame)?;
    let l3 = eth.header_len();
    let ip = &frame[l3..];
    let (ip_version, ip_hlen, ip_end) = match eth.ethertype() {
        EtherType::IPV4 => {
            let p = Ipv4Packet::new_checked(ip)?;
            if p.protocol() != IpProtocol::UDP {
                return Err(Error::NotRoce);
            }
            if p.is_fragment() {
                return Err(Error::Unsupported("fragmented IPv4 packet"));
            }
            (4, p.header_len(), l3 + usize::from(p.total_len()))
        }
        EtherType::IPV6 => {
            let p = Ipv6Packet::new_checked(ip)?;
            if p.next_header() != IpProtocol::UDP {
                return Err(udp_missing(p.next_header()));
            }
            (
                6,
                IPV6_HEADER_LEN,
                l3 + IPV6_HEADER_LEN + usize::from(p.payload_len()),
            )
        }
        _ => return Err(Error::NotRoce),
    };
    let udp = l3 + ip_hlen;
    let udp_bytes = &frame[udp..ip_end];
    if udp_bytes.len() < UDP_HEADER_LEN {
        return Err(Error::Truncated);
    }
    if be16(udp_bytes, 2) != ROCEV2_PORT {
        return Err(Error::NotRoce);
    }
    if usize::from(be16(udp_bytes, 4)) != udp_bytes.len() {
        return Err(Error::Malformed("UDP length disagrees with the IP length"));
    }
    if udp_bytes.len() < UDP_HEADER_LEN + BTH_LEN + ICRC_LEN {
        return Err(Error::Malformed("UDP payload too short for BTH and ICRC"));
    }
    Ok(Layout {
        l3,
        ip_version,
        ip_hlen,
        udp,
        icrc: ip_end - ICRC_LEN,
    })
}

/// A RoCEv2 packet located inside an Ethernet II frame (optional VLAN tag, IPv4 or IPv6, UDP
/// destination port 4791). The IP length fields say where the packet ends; Ethernet padding or
/// an FCS after it are ignored. The ICRC is the last 4 bytes of the UDP payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoceFrame<'a> {
    frame: &'a [u8],
    layout: Layout,
}

impl<'a> RoceFrame<'a> {
    /// Locates the packet. Errors: [`Error::NotRoce`] for a well-formed frame that is not IP /
    /// UDP / port 4791; [`Error::Truncated`] when the frame is shorter than its headers or IP
    /// length declare; [`Error::Malformed`] for inconsistent fields (bad IP version or IHL, UDP
    /// length ≠ IP payload length, no room for BTH and ICRC); [`Error::Unsupported`] for IPv4
    /// fragments and IPv6 extension headers.
    pub fn parse(frame: &'a [u8]) -> Result<RoceFrame<'a>> {
        let layout = locate(frame)?;
        Ok(RoceFrame { frame, layout })
    }

    /// The whole frame as given.
    pub fn frame(&self) -> &'a [u8] {
        self.frame
    }

    /// 4 or 6.
    pub fn ip_version(&self) -> u8 {
        self.layout.ip_version
    }

    /// Offset of the IP header in the frame.
    pub fn l3_offset(&self) -> usize {
        self.layout.l3
    }

    /// Offset of the UDP header in the frame.
    pub fn udp_offset(&self) -> usize {
        self.layout.udp
    }

    /// Offset of the BTH in the frame.
    pub fn bth_offset(&self) -> usize {
        self.layout.bth()
    }

    /// Offset of the 4 ICRC bytes in the frame.
    pub fn icrc_offset(&self) -> usize {
        self.layout.icrc
    }

    /// The bytes the ICRC covers: IP header to just before the ICRC.
    pub fn l3_packet(&self) -> &'a [u8] {
        &self.frame[self.layout.l3..self.layout.icrc]
    }

    /// The BTH and everything after it up to the ICRC (DETH, ImmDt, payload, pad).
    pub fn bth(&self) -> Bth<&'a [u8]> {
        Bth::new_unchecked(&self.frame[self.layout.bth()..self.layout.icrc])
    }

    /// The bytes between the BTH and the ICRC: DETH / ImmDt as the opcode says, payload, pad.
    pub fn bth_payload(&self) -> &'a [u8] {
        &self.frame[self.layout.bth() + BTH_LEN..self.layout.icrc]
    }

    /// The ICRC stored in the frame (read little-endian).
    pub fn stored(&self) -> u32 {
        let i = self.layout.icrc;
        let f = self.frame;
        u32::from_le_bytes([f[i], f[i + 1], f[i + 2], f[i + 3]])
    }

    /// The ICRC computed over the packet.
    pub fn computed(&self) -> u32 {
        compute_validated(
            self.l3_packet(),
            self.layout.ip_version,
            self.layout.ip_hlen,
        )
    }

    /// True when stored and computed ICRC agree.
    pub fn is_valid(&self) -> bool {
        self.stored() == self.computed()
    }
}

/// Computes the ICRC of the RoCEv2 packet in an Ethernet frame and writes it (little-endian)
/// into the packet's last 4 bytes; returns it. Errors as [`RoceFrame::parse`].
///
/// The UDP checksum, when used, covers the ICRC: fill it after this (the ICRC masks the UDP
/// checksum, so the order does not change the ICRC).
pub fn icrc_fill(frame: &mut [u8]) -> Result<u32> {
    let l = locate(frame)?;
    let crc = compute_validated(&frame[l.l3..l.icrc], l.ip_version, l.ip_hlen);
    frame[l.icrc..l.icrc + ICRC_LEN].copy_from_slice(&crc.to_le_bytes());
    Ok(crc)
}

/// Frames shorter than this (Ethernet's 64-byte minimum less the 4-byte FCS) are padded with
/// zeros after the ICRC.
pub const MIN_FRAME: usize = 60;

/// Appends the ICRC and the minimum-length padding to a RoCEv2 frame, as a sender does last:
/// `out[..len]` is an Ethernet frame whose IP header starts at `l3`, complete but for the ICRC
/// (headers, payload and pad). Writes the ICRC little-endian at `len`, then zeros up to
/// [`MIN_FRAME`], and returns the new length, `max(len + 4, MIN_FRAME)`.
///
/// Only what the ICRC needs is read (IP version, IHL, protocol; see [`icrc_compute`]): the IP
/// and UDP lengths are the caller's, so this works on a frame still being built. Errors:
/// [`Error::Truncated`] when `l3 > len` or `out` cannot hold the result, else as
/// [`icrc_compute`] over `out[l3..len]`.
pub fn icrc_append(out: &mut [u8], len: usize, l3: usize) -> Result<usize> {
    let total = (len + ICRC_LEN).max(MIN_FRAME);
    if l3 > len || out.len() < total {
        return Err(Error::Truncated);
    }
    let crc = icrc_compute(&out[l3..len])?;
    out[len..len + ICRC_LEN].copy_from_slice(&crc.to_le_bytes());
    out[len + ICRC_LEN..total].fill(0);
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 8 bytes of 0xFF leave the CRC register at 0xDEBB20E3, and seeding with that state
    /// is the same as hashing them.
    #[test]
    fn prefix_state_equivalence() {
        let mut h = crc32fast::Hasher::new();
        h.update(&[0xFF; 8]);
        assert_eq!(h.clone().finalize(), PREFIX_STATE);
        assert_eq!(!h.clone().finalize(), PREFIX_REGISTER);
        let tail = b"any bytes at all, of any length";
        let mut a = h;
        a.update(tail);
        let mut b = seeded_hasher();
        b.update(tail);
        assert_eq!(a.finalize(), b.finalize());
    }

    #[test]
    fn errors_classified() {
        assert_eq!(icrc_compute(&[]), Err(Error::Truncated));
        let mut v4 = [0u8; 40];
        v4[0] = 0x45;
        v4[9] = 6; // TCP
        assert_eq!(icrc_compute(&v4), Err(Error::NotRoce));
        v4[9] = 17;
        assert!(icrc_compute(&v4).is_ok());
        assert_eq!(icrc_compute(&v4[..39]), Err(Error::Truncated));
        v4[0] = 0x44;
        assert!(matches!(icrc_compute(&v4), Err(Error::Malformed(_))));
        v4[0] = 0x55;
        assert!(matches!(icrc_compute(&v4), Err(Error::Malformed(_))));
    }

    /// The ICRC lands little-endian after the given bytes, short frames are zero-padded to 60,
    /// and the result parses back as a valid RoCEv2 frame when the lengths agree.
    #[test]
    fn append_places_the_icrc_and_pads() {
        // IPv4 | UDP | BTH, no payload: 54 bytes, so 58 with the ICRC and 2 of padding.
        let mut f = [0xAAu8; 80];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14..34].copy_from_slice(&[
            0x45, 0, 0, 44, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ]);
        f[34..42].copy_from_slice(&[0xC0, 0x00, 0x12, 0xB7, 0, 24, 0, 0]);
        f[42..54].copy_from_slice(&[0x04, 0, 0xFF, 0xFF, 0, 0, 0, 0x11, 0, 0, 0, 1]);
        let n = icrc_append(&mut f, 54, 14).unwrap();
        assert_eq!(n, MIN_FRAME);
        let crc = icrc_compute(&f[14..54]).unwrap();
        assert_eq!(f[54..58], crc.to_le_bytes());
        assert_eq!(f[58..60], [0, 0]);
        assert_eq!(f[60], 0xAA, "nothing written past the frame");
        let r = RoceFrame::parse(&f[..n]).unwrap();
        assert!(r.is_valid());
        // Long enough: no padding, the ICRC ends the frame.
        let mut g = [0u8; 100];
        g[..60].copy_from_slice(&f[..60]);
        g[54..70].fill(0x5A);
        assert_eq!(icrc_append(&mut g, 70, 14), Ok(74));
        assert_eq!(g[70..74], icrc_compute(&g[14..70]).unwrap().to_le_bytes());
        // Errors: no room, an IP header past the end, not RoCE.
        assert_eq!(icrc_append(&mut f[..59], 54, 14), Err(Error::Truncated));
        assert_eq!(icrc_append(&mut f, 10, 14), Err(Error::Truncated));
        f[23] = 6;
        assert_eq!(icrc_append(&mut f, 54, 14), Err(Error::NotRoce));
    }
}
