//! `nic_axil` (rtl/top/nic_axil.sv) at the core's address map (`model::nic::regs`): an
//! AXI4-Lite master with random delays writes and reads random addresses (every register of
//! every block's map, random offsets in the windows, the holes between them) through it to three
//! scripted block slaves with random readies and latencies. The scoreboard: each access reaches
//! the block `model::nic::regs::decode` names, once, at its offset there, with its data and
//! strobes, and its response (data and BRESP/RRESP, some of them SLVERR) comes back unchanged;
//! an unmapped address reaches no block and reads 0, OKAY; no block sees a second access of a
//! channel while one is in flight anywhere.
//!
//! Randomized tests print their seed; `ROCENIC_SEED=N` replays them.

use rand::Rng;
use rocenic_model::nic::regs::{decode, ADDR_W, UNMAPPED_READ, WINDOWS};
use rocenic_sim::axil::{Master, Op};
use rocenic_sim::duts::{NicAxil, NicAxilPorts};
use rocenic_sim::harness::Sim;
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use std::collections::{HashMap, VecDeque};

rocenic_sim::axil_port_fns!(NicAxilPorts);

const N: usize = WINDOWS.len();
/// SLVERR.
const SLVERR: u8 = 2;

/// An access as a block saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Write { offset: u32, data: u32, strb: u8 },
    Read { offset: u32 },
}

/// One block slave: registers by offset, random readies and answer latencies, one access of
/// each kind at a time. Its outputs are decided before it sees the DUT's in a cycle.
struct Block {
    rng: TestRng,
    regs: HashMap<u32, u32>,
    aw: Option<u32>,
    w: Option<(u32, u8)>,
    /// The write's response: when it may be offered, and BRESP.
    b: Option<(u64, u8)>,
    /// The read's answer: when, RDATA, RRESP.
    r: Option<(u64, u32, u8)>,
    out: Out,
    log: Vec<Seen>,
    /// The last answer it handed over: RDATA (0 for a write) and the response code.
    last_answer: (u32, u8),
}

/// A block's outputs in one cycle.
#[derive(Clone, Copy, Debug, Default)]
struct Out {
    awready: bool,
    wready: bool,
    bvalid: bool,
    bresp: u8,
    arready: bool,
    rvalid: bool,
    rdata: u32,
    rresp: u8,
}

/// What the DUT drives toward the blocks in one cycle.
#[derive(Clone, Copy, Debug, Default)]
struct ToBlocks {
    awvalid: u8,
    awaddr: u32,
    wvalid: u8,
    wdata: u32,
    wstrb: u8,
    bready: u8,
    arvalid: u8,
    araddr: u32,
    rready: u8,
}

impl Block {
    fn new(seed: u64) -> Self {
        Block {
            rng: rocenic_sim::stream::rng(seed),
            regs: HashMap::new(),
            aw: None,
            w: None,
            b: None,
            r: None,
            out: Out::default(),
            log: Vec::new(),
            last_answer: (0, 0),
        }
    }

    /// A register never written reads a value made from its offset.
    fn value(&self, offset: u32) -> u32 {
        self.regs
            .get(&offset)
            .copied()
            .unwrap_or(offset.wrapping_mul(0x9E37_79B9) ^ 0xA5A5_0000)
    }

    fn offer(&mut self, now: u64) -> Out {
        let busy_w = self.b.is_some();
        self.out = Out {
            awready: !busy_w && self.aw.is_none() && self.rng.gen_bool(0.6),
            wready: !busy_w && self.w.is_none() && self.rng.gen_bool(0.6),
            bvalid: self.b.is_some_and(|(due, _)| due <= now),
            bresp: self.b.map_or(0, |(_, r)| r),
            arready: self.r.is_none() && self.rng.gen_bool(0.6),
            rvalid: self.r.is_some_and(|(due, _, _)| due <= now),
            rdata: self.r.map_or(0, |(_, d, _)| d),
            rresp: self.r.map_or(0, |(_, _, r)| r),
        };
        self.out
    }

    /// The clock edge: block `i`'s handshakes with what the DUT drove (`t`). `other_busy`
    /// says whether another block has a write (read) in flight.
    fn edge(
        &mut self,
        i: usize,
        now: u64,
        t: &ToBlocks,
        other_busy: (bool, bool),
    ) -> Result<(), String> {
        let bit = |v: u8| v >> i & 1 == 1;
        let o = self.out;
        let latency = |rng: &mut TestRng| now + rng.gen_range(1..=6);
        if (bit(t.awvalid) || bit(t.wvalid)) && other_busy.0 {
            return Err(format!("block {i}: a write while another block has one"));
        }
        if bit(t.arvalid) && other_busy.1 {
            return Err(format!("block {i}: a read while another block has one"));
        }
        if bit(t.awvalid) && o.awready {
            self.aw = Some(t.awaddr);
        }
        if bit(t.wvalid) && o.wready {
            self.w = Some((t.wdata, t.wstrb));
        }
        if let (Some(offset), Some((data, strb))) = (self.aw, self.w) {
            let mut v = self.value(offset);
            for lane in 0..4 {
                if strb >> lane & 1 == 1 {
                    let m = 0xFFu32 << (8 * lane);
                    v = (v & !m) | (data & m);
                }
            }
            self.regs.insert(offset, v);
            self.log.push(Seen::Write { offset, data, strb });
            let resp = if self.rng.gen_ratio(1, 10) { SLVERR } else { 0 };
            self.b = Some((latency(&mut self.rng), resp));
            self.aw = None;
            self.w = None;
        }
        if o.bvalid && bit(t.bready) {
            self.b = None;
            self.last_answer = (0, o.bresp);
        }
        if bit(t.arvalid) && o.arready {
            let resp = if self.rng.gen_ratio(1, 10) { SLVERR } else { 0 };
            self.log.push(Seen::Read { offset: t.araddr });
            self.r = Some((latency(&mut self.rng), self.value(t.araddr), resp));
        }
        if o.rvalid && bit(t.rready) {
            self.r = None;
            self.last_answer = (o.rdata, o.rresp);
        }
        Ok(())
    }

    fn write_busy(&self) -> bool {
        self.aw.is_some() || self.w.is_some() || self.b.is_some()
    }
}

fn drive_blocks(d: &mut NicAxil, outs: &[Out; N], flip: Option<(usize, u32)>) {
    let bits = |f: fn(&Out) -> bool| (0..N).fold(0u8, |v, i| v | u8::from(f(&outs[i])) << i);
    d.set_m_axil_awready(bits(|o| o.awready));
    d.set_m_axil_wready(bits(|o| o.wready));
    d.set_m_axil_bvalid(bits(|o| o.bvalid));
    d.set_m_axil_arready(bits(|o| o.arready));
    d.set_m_axil_rvalid(bits(|o| o.rvalid));
    d.set_m_axil_bresp((0..N).fold(0u8, |v, i| v | outs[i].bresp << (2 * i)));
    d.set_m_axil_rresp((0..N).fold(0u8, |v, i| v | outs[i].rresp << (2 * i)));
    let mut rdata = [0u32; N];
    for i in 0..N {
        rdata[i] = outs[i].rdata;
    }
    // A broken line: one bit of one block's read data, flipped on its way in.
    if let Some((i, bit)) = flip {
        rdata[i] ^= 1 << bit;
    }
    d.set_m_axil_rdata(rdata);
}

fn sample_blocks(d: &NicAxil) -> ToBlocks {
    ToBlocks {
        awvalid: d.m_axil_awvalid(),
        awaddr: u32::from(d.m_axil_awaddr()),
        wvalid: d.m_axil_wvalid(),
        wdata: d.m_axil_wdata(),
        wstrb: d.m_axil_wstrb(),
        bready: d.m_axil_bready(),
        arvalid: d.m_axil_arvalid(),
        araddr: u32::from(d.m_axil_araddr()),
        rready: d.m_axil_rready(),
    }
}

/// A random address: a register word of some block's map, a random word in a window, or one
/// in no window.
fn address(rng: &mut TestRng) -> u32 {
    let w = &WINDOWS[rng.gen_range(0..N)];
    match rng.gen_range(0..4) {
        0 | 1 => {
            let r = &w.map[rng.gen_range(0..w.map.len())];
            w.base + r.offset + 4 * rng.gen_range(0..r.words)
        }
        2 => w.base + 4 * rng.gen_range(0..w.size() / 4),
        _ => loop {
            let a = 4 * rng.gen_range(0..(1u32 << ADDR_W) / 4);
            if decode(a).is_none() {
                break a;
            }
        },
    }
}

/// What a run measured.
#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    /// Per block: accesses it saw.
    accesses: [usize; N],
    unmapped: usize,
    slverr: usize,
    /// Cycles from the request's acceptance to its response, most.
    worst_latency: u64,
}

/// `ops` random accesses; `flip` breaks one bit of one block's read data line.
fn run(seed: u64, ops: usize, flip: Option<(usize, u32)>) -> Result<Report, String> {
    let mut rng = stream::rng(seed);
    let mut master = Master::new(seed, 0.3, 4);
    let mut blocks: Vec<Block> = (0..N)
        .map(|i| Block::new(seed ^ ((i as u64 + 1) * 0x51)))
        .collect();
    // What each block must see, in order, and what each operation must get back.
    let mut expect: Vec<VecDeque<Seen>> = vec![VecDeque::new(); N];
    let mut issued = Vec::new();
    for k in 0..ops {
        let addr = address(&mut rng);
        let op = if rng.gen_bool(0.5) {
            Op::Write {
                addr,
                data: rng.gen(),
                strb: rng.gen_range(1..16),
            }
        } else {
            Op::Read { addr }
        };
        // One operation at a time: each block sees its own in the order they were issued.
        match (decode(addr), op) {
            (Some((i, offset)), Op::Write { data, strb, .. }) => {
                expect[i].push_back(Seen::Write { offset, data, strb })
            }
            (Some((i, offset)), Op::Read { .. }) => expect[i].push_back(Seen::Read { offset }),
            (None, _) => {}
        }
        master.push(op, k as u64);
        issued.push(op);
    }
    let mut sim: Sim<NicAxil> = Sim::new("nic_axil");
    sim.reset(4);
    let mut r = Report::default();
    let mut done = 0;
    while done < ops {
        if r.cycles > 100 * ops as u64 + 1000 {
            return Err(format!("{}", sim.hang("every access answered")));
        }
        let p = master.drive();
        drive_axil(&mut sim.dut, &p);
        let outs: [Out; N] = core::array::from_fn(|i| blocks[i].offer(r.cycles));
        drive_blocks(&mut sim.dut, &outs, flip);
        sim.settle();
        let seen = sample_axil(&sim.dut);
        let t = sample_blocks(&sim.dut);
        for i in 0..N {
            let busy = |f: fn(&Block) -> bool| (0..N).any(|j| j != i && f(&blocks[j]));
            let other = (busy(Block::write_busy), busy(|b| b.r.is_some()));
            let before = blocks[i].log.len();
            blocks[i].edge(i, r.cycles, &t, other)?;
            for s in blocks[i].log[before..].iter() {
                let want = expect[i].pop_front();
                if want != Some(*s) {
                    return Err(format!("block {i} saw {s:?}, expected {want:?}"));
                }
            }
        }
        if let Some(d) = master.observe(r.cycles, &seen) {
            let k = d.tag as usize;
            if d.op != issued[k] {
                return Err(format!("operation {k} finished as {:?}", d.op));
            }
            let (addr, write) = match d.op {
                Op::Write { addr, .. } => (addr, true),
                Op::Read { addr } => (addr, false),
            };
            r.worst_latency = r.worst_latency.max(d.taken - d.accepted);
            match decode(addr) {
                None => {
                    r.unmapped += 1;
                    if d.resp != 0 || (!write && d.data != UNMAPPED_READ) {
                        return Err(format!(
                            "unmapped {addr:#x}: {:#x}, resp {}",
                            d.data, d.resp
                        ));
                    }
                }
                Some((i, _)) => {
                    // The block answered the access (its log matched); its answer comes back.
                    let (data, resp) = blocks[i].last_answer;
                    if d.resp != resp || (!write && d.data != data) {
                        return Err(format!(
                            "{addr:#x} (block {i}): got {:#x} resp {}, the block answered {data:#x} resp {resp}",
                            d.data, d.resp
                        ));
                    }
                    r.slverr += usize::from(resp == SLVERR);
                }
            }
            done += 1;
        }
        sim.step();
        r.cycles += 1;
    }
    for (i, b) in blocks.iter().enumerate() {
        r.accesses[i] = b.log.len();
    }
    Ok(r)
}

#[test]
fn random_accesses_reach_their_blocks() {
    let seed = stream::seed("random_accesses_reach_their_blocks");
    let r = run(seed, 3000, None).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{r:?}");
    assert!(
        r.accesses.iter().all(|&n| n > 300),
        "every block is reached"
    );
    assert!(r.unmapped > 300 && r.slverr > 100);
}

#[test]
fn a_broken_line_fails() {
    let seed = stream::seed("a_broken_line_fails");
    for (block, bit) in [(0, 0), (1, 17), (2, 31)] {
        let e = run(seed, 500, Some((block, bit))).expect_err("the scoreboard saw nothing");
        eprintln!("block {block} rdata[{bit}]: {e}");
    }
}
