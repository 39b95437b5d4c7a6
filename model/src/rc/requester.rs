//! The requester's per-QP state (docs/rc.md, "Requester"): which packet to send next, what an
//! acknowledgement completes, and when to go back.
//!
//! Three PSNs describe the send queue's packets: `una`, the oldest not yet acknowledged;
//! `snd`, the next to put on the wire; `nxt`, one past the last posted. `hi` is one past the
//! furthest ever sent, so an acknowledgement for a PSN never sent is recognised and ignored.
//! Posted work requests sit in a fixed table of `W` entries (each its first PSN and packet
//! count), oldest first, until their completion is polled.
//!
//! - Sending: `snd` moves towards `nxt` while at most `max_inflight` packets are unacknowledged.
//!   The last packet of a message asks for an acknowledgement (AckReq), and so does the packet
//!   that fills the window: otherwise a coalescing responder could leave the window shut
//!   until the timeout.
//! - An ACK of PSN `p` acknowledges every packet up to `p`: `una` moves to `p + 1`, and every
//!   request wholly before it completes, in order.
//! - A NAK PSN sequence error carrying `p` acknowledges up to `p - 1` and sends again from `p`
//!   (go-back-N); the same NAK again, with no progress since, is a copy and is ignored.
//! - The local ACK timeout, while packets are unacknowledged and no RNR delay runs, sends again
//!   from `una`. Timeouts and sequence NAKs share `retry_cnt`; an RNR NAK waits its delay and
//!   sends again from its PSN, counting `rnr_retry` (7: forever). Any progress refills both.
//! - A counter exhausted completes the request at `una` with `retry_exc_err` or
//!   `rnr_retry_exc_err`; a NAK invalid request, remote access or remote operational error
//!   completes the request it names with `rem_inv_req_err`, `rem_access_err` or `rem_op_err`.
//!   Either way the QP is in ERR: what was acknowledged before completes with success, the
//!   rest with `wr_flush_err`, and nothing more is sent.
//! - An RDMA READ takes one PSN per response packet but sends one request packet (from the
//!   first PSN not yet answered, on a resend). Its responses are taken only in order
//!   ([`Requester::read_match`]): each acknowledges everything before it, the last completes
//!   the READ. One out of order means responses were lost: sending goes back to the first
//!   missing one, as for a NAK sequence error. An ACK or NAK never acknowledges past a READ
//!   whose responses have not all arrived; one that would, goes back there too. At most
//!   [`MAX_RD_ATOMIC`] READs are outstanding, what the responder keeps to re-execute.

use super::timer::Scale;
use crate::qp::{Psn, Status};
use crate::wire::ib::{AethRepr, NakCode, Syndrome};

/// The default number of work requests a requester keeps outstanding.
pub const DEFAULT_WRS: usize = 16;

/// `rnr_retry` value that retries without limit.
pub const RNR_RETRY_FOREVER: u8 = 7;

/// RDMA READs a requester has outstanding at most (verbs `max_rd_atomic`), and the READs a
/// responder keeps to execute again when their request comes back (`max_dest_rd_atomic`):
/// equal, so a READ still waiting for responses is always one the responder kept.
pub const MAX_RD_ATOMIC: usize = 4;

/// Requester settings fixed when the QP moves to RTS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequesterConfig {
    /// The first PSN to send (the QP's `sq_psn`).
    pub sq_psn: Psn,
    /// Verbs `timeout` (0..=31): the local ACK timeout is 4.096 µs × 2^timeout; 0 waits forever.
    pub timeout: u8,
    /// Verbs `retry_cnt` (0..=7): resends after timeouts or sequence NAKs without progress.
    pub retry_cnt: u8,
    /// Verbs `rnr_retry` (0..=7, 7 = forever): resends after RNR NAKs without progress.
    pub rnr_retry: u8,
    /// Clock ticks per 4.096 µs.
    pub scale: Scale,
    /// Most packets sent and not yet acknowledged (at least 1, below 2^23).
    pub max_inflight: u32,
}

/// A request the requester refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostError {
    /// Every entry of the table holds a request still outstanding.
    Full,
    /// The request's packets would spread the outstanding PSNs over half the PSN space or
    /// more, where modular comparison stops working; or it has no packet.
    Span,
    /// The QP is in ERR: the caller completes the request with `wr_flush_err`.
    Error,
}

/// One packet to put on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Its PSN.
    pub psn: Psn,
    /// The request it belongs to.
    pub wr_id: u64,
    /// Which of the request's packets (0-based): the send engine builds it from the WQE.
    pub index: u32,
    /// The request's packet count.
    pub packets: u32,
    /// Set AckReq in its BTH.
    pub ack_req: bool,
    /// It was sent before (go-back-N or a timeout brought `snd` back over it).
    pub resend: bool,
}

/// What an acknowledgement did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    /// Its PSN lies outside what is outstanding (old, a copy, or never sent): ignored.
    Stale,
    /// Packets acknowledged; completions may be ready ([`Requester::poll`]).
    Progress,
    /// NAK sequence error: sending goes back to its PSN.
    GoBack(Psn),
    /// RNR NAK: sending resumes from its PSN after the delay, at this tick.
    RnrWait(u64),
    /// The QP has gone to ERR with this status for the request the acknowledgement named.
    Error(Status),
}

/// What the passage of time did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickOutcome {
    /// Nothing due.
    Idle,
    /// The local ACK timeout fired: sending goes back to this PSN (the oldest unacknowledged).
    Timeout(Psn),
    /// The RNR delay ended: sending resumes.
    RnrResume,
    /// The retry counter ran out: the QP has gone to ERR with `retry_exc_err`.
    Error(Status),
}

/// A completed request, in posting order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The request's id.
    pub wr_id: u64,
    /// How it ended.
    pub status: Status,
}

/// What the requester has counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets sent again.
    pub resent: u64,
    /// Local ACK timeouts that fired.
    pub timeouts: u64,
    /// NAK sequence errors acted on.
    pub seq_naks: u64,
    /// RNR NAKs acted on.
    pub rnr_naks: u64,
    /// READ responses out of sequence (or an acknowledgement past a READ's missing
    /// responses) that sent the READ again.
    pub read_gaps: u64,
}

/// Where a READ response's PSN stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadMatch {
    /// The response expected next: take its payload at `index` × MTU of the READ's gather
    /// list, then [`Requester::read_accept`].
    Expected {
        /// The READ's id.
        wr_id: u64,
        /// The response's index in the READ (its PSN less the READ's first).
        index: u32,
        /// The READ's PSN count: index `packets - 1` is its last response.
        packets: u32,
    },
    /// Outside what is outstanding, or not a READ's PSN, or in ERR: ignored.
    Stale,
    /// A READ's PSN, but responses before it are missing: [`Requester::read_gap`].
    OutOfSequence,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Wr {
    wr_id: u64,
    first: Psn,
    packets: u32,
    /// An RDMA READ: one request packet, a PSN per response.
    read: bool,
}

/// One QP's requester state with room for `W` outstanding requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requester<const W: usize = DEFAULT_WRS> {
    cfg: RequesterConfig,
    wrs: [Wr; W],
    head: usize,
    len: usize,
    una: Psn,
    snd: Psn,
    hi: Psn,
    nxt: Psn,
    retry_left: u8,
    rnr_left: u8,
    /// When the local ACK timeout fires, if armed.
    deadline: Option<u64>,
    /// When an RNR delay ends, if one runs.
    rnr_until: Option<u64>,
    /// The PSN of the last sequence NAK acted on, until progress.
    last_nak: Option<Psn>,
    /// ERR: the first PSN of the failed request and its status.
    failed: Option<(Psn, Status)>,
    counters: Counters,
}

impl<const W: usize> Requester<W> {
    /// A requester at `cfg.sq_psn` with nothing posted. `max_inflight` is clamped to
    /// `1..2^23`, `retry_cnt` and `rnr_retry` to 7.
    pub const fn new(cfg: RequesterConfig) -> Self {
        let max = if cfg.max_inflight == 0 {
            1
        } else if cfg.max_inflight >= Psn::HALF {
            Psn::HALF - 1
        } else {
            cfg.max_inflight
        };
        let retry = if cfg.retry_cnt > 7 { 7 } else { cfg.retry_cnt };
        let rnr = if cfg.rnr_retry > 7 { 7 } else { cfg.rnr_retry };
        Requester {
            cfg: RequesterConfig {
                max_inflight: max,
                retry_cnt: retry,
                rnr_retry: rnr,
                ..cfg
            },
            wrs: [Wr {
                wr_id: 0,
                first: Psn::from_bits_truncate(0),
                packets: 0,
                read: false,
            }; W],
            head: 0,
            len: 0,
            una: cfg.sq_psn,
            snd: cfg.sq_psn,
            hi: cfg.sq_psn,
            nxt: cfg.sq_psn,
            retry_left: retry,
            rnr_left: rnr,
            deadline: None,
            rnr_until: None,
            last_nak: None,
            failed: None,
            counters: Counters {
                resent: 0,
                timeouts: 0,
                seq_naks: 0,
                rnr_naks: 0,
                read_gaps: 0,
            },
        }
    }

    /// The settings as the rules use them (`max_inflight`, `retry_cnt` and `rnr_retry`
    /// clamped as [`Self::new`] says).
    pub const fn config(&self) -> RequesterConfig {
        self.cfg
    }

    /// The oldest unacknowledged PSN.
    pub const fn una(&self) -> Psn {
        self.una
    }

    /// The next PSN to send.
    pub const fn snd(&self) -> Psn {
        self.snd
    }

    /// One past the last posted PSN (the next request's first).
    pub const fn nxt(&self) -> Psn {
        self.nxt
    }

    /// Requests posted and not yet polled.
    pub const fn outstanding(&self) -> usize {
        self.len
    }

    /// Whether the QP is in ERR.
    pub const fn is_error(&self) -> bool {
        self.failed.is_some()
    }

    /// What has been counted.
    pub const fn counters(&self) -> Counters {
        self.counters
    }

    /// When the local ACK timeout fires, if armed.
    pub const fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// When the RNR delay ends, if one runs (sending waits for it).
    pub const fn rnr_until(&self) -> Option<u64> {
        self.rnr_until
    }

    /// Whether [`Self::send`] would give a packet now: not in ERR, no RNR delay running,
    /// something posted beyond `snd`, and the window open.
    pub fn can_send(&self) -> bool {
        self.next_wr().is_some()
    }

    /// The request holding `snd`, when sending may go on: not in ERR, no RNR delay, something
    /// posted beyond `snd`, the window open, and for a READ sent the first time, fewer than
    /// [`MAX_RD_ATOMIC`] READs outstanding.
    fn next_wr(&self) -> Option<Wr> {
        if self.failed.is_some() || self.rnr_until.is_some() || self.snd == self.nxt {
            return None;
        }
        if self.snd.distance_from(self.una) >= self.cfg.max_inflight {
            return None;
        }
        let w = self.wr(self.holding(self.snd)?);
        let fresh = !self.snd.is_before(self.hi);
        if w.read && fresh && self.reads_outstanding() >= MAX_RD_ATOMIC {
            return None;
        }
        Some(w)
    }

    /// Whether every PSN of `w` lies before `una`.
    fn acked(&self, w: &Wr) -> bool {
        let d = self.una.distance_from(w.first);
        d >= w.packets && d < Psn::HALF
    }

    /// The completion [`Self::poll`] would return, without taking it.
    pub fn peek(&self) -> Option<Completion> {
        let mut r = *self;
        r.poll()
    }

    /// A local failure (the send engine could not build the packet at `psn`, e.g. a DMA
    /// fault): the request holding it completes with `status`, the QP goes to ERR and the rest
    /// flush. Outside what is posted, the request at `una` takes it.
    pub fn abort(&mut self, psn: Psn, status: Status) {
        if self.failed.is_none() {
            let at = if self.holding(psn).is_some() {
                psn
            } else {
                self.una
            };
            self.fail(at, status);
        }
    }

    fn wr(&self, i: usize) -> Wr {
        self.wrs[(self.head + i) % W]
    }

    /// The index of the request holding `psn`, which must lie in `[una.., nxt)`.
    fn holding(&self, psn: Psn) -> Option<usize> {
        (0..self.len).find(|&i| {
            let w = self.wr(i);
            psn.distance_from(w.first) < w.packets
        })
    }

    /// Adds a request of `packets` packets (1 or more) and returns its first PSN.
    pub fn post(&mut self, wr_id: u64, packets: u32) -> Result<Psn, PostError> {
        self.post_as(wr_id, packets, false)
    }

    /// Adds an RDMA READ taking `packets` PSNs (one per response, 1 or more): one request
    /// packet is sent for it. Returns its first PSN.
    pub fn post_read(&mut self, wr_id: u64, packets: u32) -> Result<Psn, PostError> {
        self.post_as(wr_id, packets, true)
    }

    pub(super) fn post_as(
        &mut self,
        wr_id: u64,
        packets: u32,
        read: bool,
    ) -> Result<Psn, PostError> {
        if self.failed.is_some() {
            return Err(PostError::Error);
        }
        if self.len == W {
            return Err(PostError::Full);
        }
        let span = u64::from(self.nxt.distance_from(self.una)) + u64::from(packets);
        if packets == 0 || span >= u64::from(Psn::HALF) {
            return Err(PostError::Span);
        }
        let first = self.nxt;
        self.wrs[(self.head + self.len) % W] = Wr {
            wr_id,
            first,
            packets,
            read,
        };
        self.len += 1;
        self.nxt = first.add(packets);
        Ok(first)
    }

    /// The next packet to send at tick `now`, if sending may go on: not in ERR, no RNR delay
    /// running, something posted beyond `snd`, and the window open. Arms the ACK timeout.
    /// A READ's request covers its PSNs from `snd` to its end, and always asks for an
    /// acknowledgement (its responses).
    pub fn send(&mut self, now: u64) -> Option<Packet> {
        let w = self.next_wr()?;
        let inflight = self.snd.distance_from(self.una);
        let index = self.snd.distance_from(w.first);
        let resend = self.snd.is_before(self.hi);
        let p = Packet {
            psn: self.snd,
            wr_id: w.wr_id,
            index,
            packets: w.packets,
            ack_req: w.read || index + 1 == w.packets || inflight + 1 == self.cfg.max_inflight,
            resend,
        };
        self.snd = if w.read {
            w.first.add(w.packets)
        } else {
            self.snd.next()
        };
        if resend {
            self.counters.resent += 1;
        }
        if self.hi.is_before(self.snd) {
            self.hi = self.snd;
        }
        if self.deadline.is_none() {
            self.deadline = self
                .cfg
                .scale
                .ack_timeout(self.cfg.timeout)
                .map(|t| now + t);
        }
        Some(p)
    }

    /// Moves `una` to `to` (which lies in `(una, hi]`): refills the counters, forgets the last
    /// NAK, pulls `snd` along and restarts or stops the timeout.
    fn progress(&mut self, to: Psn, now: u64) {
        self.una = to;
        self.retry_left = self.cfg.retry_cnt;
        self.rnr_left = self.cfg.rnr_retry;
        self.last_nak = None;
        if self.snd.is_before(to) {
            self.snd = to;
        }
        // No timeout while nothing is in flight, or while an RNR delay holds sending back.
        self.deadline = if to == self.hi || self.rnr_until.is_some() {
            None
        } else {
            self.cfg
                .scale
                .ack_timeout(self.cfg.timeout)
                .map(|t| now + t)
        };
    }

    /// Goes to ERR with `status` for the request holding `psn`.
    fn fail(&mut self, psn: Psn, status: Status) -> Status {
        let first = self.holding(psn).map_or(psn, |i| self.wr(i).first);
        self.failed = Some((first, status));
        self.deadline = None;
        self.rnr_until = None;
        status
    }

    /// Takes an acknowledgement (BTH PSN and AETH) at tick `now`.
    pub fn receive(&mut self, psn: Psn, aeth: AethRepr, now: u64) -> AckOutcome {
        if self.failed.is_some() {
            return AckOutcome::Stale;
        }
        let sent = self.hi.distance_from(self.una);
        match aeth.syndrome {
            Syndrome::Ack { .. } => {
                // Cumulative: everything up to `psn`, but not past a READ's missing responses.
                let to = psn.next();
                let d = to.distance_from(self.una);
                if d == 0 || d > sent {
                    return AckOutcome::Stale;
                }
                let bound = self.acknowledge_to(to, now);
                if bound != to {
                    self.counters.read_gaps += 1;
                    return self.go_back(bound, now);
                }
                AckOutcome::Progress
            }
            Syndrome::RnrNak { timer } => {
                // Everything before `psn` arrived; `psn` itself found no receive WQE.
                let d = psn.distance_from(self.una);
                if d >= sent {
                    return AckOutcome::Stale;
                }
                let bound = self.acknowledge_to(psn, now);
                self.counters.rnr_naks += 1;
                if self.cfg.rnr_retry != RNR_RETRY_FOREVER {
                    if self.rnr_left == 0 {
                        return AckOutcome::Error(self.fail(psn, Status::RnrRetryExcErr));
                    }
                    self.rnr_left -= 1;
                }
                // From a READ still missing responses, if one lies before `psn`.
                self.snd = bound;
                self.deadline = None;
                let until = now + self.cfg.scale.rnr_delay(timer);
                self.rnr_until = Some(until);
                AckOutcome::RnrWait(until)
            }
            Syndrome::Nak(code) => {
                let d = psn.distance_from(self.una);
                if d >= sent {
                    return AckOutcome::Stale;
                }
                let bound = self.acknowledge_to(psn, now);
                let status = match code {
                    NakCode::PsnSequence => {
                        if self.last_nak == Some(bound) {
                            return AckOutcome::Stale;
                        }
                        self.counters.seq_naks += 1;
                        return self.go_back(bound, now);
                    }
                    NakCode::InvalidRequest => Status::RemInvReqErr,
                    NakCode::RemoteAccess => Status::RemAccessErr,
                    NakCode::RemoteOperational => Status::RemOpErr,
                    NakCode::InvalidRdRequest => Status::BadRespErr,
                };
                AckOutcome::Error(self.fail(psn, status))
            }
        }
    }

    /// Acknowledges everything before `to`, but not past a READ whose responses are missing;
    /// returns how far it went ([`Self::read_bound`]).
    fn acknowledge_to(&mut self, to: Psn, now: u64) -> Psn {
        let bound = self.read_bound(to);
        if bound != self.una {
            self.progress(bound, now);
        }
        bound
    }

    /// Sends again from `psn` (go-back-N), once per `psn` until progress, counting
    /// `retry_cnt`.
    fn go_back(&mut self, psn: Psn, now: u64) -> AckOutcome {
        if self.last_nak == Some(psn) {
            return AckOutcome::Stale;
        }
        self.last_nak = Some(psn);
        if self.retry_left == 0 {
            return AckOutcome::Error(self.fail(psn, Status::RetryExcErr));
        }
        self.retry_left -= 1;
        self.snd = psn;
        self.rnr_until = None;
        self.deadline = self
            .cfg
            .scale
            .ack_timeout(self.cfg.timeout)
            .map(|t| now + t);
        AckOutcome::GoBack(psn)
    }

    /// Lets time pass to tick `now`: ends an RNR delay, or fires the local ACK timeout.
    pub fn tick(&mut self, now: u64) -> TickOutcome {
        if self.failed.is_some() {
            return TickOutcome::Idle;
        }
        if let Some(until) = self.rnr_until {
            if now < until {
                return TickOutcome::Idle;
            }
            self.rnr_until = None;
            return TickOutcome::RnrResume;
        }
        match self.deadline {
            Some(d) if now >= d && self.una != self.hi => {
                self.counters.timeouts += 1;
                if self.retry_left == 0 {
                    return TickOutcome::Error(self.fail(self.una, Status::RetryExcErr));
                }
                self.retry_left -= 1;
                self.snd = self.una;
                self.last_nak = None;
                self.deadline = self
                    .cfg
                    .scale
                    .ack_timeout(self.cfg.timeout)
                    .map(|t| now + t);
                TickOutcome::Timeout(self.una)
            }
            _ => TickOutcome::Idle,
        }
    }

    /// The oldest request's completion, once it has one: success when all its packets are
    /// acknowledged; in ERR, the failed request's status and `wr_flush_err` for the ones after.
    pub fn poll(&mut self) -> Option<Completion> {
        if self.len == 0 {
            return None;
        }
        let w = self.wr(0);
        // Wholly before `una`; a request after `una` (behind a failed one) is a long way
        // "ahead" modulo 2^24, hence the bound.
        let d = self.una.distance_from(w.first);
        let acked = d >= w.packets && d < Psn::HALF;
        let status = match self.failed {
            _ if acked => Status::Success,
            None => return None,
            Some((first, st)) if first == w.first => st,
            Some(_) => Status::WrFlushErr,
        };
        self.head = (self.head + 1) % W;
        self.len -= 1;
        Some(Completion {
            wr_id: w.wr_id,
            status,
        })
    }
}

mod ops;
mod read;

pub use ops::{Answer, AnswerCode, Op, OpCode};

#[cfg(test)]
mod tests;
