//! pcapng captures (Wireshark's default format), read with the `pcap-file` crate and handed out
//! as the model's `PcapRecord`s, so that every command reads them as it reads classic pcap.
//!
//! A capture's link type is its first interface's; a packet of an interface with another link
//! type stops the read with a message (the commands take one link type per run). Timestamps are
//! turned into seconds and nanoseconds with each interface's `if_tsresol` (microseconds when the
//! option is absent, as the format says): `pcap-file` reports the raw count as nanoseconds.

use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::{Block, PcapNgReader};
use rocenic_model::wire::pcap::PcapRecord;
use std::io::Read;

/// An interface of the current section: its link type and its time units per second.
struct Interface {
    link: u32,
    units_per_sec: u64,
}

impl Interface {
    fn new(idb: &InterfaceDescriptionBlock) -> Interface {
        let resol = idb.options.iter().find_map(|o| match o {
            InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
            _ => None,
        });
        // The top bit picks powers of two, else of ten; absent means 10^-6.
        let units_per_sec = match resol.unwrap_or(6) {
            r if r & 0x80 != 0 => 1u64.checked_shl(u32::from(r & 0x7F)).unwrap_or(0),
            r => 10u64.checked_pow(u32::from(r)).unwrap_or(0),
        };
        Interface {
            link: u32::from(idb.linktype),
            units_per_sec,
        }
    }

    /// (seconds, nanoseconds) of a raw timestamp; `None` when it does not fit the record.
    fn time(&self, raw: u64) -> Option<(u32, u32)> {
        if self.units_per_sec == 0 {
            return None;
        }
        let secs = u32::try_from(raw / self.units_per_sec).ok()?;
        let rest = u128::from(raw % self.units_per_sec);
        let nanos = rest * 1_000_000_000 / u128::from(self.units_per_sec);
        Some((secs, nanos as u32))
    }
}

/// A pcapng file being read.
pub struct NgSource<R: Read> {
    reader: PcapNgReader<R>,
    interfaces: Vec<Interface>,
    /// The first interface's link type: the capture's.
    link: u32,
    /// The current packet's bytes, copied out of the reader's buffer (a borrow of that buffer
    /// cannot outlive the loop that skips other blocks).
    buf: Vec<u8>,
}

impl<R: Read> NgSource<R> {
    /// Reads the section header and the blocks up to the first interface description.
    pub fn open(inner: R) -> Result<NgSource<R>, String> {
        let mut reader = PcapNgReader::new(inner).map_err(|e| format!("pcapng: {e}"))?;
        let mut interfaces = Vec::new();
        while interfaces.is_empty() {
            match reader.next_block() {
                None => break,
                Some(Err(e)) => return Err(format!("pcapng: {e}")),
                Some(Ok(Block::InterfaceDescription(idb))) => interfaces.push(Interface::new(&idb)),
                Some(Ok(Block::EnhancedPacket(_) | Block::Packet(_) | Block::SimplePacket(_))) => {
                    return Err("pcapng: a packet comes before any interface description".into())
                }
                Some(Ok(_)) => {}
            }
        }
        // A capture with no interface has no packets: any link type reads it as empty.
        let link = interfaces.first().map_or(u32::MAX, |i| i.link);
        Ok(NgSource {
            reader,
            interfaces,
            link,
            buf: Vec::new(),
        })
    }

    /// The capture's link type (its first interface's); `u32::MAX` when it has none.
    pub fn link_type(&self) -> u32 {
        self.link
    }

    /// The next packet, `None` at the end of the file.
    pub fn next_record(&mut self) -> Option<Result<PcapRecord<'_>, String>> {
        let (ts_sec, ts_frac, orig_len) = loop {
            let block = match self.reader.next_block()? {
                Ok(b) => b,
                Err(e) => return Some(Err(format!("pcapng: {e}"))),
            };
            let (interface, raw_time, orig_len, data) = match block {
                Block::SectionHeader(_) => {
                    // A new section numbers its interfaces from 0 again.
                    self.interfaces.clear();
                    continue;
                }
                Block::InterfaceDescription(idb) => {
                    self.interfaces.push(Interface::new(&idb));
                    continue;
                }
                Block::EnhancedPacket(p) => (
                    p.interface_id,
                    // pcap-file reads the 64-bit count as nanoseconds: take the count back.
                    Some(p.timestamp.as_nanos() as u64),
                    p.original_len,
                    p.data,
                ),
                Block::Packet(p) => (
                    u32::from(p.interface_id),
                    Some(p.timestamp),
                    p.original_len,
                    p.data,
                ),
                Block::SimplePacket(p) => (0, None, p.original_len, p.data),
                _ => continue,
            };
            let Some(iface) = usize::try_from(interface)
                .ok()
                .and_then(|i| self.interfaces.get(i))
            else {
                return Some(Err(format!(
                    "pcapng: a packet of interface {interface}, which the section does not describe"
                )));
            };
            if iface.link != self.link {
                return Some(Err(format!(
                    "pcapng: a packet of an interface with link type {}, but the capture's first interface has {}: one link type per run",
                    iface.link, self.link
                )));
            }
            let (ts_sec, ts_frac) = match raw_time.map(|t| iface.time(t)) {
                None => (0, 0),
                Some(Some(t)) => t,
                Some(None) => {
                    return Some(Err(
                        "pcapng: a timestamp past what a pcap record holds (year 2106)".into(),
                    ))
                }
            };
            self.buf.clear();
            self.buf.extend_from_slice(&data);
            break (ts_sec, ts_frac, orig_len);
        };
        Some(Ok(PcapRecord {
            ts_sec,
            ts_frac,
            orig_len,
            data: &self.buf,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    use pcap_file::pcapng::PcapNgWriter;
    use pcap_file::DataLink;
    use std::time::Duration;

    fn idb(link: DataLink, resol: Option<u8>) -> InterfaceDescriptionBlock<'static> {
        InterfaceDescriptionBlock {
            linktype: link,
            snaplen: 0,
            options: resol
                .map(InterfaceDescriptionOption::IfTsResol)
                .into_iter()
                .collect(),
        }
    }

    /// A packet whose raw timestamp count is `raw` (pcap-file writes a Duration's nanoseconds
    /// as the count).
    fn epb(interface_id: u32, raw: u64, data: &[u8]) -> EnhancedPacketBlock<'_> {
        EnhancedPacketBlock {
            interface_id,
            timestamp: Duration::from_nanos(raw),
            original_len: data.len() as u32 + 1,
            data: data.into(),
            options: vec![],
        }
    }

    /// (seconds, nanoseconds, length on the wire, bytes) of a packet.
    type Read = (u32, u32, u32, Vec<u8>);

    fn records(file: &[u8]) -> Result<Vec<Read>, String> {
        let mut s = NgSource::open(file)?;
        let mut out = Vec::new();
        while let Some(r) = s.next_record() {
            let r = r?;
            out.push((r.ts_sec, r.ts_frac, r.orig_len, r.data.to_vec()));
        }
        Ok(out)
    }

    /// Timestamps follow each interface's resolution: microseconds by default, nanoseconds and
    /// powers of two when the interface says so.
    #[test]
    fn timestamps_follow_if_tsresol() {
        let mut w = PcapNgWriter::new(Vec::new()).unwrap();
        w.write_pcapng_block(idb(DataLink::ETHERNET, None)).unwrap();
        w.write_pcapng_block(idb(DataLink::ETHERNET, Some(9)))
            .unwrap();
        w.write_pcapng_block(idb(DataLink::ETHERNET, Some(0x80 | 10)))
            .unwrap();
        w.write_pcapng_block(epb(0, 5_000_123, &[1, 2])).unwrap();
        w.write_pcapng_block(epb(1, 5_123_456_789, &[3])).unwrap();
        w.write_pcapng_block(epb(2, 3 * 1024 + 512, &[])).unwrap();
        let file = w.into_inner();
        let got = records(&file).unwrap();
        assert_eq!(
            got,
            [
                (5, 123_000, 3, vec![1, 2]),
                (5, 123_456_789, 2, vec![3]),
                (3, 500_000_000, 1, vec![]),
            ]
        );
        let s = NgSource::open(&file[..]).unwrap();
        assert_eq!(s.link_type(), 1);
    }

    /// One link type per run; a packet before any interface is refused.
    #[test]
    fn mixed_link_types_and_missing_interfaces_are_refused() {
        let mut w = PcapNgWriter::new(Vec::new()).unwrap();
        w.write_pcapng_block(idb(DataLink::ETHERNET, None)).unwrap();
        w.write_pcapng_block(idb(DataLink::from(242), None))
            .unwrap();
        w.write_pcapng_block(epb(0, 0, &[1])).unwrap();
        w.write_pcapng_block(epb(1, 0, &[2])).unwrap();
        let err = records(&w.into_inner()).unwrap_err();
        assert!(
            err.contains("link type 242, but the capture's first interface has 1"),
            "{err}"
        );

        // pcap-file will not write a packet of an undescribed interface: patch the id.
        let mut w = PcapNgWriter::new(Vec::new()).unwrap();
        w.write_pcapng_block(idb(DataLink::ETHERNET, None)).unwrap();
        w.write_pcapng_block(epb(0, 0, &[1])).unwrap();
        let mut file = w.into_inner();
        let at = file.len() - (32 + 4) + 8;
        file[at..at + 4].copy_from_slice(&7u32.to_le_bytes());
        let err = records(&file).unwrap_err();
        assert!(err.contains("interface 7"), "{err}");
    }
}
