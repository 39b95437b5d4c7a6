//! `--engine model`: every command's results from the reference model.

mod sim;

use crate::tso::{Emit, Job as TsoJob, Refusal};
use crate::{entropy, rss, send, toeplitz, tso, Failure};
use rocenic_model::entropy::{Entropy, Profile, Request};
use rocenic_model::qp::DEFAULT_QPS;
use rocenic_model::rss::{classify, distribute, Meta};
use rocenic_model::rx::qp_slot;
use rocenic_model::toeplitz::Toeplitz;
use rocenic_model::tso::{Limits, Segmenter};
use rocenic_model::wqe::{CompletionRing, Cqe, Queues, SendEngine, Step};
use std::path::Path;

/// The model; it keeps the last Toeplitz key's table, since rows usually share one key.
#[derive(Default)]
pub struct Model {
    toeplitz: Option<(Vec<u8>, Toeplitz)>,
}

impl entropy::Unit for Model {
    fn compute(
        &mut self,
        profile: Profile,
        batch: &[Request],
        _lines: &[u64],
    ) -> Result<Vec<Entropy>, Failure> {
        Ok(batch.iter().map(|r| profile.compute(r)).collect())
    }
}

impl rss::Unit for Model {
    /// Every packet through the model's parser, steering, hash and table.
    fn metas(
        &mut self,
        job: &rss::Job,
        _first: u64,
        frames: &[&[u8]],
    ) -> Result<Vec<Meta>, Failure> {
        let views = job.views();
        Ok(frames
            .iter()
            .map(|f| distribute(&classify(job.link, f), job.rules, &views))
            .collect())
    }
}

impl tso::Unit for Model {
    /// The segments of every packet, each emitted as it is written.
    fn segments(
        &mut self,
        job: &TsoJob,
        first: u64,
        packets: &[&[u8]],
        emit: &mut Emit,
    ) -> Result<(), Refusal> {
        let mut buf = Vec::new();
        for (i, (index, packet)) in (first..).zip(packets).enumerate() {
            let refuse = |e: rocenic_model::tso::Error| (Some(index), e.to_string());
            let s =
                Segmenter::from_frame(job.link, packet, usize::from(job.mss), Limits::default())
                    .map_err(refuse)?;
            for n in 0..s.segment_count() {
                buf.resize(s.segment_len(n).map_err(refuse)?, 0);
                let len = s.write_segment(n, &mut buf).map_err(refuse)?;
                emit(i, &buf[..len])?;
            }
        }
        Ok(())
    }
}

impl toeplitz::Unit for Model {
    fn hash(&mut self, key: &[u8], data: &[u8]) -> Result<u32, toeplitz::Bad> {
        // Precompute the key only when it changes.
        if self
            .toeplitz
            .as_ref()
            .is_none_or(|(cached, _)| cached != key)
        {
            let hasher = toeplitz::hasher_for(key).map_err(toeplitz::Bad::Key)?;
            self.toeplitz = Some((key.to_vec(), hasher));
        }
        let (_, hasher) = self.toeplitz.as_ref().expect("filled above");
        hasher
            .hash(data)
            .map_err(|e| toeplitz::Bad::Input(e.to_string()))
    }
}

impl send::Unit for Model {
    /// `model::wqe`'s engine and queues, stepped until idle.
    fn run(
        &mut self,
        job: send::Job,
        _vcd: Option<&Path>,
        frame: &mut send::Frames,
    ) -> Result<Vec<Cqe>, Failure> {
        let (mut engine, mut queues) = send_side(&job, Order::Listed)?;
        for q in &job.queues {
            queues.doorbell(q.qpn, q.producer)?;
        }
        let mut memory = job.memory;
        let mut cqes = Vec::new();
        loop {
            // The engine's frame sink cannot fail; the first write error stops the run after
            // the step that met it.
            let mut failed = None;
            let step = queues.step(&mut engine, &mut memory, &mut |f: &[u8]| {
                if failed.is_none() {
                    failed = frame(f).err();
                }
            })?;
            if let Some(e) = failed {
                return Err(Failure(format!("cannot write the frames: {e}")));
            }
            match step {
                Step::Idle => return Ok(cqes),
                // Software's part: it has read every completion written (they are in `cqes`)
                // and hands the ring back. The order of service does not change meanwhile.
                Step::CqFull => {
                    queues.cq_doorbell(queues.cq().producer())?;
                }
                Step::Ran { cqe, .. } => cqes.extend(cqe.map(|(_, c)| c)),
            }
        }
    }
}

/// Which send queue the engine serves first, and next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// The job's order: `rocenic send`'s, whose RTL run writes the QPs into slots 0, 1, ...
    Listed,
    /// The QPs' slots, their QPN's low bits: the NIC's (`rocenic sim`), where the firmware
    /// writes each QP into the slot its QPN names and the engine's round robin follows them.
    Slots,
}

/// The send side of a send job: the engine with every region registered and every QP created,
/// brought to RTS and given its send ring, in `order` (the order of service). No doorbell is
/// rung yet.
fn send_side(job: &send::Job, order: Order) -> Result<(SendEngine, Queues), Failure> {
    // The scenario was checked against these tables' limits; a refusal here is a bug.
    let bug = |what: &str, e: &dyn std::fmt::Debug| Failure(format!("{what}: {e:?}"));
    let mut engine: SendEngine = SendEngine::new(job.nic, job.profile);
    // Raw-packet QPs and the segmenter, as the RTL engine's default build has them (CAPS.RAW,
    // CAPS.TSO).
    engine.qps.set_raw(true);
    engine.tso = Some(Limits::default());
    for mr in &job.mrs {
        engine.mrs.register(*mr).map_err(|e| bug("register", &e))?;
    }
    let cq = CompletionRing::new(job.cq, 0).expect("index 0 starts an even lap");
    let mut queues: Queues = Queues::new(cq, job.cq_base);
    for q in &job.queues {
        engine
            .qps
            .create(q.qpn, q.config)
            .map_err(|e| bug("create", &e))?;
        engine
            .qps
            .bring_up(q.qpn)
            .map_err(|e| bug("bring up", &e))?;
        let qp = engine.qps.get_mut(q.qpn).expect("created above");
        if !qp.set_transport(q.transport) {
            return Err(bug("transport attributes", &"out of range"));
        }
        match order {
            Order::Listed => {
                queues.attach(q.qpn, q.ring, 0)?;
            }
            // The scenario's check gave each QP a slot of its own.
            Order::Slots => queues.attach_at(qp_slot(q.qpn, DEFAULT_QPS), q.qpn, q.ring, 0)?,
        }
    }
    Ok((engine, queues))
}
