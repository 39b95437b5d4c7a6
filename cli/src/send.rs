//! `rocenic send --scenario FILE.toml --output FRAMES.pcap`: a scenario of host memory, memory
//! regions, QPs and work requests (docs/scenario.md) run through the send engine; its frames go
//! to an Ethernet pcap and its completions to a CSV.
//!
//! The file is read (`send/scenario.rs`), checked and encoded (`send/check.rs`) and laid out in
//! host memory (`send/layout.rs`) before any output is created, so a scenario error leaves no
//! file behind. The engine then runs the job: each QP's doorbell is rung once with its final
//! producer index and the engine is stepped until it is idle. Frame n of the run is stamped n
//! microseconds, whatever the engine, so every engine writes the same bytes.

pub mod check;
mod completions;
pub mod layout;
pub mod scenario;

use crate::engine::{parse_engine, Engine};
use crate::output::Output;
use crate::pcapio::{microsecond_apart, Format, FrameWriter};
use crate::{Failure, Outcome};
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{MemoryRegion, QpConfig};
use rocenic_model::wire::LinkType;
use rocenic_model::wqe::{Cqe, HostMemory, Nic, Ring, SendRing};
use std::io;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The scenario: a TOML file of [nic], [[memory]], [[mr]], [[qp]] and [[wr]] tables
    /// (docs/scenario.md).
    #[arg(long)]
    scenario: PathBuf,
    /// Where to write the frames (Ethernet pcap, frame n stamped n microseconds); written only
    /// if the run completes.
    #[arg(long, short)]
    output: PathBuf,
    /// Where to write the completions (CSV wr_id,qpn,status,opcode,byte_len), in the order the
    /// engine wrote them.
    #[arg(long)]
    completions: Option<PathBuf>,
    /// Implementation to run: model, or rtl (the co-simulated WQE engine, not yet built).
    #[arg(long, default_value = "model", value_parser = parse_engine)]
    engine: Engine,
    /// With --engine rtl: write the co-simulation's waveforms to FILE: FST if it ends in .fst
    /// (GTKWave's and Surfer's compressed format), VCD otherwise.
    #[arg(long, value_name = "FILE", visible_alias = "trace")]
    vcd: Option<PathBuf>,
}

/// One QP's send queue: its configuration, its ring with the WQEs already in host memory, and
/// the producer index its one doorbell writes.
pub struct SendQueue {
    pub qpn: u32,
    pub config: QpConfig,
    /// Its own transport attributes (none but with the reliable transport).
    pub transport: rocenic_model::rc::QpTransport,
    pub ring: SendRing,
    pub producer: u32,
}

/// What `rocenic send` runs: the engine's configuration and the host memory it reads, with
/// every WQE in place. Every engine starts from exactly this.
pub struct Job {
    pub nic: Nic,
    pub profile: Profile,
    /// Registered in this order.
    pub mrs: Vec<MemoryRegion>,
    /// Created, brought to RTS and attached in this order (the order of service).
    pub queues: Vec<SendQueue>,
    /// The completion ring, at `cq_base`, indices from 0.
    pub cq: Ring,
    pub cq_base: u64,
    pub memory: HostMemory,
}

/// Where an engine puts each frame as it leaves.
pub type Frames<'a> = dyn FnMut(&[u8]) -> io::Result<()> + 'a;

/// Runs a [`Job`]; the engines implement it.
pub trait Unit {
    /// Rings every doorbell and runs the engine until it is idle: each frame to `frame` in the
    /// order it leaves, and the completions returned in the order they were written to the
    /// completion ring. When the ring fills (only past 2^16 requests), every completion in it
    /// has been read, and the runner releases them all with the ring's consumer doorbell.
    /// `vcd` asks for a waveform trace (the RTL only).
    fn run(
        &mut self,
        job: Job,
        vcd: Option<&Path>,
        frame: &mut Frames,
    ) -> Result<Vec<Cqe>, Failure>;
}

pub fn run(args: Args) -> Outcome {
    let mut unit = args.engine.send()?;
    if args.vcd.is_some() && args.engine != Engine::Rtl {
        return Err(Failure(
            "--vcd traces the RTL's signals; it needs --engine rtl".into(),
        ));
    }
    let stdout = |p: &Path| p.as_os_str() == "-";
    if args.completions.as_deref().is_some_and(stdout) && stdout(&args.output) {
        return Err(Failure(
            "--output and --completions cannot both be standard output".into(),
        ));
    }
    let name = args.scenario.display().to_string();
    let text = std::fs::read_to_string(&args.scenario)
        .map_err(|e| Failure(format!("cannot read {name}: {e}")))?;
    let scenario = scenario::parse(&text).map_err(|e| Failure(e.render(&name)))?;
    let plan = check::check(&scenario).map_err(|e| Failure(e.render(&name)))?;
    let job = layout::lay_out(plan);
    let (frames, bytes, cqes) = Output::run(Some(&args.output), |out| {
        let mut pcap = FrameWriter::new(out, LinkType::Ethernet, Format::of(&args.output))?;
        let (mut frames, mut bytes) = (0u64, 0u64);
        let cqes = unit.run(job, args.vcd.as_deref(), &mut |f: &[u8]| {
            let ts = microsecond_apart(frames);
            frames += 1;
            bytes += f.len() as u64;
            pcap.write_record(ts, f)
        })?;
        pcap.finish()?;
        // Inside the frames' run, so the pcap appears only if the completions are written too.
        if let Some(path) = &args.completions {
            Output::run(Some(path), |cq| Ok(completions::write(cq, &cqes)?))?;
        }
        Ok((frames, bytes, cqes))
    })?;
    eprintln!(
        "rocenic send: {}",
        completions::summary(frames, bytes, &cqes)
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frames and completions (phase bits cleared) of the error example, run with a
    /// completion ring of `2^cq_log2` entries, or the one `lay_out` sizes.
    fn run_errors(cq_log2: Option<u32>) -> (Vec<Vec<u8>>, Vec<Cqe>) {
        let text = include_str!("../../docs/examples/send_errors.toml");
        let plan = check::check(&scenario::parse(text).unwrap()).unwrap();
        let mut job = layout::lay_out(plan);
        if let Some(k) = cq_log2 {
            job.cq = Ring::new(k).unwrap();
        }
        let mut frames = Vec::new();
        let cqes = Engine::Model
            .send()
            .unwrap()
            .run(job, None, &mut |f: &[u8]| {
                frames.push(f.to_vec());
                Ok(())
            })
            .unwrap();
        let cqes = cqes
            .into_iter()
            .map(|c| Cqe { phase: false, ..c })
            .collect();
        (frames, cqes)
    }

    /// A completion ring that fills (past 2^16 requests) is consumed as it fills and changes
    /// nothing in the run.
    #[test]
    fn a_full_completion_ring_is_consumed_without_changing_the_run() {
        let (frames, cqes) = run_errors(None);
        assert_eq!((frames.len(), cqes.len()), (13, 16));
        for k in [0, 1, 2, 3] {
            assert_eq!(
                run_errors(Some(k)),
                (frames.clone(), cqes.clone()),
                "ring 2^{k}"
            );
        }
    }
}
