//! The send side's host interface: each QP's send ring in host memory with its doorbell, one
//! completion ring, and the order the engine serves them (docs/wqe.md, "Scheduling").
//!
//! The engine serves the send queues round robin in the order they were attached, one WQE per
//! turn, skipping queues with nothing posted and QPs that are neither in RTS nor in ERR. A WQE
//! is started only when the completion ring has room for its completion (any WQE may need one:
//! an error completes even an unsignaled WQE). Both the model and the RTL follow this order, so
//! the frames and completions of a run are the same sequence whatever the DMA latencies.
//!
//! A WQE is fetched in two reads: its first block, whose control segment says how many blocks
//! follow, then the rest. A fetch that faults completes the WQE with `general_err` (under what
//! bytes were read), as does a `BLOCKS` of 0 or larger than the ring's stride with
//! `loc_qp_op_err`; both move the QP to ERR like any other failure.

use super::engine::{NotRun, SendEngine};
use super::reliable::{RcSend, Turn, RC_WRS};
use super::{CompletionRing, Cqe, DoorbellError, Fault, Memory, SendRing};
use super::{BLOCK_BYTES, CQE_BYTES, MAX_WQE_BYTES};
use crate::qp::{Psn, QpKind, QpState, QpTable, Status};
use crate::rc::{AckOutcome, Counters, ReadResponse, Reliable, Requester, TickOutcome};
use crate::wire::ib::AethRepr;
use core::fmt;

/// What one turn of the engine did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Nothing to do: no send queue with a posted WQE whose QP is in RTS or ERR.
    Idle,
    /// Work is posted but the completion ring is full: software must consume completions.
    CqFull,
    /// One WQE of `qpn` ran; `cqe` is the completion written (with its ring index), if any.
    Ran {
        /// The QP served.
        qpn: u32,
        /// The completion and the completion-ring index it was written at.
        cqe: Option<(u32, Cqe)>,
    },
}

/// A request the queues refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueError {
    /// Every send-queue slot is in use.
    Full,
    /// The QP already has a send queue.
    Attached(u32),
    /// The QP has no send queue.
    NotAttached(u32),
    /// A doorbell value out of range.
    Doorbell(DoorbellError),
    /// Writing a completion faulted: the completion ring is not in host memory.
    CqWrite(Fault),
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::Full => write!(f, "every send queue slot is in use"),
            QueueError::Attached(q) => write!(f, "QP 0x{q:x} already has a send queue"),
            QueueError::NotAttached(q) => write!(f, "QP 0x{q:x} has no send queue"),
            QueueError::Doorbell(e) => write!(f, "{e}"),
            QueueError::CqWrite(e) => write!(f, "writing a completion: {e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for QueueError {}

/// One QP's send queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SendQueue {
    pub(super) qpn: u32,
    pub(super) ring: SendRing,
    pub(super) doorbell: super::Doorbell,
}

/// Up to `Q` send queues and the completion ring they share.
#[derive(Clone, Debug)]
pub struct Queues<const Q: usize = { crate::qp::DEFAULT_QPS }> {
    sqs: [Option<SendQueue>; Q],
    cq: CompletionRing,
    cq_base: u64,
    next: usize,
    /// The reliable transport's switch: `None` (the default) completes an RC WQE when its
    /// frames leave, as the RTL does.
    reliable: Option<Reliable>,
    /// Each RC send queue's requester, by slot (only with the switch on).
    rc: [Option<RcSend>; Q],
    /// The requesters' clock: turns taken ([`Self::step`] calls, idle ones included).
    now: u64,
}

impl<const Q: usize> Queues<Q> {
    /// No send queues; completions go to `cq`, whose entries lie at `cq_base`.
    pub const fn new(cq: CompletionRing, cq_base: u64) -> Self {
        Queues {
            sqs: [None; Q],
            cq,
            cq_base,
            next: 0,
            reliable: None,
            rc: [None; Q],
            now: 0,
        }
    }

    /// Turns the reliable transport on (docs/rc.md) or off; either way every RC send queue's
    /// requester starts afresh (set it before traffic). With it on, an RC WQE completes when
    /// the peer acknowledges it, its packets leave as the requester allows, and lost ones are
    /// sent again; UD and raw QPs are unchanged.
    pub fn set_reliable(&mut self, reliable: Option<Reliable>) {
        self.reliable = reliable;
        self.rc = [None; Q];
    }

    /// The reliable transport's settings, `None` when off.
    pub const fn reliable(&self) -> Option<Reliable> {
        self.reliable
    }

    /// The requesters' clock: one tick per turn.
    pub const fn now(&self) -> u64 {
        self.now
    }

    /// Lets `ticks` pass without turns (a caller idling the send side).
    pub fn advance(&mut self, ticks: u64) {
        self.now += ticks;
    }

    /// QP `qpn`'s requester (with the switch on, once its send queue has taken a turn).
    pub fn requester(&self, qpn: u32) -> Option<&Requester<RC_WRS>> {
        let slot = self
            .sqs
            .iter()
            .position(|q| q.is_some_and(|q| q.qpn == qpn))?;
        self.rc[slot].as_ref().map(|r| &r.req)
    }

    /// Every requester's counters summed.
    pub fn rc_counters(&self) -> Counters {
        self.rc.iter().flatten().fold(Counters::default(), |a, r| {
            let c = r.req.counters();
            Counters {
                resent: a.resent + c.resent,
                timeouts: a.timeouts + c.timeouts,
                seq_naks: a.seq_naks + c.seq_naks,
                rnr_naks: a.rnr_naks + c.rnr_naks,
                read_gaps: a.read_gaps + c.read_gaps,
            }
        })
    }

    /// An acknowledgement for QP `qpn` (an ACK frame's destination), at the current tick:
    /// `None` when the QP has no requester. A failure it reports moves the QP to ERR.
    pub fn acknowledge<const QT: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        qpn: u32,
        psn: Psn,
        aeth: AethRepr,
    ) -> Option<AckOutcome> {
        let slot = self
            .sqs
            .iter()
            .position(|q| q.is_some_and(|q| q.qpn == qpn))?;
        let r = self.rc[slot].as_mut()?;
        let out = r.req.receive(psn, aeth, self.now);
        if let AckOutcome::Error(_) = out {
            if let Some(qp) = qps.get_mut(qpn) {
                qp.set_error();
            }
        }
        Some(out)
    }

    /// A READ response for QP `qpn` (the frame's destination), at the current tick: landed in
    /// its READ's gather list in `mem` when it is the one expected ([`RcSend::read_response`]).
    /// `None` when the QP has no requester.
    pub fn read_response<const QT: usize, const M: usize>(
        &mut self,
        engine: &mut SendEngine<QT, M>,
        mem: &mut impl Memory,
        r: &ReadResponse<'_>,
    ) -> Option<AckOutcome> {
        let slot = self
            .sqs
            .iter()
            .position(|q| q.is_some_and(|q| q.qpn == r.dest_qpn))?;
        let sq = self.sqs[slot]?;
        let rc = self.rc[slot].as_mut()?;
        Some(rc.read_response(&sq, engine, mem, r, self.now))
    }

    /// Gives each RC send queue a requester (from its QP's next PSN) and lets its timers run:
    /// a QP moved to ERR elsewhere (software, the receive side) flushes what its requester
    /// holds; a retry counter run out moves the QP to ERR.
    fn rc_tick<const QT: usize, const M: usize>(&mut self, engine: &mut SendEngine<QT, M>) {
        let Some(rel) = self.reliable else { return };
        for (sq, rc) in self.sqs.iter().zip(self.rc.iter_mut()) {
            let Some(sq) = sq else { continue };
            let Some(qp) = engine.qps.get_mut(sq.qpn) else {
                continue;
            };
            if qp.config().qp_type != QpKind::Rc {
                continue;
            }
            let rel = rel.for_qp(qp.transport());
            let r =
                rc.get_or_insert_with(|| RcSend::new(Requester::new(rel.requester(qp.next_psn()))));
            if qp.state() == QpState::Err {
                if !r.req.is_error() && r.req.outstanding() > 0 {
                    r.req.abort(r.req.una(), Status::WrFlushErr);
                }
            } else if let TickOutcome::Error(_) = r.req.tick(self.now) {
                qp.set_error();
            }
        }
    }

    /// Gives QP `qpn` the send ring `ring`, its indices starting at `start`; returns its slot
    /// (the order of service).
    pub fn attach(&mut self, qpn: u32, ring: SendRing, start: u32) -> Result<usize, QueueError> {
        if self.sqs.iter().flatten().any(|s| s.qpn == qpn) {
            return Err(QueueError::Attached(qpn));
        }
        let slot = self
            .sqs
            .iter()
            .position(Option::is_none)
            .ok_or(QueueError::Full)?;
        self.sqs[slot] = Some(SendQueue {
            qpn,
            ring,
            doorbell: super::Doorbell::new(ring.ring(), start),
        });
        self.rc[slot] = None;
        Ok(slot)
    }

    /// Gives QP `qpn` the send ring `ring` in slot `slot` (the RTL's slots: a register block
    /// writes a QP into the slot software names, and the round robin follows slot order), its
    /// indices starting at `start`. A QP already in another slot is refused; the slot's
    /// previous queue, if any, is replaced.
    pub fn attach_at(
        &mut self,
        slot: usize,
        qpn: u32,
        ring: SendRing,
        start: u32,
    ) -> Result<(), QueueError> {
        if self
            .sqs
            .iter()
            .enumerate()
            .any(|(s, q)| s != slot && q.is_some_and(|q| q.qpn == qpn))
        {
            return Err(QueueError::Attached(qpn));
        }
        *self.sqs.get_mut(slot).ok_or(QueueError::Full)? = Some(SendQueue {
            qpn,
            ring,
            doorbell: super::Doorbell::new(ring.ring(), start),
        });
        self.rc[slot] = None;
        Ok(())
    }

    /// Takes QP `qpn`'s send queue away; returns its slot.
    pub fn detach(&mut self, qpn: u32) -> Result<usize, QueueError> {
        let slot = self
            .sqs
            .iter()
            .position(|q| q.is_some_and(|q| q.qpn == qpn))
            .ok_or(QueueError::NotAttached(qpn))?;
        self.sqs[slot] = None;
        self.rc[slot] = None;
        Ok(slot)
    }

    /// Replaces the completion ring and where its entries lie (a register block's `CQ_BASE`
    /// and `CQ_LOG2`, written while the engine is stopped).
    pub fn set_completion_ring(&mut self, cq: CompletionRing, cq_base: u64) {
        self.cq = cq;
        self.cq_base = cq_base;
    }

    /// A send doorbell: QP `qpn`'s producer index is now `producer`; returns the WQEs it adds.
    pub fn doorbell(&mut self, qpn: u32, producer: u32) -> Result<u32, QueueError> {
        let sq = self
            .sqs
            .iter_mut()
            .flatten()
            .find(|s| s.qpn == qpn)
            .ok_or(QueueError::NotAttached(qpn))?;
        sq.doorbell.write(producer).map_err(QueueError::Doorbell)
    }

    /// A completion doorbell: software has consumed up to `consumer`; returns the entries freed.
    pub fn cq_doorbell(&mut self, consumer: u32) -> Result<u32, QueueError> {
        self.cq
            .write_consumer(consumer)
            .map_err(QueueError::Doorbell)
    }

    /// The completion ring.
    pub const fn cq(&self) -> &CompletionRing {
        &self.cq
    }

    /// WQEs posted to `qpn` and not yet taken, `None` without a send queue.
    pub fn pending(&self, qpn: u32) -> Option<u32> {
        self.sqs
            .iter()
            .flatten()
            .find(|s| s.qpn == qpn)
            .map(|s| s.doorbell.pending())
    }

    /// One turn: picks the next send queue with work, runs its oldest WQE through `engine`
    /// (frames to `frame`) and writes its completion, if any, to the completion ring.
    pub fn step<const M: usize>(
        &mut self,
        engine: &mut SendEngine<Q, M>,
        mem: &mut impl Memory,
        frame: &mut impl FnMut(&[u8]),
    ) -> Result<Step, QueueError> {
        self.now += 1;
        self.rc_tick(engine);
        let Some(slot) = (0..Q).map(|k| (self.next + k) % Q).find(|&s| {
            self.sqs[s].is_some_and(|sq| {
                let state = engine.qps.get(sq.qpn).map(|qp| qp.state());
                match &self.rc[s] {
                    Some(r) => state.is_some_and(|st| r.ready(st, sq.doorbell.pending())),
                    None => {
                        sq.doorbell.pending() > 0
                            && matches!(state, Some(QpState::Rts | QpState::Err))
                    }
                }
            })
        }) else {
            return Ok(Step::Idle);
        };
        if self.cq.used() >= self.cq.ring().entries() {
            return Ok(Step::CqFull);
        }
        self.next = (slot + 1) % Q;
        let now = self.now;
        if let (Some(r), Some(sq)) = (self.rc[slot].as_mut(), self.sqs[slot].as_mut()) {
            let qpn = sq.qpn;
            if let Turn::Done(c) = r.turn(sq, engine, mem, now, frame) {
                let cqe = match c {
                    Some(c) => Some(self.write(mem, c)?),
                    None => None,
                };
                return Ok(Step::Ran { qpn, cqe });
            }
        }
        let read = self.reliable.is_some();
        let sq = self.sqs[slot].as_mut().expect("found above");
        let qpn = sq.qpn;
        let index = sq.doorbell.take().expect("pending above");
        let addr = sq.ring.addr(index);
        let stride = sq.ring.stride_blocks() as usize;
        let mut wqe = [0u8; MAX_WQE_BYTES];
        let cqe = match fetch(mem, addr, stride, &mut wqe) {
            Ok(n) => engine.execute_as(qpn, &wqe[..n], mem, frame, read),
            Err((status, n)) => engine.fail_as(qpn, &wqe[..n], status, read).map(Some),
        }
        .unwrap_or_else(|e: NotRun| unreachable!("eligible QP refused: {e:?}"));
        let cqe = match cqe {
            Some(c) => Some(self.write(mem, c)?),
            None => None,
        };
        Ok(Step::Ran { qpn, cqe })
    }

    /// Writes `c` at the completion ring's next entry with that entry's phase.
    fn write(&mut self, mem: &mut impl Memory, mut c: Cqe) -> Result<(u32, Cqe), QueueError> {
        let (i, phase) = self.cq.push().expect("room checked before the WQE started");
        c.phase = phase;
        let mut b = [0u8; CQE_BYTES];
        c.encode(&mut b)
            .expect("QPNs in the table are 24-bit, the CQE fields fit");
        let at = self.cq_base + u64::from(self.cq.ring().slot(i)) * CQE_BYTES as u64;
        mem.write(at, &b).map_err(QueueError::CqWrite)?;
        Ok((i, c))
    }
}

/// Reads the WQE at `addr` into `out`: its first block, then the rest its `BLOCKS` names.
/// Returns its length, or the status and the bytes read so far.
pub fn fetch(
    mem: &impl Memory,
    addr: u64,
    stride: usize,
    out: &mut [u8; MAX_WQE_BYTES],
) -> Result<usize, (Status, usize)> {
    mem.read(addr, &mut out[..BLOCK_BYTES])
        .map_err(|_| (Status::GeneralErr, 0))?;
    let blocks = usize::from(out[super::layout::control::BLOCKS.offset]);
    if blocks == 0 || blocks > stride {
        return Err((Status::LocQpOpErr, BLOCK_BYTES));
    }
    let n = blocks * BLOCK_BYTES;
    if n > BLOCK_BYTES {
        mem.read(addr + BLOCK_BYTES as u64, &mut out[BLOCK_BYTES..n])
            .map_err(|_| (Status::GeneralErr, BLOCK_BYTES))?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wqe::Ring;

    #[test]
    fn slots_named_by_software() {
        let cq = CompletionRing::new(Ring::new(2).unwrap(), 0).unwrap();
        let mut q = Queues::<4>::new(cq, 0x1000);
        let ring = SendRing::new(Ring::new(1).unwrap(), 0, 0x2000).unwrap();
        q.attach_at(3, 0x13, ring, 0).unwrap();
        q.attach_at(1, 0x11, ring, 0).unwrap();
        assert_eq!(
            q.attach_at(2, 0x13, ring, 0),
            Err(QueueError::Attached(0x13))
        );
        assert_eq!(q.attach_at(4, 0x14, ring, 0), Err(QueueError::Full));
        // The same slot may be written again (the RTL's QP_WRITE over a slot).
        q.attach_at(3, 0x13, ring, 0).unwrap();
        assert_eq!(q.doorbell(0x13, 2), Ok(2));
        assert_eq!(q.detach(0x13), Ok(3));
        assert_eq!(q.detach(0x13), Err(QueueError::NotAttached(0x13)));
        assert_eq!(q.pending(0x11), Some(0));
        let big = CompletionRing::new(Ring::new(4).unwrap(), 0).unwrap();
        q.set_completion_ring(big, 0x8000);
        assert_eq!(q.cq().ring().entries(), 16);
    }
}
