//! `rocenic icrc -i FILE.pcap`: stored against computed ICRC for every RoCEv2 frame, a row written
//! as each frame is read.

use crate::output::Output;
use crate::pcapio::Capture;
use crate::{Failure, Outcome};
use rocenic_model::wire::{Error as WireError, LinkType, RoceFrame};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// A pcap or pcapng of Ethernet frames (link type 1) carrying RoCEv2; `-` is standard input.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    input: PathBuf,
    /// The earlier form, `rocenic icrc FILE`, kept so that scripts written for it still run.
    #[arg(value_name = "FILE", hide = true, conflicts_with = "input")]
    file: Option<PathBuf>,
    /// Where the CSV goes (`-` is standard output); a file is written only if the whole capture
    /// was read.
    #[arg(long, short, value_name = "FILE", default_value = "-")]
    output: PathBuf,
}

/// An ICRC as Wireshark shows it: its four bytes in wire order, read as one hex number (the
/// bytes `08 c6 15 4a` show as `0x08c6154a`). The ICRC is sent least significant byte first, so
/// this is the value with its bytes swapped.
fn as_wireshark(icrc: u32) -> u32 {
    u32::from_be_bytes(icrc.to_le_bytes())
}

pub fn run(args: Args) -> Outcome {
    let input = args.file.as_ref().unwrap_or(&args.input);
    let mut capture = Capture::open(input, "frame")?;
    capture.link_among(&[LinkType::Ethernet], "; RoCEv2 runs over Ethernet")?;
    let (all_good, not_roce) = Output::run(Some(&args.output), |out| {
        writeln!(out, "index,stored,computed,status")?;
        let (mut all_good, mut not_roce) = (true, 0u64);
        while let Some((index, record)) = capture.next()? {
            match RoceFrame::parse(record.data) {
                Ok(frame) => {
                    let (stored, computed) = (frame.stored(), frame.computed());
                    let status = if stored == computed { "ok" } else { "bad" };
                    all_good &= stored == computed;
                    let (stored, computed) = (as_wireshark(stored), as_wireshark(computed));
                    writeln!(out, "{index},{stored:#010x},{computed:#010x},{status}")?;
                }
                Err(e) => {
                    not_roce += 1;
                    let why = match e {
                        WireError::Truncated
                            if (record.data.len() as u64) < u64::from(record.orig_len) =>
                        {
                            format!(
                                "captured {} of {} bytes (snap length too small)",
                                record.data.len(),
                                record.orig_len
                            )
                        }
                        e => e.to_string(),
                    };
                    eprintln!(
                        "rocenic: {}: frame {index} is not a complete RoCEv2 frame: {why}",
                        capture.name()
                    );
                }
            }
        }
        Ok((all_good, not_roce))
    })?;
    if not_roce > 0 {
        return Err(Failure(format!(
            "{not_roce} frame(s) of {} are not RoCEv2; see above",
            capture.name()
        )));
    }
    Ok(all_good)
}
