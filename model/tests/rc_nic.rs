//! The reliable transport joined to the NIC model (docs/rc.md, "Joined to the engines"): two
//! `NicModel`s with the switch on, joined by a wire that loses, duplicates and corrupts frames
//! with seeded probabilities and can drop one exact frame. RC SEND and RDMA WRITE messages
//! (with and without immediate data) of random sizes go both ways over three QP pairs; every
//! message lands exactly once, in order and byte for byte, every work request completes exactly
//! once. Directed runs walk each recovery path: a lost data packet (NAK sequence error, go-back),
//! a lost ACK (timeout, duplicate, re-acknowledgement), RNR, retry exhaustion on a dead link and
//! PSNs wrapping at 2^24; and with the switch off a PSN gap is still discarded silently.
//!
//! Each randomized run prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::qp::{QpState, Status};
use rocenic_model::rc::{parse_ack, Reliable};
use rocenic_model::rx::Discard;
use rocenic_model::wqe::*;

#[path = "common/seeded.rs"]
mod seeded;

#[path = "common/splitmix.rs"]
mod splitmix;

#[path = "common/rc_pair.rs"]
mod rc_pair;
use rc_pair::*;

proptest! {
    #![proptest_config(seeded::config("rc_nic_lossy_links_deliver_once_in_order", 40))]

    /// Random messages both ways over three pairs, on a wire losing up to 5 %, duplicating up
    /// to 2 % and corrupting up to 2 % of frames each way, PSNs starting anywhere, windows of
    /// 1 to 24 packets, ACKs every 1 to 16; with `late`, B's receive WQEs for the second half
    /// of A's messages are posted only after 150 turns (RNR NAKs until then).
    #[test]
    fn lossy_links_deliver_once_in_order(
        seed in any::<u64>(),
        loss in 0.0f64..0.05,
        dup in 0.0f64..0.02,
        corrupt in 0.0f64..0.02,
        psns in prop::array::uniform3(0u32..(1 << 24)),
        n in 1usize..25,
        max_inflight in 1u32..25,
        ack_every in 1u32..17,
        late in any::<bool>(),
    ) {
        let rel = Reliable { max_inflight, ack_every, ..reliable() };
        let mut run = Run::new(seed, Some(rel), psns, (loss, dup, corrupt));
        let (ab, ba) = workload(&mut run, n, 6000, late);
        if late {
            for _ in 0..150 {
                run.turn();
            }
            for (p, msgs) in ab.iter().enumerate() {
                for m in msgs[n / 2..].iter().filter(|m| m.takes_wqe()) {
                    run.b.post_recv(p, m);
                }
            }
        }
        run.until_done(200_000);
        check_delivered(&run.a, &run.b, &ab);
        check_delivered(&run.b, &run.a, &ba);
    }
}

/// A fixed lossy run whose figures the docs quote: 600 messages (100 per pair each way) at 2 %
/// loss, 1 % duplication and 1 % corruption.
#[test]
fn lossy_run_figures() {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(19);
    eprintln!("lossy_run_figures: seed {seed} (replay with ROCENIC_SEED={seed})");
    let mut run = Run::new(
        seed,
        Some(reliable()),
        [0xFF_FF00, 5, 0x80_0000],
        (0.02, 0.01, 0.01),
    );
    let (ab, ba) = workload(&mut run, 100, 8192, false);
    run.until_done(1_000_000);
    check_delivered(&run.a, &run.b, &ab);
    check_delivered(&run.b, &run.a, &ba);
    let c = run.a.nic.queues.rc_counters();
    assert!(
        c.resent > 0 && c.timeouts + c.seq_naks > 0,
        "{}",
        summary(&run)
    );
    eprintln!("lossy_run_figures: 600 messages: {}", summary(&run));
}

/// One message on pair 1 (1024-byte MTU) from A to B.
fn one_message(run: &mut Run, opcode: Opcode, len: u32, post_recv: bool) -> Msg {
    let dst = run.b.claim(opcode.has_raddr(), len);
    let m = Msg {
        opcode,
        src: DATA + 0x100,
        len,
        imm: 0x1234_5678,
        dst,
    };
    if post_recv && m.takes_wqe() {
        run.b.post_recv(1, &m);
    }
    run.a.post_send(1, &m);
    m
}

fn msgs_on_1(m: Vec<Msg>) -> [Vec<Msg>; PAIRS] {
    [Vec::new(), m, Vec::new()]
}

#[test]
fn a_lost_data_packet_is_naked_once_and_sent_again() {
    let mut run = Run::new(1, Some(reliable()), [0, 100, 0], (0.0, 0.0, 0.0));
    // Five packets; the second (PSN 101) is lost once.
    let m = one_message(&mut run, Opcode::RdmaWriteImm, 4500, true);
    run.ab.drop_once = Some(Box::new(|f: &[u8]| {
        data_psn(f).is_some_and(|(_, psn)| psn == 101)
    }));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(vec![m]));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    assert_eq!((c.seq_naks, c.timeouts), (1, 0), "{}", summary(&run));
    // Go-back-N: 101 and whatever had been sent after it when the NAK came back; those
    // arrived ahead and were dropped without a NAK of their own.
    assert!((1..=4).contains(&c.resent), "{}", summary(&run));
    assert_eq!(run.ab.frames, 5 + c.resent, "nothing else on the wire");
    assert_eq!(run.b.nic.rc_counts().seq_naks_sent, 1);
    assert_eq!(
        run.b.nic.rx.counts().discarded(Discard::Psn),
        c.resent - 1,
        "the packets sent after 101 before the NAK came back arrived ahead"
    );
}

#[test]
fn a_lost_ack_times_out_and_the_duplicate_is_acknowledged_again() {
    let mut run = Run::new(2, Some(reliable()), [0, 7, 0], (0.0, 0.0, 0.0));
    let m = one_message(&mut run, Opcode::Send, 300, true);
    // A spare receive WQE: executing the duplicate again would land it there.
    run.b.post_recv(1, &m);
    run.ba.drop_once = Some(Box::new(|f: &[u8]| parse_ack(f).is_ok()));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(vec![m]));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    assert_eq!((c.timeouts, c.resent, c.seq_naks), (1, 1, 0));
    assert_eq!(run.b.nic.rc_counts().acks_sent, 2, "the ACK and the re-ACK");
    assert_eq!(
        run.b.nic.rx.counts().discarded(Discard::Psn),
        1,
        "the duplicate"
    );
    assert!(run.turns > 64, "the timeout (64 turns) passed");
}

#[test]
fn rnr_waits_until_a_receive_wqe_is_posted() {
    let rel = Reliable {
        rnr_retry: 7,
        rnr_timer: 4, // 40 µs: ten turns
        ..reliable()
    };
    let mut run = Run::new(3, Some(rel), [0, 50, 0], (0.0, 0.0, 0.0));
    let m = one_message(&mut run, Opcode::SendImm, 2000, false);
    for _ in 0..100 {
        run.turn();
    }
    assert!(
        run.a.sent[1].is_empty(),
        "no completion without a receive WQE"
    );
    let rnr = run.b.nic.rc_counts().rnr_naks_sent;
    assert!(rnr >= 5, "RNR NAKs every delay: {rnr}");
    assert_eq!(
        run.a
            .nic
            .queues
            .requester(QPN_A[1])
            .unwrap()
            .counters()
            .rnr_naks,
        rnr
    );
    run.b.post_recv(1, &m);
    run.until_done(1_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(vec![m]));
}

#[test]
fn a_dead_link_exhausts_the_retries_and_flushes_the_rest() {
    let mut run = Run::new(4, Some(reliable()), [0, 0, 0], (0.0, 0.0, 0.0));
    run.ab.loss = 1.0;
    let ms: Vec<Msg> = (0..3)
        .map(|_| one_message(&mut run, Opcode::Send, 100, true))
        .collect();
    run.until_done(100_000);
    assert_eq!(
        run.a.sent[1],
        [
            (0, Status::RetryExcErr),
            (1, Status::WrFlushErr),
            (2, Status::WrFlushErr)
        ]
    );
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    // retry_cnt 7: seven timeouts resend, the eighth gives up.
    assert_eq!(c.timeouts, 8, "{}", summary(&run));
    assert_eq!(
        run.a.nic.send.qps.get(QPN_A[1]).unwrap().state(),
        QpState::Err
    );
    // A WR posted after the failure is flushed; the other pairs are untouched.
    run.a.post_send(1, &ms[0]);
    run.until_done(1_000);
    assert_eq!(run.a.sent[1][3], (3, Status::WrFlushErr));
    assert_eq!(
        run.a.nic.send.qps.get(QPN_A[0]).unwrap().state(),
        QpState::Rts
    );
    assert!(run.b.recvd[1].is_empty());
}

#[test]
fn psns_wrap_at_2_24_through_a_go_back() {
    let start = 0xFF_FFFC;
    let mut run = Run::new(5, Some(reliable()), [0, start, 0], (0.0, 0.0, 0.0));
    // Two 5-packet messages: PSNs 0xFFFFFC..=0x000005; PSN 0 is lost once.
    let ms = vec![
        one_message(&mut run, Opcode::RdmaWrite, 4200, true),
        one_message(&mut run, Opcode::Send, 4200, true),
    ];
    run.ab.drop_once = Some(Box::new(|f: &[u8]| {
        data_psn(f).is_some_and(|(_, psn)| psn == 0)
    }));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(ms));
    let r = run.a.nic.queues.requester(QPN_A[1]).unwrap();
    assert_eq!(r.una().get(), 6, "everything up to PSN 5 acknowledged");
    assert_eq!(r.counters().seq_naks, 1);
}

#[test]
fn with_the_switch_off_nothing_is_acknowledged_and_gaps_are_discarded() {
    let mut run = Run::new(6, None, [0, 10, 0], (0.0, 0.0, 0.0));
    let m = one_message(&mut run, Opcode::Send, 3000, true);
    // The WQE completes on the turn its frames leave, before anything arrives.
    run.turn();
    assert_eq!(run.a.sent[1], [(0, Status::Success)]);
    assert_eq!(run.ab.flight.len(), 3);
    // The middle packet is lost: the rest is discarded as a PSN gap, and nothing answers.
    run.ab.drop_once = Some(Box::new(|f: &[u8]| {
        data_psn(f).is_some_and(|(_, psn)| psn == 11)
    }));
    for _ in 0..10 {
        run.turn();
    }
    assert_eq!(run.b.nic.rx.counts().discarded(Discard::Psn), 1);
    assert_eq!(run.ba.frames, 0, "no ACK or NAK frames");
    assert!(run.b.recvd[1].is_empty());
    assert_eq!(run.b.nic.rc_counts(), Default::default());
    let _ = m;
}

#[test]
fn a_refused_rkey_completes_rem_access_err_and_both_qps_go_to_err() {
    let mut run = Run::new(7, Some(reliable()), [0, 300, 0], (0.0, 0.0, 0.0));
    let good = one_message(&mut run, Opcode::Send, 100, true);
    // Past the end of B's write region: the responder refuses the R_Key's range.
    let bad = Msg {
        opcode: Opcode::RdmaWrite,
        src: DATA,
        len: 600,
        imm: 0,
        dst: WBUF + BUF_LEN as u64 - 100,
    };
    run.a.post_send(1, &bad);
    let after = one_message(&mut run, Opcode::Send, 100, false);
    run.until_done(10_000);
    assert_eq!(
        run.a.sent[1],
        [
            (0, Status::Success),
            (1, Status::RemAccessErr),
            (2, Status::WrFlushErr)
        ]
    );
    assert_eq!(run.b.nic.rc_counts().fatal_naks_sent, 1);
    for s in [&run.a, &run.b] {
        let qp = s.nic.send.qps.get(s.qpns[1]).unwrap();
        assert_eq!(qp.state(), QpState::Err);
    }
    assert_eq!(run.b.recvd[1].len(), 1, "the SEND before it landed");
    let _ = (good, after);
}

/// A QP's own transport attributes in place of the NIC's: on a dead link pair 1's requester,
/// given `retry_cnt` 2 and `timeout` 3, gives up after three timeouts of 8 turns while pair 0
/// keeps the NIC's seven retries; and b's pair 1 carries its own `min_rnr_timer` in its RNR
/// NAKs. Out-of-range attributes are refused.
#[test]
fn per_qp_attributes_take_the_nics_place() {
    use rocenic_model::rc::QpTransport;
    use rocenic_model::wire::ib::{AethRepr, Syndrome};
    let mut run = Run::new(4, Some(reliable()), [0, 0, 0], (0.0, 0.0, 0.0));
    let own = QpTransport {
        timeout: Some(3),
        retry_cnt: Some(2),
        ..QpTransport::default()
    };
    assert!(run
        .a
        .nic
        .send
        .qps
        .get_mut(QPN_A[1])
        .unwrap()
        .set_transport(own));
    let rnr = QpTransport {
        min_rnr_timer: Some(17),
        ..QpTransport::default()
    };
    assert!(run
        .b
        .nic
        .send
        .qps
        .get_mut(QPN_A[1] + 0x10)
        .unwrap()
        .set_transport(rnr));
    for bad in [
        QpTransport {
            timeout: Some(0),
            ..QpTransport::default()
        },
        QpTransport {
            retry_cnt: Some(8),
            ..QpTransport::default()
        },
        QpTransport {
            rnr_retry: Some(8),
            ..QpTransport::default()
        },
        QpTransport {
            min_rnr_timer: Some(32),
            ..QpTransport::default()
        },
    ] {
        assert!(
            !run.a
                .nic
                .send
                .qps
                .get_mut(QPN_A[0])
                .unwrap()
                .set_transport(bad),
            "{bad:?}"
        );
    }
    assert_eq!(
        run.a.nic.send.qps.get(QPN_A[0]).unwrap().transport(),
        QpTransport::default()
    );

    // b's pair 1 with no receive WQE: its RNR NAKs carry timer 17.
    let m = one_message(&mut run, Opcode::Send, 100, false);
    let mut naks = Vec::new();
    for _ in 0..20 {
        run.turn();
        naks.extend(run.ba.flight.iter().filter_map(|f| parse_ack(f).ok()));
    }
    assert!(!naks.is_empty(), "an RNR NAK came back");
    for n in &naks {
        assert!(
            matches!(
                n.aeth,
                AethRepr {
                    syndrome: Syndrome::RnrNak { timer: 17 },
                    ..
                }
            ),
            "{n:?}"
        );
    }
    run.b.post_recv(1, &m);
    run.until_done(10_000);

    // Then a dead link: pair 1 gives up after its own three timeouts, pair 0 after the NIC's
    // eight.
    run.ab.loss = 1.0;
    one_message(&mut run, Opcode::Send, 100, true);
    let m0 = message(&mut run.rng, &mut run.b, 100);
    run.b.post_recv(0, &m0);
    run.a.post_send(0, &m0);
    run.until_done(100_000);
    let c1 = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    let c0 = run.a.nic.queues.requester(QPN_A[0]).unwrap().counters();
    assert_eq!((c1.timeouts, c0.timeouts), (3, 8), "{}", summary(&run));
    assert_eq!(run.a.sent[1].last().unwrap().1, Status::RetryExcErr);
    assert_eq!(run.a.sent[0].last().unwrap().1, Status::RetryExcErr);
}
