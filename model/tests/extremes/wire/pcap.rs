//! pcap: header fields of any value, record lengths up to `u32::MAX` against the bytes really
//! there, and stream readers with any limit up to `usize::MAX`.

use crate::{config, edge_u32, edge_usize_near};
use proptest::prelude::*;
use rocenic_model::wire::pcap::{PcapStream, ReadError};
use rocenic_model::wire::*;
use std::io::{self, Read};

/// The most a reader may be asked to fill at once here: the files are under 1 KiB, so a request
/// for more means the stream reserved memory for bytes that are not there.
const MAX_READ: usize = 64 * 1024;

/// A reader that hands out at most `step` bytes per call and fails the test when asked to fill
/// a buffer larger than [`MAX_READ`].
struct Checked<'a> {
    data: &'a [u8],
    step: usize,
    largest: usize,
}

impl Read for Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.largest = self.largest.max(buf.len());
        if buf.len() > MAX_READ {
            return Err(io::Error::other(format!(
                "asked to fill {} bytes",
                buf.len()
            )));
        }
        let n = buf.len().min(self.step).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Record lengths: the edges of u32, the bytes present ± 1, and 64 MiB.
fn incl_len(present: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        edge_u32(),
        prop::sample::select(vec![
            0,
            present.saturating_sub(1),
            present,
            present + 1,
            1 << 26
        ]),
    ]
}

proptest! {
    #![proptest_config(config("wire::pcap", 256))]

    /// Global and record header fields of any value read back as written.
    #[test]
    fn headers_round_trip(
        link in edge_u32(),
        snaplen in edge_u32(),
        ts in (edge_u32(), edge_u32()),
        orig_len in edge_u32(),
        data in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let mut file = write_global_header(link, snaplen).to_vec();
        file.extend_from_slice(&record_header(ts.0, ts.1, data.len() as u32, orig_len));
        file.extend_from_slice(&data);
        let r = PcapReader::new(&file).unwrap();
        prop_assert_eq!((r.link_type(), r.link_type_raw(), r.snaplen()), (link & 0xFFFF, link, snaplen));
        // The link types this crate reads, and only those, name the low 16 bits.
        let known = [1, 242, 247].contains(&r.link_type());
        prop_assert_eq!(LinkType::from_pcap(r.link_type()).map(LinkType::pcap), known.then_some(r.link_type()));
        let recs: Vec<_> = r.records().collect();
        prop_assert_eq!(recs.len(), 1);
        let rec = recs[0].unwrap();
        prop_assert_eq!((rec.ts_sec, rec.ts_frac, rec.orig_len, rec.data), (ts.0, ts.1, orig_len, &data[..]));
    }

    /// A record that declares more bytes than the file holds is `Truncated` for both readers,
    /// whatever it declares; a stream reader refuses exactly the records over its limit, and
    /// never reserves memory for bytes that do not arrive, even with no limit at all.
    #[test]
    fn record_lengths_against_the_bytes_present(
        (present, declared) in (0u32..300).prop_flat_map(|p| (Just(p), incl_len(p))),
        limit in edge_usize_near(vec![0, 1, 299, 300, 301, 1 << 26, usize::MAX]),
        step in prop::sample::select(vec![1usize, 7, 4096]),
        first in prop::collection::vec(any::<u8>(), 0..50),
    ) {
        // A whole record first, so the stream's buffer is reused for the second.
        let mut file = write_global_header(1, 65535).to_vec();
        file.extend_from_slice(&record_header(1, 2, first.len() as u32, first.len() as u32));
        file.extend_from_slice(&first);
        file.extend_from_slice(&record_header(3, 4, declared, declared));
        file.extend((0..present).map(|i| i as u8));
        let body = &file[file.len() - present as usize..];
        let whole = u64::from(declared) <= u64::from(present);

        let items: Vec<_> = PcapReader::new(&file).unwrap().records().take(2).collect();
        prop_assert_eq!(items[0].map(|r| r.data), Ok(&first[..]));
        if whole {
            prop_assert_eq!(items[1].map(|r| r.data), Ok(&body[..declared as usize]));
        } else {
            prop_assert_eq!(items[1], Err(Error::Truncated));
        }

        let mut reader = Checked { data: &file, step, largest: 0 };
        let mut s = PcapStream::with_limit(&mut reader, limit).unwrap();
        if first.len() <= limit {
            let r = s.next_record().unwrap();
            prop_assert_eq!(r.map(|r| r.data.to_vec()).map_err(|e| e.to_string()), Ok(first.clone()));
        } else {
            let refused = matches!(s.next_record(), Some(Err(ReadError::RecordTooLong { .. })));
            prop_assert!(refused);
            return Ok(());
        }
        match s.next_record().unwrap() {
            Err(ReadError::RecordTooLong { len, max }) => {
                prop_assert!(u128::from(declared) > limit as u128);
                prop_assert_eq!((len, max), (declared, limit));
            }
            Err(ReadError::Format(e)) => {
                prop_assert!(u128::from(declared) <= limit as u128 && !whole);
                prop_assert_eq!(e, Error::Truncated);
            }
            Err(e) => prop_assert!(false, "{}", e),
            Ok(r) => {
                prop_assert!(u128::from(declared) <= limit as u128 && whole);
                prop_assert_eq!(r.data, &body[..declared as usize]);
            }
        }
        drop(s);
        prop_assert!(reader.largest <= MAX_READ, "asked to fill {} bytes", reader.largest);
    }
}
