//! A bench around rtl/rss/rss_pipeline.sv: packets in and out through seeded stream models,
//! register writes and reads through an AXI4-Lite model, and the model-side mirror of what was
//! committed. The co-simulation tests and `rocenic rss --engine rtl` share it.

use crate::duts::{RssPipeline512, RssPipeline64};
use crate::harness::{Dut, Hang, Sim};
use crate::stream::{Sink, Source};
use rocenic_model::rss::regs::{self, ContextRegs, Write32};
use rocenic_model::rss::{
    classify, distribute, Context, ContextView, HashType, Meta, ParseFlags, Rule,
};
use rocenic_model::wire::LinkType;
use std::collections::VecDeque;

/// One beat of a packet stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// DATA_BYTES bytes; those past `keep` are zero.
    pub data: Vec<u8>,
    /// Valid bytes (lanes 0..keep).
    pub keep: usize,
    /// Last beat of its packet.
    pub last: bool,
    /// InfiniBand link layer.
    pub ib: bool,
}

/// The ports of one rss_pipeline build, as bytes.
pub trait PipelinePorts: Dut {
    /// Bytes per beat.
    const DATA_BYTES: usize;
    /// Drives s_axis (valid low for `None`).
    fn drive_in(&mut self, beat: Option<&Beat>);
    /// s_axis_tready.
    fn in_ready(&self) -> bool;
    /// m_axis_tready.
    fn set_out_ready(&mut self, ready: bool);
    /// The m_axis beat on offer, with the metadata if it is the last.
    fn out_beat(&self) -> Option<(Beat, Option<Meta>)>;
    /// Drives AW (valid low for `None`).
    fn drive_aw(&mut self, addr: Option<u32>);
    /// Drives W.
    fn drive_w(&mut self, data: Option<u32>);
    /// Drives B's ready.
    fn set_b_ready(&mut self, ready: bool);
    /// Drives AR.
    fn drive_ar(&mut self, addr: Option<u32>);
    /// Drives R's ready.
    fn set_r_ready(&mut self, ready: bool);
    /// (awready, wready, bvalid, arready, rvalid, rdata).
    fn axil_state(&self) -> (bool, bool, bool, bool, bool, u32);
}

fn meta_of(flags: u16, hash: u32, hash_type: u8, hit: u8, rule: u8, queue: u16) -> Meta {
    Meta {
        flags: ParseFlags(flags),
        hash,
        hash_type: HashType(hash_type),
        rule: (hit == 1).then_some(rule),
        queue,
    }
}

macro_rules! pipeline_ports {
    ($dut:ty, $bytes:expr, $to_data:expr, $from_data:expr, $to_keep:expr, $from_keep:expr) => {
        impl PipelinePorts for $dut {
            const DATA_BYTES: usize = $bytes;
            fn drive_in(&mut self, beat: Option<&Beat>) {
                self.set_s_axis_tvalid(u8::from(beat.is_some()));
                if let Some(b) = beat {
                    self.set_s_axis_tdata($to_data(&b.data));
                    self.set_s_axis_tkeep($to_keep(b.keep));
                    self.set_s_axis_tlast(u8::from(b.last));
                    self.set_s_axis_tuser(u8::from(b.ib));
                }
            }
            fn in_ready(&self) -> bool {
                self.s_axis_tready() == 1
            }
            fn set_out_ready(&mut self, ready: bool) {
                self.set_m_axis_tready(u8::from(ready));
            }
            fn out_beat(&self) -> Option<(Beat, Option<Meta>)> {
                if self.m_axis_tvalid() == 0 {
                    return None;
                }
                let last = self.m_axis_tlast() == 1;
                let beat = Beat {
                    data: $from_data(self.m_axis_tdata()),
                    keep: $from_keep(self.m_axis_tkeep()),
                    last,
                    ib: self.m_axis_tuser() == 1,
                };
                let meta = last.then(|| {
                    meta_of(
                        self.m_meta_flags(),
                        self.m_meta_hash(),
                        self.m_meta_hash_type(),
                        self.m_meta_rule_hit(),
                        self.m_meta_rule(),
                        self.m_meta_queue(),
                    )
                });
                Some((beat, meta))
            }
            fn drive_aw(&mut self, addr: Option<u32>) {
                self.set_s_axil_awvalid(u8::from(addr.is_some()));
                self.set_s_axil_awaddr(addr.unwrap_or(0) as u16);
            }
            fn drive_w(&mut self, data: Option<u32>) {
                self.set_s_axil_wvalid(u8::from(data.is_some()));
                self.set_s_axil_wdata(data.unwrap_or(0));
                self.set_s_axil_wstrb(0xF);
            }
            fn set_b_ready(&mut self, ready: bool) {
                self.set_s_axil_bready(u8::from(ready));
            }
            fn drive_ar(&mut self, addr: Option<u32>) {
                self.set_s_axil_arvalid(u8::from(addr.is_some()));
                self.set_s_axil_araddr(addr.unwrap_or(0) as u16);
            }
            fn set_r_ready(&mut self, ready: bool) {
                self.set_s_axil_rready(u8::from(ready));
            }
            fn axil_state(&self) -> (bool, bool, bool, bool, bool, u32) {
                (
                    self.s_axil_awready() == 1,
                    self.s_axil_wready() == 1,
                    self.s_axil_bvalid() == 1,
                    self.s_axil_arready() == 1,
                    self.s_axil_rvalid() == 1,
                    self.s_axil_rdata(),
                )
            }
        }
    };
}

fn keep_mask(keep: usize) -> u64 {
    if keep >= 64 {
        u64::MAX
    } else {
        (1u64 << keep) - 1
    }
}

pipeline_ports!(
    RssPipeline64,
    8,
    |d: &[u8]| u64::from_le_bytes(d.try_into().unwrap()),
    |w: u64| w.to_le_bytes().to_vec(),
    |k: usize| keep_mask(k) as u8,
    |k: u8| k.trailing_ones() as usize
);

pipeline_ports!(
    RssPipeline512,
    64,
    |d: &[u8]| {
        let mut w = [0u32; 16];
        for (i, c) in d.chunks_exact(4).enumerate() {
            w[i] = u32::from_le_bytes(c.try_into().unwrap());
        }
        w
    },
    |w: [u32; 16]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    keep_mask,
    |k: u64| k.trailing_ones() as usize
);

/// Splits a frame into beats of `width` bytes.
pub fn beats(frame: &[u8], width: usize, ib: bool) -> Vec<Beat> {
    let n = frame.len().div_ceil(width).max(1);
    (0..n)
        .map(|i| {
            let chunk = frame
                .get(i * width..((i + 1) * width).min(frame.len()))
                .unwrap_or(&[]);
            let mut data = chunk.to_vec();
            data.resize(width, 0);
            Beat {
                data,
                keep: chunk.len(),
                last: i + 1 == n,
                ib,
            }
        })
        .collect()
}

/// A register operation of the AXI4-Lite model.
#[derive(Clone, Copy, Debug)]
enum Op {
    Write(u32, u32),
    Read(u32),
    /// Reads STATUS until BUSY is clear, then records the commit as done.
    AwaitCommit,
}

/// When a commit happened, as seen from the bus.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommitTimes {
    /// Cycle of the COMMIT write's W handshake.
    pub written: u64,
    /// Cycle of the STATUS read that first showed BUSY clear.
    pub done: u64,
}

/// A packet that came out, with when it went in.
#[derive(Clone, Debug)]
pub struct Delivered {
    /// The bytes that came out.
    pub frame: Vec<u8>,
    /// Its link layer (tuser).
    pub ib: bool,
    /// Its metadata.
    pub meta: Meta,
    /// Cycle its first beat was accepted.
    pub first_in: u64,
    /// Cycle its last beat was accepted.
    pub last_in: u64,
}

/// The bench: stream models on both sides, the AXI4-Lite model, and the record of what
/// happened.
pub struct Bench<D: PipelinePorts> {
    /// The simulation.
    pub sim: Sim<D>,
    source: Source<Beat>,
    sink: Sink,
    ops: VecDeque<Op>,
    op_state: (bool, bool, bool), // (AW done, W done, waiting for B / R)
    /// Results of `read`s, in order.
    pub reads: VecDeque<(u32, u32)>,
    /// Every commit, in order.
    pub commits: Vec<CommitTimes>,
    first_in: VecDeque<u64>,
    last_in: VecDeque<u64>,
    in_packet: bool,
    out_bytes: Vec<u8>,
    held: Option<(Beat, Option<Meta>)>,
    /// Packets out, in order.
    pub delivered: VecDeque<Delivered>,
    /// Output beats seen.
    pub out_beats: u64,
}

impl<D: PipelinePorts> Bench<D> {
    /// A bench out of reset. `idle`: probability that the source idles when it could send;
    /// `stall`: probability that the sink is not ready.
    pub fn new(run: &str, seed: u64, idle: f64, stall: f64) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        sim.reset(3);
        Bench {
            sim,
            source: Source::new(seed, idle),
            sink: Sink::new(seed, stall),
            ops: VecDeque::new(),
            op_state: (false, false, false),
            reads: VecDeque::new(),
            commits: Vec::new(),
            first_in: VecDeque::new(),
            last_in: VecDeque::new(),
            in_packet: false,
            out_bytes: Vec::new(),
            held: None,
            delivered: VecDeque::new(),
            out_beats: 0,
        }
    }

    /// Queues a frame.
    pub fn send(&mut self, link: LinkType, frame: &[u8]) {
        for b in beats(frame, D::DATA_BYTES, link == LinkType::Infiniband) {
            self.source.push(b);
        }
    }

    /// Queues register writes; a COMMIT write is followed by a wait for BUSY to clear.
    pub fn write_all(&mut self, writes: &[Write32]) {
        for &(addr, value) in writes {
            self.ops.push_back(Op::Write(addr, value));
            if addr == regs::COMMIT {
                self.ops.push_back(Op::AwaitCommit);
            }
        }
    }

    /// Queues a register read; its result lands in `reads`.
    pub fn read(&mut self, addr: u32) {
        self.ops.push_back(Op::Read(addr));
    }

    /// Whether register operations are still queued or running.
    pub fn bus_busy(&self) -> bool {
        !self.ops.is_empty()
    }

    /// Beats not yet accepted.
    pub fn beats_waiting(&self) -> usize {
        self.source.remaining()
    }

    /// One clock cycle of everything.
    pub fn step(&mut self) -> Result<(), String> {
        let cycle = self.sim.cycle();
        let offer = self.source.offer().cloned();
        self.sim.dut.drive_in(offer.as_ref());
        let ready = self.sink.ready();
        self.sim.dut.set_out_ready(ready);
        let op = self.ops.front().copied();
        let (aw_done, w_done, waiting) = self.op_state;
        match op {
            Some(Op::Write(addr, value)) => {
                self.sim.dut.drive_aw((!aw_done).then_some(addr));
                self.sim.dut.drive_w((!w_done).then_some(value));
                self.sim.dut.drive_ar(None);
            }
            Some(Op::Read(addr)) => {
                self.sim.dut.drive_aw(None);
                self.sim.dut.drive_w(None);
                self.sim.dut.drive_ar((!waiting).then_some(addr));
            }
            Some(Op::AwaitCommit) => {
                self.sim.dut.drive_aw(None);
                self.sim.dut.drive_w(None);
                self.sim.dut.drive_ar((!waiting).then_some(regs::STATUS));
            }
            None => {
                self.sim.dut.drive_aw(None);
                self.sim.dut.drive_w(None);
                self.sim.dut.drive_ar(None);
            }
        }
        self.sim.dut.set_b_ready(true);
        self.sim.dut.set_r_ready(true);
        self.sim.settle();

        // Input side.
        if let Some(beat) = self.source.accepted(self.sim.dut.in_ready()) {
            if !self.in_packet {
                self.first_in.push_back(cycle);
                self.in_packet = true;
            }
            if beat.last {
                self.last_in.push_back(cycle);
                self.in_packet = false;
            }
        }

        // Output side: a stalled beat must stay as it was.
        let out = self.sim.dut.out_beat();
        if let Some(prev) = self.held.take() {
            if out.as_ref() != Some(&prev) {
                return Err(format!(
                    "m_axis changed while stalled at cycle {cycle}: {prev:?} -> {out:?}"
                ));
            }
        }
        if let Some((beat, meta)) = out {
            if ready {
                self.out_beats += 1;
                self.out_bytes.extend_from_slice(&beat.data[..beat.keep]);
                if let Some(meta) = meta {
                    let first_in = self.first_in.pop_front().ok_or("a packet nobody sent")?;
                    let last_in = self.last_in.pop_front().ok_or("a packet nobody ended")?;
                    self.delivered.push_back(Delivered {
                        frame: std::mem::take(&mut self.out_bytes),
                        ib: beat.ib,
                        meta,
                        first_in,
                        last_in,
                    });
                }
            } else {
                self.held = Some((beat, meta));
            }
        }

        // Bus side.
        let (awready, wready, bvalid, arready, rvalid, rdata) = self.sim.dut.axil_state();
        match op {
            Some(Op::Write(addr, _)) => {
                let aw = aw_done || awready;
                let w = w_done || wready;
                if !w_done && wready && addr == regs::COMMIT {
                    self.commits.push(CommitTimes {
                        written: cycle,
                        done: 0,
                    });
                }
                if aw && w && waiting && bvalid {
                    self.ops.pop_front();
                    self.op_state = (false, false, false);
                } else {
                    self.op_state = (aw, w, aw && w);
                }
            }
            Some(Op::Read(addr)) => {
                if waiting && rvalid {
                    self.reads.push_back((addr, rdata));
                    self.ops.pop_front();
                    self.op_state = (false, false, false);
                } else if !waiting && arready {
                    self.op_state = (false, false, true);
                }
            }
            Some(Op::AwaitCommit) => {
                if waiting && rvalid {
                    self.op_state = (false, false, false);
                    if rdata & 1 == 0 {
                        self.ops.pop_front();
                        if let Some(c) = self.commits.last_mut() {
                            c.done = cycle;
                        }
                    }
                } else if !waiting && arready {
                    self.op_state = (false, false, true);
                }
            }
            None => {}
        }
        self.sim.step();
        Ok(())
    }

    /// Steps until every queued beat and register operation is done and every packet is out.
    pub fn drain(&mut self, limit: u64) -> Result<(), String> {
        let start = self.sim.cycle();
        while self.source.remaining() > 0
            || self.bus_busy()
            || self.in_packet
            || !self.first_in.is_empty()
        {
            if self.sim.cycle() - start > limit {
                let Hang { cycle, vcd, .. } = self.sim.hang("the pipeline to drain");
                return Err(format!(
                    "hang: still busy after {limit} cycles (cycle {cycle}, vcd {vcd:?})"
                ));
            }
            self.step()?;
        }
        Ok(())
    }
}

/// The configuration the RTL holds, kept on the model side: what every committed write means.
#[derive(Clone, Debug)]
pub struct Mirror {
    /// Live rules.
    pub rules: Vec<Rule>,
    /// Live contexts.
    pub contexts: Vec<ContextRegs>,
    /// Tables, `[context][bank][index]`, 2^TABLE_LOG2 entries each.
    pub tables: Vec<[Vec<u16>; 2]>,
    built: Vec<Context>,
    /// The RTL's largest table.
    pub table_log2: u8,
}

/// What the RTL's reset state is in model terms.
pub const RESET_CONTEXT: ContextRegs = ContextRegs {
    function: rocenic_model::rss::Function::Toeplitz,
    fields: rocenic_model::rss::HashFields(0),
    key: [0; regs::KEY_BYTES],
    table_log2: 0,
    bank: 0,
};

impl Mirror {
    /// The reset state of a build with these parameters.
    pub fn new(rules: usize, contexts: usize, table_log2: u8) -> Self {
        let mut m = Mirror {
            rules: vec![Rule::default(); rules],
            contexts: vec![RESET_CONTEXT; contexts],
            tables: (0..contexts)
                .map(|_| [vec![0; 1 << table_log2], vec![0; 1 << table_log2]])
                .collect(),
            built: Vec::new(),
            table_log2,
        };
        m.rebuild();
        m
    }

    fn rebuild(&mut self) {
        self.built = self
            .contexts
            .iter()
            .map(|c| Context::new(c.function, c.fields, &c.key).expect("a 52-byte key"))
            .collect();
    }

    /// Commits a rule.
    pub fn set_rule(&mut self, index: usize, rule: Rule) {
        self.rules[index] = rule;
    }

    /// Commits a context.
    pub fn set_context(&mut self, index: usize, ctx: ContextRegs) {
        self.contexts[index] = ctx;
        self.rebuild();
    }

    /// The metadata the RTL must report for a frame under this configuration.
    pub fn expect(&self, link: LinkType, frame: &[u8]) -> Meta {
        let parsed = classify(link, frame);
        let views: Vec<ContextView<'_>> = self
            .built
            .iter()
            .zip(&self.contexts)
            .zip(&self.tables)
            .map(|((context, regs), banks)| {
                let log2 = regs.table_log2.min(self.table_log2);
                ContextView {
                    context,
                    table: &banks[usize::from(regs.bank & 1)][..1 << log2],
                }
            })
            .collect();
        distribute(&parsed, &self.rules, &views)
    }
}

/// The register writes that fill `table` into `bank` of `context` (from entry 0).
pub fn table_writes(context: u8, bank: u8, table: &[u16]) -> Vec<Write32> {
    let mut w = vec![regs::table_select(context, bank, 0)];
    w.extend(table.iter().map(|&q| (regs::TABLE_DATA, u32::from(q))));
    w
}

/// The RTL's parameters as built for the co-simulation DUTs (rss_pipeline's defaults).
pub const RTL_TABLE_LOG2: u8 = 12;

/// Runs frames through the RTL with one RSS context and no steering rules, as `rocenic rss
/// --engine rtl` does: context 0 gets `ctx` and, in bank `ctx.bank`, `table`. Returns the
/// metadata of every frame, in order.
pub fn run_context<D: PipelinePorts>(
    run: &str,
    link: LinkType,
    frames: &[&[u8]],
    ctx: &ContextRegs,
    table: &[u16],
) -> Result<Vec<Meta>, String> {
    if table.len() > 1 << RTL_TABLE_LOG2 || !table.len().is_power_of_two() {
        return Err(format!(
            "the RTL's tables hold a power of two up to {} entries, not {}",
            1 << RTL_TABLE_LOG2,
            table.len()
        ));
    }
    let mut bench: Bench<D> = Bench::new(run, 0, 0.0, 0.0);
    bench.write_all(&table_writes(0, ctx.bank, table));
    bench.write_all(&regs::context_writes(ctx));
    bench.write_all(&[regs::commit_context(0)]);
    bench.drain(100 * table.len() as u64 + 10_000)?;
    let mut metas = Vec::with_capacity(frames.len());
    // In chunks, so that the bench holds a bounded number of packets.
    for chunk in frames.chunks(1024) {
        let beats: u64 = chunk
            .iter()
            .map(|f| f.len().div_ceil(D::DATA_BYTES).max(1) as u64)
            .sum();
        for frame in chunk {
            bench.send(link, frame);
        }
        bench.drain(4 * beats + 1000)?;
        metas.extend(bench.delivered.drain(..).map(|d| d.meta));
    }
    Ok(metas)
}
