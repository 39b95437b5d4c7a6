//! `rocenic golden check-pcap`: being built (issue 16).

use crate::{Failure, Outcome};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Outcome {
    Err(Failure(
        "`rocenic golden check-pcap` is not built yet".into(),
    ))
}
