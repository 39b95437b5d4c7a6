//! The model side of the replay: the QP table, doorbells, completion ring, round robin and
//! memory-region slots, advanced cycle by cycle through the bench's logged events, every read,
//! PSN, MR write and pick checked as it is replayed.

use super::*;
/// How far the replay runs behind the bench: every event is known by then (picks are logged
/// PICK_LAG cycles after the state they reflect, responses within a few cycles).
pub(crate) const LAG: u64 = PICK_LAG + 8;

/// Cycles from the state a pick reflects to the one from which its slot's consumer has moved
/// (wqe_sched.sv: the pick starts four cycles after, R_TAKE3 stores the consumer three later).
pub(crate) const TAKE_LAG: u64 = 8;

/// What a COMMAND write carries, as the program staged it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Staged {
    /// A valid QP and its send ring.
    Qp(u32, QpConfig, SendRing),
    /// A QP whose ring shape or MTU the RTL refuses.
    BadShape,
    /// Nothing the command needs (the MR commands read the staged lkey from the registers).
    None,
}

/// One slot of the model.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub(crate) qpn: u32,
    pub(crate) ring: SendRing,
    pub(crate) db: Doorbell,
}

/// Counts that show the run did what it is meant to.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) picks: u64,
    pub(crate) faults: u64,
    pub(crate) cmds: u64,
    pub(crate) cmd_errors: u64,
    pub(crate) db_writes: u64,
    pub(crate) db_errors: u64,
    pub(crate) cq_writes: u64,
    pub(crate) cq_full_cycles: u64,
    pub(crate) rtr_rc: u64,
    pub(crate) mr_writes: u64,
    pub(crate) psn_takes: u64,
    pub(crate) reads: u64,
}

/// The model side of the replay.
pub(crate) struct Model<const N: usize> {
    pub(crate) qps: usize,
    pub(crate) mrs: usize,
    pub(crate) table: QpTable<N>,
    pub(crate) slots: Vec<Option<Slot>>,
    pub(crate) mr: Vec<Option<u32>>,
    pub(crate) mr_expect: VecDeque<(u32, bool, u32)>,
    pub(crate) cq: CompletionRing,
    pub(crate) inflight: u32,
    pub(crate) next: usize,
    pub(crate) db_error: bool,
    pub(crate) cq_fault: bool,
    pub(crate) cmd_error: bool,
    pub(crate) cmd: Option<(u32, Staged)>,
    /// Picks whose send-ring consumer has yet to advance: (cycle it does, slot). The ring unit
    /// takes the index in the cycles after the pick starts, so a doorbell finishing just then
    /// was measured against the consumer before it.
    pub(crate) takes: VecDeque<(u64, usize)>,
    /// A command was applied and the RTL may not have applied it yet (until a STATUS read shows
    /// BUSY clear): qp_err is not compared meanwhile.
    pub(crate) unsettled: bool,
    pub(crate) wqes: u32,
    pub(crate) frames: u32,
    pub(crate) regs: HashMap<u32, u32>,
    pub(crate) rtl_qp_err: u64,
    pub(crate) stats: Stats,
}

pub(crate) fn merge(old: u32, data: u32, strb: u8) -> u32 {
    (0..4).fold(0, |v, b| {
        let src = if strb & (1 << b) != 0 { data } else { old };
        v | (src & (0xFF << (8 * b)))
    })
}

/// The registers software can read back as written.
pub(crate) fn rw_register(addr: u32) -> bool {
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

pub(crate) fn expected_ctx(c: &QpContext) -> QpCtx {
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
    let raw = cfg.qp_type == QpKind::Raw;
    QpCtx {
        qpn: c.qpn(),
        ud: cfg.qp_type == QpType::Ud,
        pd: cfg.pd,
        mtu: if raw { 0 } else { cfg.mtu.code() },
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
        raw,
    }
}

impl<const N: usize> Model<N> {
    pub(crate) fn new(qps: usize, mrs: usize, profile: Profile) -> Self {
        Model {
            qps,
            mrs,
            table: {
                let mut t = QpTable::new(profile);
                t.set_raw(true);
                t
            },
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

    pub(crate) fn reg(&self, addr: u32) -> u32 {
        self.regs.get(&addr).copied().unwrap_or(0)
    }

    pub(crate) fn enabled(&self) -> bool {
        self.reg(regs::CONTROL) & 1 != 0
    }

    pub(crate) fn qp_err(&self) -> u64 {
        self.slots.iter().enumerate().fold(0, |v, (i, s)| match s {
            Some(s) if self.table.get(s.qpn).unwrap().state() == QpState::Err => v | 1 << i,
            _ => v,
        })
    }

    pub(crate) fn eligible(&self, i: usize) -> bool {
        self.slots[i].is_some_and(|s| {
            s.db.pending() > 0
                && matches!(
                    self.table.get(s.qpn).unwrap().state(),
                    QpState::Rts | QpState::Err
                )
        })
    }

    pub(crate) fn room(&self) -> bool {
        self.cq.used() + self.inflight < self.cq.ring().entries()
    }

    pub(crate) fn write(&mut self, addr: u32, data: u32, strb: u8, staged: Staged) {
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
    pub(crate) fn command(&mut self, word: u32, staged: Staged) -> bool {
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
    pub(crate) fn read(&mut self, at: u64, addr: u32, data: u32) -> Result<(), String> {
        self.stats.reads += 1;
        let want = match addr {
            regs::ID => regs::ID_VALUE,
            regs::CAPS => {
                regs::caps::QPS.put(self.qps as u32)
                    | regs::caps::MRS.put(self.mrs as u32)
                    | regs::caps::MAX_SGE.put(16)
                    | regs::caps::DATA_BYTES.put(8)
                    | regs::caps::RAW.put(1)
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
    pub(crate) fn pick(&mut self, at: u64, p: &Pick) -> Result<(), String> {
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
    pub(crate) fn cycle(&mut self, t: u64, events: Vec<(Event, Staged)>) -> Result<(), String> {
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
