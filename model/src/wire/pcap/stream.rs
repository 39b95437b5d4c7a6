//! A pcap file read record by record from a `std::io::Read` (the `std` feature).
//!
//! Memory is one buffer as long as the longest record read so far, whatever the file's length:
//! a record longer than the reader's limit is refused before any of it is read, and the buffer
//! grows only with the bytes that arrive, so a corrupt length field cannot make the reader
//! allocate gigabytes.

use super::{GlobalHeader, PcapRecord, GLOBAL_HEADER_LEN, RECORD_HEADER_LEN};
use crate::wire::Error;
use std::fmt;
use std::io::{self, Read};

/// The longest record [`PcapStream::new`] reads: 262144 bytes, libpcap's largest snap length,
/// above every frame a link carries and every send a host hands to TSO.
pub const MAX_RECORD_LEN: usize = 262_144;

/// Why a [`PcapStream`] stopped.
#[derive(Debug)]
pub enum ReadError {
    /// The file is not a pcap file, or a header or record is cut short.
    Format(Error),
    /// A record declares more captured bytes than the reader's limit.
    RecordTooLong {
        /// The record's captured length.
        len: u32,
        /// The limit.
        max: usize,
    },
    /// The underlying reader failed.
    Io(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Format(e) => e.fmt(f),
            ReadError::RecordTooLong { len, max } => write!(
                f,
                "the record declares {len} captured bytes, more than the {max} this reader takes"
            ),
            ReadError::Io(e) => write!(f, "read error: {e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<Error> for ReadError {
    fn from(e: Error) -> Self {
        ReadError::Format(e)
    }
}

/// A pcap file read from `R` one record at a time.
#[derive(Debug)]
pub struct PcapStream<R> {
    inner: R,
    header: GlobalHeader,
    buf: Vec<u8>,
    max_record: usize,
    done: bool,
}

impl<R: Read> PcapStream<R> {
    /// Reads the global header; records of up to [`MAX_RECORD_LEN`] bytes are read.
    pub fn new(inner: R) -> Result<Self, ReadError> {
        Self::with_limit(inner, MAX_RECORD_LEN)
    }

    /// Reads the global header; records of up to `max_record` bytes are read.
    pub fn with_limit(mut inner: R, max_record: usize) -> Result<Self, ReadError> {
        let mut h = [0u8; GLOBAL_HEADER_LEN];
        let got = read_full(&mut inner, &mut h)?;
        // Decoding what arrived tells a short pcap from a file of another kind.
        let header = GlobalHeader::parse(&h[..got])?;
        Ok(PcapStream {
            inner,
            header,
            buf: Vec::new(),
            max_record,
            done: false,
        })
    }

    /// The file's global header.
    pub fn header(&self) -> &GlobalHeader {
        &self.header
    }

    /// The next record, `None` at the end of the file. After an error the stream ends: a cut
    /// record gives [`Error::Truncated`] once.
    pub fn next_record(&mut self) -> Option<Result<PcapRecord<'_>, ReadError>> {
        if self.done {
            return None;
        }
        match self.read_record() {
            Ok(true) => {}
            Ok(false) => {
                self.done = true;
                return None;
            }
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        }
        let mut h = [0u8; RECORD_HEADER_LEN];
        h.copy_from_slice(&self.buf[..RECORD_HEADER_LEN]);
        let rec = self.header.record(&h);
        Some(Ok(PcapRecord {
            ts_sec: rec.ts_sec,
            ts_frac: rec.ts_frac,
            orig_len: rec.orig_len,
            data: &self.buf[RECORD_HEADER_LEN..],
        }))
    }

    /// Reads the next record header and body into `buf`; false at a clean end of file.
    fn read_record(&mut self) -> Result<bool, ReadError> {
        let mut h = [0u8; RECORD_HEADER_LEN];
        match read_full(&mut self.inner, &mut h)? {
            0 => return Ok(false),
            RECORD_HEADER_LEN => {}
            _ => return Err(Error::Truncated.into()),
        }
        let len = self.header.record(&h).incl_len;
        if !usize::try_from(len).is_ok_and(|n| n <= self.max_record) {
            return Err(ReadError::RecordTooLong {
                len,
                max: self.max_record,
            });
        }
        self.buf.clear();
        self.buf.extend_from_slice(&h);
        // The buffer grows with the bytes that arrive, not with the length the header declares:
        // a cut or corrupt record costs no more memory than the input holds, whatever the limit
        // (`usize::MAX` included), and no header-plus-body sum can overflow.
        let got = Read::by_ref(&mut self.inner)
            .take(u64::from(len))
            .read_to_end(&mut self.buf)
            .map_err(ReadError::Io)?;
        if got < len as usize {
            return Err(Error::Truncated.into());
        }
        Ok(true)
    }
}

/// Fills `buf` as far as the reader goes; the count is short only at the end of the input.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize, ReadError> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::pcap::{record_header, write_global_header, PcapReader};
    use crate::wire::LinkType;

    /// A reader that hands out at most `step` bytes per call, as pipes and sockets do.
    #[derive(Debug)]
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn file(records: &[&[u8]]) -> Vec<u8> {
        let mut f = write_global_header(LinkType::Ethernet.pcap(), 65535).to_vec();
        for (i, r) in records.iter().enumerate() {
            f.extend_from_slice(&record_header(i as u32, 7, r.len() as u32, r.len() as u32));
            f.extend_from_slice(r);
        }
        f
    }

    /// The stream yields what the in-memory reader yields, whatever the read sizes, cut files
    /// included.
    #[test]
    fn agrees_with_the_slice_reader() {
        let whole = file(&[&[1, 2, 3], &[], &[9; 300]]);
        for cut in 0..=whole.len() {
            let bytes = &whole[..cut];
            for step in [1, 7, 4096] {
                let want: Vec<_> = match PcapReader::new(bytes) {
                    Ok(r) => r
                        .records()
                        .map(|x| x.map(|p| (p.ts_sec, p.data.to_vec())))
                        .collect(),
                    Err(e) => {
                        let got = PcapStream::new(Trickle { data: bytes, step }).unwrap_err();
                        assert!(matches!(got, ReadError::Format(g) if g == e), "cut {cut}");
                        continue;
                    }
                };
                let mut s = PcapStream::new(Trickle { data: bytes, step }).unwrap();
                let mut got = Vec::new();
                while let Some(r) = s.next_record() {
                    got.push(match r {
                        Ok(p) => Ok((p.ts_sec, p.data.to_vec())),
                        Err(ReadError::Format(e)) => Err(e),
                        Err(e) => panic!("cut {cut}: {e}"),
                    });
                }
                assert_eq!(got, want, "cut {cut}, step {step}");
            }
        }
    }

    /// A length field past the limit is refused before its bytes are read or allocated.
    #[test]
    fn refuses_records_over_the_limit() {
        let mut f = write_global_header(LinkType::Ethernet.pcap(), 65535).to_vec();
        f.extend_from_slice(&record_header(0, 0, u32::MAX, u32::MAX));
        let mut s = PcapStream::new(&f[..]).unwrap();
        assert!(matches!(
            s.next_record(),
            Some(Err(ReadError::RecordTooLong {
                len: u32::MAX,
                max: MAX_RECORD_LEN
            }))
        ));
        assert!(s.next_record().is_none());
        let f = file(&[&[0; 11]]);
        let mut s = PcapStream::with_limit(&f[..], 10).unwrap();
        assert!(matches!(
            s.next_record(),
            Some(Err(ReadError::RecordTooLong { len: 11, max: 10 }))
        ));
    }
}
