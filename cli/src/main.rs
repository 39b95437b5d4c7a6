//! `rocenic`: the user's command line over the reference model (and, as they land, the RTL).
//!
//! Every command reads plain files (CSV, pcap), writes plain CSV, and fails with a message that
//! names the line or frame at fault and a non-zero exit status; it never panics on bad input.

mod csvio;
mod demo;
mod engine;
mod entropy;
mod golden;
mod icrc;
mod output;
mod pcapio;
mod rss;
mod send;
mod sim;
mod soak;
mod toeplitz;
mod tso;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Open RoCEv2 / IPoIB NIC pipelines: the reference model from the command line.
#[derive(Parser)]
#[command(name = "rocenic", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// IPv6 flow label and RoCEv2 UDP source port for QP pairs or CM connections.
    Entropy(entropy::Args),
    /// Toeplitz hash of hex inputs under hex keys.
    Toeplitz(toeplitz::Args),
    /// Check the ICRC of every RoCEv2 frame in a pcap (exit 1 if any is bad).
    Icrc(icrc::Args),
    /// RSS hash, queue and parse flags of every packet in a pcap; per-queue counts on stderr.
    Rss(rss::Args),
    /// Cut every oversized TCP packet of a pcap into MSS-sized segments, as the NIC's TSO does.
    Tso(tso::Args),
    /// Run a scenario of QPs and work requests through the send engine: frames to a pcap,
    /// completions to a CSV.
    Send(send::Args),
    /// The main job: two NICs back to back run a scenario of traffic both ways (built-in
    /// default: docs/examples/sim.toml); the wire to DIR/run.pcap, the completions to
    /// DIR/completions.csv, a summary on standard output.
    Sim(sim::Args),
    /// The reliable connection's proof run: random messages (1 B to 64 KiB) over RC QPs both
    /// ways on a lossy wire, each checked delivered once, in order, byte for byte.
    Soak(soak::Args),
    /// Golden-model checks: export vectors, check a device's results and real captures.
    Golden(golden::Args),
    /// A short demonstration of the model: entropy for sample QP pairs, RSS spread of flows.
    Demo,
}

/// What a command reports when it cannot do its job: printed once, exit status 2.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

/// A command's result: `Ok(true)` when everything checked out, `Ok(false)` when it ran but found
/// something bad (exit status 1).
pub type Outcome = Result<bool, Failure>;

/// Rust ignores SIGPIPE, so a write to a closed pipe fails and the command would report `Broken
/// pipe`; a filter is expected to end quietly when its reader has gone (`rocenic … | head`), as
/// `cat` and `tshark` do. rocenic writes to no pipe of its own, so the default action is safe.
#[cfg(unix)]
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: signal(2) with SIG_DFL installs no handler, and runs before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    end_quietly_on_a_closed_pipe();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Entropy(args) => entropy::run(args),
        Command::Toeplitz(args) => toeplitz::run(args),
        Command::Icrc(args) => icrc::run(args),
        Command::Rss(args) => rss::run(args),
        Command::Tso(args) => tso::run(args),
        Command::Send(args) => send::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Soak(args) => soak::run(args),
        Command::Golden(args) => golden::run(args),
        Command::Demo => demo::run(),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Failure(message)) => {
            eprintln!("rocenic: error: {message}");
            ExitCode::from(2)
        }
    }
}
