//! `rocenic golden export`: the vector sets written to a folder, edge cases first, then seeded
//! random rows, each file complete or not written at all (`cli/src/output.rs`), and
//! `manifest.json` last. The same seed, count and profile give byte-identical files.

use super::expect::{self, parse_profile, Cache, Cells, Layout};
use super::manifest::{self, Entry, Manifest};
use super::rng::Rng;
use super::rows;
use crate::csvio::{self, parse_number, Row};
use crate::output::Output;
use crate::{Failure, Outcome};
use rocenic_model::entropy::Profile;
use rocenic_model::golden::sets::{Set, FORMAT, SETS, TSO};
use rocenic_model::wire::{LinkType, PcapWriter};
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::path::PathBuf;

/// Random rows per set when `--count` is not given.
pub const DEFAULT_COUNT: u64 = 256;
/// The seed when `--seed` is not given.
pub const DEFAULT_SEED: &str = "1";
/// The most random rows per set: a random TSO send and its segments take 24 KB on average.
const MAX_COUNT: u64 = 1_000_000;

/// The sends and the expected segments of the `tso` set.
pub const TSO_SENDS: &str = "tso-sends.pcap";
pub const TSO_SEGMENTS: &str = "tso-segments.pcap";

#[derive(clap::Args)]
pub struct Args {
    /// The folder to write: created if missing; the set files in it are replaced.
    #[arg(long)]
    out: PathBuf,
    /// Random rows per set, after the edge cases (at most 1000000).
    #[arg(long, default_value_t = DEFAULT_COUNT, value_parser = count)]
    count: u64,
    /// Seed of the random rows (0x hex or decimal).
    #[arg(long, default_value = DEFAULT_SEED, value_parser = seed)]
    seed: u64,
    /// Entropy profile of entropy-qp.csv and entropy-cm.csv: linux, rfc-v2, rfc-v1, rxe.
    #[arg(long, default_value = "linux", value_parser = parse_profile)]
    profile: Profile,
}

fn count(text: &str) -> Result<u64, String> {
    parse_number(text, MAX_COUNT)
}

fn seed(text: &str) -> Result<u64, String> {
    parse_number(text, u64::MAX)
}

pub fn run(args: Args) -> Outcome {
    let dir = &args.out;
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Failure(format!(
                "--out {}: exists and is not a directory",
                dir.display()
            )))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => fs::create_dir_all(dir)
            .map_err(|e| Failure(format!("cannot create {}: {e}", dir.display())))?,
        Err(e) => return Err(Failure(format!("--out {}: {e}", dir.display()))),
    }
    // Every set draws from a stream of its own.
    let master = Rng::new(args.seed);
    let mut files = Vec::new();
    for (i, set) in SETS.into_iter().enumerate() {
        let rng = master.fork(i as u64 + 1);
        let entry = if set.name == TSO.name {
            export_tso(dir, set, args.count, rng)?
        } else {
            export_csv(dir, set, args.profile, args.count, rng)?
        };
        eprintln!(
            "rocenic golden export: {} ({} rows, the first {} edge cases)",
            dir.join(set.file).display(),
            entry.rows,
            entry.edge_rows
        );
        files.push(entry);
    }
    let manifest = Manifest {
        format: FORMAT.into(),
        rocenic: env!("CARGO_PKG_VERSION").into(),
        profile: args.profile.name().into(),
        seed: args.seed,
        count: args.count,
        files,
    };
    Output::run(Some(&dir.join(manifest::FILE)), |out| {
        serde_json::to_writer_pretty(&mut *out, &manifest)?;
        writeln!(out)?;
        Ok(())
    })?;
    Ok(true)
}

fn entry(set: &Set, rows: u64, edges: usize) -> Entry {
    Entry {
        file: set.file.into(),
        set: set.name.into(),
        rows,
        edge_rows: edges as u64,
        inputs: set.inputs().map(|c| c.name.into()).collect(),
        expected: set.expected().map(|c| c.name.into()).collect(),
        sends: None,
        segments: None,
    }
}

fn export_csv(
    dir: &Path,
    set: &'static Set,
    profile: Profile,
    count: u64,
    rng: Rng,
) -> Result<Entry, Failure> {
    let rows = rows::rows(set, profile, count, rng);
    let layout = Layout::exported(set);
    let mut cache = Cache::default();
    let n = Output::run(Some(&dir.join(set.file)), |out| {
        let mut w = csvio::writer(out);
        w.write_record(set.columns.iter().map(|c| c.name))?;
        let mut record = csv::StringRecord::new();
        let mut n = 0u64;
        for cells in rows.rows {
            record.clear();
            cells.iter().for_each(|c| record.push_field(c));
            let row = Row {
                record: &record,
                line: n + 2,
            };
            let cells = Cells {
                row: &row,
                layout: &layout,
            };
            let expected = expect::expected(&cells, &mut cache, &mut || Ok(profile))?;
            expected.iter().for_each(|e| record.push_field(e));
            w.write_record(&record)?;
            n += 1;
        }
        w.flush()?;
        Ok(n)
    })?;
    Ok(entry(set, n, rows.edges))
}

/// `tso.csv` with the two pcaps it refers to: each send is segmented as it is written.
fn export_tso(dir: &Path, set: &'static Set, count: u64, rng: Rng) -> Result<Entry, Failure> {
    let (edges, sends) = rows::sends(count, rng);
    let n = Output::run(Some(&dir.join(set.file)), |csv_out| {
        Output::run(Some(&dir.join(TSO_SENDS)), |sends_out| {
            Output::run(Some(&dir.join(TSO_SEGMENTS)), |segments_out| {
                let mut w = csvio::writer(csv_out);
                w.write_record(set.columns.iter().map(|c| c.name))?;
                let mut sends_pcap =
                    PcapWriter::with_header(sends_out, LinkType::Ethernet.pcap(), 262_144)?;
                let mut segments_pcap = PcapWriter::new(segments_out, LinkType::Ethernet)?;
                let mut n = 0u64;
                for (send, mss) in sends {
                    let frame = send.frame();
                    // Timestamps name the send (seconds) and the segment (microseconds).
                    let index = n as u32;
                    sends_pcap.write_record((index, 0), &frame)?;
                    let expected = expect::tso(LinkType::Ethernet, &frame, mss, |i, segment| {
                        Ok(segments_pcap.write_record((index, i as u32), segment)?)
                    })
                    .map_err(|e| Failure(format!("send {n}: {e}")))?;
                    let mut record = vec![n.to_string(), mss.to_string()];
                    record.extend(expected);
                    w.write_record(&record)?;
                    n += 1;
                }
                sends_pcap.finish()?;
                segments_pcap.finish()?;
                w.flush()?;
                Ok(n)
            })
        })
    })?;
    let mut e = entry(set, n, edges);
    e.sends = Some(TSO_SENDS.into());
    e.segments = Some(TSO_SEGMENTS.into());
    Ok(e)
}
