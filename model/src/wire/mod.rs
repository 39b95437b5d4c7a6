//! Wire formats: Ethernet, IPv4, IPv6, UDP, TCP, InfiniBand transport headers, IPoIB, the
//! RoCEv2 ICRC and classic pcap files.
//!
//! # Shape
//!
//! Every header comes in two halves, in the manner of smoltcp:
//!
//! * a **view** `Xxx<T: AsRef<[u8]>>` over bytes (for example [`Ipv4Packet`]) with field getters
//!   at documented offsets, and setters when `T: AsMut<[u8]>`. `Xxx::new_unchecked(buffer)` wraps
//!   any buffer; `Xxx::new_checked(buffer)` first verifies that the buffer holds the fixed header
//!   *and* everything that the header's own length fields declare (IPv4 IHL and total length,
//!   TCP data offset, UDP length, ...). `into_inner()` gives the buffer back.
//! * a plain **representation** `XxxRepr` (`Copy`, `PartialEq`, `Debug`) holding the field values.
//!   `XxxRepr::parse(&view)` reads one, `repr.header_len()` says how many bytes the header takes and
//!   `repr.emit(&mut view)` writes it (lengths and the IPv4 header checksum are filled in; TCP and
//!   UDP checksums are filled by the view's `fill_checksum` once the payload is in place).
//!
//! # The no-panic contract
//!
//! Once `new_checked` has succeeded on a buffer, **no getter, setter or `Repr::parse` panics**,
//! whatever the bytes are. Setters write fields in place; one that rewrites a length field (IPv4
//! total length, UDP length, IPv6 payload length) can make `payload()` shorter than declared but
//! never out of bounds, since every range a getter derives from a length field is clamped to the
//! buffer. (Header lengths themselves — IHL, TCP data offset — have no setter.) `emit` never panics:
//! it returns [`Error::Truncated`] when the view's buffer is shorter than `header_len()` and
//! [`Error::Malformed`] when a repr field does not fit its wire field. Views built with
//! `new_unchecked` over short buffers may panic on access; that is what `new_checked` is for.
//! `model/tests/wire/fuzz.rs` feeds arbitrary bytes through every `new_checked`, every getter, every
//! `parse`, the pcap reader and the RoCEv2 frame locator to hold this contract.
//!
//! Nothing in this module allocates: options are kept inline in fixed arrays.

use core::fmt;

pub mod checksum;
pub mod ethernet;
pub mod ib;
pub mod icrc;
pub mod ipoib;
pub mod ipv4;
pub mod ipv6;
pub mod link;
pub mod pcap;
pub mod tcp;
pub mod udp;

pub use checksum::IpPseudo;
pub use ethernet::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr, VlanTag};
pub use ib::{
    opcode, Bth, BthRepr, Deth, DethRepr, Gid, Grh, GrhRepr, ImmDt, ImmDtRepr, Lrh, LrhRepr,
};
pub use icrc::{icrc_append, icrc_compute, icrc_fill, RoceFrame, ICRC_LEN, MIN_FRAME};
pub use ipoib::{IpoibHeader, IpoibHwAddr, IpoibRepr};
pub use ipv4::{Ipv4Address, Ipv4Packet, Ipv4Repr};
pub use ipv6::{skip_extension_headers, Ipv6Address, Ipv6ExtChain, Ipv6Packet, Ipv6Repr};
pub use link::LinkType;
#[cfg(feature = "std")]
pub use pcap::PcapWriter;
pub use pcap::{record_header, write_global_header, PcapReader, PcapRecord, PcapRecords};
pub use tcp::{TcpFlags, TcpPacket, TcpRepr};
pub use udp::{UdpPacket, UdpRepr, ROCEV2_PORT};

/// Why bytes could not be read as a header, or a repr could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The buffer is shorter than the header, or than a length the header declares.
    Truncated,
    /// A field holds a value the format forbids (the reason says which).
    Malformed(&'static str),
    /// A valid format this model does not handle (the reason says which).
    Unsupported(&'static str),
    /// The frame is well formed but is not RoCEv2 (not IP, not UDP, or not port 4791).
    NotRoce,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => f.write_str("truncated: buffer shorter than the header declares"),
            Error::Malformed(why) => write!(f, "malformed: {why}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::NotRoce => f.write_str("not a RoCEv2 packet"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Result of the wire functions.
pub type Result<T> = core::result::Result<T, Error>;

/// IP protocol numbers (IPv4 `protocol`, IPv6 `next header`) used in this crate.
#[derive(Debug)]
pub enum IpProtocol {}

impl IpProtocol {
    /// IPv6 hop-by-hop options extension header.
    pub const HOP_BY_HOP: u8 = 0;
    /// ICMP for IPv4.
    pub const ICMP: u8 = 1;
    /// TCP.
    pub const TCP: u8 = 6;
    /// UDP.
    pub const UDP: u8 = 17;
    /// IPv6 routing extension header.
    pub const IPV6_ROUTE: u8 = 43;
    /// IPv6 fragment extension header.
    pub const IPV6_FRAG: u8 = 44;
    /// ICMP for IPv6.
    pub const ICMPV6: u8 = 58;
    /// IPv6 "no next header".
    pub const IPV6_NO_NEXT: u8 = 59;
    /// IPv6 destination options extension header.
    pub const IPV6_OPTS: u8 = 60;
    /// IPsec Encapsulating Security Payload.
    pub const ESP: u8 = 50;
    /// IPsec Authentication Header.
    pub const AH: u8 = 51;
    /// Mobility extension header (RFC 6275).
    pub const IPV6_MOBILITY: u8 = 135;
    /// Host Identity Protocol (RFC 7401).
    pub const HIP: u8 = 139;
    /// Shim6 (RFC 5533).
    pub const SHIM6: u8 = 140;
    /// Reserved for experimentation (RFC 3692), the first of two.
    pub const EXPERIMENT_1: u8 = 253;
    /// Reserved for experimentation (RFC 3692), the second.
    pub const EXPERIMENT_2: u8 = 254;
    /// InfiniBand BTH follows a GRH (GRH next header 0x1B).
    pub const IB_BTH: u8 = 0x1B;
}

/// Reads a big-endian u16 at `at`. Callers have checked the length.
#[inline]
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Reads a big-endian 24-bit value at `at`.
#[inline]
pub(crate) fn be24(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, b[at], b[at + 1], b[at + 2]])
}

/// Reads a big-endian u32 at `at`.
#[inline]
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Writes a big-endian u16 at `at`.
#[inline]
pub(crate) fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes the low 24 bits of `v` big-endian at `at`.
#[inline]
pub(crate) fn put24(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 3].copy_from_slice(&v.to_be_bytes()[1..]);
}

/// Writes a big-endian u32 at `at`.
#[inline]
pub(crate) fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Formats bytes as lower-case hex separated by `sep` (MAC-address style).
pub(crate) fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8], sep: char) -> fmt::Result {
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            write!(f, "{sep}")?;
        }
        write!(f, "{b:02x}")?;
    }
    Ok(())
}
