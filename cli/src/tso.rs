//! `rocenic tso`: every packet of a pcap is an oversized TCP send as a host hands it to the NIC;
//! the output pcap holds the segments the NIC's TSO puts on the wire.
//!
//! Link types: Ethernet (1), and IPoIB (242, `LINKTYPE_IPOIB`), each frame starting with the
//! 4-byte IPoIB encapsulation header of RFC 4391 §6 (EtherType, two reserved bytes). The output
//! has the input's link type; each segment carries its send's timestamp.

use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_model::tso::{Limits, Segmenter};
use rocenic_model::wire::{LinkType, PcapReader, PcapWriter};
use rocenic_sim::tso::{Send, Status, Traffic, Tso512Rtl, Tso64Rtl};
use std::io::BufWriter;
use std::path::PathBuf;

/// Which implementation cuts the segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The reference model.
    Model,
    /// The RTL segmenter, co-simulated cycle by cycle.
    Rtl,
}

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
    /// Implementation to run.
    #[arg(long, value_enum, default_value_t = Engine::Model)]
    engine: Engine,
    /// Data path width of the RTL in bits (64 or 512); the segments do not depend on it.
    #[arg(long, default_value_t = 64, value_parser = parse_width)]
    width: u16,
}

fn parse_width(text: &str) -> Result<u16, String> {
    match text {
        "64" => Ok(64),
        "512" => Ok(512),
        _ => Err(format!("`{text}`: the RTL is built at 64 and 512 bits")),
    }
}

/// The segments of each input packet, in order.
type Segments = Vec<Vec<Vec<u8>>>;

/// Why the segments could not be made: the packet at fault (when one is), and the reason.
type Refusal = (Option<usize>, String);

/// One input packet.
struct Packet {
    ts_sec: u32,
    ts_usec: u32,
    data: Vec<u8>,
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
    let limits = Limits::default();
    let segments = match args.engine {
        Engine::Model => model_segments(&packets, link, args.mss, limits),
        Engine::Rtl => rtl_segments(&packets, link, args.mss, args.width),
    }
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

/// The segments of every packet, or the first packet the model refuses.
fn model_segments(
    packets: &[Packet],
    link: LinkType,
    mss: u16,
    limits: Limits,
) -> Result<Segments, Refusal> {
    packets
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let s = Segmenter::from_frame(link, &p.data, usize::from(mss), limits)
                .map_err(|e| (Some(index), e.to_string()))?;
            (0..s.segment_count())
                .map(|i| {
                    let mut buf = vec![0u8; s.segment_len(i)];
                    s.write_segment(i, &mut buf)
                        .map_err(|e| (Some(index), e.to_string()))?;
                    Ok(buf)
                })
                .collect()
        })
        .collect()
}

/// The segments from the RTL: the host side splits each frame where its TCP header ends (the
/// descriptor's header length), the unit does the rest.
fn rtl_segments(
    packets: &[Packet],
    link: LinkType,
    mss: u16,
    width: u16,
) -> Result<Segments, Refusal> {
    // A frame the host cannot split never reaches the unit; the ones before it still run, so that
    // the first bad packet is the one reported, as with the model.
    let mut sends = Vec::with_capacity(packets.len());
    let mut host_error = None;
    for (index, p) in packets.iter().enumerate() {
        match Send::from_frame(link, &p.data, mss) {
            Ok(s) => sends.push(s),
            Err(e) => {
                host_error = Some((Some(index), e.to_string()));
                break;
            }
        }
    }
    let run = if width == 512 {
        Tso512Rtl::new("rocenic_tso").run(&sends, Traffic::FULL_RATE)
    } else {
        Tso64Rtl::new("rocenic_tso").run(&sends, Traffic::FULL_RATE)
    };
    let outcome = run.map_err(|e| (None, format!("RTL engine: {e}")))?;
    let mut flat = outcome.segments.into_iter();
    let mut per_packet = Vec::with_capacity(sends.len());
    for (index, (status, count)) in outcome.statuses.into_iter().enumerate() {
        if status != Status::Ok {
            return Err((Some(index), format!("the RTL refused the send: {status}")));
        }
        per_packet.push(flat.by_ref().take(count as usize).collect());
    }
    match host_error {
        Some(e) => Err(e),
        None => Ok(per_packet),
    }
}
