//! The random register program: work-queue writes, modifies and destroys, QP attaches and
//! detaches (legal and not), receive doorbells, completion consumer writes, STATUS clears and
//! reads, each command step followed by polls of STATUS until BUSY clears.

use super::*;

/// The most WQEs a queue may hold at the end phase's start (some 5,000 cycles of flush steps).
const BACKLOG: u32 = 256;

/// The program's state: what it waits for, and the operations it queued by tag.
pub(crate) struct Program {
    pub(crate) rng: TestRng,
    pub(crate) next_tag: u64,
    /// Tags of STATUS reads that poll for a command's end.
    pub(crate) polls: HashSet<u64>,
    /// A CQ_PRODUCER read whose answer picks the next consumer write: its tag and queue.
    pub(crate) cq_read: Option<(u64, u16)>,
    /// Command steps of the action under way, each after the previous one's end.
    pub(crate) queue: VecDeque<Vec<Op>>,
    pub(crate) waiting: bool,
    /// Actions left during which completions are not consumed (so that rings fill up).
    pub(crate) pause: u32,
}

impl Program {
    pub(crate) fn new(rng: TestRng) -> Program {
        Program {
            rng,
            next_tag: 0,
            polls: HashSet::new(),
            cq_read: None,
            queue: VecDeque::new(),
            waiting: false,
            pause: 0,
        }
    }

    pub(crate) fn push<D: RxCtrlPorts>(&mut self, bench: &mut Bench<D>, op: Op) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        bench.push(op, tag);
        tag
    }

    /// Queues the writes of a command step, then a poll of STATUS.
    fn run_step<D: RxCtrlPorts>(&mut self, bench: &mut Bench<D>, ops: Vec<Op>) {
        for op in ops {
            self.push(bench, op);
        }
        let tag = self.push(bench, Op::Read { addr: regs::STATUS });
        self.polls.insert(tag);
        self.waiting = true;
    }

    /// Runs the steps of an action, one after the other's end.
    fn run_steps<D: RxCtrlPorts>(&mut self, bench: &mut Bench<D>, mut steps: Vec<Vec<Op>>) {
        let first = steps.remove(0);
        self.queue.extend(steps);
        self.run_step(bench, first);
    }

    /// The end phase's first steps: software resets every queue whose backlog a flush could
    /// not drain in the phase (a ring of up to 2^16 WQEs with a doorbell far ahead: some
    /// 20 cycles a WQE), so that STATUS.IDLE can rise; then the data path is enabled again.
    pub(crate) fn end<D: RxCtrlPorts, const W: usize, const Q: usize>(
        &mut self,
        bench: &mut Bench<D>,
        model: &Model<W, Q>,
    ) {
        let mut steps: Vec<Vec<Op>> = (0..W as u16)
            .filter(|&w| {
                model
                    .engine
                    .wq(w)
                    .is_some_and(|q| q.doorbell.pending() > BACKLOG)
            })
            .map(|w| {
                let (a, v) = regs::wq_modify(w, WqState::Reset);
                vec![Op::write(a, v)]
            })
            .collect();
        steps.push(vec![Op::write(regs::CONTROL, control::ENABLE.put(1))]);
        self.run_steps(bench, steps);
    }

    /// Reacts to what the bus returned this cycle.
    pub(crate) fn react<D: RxCtrlPorts, const W: usize, const Q: usize>(
        &mut self,
        bench: &mut Bench<D>,
        model: &Model<W, Q>,
        events: &[Timed],
    ) {
        for t in events {
            let Event::Read { data, tag, .. } = t.event else {
                continue;
            };
            if self.polls.remove(&tag) {
                if status::BUSY.get(data) != 0 {
                    let tag = self.push(bench, Op::Read { addr: regs::STATUS });
                    self.polls.insert(tag);
                } else if let Some(step) = self.queue.pop_front() {
                    self.run_step(bench, step);
                } else {
                    self.waiting = false;
                }
            } else if let Some((_, w)) = self.cq_read.filter(|&(t, _)| t == tag) {
                self.cq_read = None;
                let p = data;
                let c = model.engine.wq(w).map_or(p, |q| q.cq.consumer());
                let value = match self.rng.gen_range(0..10) {
                    0..=5 => p,
                    6 => c.wrapping_add(self.rng.gen_range(0..=p.wrapping_sub(c).min(8))),
                    7 => p.wrapping_add(self.rng.gen_range(1..4)),
                    8 => c.wrapping_sub(self.rng.gen_range(1..4)),
                    _ => self.rng.gen(),
                };
                self.push(
                    bench,
                    Op::write(regs::CQ_CONSUMER + 4 * u32::from(w), value),
                );
            }
        }
    }

    /// A queue number: mostly one that exists, sometimes any below WQS, rarely past it.
    fn some_wq<const W: usize, const Q: usize>(&mut self, model: &Model<W, Q>) -> u16 {
        let held: Vec<u16> = (0..W as u16)
            .filter(|&w| model.engine.wq(w).is_some())
            .collect();
        match self.rng.gen_range(0..20) {
            0 => self.rng.gen_range(W as u16..=255.max(W as u16)),
            1..=3 => self.rng.gen_range(0..W as u16),
            _ if !held.is_empty() => held[self.rng.gen_range(0..held.len())],
            _ => self.rng.gen_range(0..W as u16),
        }
    }

    /// The QPNs with a receive context.
    fn attached<const W: usize, const Q: usize>(model: &Model<W, Q>) -> Vec<u32> {
        model.ctxs.iter().flatten().map(|c| c.qpn).collect()
    }

    /// A WQ_WRITE step (staging and command), sometimes of a shape the RTL refuses, and often a
    /// move to READY after it.
    fn wq_write<const W: usize, const Q: usize>(&mut self, model: &Model<W, Q>) -> Vec<Vec<Op>> {
        let rng = &mut self.rng;
        let w = if rng.gen_bool(0.05) {
            rng.gen_range(0..=255)
        } else {
            rng.gen_range(0..W as u16)
        };
        let small = |rng: &mut TestRng, hi: u32| {
            if rng.gen_bool(0.8) {
                rng.gen_range(0..=hi)
            } else {
                rng.gen_range(hi + 1..=16)
            }
        };
        let ring = Ring::new(small(rng, 3)).unwrap();
        let stride = rng.gen_range(0..=4);
        let base = rng.gen_range(0..1u64 << 60) & !63;
        let cq_base = rng.gen_range(0..1u64 << 60) & if rng.gen_bool(0.7) { !31 } else { !0 };
        let config = WqConfig {
            qpn: rng.gen_range(0..=QPN_MAX),
            pd: rng.gen_range(0..4),
            ring: RecvRing::new(ring, stride, base).unwrap(),
            cq: CompletionRing::new(Ring::new(small(rng, 3)).unwrap(), 0).unwrap(),
            cq_base,
            raw: rng.gen_bool(0.3),
        };
        let mut writes = regs::wq_writes(&config).to_vec();
        if rng.gen_bool(0.08) {
            // A shape the model cannot hold, or a QPN wider than 24 bits.
            let flags = &mut writes[2].1;
            match rng.gen_range(0..6) {
                0 => *flags = (*flags & !0x1F) | wq_flags::RING_LOG2.put(rng.gen_range(17..32)),
                1 => *flags = (*flags & !0x700) | wq_flags::STRIDE_LOG2.put(rng.gen_range(5..8)),
                2 => *flags = (*flags & !0x1F_0000) | wq_flags::CQ_LOG2.put(rng.gen_range(17..32)),
                3 => writes[3].1 |= rng.gen_range(1..64),
                4 => {
                    // The ring's last byte past 2^64.
                    let bytes = config.ring.bytes();
                    let base = 0u64
                        .wrapping_sub(bytes)
                        .wrapping_add(64 * rng.gen_range(1..4));
                    writes[3].1 = base as u32;
                    writes[4].1 = (base >> 32) as u32;
                }
                _ => writes[0].1 = rng.gen_range(QPN_MAX + 1..=u32::MAX),
            }
        }
        let mut step: Vec<Op> = writes.into_iter().map(|(a, v)| Op::write(a, v)).collect();
        let (a, v) = regs::wq_write(w);
        step.push(Op::write(a, v));
        let mut steps = vec![step];
        if rng.gen_bool(0.8) {
            let (a, v) = regs::wq_modify(w, WqState::Ready);
            steps.push(vec![Op::write(a, v)]);
        }
        let _ = model;
        steps
    }

    /// A QP_ATTACH step: QPNs that collide with attached ones, targets of every kind, queues that
    /// exist or not, RSS for RC QPs, now and then a kind or MTU no QP has.
    fn attach<const W: usize, const Q: usize>(&mut self, model: &Model<W, Q>) -> Vec<Op> {
        let held = Self::attached(model);
        let wq = self.some_wq(model) as u8;
        let rng = &mut self.rng;
        let slot = rng.gen_range(0..Q as u32);
        let qpn = match rng.gen_range(0..30) {
            0 => [0, 1, QPN_MAX + 1, rng.gen()][rng.gen_range(0..4)],
            1..=6 if !held.is_empty() => held[rng.gen_range(0..held.len())],
            _ => (slot + Q as u32 * rng.gen_range(0..=QPN_MAX / Q as u32)).max(QPN_MIN),
        };
        let target = match rng.gen_range(0..20) {
            0..=7 => Target::Own(wq.into()),
            8..=13 => Target::Shared(wq.into()),
            _ => Target::Rss,
        };
        let ud = if target == Target::Rss {
            rng.gen_bool(0.85)
        } else {
            rng.gen_bool(0.4)
        };
        let config = qp_config(
            ud,
            rng.gen(),
            PathMtu::ALL[rng.gen_range(0..PathMtu::ALL.len())],
            rng.gen(),
        );
        let epsn = Psn::new(rng.gen_range(0..=0xFF_FFFF)).unwrap();
        let mut writes = regs::qp_writes(qpn, &config, target, epsn).to_vec();
        if target == Target::Rss && rng.gen_bool(0.3) {
            // The queue field of an RSS target is kept, though unused.
            writes[1].1 |= qp_target::WQ.put(rng.gen());
        }
        match rng.gen_range(0..40) {
            0 => writes[1].1 = (writes[1].1 & !3) | qp_target::KIND.put(3),
            1 => {
                writes[3].1 =
                    (writes[3].1 & !0x700) | qp_flags::MTU.put([0, 6, 7][rng.gen_range(0..3)])
            }
            2 => writes[2].1 |= rng.gen_range(1..256) << 24,
            _ => {}
        }
        let mut step: Vec<Op> = writes.into_iter().map(|(a, v)| Op::write(a, v)).collect();
        let (a, v) = regs::qp_attach();
        step.push(Op::write(a, v));
        step
    }

    /// The next action, when the bus is free and no command is under way.
    pub(crate) fn act<D: RxCtrlPorts, const W: usize, const Q: usize>(
        &mut self,
        bench: &mut Bench<D>,
        model: &Model<W, Q>,
    ) {
        self.pause = self.pause.saturating_sub(1);
        match self.rng.gen_range(0..100) {
            0..=8 => {
                let steps = self.wq_write(model);
                self.run_steps(bench, steps);
            }
            9..=15 => {
                let w = self.some_wq(model);
                let now = model.engine.wq(w).map(|q| q.state);
                let code = match self.rng.gen_range(0..10) {
                    0..=3 => match now {
                        Some(WqState::Reset) | None => 1,
                        Some(WqState::Ready) => 2,
                        Some(WqState::Err) => 0,
                    },
                    4 => 2,
                    5 => 0,
                    _ => self.rng.gen_range(0..4),
                };
                let word = command::OP.put(op::WQ_MODIFY)
                    | command::WQ.put(w.into())
                    | command::STATE.put(code);
                self.run_step(bench, vec![Op::write(regs::COMMAND, word)]);
            }
            16..=18 => {
                let (a, v) = regs::wq_destroy(self.some_wq(model));
                self.run_step(bench, vec![Op::write(a, v)]);
            }
            19..=29 => {
                let step = self.attach(model);
                self.run_step(bench, step);
            }
            30..=33 => {
                let held = Self::attached(model);
                let qpn = if !held.is_empty() && self.rng.gen_bool(0.7) {
                    held[self.rng.gen_range(0..held.len())]
                } else if self.rng.gen_bool(0.5) && !held.is_empty() {
                    // The slot of an attached QP, another generation.
                    held[self.rng.gen_range(0..held.len())] ^ (Q as u32) << self.rng.gen_range(0..4)
                } else {
                    self.rng.gen()
                };
                let (a, v) = regs::qp_detach();
                self.run_step(bench, vec![Op::write(regs::QP_QPN, qpn), Op::write(a, v)]);
            }
            34..=34 => {
                // An OP that is no command.
                let bad = [0, 6, 7, 15][self.rng.gen_range(0..4)];
                self.run_step(bench, vec![Op::write(regs::COMMAND, bad)]);
            }
            // Receive doorbells, often several at once.
            35..=62 => {
                for _ in 0..self.rng.gen_range(1..=4) {
                    let w = self.some_wq(model);
                    let (cons, prod, entries) = model.engine.wq(w).map_or((0, 0, 1), |q| {
                        (
                            q.doorbell.consumer(),
                            q.doorbell.producer(),
                            q.doorbell.ring().entries(),
                        )
                    });
                    // Legal steps stay small, so that WQEs are taken about as fast as posted.
                    let most = entries.min(16);
                    let rng = &mut self.rng;
                    let value = match rng.gen_range(0..12) {
                        0 => prod,
                        1..=5 => prod.wrapping_add(rng.gen_range(1..=most)),
                        6 => cons.wrapping_add(entries),
                        7 => cons.wrapping_add(entries + rng.gen_range(1..4)),
                        8 => prod.wrapping_sub(rng.gen_range(1..5)),
                        9 => cons.wrapping_add(0x8000_0000 + rng.gen_range(0..4)),
                        10 => cons.wrapping_add(rng.gen_range(1 << 20..1 << 31)),
                        _ => rng.gen(),
                    };
                    let (a, v) = regs::doorbell(w, value);
                    self.push(bench, Op::write(a, v));
                }
            }
            // Completions consumed (the answer picks the consumer written).
            63..=80 => {
                if self.pause == 0 && self.cq_read.is_none() {
                    let w = self.some_wq(model);
                    let tag = self.push(
                        bench,
                        Op::Read {
                            addr: regs::CQ_PRODUCER + 4 * u32::from(w),
                        },
                    );
                    self.cq_read = Some((tag, w));
                }
            }
            81..=83 => {
                let v = status::DB_ERROR.put(self.rng.gen_range(0..2))
                    | status::CQ_FAULT.put(self.rng.gen_range(0..2));
                self.push(bench, Op::write(regs::STATUS, v));
            }
            84 => {
                // A staging register written with some byte lanes only.
                let addrs: Vec<u32> = (0..8)
                    .map(|i| regs::WQ_QPN + 4 * i)
                    .chain((0..6).map(|i| regs::QP_QPN + 4 * i))
                    .filter(|&a| staging(a))
                    .collect();
                let addr = addrs[self.rng.gen_range(0..addrs.len())];
                let op = Op::Write {
                    addr,
                    data: self.rng.gen(),
                    strb: self.rng.gen_range(0..16),
                };
                self.push(bench, op);
            }
            85 => {
                let v = control::ENABLE.put(self.rng.gen_range(0..2)) | self.rng.gen::<u32>() << 1;
                self.push(bench, Op::write(regs::CONTROL, v));
            }
            86 => self.pause = self.rng.gen_range(10..40),
            _ => {
                let rng = &mut self.rng;
                let addr = match rng.gen_range(0..5) {
                    0 => {
                        let r = &regs::MAP[rng.gen_range(0..regs::MAP.len())];
                        r.offset + 4 * rng.gen_range(0..r.words)
                    }
                    1 => [regs::STATUS, regs::ACCEPTED, regs::CAPS][rng.gen_range(0..3)],
                    2 => regs::DISCARDS + 4 * rng.gen_range(0..16),
                    3 => regs::CQ_PRODUCER + 4 * rng.gen_range(0..W as u32 + 2),
                    _ => 4 * rng.gen_range(0..0x800),
                };
                self.push(bench, Op::Read { addr });
            }
        }
    }
}
