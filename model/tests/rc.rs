//! The reliable connection's rules end to end in pure Rust: a requester (`model::rc::Requester`)
//! and a responder (`model::rc::Responder`) joined by a link that loses, duplicates and (on the
//! way back, where acknowledgements travel as real frames) corrupts packets, with a receive
//! queue that sometimes has no WQE. Whatever the link does, every message is executed exactly
//! once and in order, every work request completes exactly once and in posting order, and the
//! pair never hangs.
//!
//! Each property prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::qp::{IpPair, Psn, Status};
use rocenic_model::rc::{
    emit_ack, parse_ack, Ack, AckOutcome, Counters, Executed, Reply, Request, Requester,
    RequesterConfig, Responder, ResponderConfig, Scale, RNR_RETRY_FOREVER,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address};
use rocenic_model::wqe::frame::{Route, MAX_FRAME};
use std::collections::VecDeque;

#[path = "common/seeded.rs"]
mod seeded;
use seeded::config;

#[path = "common/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

/// One direction of the link: in order, a fixed delay, seeded loss and duplication.
struct Link<T> {
    queue: VecDeque<(u64, T)>,
    delay: u64,
    loss: u32,
    dup: u32,
}

impl<T: Clone> Link<T> {
    fn push(&mut self, rng: &mut Rng, now: u64, item: T) {
        if rng.chance_per_mille(self.loss) {
            return;
        }
        if rng.chance_per_mille(self.dup) {
            self.queue.push_back((now + self.delay, item.clone()));
        }
        self.queue.push_back((now + self.delay, item));
    }

    fn pop(&mut self, now: u64) -> Option<T> {
        match self.queue.front() {
            Some(&(at, _)) if at <= now => self.queue.pop_front().map(|(_, t)| t),
            _ => None,
        }
    }
}

/// A request packet on the wire: what the BTH says and which message it carries.
#[derive(Clone, Copy, Debug)]
struct Wire {
    psn: Psn,
    ack_req: bool,
    wr_id: u64,
    index: u32,
    packets: u32,
}

#[derive(Clone, Debug)]
struct Case {
    seed: u64,
    messages: Vec<u32>,
    loss: u32,
    dup: u32,
    corrupt: u32,
    delay: u64,
    window: u32,
    ack_every: u32,
    wqe_refill: u32,
    sq_psn: u32,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        prop::collection::vec(1u32..=12, 1..120),
        (0u32..=100, 0u32..=30, 0u32..=30),
        (1u64..=6, 1u32..=24, 1u32..=8, 50u32..=1000),
        prop_oneof![Just(Psn::MASK - 40), 0u32..=Psn::MASK],
    )
        .prop_map(
            |(
                seed,
                messages,
                (loss, dup, corrupt),
                (delay, window, ack_every, wqe_refill),
                sq_psn,
            )| Case {
                seed,
                messages,
                loss,
                dup,
                corrupt,
                delay,
                window,
                ack_every,
                wqe_refill,
                sq_psn,
            },
        )
}

fn route() -> Route {
    Route {
        src_mac: EthernetAddress([2, 0, 0, 0, 0, 2]),
        dst_mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        vlan: None,
        ip: IpPair::V4 {
            src: Ipv4Address::new(10, 0, 0, 2),
            dst: Ipv4Address::new(10, 0, 0, 1),
        },
        traffic_class: 0,
        hop_limit: 64,
        flow_label: 0,
        udp_sport: 0xC000,
    }
}

/// What a run produced.
struct Run {
    /// Messages executed whole, in execution order.
    delivered: Vec<u64>,
    /// Completions, in polling order.
    completions: Vec<(u64, Status)>,
    /// The requester's counters at the end.
    counters: Counters,
}

const REQUESTER_QPN: u32 = 0x11;
/// Ticks a run may take before it counts as a hang.
const LIMIT: u64 = 2_000_000;

fn run(c: &Case) -> Result<Run, String> {
    let mut rng = Rng(c.seed);
    let psn0 = Psn::new(c.sq_psn).unwrap();
    let mut req: Requester = Requester::new(RequesterConfig {
        sq_psn: psn0,
        // 4.096 µs × 2^6 at one tick per 4.096 µs: 64 ticks, above any round trip here.
        timeout: 6,
        retry_cnt: 7,
        rnr_retry: RNR_RETRY_FOREVER,
        scale: Scale(1),
        max_inflight: c.window,
    });
    let mut resp = Responder::new(ResponderConfig {
        epsn: psn0,
        ack_every: c.ack_every,
        rnr_timer: 1,
    });
    let mut fwd: Link<Wire> = Link {
        queue: VecDeque::new(),
        delay: c.delay,
        loss: c.loss,
        dup: c.dup,
    };
    let mut back: Link<Vec<u8>> = Link {
        queue: VecDeque::new(),
        delay: c.delay,
        loss: c.loss,
        dup: c.dup,
    };
    let route = route();
    let mut run = Run {
        delivered: Vec::new(),
        completions: Vec::new(),
        counters: Counters::default(),
    };
    // The responder's view of the message stream: the next (message, packet) it must execute.
    let (mut want_msg, mut want_index) = (0usize, 0u32);
    let mut posted = 0usize;
    let mut wqes = 1u32;
    for now in 0..LIMIT {
        while let Some(p) = fwd.pop(now) {
            let request = Request {
                psn: p.psn,
                ack_req: p.ack_req,
                last: p.index + 1 == p.packets,
            };
            let mut executed = None;
            let v = resp.request(request, || {
                if p.index == 0 {
                    if wqes == 0 {
                        return Executed::NoReceiveWqe;
                    }
                    wqes -= 1;
                }
                executed = Some((p.wr_id, p.index));
                Executed::Done
            });
            if let Some((wr_id, index)) = executed {
                if (wr_id, index) != (want_msg as u64, want_index) {
                    return Err(format!(
                        "tick {now}: executed message {wr_id} packet {index}, wanted {want_msg} packet {want_index}"
                    ));
                }
                want_index += 1;
                if want_index == c.messages[want_msg] {
                    run.delivered.push(wr_id);
                    (want_msg, want_index) = (want_msg + 1, 0);
                }
            }
            if let Reply::Send { psn, aeth } = v.reply {
                let ack = Ack {
                    dest_qpn: REQUESTER_QPN,
                    psn: psn.get(),
                    aeth,
                };
                let mut buf = [0u8; MAX_FRAME];
                let n = emit_ack(&route, &ack, &mut buf).unwrap();
                let mut frame = buf[..n].to_vec();
                if rng.chance_per_mille(c.corrupt) {
                    let at = (rng.next() % n as u64) as usize;
                    frame[at] ^= 1 << (rng.next() % 8);
                }
                back.push(&mut rng, now, frame);
            }
        }
        while let Some(frame) = back.pop(now) {
            // A corrupted frame fails its ICRC (or its headers) and is dropped, as the
            // receive path drops it.
            if let Ok(ack) = parse_ack(&frame) {
                if ack.dest_qpn != REQUESTER_QPN {
                    continue;
                }
                let psn = Psn::new(ack.psn).unwrap();
                if let AckOutcome::Error(st) = req.receive(psn, ack.aeth, now) {
                    // Only the counters can fail a run here (no remote errors are made).
                    if st != Status::RetryExcErr {
                        return Err(format!("tick {now}: unexpected {st}"));
                    }
                }
            }
        }
        req.tick(now);
        while posted < c.messages.len() && req.post(posted as u64, c.messages[posted]).is_ok() {
            posted += 1;
        }
        if let Some(p) = req.send(now) {
            fwd.push(
                &mut rng,
                now,
                Wire {
                    psn: p.psn,
                    ack_req: p.ack_req,
                    wr_id: p.wr_id,
                    index: p.index,
                    packets: p.packets,
                },
            );
        }
        while let Some(done) = req.poll() {
            run.completions.push((done.wr_id, done.status));
        }
        if rng.chance_per_mille(c.wqe_refill) {
            wqes = (wqes + 1).min(4);
        }
        run.counters = req.counters();
        if req.is_error() && req.outstanding() == 0 {
            // The rest were never posted: the send queue flushes them.
            for id in posted..c.messages.len() {
                run.completions.push((id as u64, Status::WrFlushErr));
            }
            return Ok(run);
        }
        if run.completions.len() == c.messages.len() {
            return Ok(run);
        }
    }
    Err(format!(
        "hang: {} of {} completed, {} delivered, una {} snd {} after {LIMIT} ticks",
        run.completions.len(),
        c.messages.len(),
        run.delivered.len(),
        req.una(),
        req.snd()
    ))
}

proptest! {
    #![proptest_config(config("rc::exactly_once_in_order", 256))]

    /// Every message is executed exactly once and in order, every request completes exactly
    /// once and in order; a success was delivered; without a retry error everything succeeds.
    #[test]
    fn exactly_once_in_order(c in case()) {
        let run = run(&c).map_err(TestCaseError::fail)?;
        let ids: Vec<u64> = run.completions.iter().map(|&(id, _)| id).collect();
        prop_assert_eq!(ids, (0..c.messages.len() as u64).collect::<Vec<_>>());
        prop_assert!(
            run.delivered.iter().enumerate().all(|(i, &id)| id == i as u64),
            "delivered out of order or twice: {:?}", run.delivered
        );
        let ok = run.completions.iter().take_while(|c| c.1 == Status::Success).count();
        prop_assert!(run.delivered.len() >= ok, "a success that was never delivered");
        match run.completions.get(ok) {
            None => prop_assert_eq!(run.delivered.len(), c.messages.len()),
            Some(&(_, st)) => {
                prop_assert_eq!(st, Status::RetryExcErr);
                prop_assert!(run.completions[ok + 1..].iter().all(|c| c.1 == Status::WrFlushErr));
            }
        }
    }
}

/// A clean link with no loss: no timeout, no NAK, nothing sent twice.
#[test]
fn a_clean_link_never_resends() {
    let c = Case {
        seed: 1,
        messages: (1..=40).map(|i| i % 7 + 1).collect(),
        loss: 0,
        dup: 0,
        corrupt: 0,
        delay: 3,
        window: 16,
        ack_every: 4,
        wqe_refill: 1000,
        sq_psn: Psn::MASK - 20,
    };
    let r = run(&c).unwrap();
    assert_eq!(r.delivered.len(), 40);
    assert!(r.completions.iter().all(|c| c.1 == Status::Success));
    assert_eq!(r.counters, Counters::default());
}

/// A bad link and a slow receiver, from a fixed seed: every recovery path runs (timeouts,
/// sequence NAKs, RNR NAKs, resends) and still everything completes.
#[test]
fn a_lossy_link_runs_every_recovery_path() {
    let c = Case {
        seed: 3,
        messages: (1..=300).map(|i| i % 9 + 1).collect(),
        loss: 30,
        dup: 20,
        corrupt: 20,
        delay: 4,
        window: 16,
        ack_every: 4,
        wqe_refill: 100,
        sq_psn: Psn::MASK - 100,
    };
    let r = run(&c).unwrap();
    assert_eq!(r.delivered.len(), 300);
    assert!(r.completions.iter().all(|c| c.1 == Status::Success));
    let k = r.counters;
    eprintln!("lossy link: {k:?}");
    assert!(k.timeouts > 0 && k.seq_naks > 0 && k.rnr_naks > 0 && k.resent > 0);
}

/// A link that loses everything: the requester gives up after `retry_cnt` timeouts, with
/// `retry_exc_err` for the first request and flushes for the rest.
#[test]
fn a_dead_link_exhausts_the_retries() {
    let c = Case {
        seed: 2,
        messages: vec![2, 1, 3],
        loss: 1000,
        dup: 0,
        corrupt: 0,
        delay: 1,
        window: 8,
        ack_every: 1,
        wqe_refill: 1000,
        sq_psn: 0,
    };
    let r = run(&c).unwrap();
    assert!(r.delivered.is_empty());
    assert_eq!(
        r.completions,
        [
            (0, Status::RetryExcErr),
            (1, Status::WrFlushErr),
            (2, Status::WrFlushErr)
        ]
    );
}
