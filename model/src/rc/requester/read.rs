//! The requester's RDMA READ rules (docs/rc.md, "RDMA READ"): how many READs may be
//! outstanding, how far an acknowledgement may go past a READ whose responses are missing, and
//! where a READ response stands.

use super::{AckOutcome, ReadMatch, Requester};
use crate::qp::Psn;

impl<const W: usize> Requester<W> {
    /// READs whose request has been sent and whose responses have not all arrived.
    pub fn reads_outstanding(&self) -> usize {
        (0..self.len)
            .map(|i| self.wr(i))
            .filter(|w| w.read && w.first.is_before(self.hi) && !self.acked(w))
            .count()
    }

    /// The first PSN in `[una, to)` held by a READ whose responses have not arrived (`to`
    /// when there is none): how far an acknowledgement up to `to` may go.
    pub(super) fn read_bound(&self, to: Psn) -> Psn {
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
        let bound = self.acknowledge_to(psn, now);
        if self.last_nak == Some(bound) {
            return AckOutcome::Stale;
        }
        self.counters.read_gaps += 1;
        self.go_back(bound, now)
    }
}
