//! One full core (`rtl/top/nic_core.sv`) as a steppable [`Bench`]: its one AXI4-Lite port behind
//! the master of [`crate::axil`] (random delays), its one DMA port served by [`DmaHost`] (random
//! latency, reordering, interleaving and back-pressure), random back-pressure on its transmit
//! stream and random gaps on its receive stream. One clock cycle per [`Bench::step`]: the
//! caller gives the beat on offer at the receive side (a `sim::link` wire's, say) and gets the
//! transmit beat the core handed out, so two benches can be joined by a wire.

use crate::axil::{Done, Master, Op};
use crate::axis::{keep_count, keep_mask, Beat};
use crate::duts::{NicCore, NicCorePorts};
use crate::harness::Sim;
use crate::stream::rng;
use crate::stream::TestRng;
use crate::wqe::host_memory::{Config as DmaConfig, Counters as DmaCounters, DmaHost};
use rand::Rng;
use rocenic_model::wqe::HostMemory;
use std::path::Path;

crate::axil_port_fns!(NicCorePorts);
crate::dma_port_fns!(NicCorePorts);

/// Lanes of the MAC streams and the DMA port.
pub const LANES: usize = 8;
/// The host's read tag bits: the two sources' 4, and the source bit above them.
pub const RD_TAG_BITS: u32 = 5;

/// How the core's surroundings behave. Probabilities are per cycle.
#[derive(Clone, Debug)]
pub struct Load {
    /// The host behind the DMA port.
    pub dma: DmaConfig,
    /// Probability that the transmit stream is ready (the MAC's back-pressure).
    pub tx_ready: f64,
    /// Probability that the receive stream idles before a beat it could offer.
    pub rx_idle: f64,
    /// Probability of an idle cycle before each AXI4-Lite channel's valid.
    pub axil_delay: f64,
}

impl Load {
    /// An ideal host, MAC and register master: the core's own figures.
    pub fn ideal() -> Load {
        Load {
            dma: DmaConfig::ideal(LANES, RD_TAG_BITS),
            tx_ready: 1.0,
            rx_idle: 0.0,
            axil_delay: 0.0,
        }
    }

    /// A host answering 1 to 40 cycles late, out of order, interleaved, with back-pressure; the
    /// MAC ready 80 % of the cycles, the receive stream idle 20 %; registers 20 % late.
    pub fn random() -> Load {
        Load {
            dma: DmaConfig {
                ready: 0.8,
                latency: 1..=40,
                stall: 0.1,
                ..DmaConfig::adversarial(LANES, RD_TAG_BITS)
            },
            tx_ready: 0.8,
            rx_idle: 0.2,
            axil_delay: 0.2,
        }
    }
}

/// What one cycle did.
#[derive(Clone, Debug, Default)]
pub struct Cycle {
    /// The register operation that finished in it.
    pub done: Option<Done>,
    /// The transmit beat the core handed out.
    pub tx: Option<Beat>,
    /// The receive beat offered was taken.
    pub rx_taken: bool,
}

/// Counts of what the core did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames out (last beats taken) and beats out.
    pub tx_frames: u64,
    /// Transmit beats taken.
    pub tx_beats: u64,
    /// Frames in (last beats taken).
    pub rx_frames: u64,
    /// Frames the receive data path finished (taken or discarded).
    pub rx_done: u64,
    /// Flush steps, and those that flushed a WQE.
    pub flush_steps: u64,
    /// Flush steps that completed a WQE.
    pub flush_hits: u64,
}

/// The core (build `D`), its host, its register master and its streams' behaviour.
pub struct Bench<D: NicCorePorts = NicCore> {
    sim: Sim<D>,
    host: DmaHost<HostMemory>,
    axil: Master,
    rnd: TestRng,
    load: Load,
    /// The receive side is presenting a beat (held until taken, as AXI-Stream requires).
    rx_presenting: bool,
    tx_frame: bool,
    counts: Counts,
    /// Tags of [`Bench::access`].
    tag: u64,
}

/// Cycles one register access of [`Bench::access`] may take (a command waits for the WQE or
/// frame in flight).
pub const ACCESS_LIMIT: u64 = 1 << 22;

impl<D: NicCorePorts> Bench<D> {
    /// The core out of reset over `memory`, its surroundings behaving as `load` says, seeded by
    /// `seed`; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str, memory: HostMemory, load: &Load, seed: u64) -> Bench<D> {
        Self::with_sim(Sim::new(run), memory, load, seed)
    }

    /// [`Bench::new`] traced to the file `vcd` (a command's `--vcd FILE`; FST if it ends in
    /// `.fst`).
    pub fn traced(
        vcd: &Path,
        memory: HostMemory,
        load: &Load,
        seed: u64,
    ) -> std::io::Result<Bench<D>> {
        Ok(Self::with_sim(Sim::with_trace_at(vcd)?, memory, load, seed))
    }

    fn with_sim(mut sim: Sim<D>, memory: HostMemory, load: &Load, seed: u64) -> Bench<D> {
        sim.reset(4);
        Bench {
            sim,
            host: DmaHost::new(memory, load.dma.clone(), seed ^ 0xD3A),
            axil: Master::new(seed ^ 0xA11, load.axil_delay, 1 << 20),
            rnd: rng(seed ^ 0xC03E),
            load: load.clone(),
            rx_presenting: false,
            tx_frame: false,
            counts: Counts::default(),
            tag: 1 << 62,
        }
    }

    /// Clock cycles so far (reset included).
    pub fn cycle(&self) -> u64 {
        self.sim.cycle()
    }

    /// Queues a register operation (an address on the core's port) under `tag`.
    pub fn push(&mut self, op: Op, tag: u64) {
        self.axil.push(op, tag);
    }

    /// One clock cycle, `rx` the beat on offer at the receive side (kept on offer until taken:
    /// the bench may idle before presenting it, never after). Returns what the cycle did; an
    /// error when the core broke the DMA protocol or the transmit stream's keep rule.
    pub fn step(&mut self, rx: Option<&Beat>) -> Result<Cycle, String> {
        let now = self.sim.cycle();
        let pins = self.axil.drive();
        drive_axil(&mut self.sim.dut, &pins);
        let h = self.host.offer();
        drive_dma(&mut self.sim.dut, &h);
        if rx.is_some() && !self.rx_presenting {
            self.rx_presenting = !self.rnd.gen_bool(self.load.rx_idle);
        }
        let rx = rx.filter(|_| self.rx_presenting);
        let tx_ready = self.rnd.gen_bool(self.load.tx_ready);
        let d = &mut self.sim.dut;
        d.set_s_rx_tvalid(rx.is_some());
        if let Some(b) = rx {
            let mut lanes = [0u8; LANES];
            lanes.copy_from_slice(&b.data);
            d.set_s_rx_tdata(u64::from_le_bytes(lanes));
            d.set_s_rx_tkeep(keep_mask(b.keep) as u8);
            d.set_s_rx_tlast(b.last);
        }
        d.set_m_tx_tready(tx_ready);
        self.sim.settle();

        let d = &self.sim.dut;
        let seen = sample_axil(d);
        let eng = sample_dma(d);
        let mut out = Cycle::default();
        if d.m_tx_tvalid() && tx_ready {
            let keep = u64::from(d.m_tx_tkeep());
            let n = keep_count(keep, LANES)
                .ok_or_else(|| format!("cycle {now}: transmit keep {keep:#x} not contiguous"))?;
            let last = d.m_tx_tlast();
            if n < LANES && !last {
                return Err(format!(
                    "cycle {now}: a partial transmit beat before the last"
                ));
            }
            let mut data = d.m_tx_tdata().to_le_bytes().to_vec();
            data[n..].fill(0);
            self.counts.tx_beats += 1;
            self.counts.tx_frames += u64::from(last);
            self.tx_frame = !last;
            out.tx = Some(Beat {
                data,
                keep: n,
                last,
                user: false,
            });
        }
        if rx.is_some() && d.s_rx_tready() {
            out.rx_taken = true;
            self.rx_presenting = false;
            self.counts.rx_frames += u64::from(rx.is_some_and(|b| b.last));
        }
        self.counts.rx_done += u64::from(d.rx_frame_done());
        self.counts.flush_steps += u64::from(d.rx_flush_step());
        self.counts.flush_hits += u64::from(d.rx_flush_step() && d.rx_flush_hit());
        self.host
            .accepted(&eng)
            .map_err(|v| format!("cycle {now}: DMA protocol: {v}"))?;
        out.done = self.axil.observe(now, &seen);
        self.sim.step();
        Ok(out)
    }

    /// No register operation queued, no DMA outstanding, no transmit frame half out.
    pub fn quiet(&self) -> bool {
        self.axil.idle() && self.host.idle() && !self.tx_frame
    }

    /// The register master has nothing queued or in progress.
    pub fn axil_idle(&self) -> bool {
        self.axil.idle()
    }

    /// Host memory.
    pub fn memory(&self) -> &HostMemory {
        self.host.memory()
    }

    /// Host memory, to change between the core's accesses.
    pub fn memory_mut(&mut self) -> &mut HostMemory {
        self.host.memory_mut()
    }

    /// What the core did so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The host's counters (requests, beats, bytes, faults).
    pub fn dma_counters(&self) -> DmaCounters {
        self.host.counters()
    }

    /// The next tag for a register access of one's own (above those a caller pushes).
    pub fn next_tag(&mut self) -> u64 {
        self.tag += 1;
        self.tag
    }

    /// The error for a run that gave up now.
    pub fn hang(&mut self, what: &str) -> crate::harness::Hang {
        self.sim.hang(what)
    }

    /// Ends the trace, if any: an FST is written from its VCD now (`Sim::close_trace`).
    pub fn close_trace(&mut self) -> std::io::Result<()> {
        self.sim.close_trace()
    }
}

/// [`Op`] for a read or a write of an address on the core's port.
pub fn op(addr: u32, write: Option<u32>) -> Op {
    match write {
        Some(v) => Op::write(addr, v),
        None => Op::Read { addr },
    }
}
