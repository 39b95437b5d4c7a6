//! The host side of the WQE engine's DMA ports (docs/wqe-dma.md, "DMA interface"): a cycle-level
//! bus-functional model that serves the engine's tagged reads and writes from any [`Memory`]
//! with seeded random latency, reordering, beat interleaving and back-pressure, and checks the
//! engine's side of the protocol.
//!
//! Like [`crate::stream`]'s models it holds no DUT: each cycle the bench calls
//! [`DmaHost::offer`] for the host's outputs, drives them, reads the engine's outputs, and hands
//! those to [`DmaHost::accepted`], which takes every handshake of the clock edge. The host's
//! outputs never depend on the engine's outputs of the same cycle, as if they were registered.

use crate::axis::{keep_count, keep_mask};
use crate::stream::rng;
use crate::stream::TestRng;
use rand::Rng;
use rocenic_model::wqe::Memory;
use std::fmt;
use std::ops::RangeInclusive;

/// The most bytes one read or write may move.
pub const MAX_LEN: usize = 4096;

/// How the host behaves. Probabilities are per cycle, 0.0..=1.0.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `DATA_BYTES`: lanes per beat, 1..=64 (a keep is a `u64`).
    pub data_bytes: usize,
    /// `TAG_W`: tags are `0..2^tag_bits`, 0..=16 bits.
    pub tag_bits: u32,
    /// Probability that each request port (read requests, write beats) is ready.
    pub ready: f64,
    /// Cycles from a request's handshake (a write's last beat) to the earliest cycle its
    /// response (completion) may be offered, drawn uniformly per request; at least 1.
    pub latency: RangeInclusive<u64>,
    /// Responses and completions in any order; off, strictly in request order.
    pub reorder: bool,
    /// Beats of different reads may alternate; off, a read's beats go out back to back once it
    /// has started. Only matters with `reorder`, since in request order nothing can interleave.
    pub interleave: bool,
    /// Probability that a response or completion port offers nothing when it could.
    pub stall: f64,
}

impl Config {
    /// An ideal host: always ready, responses one cycle after the request, in order.
    pub fn ideal(data_bytes: usize, tag_bits: u32) -> Config {
        Config {
            data_bytes,
            tag_bits,
            ready: 1.0,
            latency: 1..=1,
            reorder: false,
            interleave: false,
            stall: 0.0,
        }
    }

    /// A host that uses every freedom the protocol gives it: random ready, latency up to 200
    /// cycles, responses out of order and interleaved, random stalls.
    pub fn adversarial(data_bytes: usize, tag_bits: u32) -> Config {
        Config {
            data_bytes,
            tag_bits,
            ready: 0.7,
            latency: 1..=200,
            reorder: true,
            interleave: true,
            stall: 0.2,
        }
    }
}

/// A read request (engine → host).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReadRequest {
    /// The first byte.
    pub addr: u64,
    /// Bytes, 1..=[`MAX_LEN`].
    pub len: u32,
    /// The tag its response beats carry.
    pub tag: u32,
}

/// A read response beat (host → engine).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReadBeat {
    /// `DATA_BYTES` lanes; lanes outside `keep` are 0.
    pub data: Vec<u8>,
    /// Valid lanes, contiguous from lane 0 (0 on an error beat).
    pub keep: u64,
    /// The request's last beat.
    pub last: bool,
    /// The request's tag.
    pub tag: u32,
    /// No memory behind some byte of the request: the only beat it gets.
    pub err: bool,
}

/// A write request beat (engine → host).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WriteBeat {
    /// The first byte of the write; read on its first beat only (the beat after a `last`).
    pub addr: u64,
    /// `DATA_BYTES` lanes; lanes outside `keep` are ignored.
    pub data: Vec<u8>,
    /// Valid lanes, contiguous from lane 0, all of them but on the last beat.
    pub keep: u64,
    /// The write's last beat.
    pub last: bool,
    /// The write's tag, the same on all its beats.
    pub tag: u32,
}

/// A write completion (host → engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WriteCompletion {
    /// The write's tag.
    pub tag: u32,
    /// No memory behind some byte: nothing was written.
    pub err: bool,
}

/// The engine's outputs in one cycle, as sampled before the clock edge.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EngineOut {
    /// Read request `valid` and its fields.
    pub rd_req: Option<ReadRequest>,
    /// Read response `ready`.
    pub rd_resp_ready: bool,
    /// Write request `valid` and its beat.
    pub wr: Option<WriteBeat>,
    /// Write completion `ready`.
    pub wr_cpl_ready: bool,
}

/// The host's outputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct HostOut {
    /// Read request `ready`.
    pub rd_req_ready: bool,
    /// Read response `valid` and its beat.
    pub rd_resp: Option<ReadBeat>,
    /// Write request `ready`.
    pub wr_ready: bool,
    /// Write completion `valid` and its fields.
    pub wr_cpl: Option<WriteCompletion>,
}

/// A request port, in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Port {
    /// Read requests.
    Read,
    /// Write requests.
    Write,
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Port::Read => "read request",
            Port::Write => "write request",
        })
    }
}

/// A rule of the protocol the engine broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// `valid` dropped, or the fields changed, before the handshake.
    Unstable(Port),
    /// A tag of `2^TAG_W` or more.
    TagTooWide(Port, u32),
    /// A tag whose earlier request is still outstanding (a read until its last beat's
    /// handshake, a write until its completion's).
    TagInUse(Port, u32),
    /// A read of 0 or more than [`MAX_LEN`] bytes.
    ReadLen {
        /// The request's tag.
        tag: u32,
        /// Its length.
        len: u32,
    },
    /// A write beat's keep is not contiguous from lane 0 within `DATA_BYTES` lanes.
    BadKeep(u64),
    /// A write beat with no valid lane.
    EmptyBeat,
    /// A write beat that is neither full nor last.
    ShortBeat(usize),
    /// A write's tag changed between its beats.
    TagChanged {
        /// The tag of the write's first beat.
        was: u32,
        /// This beat's.
        tag: u32,
    },
    /// A write went past [`MAX_LEN`] bytes without `last`.
    WriteTooLong(u32),
}

/// A protocol violation and the cycle of the edge where the host saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Edges since the host was made.
    pub cycle: u64,
    /// The rule.
    pub rule: Rule,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DMA protocol, cycle {}: ", self.cycle)?;
        match self.rule {
            Rule::Unstable(p) => write!(f, "{p} changed or dropped before its handshake"),
            Rule::TagTooWide(p, t) => write!(f, "{p} tag {t} does not fit TAG_W"),
            Rule::TagInUse(p, t) => write!(f, "{p} tag {t} reused while outstanding"),
            Rule::ReadLen { tag, len } => {
                write!(f, "read tag {tag} of {len} bytes (1..={MAX_LEN})")
            }
            Rule::BadKeep(k) => write!(f, "write keep {k:#x} not contiguous from lane 0"),
            Rule::EmptyBeat => f.write_str("write beat with keep 0"),
            Rule::ShortBeat(n) => write!(f, "write beat of {n} bytes that is not last"),
            Rule::TagChanged { was, tag } => {
                write!(f, "write tag changed from {was} to {tag} inside a write")
            }
            Rule::WriteTooLong(t) => write!(f, "write tag {t} past {MAX_LEN} bytes without last"),
        }
    }
}

impl std::error::Error for Violation {}

/// What the host has moved so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Clock edges.
    pub cycles: u64,
    /// Read requests accepted.
    pub reads: u64,
    /// Reads answered with `err`.
    pub read_faults: u64,
    /// Response beats handed over.
    pub read_beats: u64,
    /// Bytes handed over in response beats.
    pub bytes_read: u64,
    /// Writes accepted whole (their last beat).
    pub writes: u64,
    /// Writes completed with `err`.
    pub write_faults: u64,
    /// Write beats accepted.
    pub write_beats: u64,
    /// Bytes written to memory.
    pub bytes_written: u64,
}

/// A read between its request and its last beat.
struct Read {
    req: ReadRequest,
    /// The first cycle it may be answered.
    due: u64,
    /// Its bytes, taken from memory when its first beat is offered; `None` for a fault.
    data: Option<Option<Vec<u8>>>,
    /// Bytes handed over.
    sent: usize,
}

/// A write between its last beat and its completion's handshake.
struct Write {
    addr: u64,
    tag: u32,
    bytes: Vec<u8>,
    due: u64,
}

/// The write whose beats are arriving.
struct Open {
    addr: u64,
    tag: u32,
    bytes: Vec<u8>,
    /// It broke a rule: dropped at its last beat, no completion.
    bad: bool,
    /// Its tag was free and is now marked in use (a bad tag belongs to someone else).
    owns_tag: bool,
}

/// The host end of the DMA ports over a memory `M`.
pub struct DmaHost<M: Memory> {
    mem: M,
    cfg: Config,
    rng: TestRng,
    cycle: u64,
    /// Outstanding reads, in request order.
    reads: Vec<Read>,
    /// Written whole, not completed yet, in request order.
    writes: Vec<Write>,
    open: Option<Open>,
    read_tags: Vec<bool>,
    write_tags: Vec<bool>,
    /// This cycle's outputs, once offered.
    out: Option<HostOut>,
    /// The response beat on offer, held until its handshake.
    beat: Option<ReadBeat>,
    /// The completion on offer (its write already applied), held until its handshake.
    cpl: Option<WriteCompletion>,
    /// The engine's request and write beat left waiting at the last edge.
    held_req: Option<ReadRequest>,
    held_wr: Option<WriteBeat>,
    counters: Counters,
    violations: Vec<Violation>,
}

impl<M: Memory> DmaHost<M> {
    /// A host over `mem`, its randomness from `seed` (see [`crate::stream::seed`]).
    ///
    /// # Panics
    /// If `cfg.data_bytes` is not 1..=64 or `cfg.tag_bits` is above 16.
    pub fn new(mem: M, cfg: Config, seed: u64) -> Self {
        assert!(
            (1..=64).contains(&cfg.data_bytes),
            "DATA_BYTES {} outside 1..=64",
            cfg.data_bytes
        );
        assert!(cfg.tag_bits <= 16, "TAG_W {} above 16", cfg.tag_bits);
        let tags = 1usize << cfg.tag_bits;
        DmaHost {
            mem,
            rng: rng(seed ^ 0x5EED_D3A0),
            cfg,
            cycle: 0,
            reads: Vec::new(),
            writes: Vec::new(),
            open: None,
            read_tags: vec![false; tags],
            write_tags: vec![false; tags],
            out: None,
            beat: None,
            cpl: None,
            held_req: None,
            held_wr: None,
            counters: Counters::default(),
            violations: Vec::new(),
        }
    }

    /// The memory.
    pub fn memory(&self) -> &M {
        &self.mem
    }

    /// The memory, to change it between accesses (a doorbell's WQEs, say).
    pub fn memory_mut(&mut self) -> &mut M {
        &mut self.mem
    }

    /// The memory back.
    pub fn into_memory(self) -> M {
        self.mem
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// What has moved so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Every violation seen, in order.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Nothing outstanding: no read unanswered, no write half sent or not completed.
    pub fn idle(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty() && self.open.is_none() && self.cpl.is_none()
    }

    /// This cycle's outputs. A response beat or completion on offer stays, unchanged, until its
    /// handshake; calling again in the same cycle returns the same outputs.
    pub fn offer(&mut self) -> HostOut {
        if let Some(out) = &self.out {
            return out.clone();
        }
        let rd_req_ready = self.draw(self.cfg.ready);
        let wr_ready = self.draw(self.cfg.ready);
        if self.beat.is_none() && !self.draw(self.cfg.stall) {
            self.beat = self.next_beat();
        }
        if self.cpl.is_none() && !self.draw(self.cfg.stall) {
            self.cpl = self.next_completion();
        }
        let out = HostOut {
            rd_req_ready,
            rd_resp: self.beat.clone(),
            wr_ready,
            wr_cpl: self.cpl,
        };
        self.out = Some(out.clone());
        out
    }

    /// The clock edge: takes every handshake between this cycle's offer (made now if the
    /// bench did not ask) and the engine's outputs `e`. Returns the first rule `e` broke at
    /// this edge; [`DmaHost::violations`] keeps them all.
    pub fn accepted(&mut self, e: &EngineOut) -> Result<(), Violation> {
        if self.out.is_none() {
            self.offer();
        }
        let out = self.out.take().expect("offered");
        let first = self.violations.len();
        // Requests before responses: a tag freed at this edge is free from the next cycle on.
        self.read_request(e.rd_req.as_ref(), out.rd_req_ready);
        self.write_beat(e.wr.as_ref(), out.wr_ready);
        if out.rd_resp.is_some() && e.rd_resp_ready {
            self.beat_taken();
        }
        if out.wr_cpl.is_some() && e.wr_cpl_ready {
            let c = self.cpl.take().expect("a completion on offer");
            self.write_tags[c.tag as usize] = false;
        }
        self.cycle += 1;
        self.counters.cycles = self.cycle;
        self.violations.get(first).map_or(Ok(()), |v| Err(*v))
    }

    fn draw(&mut self, p: f64) -> bool {
        p >= 1.0 || (p > 0.0 && self.rng.gen_bool(p))
    }

    fn latency(&mut self) -> u64 {
        let lo = (*self.cfg.latency.start()).max(1);
        let hi = (*self.cfg.latency.end()).max(lo);
        self.rng.gen_range(lo..=hi)
    }

    fn violate(&mut self, rule: Rule) {
        self.violations.push(Violation {
            cycle: self.cycle,
            rule,
        });
    }

    /// The tag fits `TAG_W` and is free on `port`.
    fn tag_free(&mut self, port: Port, tag: u32) -> bool {
        let tags = match port {
            Port::Read => &self.read_tags,
            Port::Write => &self.write_tags,
        };
        match tags.get(tag as usize) {
            None => self.violate(Rule::TagTooWide(port, tag)),
            Some(true) => self.violate(Rule::TagInUse(port, tag)),
            Some(false) => return true,
        }
        false
    }

    fn read_request(&mut self, req: Option<&ReadRequest>, ready: bool) {
        let held = self.held_req.take();
        let Some(req) = req else {
            if held.is_some() {
                self.violate(Rule::Unstable(Port::Read));
            }
            return;
        };
        if held.is_some_and(|h| h != *req) {
            self.violate(Rule::Unstable(Port::Read));
        }
        if !ready {
            self.held_req = Some(req.clone());
            return;
        }
        if !self.tag_free(Port::Read, req.tag) {
            return;
        }
        if req.len == 0 || req.len as usize > MAX_LEN {
            self.violate(Rule::ReadLen {
                tag: req.tag,
                len: req.len,
            });
            return;
        }
        self.read_tags[req.tag as usize] = true;
        let due = self.cycle + self.latency();
        self.reads.push(Read {
            req: req.clone(),
            due,
            data: None,
            sent: 0,
        });
        self.counters.reads += 1;
    }

    fn write_beat(&mut self, beat: Option<&WriteBeat>, ready: bool) {
        let lanes = self.cfg.data_bytes;
        let held = self.held_wr.take();
        let Some(b) = beat else {
            if held.is_some() {
                self.violate(Rule::Unstable(Port::Write));
            }
            return;
        };
        if held.is_some_and(|h| !same_beat(&h, b, self.open.is_none(), lanes)) {
            self.violate(Rule::Unstable(Port::Write));
        }
        if !ready {
            self.held_wr = Some(b.clone());
            return;
        }
        self.counters.write_beats += 1;
        let n = match keep_count(b.keep, lanes) {
            Some(0) => Err(Rule::EmptyBeat),
            Some(n) if n < lanes && !b.last => Err(Rule::ShortBeat(n)),
            Some(n) => Ok(n),
            None => Err(Rule::BadKeep(b.keep)),
        };
        if self.open.is_none() {
            let owns_tag = self.tag_free(Port::Write, b.tag);
            if owns_tag {
                self.write_tags[b.tag as usize] = true;
            }
            self.open = Some(Open {
                addr: b.addr,
                tag: b.tag,
                bytes: Vec::new(),
                bad: !owns_tag,
                owns_tag,
            });
        }
        let open = self.open.as_mut().expect("a write is open");
        let mut broke = Vec::new();
        if b.tag != open.tag {
            broke.push(Rule::TagChanged {
                was: open.tag,
                tag: b.tag,
            });
            open.bad = true;
        }
        match n {
            Err(rule) => {
                broke.push(rule);
                open.bad = true;
            }
            // A bad write is dropped whole: its bytes no longer matter.
            Ok(_) if open.bad => {}
            Ok(n) => {
                let mut lane = b.data.get(..n).unwrap_or(&b.data).to_vec();
                lane.resize(n, 0);
                open.bytes.extend_from_slice(&lane);
                if open.bytes.len() > MAX_LEN {
                    broke.push(Rule::WriteTooLong(open.tag));
                    open.bad = true;
                }
            }
        }
        if b.last {
            let open = self.open.take().expect("a write is open");
            if open.bad {
                if open.owns_tag {
                    self.write_tags[open.tag as usize] = false;
                }
            } else {
                let due = self.cycle + self.latency();
                self.writes.push(Write {
                    addr: open.addr,
                    tag: open.tag,
                    bytes: open.bytes,
                    due,
                });
                self.counters.writes += 1;
            }
        }
        for rule in broke {
            self.violate(rule);
        }
    }

    /// Picks the read that sends next, if one may, and makes its next beat.
    fn next_beat(&mut self) -> Option<ReadBeat> {
        let now = self.cycle;
        let i = if !self.cfg.reorder {
            self.reads.first().filter(|r| r.due <= now).map(|_| 0)
        } else if let Some(i) = self
            .reads
            .iter()
            .position(|r| r.sent > 0)
            .filter(|_| !self.cfg.interleave)
        {
            Some(i)
        } else {
            let due: Vec<usize> = (0..self.reads.len())
                .filter(|&i| self.reads[i].due <= now)
                .collect();
            (!due.is_empty()).then(|| due[self.rng.gen_range(0..due.len())])
        }?;
        let lanes = self.cfg.data_bytes;
        let r = &mut self.reads[i];
        let mem = &self.mem;
        // The bytes as they are when the answer starts, as a host's memory would give them.
        let data = r.data.get_or_insert_with(|| {
            let mut v = vec![0; r.req.len as usize];
            mem.read(r.req.addr, &mut v).ok().map(|()| v)
        });
        let mut lane = vec![0u8; lanes];
        let (keep, last, err) = match data {
            None => (0, true, true),
            Some(bytes) => {
                let n = (bytes.len() - r.sent).min(lanes);
                lane[..n].copy_from_slice(&bytes[r.sent..r.sent + n]);
                (keep_mask(n), r.sent + n == bytes.len(), false)
            }
        };
        Some(ReadBeat {
            data: lane,
            keep,
            last,
            tag: r.req.tag,
            err,
        })
    }

    /// The beat on offer was taken.
    fn beat_taken(&mut self) {
        let beat = self.beat.take().expect("a beat on offer");
        let n = beat.keep.count_ones() as usize;
        self.counters.read_beats += 1;
        self.counters.bytes_read += n as u64;
        let i = self
            .reads
            .iter()
            .position(|r| r.req.tag == beat.tag)
            .expect("the beat's read");
        self.reads[i].sent += n;
        if beat.last {
            self.reads.remove(i);
            self.read_tags[beat.tag as usize] = false;
            if beat.err {
                self.counters.read_faults += 1;
            }
        }
    }

    /// Picks the write that completes next, if one may, and applies it to memory.
    fn next_completion(&mut self) -> Option<WriteCompletion> {
        let now = self.cycle;
        let i = if !self.cfg.reorder {
            self.writes.first().filter(|w| w.due <= now).map(|_| 0)
        } else {
            let due: Vec<usize> = (0..self.writes.len())
                .filter(|&i| self.writes[i].due <= now)
                .collect();
            (!due.is_empty()).then(|| due[self.rng.gen_range(0..due.len())])
        }?;
        let w = self.writes.remove(i);
        let err = self.mem.write(w.addr, &w.bytes).is_err();
        if err {
            self.counters.write_faults += 1;
        } else {
            self.counters.bytes_written += w.bytes.len() as u64;
        }
        Some(WriteCompletion { tag: w.tag, err })
    }
}

/// The engine held a write beat: the same beat again, ignoring lanes outside its keep and, past
/// a write's first beat, the address.
fn same_beat(a: &WriteBeat, b: &WriteBeat, first: bool, lanes: usize) -> bool {
    let n = keep_count(a.keep, lanes).unwrap_or(lanes);
    a.keep == b.keep
        && a.last == b.last
        && a.tag == b.tag
        && (!first || a.addr == b.addr)
        && a.data.get(..n) == b.data.get(..n)
}
