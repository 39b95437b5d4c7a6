//! `rocenic tso`: every packet of a pcap is an oversized TCP send as a host hands it to the NIC;
//! the output pcap holds the segments the NIC's TSO puts on the wire.
//!
//! Link types: Ethernet (1), and IPoIB (242, `LinkType::Ipoib`), each frame starting with the
//! 4-byte IPoIB encapsulation header of RFC 4391 §6 (EtherType, two reserved bytes). The output
//! has the input's link type; each segment carries its send's timestamp.

use crate::engine::{parse_engine, Engine, Width};
use crate::{Failure, Outcome};
use rocenic_model::wire::{LinkType, PcapReader, PcapWriter};
use std::io::BufWriter;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A classic pcap of oversized TCP packets: Ethernet (link type 1) or IPoIB (242).
    #[arg(long, short)]
    input: PathBuf,
    /// Where to write the segments (a pcap of the same link type).
    #[arg(long, short)]
    output: PathBuf,
    /// TCP payload bytes per segment (1 to 9000, the segment buffer of the RTL).
    #[arg(long)]
    mss: u16,
    /// Implementation to run: model or rtl (the RTL segmenter, co-simulated).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// Data path width of the RTL in bits; the segments do not depend on it.
    #[arg(long, value_enum, default_value_t = Width::W64)]
    width: Width,
}

/// The segments of each input packet, in order.
pub type Segments = Vec<Vec<Vec<u8>>>;

/// Why the segments could not be made: the packet at fault (when one is), and the reason.
pub type Refusal = (Option<usize>, String);

/// One input packet.
pub struct Packet {
    ts_sec: u32,
    ts_usec: u32,
    pub data: Vec<u8>,
}

/// What `rocenic tso` computes: every packet of `packets` cut into segments of `mss` payload
/// bytes.
pub struct Job<'a> {
    pub packets: &'a [Packet],
    pub link: LinkType,
    pub mss: u16,
    /// The RTL's data path width.
    #[cfg_attr(not(feature = "rtl"), allow(dead_code))]
    pub width: Width,
}

/// Computes a [`Job`]; the engines implement it.
pub trait Unit {
    /// The segments of every packet, or the first packet refused.
    fn segments(&mut self, job: &Job) -> Result<Segments, Refusal>;
}

pub fn run(args: Args) -> Outcome {
    let path = args.input.display();
    let bytes =
        std::fs::read(&args.input).map_err(|e| Failure(format!("cannot read {path}: {e}")))?;
    let reader = PcapReader::new(&bytes).map_err(|e| Failure(format!("{path}: {e}")))?;
    let link = match LinkType::from_pcap(reader.link_type()) {
        Some(link @ (LinkType::Ethernet | LinkType::Ipoib)) => link,
        _ => {
            return Err(Failure(format!(
                "{path}: link type {} is neither Ethernet ({}) nor IPoIB ({})",
                reader.link_type(),
                LinkType::Ethernet.pcap(),
                LinkType::Ipoib.pcap()
            )))
        }
    };
    let mut packets = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Failure(format!("{path}: packet {index}: {e}")))?;
        if (record.data.len() as u64) < u64::from(record.orig_len) {
            return Err(Failure(format!(
                "{path}: packet {index}: captured {} of {} bytes (snap length too small)",
                record.data.len(),
                record.orig_len
            )));
        }
        let ts_usec = if reader.is_nanosecond() {
            record.ts_frac / 1000
        } else {
            record.ts_frac
        };
        packets.push(Packet {
            ts_sec: record.ts_sec,
            ts_usec,
            data: record.data.to_vec(),
        });
    }
    let job = Job {
        packets: &packets,
        link,
        mss: args.mss,
        width: args.width,
    };
    let segments = args
        .engine
        .tso()?
        .segments(&job)
        .map_err(|(index, why)| match index {
            Some(index) => Failure(format!("{path}: packet {index}: {why}")),
            None => Failure(why),
        })?;

    let out_path = args.output.display();
    let file = std::fs::File::create(&args.output)
        .map_err(|e| Failure(format!("cannot create {out_path}: {e}")))?;
    let mut out = PcapWriter::new(BufWriter::new(file), link)?;
    let mut count = 0usize;
    for (packet, segs) in packets.iter().zip(&segments) {
        for s in segs {
            out.write_record((packet.ts_sec, packet.ts_usec), s)?;
            count += 1;
        }
    }
    out.finish()?;
    eprintln!(
        "rocenic tso: {} packet(s) in, {count} segment(s) out",
        packets.len()
    );
    Ok(true)
}
