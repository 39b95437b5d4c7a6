//! `rocenic sim [--scenario FILE.toml] [--out DIR] [--seed N]`: the main job. Two NICs back to
//! back on a wire run a scenario of traffic both ways (docs/scenario.md, "Simulation
//! scenarios"; the built-in default is docs/examples/sim.toml): every frame is sent by one
//! NIC's send engine, taken by the other's RSS steering and receive engine, and every
//! completion read by the host software from host memory. It writes the wire to `DIR/run.pcap`
//! and the completions to `DIR/completions.csv`, and prints a summary on standard output.
//!
//! The file is read (`sim/scenario.rs`, the send scenario's tables under each NIC), checked
//! (`sim/check.rs`, each NIC's send tables by `send/check.rs`) and laid out in host memory
//! (`sim/layout.rs`) before any output is created, and the engine says whether it runs it
//! ([`Unit::accepts`]). The engine ([`Unit`]: two co-simulated full cores, the default in a
//! build with the `rtl` feature, or the model) programs both NICs and runs them, calling the host (`sim/host.rs`), which is the same for
//! every engine; `sim/summary.rs` writes the results.

mod check;
mod host;
mod layout;
pub(crate) mod link;
pub use link::Transport;
pub mod scenario;
mod summary;

pub use host::Host;

use crate::engine::{parse_engine, Engine};
use crate::output::Output;
use crate::pcapio::{microsecond_apart, Format, FrameWriter};
use crate::send;
use crate::send::scenario::ScenarioError;
use crate::{Failure, Outcome};
use check::{ContextPlan, Receiver};
use rocenic_model::rss::Rule;
use rocenic_model::rx::{Counts, WqConfig};
use rocenic_model::wire::LinkType;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The built-in scenario: the text of docs/examples/sim.toml (a test holds them equal).
pub const DEFAULT: &str = include_str!("sim/default.toml");

#[derive(clap::Args)]
pub struct Args {
    /// The scenario: a TOML file of two NICs, [nic.a] and [nic.b], each with the tables of a
    /// send scenario and its receive queues, RSS contexts and rules (docs/scenario.md); the
    /// built-in default (docs/examples/sim.toml) when absent.
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// The directory for run.pcap and completions.csv (created if missing).
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Write the wire as run.pcapng (pcapng, Wireshark's default; nanosecond stamps) instead of
    /// run.pcap.
    #[arg(long)]
    pcapng: bool,
    /// Seeds the pace of the wire and of the host's polls; what lands where does not depend on
    /// it.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Implementation to run: rtl (two co-simulated full cores, the default when built with
    /// the `rtl` feature) or model (the default without it).
    #[arg(long, default_value = DEFAULT_ENGINE, value_parser = parse_engine)]
    engine: Engine,
    /// With --engine rtl: a waveform of NIC a's core (every signal of nic_core): FST if FILE
    /// ends in .fst (GTKWave's and Surfer's compressed format), VCD otherwise.
    #[arg(long, value_name = "FILE", visible_alias = "trace")]
    vcd: Option<PathBuf>,
}

/// A receive work queue and the buffers the host keeps posted to it.
#[derive(Clone, Debug)]
pub struct RecvQueue {
    pub wq: u16,
    pub config: WqConfig,
    /// Buffer i lies at `addr + i × size`, in the region `lkey` names.
    pub buffers: u32,
    pub size: u32,
    pub addr: u64,
    pub lkey: u32,
}

/// One NIC of a [`Job`]: the send side as `rocenic send` runs it (host memory included: every
/// send WQE and every first receive WQE in place), its receive work queues (all buffers posted
/// when the engine starts: the first receive doorbell of queue w writes `wqs[w].buffers`), the
/// QPs' receive sides, RSS contexts and steering rules.
pub struct SideJob {
    pub send: send::Job,
    pub wqs: Vec<RecvQueue>,
    pub receivers: Vec<Receiver>,
    pub contexts: Vec<ContextPlan>,
    pub rules: Vec<Rule>,
}

/// The engine `rocenic sim` runs without `--engine`: the co-simulated cores when the binary has
/// them, else the model (a build for a machine without Verilator).
const DEFAULT_ENGINE: &str = if cfg!(feature = "rtl") {
    "rtl"
} else {
    "model"
};

/// What `rocenic sim` runs: NIC a and NIC b. Every engine starts from exactly this.
pub struct Job {
    pub sides: [SideJob; 2],
    /// The most turns the run may take (each turn serves a work request on each side or moves
    /// a frame or a completion); more means the NICs do not settle.
    pub limit: u64,
    /// `[link]`: a lossy wire, and the reliable transport on both NICs.
    pub link: Option<link::Link>,
}

/// A doorbell the host rings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doorbell {
    /// The send completion ring's consumer index.
    SendCq(u32),
    /// A work queue's completion ring's consumer index.
    RecvCq(u16, u32),
    /// A work queue's producer index: buffers posted.
    Post(u16, u32),
}

/// What the engine reports besides what the host saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// Each NIC's receive counters: frames taken, and discarded by reason.
    pub counts: [Counts; 2],
    /// Clock cycles the run took (the co-simulated core); `None` for the model.
    pub cycles: Option<u64>,
    /// Turns of the run loop.
    pub turns: u64,
    /// Each NIC's reliable transport, when the job has a `[link]`.
    pub rc: Option<[link::Transport; 2]>,
}

/// Runs a [`Job`]; the engines implement it.
pub trait Unit {
    /// Whether the engine runs `scenario` (checked, before any output is created): the error
    /// names the first table it cannot run (the cores: `[link]`).
    fn accepts(&self, _scenario: &scenario::Scenario) -> Result<(), ScenarioError> {
        Ok(())
    }

    /// Programs both NICs as `job` says, rings every send doorbell and the first receive
    /// doorbells, and runs them joined by a wire (frames in order each way) until both are
    /// idle: every frame to `host.frame` as it enters the wire, `host.ran` for every work
    /// request served, `host.poll` when `host.poll_due` says or when the NICs wait on the host,
    /// its doorbells rung. Fails when the run has not settled within `job.limit` turns (the
    /// RTL: a bound in cycles derived from it). `vcd` asks for a waveform (the RTL only).
    fn run(&mut self, job: Job, vcd: Option<&Path>, host: &mut Host) -> Result<Report, Failure>;
}

pub fn run(args: Args) -> Outcome {
    let mut unit = args.engine.sim()?;
    if args.vcd.is_some() && args.engine != Engine::Rtl {
        return Err(Failure(
            "--vcd traces the RTL's signals; it needs --engine rtl".into(),
        ));
    }
    let started = Instant::now();
    let (name, text) = match &args.scenario {
        Some(path) => {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure(format!("cannot read {name}: {e}")))?;
            (name, text)
        }
        None => (
            "docs/examples/sim.toml (built in)".to_string(),
            DEFAULT.to_string(),
        ),
    };
    let scenario = scenario::parse(&text).map_err(|e| Failure(e.render(&name)))?;
    let plans = check::check(&scenario).map_err(|e| Failure(e.render(&name)))?;
    let link = link::check(&scenario).map_err(|e| Failure(e.render(&name)))?;
    unit.accepts(&scenario)
        .map_err(|e| Failure(e.render(&name)))?;
    let mut limit = plans
        .iter()
        .map(|p| {
            let buffers: u64 = p.wqs.iter().map(|w| u64::from(w.buffers)).sum();
            p.frames + p.requests + buffers
        })
        .sum::<u64>()
        * 4
        + 1024;
    if let Some(l) = link {
        // Resends, and each loss's recovery: up to a timeout per resend allowed.
        let r = l.reliable;
        limit = limit * 8 + (1u64 << r.timeout) * (u64::from(r.retry_cnt) + 1) * 64;
    }
    let mut job = layout::lay_out(plans, limit);
    job.link = link;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| Failure(format!("cannot create {}: {e}", args.out.display())))?;
    let format = if args.pcapng {
        Format::PcapNg
    } else {
        Format::Pcap
    };
    let pcap_path = args.out.join(match format {
        Format::PcapNg => "run.pcapng",
        Format::Pcap => "run.pcap",
    });
    let csv_path = args.out.join("completions.csv");
    let map_path = args.out.join("qp-map.csv");
    let qp_map = summary::qp_map(&job);
    let wqs = summary::queue_names(&job);
    let (report, wire, rows) = Output::run(Some(&pcap_path), |out| {
        let mut pcap = FrameWriter::new(out, LinkType::Ethernet, format)?;
        let mut frames = 0u64;
        let mut tap = |_side: usize, f: &[u8]| {
            let ts = microsecond_apart(frames);
            frames += 1;
            pcap.write_record(ts, f)
        };
        let mut host = Host::new(&job, args.seed, &mut tap);
        let report = unit.run(job, args.vcd.as_deref(), &mut host);
        host.finish();
        let report = report?;
        let (wire, rows) = (host.wire.clone(), std::mem::take(&mut host.rows));
        drop(host);
        pcap.finish()?;
        // Inside the frames' run, so the pcap appears only if the CSVs are written too.
        Output::run(Some(&csv_path), |csv| Ok(summary::completions(csv, &rows)?))?;
        Output::run(Some(&map_path), |csv| {
            Ok(summary::write_qp_map(csv, &qp_map)?)
        })?;
        Ok((report, wire, rows))
    })?;
    let elapsed = started.elapsed();
    let text = summary::summary(&summary::Run {
        scenario: &name,
        seed: args.seed,
        engine: &args.engine,
        report: &report,
        wire: &wire,
        rows: &rows,
        wqs: &wqs,
    });
    print!("{text}");
    println!(
        "wrote {} ({} frames), {} ({} rows) and {}",
        pcap_path.display(),
        wire[0].frames + wire[1].frames,
        csv_path.display(),
        rows.len(),
        map_path.display()
    );
    eprintln!(
        "rocenic sim: {} turns in {:.2} s",
        report.turns,
        elapsed.as_secs_f64()
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run that has not settled within its bound stops with a message saying what was left.
    #[test]
    fn a_run_that_does_not_settle_stops() {
        let plans = check::check(&scenario::parse(DEFAULT).unwrap()).unwrap();
        let job = layout::lay_out(plans, 3);
        let mut tap = |_: usize, _: &[u8]| Ok(());
        let mut host = Host::new(&job, 1, &mut tap);
        let Err(Failure(why)) = Engine::Model.sim().unwrap().run(job, None, &mut host) else {
            panic!("three turns cannot run the default mix");
        };
        assert!(
            why.starts_with("the run did not settle within 3 turns") && why.contains("nic b: "),
            "{why}"
        );
    }

    /// The built-in scenario is the documented example, word for word.
    #[test]
    fn the_default_is_the_example() {
        assert_eq!(DEFAULT, include_str!("../../docs/examples/sim.toml"));
    }
}
