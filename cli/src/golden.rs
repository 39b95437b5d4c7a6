//! `rocenic golden`: golden-model checks of a device against the reference model.
//!
//! - `export` writes versioned vector sets (inputs and the model's expected results);
//! - `check` recomputes a vector file whose result columns a device under test filled in;
//! - `check-pcap` checks the ICRC and the entropy of every RoCEv2 flow of a capture.
//!
//! Names, columns and exit codes are a contract users script against (docs/golden.md).

mod check;
mod check_pcap;
mod expect;
mod export;
mod frames;
mod manifest;
mod report;
pub mod rng;
mod rows;

use crate::Outcome;
use clap::Subcommand;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Golden,
}

#[derive(Subcommand)]
enum Golden {
    /// Write vector sets (one CSV per model, a pcap pair for TSO) and manifest.json to a folder.
    Export(export::Args),
    /// Recompute every row of a vector file filled in by a device; exit 1 on any mismatch.
    Check(check::Args),
    /// Check the ICRC and the entropy of every RoCEv2 flow of a capture; exit 1 on a mismatch.
    CheckPcap(check_pcap::Args),
}

pub fn run(args: Args) -> Outcome {
    match args.command {
        Golden::Export(a) => export::run(a),
        Golden::Check(a) => check::run(a),
        Golden::CheckPcap(a) => check_pcap::run(a),
    }
}
