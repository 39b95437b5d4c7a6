//! `rocenic golden check`: being built (issue 16).

use crate::{Failure, Outcome};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Outcome {
    Err(Failure("`rocenic golden check` is not built yet".into()))
}
