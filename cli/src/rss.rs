//! `rocenic rss`: hash and queue of every packet of a pcap, as the NIC's RSS would pick them.

use crate::engine::{parse_engine, Engine, Width};
use crate::toeplitz::decode_hex;
use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_model::rss::{Context, Function, HashFields, IndirectionTable, Meta};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};
use rocenic_model::wire::{LinkType, PcapReader};
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HashFunction {
    /// Toeplitz with the key.
    Toeplitz,
    /// XOR of the input's 32-bit words.
    Xor,
}

/// What `rocenic rss` computes: the metadata of every frame of a pcap under one context and
/// indirection table.
pub struct Job<'a> {
    pub link: LinkType,
    pub frames: &'a [Vec<u8>],
    pub context: &'a Context,
    /// The key as given: the RTL and the boards hold it in key registers of their own length.
    pub key: &'a [u8],
    pub table: &'a [u16],
    /// The RTL's data path width; the metadata do not depend on it.
    #[cfg_attr(not(feature = "rtl"), allow(dead_code))]
    pub width: Width,
}

/// Computes a [`Job`]; the engines implement it.
pub trait Unit {
    /// The metadata of every frame of `job`, in order.
    fn metas(&mut self, job: &Job) -> Result<Vec<Meta>, Failure>;
}

#[derive(clap::Args)]
pub struct Args {
    /// A classic pcap of Ethernet (link type 1) or InfiniBand (link type 247) frames.
    #[arg(long)]
    pcap: PathBuf,
    /// Implementation to run: model, rtl (co-simulated), or serial:PORT (a board's RSS hash unit
    /// behind its UART, e.g. serial:/dev/ttyUSB1, at 115200 baud).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// Hash function.
    #[arg(long, value_enum, default_value_t = HashFunction::Toeplitz)]
    function: HashFunction,
    /// Toeplitz key as plain hex bytes (default: the Microsoft verification key).
    #[arg(long, conflicts_with = "symmetric_key")]
    key: Option<String>,
    /// Use the symmetric key (0x6d5a repeated): both directions of a flow land on one queue.
    #[arg(long)]
    symmetric_key: bool,
    /// Hashed fields, comma-separated: src-ipv4, dst-ipv4, src-ipv6, dst-ipv6, src-port-tcp,
    /// dst-port-tcp, src-port-udp, dst-port-udp, bth-qpn (default: addresses and TCP/UDP ports).
    #[arg(long, value_parser = parse_fields)]
    fields: Option<HashFields>,
    /// Indirection table entries: a power of two from 1 to 65536.
    #[arg(long, default_value_t = 128)]
    table_size: usize,
    /// Data path width of the RTL engine.
    #[arg(long, value_enum, default_value_t = Width::W64)]
    width: Width,
    /// Receive queues, filled into the table round-robin.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    queues: u16,
}

fn parse_fields(text: &str) -> Result<HashFields, String> {
    text.split(',')
        .map(str::trim)
        .try_fold(HashFields::NONE, |acc, name| {
            HashFields::from_name(name).map(|f| acc | f).ok_or_else(|| {
                let known: Vec<&str> = HashFields::NAMES.iter().map(|(n, _)| *n).collect();
                format!("unknown field `{name}` (known: {})", known.join(", "))
            })
        })
}

/// The longest hash input the fields can select, in bytes.
fn longest_input(fields: HashFields) -> usize {
    let count = |pairs: &[(HashFields, usize)]| -> usize {
        pairs
            .iter()
            .filter(|(f, _)| fields.contains(*f))
            .map(|(_, n)| n)
            .sum()
    };
    let v4 = count(&[(HashFields::SRC_IPV4, 4), (HashFields::DST_IPV4, 4)]);
    let v6 = count(&[(HashFields::SRC_IPV6, 16), (HashFields::DST_IPV6, 16)]);
    let tcp = count(&[(HashFields::SRC_PORT_TCP, 2), (HashFields::DST_PORT_TCP, 2)]);
    let udp = count(&[(HashFields::SRC_PORT_UDP, 2), (HashFields::DST_PORT_UDP, 2)]);
    v4.max(v6) + tcp.max(udp) + count(&[(HashFields::BTH_DEST_QPN, 3)])
}

pub fn run(args: Args) -> Outcome {
    let fields = args.fields.unwrap_or(HashFields::DEFAULT);
    let longest = longest_input(fields);
    let key: Vec<u8> = match (&args.key, args.symmetric_key) {
        (Some(hex), _) => decode_hex(hex).map_err(|e| Failure(format!("--key: {e}")))?,
        (None, true) if longest > 36 => symmetric_key::<52>().to_vec(),
        (None, true) => symmetric_key::<40>().to_vec(),
        (None, false) => MICROSOFT_KEY.to_vec(),
    };
    if args.function == HashFunction::Toeplitz && longest + 4 > key.len() {
        return Err(Failure(format!(
            "the selected fields take up to {longest} bytes of hash input, but a {}-byte key covers {}: use a 52-byte key",
            key.len(),
            key.len().saturating_sub(4)
        )));
    }
    let function = match args.function {
        HashFunction::Toeplitz => Function::Toeplitz,
        HashFunction::Xor => Function::Xor,
    };
    let context =
        Context::new(function, fields, &key).map_err(|e| Failure(format!("--key: {e}")))?;
    let mut table = IndirectionTable::new(vec![0u16; args.table_size])
        .map_err(|e| Failure(format!("--table-size: {e}")))?;
    table.fill_round_robin(args.queues)?;

    let (link, frames) = read_pcap(&args.pcap)?;
    let job = Job {
        link,
        frames: &frames,
        context: &context,
        key: &key,
        table: table.entries(),
        width: args.width,
    };
    let metas = args.engine.rss()?.metas(&job)?;

    let mut out = BufWriter::new(io::stdout().lock());
    write_csv(&metas, &mut out)?;
    out.flush()?;
    eprint!("{}", histogram(&metas, args.queues));
    Ok(true)
}

/// The link layer and the frames of a pcap.
pub fn read_pcap(path: &Path) -> Result<(LinkType, Vec<Vec<u8>>), Failure> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| Failure(format!("cannot read {name}: {e}")))?;
    let reader = PcapReader::new(&bytes).map_err(|e| Failure(format!("{name}: {e}")))?;
    let link = match LinkType::from_pcap(reader.link_type()) {
        // The RTL parser reads Ethernet and native InfiniBand, not bare IPoIB.
        Some(link @ (LinkType::Ethernet | LinkType::Infiniband)) => link,
        _ => {
            return Err(Failure(format!(
                "{name}: link type {} is neither Ethernet (1) nor InfiniBand (247)",
                reader.link_type()
            )))
        }
    };
    let mut frames = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Failure(format!("{name}: frame {index}: {e}")))?;
        frames.push(record.data.to_vec());
    }
    Ok((link, frames))
}

/// The CSV written to standard output: `index,hash,queue,flags` per packet.
pub fn write_csv(metas: &[Meta], out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "index,hash,queue,flags")?;
    for (index, meta) in metas.iter().enumerate() {
        let (hash, queue) = (meta.hash, meta.queue);
        writeln!(out, "{index},{hash:#010x},{queue},{}", meta.flags)?;
    }
    Ok(())
}

/// The per-queue histogram written to standard error.
pub fn histogram(metas: &[Meta], queues: u16) -> String {
    let mut per_queue = vec![0u64; usize::from(queues)];
    for meta in metas {
        per_queue[usize::from(meta.queue)] += 1;
    }
    let total: u64 = per_queue.iter().sum();
    let mut text = String::from("queue,packets,share\n");
    for (q, n) in per_queue.iter().enumerate() {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * *n as f64 / total as f64
        };
        let _ = writeln!(text, "{q},{n},{share:.1}%");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lists() {
        assert_eq!(parse_fields("src-ipv4,dst-ipv4"), Ok(HashFields(0b11)));
        assert!(parse_fields("src-ipv4,bogus")
            .unwrap_err()
            .contains("bogus"));
        assert_eq!(longest_input(HashFields::DEFAULT), 36);
        assert_eq!(
            longest_input(HashFields::DEFAULT | HashFields::BTH_DEST_QPN),
            39
        );
        assert_eq!(
            longest_input(HashFields::SRC_IPV4 | HashFields::BTH_DEST_QPN),
            7
        );
    }
}
