//! TCP (RFC 9293) header with options.
//!
//! Layout: source port (2) | destination port (2) | sequence (4) | acknowledgment (4) |
//! data offset (4 bits) + reserved (3 bits) + flags (9 bits: NS/AE, CWR, ECE, URG, ACK, PSH,
//! RST, SYN, FIN) | window (2) | checksum (2) | urgent pointer (2) | options (0..40).
//! The checksum covers the IP pseudo-header (protocol 6, TCP length) plus header and payload.

use core::fmt;
use core::ops::{BitAnd, BitOr, BitOrAssign, Not};

use super::checksum::{self, IpPseudo};
use super::{be16, be32, put16, put32, Error, Result};

/// TCP flags (the 9 low bits of bytes 12..14).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags(u16);

impl TcpFlags {
    /// No more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x001);
    /// Synchronise sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x002);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x004);
    /// Push.
    pub const PSH: TcpFlags = TcpFlags(0x008);
    /// Acknowledgment field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x010);
    /// Urgent pointer is significant.
    pub const URG: TcpFlags = TcpFlags(0x020);
    /// ECN echo.
    pub const ECE: TcpFlags = TcpFlags(0x040);
    /// Congestion window reduced.
    pub const CWR: TcpFlags = TcpFlags(0x080);
    /// NS (RFC 3540, historic) / AE (accurate ECN): bit 8.
    pub const NS: TcpFlags = TcpFlags(0x100);
    /// All nine flag bits.
    pub const ALL: TcpFlags = TcpFlags(0x1FF);
    /// No flag.
    pub const EMPTY: TcpFlags = TcpFlags(0);

    /// From raw bits; bits above the nine flags are dropped.
    pub const fn from_bits(bits: u16) -> TcpFlags {
        TcpFlags(bits & 0x1FF)
    }

    /// Raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// True when every flag of `other` is set in `self`.
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// True when no flag is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `self` with the flags of `other` set or cleared.
    pub const fn with(self, other: TcpFlags, on: bool) -> TcpFlags {
        if on {
            TcpFlags(self.0 | other.0)
        } else {
            TcpFlags(self.0 & !other.0)
        }
    }
}

impl BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | o.0)
    }
}

impl BitOrAssign for TcpFlags {
    fn bitor_assign(&mut self, o: TcpFlags) {
        self.0 |= o.0;
    }
}

impl BitAnd for TcpFlags {
    type Output = TcpFlags;
    fn bitand(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 & o.0)
    }
}

impl Not for TcpFlags {
    type Output = TcpFlags;
    fn not(self) -> TcpFlags {
        TcpFlags(!self.0 & 0x1FF)
    }
}

impl fmt::Debug for TcpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; 9] = ["FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR", "NS"];
        write!(f, "TcpFlags(")?;
        let mut first = true;
        for (i, n) in NAMES.iter().enumerate() {
            if self.0 & (1 << i) != 0 {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(n)?;
                first = false;
            }
        }
        write!(f, ")")
    }
}

/// Length of a TCP header without options.
pub const MIN_HEADER_LEN: usize = 20;
/// Most option bytes (data offset 15).
pub const MAX_OPTIONS_LEN: usize = 40;

/// A view of a TCP segment. The buffer should hold exactly the segment (header and payload)
/// for the checksum functions: the IP layer knows where the segment ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    /// Wraps a buffer without checking it.
    pub const fn new_unchecked(buffer: T) -> Self {
        TcpPacket { buffer }
    }

    /// Wraps a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Self::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Verifies: 20 bytes, data offset ≥ 5, and the buffer holds the whole header.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < MIN_HEADER_LEN {
            return Err(Error::Truncated);
        }
        let hl = self.header_len();
        if hl < MIN_HEADER_LEN {
            return Err(Error::Malformed("TCP data offset below 5"));
        }
        if b.len() < hl {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), 0)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Sequence number.
    pub fn seq_number(&self) -> u32 {
        be32(self.buffer.as_ref(), 4)
    }

    /// Acknowledgment number.
    pub fn ack_number(&self) -> u32 {
        be32(self.buffer.as_ref(), 8)
    }

    /// Data offset in 32-bit words.
    pub fn data_offset(&self) -> u8 {
        self.buffer.as_ref()[12] >> 4
    }

    /// Header length in bytes (data offset × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.data_offset()) * 4
    }

    /// The three reserved bits (should be zero).
    pub fn reserved(&self) -> u8 {
        (self.buffer.as_ref()[12] >> 1) & 7
    }

    /// Flags.
    pub fn flags(&self) -> TcpFlags {
        TcpFlags::from_bits(be16(self.buffer.as_ref(), 12))
    }

    /// Window.
    pub fn window(&self) -> u16 {
        be16(self.buffer.as_ref(), 14)
    }

    /// Stored checksum.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), 16)
    }

    /// Urgent pointer.
    pub fn urgent(&self) -> u16 {
        be16(self.buffer.as_ref(), 18)
    }

    fn header_end(&self) -> usize {
        let n = self.buffer.as_ref().len();
        self.header_len().clamp(MIN_HEADER_LEN.min(n), n)
    }

    /// Option bytes.
    pub fn options(&self) -> &[u8] {
        let end = self.header_end();
        &self.buffer.as_ref()[MIN_HEADER_LEN.min(end)..end]
    }

    /// Payload: everything after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_end()..]
    }

    /// True when the stored checksum is right for the whole buffer as the segment.
    pub fn verify_checksum(&self, pseudo: &IpPseudo) -> bool {
        pseudo.sum_with(self.buffer.as_ref()) == 0xFFFF
    }

    /// The checksum the segment (the whole buffer) should carry.
    pub fn compute_checksum(&self, pseudo: &IpPseudo) -> u16 {
        let b = self.buffer.as_ref();
        let n = b.len();
        let head = checksum::sum(&b[..16.min(n)]);
        let rest = checksum::sum(&b[18.min(n)..]);
        checksum::finish(checksum::combine(&[pseudo.sum(n as u32), head, rest]))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 0, v);
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v);
    }

    /// Sets the sequence number.
    pub fn set_seq_number(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 4, v);
    }

    /// Sets the acknowledgment number.
    pub fn set_ack_number(&mut self, v: u32) {
        put32(self.buffer.as_mut(), 8, v);
    }

    /// Sets the flags (data offset kept, reserved bits cleared).
    pub fn set_flags(&mut self, f: TcpFlags) {
        let b = self.buffer.as_mut();
        let v = (u16::from(b[12] & 0xF0) << 8) | f.bits();
        put16(b, 12, v);
    }

    /// Sets the window.
    pub fn set_window(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 14, v);
    }

    /// Sets the stored checksum.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 16, v);
    }

    /// Sets the urgent pointer.
    pub fn set_urgent(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 18, v);
    }

    /// Computes and stores the checksum, the whole buffer being the segment.
    pub fn fill_checksum(&mut self, pseudo: &IpPseudo) {
        let c = self.compute_checksum(pseudo);
        self.set_checksum(c);
    }

    /// Mutable payload.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let at = self.header_end();
        &mut self.buffer.as_mut()[at..]
    }
}

/// The fields of a TCP header. The checksum is not kept: `emit` writes 0 and
/// [`TcpPacket::fill_checksum`] fills it once the payload is in place.
#[derive(Debug, Clone, Copy, Eq)]
pub struct TcpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// Flags.
    pub flags: TcpFlags,
    /// Window.
    pub window: u16,
    /// Urgent pointer.
    pub urgent: u16,
    /// Option bytes; only the first `options_len` count.
    pub options: [u8; MAX_OPTIONS_LEN],
    /// Number of option bytes: a multiple of 4, at most 40.
    pub options_len: u8,
}

impl PartialEq for TcpRepr {
    fn eq(&self, o: &Self) -> bool {
        self.src_port == o.src_port
            && self.dst_port == o.dst_port
            && self.seq == o.seq
            && self.ack == o.ack
            && self.flags == o.flags
            && self.window == o.window
            && self.urgent == o.urgent
            && self.options_len == o.options_len
            && self.options() == o.options()
    }
}

impl TcpRepr {
    /// Reads the header of a checked segment (reserved bits are dropped).
    pub fn parse<T: AsRef<[u8]>>(p: &TcpPacket<T>) -> Result<TcpRepr> {
        p.check_len()?;
        let mut options = [0; MAX_OPTIONS_LEN];
        let o = p.options();
        options[..o.len()].copy_from_slice(o);
        Ok(TcpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            seq: p.seq_number(),
            ack: p.ack_number(),
            flags: p.flags(),
            window: p.window(),
            urgent: p.urgent(),
            options,
            options_len: o.len() as u8,
        })
    }

    /// The option bytes in use.
    pub fn options(&self) -> &[u8] {
        &self.options[..usize::from(self.options_len).min(MAX_OPTIONS_LEN)]
    }

    /// Replaces the options; `opts` must be a multiple of 4 bytes, at most 40 (pad with NOP/EOL).
    pub fn set_options(&mut self, opts: &[u8]) -> Result<()> {
        if opts.len() > MAX_OPTIONS_LEN || !opts.len().is_multiple_of(4) {
            return Err(Error::Malformed(
                "TCP options must be a multiple of 4 bytes, at most 40",
            ));
        }
        self.options = [0; MAX_OPTIONS_LEN];
        self.options[..opts.len()].copy_from_slice(opts);
        self.options_len = opts.len() as u8;
        Ok(())
    }

    /// Header length: 20 plus the options.
    pub fn header_len(&self) -> usize {
        MIN_HEADER_LEN + usize::from(self.options_len)
    }

    /// Writes the header (checksum 0) into the start of the buffer.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut TcpPacket<T>) -> Result<()> {
        let ol = usize::from(self.options_len);
        if ol > MAX_OPTIONS_LEN || ol % 4 != 0 {
            return Err(Error::Malformed(
                "TCP options must be a multiple of 4 bytes, at most 40",
            ));
        }
        let hl = self.header_len();
        let b = p.buffer.as_mut();
        if b.len() < hl {
            return Err(Error::Truncated);
        }
        put16(b, 0, self.src_port);
        put16(b, 2, self.dst_port);
        put32(b, 4, self.seq);
        put32(b, 8, self.ack);
        put16(b, 12, ((hl as u16 / 4) << 12) | self.flags.bits());
        put16(b, 14, self.window);
        put16(b, 16, 0);
        put16(b, 18, self.urgent);
        b[20..hl].copy_from_slice(self.options());
        Ok(())
    }
}
