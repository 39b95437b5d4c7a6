//! `rocenic sim --engine model`: two `model::nic::NicModel`s joined by a wire.
//!
//! Each turn: NIC a's send side serves one work request, then NIC b's (their frames enter the
//! wire in that order, which is the pcap's); the wire delivers a few frames each way, in order,
//! each through the receiving NIC's `receive` (the RSS verdict, then the receive engine); a NIC
//! with nothing arriving runs a flush step; and when its turn comes the host polls the
//! completion rings and rings its doorbells. The run ends when a turn finds both send sides
//! idle, the wire empty, nothing to flush and nothing for the host, or fails when it has not
//! within the job's bound.

use super::{send_side, Model, Order};
use crate::sim::{self, Doorbell, Host, Report, SideJob};
use crate::Failure;
use rocenic_model::nic::NicModel;
use rocenic_model::rc::Reliable;
use rocenic_model::rx::{Discard, WqState};
use rocenic_model::wqe::{HostMemory, Step};
use std::collections::VecDeque;

/// A NIC of the model, programmed as a side of the job says, with the reliable transport when
/// the job has a `[link]`.
fn nic(side: &SideJob, reliable: Option<Reliable>) -> Result<NicModel, Failure> {
    let bug = |what: &str, e: &dyn std::fmt::Debug| Failure(format!("{what}: {e:?}"));
    let (send, queues) = send_side(&side.send, Order::Slots)?;
    let mut nic: NicModel = NicModel::new(send, queues);
    nic.set_reliable(reliable);
    for q in &side.wqs {
        nic.rx
            .create_wq(q.wq, q.config)
            .map_err(|e| bug("create wq", &e))?;
        nic.rx
            .modify_wq(q.wq, WqState::Ready)
            .map_err(|e| bug("modify wq", &e))?;
        nic.rx.post(q.wq, q.buffers).map_err(|e| bug("post", &e))?;
    }
    for r in &side.receivers {
        nic.rx
            .attach(&nic.send.qps, r.qpn, r.target, r.epsn)
            .map_err(|e| bug("attach", &e))?;
    }
    for (i, c) in side.contexts.iter().enumerate() {
        nic.steering
            .set_context(i, c.function, c.fields, &c.key, &c.table)
            .map_err(|e| bug("RSS context", &e))?;
    }
    for (i, r) in side.rules.iter().enumerate() {
        nic.steering
            .set_rule(i, *r)
            .map_err(|e| bug("steering rule", &e))?;
    }
    for q in &side.send.queues {
        nic.queues.doorbell(q.qpn, q.producer)?;
    }
    Ok(nic)
}

/// A host's doorbell, written to the NIC.
fn ring(nic: &mut NicModel, bell: Doorbell) -> Result<(), Failure> {
    match bell {
        Doorbell::SendCq(c) => nic.queues.cq_doorbell(c).map(drop)?,
        Doorbell::RecvCq(w, c) => nic.rx.cq_doorbell(w, c).map(drop)?,
        Doorbell::Post(w, p) => nic.rx.post(w, p).map(drop)?,
    }
    Ok(())
}

impl sim::Unit for Model {
    fn run(
        &mut self,
        job: sim::Job,
        _vcd: Option<&std::path::Path>,
        host: &mut Host,
    ) -> Result<Report, Failure> {
        let reliable = job.link.map(|l| l.reliable);
        let mut nics = [nic(&job.sides[0], reliable)?, nic(&job.sides[1], reliable)?];
        let qpns: [Vec<u32>; 2] = job
            .sides
            .each_ref()
            .map(|s| s.send.queues.iter().map(|q| q.qpn).collect());
        let [a, b] = job.sides;
        let mut mems: [HostMemory; 2] = [a.send.memory, b.send.memory];
        // wire[s]: the frames NIC s sent that NIC 1 - s has not taken yet.
        let mut wire: [VecDeque<Vec<u8>>; 2] = Default::default();
        for turn in 0..job.limit {
            let mut busy = false;
            for s in 0..2 {
                let mut failed = None;
                let step = nics[s].send_step(&mut mems[s], &mut |f: &[u8]| {
                    if failed.is_none() {
                        failed = host.frame(s, f).err();
                    }
                    wire[s].push_back(f.to_vec());
                })?;
                if let Some(e) = failed {
                    return Err(e);
                }
                match step {
                    Step::Idle => {}
                    Step::Ran { .. } => {
                        host.ran(s);
                        busy = true;
                    }
                    // The host has not read its send completions yet: it does so now.
                    Step::CqFull => {
                        for bell in host.poll(s, &mut mems[s])? {
                            ring(&mut nics[s], bell)?;
                            busy = true;
                        }
                    }
                }
            }
            for s in 0..2 {
                for _ in 0..host.deliveries() {
                    let Some(f) = wire[s].pop_front() else { break };
                    // The link may lose, corrupt or duplicate it (`[link]`). A discard is
                    // counted by the NIC (Report::counts); the frame is gone.
                    for f in host.carry(s, f) {
                        let _ = nics[1 - s].receive(&mut mems[1 - s], &f);
                    }
                    busy = true;
                }
            }
            for s in 0..2 {
                if wire[1 - s].is_empty() {
                    match nics[s].flush(&mut mems[s]) {
                        Ok(Some(_)) => busy = true,
                        Ok(None) => {}
                        // A flushed completion host memory refused: the queue stopped.
                        Err(Discard::Fault) => busy = true,
                        Err(d) => return Err(Failure(format!("flush: {d}"))),
                    }
                }
            }
            // A requester with packets not yet acknowledged waits for an ACK or its timeout
            // (`[link]`): the run goes on.
            busy |= (0..2).any(|s| awaiting(&nics[s], &qpns[s]));
            let settled = !busy && wire.iter().all(VecDeque::is_empty);
            if settled || host.poll_due() {
                for s in 0..2 {
                    for bell in host.poll(s, &mut mems[s])? {
                        ring(&mut nics[s], bell)?;
                        busy = true;
                    }
                }
            }
            if !busy && wire.iter().all(VecDeque::is_empty) {
                return Ok(Report {
                    counts: [*nics[0].rx.counts(), *nics[1].rx.counts()],
                    cycles: None,
                    turns: turn + 1,
                    rc: reliable.map(|_| {
                        nics.each_ref().map(|n| crate::sim::Transport {
                            nic: n.rc_counts(),
                            requesters: n.queues.rc_counters(),
                        })
                    }),
                });
            }
        }
        let left = |s: usize| left(&nics[s], &qpns[s], &wire[s], sim::scenario::SIDES[s]);
        Err(Failure(format!(
            "the run did not settle within {} turns (the bound the scenario implies): {}; {}",
            job.limit,
            left(0),
            left(1)
        )))
    }
}

/// Whether one of the NIC's requesters (the reliable transport) has packets in flight.
fn awaiting(nic: &NicModel, qpns: &[u32]) -> bool {
    qpns.iter().any(|&q| {
        nic.queues
            .requester(q)
            .is_some_and(|r| !r.is_error() && r.outstanding() > 0)
    })
}

/// What NIC `name` still had to do when the run was stopped.
fn left(nic: &NicModel, qpns: &[u32], wire: &VecDeque<Vec<u8>>, name: &str) -> String {
    let posted: u32 = qpns.iter().filter_map(|&q| nic.queues.pending(q)).sum();
    format!(
        "nic {name}: {posted} work request(s) not served, {} frame(s) from it on the wire, {} \
         send completion(s) unread",
        wire.len(),
        nic.queues.cq().used()
    )
}
