//! `rocenic rss`: hash and queue of every packet of a pcap, as the NIC's RSS would pick them.

mod config;
mod ethtool;
pub mod histogram;
pub mod rule;

use crate::engine::{parse_engine, Engine, Width};
use crate::output::Output;
use crate::pcapio::{Batch, Capture};
use crate::toeplitz::decode_hex;
use crate::{Failure, Outcome};
use clap::ValueEnum;
use rocenic_model::rss::{
    check_table_size, Context, ContextView, Function, HashFields, IndirectionTable, Meta, Rule,
};
use rocenic_model::toeplitz::{symmetric_key, MICROSOFT_KEY};
use rocenic_model::wire::LinkType;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The hash function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HashFunction {
    /// Toeplitz with the key.
    Toeplitz,
    /// XOR of the input's 32-bit words.
    Xor,
}

/// One RSS context of a job: its hash, the key as given (the RTL and the boards hold it in key
/// registers of their own length), and its indirection table.
pub struct JobContext {
    pub context: Context,
    pub key: Vec<u8>,
    pub table: Vec<u16>,
}

/// What `rocenic rss` computes: the metadata of every frame of a pcap under the NIC's steering
/// rules (first match wins) and RSS contexts (context 0 hashes what no rule takes; with none,
/// such a frame goes to queue 0 unhashed). The frames come in batches; an engine may keep state
/// from one to the next.
pub struct Job<'a> {
    pub link: LinkType,
    pub contexts: &'a [JobContext],
    pub rules: &'a [Rule],
    /// The RTL's data path width; the metadata do not depend on it.
    #[cfg_attr(not(feature = "rtl"), allow(dead_code))]
    pub width: Width,
}

impl Job<'_> {
    /// The contexts as the model's steering reads them.
    pub fn views(&self) -> Vec<ContextView<'_>> {
        self.contexts
            .iter()
            .map(|c| ContextView {
                context: &c.context,
                table: &c.table,
            })
            .collect()
    }
}

/// Computes a [`Job`]; the engines implement it.
pub trait Unit {
    /// Readies the unit for `job` before any frame is read (the RTL is built and loaded, a
    /// board gets its key), so that a job the unit cannot run is refused first.
    fn start(&mut self, _job: &Job) -> Result<(), Failure> {
        Ok(())
    }

    /// The metadata of each of `frames`, in order, of the job's capture; `first` is the index of
    /// `frames[0]` in the capture, for messages.
    fn metas(&mut self, job: &Job, first: u64, frames: &[&[u8]]) -> Result<Vec<Meta>, Failure>;
}

/// A batch holds up to this many frames and about this many bytes: the engines work on a batch
/// at a time, so memory stays bounded however long the capture is.
const BATCH_FRAMES: usize = 1024;
const BATCH_BYTES: usize = 1 << 20;

#[derive(clap::Args)]
pub struct Args {
    /// A pcap or pcapng of Ethernet (link type 1) or InfiniBand (link type 247) frames; `-` is
    /// standard input. (`--pcap`, the earlier name, still works.)
    #[arg(long, short, alias = "pcap", value_name = "FILE", default_value = "-")]
    input: PathBuf,
    /// Where the CSV goes (`-` is standard output); a file is written only if every frame was
    /// hashed.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// Implementation to run: model, rtl (co-simulated), or serial:PORT (a board's RSS hash unit
    /// behind its UART, e.g. serial:/dev/ttyUSB1, at 115200 baud).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// Hash function.
    #[arg(long, value_enum, default_value_t = HashFunction::Toeplitz)]
    function: HashFunction,
    /// Toeplitz key as hex bytes, plain (`6d5a56da…`) or as ethtool prints it (`6d:5a:56:da:…`)
    /// (default: the Microsoft verification key).
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
    #[arg(long, default_value_t = 128, value_parser = parse_table_size)]
    table_size: usize,
    /// Data path width of the RTL engine.
    #[arg(long, value_enum, default_value_t = Width::W64)]
    width: Width,
    /// Receive queues, filled into the table round-robin.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    queues: u16,
    /// A NIC's RSS as saved from `ethtool -x DEV > FILE`: its indirection table, key and hash
    /// function take the place of --table-size, --queues, --key and --function.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["table_size", "queues", "key", "symmetric_key"])]
    ethtool: Option<PathBuf>,
    /// The NIC's whole steering from a TOML file: RSS contexts (`[[rss]]`: function, fields,
    /// key, table) and steering rules (`[[rule]]`, first match wins); see docs/cli.md.
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["ethtool", "table_size", "queues", "key", "symmetric_key", "fields"])]
    config: Option<PathBuf>,
    /// Also draw the per-queue spread as an SVG bar chart.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// A table size is checked before anything is sized by it.
fn parse_table_size(text: &str) -> Result<usize, String> {
    let n: usize = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of entries"))?;
    check_table_size(n).map_err(|e| e.to_string())?;
    Ok(n)
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

/// The key of a context over `fields`: the one given, else the symmetric key (52 bytes when
/// the fields take more input than a 40-byte key covers) or the Microsoft key.
pub fn choose_key(fields: HashFields, given: Option<Vec<u8>>, symmetric: bool) -> Vec<u8> {
    match (given, symmetric) {
        (Some(key), _) => key,
        (None, true) if fields.longest_input() > 36 => symmetric_key::<52>().to_vec(),
        (None, true) => symmetric_key::<40>().to_vec(),
        (None, false) => MICROSOFT_KEY.to_vec(),
    }
}

/// Refuses a Toeplitz key too short to cover the fields' longest input.
pub fn check_cover(function: Function, fields: HashFields, key: &[u8]) -> Result<(), String> {
    let longest = fields.longest_input();
    if function == Function::Toeplitz && longest + 4 > key.len() {
        return Err(format!(
            "the selected fields take up to {longest} bytes of hash input, but a {}-byte key covers {}: use a 52-byte key",
            key.len(),
            key.len().saturating_sub(4)
        ));
    }
    Ok(())
}

/// A file of the options (`--ethtool`, `--config`) read whole and parsed, errors naming it.
fn read_file<T>(path: &Path, parse: impl FnOnce(&str) -> Result<T, String>) -> Result<T, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure(format!("cannot read {}: {e}", path.display())))?;
    parse(&text).map_err(|e| Failure(format!("{}: {e}", path.display())))
}

/// The one context the options describe: a saved `ethtool -x` (`--ethtool`), or `--key`,
/// `--function`, `--fields`, `--table-size` and `--queues`; and the number of queues.
fn one_context(args: &Args) -> Result<(JobContext, u16), Failure> {
    let fields = args.fields.unwrap_or(HashFields::DEFAULT);
    let saved = match &args.ethtool {
        Some(path) => Some(read_file(path, ethtool::parse)?),
        None => None,
    };
    let given = match (&args.key, &saved) {
        (Some(hex), _) => Some(decode_hex(hex).map_err(|e| Failure(format!("--key: {e}")))?),
        (None, Some(saved)) => saved.key.clone(),
        (None, None) => None,
    };
    let key = choose_key(fields, given, args.symmetric_key);
    let chosen = saved
        .as_ref()
        .and_then(|s| s.function)
        .unwrap_or(args.function);
    let function = match chosen {
        HashFunction::Toeplitz => Function::Toeplitz,
        HashFunction::Xor => Function::Xor,
    };
    let context =
        Context::new(function, fields, &key).map_err(|e| Failure(format!("--key: {e}")))?;
    // The key's own length is checked first (above), then what it covers.
    check_cover(function, fields, &key).map_err(Failure)?;
    let (table, queues) = match saved {
        Some(saved) => {
            let what = args.ethtool.as_ref().map(|p| p.display().to_string());
            let what = what.unwrap_or_default();
            let table = IndirectionTable::new(saved.table)
                .map_err(|e| Failure(format!("{what}: the indirection table: {e}")))?;
            (table, saved.rings)
        }
        None => {
            let mut table = IndirectionTable::new(vec![0u16; args.table_size])
                .map_err(|e| Failure(format!("--table-size: {e}")))?;
            table.fill_round_robin(args.queues)?;
            (table, args.queues)
        }
    };
    let table = table.entries().to_vec();
    Ok((
        JobContext {
            context,
            key,
            table,
        },
        queues,
    ))
}

pub fn run(args: Args) -> Outcome {
    let (contexts, rules, queues) = match &args.config {
        Some(path) => {
            let c = read_file(path, config::parse)?;
            (c.contexts, c.rules, c.queues)
        }
        None => {
            let (context, queues) = one_context(&args)?;
            (vec![context], Vec::new(), queues)
        }
    };

    let mut unit = args.engine.rss()?;
    let mut capture = Capture::open(&args.input, "frame")?;
    // The RTL parser reads Ethernet and native InfiniBand, not bare IPoIB.
    let link = capture.link_among(&[LinkType::Ethernet, LinkType::Infiniband], "")?;
    let job = Job {
        link,
        contexts: &contexts,
        rules: &rules,
        width: args.width,
    };
    unit.start(&job)?;
    let mut per_queue = vec![0u64; usize::from(queues)];
    Output::run(Some(&args.output), |out| {
        writeln!(out, "{CSV_HEADER}")?;
        let mut batch = Batch::new();
        while capture.next_batch(&mut batch, BATCH_FRAMES, BATCH_BYTES, |r| r.data.len())? {
            let metas = unit.metas(&job, batch.first(), &batch.frames())?;
            for (index, meta) in (batch.first()..).zip(&metas) {
                write_row(out, index, meta)?;
                per_queue[usize::from(meta.queue)] += 1;
            }
        }
        Ok(())
    })?;
    // A person at a terminal gets bars; a script reading standard error, the CSV it always had.
    if std::io::stderr().is_terminal() {
        eprint!("{}", histogram::bars(&per_queue));
    } else {
        eprint!("{}", histogram::csv(&per_queue));
    }
    if let Some(path) = &args.plot {
        let title = format!("RSS spread of {}", capture.name());
        histogram::plot(&per_queue, &title, path)?;
    }
    Ok(true)
}

/// The header of the CSV written to standard output.
pub const CSV_HEADER: &str = "index,hash,queue,flags";

/// One row of the CSV: the frame's index in the capture and its metadata.
pub fn write_row(out: &mut impl Write, index: u64, meta: &Meta) -> std::io::Result<()> {
    let (hash, queue) = (meta.hash, meta.queue);
    writeln!(out, "{index},{hash:#010x},{queue},{}", meta.flags)
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
    }
}
