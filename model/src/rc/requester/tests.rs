//! The requester's rules, one test each ([`super::Requester`]).

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
