//! `rocenic tso`: every packet of a pcap is an oversized TCP send as a host hands it to the NIC;
//! the output pcap holds the segments the NIC's TSO puts on the wire.
//!
//! Link types: Ethernet (1), and IPoIB (242, `LinkType::Ipoib`), each frame starting with the
//! 4-byte IPoIB encapsulation header of RFC 4391 §6 (EtherType, two reserved bytes). The output
//! has the input's link type; each segment carries its send's timestamp. The capture is read and
//! the segments written a bounded batch at a time.

use crate::engine::{parse_engine, Engine, Width};
use crate::output::Output;
use crate::pcapio::{Batch, Capture, Format, FrameWriter};
use crate::{Failure, Outcome};
use rocenic_model::tso::Limits;
use rocenic_model::wire::LinkType;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A pcap or pcapng of oversized TCP packets: Ethernet (link type 1) or IPoIB (242); `-` is
    /// standard input.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    input: PathBuf,
    /// Where to write the segments (a pcap of the same link type; `-` is standard output, which
    /// must not be a terminal); a file is written only if every packet is segmented.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// TCP payload bytes per segment (1 to 9000, the segment buffer of the RTL).
    #[arg(long, value_parser = parse_mss)]
    mss: u16,
    /// Implementation to run: model or rtl (the RTL segmenter, co-simulated).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// Data path width of the RTL in bits; the segments do not depend on it.
    #[arg(long, value_enum, default_value_t = Width::W64)]
    width: Width,
}

/// The MSS is checked before any input is read.
fn parse_mss(text: &str) -> Result<u16, String> {
    let max = Limits::default().max_mss;
    match text.parse::<usize>() {
        Ok(mss @ 1..) if mss <= max => Ok(mss as u16),
        _ => Err(format!("`{text}` is not an MSS from 1 to {max} bytes")),
    }
}

/// Why the segments could not be made: the packet at fault (when one is), and the reason.
pub type Refusal = (Option<u64>, String);

/// Where an engine puts each segment as it is made: the index of its packet in the batch, and
/// its bytes. A failure to write is a refusal with no packet at fault.
pub type Emit<'e> = dyn FnMut(usize, &[u8]) -> Result<(), Refusal> + 'e;

/// What `rocenic tso` computes: every packet of the capture cut into segments of `mss` payload
/// bytes. The packets come in batches; an engine may keep state from one to the next.
pub struct Job {
    pub link: LinkType,
    pub mss: u16,
    /// The RTL's data path width.
    #[cfg_attr(not(feature = "rtl"), allow(dead_code))]
    pub width: Width,
}

/// Computes a [`Job`]; the engines implement it.
pub trait Unit {
    /// Emits the segments of each of `packets` in order; `first` is the index of `packets[0]`
    /// in the capture. Stops at the first packet refused, after the segments of the packets
    /// before it.
    fn segments(
        &mut self,
        job: &Job,
        first: u64,
        packets: &[&[u8]],
        emit: &mut Emit,
    ) -> Result<(), Refusal>;
}

/// A batch holds up to this many packets, and stops growing once the segments of its packets
/// could take this many bytes: the RTL engine holds a batch's segments at once.
const BATCH_PACKETS: usize = 256;
const BATCH_OUTPUT: usize = 4 << 20;

/// The most bytes the segments of a packet of `len` bytes can take, headers included.
fn output_bound(len: usize, mss: u16) -> usize {
    let header = Limits::default().max_header;
    len + len.div_ceil(usize::from(mss)).max(1) * header
}

pub fn run(args: Args) -> Outcome {
    if args.output.as_os_str() == "-" && std::io::stdout().is_terminal() {
        return Err(Failure(
            "a pcap is not for a terminal: give --output FILE, or redirect standard output".into(),
        ));
    }
    let mut unit = args.engine.tso()?;
    let mut capture = Capture::open(&args.input, "packet")?;
    let link = capture.link_among(&[LinkType::Ethernet, LinkType::Ipoib], "")?;
    let nanos = capture.is_nanosecond();
    let job = Job {
        link,
        mss: args.mss,
        width: args.width,
    };
    let (packets, segments) = Output::run(Some(&args.output), |out| {
        let mut pcap = FrameWriter::new(out, link, Format::of(&args.output))?;
        let (mut packets, mut segments) = (0u64, 0u64);
        let mut batch = Batch::new();
        while capture.next_batch(&mut batch, BATCH_PACKETS, BATCH_OUTPUT, |r| {
            output_bound(r.data.len(), args.mss)
        })? {
            let first = batch.first();
            let mut stamps = Vec::with_capacity(batch.len());
            for (index, record) in (first..).zip(batch.records()) {
                if (record.data.len() as u64) < u64::from(record.orig_len) {
                    return Err(capture.at(
                        index,
                        format!(
                            "captured {} of {} bytes (snap length too small)",
                            record.data.len(),
                            record.orig_len
                        ),
                    ));
                }
                let nsec = if nanos {
                    record.ts_frac
                } else {
                    record.ts_frac.saturating_mul(1000)
                };
                stamps.push((record.ts_sec, nsec));
            }
            let frames = batch.frames();
            let mut emit = |i: usize, segment: &[u8]| {
                segments += 1;
                pcap.write_record(stamps[i], segment)
                    .map_err(|e| (None, format!("cannot write the segments: {e}")))
            };
            unit.segments(&job, first, &frames, &mut emit)
                .map_err(|(index, why)| match index {
                    Some(index) => capture.at(index, why),
                    None => Failure(why),
                })?;
            packets += batch.len() as u64;
        }
        pcap.finish()?;
        Ok((packets, segments))
    })?;
    eprintln!("rocenic tso: {packets} packet(s) in, {segments} segment(s) out");
    Ok(true)
}
