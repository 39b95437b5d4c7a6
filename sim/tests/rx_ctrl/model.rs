//! The model side of the replay: a `RecvEngine` for the work queues (their configuration, state,
//! doorbells and completion rings) and the command refusals, the receive contexts as attached and
//! written back, the registers and counters; advanced cycle by cycle through the bench's logged
//! events, every read checked as it is replayed.

use super::*;

/// How far the replay runs behind the bench: every event is known by then (a read's answer is
/// logged at most about ten cycles after the state it reflects).
pub(crate) const LAG: u64 = 16;

/// A receive context as the model expects `ctx_rd` to show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shadow {
    pub(crate) qpn: u32,
    pub(crate) kind: u8,
    pub(crate) wq: u8,
    pub(crate) ud: bool,
    pub(crate) mtu: u8,
    pub(crate) pd: u32,
    pub(crate) qkey: u32,
    pub(crate) rcv: Rcv,
}

/// Counts that show the run did what it is meant to.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) cmds: u64,
    /// Commands carried out, by op.
    pub(crate) done: BTreeMap<u32, u64>,
    /// Refusals, by reason.
    pub(crate) refused: BTreeMap<&'static str, u64>,
    pub(crate) db_writes: u64,
    pub(crate) db_errors: u64,
    pub(crate) cq_writes: u64,
    pub(crate) cq_errors: u64,
    pub(crate) takes: u64,
    pub(crate) pushes: u64,
    pub(crate) wq_errs: u64,
    pub(crate) ctx_writes: u64,
    pub(crate) ctx_reads: u64,
    pub(crate) q_reads: u64,
    pub(crate) q_full: u64,
    pub(crate) flushes: u64,
    pub(crate) flush_found: u64,
    /// Flush picks of a SEND's WQE in progress.
    pub(crate) flush_ip: u64,
    pub(crate) rule_moves: u64,
    pub(crate) reads: u64,
    /// STATUS reads while enabled: IDLE set, and IDLE clear with no command pending.
    pub(crate) idle_enabled: u64,
    pub(crate) busy_enabled: u64,
}

/// Accepts every access: the completions a cloned engine writes while it flushes.
struct Sink;

impl Memory for Sink {
    fn read(&self, _addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        out.fill(0);
        Ok(())
    }

    fn write(&mut self, _addr: u64, _data: &[u8]) -> Result<(), Fault> {
        Ok(())
    }
}

/// A written-back message as the engine keeps it.
fn message(rcv: &Rcv) -> Option<Message> {
    match rcv.msg {
        1 => Some(Message::Send {
            wq: rcv.msg_wq.into(),
            addr: rcv.msg_addr,
            wr_id: rcv.msg_arg,
            done: rcv.msg_done,
        }),
        2 => Some(Message::Write {
            va: rcv.msg_addr,
            len: rcv.msg_arg as u32,
            done: rcv.msg_done,
        }),
        _ => None,
    }
}

/// The name of a refusal, for the coverage counts.
fn reason(e: &RxError) -> &'static str {
    match e {
        RxError::WqRange(_) => "wq_range",
        RxError::WqExists(_) => "wq_exists",
        RxError::NoWq(_) => "no_wq",
        RxError::Transition(_) => "transition",
        RxError::Doorbell(_) => "doorbell",
        RxError::Qpn(_) => "qpn",
        RxError::Attached(_) => "attached",
        RxError::SlotTaken { .. } => "slot_taken",
        RxError::NotAttached(_) => "not_attached",
        RxError::RssNotUd(_) => "rss_not_ud",
        RxError::NoQp(_) => "no_qp",
        RxError::InUse(_) => "in_use",
    }
}

/// The model side of the replay.
pub(crate) struct Model<const W: usize, const Q: usize> {
    pub(crate) engine: RecvEngine<W, Q>,
    pub(crate) ctxs: Vec<Option<Shadow>>,
    pub(crate) regs: HashMap<u32, u32>,
    pub(crate) sq_valid: u64,
    pub(crate) dp_idle: bool,
    /// `frame_in_path` as driven.
    pub(crate) frame_in_path: bool,
    /// STATUS.IDLE while enabled: a flush step is under way with nothing changed since its
    /// request (`clean`), and the last one found nothing with nothing changed since (`quiet`).
    pub(crate) clean: bool,
    pub(crate) quiet: bool,
    pub(crate) cmd: Option<u32>,
    pub(crate) cmd_error: bool,
    pub(crate) db_error: bool,
    pub(crate) cq_fault: bool,
    pub(crate) accepted: u32,
    pub(crate) discards: [u32; 16],
    /// The `qp_err` of the flush step under way.
    pub(crate) rule_qp_err: u64,
    pub(crate) stats: Stats,
}

pub(crate) fn merge(old: u32, data: u32, strb: u8) -> u32 {
    (0..4).fold(0, |v, b| {
        let src = if strb & (1 << b) != 0 { data } else { old };
        v | (src & (0xFF << (8 * b)))
    })
}

/// The staging registers, read back as written.
pub(crate) fn staging(addr: u32) -> bool {
    (regs::WQ_QPN..regs::WQ_CQ_BASE + 8).contains(&addr)
        || (regs::QP_QPN..=regs::QP_QKEY).contains(&addr)
}

impl<const W: usize, const Q: usize> Model<W, Q> {
    pub(crate) fn new() -> Self {
        Model {
            engine: RecvEngine::new(),
            ctxs: vec![None; Q],
            regs: HashMap::new(),
            sq_valid: 0,
            dp_idle: true,
            frame_in_path: false,
            clean: false,
            quiet: false,
            cmd: None,
            cmd_error: false,
            db_error: false,
            cq_fault: false,
            accepted: 0,
            discards: [0; 16],
            rule_qp_err: 0,
            stats: Stats::default(),
        }
    }

    pub(crate) fn reg(&self, addr: u32) -> u32 {
        self.regs.get(&addr).copied().unwrap_or(0)
    }

    fn reg64(&self, addr: u32) -> u64 {
        u64::from(self.reg(addr)) | u64::from(self.reg(addr + 4)) << 32
    }

    /// A register write that took effect.
    pub(crate) fn write(&mut self, addr: u32, data: u32, strb: u8) {
        let old = self.reg(addr);
        self.regs.insert(addr, merge(old, data, strb));
        let word = |base: u32| ((addr - base) / 4) as usize;
        match addr {
            regs::STATUS if strb & 1 != 0 => {
                if status::DB_ERROR.get(data) != 0 {
                    self.db_error = false;
                }
                if status::CQ_FAULT.get(data) != 0 {
                    self.cq_fault = false;
                }
            }
            regs::COMMAND => self.cmd = Some(data),
            a if (regs::RQ_DOORBELL..regs::CQ_CONSUMER).contains(&a)
                && word(regs::RQ_DOORBELL) < W =>
            {
                let w = word(regs::RQ_DOORBELL) as u16;
                if self.engine.wq(w).is_some() {
                    self.stats.db_writes += 1;
                }
                if let Err(RxError::Doorbell(_)) = self.engine.post(w, data) {
                    self.db_error = true;
                    self.stats.db_errors += 1;
                }
            }
            a if (regs::CQ_CONSUMER..regs::CQ_PRODUCER).contains(&a)
                && word(regs::CQ_CONSUMER) < W =>
            {
                let w = word(regs::CQ_CONSUMER) as u16;
                if self.engine.wq(w).is_some() {
                    self.stats.cq_writes += 1;
                }
                if let Err(RxError::Doorbell(_)) = self.engine.cq_doorbell(w, data) {
                    self.db_error = true;
                    self.stats.cq_errors += 1;
                }
            }
            _ => {}
        }
    }

    /// The staged work queue, if the model can hold it (else the RTL refuses its shape).
    fn staged_wq(&self) -> Option<WqConfig> {
        let flags = self.reg(regs::WQ_FLAGS);
        let ring = Ring::new(wq_flags::RING_LOG2.get(flags))?;
        let ring = RecvRing::new(
            ring,
            wq_flags::STRIDE_LOG2.get(flags),
            self.reg64(regs::WQ_RING_BASE),
        )?;
        let cq = CompletionRing::new(Ring::new(wq_flags::CQ_LOG2.get(flags))?, 0)?;
        Some(WqConfig {
            qpn: self.reg(regs::WQ_QPN),
            pd: self.reg(regs::WQ_PD),
            ring,
            cq,
            cq_base: self.reg64(regs::WQ_CQ_BASE),
            raw: wq_flags::RAW.get(flags) != 0,
        })
    }

    /// Carries out the pending command: the reason it was refused, if it was.
    pub(crate) fn command(&mut self, word: u32) -> Result<(), &'static str> {
        let w = command::WQ.get(word) as u16;
        let r = |e: RxError| reason(&e);
        match command::OP.get(word) {
            op::WQ_WRITE => {
                let config = self.staged_wq().ok_or("shape")?;
                self.engine.create_wq(w, config).map_err(r)
            }
            op::WQ_MODIFY => {
                let to = match command::STATE.get(word) {
                    0 => WqState::Reset,
                    1 => WqState::Ready,
                    2 => WqState::Err,
                    _ => return Err("state"),
                };
                self.engine.modify_wq(w, to).map_err(r)
            }
            op::WQ_DESTROY => self.engine.destroy_wq(w).map(|_| ()).map_err(r),
            op::QP_ATTACH => {
                let qpn = self.reg(regs::QP_QPN);
                let t = self.reg(regs::QP_TARGET);
                let (kind, wq) = (qp_target::KIND.get(t) as u8, qp_target::WQ.get(t) as u8);
                let target = match kind {
                    0 => Target::Own(wq.into()),
                    1 => Target::Shared(wq.into()),
                    2 => Target::Rss,
                    _ => return Err("shape"),
                };
                let flags = self.reg(regs::QP_FLAGS);
                let ud = qp_flags::UD.get(flags) != 0;
                let code = qp_flags::MTU.get(flags) as u8;
                let mtu = PathMtu::from_code(code).ok_or("shape")?;
                let epsn = self.reg(regs::QP_EPSN) & 0xFF_FFFF;
                let (pd, qkey) = (self.reg(regs::QP_PD), self.reg(regs::QP_QKEY));
                // The send side's QP: present when its slot is valid, of the staged type.
                let mut table = QpTable::<1>::new(Profile::Linux);
                if self.sq_valid >> qp_slot(qpn, Q) & 1 != 0 {
                    let _ = table.create(qpn, qp_config(ud, pd, mtu, qkey));
                }
                let psn = Psn::new(epsn).expect("24 bits");
                self.engine.attach(&table, qpn, target, psn).map_err(r)?;
                self.ctxs[qp_slot(qpn, Q)] = Some(Shadow {
                    qpn,
                    kind,
                    wq,
                    ud,
                    mtu: code,
                    pd,
                    qkey,
                    rcv: Rcv {
                        epsn,
                        ..Rcv::default()
                    },
                });
                Ok(())
            }
            op::QP_DETACH => {
                let qpn = self.reg(regs::QP_QPN);
                self.engine.detach(qpn).map_err(r)?;
                self.ctxs[qp_slot(qpn, Q)] = None;
                Ok(())
            }
            _ => Err("op"),
        }
    }

    /// A register read of the state of `at` returned `data`.
    pub(crate) fn read(&mut self, at: u64, addr: u32, data: u32) -> Result<(), String> {
        self.stats.reads += 1;
        let busy = self.cmd.is_some();
        let in_words = |base: u32, n: u32| (base..base + 4 * n).contains(&addr);
        let want = match addr {
            regs::ID => regs::ID_VALUE,
            regs::CAPS => {
                regs::caps::WQS.put(W as u32 & 0xFF)
                    | regs::caps::QPS.put(Q as u32 & 0xFF)
                    | regs::caps::MAX_SGE.put(63)
                    | regs::caps::DATA_BYTES.put(8)
            }
            // Built without the requester's input (REQUESTER = 0, the default): that bit reads 0.
            regs::CONTROL => self.reg(regs::CONTROL) & control::MASK & !control::REQUESTER.put(1),
            regs::STATUS => {
                if !busy && self.reg(regs::CONTROL) & 1 != 0 {
                    if self.idle() {
                        self.stats.idle_enabled += 1;
                    } else {
                        self.stats.busy_enabled += 1;
                    }
                }
                status::BUSY.put(busy.into())
                    | status::CMD_ERROR.put(self.cmd_error.into())
                    | status::DB_ERROR.put(self.db_error.into())
                    | status::CQ_FAULT.put(self.cq_fault.into())
                    | status::IDLE.put(self.idle().into())
            }
            regs::ACCEPTED => self.accepted,
            a if in_words(regs::DISCARDS, 16) => self.discards[((a - regs::DISCARDS) / 4) as usize],
            a if in_words(regs::CQ_PRODUCER, 256) => {
                let w = ((a - regs::CQ_PRODUCER) / 4) as u16;
                self.engine.wq(w).map_or(0, |q| q.cq.producer())
            }
            a if staging(a) => self.reg(a),
            _ => 0,
        };
        if data != want {
            return Err(format!(
                "cycle {at}: read 0x{addr:04x} gave 0x{data:08x}, the model 0x{want:08x}"
            ));
        }
        Ok(())
    }

    /// A context read of the state of `at`.
    pub(crate) fn ctx_read(&mut self, at: u64, slot: u8, got: &Ctx) -> Result<(), String> {
        self.stats.ctx_reads += 1;
        let want = self.ctxs[usize::from(slot)].map_or(Ctx::default(), |c| Ctx {
            valid: true,
            qpn: c.qpn,
            kind: c.kind,
            wq: c.wq,
            ud: c.ud,
            mtu: c.mtu,
            pd: c.pd,
            qkey: c.qkey,
            rcv: c.rcv,
        });
        let same = if want.valid { *got == want } else { !got.valid };
        if !same {
            return Err(format!(
                "cycle {at}: context {slot}\n  RTL   {got:?}\n  model {want:?}"
            ));
        }
        Ok(())
    }

    /// A queue read of the state of `at`.
    pub(crate) fn q_read(&mut self, at: u64, w: u8, got: &WqView) -> Result<(), String> {
        self.stats.q_reads += 1;
        let want = self.engine.wq(w.into()).map_or(WqView::default(), |q| {
            let (c, p) = (q.doorbell.consumer(), q.cq.producer());
            WqView {
                valid: true,
                state: q.state as u8,
                pending: q.doorbell.pending() > 0,
                room: q.cq_room(),
                raw: q.config.raw,
                qpn: q.config.qpn,
                pd: q.config.pd,
                stride_log2: q.config.ring.stride_blocks().trailing_zeros() as u8,
                consumer: c,
                wqe_addr: q.config.ring.addr(c),
                cq_producer: p,
                cqe_addr: q.cqe_addr(p),
                cqe_phase: q.cq.ring().phase(p),
            }
        });
        self.stats.q_full += u64::from(want.valid && !want.room);
        let same = if want.valid { *got == want } else { !got.valid };
        if !same {
            return Err(format!(
                "cycle {at}: queue {w}\n  RTL   {got:?}\n  model {want:?}"
            ));
        }
        Ok(())
    }

    /// The flush rule (RecvEngine::flush's first part) for the QPs of `qp_err` in ERR.
    fn flush_rule(&mut self, qp_err: u64) -> Result<(), String> {
        self.rule_qp_err = qp_err;
        self.stats.flushes += 1;
        for s in 0..Q {
            let Some(c) = self.ctxs[s].as_mut() else {
                continue;
            };
            if qp_err >> s & 1 == 0 {
                continue;
            }
            // An RDMA WRITE in progress is forgotten; a SEND waits for its pick.
            if c.rcv.msg == 2 {
                c.rcv.msg = 0;
                let epsn = Psn::new(c.rcv.epsn).expect("24 bits");
                self.engine
                    .write_back(c.qpn, epsn, None)
                    .map_err(|e| format!("slot {s}: {e}"))?;
            }
            if c.kind == 0 {
                let q = self
                    .engine
                    .wq_mut(c.wq.into())
                    .map_err(|e| format!("slot {s}: its own queue is gone: {e}"))?;
                self.stats.rule_moves += u64::from(q.state != WqState::Err);
                q.state = WqState::Err;
            }
        }
        Ok(())
    }

    /// The flush pick of the state of `at`: checked against RecvEngine::flush on a copy of the
    /// engine, with the QPs of the step's `qp_err` in ERR; a SEND's WQE picked is forgotten.
    fn flush_pick(
        &mut self,
        at: u64,
        found: bool,
        wq: u8,
        ip: Option<(u32, u64)>,
    ) -> Result<(), String> {
        let mut table = QpTable::<Q>::new(Profile::Linux);
        for (s, c) in self.ctxs.iter().enumerate() {
            if let Some(c) = c {
                let mtu = PathMtu::Mtu1024;
                table
                    .create(c.qpn, qp_config(true, 0, mtu, 0))
                    .map_err(|e| format!("slot {s}: {e:?}"))?;
                if self.rule_qp_err >> s & 1 != 0 {
                    table.get_mut(c.qpn).unwrap().set_error();
                }
            }
        }
        let mut copy = self.engine.clone();
        let step = copy
            .flush(&table, &mut Sink)
            .map_err(|d| format!("cycle {at}: the model's flush discarded ({d})"))?;
        // Which SEND in progress, if any, the model completed: the one it forgot.
        let ip_slot = self.ctxs.iter().position(|c| {
            c.is_some_and(|c| {
                matches!(self.engine.message(c.qpn), Some(Message::Send { .. }))
                    && copy.message(c.qpn).is_none()
            })
        });
        let want = step.map(|(w, _, cqe)| {
            let ip = ip_slot.map(|s| (self.ctxs[s].unwrap().qpn, cqe.wr_id));
            (w, ip, cqe)
        });
        // The rule restated: the lowest slot in ERR with a SEND whose queue has room, else the
        // lowest queue in ERR with a WQE posted and room for its completion.
        let in_progress = (0..Q).find_map(|s| {
            let c = self.ctxs[s]?;
            let room = self
                .engine
                .wq(c.rcv.msg_wq.into())
                .is_some_and(|q| q.cq_room());
            (self.rule_qp_err >> s & 1 != 0 && c.rcv.msg == 1 && room)
                .then_some((u16::from(c.rcv.msg_wq), Some((c.qpn, c.rcv.msg_arg))))
        });
        let lowest = in_progress.or_else(|| {
            (0..W as u16)
                .find(|&w| {
                    self.engine.wq(w).is_some_and(|q| {
                        q.state == WqState::Err && q.doorbell.pending() > 0 && q.cq_room()
                    })
                })
                .map(|w| (w, None))
        });
        if want.map(|(w, ip, _)| (w, ip)) != lowest {
            return Err(format!(
                "cycle {at}: the model's flush picks {want:?}, its rule {lowest:?}"
            ));
        }
        if let Some((_, Some((qpn, wr_id)), cqe)) = want {
            if (cqe.qpn, cqe.wr_id, cqe.status, cqe.byte_len) != (qpn, wr_id, Status::WrFlushErr, 0)
            {
                return Err(format!("cycle {at}: the model's flush completes {cqe:?}"));
            }
        }
        self.stats.flush_found += u64::from(want.is_some());
        let got = found.then_some((u16::from(wq), ip));
        if got != lowest {
            return Err(format!(
                "cycle {at}: flush pick {got:?}, the model {:?}",
                want.map(|(w, ip, _)| (w, ip))
            ));
        }
        if let Some(s) = ip_slot {
            // The pick forgets the message, as the model's flush does.
            self.stats.flush_ip += 1;
            let c = self.ctxs[s].as_mut().expect("found above");
            c.rcv.msg = 0;
            let epsn = Psn::new(c.rcv.epsn).expect("24 bits");
            self.engine
                .write_back(c.qpn, epsn, None)
                .map_err(|e| format!("slot {s}: {e}"))?;
        }
        Ok(())
    }

    /// STATUS.IDLE now: no command pending and, while enabled, no frame in the path and a
    /// quiet flush; while disabled, `dp_idle`.
    fn idle(&self) -> bool {
        let enabled = self.reg(regs::CONTROL) & 1 != 0;
        self.cmd.is_none()
            && if enabled {
                self.quiet && !self.frame_in_path
            } else {
                self.dp_idle
            }
    }

    /// `clean` and `quiet` of cycle `t` from the inputs of `t - 1`, which the events of `t`
    /// say (rx_ctrl's registers): anything that could give a flush step work (a `qp_err` bit,
    /// a doorbell or completion consumer write stored, a command pending) unsettles them, a
    /// frame in the path clears `quiet`, and a flush step's end sets it when it found nothing
    /// with nothing changed since its request.
    fn settle(&mut self, events: &[Event]) {
        let ring = |a: u32, base: u32| a >= base && a < base + 4 * W as u32;
        let change = self.cmd.is_some()
            || events.iter().any(|e| match *e {
                Event::QpErrFlip => true,
                Event::Write { addr, .. } => {
                    ring(addr, regs::RQ_DOORBELL) || ring(addr, regs::CQ_CONSUMER)
                }
                _ => false,
            });
        let req = events.iter().any(|e| matches!(e, Event::FlushRule(_)));
        let done = events.iter().find_map(|e| match *e {
            Event::FlushDone(found) => Some(found),
            _ => None,
        });
        let clean = self.clean;
        self.clean = req || (clean && !change);
        self.quiet = match done {
            Some(found) => !found && clean && !change && !self.frame_in_path,
            None => self.quiet && !change && !self.frame_in_path,
        };
    }

    /// Applies the events of cycle `t`: what is visible from `t` first (register writes before
    /// the pulses, so that a fault in the cycle of a STATUS clear stays set), then what shows
    /// the state of `t`.
    pub(crate) fn cycle(&mut self, t: u64, events: Vec<Event>) -> Result<(), String> {
        self.settle(&events);
        for e in &events {
            if let Event::FrameInPath(b) = *e {
                self.frame_in_path = b;
            }
        }
        for e in &events {
            if let Event::Write {
                addr, data, strb, ..
            } = *e
            {
                self.write(addr, data, strb);
            }
        }
        for e in &events {
            match *e {
                Event::CmdDone => {
                    let word = self
                        .cmd
                        .take()
                        .ok_or(format!("cycle {t}: a command ended that was never written"))?;
                    let r = self.command(word);
                    self.stats.cmds += 1;
                    self.cmd_error = r.is_err();
                    match r {
                        Ok(()) => *self.stats.done.entry(command::OP.get(word)).or_default() += 1,
                        Err(why) => *self.stats.refused.entry(why).or_default() += 1,
                    }
                }
                Event::Take(w) => {
                    self.stats.takes += 1;
                    let q = self
                        .engine
                        .wq_mut(w.into())
                        .map_err(|e| format!("cycle {t}: take: {e}"))?;
                    q.doorbell
                        .take()
                        .ok_or(format!("cycle {t}: a take of queue {w} with no WQE posted"))?;
                }
                Event::Push(w) => {
                    self.stats.pushes += 1;
                    let q = self
                        .engine
                        .wq_mut(w.into())
                        .map_err(|e| format!("cycle {t}: push: {e}"))?;
                    q.cq.push()
                        .ok_or(format!("cycle {t}: a completion in queue {w} with no room"))?;
                }
                Event::WqErr(w) => {
                    self.stats.wq_errs += 1;
                    if let Ok(q) = self.engine.wq_mut(w.into()) {
                        q.state = WqState::Err;
                    }
                }
                Event::CtxWrite(s, rcv) => {
                    self.stats.ctx_writes += 1;
                    let c = self.ctxs[usize::from(s)]
                        .as_mut()
                        .ok_or(format!("cycle {t}: a write-back of empty slot {s}"))?;
                    c.rcv = rcv;
                    let epsn = Psn::new(rcv.epsn).expect("24 bits");
                    self.engine
                        .write_back(c.qpn, epsn, message(&rcv))
                        .map_err(|e| format!("cycle {t}: write-back of slot {s}: {e}"))?;
                }
                Event::FlushRule(qp_err) => self.flush_rule(qp_err)?,
                Event::Accepted => self.accepted = self.accepted.wrapping_add(1),
                Event::Discard(r) => {
                    let d = &mut self.discards[usize::from(r)];
                    *d = d.wrapping_add(1);
                }
                Event::CqFault => self.cq_fault = true,
                Event::SqValid(v) => self.sq_valid = v,
                Event::DpIdle(b) => self.dp_idle = b,
                _ => {}
            }
        }
        for e in &events {
            match *e {
                Event::Read { addr, data, .. } => self.read(t, addr, data)?,
                Event::CtxRead(s, ref c) => self.ctx_read(t, s, c)?,
                Event::QRead(w, ref v) => self.q_read(t, w, v)?,
                _ => {}
            }
        }
        for e in &events {
            if let Event::FlushPick { found, wq, ip } = *e {
                self.flush_pick(t, found, wq, ip)?;
            }
        }
        Ok(())
    }
}
