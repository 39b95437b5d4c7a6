//! The reliable transport's send side for RC queues (`rtl/wqe/wqe_reliable.sv`), driven as the
//! engine around it drives it, each of its steps beside a step of `model::wqe::Queues`
//! with the transport on.
//!
//! The bench ([`Outside`]) plays what surrounds the block: the send rings (the doorbells'
//! producers and the consumers its picks and flushes move), the QPs' states (moved to ERR when
//! the block asks), and the data path, answering each pick as `SendEngine` does for an engine
//! without RDMA READ (`rc_fetch_prepare`, `rc_packet_as`), the tested `wqe_dp`'s answers
//! (sim/tests/wqe_dp_rc.rs), after a random delay and with random back-pressure on every
//! handshake. A step's outcome ([`StepOut`]: whether and where a turn ran, its frames, the
//! completion written) must then be the model's `Queues::step`.

use super::dp::{cqe_of, cqe_words};
use crate::duts::WqeReliablePorts;
use crate::harness::{Dut, Sim};
use crate::stream::TestRng;
use rand::Rng;
use rocenic_model::qp::{Psn, QpState, Status};
use rocenic_model::rc::{Packet, Reliable};
use rocenic_model::wqe::{fetch, Cqe, HostMemory, SendEngine, SendRing, MAX_WQE_BYTES};

/// Slots the DUT is built with (its `QPS`).
pub const SLOTS: usize = 4;
/// Cycles a step may take before the bench calls it a hang.
const STEP_LIMIT: u64 = 20_000;

/// One send queue the block serves, as the outside keeps it.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// Its QP.
    pub qpn: u32,
    /// Its ring.
    pub ring: SendRing,
    /// Doorbell: WQEs posted from index 0.
    pub producer: u32,
    /// WQEs taken (by prepare picks and flushes).
    pub consumer: u32,
}

/// Packet `pkt` of QP `qpn`'s WQE at ring index `pkt.wr_id` in `ring`, as the data path
/// builds it (`SendEngine::rc_packet_as`, no RDMA READ), its frame given to `frame`; the
/// status when it cannot be built (the WQE or its data not readable).
pub fn model_packet(
    engine: &SendEngine,
    mem: &HostMemory,
    qpn: u32,
    ring: &SendRing,
    pkt: &Packet,
    frame: &mut impl FnMut(&[u8]),
) -> Result<(), Status> {
    let mut wqe = [0u8; MAX_WQE_BYTES];
    let stride = ring.stride_blocks() as usize;
    match fetch(mem, ring.addr(pkt.wr_id as u32), stride, &mut wqe) {
        Ok(n) => engine.rc_packet_as(qpn, &wqe[..n], pkt, mem, frame, false),
        Err((status, _)) => Err(status),
    }
}

/// What a step of the block is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepKind {
    /// The sweep, then a turn from the round robin's next slot.
    Whole,
    /// The sweep alone.
    Sweep,
    /// A turn on this slot alone.
    Turn(usize),
}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepOut {
    /// The QP whose turn ran, if any.
    pub ran: Option<u32>,
    /// The completion written (phase bit cleared).
    pub cqe: Option<Cqe>,
    /// The frames sent.
    pub frames: Vec<Vec<u8>>,
}

/// How often each handshake is refused, and how late the data path answers.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    /// Probability that the outside takes an offered pick, flush, completion or step answer.
    pub ready: f64,
    /// Cycles before a pick's answer, at most.
    pub latency: u32,
}

/// The block (`D`: `duts::WqeReliable`) and everything around it.
pub struct Outside<D: Dut> {
    /// The DUT.
    pub sim: Sim<D>,
    /// The send engine answering picks (its QP table is the QPs' state).
    pub engine: SendEngine,
    /// Host memory.
    pub mem: HostMemory,
    /// The queues by slot.
    pub slots: Vec<Slot>,
    /// The transport's settings.
    pub rel: Reliable,
    load: Load,
    rng: TestRng,
    /// Picks answered, flushes and completions taken, QPs moved to ERR.
    pub counts: Counts,
}

/// What the bench has seen, for coverage.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Prepare picks.
    pub prepares: u64,
    /// Packet picks.
    pub packets: u64,
    /// Packet picks the data path refused.
    pub refused: u64,
    /// Flushes.
    pub flushes: u64,
    /// Completions the block wrote.
    pub cqes: u64,
    /// QPs the block moved to ERR.
    pub errors: u64,
    /// Failed WQEs (checks, or a POST refused) released in the turn that took them.
    pub held_at_once: u64,
    /// ... released in a later turn, once what was outstanding before them had completed.
    pub held_later: u64,
    /// Cycles.
    pub cycles: u64,
}

/// A pick's answer as the data path gives it.
#[derive(Clone, Copy)]
struct Res {
    index: u32,
    status: u8,
    packets: u32,
    signaled: bool,
    cqe: Cqe,
}

impl<D: Dut + WqeReliablePorts> Outside<D> {
    /// The block behind a reset, serving `slots` (slot `k` is the DUT's slot `k`), each
    /// requester started at its QP's next PSN with its QP's settings (its own transport
    /// attributes where it has them, else `rel`'s), as the model's `Queues` starts them.
    pub fn new(
        name: &str,
        engine: SendEngine,
        mem: HostMemory,
        slots: Vec<Slot>,
        rel: Reliable,
        load: Load,
        rng: TestRng,
    ) -> Outside<D> {
        assert!(slots.len() <= SLOTS);
        let mut o: Outside<D> = Outside {
            sim: Sim::new(name),
            engine,
            mem,
            slots,
            rel,
            load,
            rng,
            counts: Counts::default(),
        };
        o.sim
            .dut
            .set_cfg_max_inflight(rel.max_inflight.min(0xFF_FFFF));
        o.idle_inputs();
        o.sim.reset(4);
        for k in 0..o.slots.len() {
            let qp = o.engine.qps.get(o.slots[k].qpn).expect("QP");
            let cfg = rel.for_qp(qp.transport()).requester(qp.next_psn());
            let d = &mut o.sim.dut;
            d.set_s_init_slot(k as u8);
            d.set_s_init_psn(cfg.sq_psn.get());
            d.set_s_init_retry_cnt(cfg.retry_cnt.min(7));
            d.set_s_init_rnr_retry(cfg.rnr_retry.min(7));
            d.set_s_init_timeout_ticks(cfg.scale.ack_timeout(cfg.timeout).unwrap_or(0));
            let ans = o.request("INIT", |d| d.set_s_init_valid(true));
            assert_eq!(ans, None, "INIT answered as an acknowledgement");
        }
        o
    }

    /// No request offered, nothing taken; the slots' bits as the outside has them.
    fn idle_inputs(&mut self) {
        let (mut rc, mut runnable, mut err, mut pending) = (0u8, 0u8, 0u8, 0u8);
        for (k, s) in self.slots.iter().enumerate() {
            let state = self.engine.qps.get(s.qpn).map(|q| q.state());
            rc |= 1 << k;
            if matches!(state, Some(QpState::Rts | QpState::Err)) {
                runnable |= 1 << k;
            }
            if state == Some(QpState::Err) {
                err |= 1 << k;
            }
            if s.producer != s.consumer {
                pending |= 1 << k;
            }
        }
        let d = &mut self.sim.dut;
        d.set_rc(rc);
        d.set_runnable(runnable);
        d.set_err(err);
        d.set_pending(pending);
        d.set_s_init_valid(false);
        d.set_s_ack_valid(false);
        d.set_s_step_valid(false);
        d.set_m_step_ready(false);
        // The model's step: the sweep, then a turn from the round robin's next slot.
        d.set_s_step_sweep(true);
        d.set_s_step_turn(true);
        d.set_s_step_one(false);
        d.set_s_step_slot(0);
        d.set_m_pick_ready(false);
        d.set_s_res_valid(false);
        d.set_m_flush_ready(false);
        d.set_m_cqe_ready(false);
    }

    /// Offers a request (`offer` sets its valid) until it is taken, then waits for the block
    /// to be idle again (the requests' ready back); returns the requester's answer to an
    /// acknowledgement (`ack_done`), if one came.
    fn request(&mut self, what: &str, offer: impl Fn(&mut D)) -> Option<u8> {
        let mut taken = false;
        let mut ans = None;
        for _ in 0..STEP_LIMIT {
            self.idle_inputs();
            if !taken {
                offer(&mut self.sim.dut);
            }
            self.sim.settle();
            // IDLE: INIT's ready, and an acknowledgement's when no INIT is offered.
            let ready = self.sim.dut.s_init_ready();
            if self.sim.dut.ack_done() {
                assert!(ans.is_none(), "{what}: two answers to one acknowledgement");
                ans = Some(self.sim.dut.ack_ans());
            }
            self.err_requests();
            self.sim.step();
            self.counts.cycles += 1;
            if taken && ready {
                return ans;
            }
            taken |= ready;
        }
        panic!("{what}: the block did not take it or finish ({STEP_LIMIT} cycles)");
    }

    /// A QP the block moves to ERR: in the table at once (`err` shows it from the next cycle).
    fn err_requests(&mut self) {
        if self.sim.dut.m_err_valid() {
            let k = usize::from(self.sim.dut.m_err_slot());
            let qpn = self.slots[k].qpn;
            self.engine.qps.get_mut(qpn).expect("QP").set_error();
            self.counts.errors += 1;
        }
    }

    /// Sets the clock the block reads (the model's `Queues::now`).
    pub fn set_now(&mut self, now: u64) {
        self.sim.dut.set_s_now(now);
    }

    /// An acknowledgement for slot `k`: the requester's answer code.
    pub fn ack(&mut self, k: usize, psn: u32, syndrome: u8) -> u8 {
        let rnr = self.rel.scale.rnr_delay(syndrome & 0x1F);
        let d = &mut self.sim.dut;
        d.set_s_ack_slot(k as u8);
        d.set_s_ack_psn(psn);
        d.set_s_ack_syndrome(syndrome);
        d.set_s_ack_rnr_ticks(rnr);
        self.request("an acknowledgement", |d| d.set_s_ack_valid(true))
            .unwrap_or_else(|| panic!("acknowledgement of slot {k}: no answer"))
    }

    /// The requester's state after its last answer: (slot, una, snd, nxt, error, outstanding).
    pub fn shown(&self) -> (usize, u32, u32, u32, bool, usize) {
        let d = &self.sim.dut;
        (
            usize::from(d.st_slot()),
            d.st_una(),
            d.st_snd(),
            d.st_nxt(),
            d.st_error(),
            usize::from(d.st_outstanding()),
        )
    }

    /// One step of the block, at clock `now`, its picks answered by the data path: the sweep,
    /// then a turn from the round robin's next slot (the model's `Queues::step`).
    pub fn step(&mut self, now: u64) -> StepOut {
        self.step_as(now, StepKind::Whole)
    }

    /// The model's step as the engine asks for it: a step that only sweeps, then a turn on
    /// slot `turn` alone (the slot the model's round robin chose), if any. Their sum is
    /// [`Outside::step`]'s, as a turn on the first ready slot skips the others unchanged.
    pub fn step_split(&mut self, now: u64, turn: Option<usize>) -> StepOut {
        let swept = self.step_as(now, StepKind::Sweep);
        assert_eq!(
            swept,
            StepOut {
                ran: None,
                cqe: None,
                frames: Vec::new()
            },
            "a sweep alone ran a turn"
        );
        match turn {
            Some(k) => self.step_as(now, StepKind::Turn(k)),
            None => swept,
        }
    }

    fn step_as(&mut self, now: u64, kind: StepKind) -> StepOut {
        self.set_now(now);
        let mut out = StepOut {
            ran: None,
            cqe: None,
            frames: Vec::new(),
        };
        let mut taken = false;
        let mut prepared = false;
        // A pick taken and its answer, with the cycles left before it is offered.
        let mut res: Option<(Res, u32)> = None;
        for _ in 0..STEP_LIMIT {
            self.idle_inputs();
            let d = &mut self.sim.dut;
            d.set_s_step_valid(!taken);
            d.set_s_step_sweep(!matches!(kind, StepKind::Turn(_)));
            d.set_s_step_turn(kind != StepKind::Sweep);
            if let StepKind::Turn(k) = kind {
                d.set_s_step_one(true);
                d.set_s_step_slot(k as u8);
            }
            let r = self.rng.gen_bool(self.load.ready);
            d.set_m_step_ready(r);
            d.set_m_pick_ready(res.is_none() && self.rng.gen_bool(self.load.ready));
            d.set_m_flush_ready(self.rng.gen_bool(self.load.ready));
            d.set_m_cqe_ready(self.rng.gen_bool(self.load.ready));
            if let Some((a, 0)) = res {
                d.set_s_res_valid(true);
                d.set_s_res_index(a.index);
                d.set_s_res_status(a.status);
                d.set_s_res_packets(a.packets);
                d.set_s_res_signaled(a.signaled);
                d.set_s_res_cqe(cqe_words(&a.cqe));
            }
            self.sim.settle();
            let d = &self.sim.dut;
            taken |= d.s_step_ready();
            if d.m_pick_valid() && d.m_pick_ready() {
                prepared |= d.m_pick_prep();
                let r = self.answer(&mut out.frames);
                let wait = self.rng.gen_range(0..=self.load.latency);
                res = Some((r, wait));
            } else if let Some((_, 0)) = res {
                if self.sim.dut.s_res_ready() {
                    res = None;
                }
            } else if let Some((_, n)) = res.as_mut() {
                *n -= 1;
            }
            let d = &self.sim.dut;
            if d.m_flush_valid() && d.m_flush_ready() {
                let k = usize::from(d.m_flush_slot());
                assert!(out.cqe.is_none(), "a flush after a completion in one step");
                out.cqe = Some(self.flush(k, &mut out.frames));
            }
            let d = &self.sim.dut;
            if d.m_cqe_valid() && d.m_cqe_ready() {
                assert!(out.cqe.is_none(), "two completions in one step");
                out.cqe = Some(cqe_of(&d.m_cqe()));
                self.counts.cqes += 1;
            }
            // A held failure leaves with its QP moved to ERR.
            if d.m_cqe_valid() && d.m_err_valid() {
                if prepared {
                    self.counts.held_at_once += 1;
                } else {
                    self.counts.held_later += 1;
                }
            }
            let d = &self.sim.dut;
            let done = d.m_step_valid() && d.m_step_ready();
            if done && d.m_step_ran() {
                out.ran = Some(self.slots[usize::from(d.m_step_slot())].qpn);
            }
            self.err_requests();
            self.sim.step();
            self.counts.cycles += 1;
            if done {
                assert!(
                    res.is_none(),
                    "the step ended with a pick's answer not taken"
                );
                return out;
            }
        }
        panic!("a step not done after {STEP_LIMIT} cycles");
    }

    /// The data path's answer to the pick the block offers now.
    fn answer(&mut self, frames: &mut Vec<Vec<u8>>) -> Res {
        let d = &self.sim.dut;
        let k = usize::from(d.m_pick_slot());
        let s = self.slots[k];
        let stride = s.ring.stride_blocks() as usize;
        if d.m_pick_prep() {
            self.counts.prepares += 1;
            assert_ne!(
                s.producer, s.consumer,
                "slot {k}: a prepare pick with nothing posted"
            );
            let index = s.consumer;
            self.slots[k].consumer += 1;
            let got =
                self.engine
                    .rc_fetch_prepare(s.qpn, &self.mem, s.ring.addr(index), stride, false);
            return match got {
                Ok(w) => Res {
                    index,
                    status: 0,
                    packets: w.packets,
                    signaled: w.signaled,
                    cqe: w.cqe,
                },
                Err(c) => Res {
                    index,
                    status: c.status.code(),
                    packets: 0,
                    signaled: false,
                    cqe: c,
                },
            };
        }
        self.counts.packets += 1;
        let index = d.m_pick_index();
        let pkt = Packet {
            psn: Psn::from_bits_truncate(d.m_pick_psn()),
            wr_id: index.into(),
            index: d.m_pick_packet(),
            packets: 0,
            ack_req: d.m_pick_ack_req(),
            resend: false,
        };
        let sent = model_packet(&self.engine, &self.mem, s.qpn, &s.ring, &pkt, &mut |f| {
            frames.push(f.to_vec())
        });
        let status = sent.err().map_or(0, |s| s.code());
        if status != 0 {
            self.counts.refused += 1;
        }
        // A packet's answer carries no completion; the block must not read one.
        let junk = Cqe {
            wr_id: u64::MAX,
            qpn: 0xFF_FFFF,
            byte_len: u32::MAX,
            wqe_index: u32::MAX,
            opcode: None,
            status: Status::GeneralErr,
            phase: false,
        };
        Res {
            index: u32::MAX,
            status,
            packets: 0xFF_FFFF,
            signaled: true,
            cqe: junk,
        }
    }

    /// Slot `k`'s next WQE run as a whole on its QP in ERR, as `Queues::step` runs one with
    /// the transport off: its completion.
    fn flush(&mut self, k: usize, frames: &mut Vec<Vec<u8>>) -> Cqe {
        self.counts.flushes += 1;
        let s = self.slots[k];
        assert_ne!(
            s.producer, s.consumer,
            "slot {k}: a flush with nothing posted"
        );
        let index = s.consumer;
        self.slots[k].consumer += 1;
        let stride = s.ring.stride_blocks() as usize;
        let mut wqe = [0u8; MAX_WQE_BYTES];
        let cqe = match fetch(&self.mem, s.ring.addr(index), stride, &mut wqe) {
            Ok(n) => self
                .engine
                .execute(s.qpn, &wqe[..n], &self.mem, &mut |f: &[u8]| {
                    frames.push(f.to_vec())
                }),
            Err((status, n)) => self.engine.fail(s.qpn, &wqe[..n], status).map(Some),
        };
        cqe.expect("a QP in the table")
            .expect("a flush completes every WQE")
    }
}
