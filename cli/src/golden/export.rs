//! `rocenic golden export`: being built (issue 16).

use crate::{Failure, Outcome};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Outcome {
    Err(Failure("`rocenic golden export` is not built yet".into()))
}
