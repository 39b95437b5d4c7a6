//! A bench around rtl/rx/rx_ctrl.sv, the receive path's control plane: register operations
//! through the AXI4-Lite master ([`crate::axil`]), and a stand-in data path that reads receive
//! contexts and work queues, writes contexts back, takes WQEs, writes completions, moves queues
//! to ERR, runs flush steps and pulses the counters, while the send side's slot bits (`sq_valid`,
//! `qp_err`) move under it. Every observation goes to a log of [`Timed`] events, each with the
//! cycle whose state it reflects or from which it is visible, so that a test can replay the log
//! through the model in cycle order (docs/rx.md, "rx_ctrl (RTL)", gives those timings).

use crate::axil::{Master, Op};
use crate::duts::RxCtrlPorts;
use crate::harness::Sim;
use crate::stream::TestRng;
use crate::wqe::bits::{Packer, Unpacker};
use rand::Rng;
use std::collections::VecDeque;

/// Cycles from a context read to its answer (rx_ctx_table.sv, `C_LAG`).
pub const C_LAG: u64 = 7;
/// Cycles from a queue read to its answer (rx_wq_table.sv, `Q_LAG`).
pub const Q_LAG: u64 = 5;
/// Cycles from the state a flush pick reflects to `flush_done`.
pub const PICK_LAG: u64 = 4;
/// Cycles per slot the pick of a SEND in progress looks at (rx_ctx_table.sv, `IP_STEP`).
pub const IP_STEP: u64 = 8;
/// Cycles from a take or a push to the first cycle it is visible.
pub const INDEX_LAG: u64 = 4;
/// Cycles from an ERR set to the first cycle it is visible.
pub const ERR_LAG: u64 = 2;
/// Cycles from a context write-back to the state of the first read that sees it.
pub const WRITE_LAG: u64 = 2;
/// Cycles from a counter pulse to the first cycle it is counted.
pub const COUNT_LAG: u64 = 3;

crate::axil_port_fns!(RxCtrlPorts);

/// What the data path writes back into a receive context (`rx_ctrl_pkg::rcv_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rcv {
    /// The PSN expected next.
    pub epsn: u32,
    /// The message's kind: 0 none, 1 SEND, 2 WRITE.
    pub msg: u8,
    /// SEND: its queue.
    pub msg_wq: u8,
    /// SEND: the WQE's address; WRITE: the RETH's VA.
    pub msg_addr: u64,
    /// SEND: the WR_ID; WRITE: the DMA length.
    pub msg_arg: u64,
    /// Bytes taken so far.
    pub msg_done: u32,
    /// The responder's state (`rx_ctrl_pkg::resp_t`).
    pub resp: Resp,
}

/// The reliable transport's responder state a receive context keeps (`rx_ctrl_pkg::resp_t`,
/// `model::rc::Responder`'s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resp {
    /// The MSN.
    pub msn: u32,
    /// A NAK sent, the expected PSN not back since.
    pub nak_sent: bool,
    /// Packets executed since the last ACK.
    pub unacked: u8,
    /// The receive side is in ERR.
    pub error: bool,
}

impl Resp {
    /// Bits of `resp_t`.
    pub const BITS: usize = 34;
}

impl Rcv {
    /// Bits of `rcv_t`.
    pub const BITS: usize = 194 + Resp::BITS;

    fn take(u: &mut Unpacker) -> Rcv {
        Rcv {
            epsn: u.take(24) as u32,
            msg: u.take(2) as u8,
            msg_wq: u.take(8) as u8,
            msg_addr: u.take(64) as u64,
            msg_arg: u.take(64) as u64,
            msg_done: u.take(32) as u32,
            resp: Resp {
                msn: u.take(24) as u32,
                nak_sent: u.take(1) != 0,
                unacked: u.take(8) as u8,
                error: u.take(1) != 0,
            },
        }
    }

    /// The port's words.
    pub fn words(&self) -> [u32; 8] {
        let mut p = Packer::new();
        p.put(24, self.epsn.into())
            .put(2, self.msg.into())
            .put(8, self.msg_wq.into())
            .put(64, self.msg_addr.into())
            .put(64, self.msg_arg.into())
            .put(32, self.msg_done.into())
            .put(24, self.resp.msn.into())
            .put(1, self.resp.nak_sent.into())
            .put(8, self.resp.unacked.into())
            .put(1, self.resp.error.into());
        p.words()
    }
}

/// A receive context as `ctx_rd` carries it (`rx_ctrl_pkg::ctx_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctx {
    /// The slot holds a context (nothing else means anything when clear).
    pub valid: bool,
    /// QPN.
    pub qpn: u32,
    /// QP_TARGET.KIND.
    pub kind: u8,
    /// QP_TARGET.WQ.
    pub wq: u8,
    /// UD (else RC).
    pub ud: bool,
    /// Path MTU code.
    pub mtu: u8,
    /// Protection domain.
    pub pd: u32,
    /// Q_Key.
    pub qkey: u32,
    /// What the data path wrote back.
    pub rcv: Rcv,
}

impl Ctx {
    /// Bits of `ctx_t`.
    pub const BITS: usize = 103 + Rcv::BITS;

    /// Decodes the port's words.
    pub fn from_words(words: &[u32]) -> Ctx {
        let mut u = Unpacker::new(words, Self::BITS);
        Ctx {
            valid: u.take(1) != 0,
            qpn: u.take(24) as u32,
            kind: u.take(2) as u8,
            wq: u.take(8) as u8,
            ud: u.take(1) != 0,
            mtu: u.take(3) as u8,
            pd: u.take(32) as u32,
            qkey: u.take(32) as u32,
            rcv: Rcv::take(&mut u),
        }
    }
}

/// A work queue as `q_rd` carries it (`rx_ctrl_pkg::wq_view_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WqView {
    /// The queue exists (nothing else means anything when clear).
    pub valid: bool,
    /// 0 RESET, 1 READY, 2 ERR.
    pub state: u8,
    /// A WQE is posted.
    pub pending: bool,
    /// Room for a completion.
    pub room: bool,
    /// Raw frames may land here.
    pub raw: bool,
    /// The QP its completions name.
    pub qpn: u32,
    /// Protection domain.
    pub pd: u32,
    /// Slot stride.
    pub stride_log2: u8,
    /// The next WQE's index.
    pub consumer: u32,
    /// Its host address.
    pub wqe_addr: u64,
    /// The next completion's index.
    pub cq_producer: u32,
    /// Its host address.
    pub cqe_addr: u64,
    /// Its phase bit.
    pub cqe_phase: bool,
}

impl WqView {
    /// Bits of `wq_view_t`.
    pub const BITS: usize = 258;

    /// Decodes the port's words.
    pub fn from_words(words: &[u32]) -> WqView {
        let mut u = Unpacker::new(words, Self::BITS);
        WqView {
            valid: u.take(1) != 0,
            state: u.take(2) as u8,
            pending: u.take(1) != 0,
            room: u.take(1) != 0,
            raw: u.take(1) != 0,
            qpn: u.take(24) as u32,
            pd: u.take(32) as u32,
            stride_log2: u.take(3) as u8,
            consumer: u.take(32) as u32,
            wqe_addr: u.take(64) as u64,
            cq_producer: u.take(32) as u32,
            cqe_addr: u.take(64) as u64,
            cqe_phase: u.take(1) != 0,
        }
    }
}

/// What happened, for the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A register write took effect: visible from `at`, the first cycle of its B response.
    Write {
        /// Byte address.
        addr: u32,
        /// The word.
        data: u32,
        /// Byte strobes.
        strb: u8,
        /// The tag it was pushed with.
        tag: u64,
        /// The cycle AW and W were both accepted.
        accepted: u64,
    },
    /// A register read returned `data`: the state of cycle `at` (the one after AR).
    Read {
        /// Byte address.
        addr: u32,
        /// The word.
        data: u32,
        /// The tag it was pushed with.
        tag: u64,
    },
    /// `cmd_pending` fell: the command's changes are visible from `at`.
    CmdDone,
    /// A context read: the state of `at`.
    CtxRead(u8, Ctx),
    /// A queue read: the state of `at`.
    QRead(u8, WqView),
    /// A context write-back, seen by reads of the state of `at` on.
    CtxWrite(u8, Rcv),
    /// A take, visible from `at`.
    Take(u8),
    /// A push, visible from `at`.
    Push(u8),
    /// A queue to ERR, visible from `at`.
    WqErr(u8),
    /// A flush step's rule, with the `qp_err` of its request; visible from `at`.
    FlushRule(u64),
    /// A flush step's pick: the state of `at`.
    FlushPick {
        /// Whether a WQE to flush was found.
        found: bool,
        /// Its queue.
        wq: u8,
        /// A SEND's WQE in progress: its QP and WR_ID (else a posted WQE of `wq`).
        ip: Option<(u32, u64)>,
    },
    /// `accepted` counted from `at`.
    Accepted,
    /// `discard` of a reason counted from `at`.
    Discard(u8),
    /// STATUS.CQ_FAULT set from `at`.
    CqFault,
    /// `sq_valid` has this value from `at`.
    SqValid(u64),
    /// `dp_idle` has this value from `at`.
    DpIdle(bool),
    /// `frame_in_path` has this value from `at`.
    FrameInPath(bool),
    /// A `qp_err` bit flipped in the cycle before `at`.
    QpErrFlip,
    /// `flush_done` was high in the cycle before `at`, with `flush_found`.
    FlushDone(bool),
}

/// An event and its cycle (see [`Event`] for what the cycle means for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timed {
    /// The cycle.
    pub at: u64,
    /// The event.
    pub event: Event,
}

/// How the stand-in data path behaves. Probabilities are per cycle unless said otherwise.
#[derive(Clone, Copy, Debug)]
pub struct DataPath {
    /// Starting work while idle.
    pub start: f64,
    /// Per piece of work: it is a flush step (else a frame).
    pub flush: f64,
    /// Operations per frame, at most.
    pub ops: u32,
    /// Idle cycles before each operation, at most.
    pub gap: u32,
    /// After a queue read: take a WQE if one is pending.
    pub take: f64,
    /// After a queue read: push a completion if there is room.
    pub push: f64,
    /// After a queue read: move the queue to ERR.
    pub err: f64,
    /// After a context read of a valid context: write it back.
    pub write: f64,
    /// A frame counted as taken or discarded.
    pub count: f64,
    /// A completion write faults.
    pub fault: f64,
    /// A `qp_err` bit flips.
    pub qp_err_flip: f64,
    /// An `sq_valid` bit flips (only while no command is pending).
    pub sq_flip: f64,
    /// `frame_in_path` (a frame between the path's input and its end) rises; it falls ten
    /// times as often.
    pub frame_flip: f64,
}

impl Default for DataPath {
    fn default() -> Self {
        DataPath {
            start: 0.3,
            flush: 0.25,
            ops: 6,
            gap: 3,
            take: 0.6,
            push: 0.6,
            err: 0.04,
            write: 0.7,
            count: 0.1,
            fault: 0.0005,
            qp_err_flip: 0.005,
            sq_flip: 0.01,
            frame_flip: 0.002,
        }
    }
}

/// A data-path operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DpOp {
    ReadCtx(u8),
    ReadQ(u8),
    WriteCtx(u8, Rcv),
    Take(u8),
    Push(u8),
    WqErr(u8),
    Flush,
}

/// A piece of work: a frame's operations (some planned from read answers), or a flush step.
#[derive(Debug)]
struct Work {
    flush: bool,
    /// Operations left to plan (a frame).
    left: u32,
    /// Planned operations, in order, each after its gap.
    plan: VecDeque<(u32, DpOp)>,
    /// Idle cycles before the next.
    wait: u32,
    /// A flush step waits for its answer.
    flush_sent: bool,
    /// The flush step completes a SEND's WQE in progress: no take.
    flush_ip: bool,
}

/// The bench.
pub struct Bench<D: RxCtrlPorts> {
    /// The simulation.
    pub sim: Sim<D>,
    bus: Master,
    dp: DataPath,
    rng: TestRng,
    wqs: u8,
    qps: u8,
    work: Option<Work>,
    /// A context read: slot and request cycle.
    ctx_rd: Option<(u8, u64)>,
    /// A queue read: queue and request cycle.
    q_rd: Option<(u8, u64)>,
    /// A flush request's cycle.
    flush_rd: Option<u64>,
    /// The first cycle a queue read of each queue sees this path's own last change to it.
    fresh_from: Vec<u64>,
    /// The last cycle the data path took, pushed, moved to ERR or wrote back.
    last_change: u64,
    sq_valid: u64,
    /// `sq_valid` was set from outside and is not logged yet.
    sq_set: bool,
    qp_err: u64,
    dp_idle: bool,
    frame_in_path: bool,
    cmd_pending: bool,
    /// The first cycle has been stepped (its inputs logged).
    started: bool,
    /// Work pieces finished, flush steps among them.
    pieces: u64,
    flushes: u64,
}

impl<D: RxCtrlPorts> Bench<D> {
    /// A bench out of reset for a build of `wqs` work queues and `qps` context slots.
    /// `bus_delay`: the master's per-cycle probability of holding back a valid or ready (at most
    /// 4 cycles in a row).
    pub fn new(run: &str, seed: u64, wqs: u8, qps: u8, dp: DataPath, bus_delay: f64) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        sim.reset(3);
        let mut rng = crate::stream::rng(seed ^ 0xDA7A_9A7E);
        // Most send-side slots hold a QP, so that most attaches may succeed.
        let mask = mask(qps);
        let sq_valid = rng.gen::<u64>() | rng.gen::<u64>() | rng.gen::<u64>();
        Bench {
            sim,
            bus: Master::new(seed, bus_delay, 4),
            dp,
            rng,
            wqs,
            qps,
            work: None,
            ctx_rd: None,
            q_rd: None,
            flush_rd: None,
            fresh_from: vec![0; usize::from(wqs)],
            last_change: 0,
            sq_valid: sq_valid & mask,
            sq_set: false,
            qp_err: 0,
            dp_idle: true,
            frame_in_path: false,
            cmd_pending: false,
            started: false,
            pieces: 0,
            flushes: 0,
        }
    }

    /// Queues a register operation under `tag`.
    pub fn push(&mut self, op: Op, tag: u64) {
        self.bus.push(op, tag);
    }

    /// Register operations queued or running.
    pub fn bus_pending(&self) -> usize {
        self.bus.pending()
    }

    /// Whether the data path has work in hand.
    pub fn busy(&self) -> bool {
        self.work.is_some()
    }

    /// Pieces of work done, and flush steps among them.
    pub fn pieces(&self) -> (u64, u64) {
        (self.pieces, self.flushes)
    }

    /// Changes the data path's behaviour from now on.
    pub fn set_data_path(&mut self, dp: DataPath) {
        self.dp = dp;
    }

    /// The `sq_valid` the bench drives.
    pub fn sq_valid(&self) -> u64 {
        self.sq_valid
    }

    /// Drives `sq_valid` as `v` from the next cycle on (a bench standing for a send side whose
    /// slots it knows; set `DataPath::sq_flip` to 0 so that they stay).
    pub fn set_sq_valid(&mut self, v: u64) {
        self.sq_valid = v & mask(self.qps);
        self.sq_set = true;
    }

    fn plan_frame(&mut self) -> Option<(u32, DpOp)> {
        let gap = self.rng.gen_range(0..=self.dp.gap);
        let op = if self.rng.gen_bool(0.5) {
            DpOp::ReadCtx(self.rng.gen_range(0..self.qps))
        } else {
            DpOp::ReadQ(self.rng.gen_range(0..self.wqs))
        };
        Some((gap, op))
    }

    /// Reads of queue `w` issued before `cycle` do not show this path's latest change to it.
    fn stale_until(&mut self, w: u8, cycle: u64) {
        let f = &mut self.fresh_from[usize::from(w)];
        *f = (*f).max(cycle);
    }

    /// One clock cycle; returns what it showed.
    pub fn step(&mut self) -> Result<Vec<Timed>, String> {
        let cycle = self.sim.cycle();
        let mut out = Vec::new();
        let pins = self.bus.drive();
        drive_axil(&mut self.sim.dut, &pins);
        // cmd_pending is a flip-flop: this cycle's value is known before the inputs are driven.
        let pending = self.sim.dut.cmd_pending();
        if self.cmd_pending && !pending {
            out.push(Timed {
                at: cycle,
                event: Event::CmdDone,
            });
        }
        self.cmd_pending = pending;

        // dp_idle: low from the cycle after work starts until its last operation is given.
        let idle = self.work.is_none();
        if idle != self.dp_idle || !self.started {
            self.dp_idle = idle;
            out.push(Timed {
                at: cycle,
                event: Event::DpIdle(idle),
            });
        }
        if self.work.is_none() && !self.cmd_pending && self.rng.gen_bool(self.dp.start) {
            let flush = self.rng.gen_bool(self.dp.flush);
            let left = if flush {
                0
            } else {
                self.rng.gen_range(1..=self.dp.ops)
            };
            let mut plan = VecDeque::new();
            if flush {
                plan.push_back((0, DpOp::Flush));
            }
            self.work = Some(Work {
                flush,
                left,
                plan,
                wait: 0,
                flush_sent: false,
                flush_ip: false,
            });
        }

        // The operation of this cycle, if its gap is over and the port it needs is free.
        let mut op = None;
        if let Some(mut w) = self.work.take() {
            if w.plan.is_empty() && w.left > 0 && self.ctx_rd.is_none() && self.q_rd.is_none() {
                w.left -= 1;
                if let Some(p) = self.plan_frame() {
                    w.plan.push_back(p);
                }
            }
            if let Some(&(gap, next)) = w.plan.front() {
                if w.wait < gap {
                    w.wait += 1;
                } else {
                    let free = match next {
                        DpOp::ReadCtx(_) => self.ctx_rd.is_none(),
                        DpOp::ReadQ(_) => self.q_rd.is_none(),
                        // A flush step once every earlier operation is in place.
                        DpOp::Flush => {
                            self.ctx_rd.is_none()
                                && self.q_rd.is_none()
                                && cycle >= self.last_change + 3
                        }
                        _ => true,
                    };
                    if free {
                        w.plan.pop_front();
                        w.wait = 0;
                        op = Some(next);
                    }
                }
            }
            let done = w.plan.is_empty()
                && w.left == 0
                && self.ctx_rd.is_none()
                && self.q_rd.is_none()
                && self.flush_rd.is_none()
                && (!w.flush || w.flush_sent);
            if let Some(DpOp::Flush) = op {
                w.flush_sent = true;
            }
            if done && op.is_none() {
                self.pieces += 1;
                self.flushes += u64::from(w.flush);
            } else {
                self.work = Some(w);
            }
        }

        // Drive the data path's inputs.
        let mut counted = None;
        if self.work.is_some() && self.rng.gen_bool(self.dp.count) {
            counted = Some(if self.rng.gen_bool(0.5) {
                None
            } else {
                // A few reasons often, so that one word counts in cycles back to back.
                Some(if self.rng.gen_bool(0.5) {
                    self.rng.gen_range(0..3u8)
                } else {
                    self.rng.gen_range(0..16u8)
                })
            });
        }
        let fault = self.rng.gen_bool(self.dp.fault);
        if self.rng.gen_bool(self.dp.qp_err_flip) {
            self.qp_err ^= 1 << self.rng.gen_range(0..self.qps);
            out.push(Timed {
                at: cycle + 1,
                event: Event::QpErrFlip,
            });
        }
        // A frame stays in the path about a tenth of the time.
        let flip = self.dp.frame_flip * if self.frame_in_path { 10.0 } else { 1.0 };
        // With no flips, no frame is in the path.
        let off = self.dp.frame_flip == 0.0 && self.frame_in_path;
        if off || self.rng.gen_bool(flip.min(1.0)) || !self.started {
            self.frame_in_path ^= self.started;
            out.push(Timed {
                at: cycle,
                event: Event::FrameInPath(self.frame_in_path),
            });
        }
        if !self.cmd_pending && self.rng.gen_bool(self.dp.sq_flip) {
            self.sq_valid ^= 1 << self.rng.gen_range(0..self.qps);
            out.push(Timed {
                at: cycle,
                event: Event::SqValid(self.sq_valid),
            });
        } else if !self.started || self.sq_set {
            out.push(Timed {
                at: cycle,
                event: Event::SqValid(self.sq_valid),
            });
        }
        self.sq_set = false;
        let d = &mut self.sim.dut;
        d.set_dp_idle(idle);
        d.set_frame_in_path(self.frame_in_path);
        d.set_sq_valid(self.sq_valid);
        d.set_qp_err(self.qp_err);
        d.set_ctx_rd_valid(false);
        d.set_q_rd_valid(false);
        d.set_ctx_wr_valid(false);
        d.set_take_valid(false);
        d.set_push_valid(false);
        d.set_wq_err_valid(false);
        d.set_flush_req(false);
        d.set_accepted(counted == Some(None));
        d.set_discard_valid(matches!(counted, Some(Some(_))));
        d.set_discard_reason(counted.flatten().unwrap_or(0));
        d.set_cq_fault(fault);
        match op {
            Some(DpOp::ReadCtx(s)) => {
                d.set_ctx_rd_valid(true);
                d.set_ctx_rd_slot(s);
                self.ctx_rd = Some((s, cycle));
            }
            Some(DpOp::ReadQ(w)) => {
                d.set_q_rd_valid(true);
                d.set_q_rd_wq(w);
                self.q_rd = Some((w, cycle));
            }
            Some(DpOp::WriteCtx(s, rcv)) => {
                d.set_ctx_wr_valid(true);
                d.set_ctx_wr_slot(s);
                d.set_ctx_wr(rcv.words());
                self.last_change = cycle;
                out.push(Timed {
                    at: cycle + WRITE_LAG,
                    event: Event::CtxWrite(s, rcv),
                });
            }
            Some(DpOp::Take(w)) => {
                d.set_take_valid(true);
                d.set_take_wq(w);
                self.last_change = cycle;
                self.stale_until(w, cycle + INDEX_LAG - 1);
                out.push(Timed {
                    at: cycle + INDEX_LAG,
                    event: Event::Take(w),
                });
            }
            Some(DpOp::Push(w)) => {
                d.set_push_valid(true);
                d.set_push_wq(w);
                self.last_change = cycle;
                self.stale_until(w, cycle + INDEX_LAG - 1);
                out.push(Timed {
                    at: cycle + INDEX_LAG,
                    event: Event::Push(w),
                });
            }
            Some(DpOp::WqErr(w)) => {
                d.set_wq_err_valid(true);
                d.set_wq_err_wq(w);
                self.last_change = cycle;
                self.stale_until(w, cycle + ERR_LAG - 1);
                out.push(Timed {
                    at: cycle + ERR_LAG,
                    event: Event::WqErr(w),
                });
            }
            Some(DpOp::Flush) => {
                d.set_flush_req(true);
                self.flush_rd = Some(cycle);
                out.push(Timed {
                    at: cycle + 1,
                    event: Event::FlushRule(self.qp_err),
                });
            }
            None => {}
        }
        match counted {
            Some(None) => out.push(Timed {
                at: cycle + COUNT_LAG,
                event: Event::Accepted,
            }),
            Some(Some(r)) => out.push(Timed {
                at: cycle + COUNT_LAG,
                event: Event::Discard(r),
            }),
            None => {}
        }
        if fault {
            out.push(Timed {
                at: cycle + 1,
                event: Event::CqFault,
            });
        }
        self.started = true;
        self.sim.settle();
        let d = &self.sim.dut;

        // The bus.
        if let Some(done) = self.bus.observe(cycle, &sample_axil(d)) {
            if done.resp != 0 {
                return Err(format!(
                    "cycle {cycle}: response {} to {:?}",
                    done.resp, done.op
                ));
            }
            let (at, event) = match done.op {
                Op::Write { addr, data, strb } => (
                    done.at,
                    Event::Write {
                        addr,
                        data,
                        strb,
                        tag: done.tag,
                        accepted: done.accepted,
                    },
                ),
                Op::Read { addr } => (
                    done.at + 1,
                    Event::Read {
                        addr,
                        data: done.data,
                        tag: done.tag,
                    },
                ),
            };
            out.push(Timed { at, event });
        }

        // Answers: each exactly when due, and only then.
        let ctx_due = self.ctx_rd.filter(|&(_, r)| r + C_LAG == cycle);
        if d.ctx_rd_done() != ctx_due.is_some() {
            return Err(format!(
                "cycle {cycle}: ctx_rd_done {} with the read {:?}",
                d.ctx_rd_done(),
                self.ctx_rd
            ));
        }
        if let Some((s, r)) = ctx_due {
            let ctx = Ctx::from_words(&d.ctx_rd());
            out.push(Timed {
                at: r + 1,
                event: Event::CtxRead(s, ctx),
            });
            self.ctx_rd = None;
            if ctx.valid && self.rng.gen_bool(self.dp.write) {
                let rcv = random_rcv(&mut self.rng, &ctx);
                let gap = self.rng.gen_range(0..=self.dp.gap);
                if let Some(w) = self.work.as_mut() {
                    w.plan.push_back((gap, DpOp::WriteCtx(s, rcv)));
                }
            }
        }
        let q_due = self.q_rd.filter(|&(_, r)| r + Q_LAG == cycle);
        if d.q_rd_done() != q_due.is_some() {
            return Err(format!(
                "cycle {cycle}: q_rd_done {} with the read {:?}",
                d.q_rd_done(),
                self.q_rd
            ));
        }
        if let Some((w, r)) = q_due {
            let view = WqView::from_words(&d.q_rd());
            out.push(Timed {
                at: r + 1,
                event: Event::QRead(w, view),
            });
            self.q_rd = None;
            // Act on what was read only if it shows this path's own last change to the queue.
            if view.valid && r >= self.fresh_from[usize::from(w)] {
                let mut ops = Vec::new();
                let flushing = self.work.as_ref().is_some_and(|x| x.flush);
                let in_progress = self.work.as_ref().is_some_and(|x| x.flush_ip);
                if view.pending && !in_progress && (flushing || self.rng.gen_bool(self.dp.take)) {
                    ops.push(DpOp::Take(w));
                }
                if view.room && (flushing || self.rng.gen_bool(self.dp.push)) {
                    ops.push(DpOp::Push(w));
                }
                if !flushing && self.rng.gen_bool(self.dp.err) {
                    ops.push(DpOp::WqErr(w));
                }
                if let Some(x) = self.work.as_mut() {
                    for o in ops {
                        let gap = self.rng.gen_range(0..=self.dp.gap);
                        x.plan.push_back((gap, o));
                    }
                }
            }
        }
        if d.flush_done() {
            let Some(r) = self.flush_rd.take() else {
                return Err(format!("cycle {cycle}: flush_done with no flush step"));
            };
            if cycle < r + 1 + PICK_LAG {
                return Err(format!("cycle {cycle}: flush_done too early (request {r})"));
            }
            let (found, wq) = (d.flush_found(), d.flush_wq());
            let ip = (found && d.flush_ip()).then(|| (d.flush_qpn(), d.flush_wr_id()));
            out.push(Timed {
                at: cycle + 1,
                event: Event::FlushDone(found),
            });
            out.push(Timed {
                at: cycle - PICK_LAG,
                event: Event::FlushPick { found, wq, ip },
            });
            if found {
                if let Some(x) = self.work.as_mut() {
                    x.plan.push_back((0, DpOp::ReadQ(wq)));
                    x.flush_ip = ip.is_some();
                }
            }
        } else if let Some(r) = self.flush_rd {
            // The rule moves at most every slot's queue; the pick looks at every slot at most.
            if cycle > r + (IP_STEP + 2) * u64::from(self.qps) + 16 {
                return Err(format!("cycle {cycle}: the flush step of {r} never ended"));
            }
        }
        self.sim.step();
        Ok(out)
    }
}

/// A write-back after a read of `ctx`: the next PSN or two, a message of any kind.
fn random_rcv(rng: &mut TestRng, ctx: &Ctx) -> Rcv {
    let msg = rng.gen_range(0..3u8);
    Rcv {
        epsn: (ctx.rcv.epsn + rng.gen_range(0..3)) & 0xFF_FFFF,
        msg,
        msg_wq: if msg == 1 { ctx.wq } else { rng.gen() },
        msg_addr: rng.gen(),
        msg_arg: rng.gen(),
        msg_done: rng.gen(),
        resp: Resp {
            msn: rng.gen::<u32>() & 0xFF_FFFF,
            nak_sent: rng.gen(),
            unacked: rng.gen(),
            error: rng.gen(),
        },
    }
}

/// The low `n` bits set.
fn mask(n: u8) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
