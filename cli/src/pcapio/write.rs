//! Capture output in either format Wireshark opens: classic pcap (the model's `PcapWriter`) or,
//! for a file named `*.pcapng`, pcapng (Wireshark's default) written with the `pcap-file` crate,
//! one interface of the frames' link type with nanosecond timestamps (`if_tsresol` 9).

use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::DataLink;
use rocenic_model::wire::pcap::DEFAULT_SNAPLEN;
use rocenic_model::wire::{LinkType, PcapWriter};
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

/// The format of a capture file rocenic writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pcap,
    PcapNg,
}

impl Format {
    /// pcapng for a name ending in `.pcapng` (any case), else classic pcap.
    pub fn of(path: &Path) -> Format {
        match path.extension() {
            Some(ext) if ext.eq_ignore_ascii_case("pcapng") => Format::PcapNg,
            _ => Format::Pcap,
        }
    }
}

/// The stamp of the `index`-th frame of a run that has no clock of its own (`send`, `sim`): one
/// microsecond apart from 0, as (seconds, nanoseconds), so that viewers keep the frames' order.
pub fn microsecond_apart(index: u64) -> (u32, u32) {
    (
        (index / 1_000_000) as u32,
        (index % 1_000_000) as u32 * 1000,
    )
}

/// A capture being written, in either format.
pub enum FrameWriter<W: Write> {
    Pcap(PcapWriter<W>),
    PcapNg(PcapNgWriter<W>),
}

fn ng_error(e: pcap_file::PcapError) -> io::Error {
    match e {
        pcap_file::PcapError::IoError(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

impl<W: Write> FrameWriter<W> {
    /// Starts a capture of `link` frames: the file header, and for pcapng its one interface.
    pub fn new(out: W, link: LinkType, format: Format) -> io::Result<Self> {
        Ok(match format {
            Format::Pcap => FrameWriter::Pcap(PcapWriter::new(out, link)?),
            Format::PcapNg => {
                let mut ng = PcapNgWriter::new(out).map_err(ng_error)?;
                let interface = InterfaceDescriptionBlock {
                    linktype: DataLink::from(link.pcap()),
                    snaplen: DEFAULT_SNAPLEN,
                    options: vec![InterfaceDescriptionOption::IfTsResol(9)],
                };
                ng.write_pcapng_block(interface).map_err(ng_error)?;
                FrameWriter::PcapNg(ng)
            }
        })
    }

    /// Writes a whole frame stamped `ts`, (seconds, nanoseconds); classic pcap keeps the
    /// microseconds.
    pub fn write_record(&mut self, ts: (u32, u32), data: &[u8]) -> io::Result<()> {
        match self {
            FrameWriter::Pcap(w) => w.write_record((ts.0, ts.1 / 1000), data),
            FrameWriter::PcapNg(w) => {
                let len = u32::try_from(data.len()).map_err(|_| {
                    io::Error::new(io::ErrorKind::InvalidInput, "a frame of 4 GiB or more")
                })?;
                let packet = EnhancedPacketBlock {
                    interface_id: 0,
                    timestamp: Duration::new(u64::from(ts.0), ts.1),
                    original_len: len,
                    data: Cow::Borrowed(data),
                    options: vec![],
                };
                w.write_pcapng_block(packet).map(drop).map_err(ng_error)
            }
        }
    }

    /// Flushes the output and gives it back.
    pub fn finish(self) -> io::Result<W> {
        match self {
            FrameWriter::Pcap(w) => w.finish(),
            FrameWriter::PcapNg(w) => {
                let mut out = w.into_inner();
                out.flush()?;
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pcapio::Capture;

    /// What either format holds reads back, through the capture reader the commands use, as the
    /// same frames with the same stamps (to the microsecond for classic pcap).
    #[test]
    fn both_formats_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let frames: Vec<Vec<u8>> = (0..5u8).map(|i| vec![i; 60 + usize::from(i)]).collect();
        for (name, nanos) in [("a.pcap", false), ("a.pcapng", true)] {
            let path = dir.path().join(name);
            let format = Format::of(&path);
            assert_eq!(format == Format::PcapNg, nanos);
            let file = std::fs::File::create(&path).unwrap();
            let mut w = FrameWriter::new(file, LinkType::Ethernet, format).unwrap();
            for (i, f) in frames.iter().enumerate() {
                w.write_record((7, 123_456_789 + i as u32), f).unwrap();
            }
            w.finish().unwrap();
            let mut capture = Capture::open(&path, "frame").unwrap();
            assert_eq!(capture.link().0, Some(LinkType::Ethernet));
            assert_eq!(capture.is_nanosecond(), nanos);
            let mut n = 0;
            while let Some((i, r)) = capture.next().unwrap() {
                assert_eq!(r.data, &frames[i as usize][..]);
                assert_eq!(r.ts_sec, 7);
                let want = 123_456_789 + i as u32;
                assert_eq!(r.ts_frac, if nanos { want } else { want / 1000 });
                n += 1;
            }
            assert_eq!(n, frames.len());
        }
    }
}
