//! `rocenic icrc FILE.pcap`: stored against computed ICRC for every RoCEv2 frame.

use crate::{Failure, Outcome};
use rocenic_model::wire::{Error as WireError, LinkType, PcapReader, RoceFrame};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A classic pcap of Ethernet frames (link type 1) carrying RoCEv2.
    pcap: PathBuf,
}

pub fn run(args: Args) -> Outcome {
    let path = args.pcap.display();
    let bytes =
        std::fs::read(&args.pcap).map_err(|e| Failure(format!("cannot read {path}: {e}")))?;
    let reader = PcapReader::new(&bytes).map_err(|e| Failure(format!("{path}: {e}")))?;
    if LinkType::from_pcap(reader.link_type()) != Some(LinkType::Ethernet) {
        return Err(Failure(format!(
            "{path}: link type {} is not Ethernet (1); RoCEv2 runs over Ethernet",
            reader.link_type()
        )));
    }
    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(out, "index,stored,computed,status")?;
    let (mut all_good, mut not_roce) = (true, 0usize);
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Failure(format!("{path}: frame {index}: {e}")))?;
        match RoceFrame::parse(record.data) {
            Ok(frame) => {
                let (stored, computed) = (frame.stored(), frame.computed());
                let status = if stored == computed { "ok" } else { "bad" };
                all_good &= stored == computed;
                writeln!(out, "{index},{stored:#010x},{computed:#010x},{status}")?;
            }
            Err(e) => {
                not_roce += 1;
                let why = match e {
                    WireError::Truncated if (record.data.len() as u32) < record.orig_len => {
                        format!(
                            "captured {} of {} bytes (snap length too small)",
                            record.data.len(),
                            record.orig_len
                        )
                    }
                    e => e.to_string(),
                };
                eprintln!("rocenic: {path}: frame {index} is not a complete RoCEv2 frame: {why}");
            }
        }
    }
    out.flush()?;
    if not_roce > 0 {
        return Err(Failure(format!(
            "{not_roce} frame(s) of {path} are not RoCEv2; see above"
        )));
    }
    Ok(all_good)
}
