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

    /// READs whose request has been sent and whose responses have not all arrived.
    fn reads_outstanding(&self) -> usize {
        (0..self.len)
            .map(|i| self.wr(i))
            .filter(|w| w.read && w.first.is_before(self.hi) && !self.acked(w))
            .count()
    }

    /// Whether every PSN of `w` lies before `una`.
    fn acked(&self, w: &Wr) -> bool {
        let d = self.una.distance_from(w.first);
        d >= w.packets && d < Psn::HALF
    }

    /// The first PSN in `[una, to)` held by a READ whose responses have not arrived (`to`
    /// when there is none): how far an acknowledgement up to `to` may go.
    fn read_bound(&self, to: Psn) -> Psn {
        let span = to.distance_from(self.una);
        for i in 0..self.len {
            let w = self.wr(i);
            if !w.read || self.acked(&w) {
                continue;
            }
            // `una` inside the READ: its responses before `una` have arrived.
            let start = if self.una.distance_from(w.first) < w.packets {
                0
            } else {
                w.first.distance_from(self.una)
            };
            if start < span {
                return self.una.add(start);
            }
            // Requests are in PSN order: nothing further can start before `to`.
            break;
        }
        to
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

    fn post_as(&mut self, wr_id: u64, packets: u32, read: bool) -> Result<Psn, PostError> {
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
                let bound = self.read_bound(to);
                if bound != self.una {
                    self.progress(bound, now);
                }
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
                let bound = self.read_bound(psn);
                if bound != self.una {
                    self.progress(bound, now);
                }
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
                let bound = self.read_bound(psn);
                if bound != self.una {
                    self.progress(bound, now);
                }
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

    /// Where the READ response with PSN `psn` stands (nothing changes).
    pub fn read_match(&self, psn: Psn) -> ReadMatch {
        if self.failed.is_some() || psn.distance_from(self.una) >= self.hi.distance_from(self.una) {
            return ReadMatch::Stale;
        }
        let Some(w) = self.holding(psn).map(|i| self.wr(i)) else {
            return ReadMatch::Stale;
        };
        if !w.read {
            return ReadMatch::Stale;
        }
        if self.read_bound(psn) != psn {
            return ReadMatch::OutOfSequence;
        }
        ReadMatch::Expected {
            wr_id: w.wr_id,
            index: psn.distance_from(w.first),
            packets: w.packets,
        }
    }

    /// Takes the expected READ response `psn` (its payload has landed): everything up to it is
    /// acknowledged; on the READ's last response the READ completes.
    pub fn read_accept(&mut self, psn: Psn, now: u64) -> AckOutcome {
        match self.read_match(psn) {
            ReadMatch::Expected { .. } => {
                self.progress(psn.next(), now);
                AckOutcome::Progress
            }
            _ => AckOutcome::Stale,
        }
    }

    /// A READ response `psn` out of sequence: what came before the first missing response is
    /// acknowledged, and sending goes back to it (once, until progress).
    pub fn read_gap(&mut self, psn: Psn, now: u64) -> AckOutcome {
        if self.read_match(psn) != ReadMatch::OutOfSequence {
            return AckOutcome::Stale;
        }
        let bound = self.read_bound(psn);
        if bound != self.una {
            self.progress(bound, now);
        }
        if self.last_nak == Some(bound) {
            return AckOutcome::Stale;
        }
        self.counters.read_gaps += 1;
        self.go_back(bound, now)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ib::CREDITS_UNLIMITED;

    fn psn(v: u32) -> Psn {
        Psn::new(v).unwrap()
    }

    fn cfg(sq_psn: u32) -> RequesterConfig {
        RequesterConfig {
            sq_psn: psn(sq_psn),
            timeout: 3,
            retry_cnt: 2,
            rnr_retry: 1,
            scale: Scale(10),
            max_inflight: 8,
        }
    }

    /// Timeout 3 at 10 ticks per unit.
    const RTO: u64 = 80;

    fn ack(p: u32) -> (Psn, AethRepr) {
        (
            psn(p),
            AethRepr {
                syndrome: Syndrome::Ack {
                    credits: CREDITS_UNLIMITED,
                },
                msn: 0,
            },
        )
    }

    fn nak(p: u32, syndrome: Syndrome) -> (Psn, AethRepr) {
        (psn(p), AethRepr { syndrome, msn: 0 })
    }

    fn rx<const W: usize>(r: &mut Requester<W>, (p, a): (Psn, AethRepr), now: u64) -> AckOutcome {
        r.receive(p, a, now)
    }

    /// Sends everything the window allows; returns the PSNs.
    fn drain<const W: usize>(r: &mut Requester<W>, now: u64, out: &mut [u32]) -> usize {
        let mut n = 0;
        while let Some(p) = r.send(now) {
            out[n] = p.psn.get();
            n += 1;
        }
        n
    }

    fn polled<const W: usize>(r: &mut Requester<W>, out: &mut [(u64, Status)]) -> usize {
        let mut n = 0;
        while let Some(c) = r.poll() {
            out[n] = (c.wr_id, c.status);
            n += 1;
        }
        n
    }

    #[test]
    fn packets_carry_their_request_and_ack_req_on_the_last() {
        let mut r: Requester = Requester::new(cfg(100));
        assert_eq!(r.post(1, 3), Ok(psn(100)));
        assert_eq!(r.post(2, 1), Ok(psn(103)));
        let p: [Packet; 4] = core::array::from_fn(|_| r.send(0).unwrap());
        assert_eq!(r.send(0), None);
        assert_eq!(
            p.map(|p| (p.psn.get(), p.wr_id, p.index, p.ack_req)),
            [
                (100, 1, 0, false),
                (101, 1, 1, false),
                (102, 1, 2, true),
                (103, 2, 0, true)
            ]
        );
        assert!(p.iter().all(|p| !p.resend));
        assert_eq!(r.deadline(), Some(RTO));
    }

    #[test]
    fn the_window_bounds_what_is_in_flight_and_asks_for_an_ack_when_full() {
        let mut r: Requester = Requester::new(RequesterConfig {
            max_inflight: 4,
            ..cfg(0)
        });
        r.post(7, 10).unwrap();
        // The fourth packet fills the window: it asks for an ACK though not a message's last.
        let flags: [bool; 4] = core::array::from_fn(|_| r.send(0).unwrap().ack_req);
        assert_eq!(flags, [false, false, false, true]);
        assert_eq!(r.send(0), None);
        let mut got = [0u32; 10];
        // An ACK of PSN 1 opens two more.
        assert_eq!(rx(&mut r, ack(1), 5), AckOutcome::Progress);
        assert_eq!(drain(&mut r, 5, &mut got), 2);
        assert_eq!(got[..2], [4, 5]);
        assert_eq!(r.poll(), None, "the request is not wholly acknowledged");
    }

    #[test]
    fn acks_are_cumulative_and_complete_in_order() {
        let mut r: Requester = Requester::new(cfg(50));
        for (id, n) in [(1, 2), (2, 1), (3, 3)] {
            r.post(id, n).unwrap();
        }
        let mut sent = [0u32; 8];
        assert_eq!(drain(&mut r, 0, &mut sent), 6);
        // An ACK of 52 acknowledges 50..=52: requests 1 and 2.
        assert_eq!(rx(&mut r, ack(52), 10), AckOutcome::Progress);
        let mut c = [(0, Status::GeneralErr); 4];
        assert_eq!(polled(&mut r, &mut c), 2);
        assert_eq!(c[..2], [(1, Status::Success), (2, Status::Success)]);
        // An old ACK and one for a PSN never sent are ignored.
        assert_eq!(rx(&mut r, ack(51), 11), AckOutcome::Stale);
        assert_eq!(rx(&mut r, ack(52), 11), AckOutcome::Stale);
        assert_eq!(rx(&mut r, ack(56), 11), AckOutcome::Stale);
        assert_eq!(r.una().get(), 53);
        assert_eq!(rx(&mut r, ack(55), 12), AckOutcome::Progress);
        assert_eq!(
            r.poll(),
            Some(Completion {
                wr_id: 3,
                status: Status::Success
            })
        );
        assert_eq!((r.outstanding(), r.deadline()), (0, None));
    }

    #[test]
    fn nak_sequence_goes_back_to_its_psn_once() {
        let mut r: Requester = Requester::new(cfg(10));
        r.post(1, 2).unwrap();
        r.post(2, 3).unwrap();
        let mut sent = [0u32; 8];
        drain(&mut r, 0, &mut sent);
        // 12 was lost: the responder expects it.
        let seq = Syndrome::Nak(NakCode::PsnSequence);
        assert_eq!(rx(&mut r, nak(12, seq), 5), AckOutcome::GoBack(psn(12)));
        // The NAK acknowledged 10 and 11: request 1 completes.
        assert_eq!(
            r.poll(),
            Some(Completion {
                wr_id: 1,
                status: Status::Success
            })
        );
        let p = r.send(6).unwrap();
        assert_eq!((p.psn.get(), p.wr_id, p.index, p.resend), (12, 2, 0, true));
        // A copy of the same NAK changes nothing.
        assert_eq!(rx(&mut r, nak(12, seq), 7), AckOutcome::Stale);
        assert_eq!(r.snd().get(), 13);
        assert_eq!(drain(&mut r, 8, &mut sent), 2);
        assert_eq!(r.counters().resent, 3);
        assert_eq!(r.counters().seq_naks, 1);
        assert_eq!(rx(&mut r, ack(14), 9), AckOutcome::Progress);
        assert_eq!(
            r.poll(),
            Some(Completion {
                wr_id: 2,
                status: Status::Success
            })
        );
    }

    #[test]
    fn timeout_resends_from_the_oldest_unacknowledged() {
        let mut r: Requester = Requester::new(cfg(0));
        r.post(1, 3).unwrap();
        let mut sent = [0u32; 8];
        drain(&mut r, 0, &mut sent);
        assert_eq!(rx(&mut r, ack(0), 20), AckOutcome::Progress);
        // Progress restarted the timer at 20.
        assert_eq!(r.tick(20 + RTO - 1), TickOutcome::Idle);
        assert_eq!(r.tick(20 + RTO), TickOutcome::Timeout(psn(1)));
        assert_eq!(r.counters().timeouts, 1);
        assert_eq!(drain(&mut r, 20 + RTO, &mut sent), 2);
        assert_eq!(sent[..2], [1, 2]);
        // A lost ACK: the resend is re-acknowledged and everything completes.
        assert_eq!(rx(&mut r, ack(2), 200), AckOutcome::Progress);
        assert_eq!(r.poll().map(|c| c.status), Some(Status::Success));
        // Nothing in flight: no timeout.
        assert_eq!(r.tick(10_000), TickOutcome::Idle);
    }

    #[test]
    fn retry_exhaustion_fails_the_request_and_flushes_the_rest() {
        let mut r: Requester = Requester::new(cfg(0));
        r.post(1, 1).unwrap();
        r.post(2, 2).unwrap();
        r.post(3, 1).unwrap();
        let mut sent = [0u32; 8];
        drain(&mut r, 0, &mut sent);
        assert_eq!(rx(&mut r, ack(0), 0), AckOutcome::Progress);
        let mut now = 0;
        // retry_cnt 2: two timeouts resend, the third gives up.
        for _ in 0..2 {
            now += RTO;
            assert_eq!(r.tick(now), TickOutcome::Timeout(psn(1)));
            drain(&mut r, now, &mut sent);
        }
        now += RTO;
        assert_eq!(r.tick(now), TickOutcome::Error(Status::RetryExcErr));
        assert!(r.is_error());
        assert_eq!(r.send(now), None);
        assert_eq!(r.post(4, 1), Err(PostError::Error));
        assert_eq!(rx(&mut r, ack(3), now), AckOutcome::Stale);
        let mut c = [(0, Status::GeneralErr); 4];
        assert_eq!(polled(&mut r, &mut c), 3);
        assert_eq!(
            c[..3],
            [
                (1, Status::Success),
                (2, Status::RetryExcErr),
                (3, Status::WrFlushErr)
            ]
        );
    }

    #[test]
    fn sequence_naks_count_against_retry_cnt_until_progress() {
        let mut r: Requester = Requester::new(RequesterConfig {
            retry_cnt: 1,
            ..cfg(0)
        });
        r.post(1, 4).unwrap();
        let mut sent = [0u32; 8];
        drain(&mut r, 0, &mut sent);
        let seq = Syndrome::Nak(NakCode::PsnSequence);
        assert_eq!(rx(&mut r, nak(1, seq), 1), AckOutcome::GoBack(psn(1)));
        drain(&mut r, 1, &mut sent);
        // Progress (2 arrived) refills the counter: the NAK at 2 is a fresh one.
        assert_eq!(rx(&mut r, nak(2, seq), 2), AckOutcome::GoBack(psn(2)));
        drain(&mut r, 2, &mut sent);
        // Timeout without progress: the counter is spent.
        assert_eq!(r.tick(2 + RTO), TickOutcome::Error(Status::RetryExcErr));
        assert_eq!(r.poll().map(|c| c.status), Some(Status::RetryExcErr));
    }

    #[test]
    fn rnr_waits_its_delay_then_resends_and_counts_rnr_retry() {
        let mut r: Requester = Requester::new(cfg(0));
        r.post(1, 1).unwrap();
        r.post(2, 1).unwrap();
        let mut sent = [0u32; 8];
        drain(&mut r, 0, &mut sent);
        // Code 1 is 10 µs: 10_000 ns at 10 ticks per 4096 ns is 25 ticks (rounded up).
        let rnr = Syndrome::RnrNak { timer: 1 };
        assert_eq!(rx(&mut r, nak(0, rnr), 100), AckOutcome::RnrWait(125));
        assert_eq!(r.send(110), None, "held back by the delay");
        assert_eq!(r.tick(124), TickOutcome::Idle);
        // No ACK timeout while waiting, however long the delay.
        assert_eq!(r.deadline(), None);
        assert_eq!(r.tick(125), TickOutcome::RnrResume);
        assert_eq!(
            r.send(125).map(|p| (p.psn.get(), p.resend)),
            Some((0, true))
        );
        // rnr_retry 1: the second RNR NAK without progress gives up.
        assert_eq!(
            rx(&mut r, nak(0, rnr), 130),
            AckOutcome::Error(Status::RnrRetryExcErr)
        );
        let mut c = [(0, Status::GeneralErr); 2];
        assert_eq!(polled(&mut r, &mut c), 2);
        assert_eq!(c, [(1, Status::RnrRetryExcErr), (2, Status::WrFlushErr)]);
        assert_eq!(r.counters().rnr_naks, 2);
    }

    #[test]
    fn rnr_retry_7_is_forever() {
        let mut r: Requester = Requester::new(RequesterConfig {
            rnr_retry: RNR_RETRY_FOREVER,
            ..cfg(0)
        });
        r.post(1, 1).unwrap();
        let rnr = Syndrome::RnrNak { timer: 1 };
        let mut now = 0;
        for _ in 0..100 {
            assert_eq!(r.send(now).map(|p| p.psn.get()), Some(0));
            assert!(matches!(
                rx(&mut r, nak(0, rnr), now),
                AckOutcome::RnrWait(_)
            ));
            now += 25;
            assert_eq!(r.tick(now), TickOutcome::RnrResume);
        }
        r.send(now).unwrap();
        assert_eq!(rx(&mut r, ack(0), now), AckOutcome::Progress);
        assert_eq!(r.poll().map(|c| c.status), Some(Status::Success));
    }

    #[test]
    fn remote_naks_complete_the_named_request_with_their_status() {
        for (code, st) in [
            (NakCode::InvalidRequest, Status::RemInvReqErr),
            (NakCode::RemoteAccess, Status::RemAccessErr),
            (NakCode::RemoteOperational, Status::RemOpErr),
            (NakCode::InvalidRdRequest, Status::BadRespErr),
        ] {
            let mut r: Requester = Requester::new(cfg(0));
            r.post(1, 2).unwrap();
            r.post(2, 2).unwrap();
            r.post(3, 1).unwrap();
            let mut sent = [0u32; 8];
            drain(&mut r, 0, &mut sent);
            // PSN 3 is request 2's second packet: request 1 and the first of 2 arrived.
            assert_eq!(
                rx(&mut r, nak(3, Syndrome::Nak(code)), 1),
                AckOutcome::Error(st)
            );
            let mut c = [(0, Status::GeneralErr); 3];
            assert_eq!(polled(&mut r, &mut c), 3);
            assert_eq!(c, [(1, Status::Success), (2, st), (3, Status::WrFlushErr)]);
        }
    }

    #[test]
    fn psns_wrap_at_2_24() {
        let mut r: Requester = Requester::new(cfg(Psn::MASK - 1));
        r.post(1, 3).unwrap();
        r.post(2, 2).unwrap();
        assert_eq!(r.nxt().get(), 3);
        let mut sent = [0u32; 8];
        assert_eq!(drain(&mut r, 0, &mut sent), 5);
        assert_eq!(sent[..5], [Psn::MASK - 1, Psn::MASK, 0, 1, 2]);
        // A NAK at 1 across the wrap acknowledges the first request.
        let seq = Syndrome::Nak(NakCode::PsnSequence);
        assert_eq!(rx(&mut r, nak(1, seq), 1), AckOutcome::GoBack(psn(1)));
        assert_eq!(r.poll().map(|c| c.wr_id), Some(1));
        assert_eq!(r.send(2).map(|p| (p.psn.get(), p.index)), Some((1, 0)));
        // An ACK from before the wrap is stale.
        assert_eq!(rx(&mut r, ack(Psn::MASK), 3), AckOutcome::Stale);
        assert_eq!(rx(&mut r, ack(2), 3), AckOutcome::Progress);
        assert_eq!(r.poll().map(|c| c.wr_id), Some(2));
    }

    #[test]
    fn the_table_and_the_psn_span_are_bounded() {
        let mut r: Requester<2> = Requester::new(cfg(0));
        assert_eq!(r.post(1, 0), Err(PostError::Span));
        assert_eq!(r.post(1, Psn::HALF), Err(PostError::Span));
        r.post(1, Psn::HALF - 2).unwrap();
        assert_eq!(r.post(2, 2), Err(PostError::Span));
        r.post(2, 1).unwrap();
        assert_eq!(r.post(3, 1), Err(PostError::Full));
    }

    #[test]
    fn a_read_sends_one_request_and_takes_its_responses_in_order() {
        let mut r: Requester = Requester::new(cfg(100));
        assert_eq!(r.post_read(1, 3), Ok(psn(100)));
        assert_eq!(r.post(2, 1), Ok(psn(103)));
        let p = r.send(0).unwrap();
        assert_eq!(
            (p.psn.get(), p.index, p.ack_req, p.resend),
            (100, 0, true, false)
        );
        // The READ's request covers its three PSNs: the SEND comes next.
        assert_eq!(r.send(0).map(|p| p.psn.get()), Some(103));
        assert_eq!(
            r.read_match(psn(100)),
            ReadMatch::Expected {
                wr_id: 1,
                index: 0,
                packets: 3
            }
        );
        assert_eq!(r.read_match(psn(103)), ReadMatch::Stale, "not a READ's PSN");
        assert_eq!(r.read_accept(psn(100), 1), AckOutcome::Progress);
        // 101 lost: 102 is out of sequence and sends the READ again from 101, once.
        assert_eq!(r.read_match(psn(102)), ReadMatch::OutOfSequence);
        assert_eq!(r.read_gap(psn(102), 2), AckOutcome::GoBack(psn(101)));
        assert_eq!(r.read_gap(psn(102), 2), AckOutcome::Stale);
        let p = r.send(3).unwrap();
        assert_eq!((p.psn.get(), p.index, p.resend), (101, 1, true));
        assert_eq!(
            r.send(3).map(|p| (p.psn.get(), p.resend)),
            Some((103, true))
        );
        assert_eq!(r.poll(), None);
        r.read_accept(psn(101), 4);
        r.read_accept(psn(102), 4);
        assert_eq!(r.read_match(psn(102)), ReadMatch::Stale, "already taken");
        assert_eq!(
            r.poll().map(|c| (c.wr_id, c.status)),
            Some((1, Status::Success))
        );
        assert_eq!(rx(&mut r, ack(103), 5), AckOutcome::Progress);
        assert_eq!(r.poll().map(|c| c.wr_id), Some(2));
        assert_eq!(r.counters().read_gaps, 1);
    }

    #[test]
    fn an_ack_never_covers_a_reads_missing_responses() {
        let mut r: Requester = Requester::new(cfg(Psn::MASK));
        r.post(1, 1).unwrap();
        r.post_read(2, 2).unwrap();
        r.post(3, 1).unwrap();
        let mut sent = [0u32; 8];
        assert_eq!(drain(&mut r, 0, &mut sent), 3);
        assert_eq!(sent[..3], [Psn::MASK, 0, 2]);
        // The ACK of 2 says the responder executed the READ: its responses were lost. The
        // SEND before it is acknowledged, and the READ is asked for again.
        assert_eq!(rx(&mut r, ack(2), 1), AckOutcome::GoBack(psn(0)));
        assert_eq!(r.poll().map(|c| c.wr_id), Some(1));
        assert_eq!(r.poll(), None);
        // A response behind a missing one of another READ is out of sequence as well.
        assert_eq!(r.read_match(psn(1)), ReadMatch::OutOfSequence);
        // A NAK sequence error past the READ goes back to it too.
        let seq = Syndrome::Nak(NakCode::PsnSequence);
        r.send(2).unwrap();
        r.read_accept(psn(0), 3);
        assert_eq!(rx(&mut r, nak(2, seq), 3), AckOutcome::GoBack(psn(1)));
    }

    #[test]
    fn at_most_max_rd_atomic_reads_are_outstanding() {
        let mut r: Requester = Requester::new(RequesterConfig {
            max_inflight: 64,
            ..cfg(0)
        });
        for id in 0..6 {
            r.post_read(id, 2).unwrap();
        }
        let mut sent = [0u32; 8];
        assert_eq!(drain(&mut r, 0, &mut sent), MAX_RD_ATOMIC);
        assert!(!r.can_send());
        // The first READ's responses free a place.
        r.read_accept(psn(0), 1);
        assert!(!r.can_send(), "half a READ is still outstanding");
        r.read_accept(psn(1), 1);
        assert_eq!(r.send(1).map(|p| p.psn.get()), Some(8));
        assert_eq!(r.send(1), None);
        // A timeout resends READs already counted, whatever the limit.
        assert_eq!(r.tick(1 + RTO), TickOutcome::Timeout(psn(2)));
        assert_eq!(drain(&mut r, 1 + RTO, &mut sent), 4);
        assert_eq!(sent[..4], [2, 4, 6, 8]);
    }

    #[test]
    fn timeout_0_never_fires() {
        let mut r: Requester = Requester::new(RequesterConfig {
            timeout: 0,
            ..cfg(0)
        });
        r.post(1, 1).unwrap();
        r.send(0).unwrap();
        assert_eq!(r.deadline(), None);
        assert_eq!(r.tick(u64::MAX), TickOutcome::Idle);
    }
}
