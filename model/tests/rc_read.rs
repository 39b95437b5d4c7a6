//! RDMA READ over the reliable transport, between two `NicModel`s on the lossy wire of
//! `common/rc_pair.rs` (docs/rc.md, "RDMA READ"). READs go both ways among SENDs and WRITEs:
//! every READ completes once, in order with the other work requests of its queue, and its
//! local buffer equals the remote region byte for byte. Directed runs: a lost middle response
//! (go-back from it), a lost READ request (timeout), a duplicate READ executed again, one the
//! responder no longer keeps (dropped unanswered), an R_Key refused (`rem_access_err`) and PSNs
//! wrapping at 2^24 inside a READ.
//!
//! Each randomized run prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::qp::{QpState, Status};
use rocenic_model::rc::{parse_read_response, Reliable, MAX_RD_ATOMIC};
use rocenic_model::rx::{classify, classify_with, Discard, Incoming};
use rocenic_model::wire::ib::opcode as op;
use rocenic_model::wqe::{Memory, Opcode};

#[path = "common/seeded.rs"]
mod seeded;

#[path = "common/splitmix.rs"]
mod splitmix;

#[path = "common/rc_pair.rs"]
mod rc_pair;
use rc_pair::*;

/// A READ response's PSN, `None` for any other frame.
fn response_psn(f: &[u8]) -> Option<u32> {
    parse_read_response(f).ok().map(|r| r.psn.get())
}

/// Whether `f` is a READ request.
fn is_read_request(f: &[u8]) -> bool {
    matches!(classify_with(f, true), Ok(Incoming::Roce(p)) if p.opcode == op::RC_RDMA_READ_REQUEST)
}

/// The READ figures of a run, both sides summed.
fn read_summary(run: &Run) -> String {
    let (ca, cb) = (
        run.a.nic.queues.rc_counters(),
        run.b.nic.queues.rc_counters(),
    );
    let (na, nb) = (run.a.nic.rc_counts(), run.b.nic.rc_counts());
    format!(
        "{}; READ responses sent {}, READ gaps {}",
        summary(run),
        na.read_responses_sent + nb.read_responses_sent,
        ca.read_gaps + cb.read_gaps,
    )
}

/// A READ on pair 1 (1024-byte MTU) by A of `len` bytes of B's data area at `src`.
fn one_read(run: &mut Run, src: u64, len: u32) -> Msg {
    let m = Msg {
        opcode: Opcode::RdmaRead,
        src,
        len,
        imm: 0,
        dst: run.a.claim(false, len),
    };
    run.a.post_send(1, &m);
    m
}

fn on_1(m: Vec<Msg>) -> [Vec<Msg>; PAIRS] {
    [Vec::new(), m, Vec::new()]
}

proptest! {
    #![proptest_config(seeded::config("rc_read_lossy_links_read_once_in_order", 24))]

    /// READs (one message in five) among SENDs and WRITEs both ways over three pairs, on a
    /// wire losing up to 5 %, duplicating up to 2 % and corrupting up to 2 % of frames each
    /// way, PSNs anywhere, windows of 1 to 24 packets, ACKs every 1 to 16.
    #[test]
    fn lossy_links_read_once_in_order(
        seed in any::<u64>(),
        loss in 0.0f64..0.05,
        dup in 0.0f64..0.02,
        corrupt in 0.0f64..0.02,
        psns in prop::array::uniform3(0u32..(1 << 24)),
        n in 1usize..25,
        max_inflight in 1u32..25,
        ack_every in 1u32..17,
    ) {
        let rel = Reliable { max_inflight, ack_every, ..reliable() };
        let mut run = Run::new(seed, Some(rel), psns, (loss, dup, corrupt));
        let (ab, ba) = workload_with(&mut run, n, 6000, false, true);
        run.until_done(200_000);
        check_delivered(&run.a, &run.b, &ab);
        check_delivered(&run.b, &run.a, &ba);
    }
}

/// A fixed lossy run with READs whose figures the docs quote: 600 messages (100 per pair each
/// way, about one in five a READ of up to 8 KiB) at 2 % loss, 1 % duplication, 1 % corruption.
#[test]
fn lossy_read_run_figures() {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(19);
    eprintln!("lossy_read_run_figures: seed {seed} (replay with ROCENIC_SEED={seed})");
    let mut run = Run::new(
        seed,
        Some(reliable()),
        [0xFF_FF00, 5, 0x80_0000],
        (0.02, 0.01, 0.01),
    );
    let (ab, ba) = workload_with(&mut run, 100, 8192, false, true);
    run.until_done(1_000_000);
    check_delivered(&run.a, &run.b, &ab);
    check_delivered(&run.b, &run.a, &ba);
    let reads = [&ab, &ba]
        .iter()
        .flat_map(|d| d.iter().flatten())
        .filter(|m| m.opcode == Opcode::RdmaRead)
        .count();
    let c = run.a.nic.queues.rc_counters();
    assert!(reads > 60 && c.read_gaps > 0, "{}", read_summary(&run));
    eprintln!(
        "lossy_read_run_figures: 600 messages, {reads} READs: {}",
        read_summary(&run)
    );
}

#[test]
fn a_lost_middle_response_goes_back_from_it() {
    let mut run = Run::new(11, Some(reliable()), [0, 100, 0], (0.0, 0.0, 0.0));
    // B's QP expects A's PSN 100: five responses, 100..=104; 102 is lost once.
    let m = one_read(&mut run, DATA + 0x40, 4500);
    run.ba.drop_once = Some(Box::new(|f: &[u8]| response_psn(f) == Some(102)));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &on_1(vec![m]));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    // 103 arrives out of sequence: one go-back, the READ asked again from 102 (its RETH
    // advanced by two MTUs), 104 ignored behind the gap; no timeout.
    assert_eq!(
        (c.read_gaps, c.timeouts, c.resent),
        (1, 0, 1),
        "{}",
        read_summary(&run)
    );
    assert_eq!(run.b.nic.rc_counts().read_responses_sent, 5 + 3);
    assert_eq!(run.ab.frames, 2, "the READ and its resend from 102");
    let r = run.b.nic.rx.responder(run.b.qpns[1]).unwrap();
    assert_eq!((r.epsn().get(), r.msn()), (105, 1), "executed once");
}

#[test]
fn a_lost_read_request_times_out_and_is_sent_again() {
    let mut run = Run::new(12, Some(reliable()), [0, 9, 0], (0.0, 0.0, 0.0));
    let m = one_read(&mut run, DATA, 1000);
    run.ab.drop_once = Some(Box::new(is_read_request));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &on_1(vec![m]));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    assert_eq!((c.timeouts, c.resent, c.read_gaps), (1, 1, 0));
    assert!(run.turns > 64, "the timeout (64 turns) passed");
}

#[test]
fn a_duplicate_read_is_executed_again() {
    let mut run = Run::new(13, Some(reliable()), [0, 40, 0], (0.0, 0.0, 0.0));
    // Three responses, 40..=42, and a SEND behind the READ. The last response is lost: nothing
    // arrives out of sequence, the ACK of the SEND covers the READ, so the requester asks again
    // from 42; the responder finds it in its kept READs and sends 42 again.
    let read = one_read(&mut run, DATA + 0x1000, 2500);
    let send = Msg {
        opcode: Opcode::Send,
        src: DATA,
        len: 10,
        imm: 0,
        dst: run.b.claim(false, 10),
    };
    run.b.post_recv(1, &send);
    run.a.post_send(1, &send);
    run.ba.drop_once = Some(Box::new(|f: &[u8]| response_psn(f) == Some(42)));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &on_1(vec![read, send]));
    assert_eq!(run.b.nic.rc_counts().read_responses_sent, 3 + 1);
    let r = run.b.nic.rx.responder(run.b.qpns[1]).unwrap();
    assert_eq!((r.epsn().get(), r.msn(), r.reads_dropped()), (44, 2, 0));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    assert_eq!(c.read_gaps + c.timeouts, 1, "{}", read_summary(&run));
}

#[test]
fn a_read_no_longer_kept_is_dropped_unanswered() {
    let mut run = Run::new(14, Some(reliable()), [0, 0x500, 0], (0.0, 0.0, 0.0));
    let mut reads = vec![one_read(&mut run, DATA, 300)];
    run.turn();
    let old = run.ab.flight.front().cloned().unwrap();
    assert!(is_read_request(&old));
    run.until_done(10_000);
    // Four more READs push the first out of the responder's table.
    for i in 0..MAX_RD_ATOMIC as u64 {
        reads.push(one_read(&mut run, DATA + 0x100 * i, 10));
    }
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &on_1(reads));
    let sent = run.b.nic.rc_counts().read_responses_sent;
    // A late copy of the first request: behind the expected PSN and not kept. Answering it
    // from an unchecked RETH could send bytes no kept READ covers, so it is dropped; a
    // requester that still waited for it would time out until its retries ran out.
    run.ab.flight.push_back(old);
    for _ in 0..8 {
        run.turn();
    }
    let r = run.b.nic.rx.responder(run.b.qpns[1]).unwrap();
    assert_eq!(r.reads_dropped(), 1);
    assert_eq!(run.b.nic.rc_counts().read_responses_sent, sent);
    assert_eq!(run.a.sent[1].len(), 1 + MAX_RD_ATOMIC);
}

#[test]
fn a_refused_rkey_completes_rem_access_err() {
    let mut run = Run::new(15, Some(reliable()), [0, 300, 0], (0.0, 0.0, 0.0));
    let good = one_read(&mut run, DATA, 100);
    // Past the end of B's readable area: the responder refuses the R_Key's range.
    one_read(&mut run, DATA + DATA_LEN as u64 - 50, 100);
    one_read(&mut run, DATA, 100);
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
    check_delivered_bytes(&run, &good);
}

/// A READ's local buffer at A equals B's region.
fn check_delivered_bytes(run: &Run, m: &Msg) {
    let mut want = vec![0u8; m.len as usize];
    run.b.mem.read(m.src, &mut want).unwrap();
    let mut got = vec![0u8; m.len as usize];
    run.a.mem.read(m.dst, &mut got).unwrap();
    assert!(got == want, "the READ landed intact");
}

#[test]
fn psns_wrap_at_2_24_inside_a_read() {
    let start = 0xFF_FFFE;
    let mut run = Run::new(16, Some(reliable()), [0, start, 0], (0.0, 0.0, 0.0));
    // Five responses, 0xFFFFFE..=0x000002; PSN 0 is lost once.
    let ms = vec![one_read(&mut run, DATA + 0x333, 4500)];
    run.ba.drop_once = Some(Box::new(|f: &[u8]| response_psn(f) == Some(0)));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &on_1(ms));
    let r = run.a.nic.queues.requester(QPN_A[1]).unwrap();
    assert_eq!(r.una().get(), 3, "everything up to PSN 2 acknowledged");
    assert_eq!(r.counters().read_gaps, 1);
}

#[test]
fn without_the_switch_a_read_is_refused() {
    let mut run = Run::new(17, None, [0, 0, 0], (0.0, 0.0, 0.0));
    one_read(&mut run, DATA, 100);
    run.until_done(100);
    assert_eq!(run.a.sent[1], [(0, Status::LocQpOpErr)]);
    assert_eq!(run.ab.frames, 0, "nothing sent");
    // A READ request arriving at a NIC without the switch is not taken, as in the RTL.
    let mut on = Run::new(17, Some(reliable()), [0, 0, 0], (0.0, 0.0, 0.0));
    one_read(&mut on, DATA, 100);
    on.turn();
    let req = on.ab.flight.front().cloned().unwrap();
    assert!(is_read_request(&req));
    assert!(matches!(classify(&req), Err(Discard::Unsupported)));
    assert_eq!(
        run.b.nic.receive(&mut run.b.mem, &req),
        Err(Discard::Unsupported)
    );
    assert_eq!(run.b.nic.rx.counts().discarded(Discard::Unsupported), 1);
}
