//! The WQE engine's control plane (rtl/wqe/wqe_ctrl.sv) against the model, cycle by cycle.
//!
//! A random program of register operations (QP writes, modifies and destroys, legal and not;
//! memory-region writes and clears; send doorbells repeated, stale, ahead and too far; completion
//! consumer writes; STATUS clears; reads of every register) runs through the AXI4-Lite master
//! while the bench's stand-in data path takes picks with random back-pressure, holds several,
//! takes PSNs, moves QPs to ERR, writes completions and retires them. The bench logs what the DUT
//! did with the cycle each observation reflects; this test replays the log in cycle order through
//! the model (`QpTable`, `Doorbell`, `CompletionRing`, the round robin of `Queues::step`, a
//! memory-region table with the `mr_slot` rule) and checks every read, every PSN, every MR write
//! and every pick's slot, index, address and context, including the RC entropy fixed at RTR under
//! each profile. Seeded: `ROCENIC_SEED=N` replays a run.

use rand::rngs::SmallRng;
use rand::Rng;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::qp::{
    Access, AddressVector, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpContext, QpState,
    QpTable, QPN_MAX, QPN_MIN,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::regs::{self, command, control, op, qp_flags, status};
use rocenic_model::wqe::{CompletionRing, Doorbell, Nic, Ring, SendRing};
use rocenic_sim::axil::Op;
use rocenic_sim::duts::{WqeCtrl, WqeCtrl8, WqeCtrlPorts};
use rocenic_sim::stream;
use rocenic_sim::wqe::ctrl::{Bench, DataPath, Event, Pick, QpCtx, Timed, PICK_LAG};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// How far the replay runs behind the bench: every event is known by then (picks are logged
/// PICK_LAG cycles after the state they reflect, responses within a few cycles).
const LAG: u64 = PICK_LAG + 8;

/// Cycles from the state a pick reflects to the one from which its slot's consumer has moved
/// (wqe_sched.sv: the pick starts four cycles after, R_TAKE3 stores the consumer three later).
const TAKE_LAG: u64 = 8;

/// What a COMMAND write carries, as the program staged it.
#[derive(Clone, Copy, Debug)]
enum Staged {
    /// A valid QP and its send ring.
    Qp(u32, QpConfig, SendRing),
    /// A QP whose ring shape or MTU the RTL refuses.
    BadShape,
    /// Nothing the command needs (the MR commands read the staged lkey from the registers).
    None,
}

/// One slot of the model.
#[derive(Clone, Copy, Debug)]
struct Slot {
    qpn: u32,
    ring: SendRing,
    db: Doorbell,
}

/// Counts that show the run did what it is meant to.
#[derive(Debug, Default)]
struct Stats {
    picks: u64,
    faults: u64,
    cmds: u64,
    cmd_errors: u64,
    db_writes: u64,
    db_errors: u64,
    cq_writes: u64,
    cq_full_cycles: u64,
    rtr_rc: u64,
    mr_writes: u64,
    psn_takes: u64,
    reads: u64,
}

/// The model side of the replay.
struct Model<const N: usize> {
    qps: usize,
    mrs: usize,
    table: QpTable<N>,
    slots: Vec<Option<Slot>>,
    mr: Vec<Option<u32>>,
    mr_expect: VecDeque<(u32, bool, u32)>,
    cq: CompletionRing,
    inflight: u32,
    next: usize,
    db_error: bool,
    cq_fault: bool,
    cmd_error: bool,
    cmd: Option<(u32, Staged)>,
    /// Picks whose send-ring consumer has yet to advance: (cycle it does, slot). The ring unit
    /// takes the index in the cycles after the pick starts, so a doorbell finishing just then
    /// was measured against the consumer before it.
    takes: VecDeque<(u64, usize)>,
    /// A command was applied and the RTL may not have applied it yet (until a STATUS read shows
    /// BUSY clear): qp_err is not compared meanwhile.
    unsettled: bool,
    wqes: u32,
    frames: u32,
    regs: HashMap<u32, u32>,
    rtl_qp_err: u64,
    stats: Stats,
}

fn merge(old: u32, data: u32, strb: u8) -> u32 {
    (0..4).fold(0, |v, b| {
        let src = if strb & (1 << b) != 0 { data } else { old };
        v | (src & (0xFF << (8 * b)))
    })
}

/// The registers software can read back as written.
fn rw_register(addr: u32) -> bool {
    regs::MAP.iter().any(|r| {
        r.access == regs::Access::Rw
            && addr >= r.offset
            && addr < r.offset + 4 * r.words
            && ![
                regs::STATUS,
                regs::CQ_CONSUMER,
                regs::CONTROL,
                regs::CQ_LOG2,
            ]
            .contains(&r.offset)
    })
}

fn expected_ctx(c: &QpContext) -> QpCtx {
    let cfg = c.config();
    let av = cfg.av;
    let v4 = |a: Ipv4Address| {
        let mut b = [0u8; 16];
        b[12..].copy_from_slice(&a.0);
        b
    };
    let (src_ip, dst_ip) = match av.map(|a| a.ip) {
        Some(IpPair::V4 { src, dst }) => (v4(src), v4(dst)),
        Some(IpPair::V6 { src, dst }) => (src.0, dst.0),
        None => ([0; 16], [0; 16]),
    };
    let e = c.entropy();
    QpCtx {
        qpn: c.qpn(),
        ud: cfg.qp_type == QpType::Ud,
        pd: cfg.pd,
        mtu: cfg.mtu.code(),
        dest_qpn: cfg.dest_qpn,
        qkey: cfg.q_key,
        ipv6: av.is_some_and(|a| a.is_ipv6()),
        vlan: av.is_some_and(|a| a.vlan.is_some()),
        vid: av.and_then(|a| a.vlan).unwrap_or(0),
        pcp: av.map_or(0, |a| a.pcp),
        tclass: av.map_or(0, |a| a.traffic_class),
        hop_limit: av.map_or(0, |a| a.hop_limit),
        flow_label: e.map_or(0, |e| e.flow_label),
        udp_sport: e.map_or(0, |e| e.udp_sport),
        dmac: av.map_or([0; 6], |a| a.dst_mac.0),
        smac: av.map_or([0; 6], |a| a.src_mac.0),
        src_ip,
        dst_ip,
    }
}

impl<const N: usize> Model<N> {
    fn new(qps: usize, mrs: usize, profile: Profile) -> Self {
        Model {
            qps,
            mrs,
            table: QpTable::new(profile),
            slots: vec![None; qps],
            mr: vec![None; mrs],
            mr_expect: VecDeque::new(),
            cq: CompletionRing::new(Ring::new(0).unwrap(), 0).unwrap(),
            inflight: 0,
            next: 0,
            db_error: false,
            cq_fault: false,
            cmd_error: false,
            cmd: None,
            takes: VecDeque::new(),
            unsettled: false,
            wqes: 0,
            frames: 0,
            regs: HashMap::new(),
            rtl_qp_err: 0,
            stats: Stats::default(),
        }
    }

    fn reg(&self, addr: u32) -> u32 {
        self.regs.get(&addr).copied().unwrap_or(0)
    }

    fn enabled(&self) -> bool {
        self.reg(regs::CONTROL) & 1 != 0
    }

    fn qp_err(&self) -> u64 {
        self.slots.iter().enumerate().fold(0, |v, (i, s)| match s {
            Some(s) if self.table.get(s.qpn).unwrap().state() == QpState::Err => v | 1 << i,
            _ => v,
        })
    }

    fn eligible(&self, i: usize) -> bool {
        self.slots[i].is_some_and(|s| {
            s.db.pending() > 0
                && matches!(
                    self.table.get(s.qpn).unwrap().state(),
                    QpState::Rts | QpState::Err
                )
        })
    }

    fn room(&self) -> bool {
        self.cq.used() + self.inflight < self.cq.ring().entries()
    }

    fn write(&mut self, addr: u32, data: u32, strb: u8, staged: Staged) {
        let old = self.reg(addr);
        self.regs.insert(addr, merge(old, data, strb));
        match addr {
            regs::STATUS if strb & 1 != 0 => {
                if status::DB_ERROR.get(data) != 0 {
                    self.db_error = false;
                }
                if status::CQ_FAULT.get(data) != 0 {
                    self.cq_fault = false;
                }
            }
            regs::COMMAND => self.cmd = Some((data, staged)),
            regs::CQ_LOG2 => {
                let log2 = (self.reg(regs::CQ_LOG2) & 0x1F).min(16);
                self.cq = CompletionRing::new(Ring::new(log2).unwrap(), 0).unwrap();
            }
            regs::CQ_CONSUMER => {
                self.stats.cq_writes += 1;
                if self.cq.write_consumer(data).is_err() {
                    self.db_error = true;
                }
            }
            a if a >= regs::SQ_DOORBELL => {
                let slot = ((a - regs::SQ_DOORBELL) / 4) as usize;
                if let Some(Some(s)) = self.slots.get_mut(slot) {
                    self.stats.db_writes += 1;
                    if s.db.write(data).is_err() {
                        self.db_error = true;
                        self.stats.db_errors += 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// Carries out the pending command; returns whether it was refused.
    fn command(&mut self, word: u32, staged: Staged) -> bool {
        let slot = command::SLOT.get(word) as usize;
        let code = command::STATE.get(word) as u8;
        match command::OP.get(word) {
            op::QP_WRITE => match staged {
                Staged::Qp(qpn, config, ring) if slot < self.qps => {
                    if let Some(old) = self.slots[slot].take() {
                        self.table.destroy(old.qpn).unwrap();
                    }
                    self.table.create(qpn, config).unwrap();
                    self.slots[slot] = Some(Slot {
                        qpn,
                        ring,
                        db: Doorbell::new(ring.ring(), 0),
                    });
                    false
                }
                _ => true,
            },
            op::QP_MODIFY => {
                let (Some(Some(s)), Some(to)) =
                    (self.slots.get_mut(slot), QpState::from_code(code))
                else {
                    return true;
                };
                let from = self.table.get(s.qpn).unwrap().state();
                if self.table.modify(s.qpn, to).is_err() {
                    return true;
                }
                if to == QpState::Reset {
                    s.db = Doorbell::new(s.ring.ring(), 0);
                }
                if to == QpState::Rtr && from == QpState::Init {
                    self.stats.rtr_rc +=
                        u64::from(self.table.get(s.qpn).unwrap().entropy().is_some());
                }
                false
            }
            op::QP_DESTROY => match self.slots.get_mut(slot) {
                Some(s @ Some(_)) => {
                    self.table.destroy(s.take().unwrap().qpn).unwrap();
                    false
                }
                _ => true,
            },
            o @ (op::MR_WRITE | op::MR_CLEAR) => {
                let lkey = self.reg(regs::MR_LKEY);
                let slot = regs::mr_slot(lkey, self.mrs as u32) as usize;
                let clear = o == op::MR_CLEAR;
                let ok = match self.mr[slot] {
                    Some(k) => k == lkey,
                    None => !clear,
                };
                if ok {
                    self.mr[slot] = (!clear).then_some(lkey);
                    self.mr_expect.push_back((slot as u32, clear, lkey));
                }
                !ok
            }
            _ => true,
        }
    }

    /// A read of `addr` in cycle `at` returned `data`.
    fn read(&mut self, at: u64, addr: u32, data: u32) -> Result<(), String> {
        self.stats.reads += 1;
        let want = match addr {
            regs::ID => regs::ID_VALUE,
            regs::CAPS => {
                regs::caps::QPS.put(self.qps as u32)
                    | regs::caps::MRS.put(self.mrs as u32)
                    | regs::caps::MAX_SGE.put(16)
                    | regs::caps::DATA_BYTES.put(8)
            }
            regs::CONTROL => self.reg(regs::CONTROL) & 0x31,
            regs::STATUS => {
                let busy = status::BUSY.get(data) != 0;
                if busy && self.cmd.is_none() && !self.unsettled {
                    return Err(format!("cycle {at}: STATUS.BUSY with no command"));
                }
                if !busy {
                    if self.cmd.is_some() {
                        return Err(format!("cycle {at}: STATUS.BUSY clear before the command"));
                    }
                    self.unsettled = false;
                }
                let idle = status::IDLE.get(data) != 0;
                if idle && (busy || self.inflight != 0) {
                    return Err(format!(
                        "cycle {at}: STATUS.IDLE with {} WQEs in flight",
                        self.inflight
                    ));
                }
                let cmd_error = if busy {
                    status::CMD_ERROR.get(data) != 0
                } else {
                    self.cmd_error
                };
                status::BUSY.put(busy.into())
                    | status::CMD_ERROR.put(cmd_error.into())
                    | status::DB_ERROR.put(self.db_error.into())
                    | status::CQ_FAULT.put(self.cq_fault.into())
                    | status::IDLE.put(idle.into())
            }
            regs::CQ_LOG2 => self.reg(regs::CQ_LOG2) & 0x1F,
            regs::CQ_CONSUMER => self.cq.consumer(),
            regs::CQ_PRODUCER => self.cq.producer(),
            regs::WQES => self.wqes,
            regs::FRAMES => self.frames,
            a if rw_register(a) => self.reg(a),
            _ => 0,
        };
        if data != want {
            return Err(format!(
                "cycle {at}: read 0x{addr:04x} gave 0x{data:08x}, the model 0x{want:08x}"
            ));
        }
        Ok(())
    }

    /// The pick the RTL offered from the state of cycle `at`.
    fn pick(&mut self, at: u64, p: &Pick) -> Result<(), String> {
        if self.cmd.is_some() || !self.enabled() || self.cq_fault || !self.room() {
            return Err(format!(
                "cycle {at}: a pick while none may start (command {:?}, enable {}, CQ_FAULT {}, \
                 {} used + {} in flight of {}): {p:?}",
                self.cmd,
                self.enabled(),
                self.cq_fault,
                self.cq.used(),
                self.inflight,
                self.cq.ring().entries()
            ));
        }
        let Some(slot) = (0..self.qps)
            .map(|k| (self.next + k) % self.qps)
            .find(|&s| self.eligible(s))
        else {
            return Err(format!("cycle {at}: a pick with no eligible slot: {p:?}"));
        };
        let s = self.slots[slot].as_mut().unwrap();
        let index = s.db.consumer();
        self.takes.push_back((at + TAKE_LAG, slot));
        let want = Pick {
            slot: slot as u8,
            index,
            addr: s.ring.addr(index),
            stride_log2: s.ring.stride_blocks().trailing_zeros() as u8,
            ctx: expected_ctx(self.table.get(s.qpn).unwrap()),
        };
        if *p != want {
            let queues: Vec<String> = (0..self.qps)
                .map(|i| match self.slots[i] {
                    Some(s) => format!(
                        "{i}: {} {}..{}",
                        self.table.get(s.qpn).unwrap().state(),
                        s.db.consumer(),
                        s.db.producer()
                    ),
                    None => format!("{i}: -"),
                })
                .collect();
            return Err(format!(
                "cycle {at}: pick {} (next {}; {})\n  RTL   {p:?}\n  model {want:?}",
                self.stats.picks,
                self.next,
                queues.join(", ")
            ));
        }
        self.next = (slot + 1) % self.qps;
        self.inflight += 1;
        self.stats.picks += 1;
        Ok(())
    }

    /// Applies the events of cycle `t`, in the order the RTL sees them.
    fn cycle(&mut self, t: u64, events: Vec<(Event, Staged)>) -> Result<(), String> {
        while self.takes.front().is_some_and(|&(c, _)| c <= t) {
            let (_, slot) = self.takes.pop_front().unwrap();
            self.slots[slot].as_mut().unwrap().db.take().unwrap();
        }
        // Register writes took effect at the edge that started t, decided on the state of t - 1
        // (a doorbell on the indices of t - 3, which no pick's take touches in between).
        for (e, staged) in &events {
            if let Event::Write {
                addr, data, strb, ..
            } = *e
            {
                self.write(addr, data, strb, *staged);
            }
        }
        for (e, _) in &events {
            match *e {
                Event::Retire => {
                    self.inflight -= 1;
                    self.wqes = self.wqes.wrapping_add(1);
                }
                Event::CqeWritten => {
                    self.cq
                        .push()
                        .ok_or(format!("cycle {t}: a completion with the ring full"))?;
                }
                Event::Frame => self.frames = self.frames.wrapping_add(1),
                Event::CqFault => {
                    self.cq_fault = true;
                    self.stats.faults += 1;
                }
                Event::ErrSet(slot) => {
                    let s = self.slots[usize::from(slot)].ok_or("ERR set on an empty slot")?;
                    self.table.get_mut(s.qpn).unwrap().set_error();
                }
                _ => {}
            }
        }
        // A command runs once every WQE picked before it has retired.
        if self.inflight == 0 {
            if let Some((word, staged)) = self.cmd.take() {
                self.cmd_error = self.command(word, staged);
                self.unsettled = true;
                self.stats.cmds += 1;
                self.stats.cmd_errors += u64::from(self.cmd_error);
            }
        }
        // What the RTL showed in t: reads, PSNs, then the pick that sampled t.
        for (e, _) in &events {
            match *e {
                Event::Read { addr, data, .. } => self.read(t, addr, data)?,
                Event::PsnTake { slot, count, first } => {
                    self.stats.psn_takes += 1;
                    let s = self.slots[usize::from(slot)].ok_or("a PSN take of an empty slot")?;
                    let want = self.table.get_mut(s.qpn).unwrap().take_psns(count).get();
                    if first != want {
                        return Err(format!(
                            "cycle {t}: slot {slot} took {count} PSNs from 0x{first:06x}, the \
                             model from 0x{want:06x}"
                        ));
                    }
                }
                Event::MrWrite { slot, clear, lkey } => {
                    self.stats.mr_writes += 1;
                    let want = self.mr_expect.pop_front();
                    if want != Some((slot, clear, lkey)) {
                        return Err(format!(
                            "cycle {t}: MR write (slot {slot}, clear {clear}, lkey 0x{lkey:x}), \
                             the model {want:?}"
                        ));
                    }
                }
                Event::QpErr(v) => self.rtl_qp_err = v,
                _ => {}
            }
        }
        for (e, _) in &events {
            if let Event::Pick(p) = e {
                self.pick(t, p)?;
            }
        }
        if !self.room() && (0..self.qps).any(|s| self.eligible(s)) {
            self.stats.cq_full_cycles += 1;
        }
        if !self.unsettled && self.cmd.is_none() && self.qp_err() != self.rtl_qp_err {
            return Err(format!(
                "cycle {t}: qp_err 0x{:x}, the model 0x{:x}",
                self.rtl_qp_err,
                self.qp_err()
            ));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The random program.

fn random_config(rng: &mut SmallRng) -> QpConfig {
    let rc = rng.gen_bool(0.7);
    let mac = |rng: &mut SmallRng| EthernetAddress(rng.gen());
    let ip = if rng.gen_bool(0.5) {
        IpPair::V4 {
            src: Ipv4Address(rng.gen()),
            dst: Ipv4Address(rng.gen()),
        }
    } else {
        IpPair::V6 {
            src: Ipv6Address(rng.gen()),
            dst: Ipv6Address(rng.gen()),
        }
    };
    let av = AddressVector {
        vlan: rng.gen_bool(0.5).then(|| rng.gen_range(0..0xFFF)),
        pcp: rng.gen_range(0..8),
        traffic_class: rng.gen(),
        hop_limit: rng.gen_range(1..=255),
        flow_label: if rng.gen_bool(0.5) {
            0
        } else {
            rng.gen_range(1..1 << 20)
        },
        ..AddressVector::new(ip, mac(rng), mac(rng))
    };
    QpConfig {
        qp_type: if rc { QpType::Rc } else { QpType::Ud },
        pd: rng.gen_range(0..4),
        mtu: PathMtu::ALL[rng.gen_range(0..PathMtu::ALL.len())],
        psn: Psn::new(if rng.gen_bool(0.3) {
            0xFF_FFFF - rng.gen_range(0..64)
        } else {
            rng.gen_range(0..=0xFF_FFFF)
        })
        .unwrap(),
        dest_qpn: rng.gen_range(0..=QPN_MAX),
        q_key: rng.gen(),
        av: rc.then_some(av),
    }
}

fn random_ring(rng: &mut SmallRng) -> SendRing {
    let ring = Ring::new(if rng.gen_bool(0.8) {
        rng.gen_range(0..=3)
    } else {
        rng.gen_range(4..=16)
    })
    .unwrap();
    let stride = rng.gen_range(0..=4);
    let base = rng.gen_range(0..1u64 << 60) & !63;
    SendRing::new(ring, stride, base).unwrap()
}

/// The program's state: what it waits for, and the operations it queued by tag.
struct Program {
    rng: SmallRng,
    /// The run's entropy profile (kept in every CONTROL write).
    profile: Profile,
    next_tag: u64,
    staged: HashMap<u64, Staged>,
    /// Tags of STATUS reads that poll for a command's end.
    polls: HashMap<u64, ()>,
    /// The tag of a CQ_PRODUCER read whose answer picks the next consumer write.
    cq_read: Option<u64>,
    /// Commands of the action under way, each after the previous one's end.
    queue: VecDeque<Vec<(Op, Staged)>>,
    waiting: bool,
    /// Actions left during which completions are not consumed (so the ring fills up).
    pause: u32,
}

impl Program {
    fn push<D: WqeCtrlPorts>(&mut self, bench: &mut Bench<D>, op: Op, staged: Staged) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        self.staged.insert(tag, staged);
        bench.push(op, tag);
        tag
    }

    /// Queues the writes of a command step, then a poll of STATUS.
    fn run_step<D: WqeCtrlPorts>(&mut self, bench: &mut Bench<D>, ops: Vec<(Op, Staged)>) {
        for (op, staged) in ops {
            self.push(bench, op, staged);
        }
        let tag = self.push(bench, Op::Read { addr: regs::STATUS }, Staged::None);
        self.polls.insert(tag, ());
        self.waiting = true;
    }

    /// Reacts to what the bus returned this cycle.
    fn react<D: WqeCtrlPorts, const N: usize>(
        &mut self,
        bench: &mut Bench<D>,
        model: &Model<N>,
        events: &[Timed],
    ) {
        for t in events {
            let Event::Read { data, tag, .. } = t.event else {
                continue;
            };
            if self.polls.remove(&tag).is_some() {
                if status::BUSY.get(data) != 0 {
                    let tag = self.push(bench, Op::Read { addr: regs::STATUS }, Staged::None);
                    self.polls.insert(tag, ());
                } else if let Some(step) = self.queue.pop_front() {
                    self.run_step(bench, step);
                } else {
                    self.waiting = false;
                }
            } else if self.cq_read == Some(tag) {
                self.cq_read = None;
                let p = data;
                let c = model.cq.consumer();
                let value = match self.rng.gen_range(0..10) {
                    0..=5 => p,
                    6 => c.wrapping_add(self.rng.gen_range(0..=p.wrapping_sub(c).min(8))),
                    7 => p.wrapping_add(self.rng.gen_range(1..4)),
                    8 => c.wrapping_sub(self.rng.gen_range(1..4)),
                    _ => self.rng.gen(),
                };
                self.push(bench, Op::write(regs::CQ_CONSUMER, value), Staged::None);
            }
        }
    }

    /// A QP_WRITE step (staging and command) for `slot`, and the bring-up steps after it.
    fn create<const N: usize>(&mut self, model: &Model<N>, slot: u32) -> Vec<Vec<(Op, Staged)>> {
        let used: Vec<u32> = model.slots.iter().flatten().map(|s| s.qpn).collect();
        let qpn = loop {
            let q = self.rng.gen_range(QPN_MIN..=QPN_MAX);
            if !used.contains(&q) {
                break q;
            }
        };
        let config = random_config(&mut self.rng);
        let ring = random_ring(&mut self.rng);
        let mut writes = regs::qp_writes(qpn, &config, &ring, ring.addr(0)).to_vec();
        let staged = if self.rng.gen_bool(0.08) {
            // A shape the RTL refuses: stride past 16 blocks, ring past 2^16, or no MTU.
            let flags = &mut writes[1].1;
            match self.rng.gen_range(0..3) {
                0 => {
                    *flags =
                        (*flags & !(7 << 12)) | qp_flags::STRIDE_LOG2.put(self.rng.gen_range(5..8))
                }
                1 => {
                    *flags =
                        (*flags & !(31 << 16)) | qp_flags::RING_LOG2.put(self.rng.gen_range(17..32))
                }
                _ => {
                    *flags = (*flags & !(7 << 8))
                        | qp_flags::MTU.put([0, 6, 7][self.rng.gen_range(0..3)])
                }
            }
            Staged::BadShape
        } else {
            Staged::Qp(qpn, config, ring)
        };
        let mut step: Vec<(Op, Staged)> = writes
            .into_iter()
            .map(|(a, v)| (Op::write(a, v), Staged::None))
            .collect();
        let (a, v) = regs::qp_write(slot);
        step.push((Op::write(a, v), staged));
        let mut steps = vec![step];
        if self.rng.gen_bool(0.8) {
            for s in [QpState::Init, QpState::Rtr, QpState::Rts] {
                let (a, v) = regs::qp_modify(slot, s);
                steps.push(vec![(Op::write(a, v), Staged::None)]);
            }
        }
        steps
    }

    /// The next action, when the bus is free and no command is under way.
    fn act<D: WqeCtrlPorts, const N: usize>(&mut self, bench: &mut Bench<D>, model: &Model<N>) {
        let qps = model.qps as u32;
        self.pause = self.pause.saturating_sub(1);
        let rng = &mut self.rng;
        let some_slot = |rng: &mut SmallRng| -> u32 {
            let held: Vec<usize> = (0..model.qps)
                .filter(|&s| model.slots[s].is_some())
                .collect();
            match rng.gen_range(0..20) {
                0 => rng.gen_range(qps..=255),
                1..=3 => rng.gen_range(0..qps),
                _ if !held.is_empty() => held[rng.gen_range(0..held.len())] as u32,
                _ => rng.gen_range(0..qps),
            }
        };
        match rng.gen_range(0..100) {
            // Commands.
            0..=7 => {
                let slot = if rng.gen_bool(0.05) {
                    rng.gen_range(qps..=255)
                } else {
                    rng.gen_range(0..qps)
                };
                let mut steps = self.create(model, slot);
                let first = steps.remove(0);
                self.queue.extend(steps);
                self.run_step(bench, first);
            }
            8..=13 => {
                let slot = some_slot(rng);
                let code = match rng.gen_range(0..10) {
                    0..=3 => {
                        let now = model
                            .slots
                            .get(slot as usize)
                            .copied()
                            .flatten()
                            .map_or(QpState::Reset, |s| model.table.get(s.qpn).unwrap().state());
                        match now {
                            QpState::Reset => QpState::Init,
                            QpState::Init => QpState::Rtr,
                            QpState::Rtr | QpState::Rts => QpState::Rts,
                            QpState::Err => QpState::Reset,
                        }
                        .code()
                    }
                    4 => QpState::Err.code(),
                    5 => QpState::Reset.code(),
                    _ => rng.gen_range(0..8),
                };
                let word = command::OP.put(op::QP_MODIFY)
                    | command::SLOT.put(slot)
                    | command::STATE.put(code.into());
                self.run_step(bench, vec![(Op::write(regs::COMMAND, word), Staged::None)]);
            }
            14..=15 => {
                let slot = some_slot(rng);
                let word = command::OP.put(op::QP_DESTROY) | command::SLOT.put(slot);
                self.run_step(bench, vec![(Op::write(regs::COMMAND, word), Staged::None)]);
            }
            16..=21 => {
                let mrs = model.mrs as u32;
                let held: Vec<u32> = model.mr.iter().flatten().copied().collect();
                let lkey = if !held.is_empty() && rng.gen_bool(0.4) {
                    held[rng.gen_range(0..held.len())]
                } else {
                    (rng.gen_range(0..4u32) << 24)
                        | (rng.gen_range(0..2 * mrs) << regs::MR_SLOT_LSB)
                        | rng.gen_range(0..4)
                };
                let mut step: Vec<(Op, Staged)> = if rng.gen_bool(0.6) {
                    let mr = MemoryRegion {
                        lkey,
                        base: rng.gen(),
                        length: rng.gen(),
                        pd: rng.gen_range(0..4),
                        access: Access::from_bits_truncate(rng.gen()),
                    };
                    let mut w: Vec<(Op, Staged)> = regs::mr_writes(&mr)
                        .into_iter()
                        .map(|(a, v)| (Op::write(a, v), Staged::None))
                        .collect();
                    let (a, v) = regs::mr_write();
                    w.push((Op::write(a, v), Staged::None));
                    w
                } else {
                    vec![
                        (Op::write(regs::MR_LKEY, lkey), Staged::None),
                        (
                            Op::write(regs::COMMAND, command::OP.put(op::MR_CLEAR)),
                            Staged::None,
                        ),
                    ]
                };
                if rng.gen_bool(0.05) {
                    // An OP that is no command.
                    let bad = [0, 6, 7, 15][rng.gen_range(0..4)];
                    step = vec![(Op::write(regs::COMMAND, bad), Staged::None)];
                }
                self.run_step(bench, step);
            }
            // Doorbells, often several at once.
            22..=64 => {
                let mut bells = Vec::new();
                for _ in 0..rng.gen_range(1..=4) {
                    let slot = some_slot(rng);
                    let (cons, prod, entries) = model
                        .slots
                        .get(slot as usize)
                        .copied()
                        .flatten()
                        .map_or((0, 0, 1), |s| {
                            (s.db.consumer(), s.db.producer(), s.db.ring().entries())
                        });
                    // Legal steps stay small, so that a drain of big rings ends soon.
                    let most = entries.min(32);
                    let value = match rng.gen_range(0..12) {
                        0 => prod,
                        1..=5 => prod.wrapping_add(rng.gen_range(1..=most)),
                        6 => cons.wrapping_add(most),
                        7 => cons.wrapping_add(entries + rng.gen_range(1..4)),
                        8 => prod.wrapping_sub(rng.gen_range(1..5)),
                        9 => cons.wrapping_add(0x8000_0000 + rng.gen_range(0..4)),
                        10 => cons.wrapping_add(rng.gen_range(1 << 20..1 << 31)),
                        _ => rng.gen(),
                    };
                    bells.push(regs::doorbell(slot, value));
                }
                for (a, v) in bells {
                    self.push(bench, Op::write(a, v), Staged::None);
                }
            }
            // Completions consumed (the answer picks the consumer written).
            65..=84 => {
                if self.pause == 0 && self.cq_read.is_none() {
                    let tag = self.push(
                        bench,
                        Op::Read {
                            addr: regs::CQ_PRODUCER,
                        },
                        Staged::None,
                    );
                    self.cq_read = Some(tag);
                }
            }
            85..=87 => {
                let v = status::DB_ERROR.put(rng.gen_range(0..2))
                    | status::CQ_FAULT.put(rng.gen_range(0..2));
                self.push(bench, Op::write(regs::STATUS, v), Staged::None);
            }
            88 => {
                // A staging register written with some byte lanes only.
                let addr = regs::QP_QPN + 4 * rng.gen_range(0..22);
                let op = Op::Write {
                    addr,
                    data: rng.gen(),
                    strb: rng.gen_range(0..16),
                };
                self.push(bench, op, Staged::None);
            }
            89 => {
                // ENABLE off now and then, mostly on.
                let v = control::PROFILE.put(self.profile.code().into())
                    | control::ENABLE.put(rng.gen_bool(0.7).into());
                self.push(bench, Op::write(regs::CONTROL, v), Staged::None);
            }
            // Now and then completions are left alone for a while, so the ring fills up.
            90 => self.pause = rng.gen_range(10..40),
            _ => {
                let addr = match rng.gen_range(0..4) {
                    0 => regs::MAP[rng.gen_range(0..regs::MAP.len())].offset,
                    1 => [
                        regs::STATUS,
                        regs::CQ_PRODUCER,
                        regs::CQ_CONSUMER,
                        regs::WQES,
                    ][rng.gen_range(0..4)],
                    2 => 4 * rng.gen_range(0..0x500),
                    _ => regs::FRAMES,
                };
                self.push(bench, Op::Read { addr }, Staged::None);
            }
        }
    }
}

fn nic() -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(192, 168, 1, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}

/// One run: `actions` program actions on build `D` (QPS slots, MRS regions) under `profile`,
/// then a drain in which every eligible WQE must be picked.
fn run<D: WqeCtrlPorts, const N: usize>(
    name: &str,
    qps: usize,
    mrs: usize,
    profile: Profile,
    actions: u32,
    dp: DataPath,
) {
    let seed = stream::seed(name);
    let mut bench: Bench<D> = Bench::new(name, seed, dp, 0.3);
    let mut model = Model::<N>::new(qps, mrs, profile);
    let mut prog = Program {
        rng: stream::rng(seed ^ 0x9806_7A11),
        profile,
        next_tag: 0,
        staged: HashMap::new(),
        polls: HashMap::new(),
        cq_read: None,
        queue: VecDeque::new(),
        waiting: false,
        pause: 0,
    };
    let mut log: BTreeMap<u64, Vec<(Event, Staged)>> = BTreeMap::new();
    let mut replayed = 0u64;

    // Set-up: the NIC's addresses, a small completion ring, then ENABLE.
    let nic = nic();
    let cq_log2 = prog.rng.gen_range(1..=4);
    let mut setup: Vec<_> = regs::nic_writes(&nic, profile, false).to_vec();
    setup.extend(regs::cq_writes(0x4000_0000, cq_log2));
    setup.extend(&regs::nic_writes(&nic, profile, true)[7..]);
    for (a, v) in setup {
        prog.push(&mut bench, Op::write(a, v), Staged::None);
    }

    let mut done_actions = 0;
    let mut drain_from = None;
    let limit = 400_000 + 400 * u64::from(actions);
    let result: Result<(), String> = (|| loop {
        let cycle = bench.sim.cycle();
        if cycle > limit {
            return Err(format!(
                "hang: cycle {cycle}, drain from {drain_from:?}, model {:?}",
                model.stats
            ));
        }
        let events = bench.step()?;
        prog.react(&mut bench, &model, &events);
        for t in events {
            let staged = match t.event {
                Event::Write { tag, .. } => prog.staged.get(&tag).copied().unwrap_or(Staged::None),
                _ => Staged::None,
            };
            if t.at <= replayed + 1 && replayed > 0 {
                return Err(format!(
                    "event at {} logged after the replay passed it: {t:?}",
                    t.at
                ));
            }
            // A CQ_CONSUMER write is judged on the state two cycles before its B response
            // (R_CQ2): the replay applies it a cycle early, first in that cycle. Nothing reads
            // the consumer meanwhile (the bus waits for B) and a pick then sees at least the
            // room the RTL saw, so only the judgement moves.
            let at = match t.event {
                Event::Write {
                    addr: regs::CQ_CONSUMER,
                    ..
                } => t.at - 1,
                _ => t.at,
            };
            log.entry(at).or_default().push((t.event, staged));
        }
        while replayed + LAG < bench.sim.cycle() {
            replayed += 1;
            let events = log.remove(&replayed).unwrap_or_default();
            model.cycle(replayed, events)?;
        }
        if bench.bus_pending() == 0 && !prog.waiting {
            if done_actions < actions {
                prog.act(&mut bench, &model);
                done_actions += 1;
            } else {
                // Drain: keep consuming completions and clearing faults until nothing eligible
                // is left and the data path is empty.
                let from = *drain_from.get_or_insert(cycle);
                bench.set_data_path(DataPath { fault: 0.0, ..dp });
                let busy = (0..qps).any(|s| model.eligible(s))
                    || model.inflight > 0
                    || bench.in_flight() > 0;
                if !busy && cycle > from + 4 * LAG {
                    return Ok(());
                }
                if cycle % 16 == 0 && bench.bus_pending() == 0 {
                    prog.push(
                        &mut bench,
                        Op::write(regs::STATUS, status::CQ_FAULT.put(1)),
                        Staged::None,
                    );
                    prog.push(
                        &mut bench,
                        Op::write(
                            regs::CONTROL,
                            control::PROFILE.put(profile.code().into()) | control::ENABLE.put(1),
                        ),
                        Staged::None,
                    );
                    let tag = prog.push(
                        &mut bench,
                        Op::Read {
                            addr: regs::CQ_PRODUCER,
                        },
                        Staged::None,
                    );
                    prog.cq_read = Some(tag);
                }
            }
        }
    })();
    eprintln!("{name}: {:?} in {} cycles", model.stats, bench.sim.cycle());
    if let Err(e) = result {
        panic!("{name}: {e} (replay with ROCENIC_SEED={seed})");
    }
    assert!(
        model.mr_expect.is_empty(),
        "{name}: MR writes the RTL never made: {:?}",
        model.mr_expect
    );
    let s = &model.stats;
    assert!(
        s.picks > 200
            && s.cmd_errors > 0
            && s.db_errors > 0
            && s.mr_writes > 0
            && s.psn_takes > 0
            && s.cq_full_cycles > 0
            && s.rtr_rc > 0,
        "{name}: the run did not cover enough: {s:?} (replay with ROCENIC_SEED={seed})"
    );
}

#[test]
fn qps8_linux() {
    run::<WqeCtrl8, 8>(
        "wqe_ctrl_qps8_linux",
        8,
        8,
        Profile::Linux,
        3000,
        DataPath::default(),
    );
}

#[test]
fn qps8_rfc_v2() {
    run::<WqeCtrl8, 8>(
        "wqe_ctrl_qps8_rfc_v2",
        8,
        8,
        Profile::RfcV2,
        3000,
        DataPath::default(),
    );
}

/// rfc-v1 is the profile whose port depends on the QP type: RC must be asked for.
#[test]
fn qps8_rfc_v1() {
    run::<WqeCtrl8, 8>(
        "wqe_ctrl_qps8_rfc_v1",
        8,
        8,
        Profile::RfcV1,
        3000,
        DataPath::default(),
    );
}

/// rxe, with a data path that takes every pick at once and holds one WQE at a time for a few
/// cycles: picks back to back.
#[test]
fn qps8_rxe_back_to_back() {
    let dp = DataPath {
        stall: 0.0,
        max_in_flight: 1,
        max_hold: 2,
        max_takes: 1,
        ..DataPath::default()
    };
    run::<WqeCtrl8, 8>("wqe_ctrl_qps8_rxe", 8, 8, Profile::Rxe, 3000, dp);
}

/// The default build: 64 slots and 64 regions, QPs spread over them.
#[test]
fn qps64_rfc_v1() {
    run::<WqeCtrl, 64>(
        "wqe_ctrl_qps64",
        64,
        64,
        Profile::RfcV1,
        3000,
        DataPath::default(),
    );
}

/// The timings docs/wqe.md gives, with a bus that never waits and a data path that takes each
/// pick at once: how long each kind of write takes to be answered, how long each command holds
/// the next write, and the pick rate.
#[test]
fn latencies() {
    let dp = DataPath {
        stall: 0.0,
        max_in_flight: 1,
        max_hold: 0,
        max_takes: 0,
        err: 0.0,
        cqe: 0.0,
        fault: 0.0,
        frame: 0.0,
        ..DataPath::default()
    };
    let mut bench: Bench<WqeCtrl8> = Bench::new("wqe_ctrl_latencies", 1, dp, 0.0);
    let mut rng = stream::rng(1);
    let config = loop {
        let c = random_config(&mut rng);
        if c.qp_type == QpType::Rc {
            break c;
        }
    };
    let ring = SendRing::new(Ring::new(4).unwrap(), 1, 0x10_0000).unwrap();
    let mut ops: Vec<(u32, u32)> = regs::nic_writes(&nic(), Profile::Linux, true).to_vec();
    ops.extend(regs::cq_writes(0x4000_0000, 4));
    ops.extend(regs::qp_writes(0x11, &config, &ring, 0x10_0000));
    // Each command is followed by a write it holds back.
    let staged = regs::QP_PD;
    for cmd in [
        regs::qp_write(0),
        regs::qp_write(1),
        regs::qp_modify(0, QpState::Init),
        regs::qp_modify(0, QpState::Rtr),
        regs::qp_modify(0, QpState::Rts),
        regs::qp_modify(1, QpState::Init),
        regs::qp_modify(1, QpState::Rtr),
        regs::qp_modify(1, QpState::Rts),
        (
            regs::COMMAND,
            command::OP.put(op::QP_DESTROY) | command::SLOT.put(2),
        ),
        regs::mr_write(),
        (regs::COMMAND, 0),
    ] {
        ops.push(cmd);
        ops.push((staged, config.pd));
    }
    // Before any pick, which would keep the ring unit busy for three cycles.
    ops.push((regs::CQ_CONSUMER, 0));
    ops.push(regs::doorbell(0, 16));
    ops.push(regs::doorbell(1, 16));
    for (tag, &(a, v)) in ops.iter().enumerate() {
        bench.push(Op::write(a, v), tag as u64);
    }
    let mut writes = Vec::new();
    let mut picks = Vec::new();
    while bench.sim.cycle() < 2000 {
        for t in bench.step().unwrap() {
            match t.event {
                Event::Write { accepted, tag, .. } => writes.push((tag as usize, accepted, t.at)),
                Event::Pick(p) => picks.push((t.at, p.slot)),
                _ => {}
            }
        }
    }
    assert_eq!(writes.len(), ops.len());
    let answer = |i: usize| writes[i].2 - writes[i].1;
    let held = |i: usize| writes[i + 1].2 - writes[i].2;
    let first_cmd = ops.len() - 3 - 22;
    let cmds: Vec<u64> = (0..11).map(|k| held(first_cmd + 2 * k)).collect();
    let n = ops.len();
    eprintln!(
        "answers: plain {}, doorbell {}, CQ consumer {}; commands hold the next write {cmds:?}",
        answer(0),
        answer(n - 2),
        answer(n - 3)
    );
    assert_eq!((answer(0), answer(n - 2), answer(n - 3)), (2, 7, 6));
    // QP_WRITE, QP_WRITE, INIT, RTR (RC: the entropy unit), RTS, INIT, RTR, RTS, destroy, MR,
    // no command.
    assert_eq!(cmds, [11, 11, 10, 16, 10, 10, 16, 10, 6, 6, 4]);
    // 16 WQEs on each of two QPs, taken at once: one pick every 9 cycles once the doorbells are
    // in (slot 1's keeps the ring unit busy while the second pick could start), the two QPs in
    // turn once both have WQEs.
    assert_eq!(picks.len(), 32, "{picks:?}");
    assert!(
        picks[1..].windows(2).all(|w| w[1].0 - w[0].0 == 9),
        "{picks:?}"
    );
    assert!(
        picks[1..31].windows(2).all(|w| w[0].1 != w[1].1),
        "{picks:?}"
    );
}
