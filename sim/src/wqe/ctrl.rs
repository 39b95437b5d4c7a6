//! A bench around rtl/wqe/wqe_ctrl.sv, the WQE engine's control plane: register operations
//! through the AXI4-Lite master ([`crate::axil`]), and a stand-in data path that takes picks with
//! random back-pressure, holds a few in flight, takes their PSNs, moves QPs to ERR, writes
//! completions and retires them. Every observation goes to a log of [`Timed`] events, each with the
//! cycle whose state it reflects or from which it is visible, so that a test can replay the log
//! through the model in cycle order (docs/wqe-ctrl.md, "Control plane (RTL)", gives those timings).

use super::bits::Unpacker;
use crate::axil::{Master, Op};
use crate::duts::WqeCtrlPorts;
use crate::harness::Sim;
use crate::stream::TestRng;
use rand::Rng;
use std::collections::VecDeque;

/// Cycles from the state a pick reflects to the first cycle it is offered (wqe_sched.sv,
/// `PICK_LAG`).
pub const PICK_LAG: u64 = 12;

crate::axil_port_fns!(WqeCtrlPorts);

/// A QP context as a pick carries it (`wqe_pkg::qp_ctx_t`); addresses in network order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QpCtx {
    /// QPN.
    pub qpn: u32,
    /// UD (else RC).
    pub ud: bool,
    /// Protection domain.
    pub pd: u32,
    /// Path MTU code.
    pub mtu: u8,
    /// RC destination QPN.
    pub dest_qpn: u32,
    /// Q_Key.
    pub qkey: u32,
    /// RC over IPv6.
    pub ipv6: bool,
    /// RC VLAN tag.
    pub vlan: bool,
    /// VLAN ID.
    pub vid: u16,
    /// PCP.
    pub pcp: u8,
    /// Traffic class.
    pub tclass: u8,
    /// Hop limit.
    pub hop_limit: u8,
    /// RC flow label fixed at RTR.
    pub flow_label: u32,
    /// RC UDP source port fixed at RTR.
    pub udp_sport: u16,
    /// Destination MAC.
    pub dmac: [u8; 6],
    /// Source MAC.
    pub smac: [u8; 6],
    /// Source address (IPv4 in the last four bytes).
    pub src_ip: [u8; 16],
    /// Destination address (IPv4 in the last four bytes).
    pub dst_ip: [u8; 16],
    /// A raw-packet QP.
    pub raw: bool,
}

/// Field widths of `qp_ctx_t`, first (most significant) first.
const CTX_FIELDS: [u32; 19] = [
    24, 1, 32, 3, 24, 32, 1, 1, 12, 3, 8, 8, 20, 16, 48, 48, 128, 128, 1,
];

/// Bits of `qp_ctx_t`.
pub const CTX_BITS: u32 = {
    let mut n = 0;
    let mut i = 0;
    while i < CTX_FIELDS.len() {
        n += CTX_FIELDS[i];
        i += 1;
    }
    n
};

impl QpCtx {
    /// Decodes the port's words (bit 0 of word 0 is the struct's last bit).
    pub fn from_words(words: &[u32]) -> QpCtx {
        let mut u = Unpacker::new(words, CTX_BITS as usize);
        let f = CTX_FIELDS.map(|w| u.take(w as usize));
        let mac = |v: u128| -> [u8; 6] { (v as u64).to_be_bytes()[2..].try_into().unwrap() };
        QpCtx {
            qpn: f[0] as u32,
            ud: f[1] != 0,
            pd: f[2] as u32,
            mtu: f[3] as u8,
            dest_qpn: f[4] as u32,
            qkey: f[5] as u32,
            ipv6: f[6] != 0,
            vlan: f[7] != 0,
            vid: f[8] as u16,
            pcp: f[9] as u8,
            tclass: f[10] as u8,
            hop_limit: f[11] as u8,
            flow_label: f[12] as u32,
            udp_sport: f[13] as u16,
            dmac: mac(f[14]),
            smac: mac(f[15]),
            src_ip: f[16].to_be_bytes(),
            dst_ip: f[17].to_be_bytes(),
            raw: f[18] != 0,
        }
    }
}

/// One pick as offered on `m_pick_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pick {
    /// QP slot.
    pub slot: u8,
    /// The WQE's ring index.
    pub index: u32,
    /// The WQE's host address.
    pub addr: u64,
    /// The ring's stride.
    pub stride_log2: u8,
    /// The QP.
    pub ctx: QpCtx,
}

fn pick_of<D: WqeCtrlPorts>(d: &D) -> Pick {
    Pick {
        slot: d.m_pick_slot(),
        index: d.m_pick_index(),
        addr: d.m_pick_addr(),
        stride_log2: d.m_pick_stride_log2(),
        ctx: QpCtx::from_words(&d.m_pick_ctx()),
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
    /// A register read returned `data`: the state of cycle `at` (its AR acceptance).
    Read {
        /// Byte address.
        addr: u32,
        /// The word.
        data: u32,
        /// The tag it was pushed with.
        tag: u64,
    },
    /// A pick, first offered in `at + PICK_LAG`: it reflects the state of `at`.
    Pick(Pick),
    /// `wqe_retire` pulsed; visible from `at`.
    Retire,
    /// `cqe_written` pulsed; visible from `at`.
    CqeWritten,
    /// `frame_sent` pulsed; visible from `at`.
    Frame,
    /// `cq_fault` pulsed; visible from `at`.
    CqFault,
    /// `err_set` of a slot; visible from `at`.
    ErrSet(u8),
    /// A PSN take in cycle `at` and its answer.
    PsnTake {
        /// Slot.
        slot: u8,
        /// PSNs taken.
        count: u32,
        /// `psn_take_first`.
        first: u32,
    },
    /// The memory-region write port pulsed in `at`.
    MrWrite {
        /// Slot.
        slot: u32,
        /// Clear (else write).
        clear: bool,
        /// The region's lkey.
        lkey: u32,
    },
    /// `qp_err` has this value from `at` on.
    QpErr(u64),
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
    /// `m_pick_ready` low.
    pub stall: f64,
    /// WQEs held at once (at least 1).
    pub max_in_flight: usize,
    /// Cycles a WQE stays, at most (uniform from 0).
    pub max_hold: u32,
    /// PSN takes per WQE, at most (uniform from 0), each of 1..=`max_psns` PSNs.
    pub max_takes: u32,
    /// PSNs per take, at most.
    pub max_psns: u32,
    /// Per WQE: it moves its QP to ERR.
    pub err: f64,
    /// Per WQE: it writes a completion.
    pub cqe: f64,
    /// Per cycle: a completion write faults.
    pub fault: f64,
    /// Per cycle: a frame goes out.
    pub frame: f64,
}

impl Default for DataPath {
    fn default() -> Self {
        DataPath {
            stall: 0.3,
            max_in_flight: 3,
            max_hold: 12,
            max_takes: 3,
            max_psns: 40,
            err: 0.05,
            cqe: 0.8,
            fault: 0.0001,
            frame: 0.2,
        }
    }
}

/// What a WQE in flight still has to do, in order; retired when empty.
#[derive(Clone, Copy, Debug)]
enum Step {
    Wait,
    Take(u32),
    Err,
    Cqe,
}

#[derive(Debug)]
struct InFlight {
    slot: u8,
    steps: VecDeque<Step>,
}

/// The bench.
pub struct Bench<D: WqeCtrlPorts> {
    /// The simulation.
    pub sim: Sim<D>,
    bus: Master,
    dp: DataPath,
    rng: TestRng,
    in_flight: VecDeque<InFlight>,
    offered: Option<(Pick, u64)>,
    take: Option<(u8, u32, u64)>,
    qp_err: u64,
    picks: u64,
}

impl<D: WqeCtrlPorts> Bench<D> {
    /// A bench out of reset. `bus_delay`: the master's per-cycle probability of holding back a
    /// valid or ready (at most 4 cycles in a row).
    pub fn new(run: &str, seed: u64, dp: DataPath, bus_delay: f64) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        sim.reset(3);
        Bench {
            sim,
            bus: Master::new(seed, bus_delay, 4),
            dp,
            rng: crate::stream::rng(seed ^ 0xDA7A_9A7E),
            in_flight: VecDeque::new(),
            offered: None,
            take: None,
            qp_err: 0,
            picks: 0,
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

    /// WQEs the data path holds.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Picks taken so far.
    pub fn picks(&self) -> u64 {
        self.picks
    }

    /// Changes the data path's behaviour from now on.
    pub fn set_data_path(&mut self, dp: DataPath) {
        self.dp = dp;
    }

    /// One clock cycle; returns what it showed.
    pub fn step(&mut self) -> Result<Vec<Timed>, String> {
        let cycle = self.sim.cycle();
        let mut out = Vec::new();
        let pins = self.bus.drive();
        drive_axil(&mut self.sim.dut, &pins);

        // The data path: the oldest WQE in flight does one step per cycle.
        let (mut retire, mut cqe, mut err, mut take) = (false, false, None, None);
        if let Some(w) = self.in_flight.front_mut() {
            match w.steps.pop_front() {
                None => retire = true,
                Some(Step::Wait) => {}
                Some(Step::Take(n)) => take = Some((w.slot, n)),
                Some(Step::Err) => err = Some(w.slot),
                Some(Step::Cqe) => cqe = true,
            }
        }
        if retire {
            self.in_flight.pop_front();
        }
        let fault = self.dp.fault > 0.0 && self.rng.gen_bool(self.dp.fault);
        let frame = self.dp.frame > 0.0 && self.rng.gen_bool(self.dp.frame);
        let ready = self.in_flight.len() < self.dp.max_in_flight.max(1)
            && (self.dp.stall <= 0.0 || !self.rng.gen_bool(self.dp.stall));
        let d = &mut self.sim.dut;
        d.set_m_pick_ready(ready);
        d.set_dp_idle(self.in_flight.is_empty());
        d.set_wqe_retire(retire);
        d.set_cqe_written(cqe);
        d.set_frame_sent(frame);
        d.set_cq_fault(fault);
        d.set_err_set_valid(err.is_some());
        d.set_err_set_slot(err.unwrap_or(0));
        d.set_psn_take_valid(take.is_some());
        d.set_psn_take_slot(take.map_or(0, |t| t.0));
        d.set_psn_take_count(take.map_or(0, |t| t.1));
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
            let event = match done.op {
                Op::Write { addr, data, strb } => Event::Write {
                    addr,
                    data,
                    strb,
                    tag: done.tag,
                    accepted: done.accepted,
                },
                Op::Read { addr } => Event::Read {
                    addr,
                    data: done.data,
                    tag: done.tag,
                },
            };
            out.push(Timed { at: done.at, event });
        }

        // Picks: each is logged once, and must not change while it waits.
        if d.m_pick_valid() {
            let p = pick_of(d);
            match self.offered {
                Some((held, _)) if held != p => {
                    return Err(format!(
                        "cycle {cycle}: the pick changed while offered: {held:?} -> {p:?}"
                    ));
                }
                Some(_) => {}
                None => {
                    if cycle < PICK_LAG {
                        return Err(format!("cycle {cycle}: a pick before any state"));
                    }
                    out.push(Timed {
                        at: cycle - PICK_LAG,
                        event: Event::Pick(p),
                    });
                    self.offered = Some((p, cycle));
                }
            }
            if ready {
                self.offered = None;
                self.picks += 1;
                let mut steps = VecDeque::new();
                for _ in 0..self.rng.gen_range(0..=self.dp.max_hold) {
                    steps.push_back(Step::Wait);
                }
                for _ in 0..self.rng.gen_range(0..=self.dp.max_takes) {
                    let n = self.rng.gen_range(1..=self.dp.max_psns.max(1));
                    let at = self.rng.gen_range(0..=steps.len());
                    steps.insert(at, Step::Take(n));
                }
                if self.dp.err > 0.0 && self.rng.gen_bool(self.dp.err) {
                    steps.push_back(Step::Err);
                }
                if self.dp.cqe > 0.0 && self.rng.gen_bool(self.dp.cqe) {
                    steps.push_back(Step::Cqe);
                }
                self.in_flight.push_back(InFlight {
                    slot: p.slot,
                    steps,
                });
            }
        } else if let Some((held, since)) = self.offered {
            return Err(format!(
                "cycle {cycle}: the pick offered since {since} was withdrawn: {held:?}"
            ));
        }

        // Answers and pulses.
        if let Some((slot, count, at)) = self.take.take() {
            out.push(Timed {
                at,
                event: Event::PsnTake {
                    slot,
                    count,
                    first: d.psn_take_first(),
                },
            });
        }
        self.take = take.map(|(s, n)| (s, n, cycle));
        if d.mr_wr_valid() {
            out.push(Timed {
                at: cycle,
                event: Event::MrWrite {
                    slot: d.mr_wr_slot() as u32,
                    clear: d.mr_wr_clear(),
                    lkey: d.mr_wr_lkey(),
                },
            });
        }
        let qp_err = d.qp_err();
        if qp_err != self.qp_err {
            self.qp_err = qp_err;
            out.push(Timed {
                at: cycle,
                event: Event::QpErr(qp_err),
            });
        }
        let pulses = [
            (retire, Event::Retire),
            (cqe, Event::CqeWritten),
            (frame, Event::Frame),
            (fault, Event::CqFault),
        ];
        for (on, event) in pulses {
            if on {
                out.push(Timed {
                    at: cycle + 1,
                    event,
                });
            }
        }
        if let Some(slot) = err {
            out.push(Timed {
                at: cycle + 1,
                event: Event::ErrSet(slot),
            });
        }
        self.sim.step();
        Ok(out)
    }
}
