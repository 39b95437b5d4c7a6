//! The send side of the reliable transport (docs/rc.md, "Joined to the engines"), used when
//! [`crate::rc::Reliable`] is on: each RC send queue holds a [`Requester`], WQEs are posted to
//! it under their ring index, packets are built one at a time as it names them (a resend reads
//! the WQE and its data from host memory again), and a WQE completes when the requester
//! releases it, acknowledged or failed, in posting order.
//!
//! One turn of an RC send queue does, in this order: write one completion the requester has
//! released (or a WQE that failed its checks, once everything before it has completed); take
//! the next posted WQE, check it and post it to the requester; send one packet. A QP in ERR
//! with nothing outstanding flushes the rest of its ring as without the switch.
//!
//! An RDMA READ is posted with a PSN per response; its responses come in from the receive
//! side ([`RcSend::read_response`]) and land in its gather list, read again from its slot.

use super::engine::{RcWqe, SendEngine};
use super::queues::{fetch, SendQueue};
use super::{Cqe, Memory, MAX_WQE_BYTES};
use crate::qp::{QpState, Status};
use crate::rc::{AckOutcome, ReadMatch, ReadResponse, Requester, DEFAULT_WRS};
use crate::wire::ib::opcode as op;

/// Work requests an RC send queue keeps outstanding (acknowledged or not, not yet completed).
pub const RC_WRS: usize = DEFAULT_WRS;

/// An RC send queue's reliable state: the requester, and for each request it holds (in the
/// same order) the completion due on success.
#[derive(Clone, Copy, Debug)]
pub(super) struct RcSend {
    pub(super) req: Requester<RC_WRS>,
    wrs: [Option<RcWqe>; RC_WRS],
    head: usize,
    /// A WQE that failed its checks: completed (and the QP moved to ERR) once nothing before
    /// it is outstanding, so completions stay in posting order.
    held: Option<Cqe>,
}

/// What a turn leaves to the queues.
pub(super) enum Turn {
    /// The turn is done; write this completion, if any.
    Done(Option<Cqe>),
    /// The QP is in ERR with nothing outstanding: flush the next WQE as without the switch.
    Flush,
}

impl RcSend {
    pub(super) const fn new(req: Requester<RC_WRS>) -> RcSend {
        RcSend {
            req,
            wrs: [None; RC_WRS],
            head: 0,
            held: None,
        }
    }

    /// Whether a turn has something to do for a QP in `state` with `pending` WQEs posted.
    pub(super) fn ready(&self, state: QpState, pending: u32) -> bool {
        let idle = self.req.outstanding() == 0;
        match state {
            QpState::Rts => {
                self.req.peek().is_some()
                    || (self.held.is_some() && idle)
                    || (self.held.is_none() && pending > 0 && self.req.outstanding() < RC_WRS)
                    || self.req.can_send()
            }
            QpState::Err => {
                self.req.peek().is_some() || (self.held.is_some() && idle) || (idle && pending > 0)
            }
            _ => false,
        }
    }

    /// The completion due for the request `poll` just released with `status`.
    fn pop(&mut self, status: Status) -> Option<Cqe> {
        let w = self.wrs[self.head]
            .take()
            .expect("one entry per posted request");
        self.head = (self.head + 1) % RC_WRS;
        match status {
            Status::Success => w.signaled.then_some(w.cqe),
            s => Some(Cqe {
                status: s,
                byte_len: 0,
                ..w.cqe
            }),
        }
    }

    /// The held failure, when nothing is outstanding any more: the QP goes to ERR.
    fn release_held<const Q: usize, const M: usize>(
        &mut self,
        qpn: u32,
        engine: &mut SendEngine<Q, M>,
    ) -> Option<Cqe> {
        if self.req.outstanding() > 0 {
            return None;
        }
        let c = self.held.take()?;
        if let Some(qp) = engine.qps.get_mut(qpn) {
            qp.set_error();
        }
        Some(c)
    }

    /// One turn of send queue `sq` at tick `now` (see the module's order).
    pub(super) fn turn<const Q: usize, const M: usize>(
        &mut self,
        sq: &mut SendQueue,
        engine: &mut SendEngine<Q, M>,
        mem: &impl Memory,
        now: u64,
        frame: &mut impl FnMut(&[u8]),
    ) -> Turn {
        let qpn = sq.qpn;
        if let Some(c) = self.req.poll() {
            return Turn::Done(self.pop(c.status));
        }
        if let Some(c) = self.release_held(qpn, engine) {
            return Turn::Done(Some(c));
        }
        let state = engine.qps.get(qpn).map_or(QpState::Err, |q| q.state());
        if state == QpState::Err {
            return Turn::Flush;
        }
        let stride = sq.ring.stride_blocks() as usize;
        let mut wqe = [0u8; MAX_WQE_BYTES];
        if self.held.is_none() && self.req.outstanding() < RC_WRS && sq.doorbell.pending() > 0 {
            let index = sq.doorbell.take().expect("pending above");
            match engine.rc_fetch_prepare(qpn, mem, sq.ring.addr(index), stride, true) {
                Ok(w) => match if w.read {
                    self.req.post_read(u64::from(index), w.packets)
                } else {
                    self.req.post(u64::from(index), w.packets)
                } {
                    Ok(_) => {
                        let at = (self.head + self.req.outstanding() - 1) % RC_WRS;
                        self.wrs[at] = Some(w);
                    }
                    // A message spanning half the PSN space cannot be acknowledged safely.
                    Err(_) => {
                        self.held = Some(Cqe {
                            status: Status::LocLenErr,
                            byte_len: 0,
                            ..w.cqe
                        })
                    }
                },
                Err(c) => self.held = Some(c),
            }
            if let Some(c) = self.release_held(qpn, engine) {
                return Turn::Done(Some(c));
            }
        }
        if let Some(pkt) = self.req.send(now) {
            // The WQE is still in its slot: the slot is not reused before its completion.
            let index = pkt.wr_id as u32;
            let sent = match fetch(mem, sq.ring.addr(index), stride, &mut wqe) {
                Ok(n) => engine.rc_packet(qpn, &wqe[..n], &pkt, mem, frame),
                Err((status, _)) => Err(status),
            };
            if let Err(status) = sent {
                self.req.abort(pkt.psn, status);
                if let Some(qp) = engine.qps.get_mut(qpn) {
                    qp.set_error();
                }
            }
        }
        Turn::Done(None)
    }

    /// A READ response for this queue at tick `now`: taken in order and landed in its READ's
    /// gather list (the last one completes the READ), or, out of order, the READ sent again
    /// from the first missing response. A response whose opcode or length does not fit its
    /// place is ignored; a landing that fails completes the READ with its status (ERR).
    pub(super) fn read_response<const Q: usize, const M: usize>(
        &mut self,
        sq: &SendQueue,
        engine: &mut SendEngine<Q, M>,
        mem: &mut impl Memory,
        r: &ReadResponse<'_>,
        now: u64,
    ) -> AckOutcome {
        let (wr_id, index, packets) = match self.req.read_match(r.psn) {
            ReadMatch::Stale => return AckOutcome::Stale,
            ReadMatch::OutOfSequence => return self.req.read_gap(r.psn, now),
            ReadMatch::Expected {
                wr_id,
                index,
                packets,
            } => (wr_id, index, packets),
        };
        let ends = matches!(
            r.opcode,
            op::RC_RDMA_READ_RESPONSE_LAST | op::RC_RDMA_READ_RESPONSE_ONLY
        );
        if ends != (index + 1 == packets) {
            return AckOutcome::Stale;
        }
        let stride = sq.ring.stride_blocks() as usize;
        let mut wqe = [0u8; MAX_WQE_BYTES];
        let landed = match fetch(mem, sq.ring.addr(wr_id as u32), stride, &mut wqe) {
            Ok(n) => engine.rc_read_land(sq.qpn, &wqe[..n], index, r.payload, mem),
            Err((status, _)) => Err(status),
        };
        match landed {
            Ok(true) => self.req.read_accept(r.psn, now),
            Ok(false) => AckOutcome::Stale,
            Err(status) => {
                self.req.abort(r.psn, status);
                if let Some(qp) = engine.qps.get_mut(sq.qpn) {
                    qp.set_error();
                }
                AckOutcome::Error(status)
            }
        }
    }
}
