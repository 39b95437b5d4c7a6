//! The random register program: QP writes, modifies and destroys (legal and not), memory-region
//! writes and clears, doorbells, completion consumer writes, STATUS clears and reads, each
//! command step followed by a poll of STATUS.

use super::*;
pub(crate) fn random_config(rng: &mut TestRng) -> QpConfig {
    if rng.gen_bool(0.1) {
        // A raw-packet QP: as regs::qp_writes stages it (RAW, MTU 0, no PSN, destination or
        // Q_Key), so that the model's context is what the table holds.
        return QpConfig {
            qp_type: QpKind::Raw,
            pd: rng.gen_range(0..4),
            mtu: PathMtu::Mtu1024,
            psn: Psn::new(0).unwrap(),
            dest_qpn: 0,
            q_key: 0,
            av: None,
        };
    }
    let rc = rng.gen_bool(0.7);
    let mac = |rng: &mut TestRng| EthernetAddress(rng.gen());
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
        qp_type: if rc { QpType::Rc } else { QpType::Ud }.into(),
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

pub(crate) fn random_ring(rng: &mut TestRng) -> SendRing {
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
pub(crate) struct Program {
    pub(crate) rng: TestRng,
    /// The run's entropy profile (kept in every CONTROL write).
    pub(crate) profile: Profile,
    pub(crate) next_tag: u64,
    pub(crate) staged: HashMap<u64, Staged>,
    /// Tags of STATUS reads that poll for a command's end.
    pub(crate) polls: HashMap<u64, ()>,
    /// The tag of a CQ_PRODUCER read whose answer picks the next consumer write.
    pub(crate) cq_read: Option<u64>,
    /// Commands of the action under way, each after the previous one's end.
    pub(crate) queue: VecDeque<Vec<(Op, Staged)>>,
    pub(crate) waiting: bool,
    /// Actions left during which completions are not consumed (so the ring fills up).
    pub(crate) pause: u32,
}

impl Program {
    pub(crate) fn push<D: WqeCtrlPorts>(
        &mut self,
        bench: &mut Bench<D>,
        op: Op,
        staged: Staged,
    ) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        self.staged.insert(tag, staged);
        bench.push(op, tag);
        tag
    }

    /// Queues the writes of a command step, then a poll of STATUS.
    pub(crate) fn run_step<D: WqeCtrlPorts>(
        &mut self,
        bench: &mut Bench<D>,
        ops: Vec<(Op, Staged)>,
    ) {
        for (op, staged) in ops {
            self.push(bench, op, staged);
        }
        let tag = self.push(bench, Op::Read { addr: regs::STATUS }, Staged::None);
        self.polls.insert(tag, ());
        self.waiting = true;
    }

    /// Reacts to what the bus returned this cycle.
    pub(crate) fn react<D: WqeCtrlPorts, const N: usize>(
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
    pub(crate) fn create<const N: usize>(
        &mut self,
        model: &Model<N>,
        slot: u32,
    ) -> Vec<Vec<(Op, Staged)>> {
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
            // A shape the RTL refuses: stride past 16 blocks, ring past 2^16, no MTU, or a raw
            // QP with an MTU or UD.
            let flags = &mut writes[1].1;
            match self.rng.gen_range(0..4) {
                3 => {
                    let mtu = if self.rng.gen() {
                        qp_flags::UD.put(1)
                    } else {
                        qp_flags::MTU.put(self.rng.gen_range(1..8))
                    };
                    *flags = (*flags & !(7 << 8)) | qp_flags::RAW.put(1) | mtu;
                }
                0 => {
                    *flags =
                        (*flags & !(7 << 12)) | qp_flags::STRIDE_LOG2.put(self.rng.gen_range(5..8))
                }
                1 => {
                    *flags =
                        (*flags & !(31 << 16)) | qp_flags::RING_LOG2.put(self.rng.gen_range(17..32))
                }
                // Not raw (MTU 0 is a raw QP's).
                _ => {
                    *flags = (*flags & !(7 << 8) & !qp_flags::RAW.put(1))
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
    pub(crate) fn act<D: WqeCtrlPorts, const N: usize>(
        &mut self,
        bench: &mut Bench<D>,
        model: &Model<N>,
    ) {
        let qps = model.qps as u32;
        self.pause = self.pause.saturating_sub(1);
        let rng = &mut self.rng;
        let some_slot = |rng: &mut TestRng| -> u32 {
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
