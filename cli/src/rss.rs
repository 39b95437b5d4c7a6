//! `rocenic rss`: hash and queue of every packet of a pcap, as the NIC's RSS would pick them.

use crate::toeplitz::decode_hex;
use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_model::rss::regs::{ContextRegs, KEY_BYTES};
use rocenic_model::rss::{
    classify, distribute, Context, ContextView, Function, HashFields, IndirectionTable, Link, Meta,
};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};
use rocenic_model::wire::PcapReader;
use rocenic_sim::duts::{RssPipeline512, RssPipeline64};
use rocenic_sim::rss::pipeline::{run_context, RTL_TABLE_LOG2};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

/// Which implementation computes the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// The reference model.
    Model,
    /// The RTL pipeline (rtl/rss/rss_pipeline.sv), co-simulated.
    Rtl,
}

/// The RTL's data path width in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Width {
    /// 8 bytes per beat.
    #[value(name = "64")]
    W64,
    /// 64 bytes per beat.
    #[value(name = "512")]
    W512,
}

/// The hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HashFunction {
    /// Toeplitz with the key.
    Toeplitz,
    /// XOR of the input's 32-bit words.
    Xor,
}

#[derive(clap::Args)]
pub struct Args {
    /// A classic pcap of Ethernet (link type 1) or InfiniBand (link type 247) frames.
    #[arg(long)]
    pcap: PathBuf,
    /// Implementation to run.
    #[arg(long, value_enum, default_value_t = Engine::Model)]
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

    let path = args.pcap.display();
    let bytes =
        std::fs::read(&args.pcap).map_err(|e| Failure(format!("cannot read {path}: {e}")))?;
    let reader = PcapReader::new(&bytes).map_err(|e| Failure(format!("{path}: {e}")))?;
    let link = Link::from_pcap(reader.link_type()).ok_or_else(|| {
        Failure(format!(
            "{path}: link type {} is neither Ethernet (1) nor InfiniBand (247)",
            reader.link_type()
        ))
    })?;

    let mut frames = Vec::new();
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Failure(format!("{path}: frame {index}: {e}")))?;
        frames.push(record.data);
    }
    let metas: Vec<Meta> = match args.engine {
        Engine::Model => {
            let view = ContextView {
                context: &context,
                table: table.entries(),
            };
            frames
                .iter()
                .map(|f| distribute(&classify(link, f), &[], &[view]))
                .collect()
        }
        Engine::Rtl => {
            if key.len() > KEY_BYTES {
                return Err(Failure(format!(
                    "--key: the RTL holds keys of up to {KEY_BYTES} bytes"
                )));
            }
            if args.table_size > 1 << RTL_TABLE_LOG2 {
                return Err(Failure(format!(
                    "--table-size: the RTL's tables hold up to {} entries",
                    1 << RTL_TABLE_LOG2
                )));
            }
            // Shorter keys are stored with a zero tail, which no covered input reaches.
            let mut key52 = [0u8; KEY_BYTES];
            key52[..key.len()].copy_from_slice(&key);
            let regs = ContextRegs {
                function,
                fields,
                key: key52,
                table_log2: args.table_size.trailing_zeros() as u8,
                bank: 1,
            };
            let run = match args.width {
                Width::W64 => run_context::<RssPipeline64>,
                Width::W512 => run_context::<RssPipeline512>,
            };
            run("rocenic_rss", link, &frames, &regs, table.entries())
                .map_err(|e| Failure(format!("RTL engine: {e}")))?
        }
    };

    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(out, "index,hash,queue,flags")?;
    let mut per_queue = vec![0u64; usize::from(args.queues)];
    for (index, meta) in metas.iter().enumerate() {
        let (hash, queue) = (meta.hash, meta.queue);
        per_queue[usize::from(queue)] += 1;
        writeln!(out, "{index},{hash:#010x},{queue},{}", meta.flags)?;
    }
    out.flush()?;
    let total: u64 = per_queue.iter().sum();
    eprintln!("queue,packets,share");
    for (q, n) in per_queue.iter().enumerate() {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * *n as f64 / total as f64
        };
        eprintln!("{q},{n},{share:.1}%");
    }
    Ok(true)
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
