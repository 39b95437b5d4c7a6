//! Classic libpcap files, read from a byte slice without allocation.
//!
//! Global header (24 bytes): magic (4) | version major (2) | minor (2) | thiszone (4) |
//! sigfigs (4) | snaplen (4) | link type (4). Record header (16 bytes): ts_sec (4) |
//! ts_frac (4, µs or ns by the magic) | incl_len (4) | orig_len (4), then `incl_len` bytes.
//! Magic 0xA1B2C3D4 means microseconds, 0xA1B23C4D nanoseconds; the byte order in which it reads
//! right is the file's. pcapng (first word 0x0A0D0D0A) is recognised and refused.
//!
//! Reading: [`PcapReader`] walks a file held in memory without allocating; with the `std` feature,
//! [`PcapStream`] reads one record at a time from any `std::io::Read` into one reused buffer, so
//! a capture of any length is read in memory bounded by its longest record. Both decode the
//! headers with [`GlobalHeader`].
//!
//! Writing: [`write_global_header`] and [`record_header`] encode the headers into fixed arrays;
//! with the `std` feature, [`PcapWriter`] writes a whole file through `std::io::Write` with them.

#[cfg(feature = "std")]
mod stream;

#[cfg(feature = "std")]
use super::LinkType;
use super::{Error, Result};
#[cfg(feature = "std")]
pub use stream::{PcapStream, ReadError, MAX_RECORD_LEN};

/// Length of the global header.
pub const GLOBAL_HEADER_LEN: usize = 24;
/// Length of a record header.
pub const RECORD_HEADER_LEN: usize = 16;
/// The snap length [`PcapWriter::new`] writes: the classic 65535, above any frame MTU.
pub const DEFAULT_SNAPLEN: u32 = 65535;

const MAGIC_US: u32 = 0xA1B2_C3D4;
const MAGIC_NS: u32 = 0xA1B2_3C4D;
const MAGIC_PCAPNG: u32 = 0x0A0D_0D0A;

/// A decoded global header: the byte order and time unit its magic gives, and its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalHeader {
    big_endian: bool,
    nanos: bool,
    version: (u16, u16),
    snaplen: u32,
    link_type: u32,
}

/// A decoded record header; `incl_len` captured bytes follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// Seconds since the epoch.
    pub ts_sec: u32,
    /// Microseconds or nanoseconds, as [`GlobalHeader::is_nanosecond`] says.
    pub ts_frac: u32,
    /// Bytes captured, which follow the header.
    pub incl_len: u32,
    /// Bytes on the wire.
    pub orig_len: u32,
}

impl GlobalHeader {
    /// Decodes the first [`GLOBAL_HEADER_LEN`] bytes of a file. Errors:
    /// [`Error::Unsupported`]`("pcapng")` for a pcapng file, [`Error::Malformed`] for an unknown
    /// magic, [`Error::Truncated`] for fewer bytes than a header.
    pub fn parse(data: &[u8]) -> Result<GlobalHeader> {
        let m = data.get(..4).ok_or(Error::Truncated)?;
        let le = u32::from_le_bytes([m[0], m[1], m[2], m[3]]);
        let be = u32::from_be_bytes([m[0], m[1], m[2], m[3]]);
        let (big_endian, nanos) = if le == MAGIC_US {
            (false, false)
        } else if le == MAGIC_NS {
            (false, true)
        } else if be == MAGIC_US {
            (true, false)
        } else if be == MAGIC_NS {
            (true, true)
        } else if be == MAGIC_PCAPNG {
            return Err(Error::Unsupported("pcapng"));
        } else {
            return Err(Error::Malformed("not a pcap file (unknown magic)"));
        };
        let h = data.get(..GLOBAL_HEADER_LEN).ok_or(Error::Truncated)?;
        let mut g = GlobalHeader {
            big_endian,
            nanos,
            version: (0, 0),
            snaplen: 0,
            link_type: 0,
        };
        g.version = (g.u16_at(h, 4), g.u16_at(h, 6));
        g.snaplen = g.u32_at(h, 16);
        g.link_type = g.u32_at(h, 20);
        Ok(g)
    }

    /// Decodes a record header in this file's byte order.
    pub fn record(&self, h: &[u8; RECORD_HEADER_LEN]) -> RecordHeader {
        RecordHeader {
            ts_sec: self.u32_at(h, 0),
            ts_frac: self.u32_at(h, 4),
            incl_len: self.u32_at(h, 8),
            orig_len: self.u32_at(h, 12),
        }
    }

    fn u16_at(&self, d: &[u8], at: usize) -> u16 {
        let b = [d[at], d[at + 1]];
        if self.big_endian {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    fn u32_at(&self, d: &[u8], at: usize) -> u32 {
        let b = [d[at], d[at + 1], d[at + 2], d[at + 3]];
        if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }

    /// Link-layer type: the low 16 bits of the header's link-type field (the upper bits carry
    /// FCS information in newer writers). See [`LinkType::from_pcap`](super::LinkType::from_pcap).
    pub fn link_type(&self) -> u32 {
        self.link_type & 0xFFFF
    }

    /// The link-type field as stored.
    pub fn link_type_raw(&self) -> u32 {
        self.link_type
    }

    /// Snapshot length.
    pub fn snaplen(&self) -> u32 {
        self.snaplen
    }

    /// (major, minor) file format version (2, 4 today).
    pub fn version(&self) -> (u16, u16) {
        self.version
    }

    /// True when timestamps carry nanoseconds (magic 0xA1B23C4D).
    pub fn is_nanosecond(&self) -> bool {
        self.nanos
    }

    /// True when the file was written big-endian.
    pub fn is_big_endian(&self) -> bool {
        self.big_endian
    }
}

/// A pcap file over borrowed bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcapReader<'a> {
    data: &'a [u8],
    header: GlobalHeader,
}

/// One record of a pcap file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcapRecord<'a> {
    /// Seconds since the epoch.
    pub ts_sec: u32,
    /// Fraction of the second: microseconds, or nanoseconds when the reader says
    /// [`PcapReader::is_nanosecond`].
    pub ts_frac: u32,
    /// Length of the packet on the wire (may exceed `data.len()` when the capture was cut).
    pub orig_len: u32,
    /// The captured bytes (`incl_len` of them).
    pub data: &'a [u8],
}

impl<'a> PcapReader<'a> {
    /// Reads the global header; errors as [`GlobalHeader::parse`].
    pub fn new(data: &'a [u8]) -> Result<PcapReader<'a>> {
        Ok(PcapReader {
            data,
            header: GlobalHeader::parse(data)?,
        })
    }

    /// The file's global header.
    pub fn header(&self) -> &GlobalHeader {
        &self.header
    }

    /// Link-layer type ([`GlobalHeader::link_type`]).
    pub fn link_type(&self) -> u32 {
        self.header.link_type()
    }

    /// The link-type field as stored.
    pub fn link_type_raw(&self) -> u32 {
        self.header.link_type_raw()
    }

    /// Snapshot length.
    pub fn snaplen(&self) -> u32 {
        self.header.snaplen()
    }

    /// (major, minor) file format version (2, 4 today).
    pub fn version(&self) -> (u16, u16) {
        self.header.version()
    }

    /// True when timestamps carry nanoseconds (magic 0xA1B23C4D).
    pub fn is_nanosecond(&self) -> bool {
        self.header.is_nanosecond()
    }

    /// True when the file was written big-endian.
    pub fn is_big_endian(&self) -> bool {
        self.header.is_big_endian()
    }

    /// The records, in file order. A record whose header or body is cut short yields one
    /// [`Error::Truncated`] and ends the iteration.
    pub fn records(&self) -> PcapRecords<'a> {
        PcapRecords {
            reader: *self,
            pos: GLOBAL_HEADER_LEN,
            done: false,
        }
    }
}

/// Iterator over the records of a [`PcapReader`].
#[derive(Debug, Clone)]
pub struct PcapRecords<'a> {
    reader: PcapReader<'a>,
    pos: usize,
    done: bool,
}

impl<'a> Iterator for PcapRecords<'a> {
    type Item = Result<PcapRecord<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let data = self.reader.data;
        let left = data.len().saturating_sub(self.pos);
        if left == 0 {
            self.done = true;
            return None;
        }
        if left < RECORD_HEADER_LEN {
            self.done = true;
            return Some(Err(Error::Truncated));
        }
        let p = self.pos;
        let h = data[p..p + RECORD_HEADER_LEN]
            .try_into()
            .expect("checked above: a whole record header is left");
        let rec = self.reader.header.record(h);
        let (ts_sec, ts_frac, orig_len) = (rec.ts_sec, rec.ts_frac, rec.orig_len);
        // A length past the address space cannot be in `data`: it reads as truncated.
        let incl = usize::try_from(rec.incl_len).unwrap_or(usize::MAX);
        let body = p + RECORD_HEADER_LEN;
        if data.len() - body < incl {
            self.done = true;
            return Some(Err(Error::Truncated));
        }
        self.pos = body + incl;
        Some(Ok(PcapRecord {
            ts_sec,
            ts_frac,
            orig_len,
            data: &data[body..body + incl],
        }))
    }
}

/// A little-endian, microsecond pcap global header (version 2.4, zone 0, sigfigs 0).
pub fn write_global_header(link_type: u32, snaplen: u32) -> [u8; GLOBAL_HEADER_LEN] {
    let mut h = [0u8; GLOBAL_HEADER_LEN];
    h[0..4].copy_from_slice(&MAGIC_US.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&snaplen.to_le_bytes());
    h[20..24].copy_from_slice(&link_type.to_le_bytes());
    h
}

/// A little-endian record header; `caplen` bytes of packet must follow it.
pub fn record_header(
    ts_sec: u32,
    ts_usec: u32,
    caplen: u32,
    orig_len: u32,
) -> [u8; RECORD_HEADER_LEN] {
    let mut h = [0u8; RECORD_HEADER_LEN];
    h[0..4].copy_from_slice(&ts_sec.to_le_bytes());
    h[4..8].copy_from_slice(&ts_usec.to_le_bytes());
    h[8..12].copy_from_slice(&caplen.to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    h
}

/// Writes a little-endian, microsecond pcap file: the global header on creation, then one
/// record per packet.
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct PcapWriter<W: std::io::Write> {
    out: W,
}

#[cfg(feature = "std")]
impl<W: std::io::Write> PcapWriter<W> {
    /// Starts a file of `link` frames with snap length [`DEFAULT_SNAPLEN`].
    pub fn new(out: W, link: LinkType) -> std::io::Result<Self> {
        Self::with_header(out, link.pcap(), DEFAULT_SNAPLEN)
    }

    /// Starts a file with any link-type number and snap length (a number [`LinkType`] does not
    /// name makes a file that readers here refuse, which is what tests of them need).
    pub fn with_header(mut out: W, link_type: u32, snaplen: u32) -> std::io::Result<Self> {
        out.write_all(&write_global_header(link_type, snaplen))?;
        Ok(PcapWriter { out })
    }

    /// Writes a whole packet captured at `ts`, (seconds, microseconds).
    pub fn write_record(&mut self, ts: (u32, u32), data: &[u8]) -> std::io::Result<()> {
        let len = Self::len32(data)?;
        self.write_cut_record(ts, data, len)
    }

    /// Writes the captured `data` of a packet `orig_len` bytes long on the wire (longer when the
    /// capture was cut at the snap length).
    pub fn write_cut_record(
        &mut self,
        ts: (u32, u32),
        data: &[u8],
        orig_len: u32,
    ) -> std::io::Result<()> {
        let caplen = Self::len32(data)?;
        self.out
            .write_all(&record_header(ts.0, ts.1, caplen, orig_len))?;
        self.out.write_all(data)
    }

    /// Flushes the output and gives it back.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    fn len32(data: &[u8]) -> std::io::Result<u32> {
        u32::try_from(data.len()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a pcap record holds at most 4 GiB",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::LinkType;

    #[test]
    fn write_then_read() {
        let mut file = [0u8; 24 + 16 + 3 + 16];
        file[..24].copy_from_slice(&write_global_header(LinkType::Infiniband.pcap(), 65535));
        file[24..40].copy_from_slice(&record_header(7, 8, 3, 60));
        file[40..43].copy_from_slice(&[1, 2, 3]);
        file[43..59].copy_from_slice(&record_header(9, 10, 1, 1));
        let r = PcapReader::new(&file).unwrap();
        assert_eq!(r.link_type(), 247);
        assert_eq!(r.snaplen(), 65535);
        assert_eq!(r.version(), (2, 4));
        let mut it = r.records();
        let rec = it.next().unwrap().unwrap();
        assert_eq!((rec.ts_sec, rec.ts_frac, rec.orig_len), (7, 8, 60));
        assert_eq!(rec.data, &[1, 2, 3]);
        // The second record announces 1 byte that is not there.
        assert_eq!(it.next(), Some(Err(Error::Truncated)));
        assert_eq!(it.next(), None);
    }

    #[test]
    fn magics() {
        assert_eq!(
            PcapReader::new(&[0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 0]).unwrap_err(),
            Error::Unsupported("pcapng")
        );
        assert_eq!(
            PcapReader::new(&[0xA1, 0xB2]).unwrap_err(),
            Error::Truncated
        );
        let mut be = [0u8; 24];
        be[..4].copy_from_slice(&[0xA1, 0xB2, 0x3C, 0x4D]);
        be[20..24].copy_from_slice(&1u32.to_be_bytes());
        let r = PcapReader::new(&be).unwrap();
        assert!(r.is_big_endian() && r.is_nanosecond());
        assert_eq!(r.link_type(), LinkType::Ethernet.pcap());
        assert_eq!(r.records().next(), None);
        assert_eq!(PcapReader::new(&be[..23]).unwrap_err(), Error::Truncated);
    }

    #[cfg(feature = "std")]
    #[test]
    fn writer_writes_the_encoded_headers() {
        let mut w = PcapWriter::new(Vec::new(), LinkType::Ipoib).unwrap();
        w.write_record((7, 8), &[1, 2, 3]).unwrap();
        w.write_cut_record((9, 10), &[4], 60).unwrap();
        let mut want = write_global_header(LinkType::Ipoib.pcap(), DEFAULT_SNAPLEN).to_vec();
        want.extend_from_slice(&record_header(7, 8, 3, 3));
        want.extend_from_slice(&[1, 2, 3]);
        want.extend_from_slice(&record_header(9, 10, 1, 60));
        want.push(4);
        assert_eq!(w.finish().unwrap(), want);
    }
}
