//! A bench around rtl/rss/rss_pipeline.sv: packets in and out through seeded stream models,
//! register writes and reads through an AXI4-Lite model, and the model-side mirror of what was
//! committed. The co-simulation tests and `rocenic rss --engine rtl` share it.

use crate::axis::keep_mask;
pub use crate::axis::{beats, Beat};
use crate::duts::RssPipelinePorts;
use crate::harness::{Hang, Sim};
use crate::stream::{Sink, Source};
use rocenic_firmware::rss::ContextConfig;
use rocenic_firmware::{Bus, BusError, RssPipeline};
use rocenic_model::rss::regs::{self, ContextRegs, Write32};
use rocenic_model::rss::{
    classify, distribute, Context, ContextView, HashType, Meta, ParseFlags, Rule,
};
use rocenic_model::wire::LinkType;
use std::collections::VecDeque;

/// Bytes per beat of a pipeline DUT.
pub fn data_bytes<D: RssPipelinePorts>() -> usize {
    D::S_AXIS_TDATA_BITS as usize / 8
}

fn meta_of(flags: u16, hash: u32, hash_type: u8, hit: u8, rule: u8, queue: u16) -> Meta {
    Meta {
        flags: ParseFlags(flags),
        hash,
        hash_type: HashType(hash_type),
        rule: (hit == 1).then_some(usize::from(rule)),
        queue,
    }
}

fn drive_in<D: RssPipelinePorts>(dut: &mut D, beat: Option<&Beat>) {
    dut.set_s_axis_tvalid(beat.is_some());
    if let Some(b) = beat {
        dut.write_s_axis_tdata(&b.data);
        dut.set_s_axis_tkeep(keep_mask(b.keep));
        dut.set_s_axis_tlast(b.last);
        dut.set_s_axis_tuser(b.user);
    }
}

/// The m_axis beat on offer, with the metadata if it is the last.
fn out_beat<D: RssPipelinePorts>(dut: &D) -> Option<(Beat, Option<Meta>)> {
    if !dut.m_axis_tvalid() {
        return None;
    }
    let last = dut.m_axis_tlast();
    let mut data = vec![0u8; data_bytes::<D>()];
    dut.read_m_axis_tdata(&mut data);
    let beat = Beat {
        data,
        keep: dut.m_axis_tkeep().trailing_ones() as usize,
        last,
        user: dut.m_axis_tuser(),
    };
    let meta = last.then(|| {
        meta_of(
            dut.m_meta_flags(),
            dut.m_meta_hash(),
            dut.m_meta_hash_type(),
            u8::from(dut.m_meta_rule_hit()),
            dut.m_meta_rule(),
            dut.m_meta_queue(),
        )
    });
    Some((beat, meta))
}

/// Drives the AXI4-Lite request channels (valid low for `None`).
fn drive_axil<D: RssPipelinePorts>(dut: &mut D, aw: Option<u32>, w: Option<u32>, ar: Option<u32>) {
    dut.set_s_axil_awvalid(aw.is_some());
    dut.set_s_axil_awaddr(aw.unwrap_or(0) as u16);
    dut.set_s_axil_wvalid(w.is_some());
    dut.set_s_axil_wdata(w.unwrap_or(0));
    dut.set_s_axil_wstrb(0xF);
    dut.set_s_axil_arvalid(ar.is_some());
    dut.set_s_axil_araddr(ar.unwrap_or(0) as u16);
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
pub struct Bench<D: RssPipelinePorts> {
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

impl<D: RssPipelinePorts> Bench<D> {
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
        for b in beats(frame, data_bytes::<D>(), link == LinkType::Infiniband) {
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

    /// Queues one register write as it is: a COMMIT is not followed by a wait (a caller that
    /// polls STATUS itself, such as the firmware). Its W handshake is still recorded in
    /// `commits`, with `done` left for the caller.
    pub fn write(&mut self, addr: u32, value: u32) {
        self.ops.push_back(Op::Write(addr, value));
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
        drive_in(&mut self.sim.dut, offer.as_ref());
        let ready = self.sink.ready();
        self.sim.dut.set_m_axis_tready(ready);
        let op = self.ops.front().copied();
        let (aw_done, w_done, waiting) = self.op_state;
        match op {
            Some(Op::Write(addr, value)) => {
                let (aw, w) = ((!aw_done).then_some(addr), (!w_done).then_some(value));
                drive_axil(&mut self.sim.dut, aw, w, None);
            }
            Some(Op::Read(addr)) => {
                drive_axil(&mut self.sim.dut, None, None, (!waiting).then_some(addr));
            }
            Some(Op::AwaitCommit) => {
                let ar = (!waiting).then_some(regs::STATUS);
                drive_axil(&mut self.sim.dut, None, None, ar);
            }
            None => {
                drive_axil(&mut self.sim.dut, None, None, None);
            }
        }
        self.sim.dut.set_s_axil_bready(true);
        self.sim.dut.set_s_axil_rready(true);
        self.sim.settle();

        // Input side.
        if let Some(beat) = self.source.accepted(self.sim.dut.s_axis_tready()) {
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
        let out = out_beat(&self.sim.dut);
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
                        ib: beat.user,
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
        let d = &self.sim.dut;
        let (awready, wready, bvalid, arready, rvalid, rdata) = (
            d.s_axil_awready(),
            d.s_axil_wready(),
            d.s_axil_bvalid(),
            d.s_axil_arready(),
            d.s_axil_rvalid(),
            d.s_axil_rdata(),
        );
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
                let Hang { cycle, trace, .. } = self.sim.hang("the pipeline to drain");
                return Err(format!(
                    "hang: still busy after {limit} cycles (cycle {cycle}, trace {trace:?})"
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

/// The firmware's register bus over a [`Bench`]: each access is queued on the bench's AXI4-Lite
/// model and the bench stepped until it is done, packets flowing meanwhile, so the firmware runs
/// as on the NIC's processor, one transaction at a time.
pub struct FirmwareBus<D: RssPipelinePorts> {
    /// The bench.
    pub bench: Bench<D>,
    /// Register accesses made.
    pub accesses: u64,
}

/// Cycles one access may take before it counts as lost (a write waits for a pending commit,
/// which waits for the packets in flight).
const ACCESS_LIMIT: u64 = 20_000;

impl<D: RssPipelinePorts> FirmwareBus<D> {
    /// The bus over `bench`.
    pub fn new(bench: Bench<D>) -> Self {
        FirmwareBus { bench, accesses: 0 }
    }

    fn finish(&mut self, addr: u32) -> Result<(), BusError> {
        self.accesses += 1;
        let start = self.bench.sim.cycle();
        while self.bench.bus_busy() {
            if self.bench.sim.cycle() - start > ACCESS_LIMIT {
                return Err(BusError::Timeout { addr });
            }
            // A bench error is a broken stream rule, not a register outcome: stop there.
            self.bench.step().unwrap_or_else(|e| panic!("{e}"));
        }
        Ok(())
    }
}

impl<D: RssPipelinePorts> Bus for FirmwareBus<D> {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        self.bench.read(addr);
        self.finish(addr)?;
        let (a, v) = self.bench.reads.pop_back().expect("the read's result");
        debug_assert_eq!(a, addr);
        Ok(v)
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        self.bench.write(addr, value);
        self.finish(addr)
    }
}

/// The RTL with its RSS contexts and steering rules loaded, as `rocenic rss --engine rtl` runs
/// it: the firmware sets each context (`RssPipeline::set_context`: the table into the bank not
/// in use, then the commit), then each rule; then frames go through in batches, one bench for
/// the whole run.
pub struct ContextRun<D: RssPipelinePorts> {
    bench: Bench<D>,
    link: LinkType,
}

impl<D: RssPipelinePorts> ContextRun<D> {
    /// Builds the RTL and has the firmware load `contexts` (context i: its function, fields and
    /// key of up to 52 bytes covering the fields' longest input, and its table) and `rules`
    /// (rule i), as the NIC numbers them.
    pub fn new(
        run: &str,
        link: LinkType,
        contexts: &[(ContextConfig<'_>, &[u16])],
        rules: &[Rule],
    ) -> Result<Self, String> {
        let bench: Bench<D> = Bench::new(run, 0, 0.0, 0.0);
        let mut fw: RssPipeline<FirmwareBus<D>> =
            RssPipeline::open(FirmwareBus::new(bench)).map_err(|e| e.to_string())?;
        for (i, (config, table)) in contexts.iter().enumerate() {
            fw.set_context(i, config, table)
                .map_err(|e| format!("context {i}: {e}"))?;
        }
        for (i, rule) in rules.iter().enumerate() {
            fw.set_rule(i, rule).map_err(|e| format!("rule {i}: {e}"))?;
        }
        Ok(ContextRun {
            bench: fw.into_bus().bench,
            link,
        })
    }

    /// The metadata of every frame, in order.
    pub fn metas(&mut self, frames: &[&[u8]]) -> Result<Vec<Meta>, String> {
        let mut metas = Vec::with_capacity(frames.len());
        // In chunks, so that the bench holds a bounded number of packets.
        for chunk in frames.chunks(1024) {
            let beats: u64 = chunk
                .iter()
                .map(|f| f.len().div_ceil(data_bytes::<D>()).max(1) as u64)
                .sum();
            for frame in chunk {
                self.bench.send(self.link, frame);
            }
            self.bench.drain(4 * beats + 1000)?;
            metas.extend(self.bench.delivered.drain(..).map(|d| d.meta));
        }
        Ok(metas)
    }
}
