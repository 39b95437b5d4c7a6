//! pcap input for the capture commands, read a record or a bounded batch of records at a time so
//! that memory does not grow with the capture (captures from real hardware run to gigabytes).
//! Classic pcap is read by the model's `PcapStream`, pcapng by `pcapio/ng.rs`; the commands see
//! the same records from either.

mod ng;
mod write;

pub use write::{microsecond_apart, Format, FrameWriter};

use crate::Failure;
use indicatif::{ProgressBar, ProgressStyle};
use ng::NgSource;
use rocenic_model::wire::pcap::{PcapRecord, PcapStream, MAX_RECORD_LEN};
use rocenic_model::wire::LinkType;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::Path;

/// A bar of bytes read for a file of known size, a counter for standard input; none unless
/// standard error is a terminal, so that scripts and logs see nothing of it.
fn progress_bar(name: &str, size: Option<u64>) -> Option<ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let (bar, template) = match size {
        Some(len) => (
            ProgressBar::new(len),
            "{prefix} [{bar:40}] {bytes}/{total_bytes} ({eta} left)",
        ),
        None => (
            ProgressBar::no_length(),
            "{prefix} {spinner} {bytes} read ({elapsed})",
        ),
    };
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(name.to_string());
    Some(bar)
}

/// The first four bytes of a pcapng file (a section header block's type).
const PCAPNG_MAGIC: [u8; 4] = [0x0A, 0x0D, 0x0D, 0x0A];

/// A file, or standard input for `-`: the readers need only bytes in order.
type Input = BufReader<Box<dyn Read>>;

enum Source {
    Classic(PcapStream<Input>),
    Ng(NgSource<Input>),
}

/// A capture file being read; errors name the file and the record.
pub struct Capture {
    source: Source,
    /// Bytes read so far, on standard error when it is a terminal (a long capture on a slow
    /// engine takes minutes); cleared when the capture is dropped.
    progress: Option<ProgressBar>,
    name: String,
    /// What the command calls a record in messages: "frame" or "packet".
    noun: &'static str,
    /// The index of the next record.
    next: u64,
    /// An error met while filling a batch, given after that batch is handed out.
    pending: Option<Failure>,
}

impl Capture {
    /// Opens `path` (standard input for `-`) and reads its global header.
    pub fn open(path: &Path, noun: &'static str) -> Result<Capture, Failure> {
        let (name, reader, size): (String, Box<dyn Read>, Option<u64>) = if path.as_os_str() == "-"
        {
            ("standard input".into(), Box::new(io::stdin().lock()), None)
        } else {
            let name = path.display().to_string();
            let file = File::open(path).map_err(|e| Failure(format!("cannot read {name}: {e}")))?;
            let size = file.metadata().ok().map(|m| m.len());
            (name, Box::new(file), size)
        };
        let progress = progress_bar(&name, size);
        let reader = match &progress {
            Some(bar) => Box::new(bar.wrap_read(reader)),
            None => reader,
        };
        let mut inner = BufReader::with_capacity(1 << 16, reader);
        let head = inner
            .fill_buf()
            .map_err(|e| Failure(format!("cannot read {name}: {e}")))?;
        let source = if head.starts_with(&PCAPNG_MAGIC) {
            Source::Ng(NgSource::open(inner).map_err(|e| Failure(format!("{name}: {e}")))?)
        } else {
            Source::Classic(PcapStream::new(inner).map_err(|e| Failure(format!("{name}: {e}")))?)
        };
        Ok(Capture {
            source,
            progress,
            name,
            noun,
            next: 0,
            pending: None,
        })
    }

    /// The file name as messages give it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The link type, if it is one rocenic knows, and the number in the header.
    pub fn link(&self) -> (Option<LinkType>, u32) {
        let number = match &self.source {
            Source::Classic(s) => s.header().link_type(),
            Source::Ng(s) => s.link_type(),
        };
        (LinkType::from_pcap(number), number)
    }

    /// The link type when it is one of `accepted`; otherwise an error naming the capture's
    /// number and the accepted ones ("is not Ethernet (1)", "is neither Ethernet (1) nor IPoIB
    /// (242)"), followed by `why`.
    pub fn link_among(&self, accepted: &[LinkType], why: &str) -> Result<LinkType, Failure> {
        let (link, number) = self.link();
        if let Some(link) = link.filter(|l| accepted.contains(l)) {
            return Ok(link);
        }
        let named: Vec<String> = accepted
            .iter()
            .map(|l| format!("{} ({})", l.name(), l.pcap()))
            .collect();
        let list = match &named[..] {
            [one] => format!("not {one}"),
            [first, rest @ ..] => format!("neither {first} nor {}", rest.join(" nor ")),
            [] => "not accepted".to_string(),
        };
        Err(Failure(format!(
            "{}: link type {number} is {list}{why}",
            self.name
        )))
    }

    /// True when the timestamps carry nanoseconds (always for pcapng, which this reads to the
    /// nanosecond whatever the file's resolution).
    pub fn is_nanosecond(&self) -> bool {
        match &self.source {
            Source::Classic(s) => s.header().is_nanosecond(),
            Source::Ng(_) => true,
        }
    }

    /// A message about record `index`.
    pub fn at(&self, index: u64, why: impl std::fmt::Display) -> Failure {
        Failure(format!("{}: {} {index}: {why}", self.name, self.noun))
    }

    /// The next record and its index, `None` at the end of the file.
    pub fn next(&mut self) -> Result<Option<(u64, PcapRecord<'_>)>, Failure> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let index = self.next;
        let record = match &mut self.source {
            Source::Classic(s) => s.next_record().map(|r| r.map_err(|e| e.to_string())),
            Source::Ng(s) => s.next_record(),
        };
        match record {
            None => Ok(None),
            Some(Err(e)) => Err(Failure(format!(
                "{}: {} {index}: {e}",
                self.name, self.noun
            ))),
            Some(Ok(record)) => {
                self.next += 1;
                Ok(Some((index, record)))
            }
        }
    }

    /// Refills `batch` with the next records: at least one, and more while the batch holds fewer
    /// than `max_records` and the summed `cost` of its records is under `budget`. False when the
    /// file had no record left. A bad record ends the batch before it; the error comes on the
    /// next call, so the records before it are processed first.
    pub fn next_batch(
        &mut self,
        batch: &mut Batch,
        max_records: usize,
        budget: usize,
        cost: impl Fn(&PcapRecord) -> usize,
    ) -> Result<bool, Failure> {
        batch.clear(self.next);
        let mut spent = 0usize;
        while batch.len() < max_records && spent < budget {
            match self.next() {
                Ok(Some((_, record))) => {
                    spent = spent.saturating_add(cost(&record));
                    batch.push(&record);
                }
                Ok(None) => break,
                Err(e) if batch.is_empty() => return Err(e),
                Err(e) => {
                    self.pending = Some(e);
                    break;
                }
            }
        }
        Ok(!batch.is_empty())
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
    }
}

/// Records of a capture held together, in one buffer reused from batch to batch.
#[derive(Default)]
pub struct Batch {
    /// The index of the first record in the capture.
    first: u64,
    bytes: Vec<u8>,
    records: Vec<Held>,
}

struct Held {
    start: usize,
    len: usize,
    ts_sec: u32,
    ts_frac: u32,
    orig_len: u32,
}

impl Batch {
    /// A batch sized for records of the usual lengths.
    pub fn new() -> Self {
        Batch {
            first: 0,
            bytes: Vec::with_capacity(MAX_RECORD_LEN),
            records: Vec::new(),
        }
    }

    fn clear(&mut self, first: u64) {
        self.first = first;
        self.bytes.clear();
        self.records.clear();
    }

    fn push(&mut self, r: &PcapRecord) {
        self.records.push(Held {
            start: self.bytes.len(),
            len: r.data.len(),
            ts_sec: r.ts_sec,
            ts_frac: r.ts_frac,
            orig_len: r.orig_len,
        });
        self.bytes.extend_from_slice(r.data);
    }

    /// The index in the capture of the batch's first record.
    pub fn first(&self) -> u64 {
        self.first
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records, in capture order.
    pub fn records(&self) -> impl Iterator<Item = PcapRecord<'_>> + '_ {
        self.records.iter().map(|h| PcapRecord {
            ts_sec: h.ts_sec,
            ts_frac: h.ts_frac,
            orig_len: h.orig_len,
            data: &self.bytes[h.start..h.start + h.len],
        })
    }

    /// The captured bytes of every record, in capture order.
    pub fn frames(&self) -> Vec<&[u8]> {
        self.records().map(|r| r.data).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_model::wire::PcapWriter;

    /// The messages the commands give for a capture of a link type they do not read.
    #[test]
    fn link_among_names_the_accepted_types() {
        let dir = tempfile::tempdir().unwrap();
        let open = |number: u32| {
            let path = dir.path().join(format!("{number}.pcap"));
            let w = PcapWriter::with_header(Vec::new(), number, 65535).unwrap();
            std::fs::write(&path, w.finish().unwrap()).unwrap();
            Capture::open(&path, "frame").unwrap()
        };
        let eth = [LinkType::Ethernet];
        let roce = "; RoCEv2 runs over Ethernet";
        assert_eq!(open(1).link_among(&eth, roce).unwrap(), LinkType::Ethernet);
        let err = open(247).link_among(&eth, roce).unwrap_err().0;
        assert!(
            err.ends_with("247.pcap: link type 247 is not Ethernet (1); RoCEv2 runs over Ethernet"),
            "{err}"
        );
        let tso = [LinkType::Ethernet, LinkType::Ipoib];
        assert_eq!(open(242).link_among(&tso, "").unwrap(), LinkType::Ipoib);
        let err = open(105).link_among(&tso, "").unwrap_err().0;
        assert!(
            err.ends_with("105.pcap: link type 105 is neither Ethernet (1) nor IPoIB (242)"),
            "{err}"
        );
        let rss = [LinkType::Ethernet, LinkType::Infiniband];
        let err = open(242).link_among(&rss, "").unwrap_err().0;
        assert!(
            err.ends_with("link type 242 is neither Ethernet (1) nor InfiniBand (247)"),
            "{err}"
        );
    }
}
