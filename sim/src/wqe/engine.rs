//! The whole WQE engine (`rtl/wqe/wqe_engine.sv`) as a steppable [`Bench`]: its AXI4-Lite
//! registers behind the master of [`crate::axil`], host memory served by [`DmaHost`], and the
//! frames collected off its output under random back-pressure, one clock cycle per
//! [`Bench::step`]. Two users drive it:
//!
//! - [`run`]: a whole scenario as a driver would run the NIC, its registers written with the
//!   model's encoders (`model::wqe::regs`), every doorbell rung, until every WQE has retired.
//!   `rocenic send --engine rtl` and the engine's tests share it; [`run_on`] runs it on any
//!   build of the engine (`duts::WqeEngine`, the default, or `duts::WqeEngine16`, the ECP5-25F
//!   configuration).
//! - the host driver, through the `Device` implementation in [`super::device`]: one register
//!   access at a time, the bench stepped in between as the driver waits.

use super::host_memory::{Config as DmaConfig, DmaHost};
use super::replay::EngineInputs;
use crate::axil::Done;
use crate::axil::{Master, Op};
use crate::duts::{WqeEngine, WqeEnginePorts};
use crate::harness::Sim;
use crate::stream::rng;
use crate::stream::TestRng;
use rand::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{MemoryRegion, QpConfig, QpState};
use rocenic_model::rc::Reliable;
use rocenic_model::wqe::regs;
use rocenic_model::wqe::{HostMemory, Nic, SendRing};
use std::path::Path;

crate::axil_port_fns!(WqeEnginePorts);
crate::dma_port_fns!(WqeEnginePorts);

/// One send queue: its QP, the QP's configuration, its ring and the producer index its
/// doorbell writes (the WQEs `0..producer` are in host memory).
#[derive(Clone, Debug)]
pub struct Queue {
    /// The QP.
    pub qpn: u32,
    /// Its configuration (created, then brought to RTS).
    pub config: QpConfig,
    /// Its send ring.
    pub ring: SendRing,
    /// WQEs posted.
    pub producer: u32,
}

/// What the engine is given.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The NIC's addresses.
    pub nic: Nic,
    /// The entropy profile.
    pub profile: Profile,
    /// Regions, registered in order.
    pub mrs: Vec<MemoryRegion>,
    /// Send queues, in slot order (the order of service).
    pub queues: Vec<Queue>,
    /// Completion ring base and log2 of its entries (it must hold every completion).
    pub cq: (u64, u32),
    /// Host memory with every WQE in place.
    pub memory: HostMemory,
    /// Acknowledgements offered on `s_ack_*` once the engine is enabled, in order, with
    /// random gaps ([`Load::ack_gap`]); a run ends only when all were taken.
    pub acks: Vec<AckIn>,
    /// Each queue's QP at slot QPN mod `CAPS.QPS` (where the receive path, and so an
    /// acknowledgement, finds it) rather than at its index; the QPNs must then rise with the
    /// index so that the order of service stays the model's.
    pub slot_by_qpn: bool,
    /// QPs created after `queues` and moved to INIT only, with no doorbell: no WQE of theirs
    /// is fetched, and an acknowledgement naming one has no route (its entropy is not fixed
    /// until RTR). Their slots follow the queues' (or QPN mod `CAPS.QPS`, as those).
    pub parked: Vec<Queue>,
}

/// An acknowledgement the receive path's responder asks the engine to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckIn {
    /// The local QP.
    pub qpn: u32,
    /// The BTH PSN.
    pub psn: u32,
    /// The AETH syndrome.
    pub syndrome: u8,
    /// The AETH MSN.
    pub msn: u32,
}

impl From<&super::dp::Run> for Setup {
    /// A data-path scenario as the whole engine takes it: the same QPs, regions, rings and
    /// memory, every posted WQE's doorbell rung.
    fn from(r: &super::dp::Run) -> Setup {
        Setup {
            nic: r.engine.nic,
            profile: r.engine.qps.profile(),
            mrs: r.mrs.clone(),
            queues: r
                .queues
                .iter()
                .map(|q| Queue {
                    qpn: q.qpn,
                    config: *r.engine.qps.get(q.qpn).expect("the scenario's QP").config(),
                    ring: q.ring,
                    producer: q.posted,
                })
                .collect(),
            cq: r.cq,
            memory: r.mem.clone(),
            acks: Vec::new(),
            slot_by_qpn: false,
            parked: Vec::new(),
        }
    }
}

/// An acknowledgement for one of the engine's requesters (the receive path's `m_rack_*`), on
/// `s_rack_*`: an engine with the reliable transport (`CAPS2.RELIABLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RackIn {
    /// The local QP (the Acknowledge frame's BTH destination).
    pub qpn: u32,
    /// The BTH PSN.
    pub psn: u32,
    /// The AETH syndrome.
    pub syndrome: u8,
}

/// How the engine's surroundings behave.
#[derive(Clone, Debug)]
pub struct Load {
    /// The host behind the DMA ports.
    pub dma: DmaConfig,
    /// Probability that the frame output is ready in a cycle.
    pub out_ready: f64,
    /// Probability of an idle cycle before each AXI4-Lite channel's valid.
    pub axil_delay: f64,
}

impl Load {
    /// An ideal host and sink: the figures of the engine itself.
    pub fn ideal() -> Load {
        Load {
            dma: DmaConfig::ideal(8, 4),
            out_ready: 1.0,
            axil_delay: 0.0,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Frames in the order they left.
    pub frames: Vec<Vec<u8>>,
    /// The cycle each frame's last beat left in.
    pub frame_cycles: Vec<u64>,
    /// Host memory afterwards (the completion ring in it).
    pub memory: HostMemory,
    /// Cycles from the first doorbell to the last WQE retired and the output empty.
    pub cycles: u64,
    /// Cycles in which an output beat was taken.
    pub beats: u64,
}

/// The engine (the build `D`, the default one unless named), its host memory, its AXI4-Lite
/// master and the sink of its frame output: one clock cycle per [`Bench::step`].
pub struct Bench<D: WqeEnginePorts = WqeEngine> {
    sim: Sim<D>,
    host: DmaHost<HostMemory>,
    axil: Master,
    /// The output's ready, drawn per cycle.
    rnd: TestRng,
    out_ready: f64,
    /// Frames out, in order, not yet taken; the one being received.
    frames: Vec<Vec<u8>>,
    /// The cycle of each frame's last beat, beside `frames`.
    frame_cycles: Vec<u64>,
    frame: Vec<u8>,
    /// Output beats taken, and whether the output offered one in the last cycle.
    beats: u64,
    out_busy: bool,
    /// Tags of [`Bench::access`], above every tag `run` uses.
    tag: u64,
    /// Each cycle's inputs, when recording ([`run_recorded`]).
    recorded: Option<Vec<EngineInputs>>,
    /// Acknowledgements still to offer, and the one offered (held until taken).
    acks: std::collections::VecDeque<AckIn>,
    ack_offer: Option<AckIn>,
    /// Acknowledgements for the requesters, each with the cycle it may be offered from, in
    /// order; the one offered (held until taken).
    racks: std::collections::VecDeque<(u64, RackIn)>,
    rack_offer: Option<RackIn>,
}

/// Probability that an acknowledgement waiting is offered in a cycle.
const ACK_RATE: f64 = 0.05;

/// Cycles one register access of [`Bench::access`] may take: a write after a command waits
/// for the command, which waits for the WQE in flight (up to a 2 GiB message at worst; a few
/// thousand cycles for what tests and examples send).
pub const ACCESS_LIMIT: u64 = 1 << 22;

impl<D: WqeEnginePorts> Bench<D> {
    /// The engine out of reset over `memory`, its surroundings behaving as `load` says, seeded
    /// by `seed`; `vcd` traces it (FST if it ends in `.fst`).
    pub fn new(
        memory: HostMemory,
        load: &Load,
        seed: u64,
        vcd: Option<&Path>,
    ) -> Result<Bench<D>, String> {
        let mut sim: Sim<D> = match vcd {
            Some(p) => Sim::with_trace_at(p).map_err(|e| format!("{}: {e}", p.display()))?,
            None => Sim::new("wqe_engine"),
        };
        sim.reset(4);
        Ok(Bench {
            sim,
            host: DmaHost::new(memory, load.dma.clone(), seed ^ 0xD3A),
            axil: Master::new(seed ^ 0xA11, load.axil_delay, 1 << 20),
            rnd: rng(seed),
            out_ready: load.out_ready,
            frames: Vec::new(),
            frame_cycles: Vec::new(),
            frame: Vec::new(),
            beats: 0,
            out_busy: false,
            tag: 1 << 62,
            recorded: None,
            acks: Default::default(),
            ack_offer: None,
            racks: Default::default(),
            rack_offer: None,
        })
    }

    /// Clock cycles so far (reset included).
    pub fn cycle(&self) -> u64 {
        self.sim.cycle()
    }

    /// Queues a register operation under `tag`; [`Bench::step`] reports it done.
    pub fn push(&mut self, op: Op, tag: u64) {
        self.axil.push(op, tag);
    }

    /// One clock cycle: the master's pins, the host's DMA outputs and the output's ready
    /// driven, everything sampled, every handshake taken, the clock edge. Returns the register
    /// operation that finished in it, if any; an error when the engine broke the DMA protocol
    /// or the output's keep rule.
    pub fn step(&mut self) -> Result<Option<Done>, String> {
        let now = self.sim.cycle();
        let pins = self.axil.drive();
        drive_axil(&mut self.sim.dut, &pins);
        let h = self.host.offer();
        let d = &mut self.sim.dut;
        drive_dma(d, &h);
        let out_ready = self.rnd.gen_bool(self.out_ready);
        d.set_m_axis_tready(out_ready);
        if self.ack_offer.is_none() && !self.acks.is_empty() && self.rnd.gen_bool(ACK_RATE) {
            self.ack_offer = self.acks.pop_front();
        }
        let a = self.ack_offer.unwrap_or(AckIn {
            qpn: 0,
            psn: 0,
            syndrome: 0,
            msn: 0,
        });
        d.set_s_ack_valid(self.ack_offer.is_some());
        d.set_s_ack_qpn(a.qpn);
        d.set_s_ack_psn(a.psn);
        d.set_s_ack_syndrome(a.syndrome);
        d.set_s_ack_msn(a.msn);
        if self.rack_offer.is_none() && self.racks.front().is_some_and(|r| r.0 <= now) {
            self.rack_offer = self.racks.pop_front().map(|r| r.1);
        }
        let r = self.rack_offer.unwrap_or(RackIn {
            qpn: 0,
            psn: 0,
            syndrome: 0,
        });
        d.set_s_rack_valid(self.rack_offer.is_some());
        d.set_s_rack_qpn(r.qpn);
        d.set_s_rack_psn(r.psn);
        d.set_s_rack_syndrome(r.syndrome);
        self.sim.settle();
        if self.sim.dut.s_ack_ready() {
            self.ack_offer = None;
        }
        if self.sim.dut.s_rack_ready() {
            self.rack_offer = None;
        }

        let d = &self.sim.dut;
        let seen = sample_axil(d);
        if d.m_axis_tvalid() && out_ready {
            let keep = u64::from(d.m_axis_tkeep());
            let n = keep.trailing_ones() as usize;
            if keep >> n != 0 {
                return Err(format!("cycle {now}: output keep {keep:#x} not contiguous"));
            }
            self.frame
                .extend_from_slice(&d.m_axis_tdata().to_le_bytes()[..n]);
            self.beats += 1;
            if d.m_axis_tlast() {
                self.frames.push(std::mem::take(&mut self.frame));
                self.frame_cycles.push(now);
            }
        }
        let eng = sample_dma(d);
        self.out_busy = d.m_axis_tvalid();
        self.host
            .accepted(&eng)
            .map_err(|v| format!("DMA protocol: {v}"))?;
        let done = self.axil.observe(now, &seen);
        if let Some(r) = &mut self.recorded {
            r.push(EngineInputs::of(&self.sim.dut));
        }
        self.sim.step();
        Ok(done)
    }

    /// One register operation, the bench stepped until it finished (at most
    /// [`ACCESS_LIMIT`] cycles); `Ok(None)` when it did not finish in time. Operations queued
    /// with [`Bench::push`] before it go first.
    pub fn access(&mut self, op: Op) -> Result<Option<Done>, String> {
        self.tag += 1;
        let tag = self.tag;
        self.axil.push(op, tag);
        let start = self.sim.cycle();
        while self.sim.cycle() - start < ACCESS_LIMIT {
            if let Some(d) = self.step()? {
                if d.tag == tag {
                    return Ok(Some(d));
                }
            }
        }
        Ok(None)
    }

    /// No register operation queued, no DMA outstanding, the output quiet in the last cycle,
    /// no frame half received and no acknowledgement (of either kind) left to offer.
    pub fn quiet(&self) -> bool {
        self.axil.idle()
            && self.host.idle()
            && !self.out_busy
            && self.frame.is_empty()
            && self.acks.is_empty()
            && self.ack_offer.is_none()
            && self.racks.is_empty()
            && self.rack_offer.is_none()
    }

    /// Offers `rack` on `s_rack_*` from cycle `due` on, after those queued (in order).
    pub fn offer_rack(&mut self, due: u64, rack: RackIn) {
        self.racks.push_back((due, rack));
    }

    /// Offers `acks` on `s_ack_*` after those queued, one at a time with random gaps.
    pub fn offer_acks(&mut self, acks: &[AckIn]) {
        self.acks.extend(acks.iter().copied());
    }

    /// The register master has nothing queued or in progress.
    pub fn axil_idle(&self) -> bool {
        self.axil.idle()
    }

    /// Host memory.
    pub fn memory(&self) -> &HostMemory {
        self.host.memory()
    }

    /// Host memory, to change it (buffers, WQEs) between the engine's accesses.
    pub fn memory_mut(&mut self) -> &mut HostMemory {
        self.host.memory_mut()
    }

    /// The frames out so far and not yet taken, in order.
    pub fn frames(&self) -> &[Vec<u8>] {
        &self.frames
    }

    /// Takes the frames out so far.
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        self.take_frames_with_cycles().0
    }

    /// Takes the frames out so far, with the cycle each one's last beat left in.
    pub fn take_frames_with_cycles(&mut self) -> (Vec<Vec<u8>>, Vec<u64>) {
        (
            std::mem::take(&mut self.frames),
            std::mem::take(&mut self.frame_cycles),
        )
    }

    /// Output beats taken so far.
    pub fn beats(&self) -> u64 {
        self.beats
    }

    /// The error for a run that gave up now.
    pub fn hang(&mut self, what: &str) -> crate::harness::Hang {
        self.sim.hang(what)
    }

    /// Host memory, the bench done with.
    pub fn into_memory(self) -> HostMemory {
        self.host.into_memory()
    }
}

/// The TSO limits of build `D`, as the model's engine should have them: the segmenter's
/// (`tso::Limits::default()`) when its `CAPS.TSO` is set, else none.
pub fn tso_of<D: WqeEnginePorts>() -> Result<Option<rocenic_model::tso::Limits>, String> {
    let mut bench = Bench::<D>::new(HostMemory::new(), &Load::ideal(), 0, None)?;
    let caps = bench
        .access(Op::Read { addr: regs::CAPS })?
        .ok_or("CAPS read timed out")?
        .data;
    Ok((regs::caps::TSO.get(caps) != 0).then(rocenic_model::tso::Limits::default))
}

/// Runs `setup` through the co-simulated engine (its default build) under `load`, seeded by
/// `seed`; gives up after `limit` cycles. `vcd` traces the run.
pub fn run(
    setup: &Setup,
    load: &Load,
    seed: u64,
    limit: u64,
    vcd: Option<&Path>,
) -> Result<Outcome, String> {
    run_on::<WqeEngine>(setup, load, seed, limit, vcd)
}

/// [`run`] on the build `D` of the engine: the setup must fit its QP and region slots.
pub fn run_on<D: WqeEnginePorts>(
    setup: &Setup,
    load: &Load,
    seed: u64,
    limit: u64,
    vcd: Option<&Path>,
) -> Result<Outcome, String> {
    let bench = Bench::<D>::new(setup.memory.clone(), load, seed, vcd)?;
    run_bench(bench, setup, limit).map(|(outcome, _)| outcome)
}

/// [`run`], with the inputs the engine saw in every cycle after reset, for
/// [`replay`](super::replay::replay).
pub fn run_recorded(
    setup: &Setup,
    load: &Load,
    seed: u64,
    limit: u64,
) -> Result<(Outcome, Vec<EngineInputs>), String> {
    let mut bench = Bench::<WqeEngine>::new(setup.memory.clone(), load, seed, None)?;
    bench.recorded = Some(Vec::new());
    let (outcome, inputs) = run_bench(bench, setup, limit)?;
    Ok((outcome, inputs.unwrap_or_default()))
}

/// The register writes that program the engine for `setup` and enable it: the NIC and the
/// completion ring, the regions, the QPs to RTS (the parked ones to INIT), every doorbell rung
/// before the enable (the order of service is then the model's, whatever the register
/// timing). A queue's slot is its index, or with `slot_by_qpn` its QPN modulo `qps` (the
/// engine's `CAPS.QPS`). With `reliable` (its settings, and the cycles per tick of its
/// clock), the transport's registers come before any QP, and the enable sets
/// `CONTROL.RELIABLE`.
pub fn setup_writes(
    setup: &Setup,
    qps: u32,
    reliable: Option<(&Reliable, u16)>,
) -> Vec<(u32, u32)> {
    let slot_of = |i: usize, q: &Queue| {
        if setup.slot_by_qpn {
            q.qpn % qps
        } else {
            i as u32
        }
    };
    let mut ops: Vec<(u32, u32)> = Vec::new();
    ops.extend(regs::nic_writes(&setup.nic, setup.profile, false));
    if let Some((rel, tick)) = reliable {
        ops.extend(regs::reliable_writes(Some(rel), tick, setup.profile, false));
    }
    ops.extend(regs::cq_writes(setup.cq.0, setup.cq.1));
    for mr in &setup.mrs {
        ops.extend(regs::mr_writes(mr));
        ops.push(regs::mr_write());
    }
    for (i, q) in setup.queues.iter().enumerate() {
        let slot = slot_of(i, q);
        let base = q.ring.addr(0);
        ops.extend(regs::qp_writes(q.qpn, &q.config, &q.ring, base));
        ops.push(regs::qp_write(slot));
        for s in [QpState::Init, QpState::Rtr, QpState::Rts] {
            ops.push(regs::qp_modify(slot, s));
        }
    }
    for (i, q) in setup.parked.iter().enumerate() {
        let slot = slot_of(setup.queues.len() + i, q);
        ops.extend(regs::qp_writes(q.qpn, &q.config, &q.ring, q.ring.addr(0)));
        ops.push(regs::qp_write(slot));
        ops.push(regs::qp_modify(slot, QpState::Init));
    }
    for (i, q) in setup.queues.iter().enumerate() {
        ops.push(regs::doorbell(slot_of(i, q), q.producer));
    }
    ops.push(match reliable {
        Some((rel, tick)) => regs::reliable_writes(Some(rel), tick, setup.profile, true)[2],
        None => regs::nic_writes(&setup.nic, setup.profile, true)[7],
    });
    ops
}

/// Programs the engine for `setup`, rings its doorbells and runs it until every WQE retired.
fn run_bench<D: WqeEnginePorts>(
    mut bench: Bench<D>,
    setup: &Setup,
    limit: u64,
) -> Result<(Outcome, Option<Vec<EngineInputs>>), String> {
    // Program it: NIC and completion ring, regions, QPs to RTS, the doorbells, then enable.
    let qps = if setup.slot_by_qpn {
        let caps = bench
            .access(Op::Read { addr: regs::CAPS })?
            .ok_or("CAPS read timed out")?
            .data;
        regs::caps::QPS.get(caps)
    } else {
        u32::MAX
    };
    let ops = setup_writes(setup, qps, None);
    for (i, &(addr, data)) in ops.iter().enumerate() {
        bench.push(Op::write(addr, data), i as u64);
    }
    let posted: u32 = setup.queues.iter().map(|q| q.producer).sum();
    // After the doorbells, STATUS is checked once (no command refused) and WQES is polled.
    bench.push(Op::Read { addr: regs::STATUS }, u64::MAX - 1);

    let mut start = None;
    let mut retired = 0u32;
    let mut idle = false;
    // FRAMES, read once the engine is idle: every data and ACK frame counted once.
    let mut counted: Option<u32> = None;
    let mut last_poll = 0u64;
    loop {
        let now = bench.cycle();
        if now > limit {
            let h = bench.hang("wqe_engine run");
            return Err(format!(
                "{h}: {retired} of {posted} WQEs retired, {} frames out",
                bench.frames().len()
            ));
        }
        if let Some(done) = bench.step()? {
            if done.resp != 0 {
                return Err(format!("cycle {now}: {:?} answered {}", done.op, done.resp));
            }
            match done.tag {
                t if t == ops.len() as u64 - 1 => {
                    // Enabled, every QP in RTS: the acknowledgements may come.
                    start = Some(now);
                    bench.offer_acks(&setup.acks);
                }
                t if t == u64::MAX - 1 && regs::status::CMD_ERROR.get(done.data) != 0 => {
                    return Err("a QP or region command was refused".into());
                }
                t if t == u64::MAX => retired = done.data,
                t if t == u64::MAX - 2 => {
                    idle = regs::status::IDLE.get(done.data) == 1;
                    if idle {
                        bench.push(Op::Read { addr: regs::FRAMES }, u64::MAX - 3);
                    }
                }
                t if t == u64::MAX - 3 => counted = Some(done.data),
                _ => {}
            }
        }
        // Poll WQES until every WQE retired, then STATUS until the engine is idle (its last
        // frame out of the frame builder and the ICRC stage too).
        if start.is_some() && !idle && bench.axil_idle() && now - last_poll >= 64 {
            if retired == posted && bench.acks.is_empty() && bench.ack_offer.is_none() {
                bench.push(Op::Read { addr: regs::STATUS }, u64::MAX - 2);
            } else {
                bench.push(Op::Read { addr: regs::WQES }, u64::MAX);
            }
            last_poll = now;
        }
        if retired == posted && counted.is_some() && bench.quiet() {
            // An FST trace is written as its run ends, so that a failure to write it is this
            // run's error rather than a line on standard error.
            bench
                .sim
                .close_trace()
                .map_err(|e| format!("the trace: {e}"))?;
            let cycles = now - start.unwrap_or(0);
            let beats = bench.beats();
            let (frames, frame_cycles) = bench.take_frames_with_cycles();
            if counted != Some(frames.len() as u32) {
                return Err(format!(
                    "FRAMES reads {counted:?}, {} frames left the engine",
                    frames.len()
                ));
            }
            let inputs = bench.recorded.take();
            let outcome = Outcome {
                frames,
                frame_cycles,
                memory: bench.into_memory(),
                cycles,
                beats,
            };
            return Ok((outcome, inputs));
        }
    }
}
