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

/// rocenic: open RoCEv2 / IPoIB NIC pipelines (entropy, RSS, TSO, the WQE engine, the receive
/// path, the reliable connection) from the command line, on the reference model, the
/// co-simulated RTL (`--engine rtl`) or a board (`--engine serial:PORT`).
#[derive(Parser)]
#[command(
    name = "rocenic",
    version,
    about,
    after_help = "Examples:\n  rocenic sim                                  the main job: two NICs back to back, out/run.pcap\n  rocenic icrc -i capture.pcapng               check every RoCEv2 frame's ICRC\n  rocenic rss -i capture.pcap --ethtool x.txt  steer a capture as a NIC's saved `ethtool -x` says\n  rocenic <command> --help                     a command's options and examples\n\nManual: docs/cli.md"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// IPv6 flow label and RoCEv2 UDP source port for QP pairs or CM connections.
    #[command(
        after_help = "Examples:\n  rocenic entropy --lqpn 0x11 --rqpn 0x22\n  rocenic entropy -i qps.csv -o entropy.csv --profile rfc-v2\n  printf 'src_port,dst_port\\n18515,4791\\n' | rocenic entropy --mode cm"
    )]
    Entropy(entropy::Args),
    /// Toeplitz hash of hex inputs under hex keys.
    #[command(
        after_help = "Examples:\n  rocenic toeplitz --key 6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa --data 420995bba18e64500aea06e6\n  rocenic toeplitz -i keys-and-inputs.csv -o hashes.csv"
    )]
    Toeplitz(toeplitz::Args),
    /// Check the ICRC of every RoCEv2 frame in a pcap (exit 1 if any is bad).
    #[command(
        after_help = "Examples:\n  rocenic icrc -i capture.pcapng\n  tshark -w - -i eth0 -f 'udp port 4791' | rocenic icrc -o icrc.csv"
    )]
    Icrc(icrc::Args),
    /// RSS hash, queue and parse flags of every packet in a pcap; per-queue counts on stderr.
    #[command(
        after_help = "Examples:\n  rocenic rss -i capture.pcap --symmetric-key --queues 8 -o queues.csv\n  ethtool -x eth0 > eth0-x.txt; rocenic rss -i capture.pcap --ethtool eth0-x.txt --plot spread.svg\n  rocenic rss -i capture.pcap --engine rtl --width 512"
    )]
    Rss(rss::Args),
    /// Cut every oversized TCP packet of a pcap into MSS-sized segments, as the NIC's TSO does.
    #[command(
        after_help = "Examples:\n  rocenic tso -i super.pcap -o segments.pcap --mss 1448\n  rocenic tso -i super.pcap -o segments.pcap --mss 1448 --engine rtl"
    )]
    Tso(tso::Args),
    /// Run a scenario of QPs and work requests through the send engine: frames to a pcap,
    /// completions to a CSV.
    #[command(
        after_help = "Examples:\n  rocenic send --scenario docs/examples/send.toml --output frames.pcap --completions cq.csv\n  rocenic send --scenario docs/examples/send.toml --output frames.pcap --engine rtl --vcd engine.fst"
    )]
    Send(send::Args),
    /// The main job: two NICs back to back run a scenario of traffic both ways (built-in
    /// default: docs/examples/sim.toml); the wire to DIR/run.pcap, the completions to
    /// DIR/completions.csv, a summary on standard output.
    #[command(
        after_help = "Examples:\n  rocenic sim\n  rocenic sim --scenario docs/examples/sim.toml --out results --engine model\n  rocenic sim --scenario cli/tests/cli/sim_lossy.toml --engine model"
    )]
    Sim(sim::Args),
    /// The reliable connection's proof run: random messages (1 B to 64 KiB) over RC QPs both
    /// ways on a lossy wire, each checked delivered once, in order, byte for byte.
    #[command(
        after_help = "Examples:\n  rocenic soak\n  rocenic soak --messages 3000 --loss 0.01"
    )]
    Soak(soak::Args),
    /// Golden-model checks: export vectors, check a device's results and real captures.
    #[command(
        after_help = "Examples:\n  rocenic golden export --out vectors --count 100 --seed 7\n  rocenic golden check vectors/entropy-qp.csv\n  rocenic golden check-pcap -i capture.pcap --profile linux --html report.html"
    )]
    Golden(golden::Args),
    /// A short demonstration of the model: entropy for sample QP pairs, RSS spread of flows.
    #[command(after_help = "Examples:\n  rocenic demo\n  make demo")]
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The `rocenic …` invocations of a help text's examples (those after a pipe or a `;` too).
    fn examples(help: &str) -> Vec<Vec<String>> {
        help.lines()
            .filter_map(|line| line.find("rocenic ").map(|at| &line[at..]))
            .filter(|call| !call.contains('<'))
            .map(|call| {
                // The command ends where the explanation column starts.
                let call = call.split("  ").next().unwrap_or(call);
                call.split_whitespace().map(str::to_string).collect()
            })
            .collect()
    }

    /// Every command's help has examples, and every example parses as the command line it shows.
    #[test]
    fn every_help_example_parses() {
        let cli = Cli::command();
        let mut seen = 0;
        let top = cli.get_after_help().expect("examples").to_string();
        let mut all = examples(&top);
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "demo") {
            let help = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            let found = examples(&help);
            assert!(
                !found.is_empty(),
                "`rocenic {}` has no examples",
                sub.get_name()
            );
            all.extend(found);
        }
        for args in all {
            if let Err(e) = Cli::try_parse_from(&args) {
                panic!("example `{}` does not parse: {e}", args.join(" "));
            }
            seen += 1;
        }
        assert!(seen >= 20, "{seen} examples");
    }
}
