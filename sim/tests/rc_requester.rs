//! The RC requester (rtl/rc/rc_requester.sv) against a `model::rc::Requester` per QP, operation by
//! operation, as built for one QP and for four (`QPS = 4`: QPs' state swapped through a RAM). Each
//! QP runs sessions that each start with INIT at a random first PSN (a third of them just before
//! the 2^24 wrap) and random settings (retry and RNR counts, windows of 0 to 24 packets and beyond
//! half the PSN space, timeouts of none to 128 ticks), then random posts (SENDs and READs, of no
//! packet, a few, or half the PSN space), sends, acknowledgements (ACKs, sequence and RNR NAKs, the
//! fatal NAKs and reserved syndromes, at PSNs inside, before and beyond what is outstanding), READ
//! responses matched, accepted and out of sequence, ticks around the deadlines, polls and aborts,
//! on a clock that jumps. Random gaps on the input and back-pressure on the answer, which must hold
//! while it waits. Every answer (its code and every field) and the state after it (the PSNs, ERR,
//! the requests outstanding, the five counters) must be the model's. With four QPs, an operation
//! names the last one's QP three times in four, else any, and a QP starts a new session once its
//! answers are in while the others go on. Seeded: `ROCENIC_SEED=N` replays a run.

use rand::Rng;
use rocenic_model::qp::{Psn, Status};
use rocenic_model::rc::{Answer, Counters, Op, Requester, RequesterConfig, Scale, MAX_RD_ATOMIC};
use rocenic_sim::duts::{RcRequester, RcRequesterPorts, RcRequesterQps4};
use rocenic_sim::harness::Sim;
use rocenic_sim::rc::requester::{answer_name, configure, drive, expected, sample, Input, Output};
use rocenic_sim::stream;
use rocenic_sim::stream::{Held, TestRng};
use std::collections::{BTreeMap, VecDeque};

const CYCLES: u64 = 800_000;

/// What the block shows of its state after an answer, as the model has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shown {
    una: u32,
    snd: u32,
    nxt: u32,
    error: bool,
    outstanding: usize,
    counters: Counters,
}

fn shown(m: &Requester) -> Shown {
    Shown {
        una: m.una().get(),
        snd: m.snd().get(),
        nxt: m.nxt().get(),
        error: m.is_error(),
        outstanding: m.outstanding(),
        counters: m.counters(),
    }
}

fn shown_by<D: RcRequesterPorts>(dut: &D) -> Shown {
    Shown {
        una: dut.st_una(),
        snd: dut.st_snd(),
        nxt: dut.st_nxt(),
        error: dut.st_error(),
        outstanding: usize::from(dut.st_outstanding()),
        counters: Counters {
            resent: dut.cnt_resent().into(),
            timeouts: dut.cnt_timeouts().into(),
            seq_naks: dut.cnt_seq_naks().into(),
            rnr_naks: dut.cnt_rnr_naks().into(),
            read_gaps: dut.cnt_read_gaps().into(),
        },
    }
}

/// One session: the model, its settings, the clock, the ids given out, operations left.
struct Session {
    model: Requester,
    cfg: RequesterConfig,
    now: u64,
    next_id: u64,
    left: u32,
    /// The share of posts that are READs.
    reads: f64,
    /// No fatal NAK or abort: READs pile up to the outstanding limit.
    calm: bool,
}

fn some_config(rng: &mut TestRng) -> RequesterConfig {
    let sq_psn = if rng.gen_bool(0.3) {
        0xFF_FFFF - rng.gen_range(0..40)
    } else {
        rng.gen_range(0..1 << 24)
    };
    RequesterConfig {
        sq_psn: Psn::new(sq_psn).unwrap(),
        timeout: if rng.gen_bool(0.1) {
            0
        } else {
            rng.gen_range(1..=5)
        },
        retry_cnt: rng.gen_range(0..=7),
        rnr_retry: if rng.gen_bool(0.2) {
            7
        } else {
            rng.gen_range(0..7)
        },
        scale: Scale(rng.gen_range(1..=4)),
        max_inflight: match rng.gen_range(0..20) {
            0 => 0,
            1 => 0xFF_FFFF,
            2..=5 => rng.gen_range(25..=200),
            _ => rng.gen_range(1..=24),
        },
    }
}

impl Session {
    fn new(rng: &mut TestRng) -> Session {
        let cfg = some_config(rng);
        Session {
            model: Requester::new(cfg),
            cfg,
            now: rng.gen_range(0..1 << 20),
            next_id: rng.gen(),
            left: rng.gen_range(20..3000),
            reads: if rng.gen_bool(0.3) { 0.8 } else { 0.25 },
            calm: rng.gen_bool(0.3),
        }
    }

    /// A PSN near what is outstanding: mostly inside `[una, snd)`, else at `una`, just
    /// outside, or anywhere.
    fn some_psn(&self, rng: &mut TestRng) -> Psn {
        let (una, snd, nxt) = (self.model.una(), self.model.snd(), self.model.nxt());
        let inflight = snd.distance_from(una);
        match rng.gen_range(0..100) {
            0..=49 if inflight > 0 => una.add(rng.gen_range(0..inflight)),
            50..=69 => una,
            70..=79 => una.add((1 << 24) - rng.gen_range(1..=3)),
            80..=89 => nxt.add(rng.gen_range(0..3)),
            90..=94 => snd,
            _ => Psn::new(rng.gen_range(0..1 << 24)).unwrap(),
        }
    }

    /// The clock for the next operation: mostly a little later, now and then at or just
    /// past the deadline, or a long jump.
    fn advance(&mut self, rng: &mut TestRng) -> u64 {
        self.now += match rng.gen_range(0..100) {
            0..=69 => rng.gen_range(0..4),
            70..=89 => match self.model.deadline() {
                Some(d) if d >= self.now => d - self.now + rng.gen_range(0..2),
                _ => rng.gen_range(0..64),
            },
            90..=97 => rng.gen_range(0..300),
            _ => rng.gen_range(0..1 << 22),
        };
        self.now
    }

    fn some_op(&mut self, rng: &mut TestRng) -> Op {
        match rng.gen_range(0..1000) {
            0..=139 => {
                let packets = match rng.gen_range(0..100) {
                    0..=3 => 0,
                    4..=6 => (1 << 23) - rng.gen_range(0..40),
                    _ => rng.gen_range(1..=6),
                };
                self.next_id = self.next_id.wrapping_add(1);
                Op::Post {
                    wr_id: self.next_id,
                    packets,
                    read: rng.gen_bool(self.reads),
                }
            }
            140..=439 => Op::Send {
                now: self.advance(rng),
            },
            // Calm sessions acknowledge less, so that READs pile up.
            440..=689 if self.calm && rng.gen_bool(0.6) => Op::Send {
                now: self.advance(rng),
            },
            440..=689 => {
                let pick = rng.gen_range(0..1000);
                let syndrome = match if self.calm { pick % 930 } else { pick } {
                    0..=549 => rng.gen_range(0..0x20),       // ACK, any credit count
                    550..=799 => 0x60,                       // NAK sequence error
                    800..=929 => 0x20 | rng.gen_range(1..4), // RNR NAK, short delays
                    930..=939 => 0x20 | rng.gen_range(0..0x20),
                    940..=969 => 0x60 | rng.gen_range(1..=4), // the fatal NAKs
                    970..=984 => 0x40 | rng.gen_range(0..0x20), // reserved syndrome
                    985..=994 => 0x65 | rng.gen_range(0..0x1B), // reserved NAK codes
                    _ => 0x80 | rng.gen_range(0..0x80),
                };
                Op::Receive {
                    psn: self.some_psn(rng),
                    syndrome,
                    now: self.advance(rng),
                }
            }
            690..=729 => Op::ReadMatch {
                psn: self.some_psn(rng),
            },
            730..=779 => Op::ReadAccept {
                psn: self.some_psn(rng),
                now: self.advance(rng),
            },
            780..=809 => Op::ReadGap {
                psn: self.some_psn(rng),
                now: self.advance(rng),
            },
            810..=889 => Op::Tick {
                now: self.advance(rng),
            },
            890..=997 => Op::Poll,
            _ if self.calm => Op::Poll,
            _ => Op::Abort {
                psn: self.some_psn(rng),
                status: [Status::LocProtErr, Status::GeneralErr, Status::LocLenErr]
                    [rng.gen_range(0..3)],
            },
        }
    }
}

#[test]
fn against_the_model() {
    run::<RcRequester>("rc_requester", 1);
}

#[test]
fn four_qps_against_the_model() {
    run::<RcRequesterQps4>("rc_requester_qps4", 4);
}

/// An operation on its way: its QP, the operation, the answer and state the model gives, the
/// cycle it was offered, the requests outstanding before it, and whether it swapped QPs in.
type Pending = (u8, Input, Output, Shown, u64, usize, bool);

fn run<D: RcRequesterPorts>(name: &str, slots: usize) {
    let seed = stream::seed(&format!("{name}::against_the_model"));
    let mut rng = stream::rng(seed);
    let mut sim: Sim<D> = Sim::new(name);
    let mut qps: Vec<Session> = (0..slots).map(|_| Session::new(&mut rng)).collect();
    drive(&mut sim.dut, 0, None, qps[0].cfg.scale, false);
    sim.reset(4);
    // Each QP's first offer is INIT; then operations, and INIT again for a new session.
    let mut fresh = vec![true; slots];
    let mut offer: Option<(u8, Input)> = None;
    let mut inflight: VecDeque<Pending> = VecDeque::new();
    // The QP of the last operation taken: the one in the block's registers (0 after reset).
    let mut last = 0u8;
    // The fewest cycles from an operation taken to its answer, by requests outstanding: SENDs,
    // and the other operations that read the table; and those that swapped QPs in.
    let mut latency: BTreeMap<(&str, usize), u64> = BTreeMap::new();
    let mut held: Held<Output> = Held::default();
    let mut seen: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut sessions = slots as u32;
    for cycle in 0..CYCLES {
        if offer.is_none() && rng.gen_bool(0.7) {
            let q = if slots == 1 || rng.gen_bool(0.75) {
                last
            } else {
                rng.gen_range(0..slots as u8)
            };
            let s = &mut qps[usize::from(q)];
            let done = s.left == 0 || (s.model.is_error() && s.model.outstanding() == 0);
            if fresh[usize::from(q)] {
                fresh[usize::from(q)] = false;
                offer = Some((q, Input::Init(s.cfg.sq_psn.get())));
            } else if done {
                // A new session once the QP's last answer is in: its settings hold from INIT on.
                if !inflight.iter().any(|p| p.0 == q) {
                    *s = Session::new(&mut rng);
                    offer = Some((q, Input::Init(s.cfg.sq_psn.get())));
                    sessions += 1;
                }
            } else {
                s.left -= 1;
                offer = Some((q, Input::Op(s.some_op(&mut rng))));
            }
        }
        let ready = rng.gen_bool(0.6);
        match offer {
            Some((q, input)) => {
                let s = &qps[usize::from(q)];
                configure(&mut sim.dut, &s.cfg);
                drive(&mut sim.dut, q, Some(&input), s.cfg.scale, ready);
            }
            None => drive(&mut sim.dut, 0, None, qps[0].cfg.scale, ready),
        }
        sim.settle();
        let (valid, s_ready) = (
            RcRequesterPorts::m_valid(&sim.dut),
            RcRequesterPorts::s_ready(&sim.dut),
        );
        if valid {
            let got = sample(&sim.dut);
            let new = held
                .offer(got, ready)
                .unwrap_or_else(|e| panic!("cycle {cycle}: {e} (seed {seed})"));
            if new {
                // A new answer: how long its operation took.
                let &(_, input, _, _, at, before, swapped) = inflight.front().expect("an answer");
                let kind = match input {
                    Input::Op(Op::Send { .. }) => Some("send"),
                    Input::Op(Op::Post { .. }) | Input::Init(_) => None,
                    _ => Some("other"),
                };
                if kind == Some("send") {
                    *seen.entry("SEND").or_default() += 1;
                }
                if kind == Some("send") && before > 0 && cycle - at == 8 && !swapped {
                    // Only a SEND that knew the request holding `snd` is this quick.
                    *seen.entry("a SEND reading no entry").or_default() += 1;
                }
                if swapped {
                    *seen.entry("a swap of QPs").or_default() += 1;
                }
                if let Some(kind) = kind {
                    let kind = match (kind, swapped) {
                        ("send", true) => "send, swapped in",
                        (_, true) => "other, swapped in",
                        (k, false) => k,
                    };
                    let l = latency.entry((kind, before)).or_insert(u64::MAX);
                    *l = (*l).min(cycle - at);
                }
            }
            if ready {
                let (q, input, want, state, at, _, _) =
                    inflight.pop_front().expect("an answer with no operation");
                assert_eq!(
                    got, want,
                    "cycle {cycle}: the answer to {input:?} on QP {q} offered at cycle {at} (seed {seed})"
                );
                assert_eq!(
                    shown_by(&sim.dut),
                    state,
                    "cycle {cycle}: QP {q}'s state after {input:?} offered at cycle {at} (seed {seed})"
                );
                *seen.entry(answer_name(got.ans)).or_default() += 1;
                for (b, name) in [
                    (got.resend, "resend"),
                    (
                        got.ack_req && got.index + 1 < got.packets,
                        "AckReq before the last packet",
                    ),
                    (got.status == Status::RetryExcErr as u8, "retry_exc_err"),
                    (
                        got.status == Status::RnrRetryExcErr as u8,
                        "rnr_retry_exc_err",
                    ),
                    (got.status == Status::WrFlushErr as u8, "wr_flush_err"),
                    (got.status == Status::RemAccessErr as u8, "rem_access_err"),
                ] {
                    if b {
                        *seen.entry(name).or_default() += 1;
                    }
                }
            }
        } else {
            held.idle();
        }
        if s_ready {
            if let Some((q, input)) = offer.take() {
                let s = &mut qps[usize::from(q)];
                // Sending could go on but for the READs outstanding.
                let m = &s.model;
                let before = m.outstanding();
                let reads = m.reads_outstanding() == MAX_RD_ATOMIC
                    && !m.is_error()
                    && m.rnr_until().is_none()
                    && m.snd() != m.nxt()
                    && m.snd().distance_from(m.una()) < m.config().max_inflight;
                // INIT's model is the session's, made new with it.
                let answer = match input {
                    Input::Init(_) => Answer::Nothing,
                    Input::Op(op) => s.model.apply(op),
                };
                if matches!(input, Input::Op(Op::Send { .. })) && answer == Answer::Nothing && reads
                {
                    *seen.entry("sending held at the READ limit").or_default() += 1;
                }
                let swapped = q != last;
                last = q;
                inflight.push_back((
                    q,
                    input,
                    expected(q, &answer),
                    shown(&s.model),
                    cycle,
                    before,
                    swapped,
                ));
            }
        }
        sim.step();
    }
    eprintln!("{name}: seed {seed}: {sessions} sessions, {seen:?}");
    eprintln!("{name}: fewest cycles from an operation to its answer, by requests outstanding: {latency:?}");
    // Each at least this often (the fatal NAKs' statuses are a few in a thousand answers).
    for (k, least) in [
        ("posted", 100),
        ("full", 100),
        ("span", 100),
        ("refused", 100),
        ("packet", 1000),
        ("stale", 1000),
        ("progress", 100),
        ("go_back", 100),
        ("rnr_wait", 100),
        ("error", 100),
        ("timeout", 100),
        ("rnr_resume", 100),
        ("completion", 1000),
        ("expected", 50),
        ("out_of_sequence", 50),
        ("resend", 1000),
        ("AckReq before the last packet", 100),
        ("retry_exc_err", 50),
        ("rnr_retry_exc_err", 10),
        ("wr_flush_err", 100),
        ("rem_access_err", 5),
        ("sending held at the READ limit", 10),
        ("a SEND reading no entry", 1000),
        ("a swap of QPs", if slots > 1 { 1000 } else { 0 }),
    ] {
        let n = seen.get(k).copied().unwrap_or(0);
        assert!(
            n >= least,
            "{k} seen {n} times, fewer than {least}: {seen:?} (seed {seed})"
        );
    }
}
