//! `--engine rtl`: the commands' RTL units, co-simulated cycle by cycle (the `rtl` feature).

mod sim;

use super::Width;
use crate::tso::{Emit, Job as TsoJob, Refusal};
use crate::{entropy, rss, tso, Failure};
use rocenic_firmware::rss::ContextConfig;
use rocenic_model::entropy::{Entropy, Profile, Request};
use rocenic_model::rss::regs::KEY_BYTES;
use rocenic_model::rss::Meta;
use rocenic_sim::duts::{RssPipeline512, RssPipeline64};
use rocenic_sim::entropy::{EntropyRtl, Error as EntropyError};
use rocenic_sim::rss::pipeline::{ContextRun, RTL_TABLE_LOG2};
use rocenic_sim::tso::{Send, Status, Traffic, Tso512Rtl, Tso64Rtl};

/// The co-simulation; each unit is built on first use and kept for the next batches.
#[derive(Default)]
pub struct Rtl {
    entropy: Option<EntropyRtl>,
    rss: Option<RssRun>,
    tso64: Option<Tso64Rtl>,
    tso512: Option<Tso512Rtl>,
}

/// The RSS pipeline of the width a job asks for, its context loaded.
enum RssRun {
    W64(ContextRun<RssPipeline64>),
    W512(ContextRun<RssPipeline512>),
}

impl RssRun {
    fn new(job: &rss::Job) -> Result<Self, Failure> {
        if job.contexts.is_empty() {
            return Err(Failure(
                "RTL engine: the RTL needs an RSS context (an [[rss]] table) for the frames no \
                 rule takes"
                    .into(),
            ));
        }
        for (i, c) in job.contexts.iter().enumerate() {
            if c.key.len() > KEY_BYTES {
                return Err(Failure(format!(
                    "context {i}: the RTL holds keys of up to {KEY_BYTES} bytes"
                )));
            }
            if c.table.len() > 1 << RTL_TABLE_LOG2 {
                return Err(Failure(format!(
                    "context {i}: the RTL's tables hold up to {} entries",
                    1 << RTL_TABLE_LOG2
                )));
            }
        }
        let contexts: Vec<(ContextConfig, &[u16])> = job
            .contexts
            .iter()
            .map(|c| {
                let config = ContextConfig {
                    function: c.context.function,
                    fields: c.context.fields,
                    key: &c.key,
                };
                (config, &c.table[..])
            })
            .collect();
        let failed = |e: String| Failure(format!("RTL engine: {e}"));
        let run = "rocenic_rss";
        Ok(match job.width {
            Width::W64 => {
                RssRun::W64(ContextRun::new(run, job.link, &contexts, job.rules).map_err(failed)?)
            }
            Width::W512 => {
                RssRun::W512(ContextRun::new(run, job.link, &contexts, job.rules).map_err(failed)?)
            }
        })
    }
}

impl entropy::Unit for Rtl {
    fn compute(
        &mut self,
        profile: Profile,
        batch: &[Request],
        lines: &[u64],
    ) -> Result<Vec<Entropy>, Failure> {
        let rtl = self
            .entropy
            .get_or_insert_with(|| EntropyRtl::new("rocenic_entropy"));
        let requests: Vec<(Profile, Request)> = batch.iter().map(|r| (profile, *r)).collect();
        rtl.compute(&requests).map_err(|e| match e {
            EntropyError::QpnTooWide { index, qpn } => Failure(format!(
                "line {}: QPN {qpn:#x} is wider than the 24 bits of the wire (the RTL takes 24-bit QPNs)",
                lines[index]
            )),
            other => Failure(format!("RTL engine: {other}")),
        })
    }
}

impl rss::Unit for Rtl {
    /// The RSS pipeline, its context registers loaded from the job's context and key.
    fn start(&mut self, job: &rss::Job) -> Result<(), Failure> {
        self.rss = Some(RssRun::new(job)?);
        Ok(())
    }

    fn metas(
        &mut self,
        _job: &rss::Job,
        _first: u64,
        frames: &[&[u8]],
    ) -> Result<Vec<Meta>, Failure> {
        let run = self.rss.as_mut().expect("rss::run starts the unit first");
        match run {
            RssRun::W64(r) => r.metas(frames),
            RssRun::W512(r) => r.metas(frames),
        }
        .map_err(|e| Failure(format!("RTL engine: {e}")))
    }
}

impl tso::Unit for Rtl {
    /// The segments from the RTL: the host side splits each frame where its TCP header ends (the
    /// descriptor's header length), the unit does the rest.
    fn segments(
        &mut self,
        job: &TsoJob,
        first: u64,
        packets: &[&[u8]],
        emit: &mut Emit,
    ) -> Result<(), Refusal> {
        // A frame the host cannot split never reaches the unit; the ones before it still run, so
        // that the first bad packet is the one reported, as with the model.
        let mut sends = Vec::with_capacity(packets.len());
        let mut host_error = None;
        for (index, p) in (first..).zip(packets) {
            match Send::from_frame(job.link, p, job.mss) {
                Ok(s) => sends.push(s),
                Err(e) => {
                    host_error = Some((Some(index), e.to_string()));
                    break;
                }
            }
        }
        let run = match job.width {
            Width::W64 => self
                .tso64
                .get_or_insert_with(|| Tso64Rtl::new("rocenic_tso"))
                .run(&sends, Traffic::FULL_RATE),
            Width::W512 => self
                .tso512
                .get_or_insert_with(|| Tso512Rtl::new("rocenic_tso"))
                .run(&sends, Traffic::FULL_RATE),
        };
        let outcome = run.map_err(|e| (None, format!("RTL engine: {e}")))?;
        let mut flat = outcome.segments.into_iter();
        for (i, (status, count)) in outcome.statuses.into_iter().enumerate() {
            if status != Status::Ok {
                return Err((
                    Some(first + i as u64),
                    format!("the RTL refused the send: {status}"),
                ));
            }
            for segment in flat.by_ref().take(count as usize) {
                emit(i, &segment)?;
            }
        }
        match host_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl crate::send::Unit for Rtl {
    /// The co-simulated WQE engine (`rtl/wqe/wqe_engine.sv`): programmed through its registers,
    /// host memory served without delay, every doorbell rung, run until every WQE retired;
    /// the completions read back from the completion ring in index order.
    fn run(
        &mut self,
        job: crate::send::Job,
        vcd: Option<&std::path::Path>,
        frame: &mut crate::send::Frames,
    ) -> Result<Vec<rocenic_model::wqe::Cqe>, Failure> {
        use rocenic_model::wqe::{Cqe, Memory, CQE_BYTES};
        use rocenic_sim::wqe::engine::{run, Load, Queue, Setup};
        let posted: u64 = job.queues.iter().map(|q| u64::from(q.producer)).sum();
        if posted > u64::from(job.cq.entries()) {
            return Err(Failure(format!(
                "--engine rtl: {posted} requests do not fit one lap of the completion ring \
                 ({} entries); the RTL run does not consume completions midway",
                job.cq.entries()
            )));
        }
        let setup = Setup {
            nic: job.nic,
            profile: job.profile,
            mrs: job.mrs.clone(),
            queues: job
                .queues
                .iter()
                .map(|q| Queue {
                    qpn: q.qpn,
                    config: q.config,
                    ring: q.ring,
                    producer: q.producer,
                })
                .collect(),
            cq: (job.cq_base, job.cq.log2()),
            memory: job.memory,
            acks: Vec::new(),
            slot_by_qpn: false,
            parked: Vec::new(),
        };
        // Generous: every WQE, packet and beat many times over.
        let bytes: u64 = setup.memory.regions().map(|(_, r)| r.len() as u64).sum();
        let limit = 1_000_000 + 64 * posted + bytes / 2;
        let out = run(&setup, &Load::ideal(), 1, limit, vcd).map_err(Failure)?;
        for f in &out.frames {
            frame(f).map_err(|e| Failure(format!("cannot write the frames: {e}")))?;
        }
        let mut cqes = Vec::new();
        for i in 0..job.cq.entries() {
            let mut b = [0u8; CQE_BYTES];
            out.memory
                .read(job.cq_base + u64::from(i) * CQE_BYTES as u64, &mut b)
                .map_err(|e| Failure(format!("completion ring: {e}")))?;
            // First lap: a written entry has phase 1; the first 0 ends them.
            if b[CQE_BYTES - 1] & 1 == 0 {
                break;
            }
            cqes.push(Cqe::decode(&b).map_err(|e| Failure(format!("completion {i}: {e}")))?);
        }
        Ok(cqes)
    }
}
