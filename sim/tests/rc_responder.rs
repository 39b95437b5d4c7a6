//! The responder's rules (rtl/rc/rc_responder.sv) against `model::rc::Responder`, packet by
//! packet: four QPs, each with a model responder and the state the block last wrote back
//! (which goes in with the QP's next packet, as the receive context would hold it); random
//! requests and READ requests at the expected PSN, behind it and ahead of it (near and at half
//! the PSN space, across the 2^24 wrap), duplicate READs that a kept READ holds or not, every
//! execution verdict, random AckReq and last bits, ACK intervals of 0 to 255; random gaps on the
//! input and back-pressure on the output, whose answer must hold while it waits. Every answer
//! (class, execute, the acknowledgement or READ responses with PSN, syndrome and MSN, the move
//! to ERR, a READ dropped) and the state written back (expected PSN, MSN, the NAK latch, ERR)
//! must be the model's. Seeded: `ROCENIC_SEED=N` replays a run.

use rand::Rng;
use rocenic_model::qp::{Psn, MAX_MSG_SIZE};
use rocenic_model::rc::responder::{
    Executed, PsnClass, ReadRequest, Reply, Request, Responder, ResponderConfig,
};
use rocenic_sim::duts::{RcResponder, RcResponderPorts};
use rocenic_sim::harness::Sim;
use rocenic_sim::rc::responder::{drive, sample, Input, Output, State};
use rocenic_sim::stream;
use rocenic_sim::stream::{Held, TestRng};
use std::collections::{BTreeMap, VecDeque};

const QPS: usize = 4;
const CYCLES: u64 = 200_000;
const MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];

/// One QP: the model's responder, the state the block wrote last, its settings, its READs.
struct Qp {
    model: Responder,
    state: State,
    ack_every: u8,
    rnr_timer: u8,
    mtu: u32,
    reads: Vec<ReadRequest>,
    busy: bool,
}

impl Qp {
    fn new(rng: &mut TestRng) -> Qp {
        let epsn = if rng.gen_bool(0.3) {
            0xFF_FFFF - rng.gen_range(0..40)
        } else {
            rng.gen_range(0..1 << 24)
        };
        let ack_every = match rng.gen_range(0..10) {
            0 => 0,
            1 => 255,
            _ => rng.gen_range(1..=16),
        };
        let rnr_timer = rng.gen_range(0..32);
        Qp {
            model: Responder::new(ResponderConfig {
                epsn: Psn::new(epsn).unwrap(),
                ack_every: u32::from(ack_every),
                rnr_timer,
            }),
            state: State {
                epsn,
                ..State::default()
            },
            ack_every,
            rnr_timer,
            mtu: MTUS[rng.gen_range(0..MTUS.len())],
            reads: Vec::new(),
            busy: false,
        }
    }
}

/// A PSN for QP `q`'s next packet: mostly the expected one, else behind or ahead, near and far.
fn some_psn(rng: &mut TestRng, epsn: u32) -> u32 {
    let half = Psn::HALF;
    let off = match rng.gen_range(0..100) {
        0..=49 => 0,
        50..=64 => rng.gen_range(1..=8),
        65..=69 => rng.gen_range(9..half),
        70 => half,
        71 => half - 1,
        72..=91 => (1 << 24) - rng.gen_range(1..=16),
        _ => rng.gen_range(half + 1..1 << 24),
    };
    (epsn + off) & 0xFF_FFFF
}

fn some_exec(rng: &mut TestRng) -> Executed {
    if rng.gen_bool(0.8) {
        Executed::Done
    } else {
        Executed::ALL[rng.gen_range(1..Executed::ALL.len())]
    }
}

/// A READ request for `q`: new at `psn`, or a duplicate of part of one of its earlier READs.
fn some_read(rng: &mut TestRng, q: &Qp, psn: u32) -> ReadRequest {
    if !q.reads.is_empty() && rng.gen_bool(0.4) {
        let k = q.reads[rng.gen_range(0..q.reads.len())];
        let n = k.psns(q.mtu);
        let off = rng.gen_range(0..n.min(64));
        let skip = off * q.mtu;
        let mut r = ReadRequest {
            psn: k.psn.add(off),
            va: k.va.wrapping_add(u64::from(skip)),
            rkey: k.rkey,
            len: k.len.saturating_sub(skip),
        };
        if rng.gen_bool(0.1) {
            r.rkey ^= 1; // not what was kept
        }
        return r;
    }
    let len = match rng.gen_range(0..20) {
        0 => 0,
        1 => MAX_MSG_SIZE,
        2 => MAX_MSG_SIZE - rng.gen_range(0..5000),
        _ => rng.gen_range(1..20_000),
    };
    ReadRequest {
        psn: Psn::new(psn).unwrap(),
        va: rng.gen(),
        rkey: rng.gen(),
        len,
    }
}

/// The model's answer to `input` on `q`, and the state it leaves (unacked aside: the model
/// keeps it private, and its effect is the ACKs).
fn model_answer(q: &mut Qp, input: &Input, read: Option<ReadRequest>) -> Output {
    let exec = input.exec;
    let dropped = q.model.reads_dropped();
    let v = match read {
        Some(r) => {
            let v = q.model.read(r, q.mtu, || exec);
            if v.executed {
                q.reads.push(r);
                if q.reads.len() > 8 {
                    q.reads.remove(0);
                }
            }
            v
        }
        None => q.model.request(
            Request {
                psn: Psn::new(input.psn).unwrap(),
                ack_req: input.ack_req,
                last: input.last,
            },
            || exec,
        ),
    };
    let (ack, rd, psn, syndrome, aeth_msn) = match v.reply {
        Reply::None => (false, false, 0, 0, 0),
        Reply::Send { psn, aeth } => (true, false, psn.get(), aeth.syndrome.to_byte(), aeth.msn),
        Reply::Read { psn, msn, .. } => (false, true, psn.get(), 0, msn),
    };
    Output {
        state: State {
            epsn: q.model.epsn().get(),
            msn: q.model.msn(),
            nak_sent: q.model.nak_latched(),
            unacked: 0,
            error: q.model.is_error(),
        },
        class: v.class,
        executed: v.executed,
        ack,
        read: rd,
        psn,
        syndrome,
        aeth_msn,
        qp_error: v.qp_error,
        read_dropped: q.model.reads_dropped() != dropped,
    }
}

/// The answer compared where it means something: the reply's fields only with a reply, the
/// syndrome only with an acknowledgement.
fn same(got: &Output, want: &Output) -> bool {
    let mut g = *got;
    g.state.unacked = 0;
    if !g.ack && !g.read {
        (g.psn, g.syndrome, g.aeth_msn) = (0, 0, 0);
    }
    if g.read {
        g.syndrome = 0;
    }
    g == *want
}

#[test]
fn against_the_model() {
    let seed = stream::seed("rc_responder::against_the_model");
    let mut rng = stream::rng(seed);
    let mut sim: Sim<RcResponder> = Sim::new("rc_responder");
    drive(&mut sim.dut, None, false);
    sim.reset(4);
    let mut qps: Vec<Qp> = (0..QPS).map(|_| Qp::new(&mut rng)).collect();
    // The offer held until taken: its QP, the input, the model's answer once taken.
    let mut offer: Option<(usize, Input, Option<ReadRequest>)> = None;
    let mut inflight: VecDeque<(usize, Output, u64)> = VecDeque::new();
    let mut held: Held<Output> = Held::default();
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = |k: String| *seen.entry(k).or_default() += 1;
    for cycle in 0..CYCLES {
        // A QP in ERR and idle is now and then made again, so that every QP keeps working.
        for q in qps.iter_mut() {
            if q.state.error && !q.busy && rng.gen_bool(0.02) {
                *q = Qp::new(&mut rng);
            }
        }
        if offer.is_none() && rng.gen_bool(0.7) {
            let free: Vec<usize> = (0..QPS).filter(|&k| !qps[k].busy).collect();
            if !free.is_empty() {
                let k = free[rng.gen_range(0..free.len())];
                let q = &qps[k];
                let psn = some_psn(&mut rng, q.state.epsn);
                let read = rng.gen_bool(0.25).then(|| some_read(&mut rng, q, psn));
                let input = Input {
                    state: q.state,
                    ack_every: q.ack_every,
                    rnr_timer: q.rnr_timer,
                    psn: read.map_or(psn, |r| r.psn.get()),
                    ack_req: rng.gen_bool(0.3),
                    last: rng.gen_bool(0.5),
                    read: read.is_some(),
                    read_psns: read.map_or(rng.gen::<u32>() & 0xFF_FFFF, |r| r.psns(q.mtu)),
                    kept: read.is_some_and(|r| q.model.kept(&r, q.mtu)),
                    exec: some_exec(&mut rng),
                };
                qps[k].busy = true;
                offer = Some((k, input, read));
            }
        }
        let ready = rng.gen_bool(0.6);
        drive(&mut sim.dut, offer.as_ref().map(|o| &o.1), ready);
        sim.settle();
        let (valid, s_ready) = (
            RcResponderPorts::m_valid(&sim.dut),
            RcResponderPorts::s_ready(&sim.dut),
        );
        assert_eq!(
            s_ready,
            !valid || ready,
            "cycle {cycle}: s_ready (seed {seed})"
        );
        if valid {
            let got = sample(&sim.dut).unwrap();
            held.offer(got, ready)
                .unwrap_or_else(|e| panic!("cycle {cycle}: {e} (seed {seed})"));
            if ready {
                let (k, want, at) = inflight.pop_front().expect("an answer with no request");
                assert!(
                    same(&got, &want),
                    "cycle {cycle}: QP {k}'s packet offered at cycle {at}:\n got  {got:?}\n want {want:?}\n(replay with ROCENIC_SEED={seed})"
                );
                qps[k].state = got.state;
                qps[k].busy = false;
                count(format!("{:?}", got.class));
                if got.ack {
                    count(format!(
                        "syndrome {:#04x}",
                        got.syndrome & 0xE0
                            | if got.syndrome & 0xE0 == 0x60 {
                                got.syndrome & 0x1F
                            } else {
                                0
                            }
                    ));
                }
                for (b, name) in [
                    (got.executed, "executed"),
                    (got.read, "read responses"),
                    (got.read_dropped, "read dropped"),
                    (got.qp_error, "qp error"),
                    (
                        got.read && got.class == PsnClass::Duplicate,
                        "kept duplicate read",
                    ),
                ] {
                    if b {
                        count(name.to_string());
                    }
                }
            }
        } else {
            held.idle();
        }
        if s_ready {
            if let Some((k, input, read)) = offer.take() {
                let want = model_answer(&mut qps[k], &input, read);
                inflight.push_back((k, want, cycle));
            }
        }
        sim.step();
    }
    eprintln!("rc_responder: seed {seed}: {seen:?}");
    for k in [
        "Expected",
        "Duplicate",
        "Ahead",
        "executed",
        "read responses",
        "read dropped",
        "qp error",
        "kept duplicate read",
        "syndrome 0x00", // ACK
        "syndrome 0x20", // RNR NAK
        "syndrome 0x60", // sequence NAK
        "syndrome 0x61",
        "syndrome 0x62",
        "syndrome 0x63",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) > 20,
            "{k} seen too rarely: {seen:?} (seed {seed})"
        );
    }
}
