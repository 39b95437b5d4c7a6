//! The whole receive path (`rtl/rx/rx_path.sv`) as a steppable [`Bench`]: frames with their RSS
//! verdicts in through a [`Source`] with random gaps, its registers behind the AXI4-Lite master
//! of [`crate::axil`], host memory served by [`DmaHost`] (random latency, reordering and
//! back-pressure), the memory-region table written through its port, and the send side's QP
//! slot bits played by the bench: a slot the data path moves to ERR (`err_set`) shows ERR a few
//! cycles later, as the send side's table would. One clock cycle per [`Bench::step`], which
//! reports what the data path finished ([`Event`]) in the order it did, for a test to replay
//! through `model::rx::RecvEngine`.

use crate::axil::{Done, Master, Op};
use crate::axis::{beats, keep_mask, Beat};
use crate::duts::{RxPath8, RxPathPorts};
use crate::harness::Sim;
use crate::rx::check::Rss;
use crate::stream::TestRng;
use crate::stream::{rng, Held, Sink, Source};
use crate::wqe::host_memory::{Config as DmaConfig, DmaHost};
use rand::Rng;
use rocenic_model::qp::MemoryRegion;
use rocenic_model::wqe::HostMemory;
use std::collections::VecDeque;

crate::axil_port_fns!(RxPathPorts);
crate::dma_port_fns!(RxPathPorts);

/// Work queues of the DUT.
pub const WQS: usize = 8;
/// QP slots of the DUT (the send side's).
pub const QPS: usize = 8;
/// Memory-region slots of the DUT.
pub const MRS: usize = 8;
/// The lowest lkey bit of a region's slot (`wqe_mr`'s `MR_IDX_LSB`).
pub const MR_IDX_LSB: u32 = 8;

/// What the data path finished, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A frame (the next one in input order), taken or discarded.
    Frame,
    /// A flush step, and whether it completed a WQE.
    Flush {
        /// A WQE was flushed.
        hit: bool,
    },
    /// The data path moved a QP slot to ERR on the send side.
    ErrSet(u8),
    /// The RC responder's acknowledgement left (`m_ack_*`), before its frame is done.
    Ack(Ack),
    /// An Acknowledge frame left for the requester (`m_rack_*`: its QP is the BTH's
    /// destination), before its frame is done.
    AckIn(Ack),
}

/// An acknowledgement on `m_ack_*`: what the model's `RcReply` says for an Acknowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// The local QP.
    pub qpn: u32,
    /// The BTH PSN.
    pub psn: u32,
    /// The AETH syndrome byte.
    pub syndrome: u8,
    /// The AETH MSN.
    pub msn: u32,
}

/// How the bench treats the receive path.
#[derive(Clone, Debug)]
pub struct Load {
    /// The host behind the DMA ports.
    pub dma: DmaConfig,
    /// Probability per cycle that the frame source waits before a beat.
    pub frame_idle: f64,
    /// Probability of an idle cycle before each AXI4-Lite channel's valid.
    pub axil_delay: f64,
    /// The most cycles the send side takes to show an `err_set` (at least 1).
    pub err_lag: u64,
    /// Probability per cycle that each acknowledgement output (the responder's, the
    /// requester's) is not ready.
    pub ack_stall: f64,
}

/// The receive path, its host, its register master, its frame source and the send side's slot
/// bits: one clock cycle per [`Bench::step`].
pub struct Bench {
    /// The simulation.
    pub sim: Sim<RxPath8>,
    host: DmaHost<HostMemory>,
    axil: Master,
    frames: Source<(Beat, Rss)>,
    /// The send side's slots holding a QP...
    pub sq_valid: u8,
    /// ...holding one in RTR or RTS...
    pub sq_rcv: u8,
    /// ...and holding one in ERR.
    pub qp_err: u8,
    /// ERRs the data path asked for, and the cycle from which the send side shows each.
    err_due: Vec<(u64, u8)>,
    /// Region writes still to make, one a cycle: the slot and the region (`None` frees it).
    mr: VecDeque<(u8, Option<MemoryRegion>)>,
    rnd: TestRng,
    err_lag: u64,
    /// The acknowledgement output's ready, and its valid/ready rule.
    ack_sink: Sink,
    ack_held: Held<Ack>,
    /// The same for the Acknowledges handed to the requester.
    rack_sink: Sink,
    rack_held: Held<Ack>,
    /// Frames whose last beat went in.
    pub fed: usize,
}

impl Bench {
    /// The receive path out of reset over `memory`, its surroundings behaving as `load` says,
    /// seeded by `seed`; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str, memory: HostMemory, load: &Load, seed: u64) -> Bench {
        let mut sim: Sim<RxPath8> = Sim::new(run);
        sim.reset(4);
        Bench {
            sim,
            host: DmaHost::new(memory, load.dma.clone(), seed ^ 0xD3A),
            axil: Master::new(seed ^ 0xA11, load.axil_delay, 1 << 20),
            frames: Source::new(seed ^ 0xF4A, load.frame_idle),
            sq_valid: 0,
            sq_rcv: 0,
            qp_err: 0,
            err_due: Vec::new(),
            mr: VecDeque::new(),
            rnd: rng(seed ^ 0xE44),
            err_lag: load.err_lag.max(1),
            ack_sink: Sink::new(seed ^ 0xAC4, load.ack_stall),
            ack_held: Held::default(),
            rack_sink: Sink::new(seed ^ 0x4AC, load.ack_stall),
            rack_held: Held::default(),
            fed: 0,
        }
    }

    /// Clock cycles so far (reset included).
    pub fn cycle(&self) -> u64 {
        self.sim.cycle()
    }

    /// Queues a register operation under `tag`; [`Bench::step`] reports it done.
    pub fn push(&mut self, op: Op, tag: u64) {
        self.axil.push(op, tag);
    }

    /// Queues a frame with its RSS verdict.
    pub fn feed(&mut self, frame: &[u8], rss: Rss) {
        for b in beats(frame, 8, false) {
            self.frames.push((b, rss));
        }
    }

    /// Queues a memory-region write: `mr` into `slot`, or the slot freed.
    pub fn write_mr(&mut self, slot: u8, mr: Option<MemoryRegion>) {
        self.mr.push_back((slot, mr));
    }

    /// Host memory.
    pub fn memory(&self) -> &HostMemory {
        self.host.memory()
    }

    /// Host memory, to change between the path's accesses (WQEs posted).
    pub fn memory_mut(&mut self) -> &mut HostMemory {
        self.host.memory_mut()
    }

    /// Nothing queued anywhere: no register operation, no frame beat, no DMA, no region write
    /// and no ERR on its way to the send side.
    pub fn quiet(&self) -> bool {
        self.axil.idle()
            && self.frames.remaining() == 0
            && self.host.idle()
            && self.mr.is_empty()
            && self.err_due.is_empty()
    }

    /// One clock cycle: every input driven, every output sampled and every handshake taken,
    /// the edge. Returns the register operation that finished in it and what the data path
    /// finished; an error when the path broke the DMA protocol.
    pub fn step(&mut self) -> Result<(Option<Done>, Vec<Event>), String> {
        let now = self.sim.cycle();
        let pins = self.axil.drive();
        drive_axil(&mut self.sim.dut, &pins);
        let h = self.host.offer();
        drive_dma(&mut self.sim.dut, &h);
        let beat = self.frames.offer().cloned();
        let due: Vec<u8> = self
            .err_due
            .iter()
            .filter(|(t, _)| *t <= now)
            .map(|(_, s)| *s)
            .collect();
        self.err_due.retain(|(t, _)| *t > now);
        for s in due {
            // The send side's QP moves to ERR (wqe_ctrl's err_set); a slot without one stays.
            if self.sq_valid >> s & 1 != 0 {
                self.qp_err |= 1 << s;
                self.sq_rcv &= !(1 << s);
            }
        }
        let mr = self.mr.pop_front();
        let ack_ready = self.ack_sink.ready();
        let rack_ready = self.rack_sink.ready();
        let d = &mut self.sim.dut;
        d.set_m_ack_ready(ack_ready.into());
        d.set_m_rack_ready(rack_ready.into());
        d.set_s_axis_tvalid(beat.is_some().into());
        if let Some((b, rss)) = &beat {
            let mut lanes = [0u8; 8];
            lanes.copy_from_slice(&b.data);
            d.set_s_axis_tdata(u64::from_le_bytes(lanes));
            d.set_s_axis_tkeep(keep_mask(b.keep) as u8);
            d.set_s_axis_tlast(b.last.into());
            d.set_s_meta_queue(rss.queue);
            d.set_s_meta_hash(rss.hash);
            d.set_s_meta_hash_type(rss.hash_type);
        }
        d.set_sq_valid(self.sq_valid);
        d.set_sq_rcv(self.sq_rcv);
        d.set_qp_err(self.qp_err);
        d.set_mr_wr_en(mr.is_some().into());
        if let Some((slot, r)) = mr {
            d.set_mr_wr_slot(slot);
            d.set_mr_wr_valid(r.is_some().into());
            let r = r.unwrap_or(MemoryRegion {
                lkey: 0,
                base: 0,
                length: 0,
                pd: 0,
                access: rocenic_model::qp::Access::NONE,
            });
            d.set_mr_wr_lkey(r.lkey);
            d.set_mr_wr_base(r.base);
            d.set_mr_wr_length(r.length);
            d.set_mr_wr_pd(r.pd);
            d.set_mr_wr_access(r.access.bits() as u8);
        }
        self.sim.settle();

        let d = &self.sim.dut;
        let seen = sample_axil(d);
        let eng = sample_dma(d);
        let mut events = Vec::new();
        if d.frame_done() == 1 {
            events.push(Event::Frame);
        }
        if d.flush_step() == 1 {
            events.push(Event::Flush {
                hit: d.flush_hit() == 1,
            });
        }
        let ack = (d.m_ack_valid() == 1).then(|| Ack {
            qpn: d.m_ack_qpn(),
            psn: d.m_ack_psn(),
            syndrome: d.m_ack_syndrome(),
            msn: d.m_ack_msn(),
        });
        if let Some(a) = self
            .ack_held
            .sample(ack, ack_ready)
            .map_err(|e| format!("cycle {now}: acknowledgements: {e}"))?
        {
            events.push(Event::Ack(a));
        }
        let rack = (d.m_rack_valid() == 1).then(|| Ack {
            qpn: d.m_rack_qpn(),
            psn: d.m_rack_psn(),
            syndrome: d.m_rack_syndrome(),
            msn: d.m_rack_msn(),
        });
        if let Some(a) = self
            .rack_held
            .sample(rack, rack_ready)
            .map_err(|e| format!("cycle {now}: acknowledges in: {e}"))?
        {
            events.push(Event::AckIn(a));
        }
        if d.err_set_valid() == 1 {
            let s = d.err_set_slot();
            events.push(Event::ErrSet(s));
            let lag = self.rnd.gen_range(1..=self.err_lag);
            self.err_due.push((now + lag, s % QPS as u8));
        }
        let ready = d.s_axis_tready() == 1;
        if let Some((b, _)) = self.frames.accepted(ready) {
            if b.last {
                self.fed += 1;
            }
        }
        self.host
            .accepted(&eng)
            .map_err(|v| format!("DMA protocol: {v}"))?;
        let done = self.axil.observe(now, &seen);
        self.sim.step();
        Ok((done, events))
    }

    /// The error for a run that gave up now.
    pub fn hang(&mut self, what: &str) -> crate::harness::Hang {
        self.sim.hang(what)
    }

    /// The host's counters (requests, beats, bytes, faults).
    pub fn dma_counters(&self) -> crate::wqe::host_memory::Counters {
        self.host.counters()
    }
}
