//! `nic_dma` (rtl/top/nic_dma.sv): two scripted DMA sources, standing for the WQE engine and the
//! receive path, share one host port through it. Each source issues random tagged reads and
//! write bursts from its own tag spaces and takes its answers with its own random back-pressure;
//! the host (`sim::wqe::host_memory`) answers with seeded random latency, out of order and
//! interleaved, and checks the merged port's protocol (a widened tag in use twice, a burst
//! interleaved with another, ...). The scoreboard: every read's bytes come back once, whole, to
//! the source that asked, faults where memory has none; every write lands once, whole, and its
//! completion reaches its source once; nothing is left outstanding; neither source waits more
//! than a few of the other's requests while it has one waiting.
//!
//! Randomized tests print their seed; `ROCENIC_SEED=N` replays them.

use rand::Rng;
use rocenic_model::wqe::{Fill, HostMemory, Memory};
use rocenic_sim::axis::{keep_count, keep_mask};
use rocenic_sim::duts::{NicDma, NicDmaPorts};
use rocenic_sim::harness::Sim;
use rocenic_sim::stream::TestRng;
use rocenic_sim::stream::{self, Sink, Source};
use rocenic_sim::wqe::host_memory::*;
use std::collections::HashMap;

rocenic_sim::dma_port_fns!(NicDmaPorts);

/// Lanes of a beat, and each source's tag bits (nic_dma's defaults).
const LANES: usize = 8;
const RD_TAG_W: u32 = 4;
const WR_TAG_W: u32 = 2;

/// Source `s` reads from its own random bytes at `read_base(s)` (a hole after them, so some
/// reads fault), and writes into its own zeroed region at `write_base(s)` (some writes run off
/// either end and fault): what a source gets back tells whose it was.
const READ_SIZE: u64 = 0x8000;
const WRITE_SIZE: u64 = 0x8000;
fn read_base(s: usize) -> u64 {
    0x1_0000_0000 + 0x10_0000 * s as u64
}
fn write_base(s: usize) -> u64 {
    0x2_0000_0000 + 0x10_0000 * s as u64
}

/// Mostly short accesses, some long, now and then the longest.
fn length(rng: &mut TestRng) -> usize {
    match rng.gen_range(0..10) {
        0..=5 => rng.gen_range(1..=64),
        6..=8 => rng.gen_range(65..=512),
        _ => rng.gen_range(513..=MAX_LEN),
    }
}

/// A wire broken between the host and the DUT, to show that the scoreboard sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Break {
    None,
    /// One bit of the 100th response beat's data flipped on its way in.
    ReadData,
    /// The source bit of the 100th response beat's tag flipped: it goes to the other source.
    ReadSource,
    /// The 50th write completion's source bit flipped.
    DoneSource,
}

/// One source's side of the DUT: what it drives and what it sees, as the host model's types
/// (a source drives what an engine drives, and sees what a host offers).
struct Source2 {
    reads: Source<ReadRequest>,
    writes: Source<WriteBeat>,
    rd_sink: Sink,
    done_sink: Sink,
    free_rd: Vec<u32>,
    free_wr: Vec<u32>,
    to_read: usize,
    to_write: usize,
    /// Reads queued or outstanding by tag: address, length, bytes so far, and whether the
    /// request went out (only then may an answer come).
    pending_rd: HashMap<u32, (u64, usize, Vec<u8>, bool)>,
    /// Writes queued or outstanding by tag: address, bytes, and whether the last beat went out.
    pending_wr: HashMap<u32, (u64, Vec<u8>, bool)>,
    /// The write region as the completions say it is.
    shadow: Vec<u8>,
    read_faults: u64,
    write_faults: u64,
    beats_in: u64,
}

impl Source2 {
    fn new(seed: u64, s: usize, reads: usize, writes: usize, stall: f64) -> Self {
        let k = seed ^ ((s as u64 + 1) * 0x9E37_79B9);
        Source2 {
            reads: Source::new(k, 0.4),
            writes: Source::new(k ^ 0x77, 0.3),
            rd_sink: Sink::new(k, stall),
            done_sink: Sink::new(k ^ 0x77, stall),
            free_rd: (0..1 << RD_TAG_W).collect(),
            free_wr: (0..1 << WR_TAG_W).collect(),
            to_read: reads,
            to_write: writes,
            pending_rd: HashMap::new(),
            pending_wr: HashMap::new(),
            shadow: vec![0; WRITE_SIZE as usize],
            read_faults: 0,
            write_faults: 0,
            beats_in: 0,
        }
    }

    fn done(&self) -> bool {
        self.to_read + self.to_write + self.reads.remaining() + self.writes.remaining() == 0
            && self.pending_rd.is_empty()
            && self.pending_wr.is_empty()
    }

    /// Queues a new read or write when a tag is free and the port has nothing queued.
    fn issue(&mut self, s: usize, rng: &mut TestRng) {
        if self.to_read > 0 && self.reads.remaining() == 0 && !self.free_rd.is_empty() {
            let tag = self
                .free_rd
                .swap_remove(rng.gen_range(0..self.free_rd.len()));
            let len = length(rng);
            let end = read_base(s) + READ_SIZE;
            // One in eight reaches past the end, into the hole.
            let addr = if rng.gen_ratio(1, 8) {
                end - rng.gen_range(1..=len as u64)
            } else {
                rng.gen_range(read_base(s)..=end - len as u64)
            };
            self.reads.push(ReadRequest {
                addr,
                len: len as u32,
                tag,
            });
            self.pending_rd.insert(tag, (addr, len, Vec::new(), false));
            self.to_read -= 1;
        }
        if self.to_write > 0 && self.writes.remaining() == 0 && !self.free_wr.is_empty() {
            let tag = self
                .free_wr
                .swap_remove(rng.gen_range(0..self.free_wr.len()));
            let len = length(rng);
            let base = write_base(s);
            // One in eight runs off either end of the region.
            let addr = match rng.gen_range(0..16) {
                0 => base - rng.gen_range(1..=len as u64),
                1 if len > 1 => base + WRITE_SIZE - rng.gen_range(1..len as u64),
                _ => rng.gen_range(base..=base + WRITE_SIZE - len as u64),
            };
            let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            for (i, chunk) in bytes.chunks(LANES).enumerate() {
                let mut data = chunk.to_vec();
                data.resize(LANES, 0);
                self.writes.push(WriteBeat {
                    // Only the first beat's address counts; the others carry noise.
                    addr: if i == 0 { addr } else { rng.gen() },
                    data,
                    keep: keep_mask(chunk.len()),
                    last: (i + 1) * LANES >= len,
                    tag,
                });
            }
            self.pending_wr.insert(tag, (addr, bytes, false));
            self.to_write -= 1;
        }
    }

    /// This cycle's outputs toward the DUT.
    fn offer(&mut self) -> EngineOut {
        EngineOut {
            rd_req: self.reads.offer().cloned(),
            rd_resp_ready: self.rd_sink.ready(),
            wr: self.writes.offer().cloned(),
            wr_cpl_ready: self.done_sink.ready(),
        }
    }

    /// The clock edge, with what the DUT showed this source (`seen`) and what the source
    /// drove (`out`): takes the handshakes and checks every answer.
    fn edge(
        &mut self,
        s: usize,
        mem: &HostMemory,
        out: &EngineOut,
        seen: &HostOut,
    ) -> Result<(), String> {
        if let Some(r) = self.reads.accepted(seen.rd_req_ready) {
            self.pending_rd.get_mut(&r.tag).expect("queued").3 = true;
        }
        if let Some(b) = self.writes.accepted(seen.wr_ready).filter(|b| b.last) {
            self.pending_wr.get_mut(&b.tag).expect("queued").2 = true;
        }
        if let Some(beat) = seen.rd_resp.as_ref().filter(|_| out.rd_resp_ready) {
            self.beats_in += 1;
            let (addr, len, got, _) = self
                .pending_rd
                .get_mut(&beat.tag)
                .filter(|p| p.3)
                .ok_or_else(|| {
                    format!(
                        "source {s}: a response beat for tag {} not outstanding",
                        beat.tag
                    )
                })?;
            let mut want = vec![0; *len];
            let fault = mem.read(*addr, &mut want).is_err();
            let n = keep_count(beat.keep, LANES).ok_or("a keep not contiguous")?;
            if beat.err {
                if !fault || !beat.last || n != 0 || !got.is_empty() {
                    return Err(format!(
                        "source {s}: a wrong error beat for tag {}",
                        beat.tag
                    ));
                }
                self.read_faults += 1;
            } else {
                if fault {
                    return Err(format!("source {s}: data for a read into the hole"));
                }
                got.extend_from_slice(&beat.data[..n]);
                if got.len() > *len || beat.last != (got.len() == *len) {
                    return Err(format!(
                        "source {s}: tag {} got {} of {} bytes, last {}",
                        beat.tag,
                        got.len(),
                        len,
                        beat.last
                    ));
                }
                if beat.last && *got != want {
                    return Err(format!(
                        "source {s}: read {addr:#x}+{len} (tag {}) bytes differ",
                        beat.tag
                    ));
                }
            }
            if beat.last {
                self.pending_rd.remove(&beat.tag);
                self.free_rd.push(beat.tag);
            }
        }
        if let Some(c) = seen.wr_cpl.filter(|_| out.wr_cpl_ready) {
            // Only a write whose last beat went out may complete.
            let (addr, bytes, _) =
                self.pending_wr
                    .remove(&c.tag)
                    .filter(|p| p.2)
                    .ok_or_else(|| {
                        format!(
                            "source {s}: a completion for write tag {} not outstanding",
                            c.tag
                        )
                    })?;
            let base = write_base(s);
            let inside = addr >= base && addr + bytes.len() as u64 <= base + WRITE_SIZE;
            if c.err == inside {
                return Err(format!(
                    "source {s}: write {addr:#x}+{} completed with err {}",
                    bytes.len(),
                    c.err
                ));
            }
            if c.err {
                self.write_faults += 1;
            } else {
                let at = (addr - base) as usize;
                self.shadow[at..at + bytes.len()].copy_from_slice(&bytes);
            }
            self.free_wr.push(c.tag);
        }
        Ok(())
    }
}

/// `drive_<src>(dut, &EngineOut)` and `sample_<src>(dut) -> HostOut` for one source's ports:
/// the setters of the ports it drives, then the getters of those it sees.
macro_rules! source_fns {
    ($drive:ident, $sample:ident,
     $rq_valid:ident, $rq_addr:ident, $rq_len:ident, $rq_tag:ident, $rs_ready:ident,
     $w_valid:ident, $w_addr:ident, $w_data:ident, $w_keep:ident, $w_last:ident, $w_tag:ident,
     $d_ready:ident;
     $rq_ready:ident, $rs_valid:ident, $rs_data:ident, $rs_keep:ident, $rs_last:ident,
     $rs_tag:ident, $rs_err:ident, $w_ready:ident, $d_valid:ident, $d_tag:ident, $d_err:ident) => {
        fn $drive(d: &mut NicDma, o: &EngineOut) {
            d.$rq_valid(o.rd_req.is_some().into());
            if let Some(r) = &o.rd_req {
                d.$rq_addr(r.addr);
                d.$rq_len(r.len as u16);
                d.$rq_tag(r.tag as u8);
            }
            d.$rs_ready(o.rd_resp_ready.into());
            d.$w_valid(o.wr.is_some().into());
            if let Some(b) = &o.wr {
                d.$w_addr(b.addr);
                d.$w_data(u64::from_le_bytes(b.data[..8].try_into().unwrap()));
                d.$w_keep(b.keep as u8);
                d.$w_last(b.last.into());
                d.$w_tag(b.tag as u8);
            }
            d.$d_ready(o.wr_cpl_ready.into());
        }

        fn $sample(d: &NicDma) -> HostOut {
            HostOut {
                rd_req_ready: d.$rq_ready() == 1,
                rd_resp: (d.$rs_valid() == 1).then(|| ReadBeat {
                    data: d.$rs_data().to_le_bytes().to_vec(),
                    keep: u64::from(d.$rs_keep()),
                    last: d.$rs_last() == 1,
                    tag: u32::from(d.$rs_tag()),
                    err: d.$rs_err() == 1,
                }),
                wr_ready: d.$w_ready() == 1,
                wr_cpl: (d.$d_valid() == 1).then(|| WriteCompletion {
                    tag: u32::from(d.$d_tag()),
                    err: d.$d_err() == 1,
                }),
            }
        }
    };
}

source_fns!(drive_src0, sample_src0,
    set_s0_rd_req_valid, set_s0_rd_req_addr, set_s0_rd_req_len, set_s0_rd_req_tag,
    set_m0_rd_rsp_ready, set_s0_wr_valid, set_s0_wr_addr, set_s0_wr_data, set_s0_wr_keep,
    set_s0_wr_last, set_s0_wr_tag, set_m0_wr_done_ready;
    s0_rd_req_ready, m0_rd_rsp_valid, m0_rd_rsp_data, m0_rd_rsp_keep, m0_rd_rsp_last,
    m0_rd_rsp_tag, m0_rd_rsp_err, s0_wr_ready, m0_wr_done_valid, m0_wr_done_tag, m0_wr_done_err);
source_fns!(drive_src1, sample_src1,
    set_s1_rd_req_valid, set_s1_rd_req_addr, set_s1_rd_req_len, set_s1_rd_req_tag,
    set_m1_rd_rsp_ready, set_s1_wr_valid, set_s1_wr_addr, set_s1_wr_data, set_s1_wr_keep,
    set_s1_wr_last, set_s1_wr_tag, set_m1_wr_done_ready;
    s1_rd_req_ready, m1_rd_rsp_valid, m1_rd_rsp_data, m1_rd_rsp_keep, m1_rd_rsp_last,
    m1_rd_rsp_tag, m1_rd_rsp_err, s1_wr_ready, m1_wr_done_valid, m1_wr_done_tag, m1_wr_done_err);

/// What a run measured.
#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    /// Per source: read response beats taken, read and write faults.
    beats: [u64; 2],
    read_faults: [u64; 2],
    write_faults: [u64; 2],
    /// The most requests (write bursts) of one source the host took while the other source had
    /// one waiting in or at the DUT.
    read_overtakes: u64,
    write_overtakes: u64,
    /// Response beats whose tag differs from the beat before, which was not last.
    interleaves: u64,
    host: Counters,
}

/// Who the host took a request (a burst) from, while who waited: the fairness count.
#[derive(Default)]
struct Fairness {
    /// Beats (requests) each source has inside the DUT.
    inside: [i64; 2],
    /// The other source's requests (bursts) passed while this one waited.
    passed: [u64; 2],
    worst: u64,
}

impl Fairness {
    /// Source `s` had one taken by the DUT.
    fn entered(&mut self, s: usize) {
        self.inside[s] += 1;
    }

    /// The host took one of source `g`'s beats; `ends` when it ends a request or burst.
    /// `offering` says which sources offer one to the DUT this cycle.
    fn granted(&mut self, g: usize, ends: bool, offering: [bool; 2]) {
        self.inside[g] -= 1;
        self.passed[g] = 0;
        let o = 1 - g;
        if ends && (self.inside[o] > 0 || offering[o]) {
            self.passed[o] += 1;
            self.worst = self.worst.max(self.passed[o]);
        }
    }
}

/// `reads` and `writes` per source through the DUT and a host configured `cfg`; the sources
/// hold their response readies low with probabilities `stall`.
fn run(
    seed: u64,
    reads: usize,
    writes: usize,
    cfg: Config,
    stall: [f64; 2],
    brk: Break,
) -> Result<Report, String> {
    let mut rng = stream::rng(seed);
    let mut mem = HostMemory::new();
    for s in 0..2 {
        let bytes: Vec<u8> = (0..READ_SIZE).map(|_| rng.gen()).collect();
        mem.add(read_base(s), READ_SIZE as usize, Fill::Bytes(&bytes))
            .unwrap();
        mem.add(write_base(s), WRITE_SIZE as usize, Fill::Zero)
            .unwrap();
    }
    // Nothing writes the read regions: this copy is what every read must see.
    let reference = mem.clone();
    let mut host = DmaHost::new(mem, cfg, seed);
    let mut src = [
        Source2::new(seed, 0, reads, writes, stall[0]),
        Source2::new(seed, 1, reads, writes, stall[1]),
    ];
    let mut sim: Sim<NicDma> = Sim::new("nic_dma");
    sim.reset(4);

    let mut r = Report::default();
    let (mut rd_fair, mut wr_fair) = (Fairness::default(), Fairness::default());
    let (mut beats, mut dones, mut broken) = (0u64, 0u64, false);
    let mut prev_beat: Option<(u32, bool)> = None;
    let limit = 400 * (reads + writes) as u64 + 20_000;
    while !(src.iter().all(Source2::done) && host.idle()) {
        if r.cycles >= limit {
            return Err(format!("{}", sim.hang("every access answered")));
        }
        for (s, x) in src.iter_mut().enumerate() {
            x.issue(s, &mut rng);
        }
        let h = host.offer();
        // The wire between the host and the DUT, broken on purpose once in some runs.
        let mut driven = h.clone();
        if let Some(b) = driven.rd_resp.as_mut().filter(|b| !b.err && !broken) {
            match brk {
                Break::ReadData if beats >= 100 => b.data[0] ^= 1,
                Break::ReadSource if beats >= 100 => b.tag ^= 1 << RD_TAG_W,
                _ => {}
            }
        }
        if let Some(c) = driven
            .wr_cpl
            .as_mut()
            .filter(|_| brk == Break::DoneSource && dones == 50)
        {
            c.tag ^= 1 << WR_TAG_W;
        }
        drive_dma(&mut sim.dut, &driven);
        let o = [src[0].offer(), src[1].offer()];
        drive_src0(&mut sim.dut, &o[0]);
        drive_src1(&mut sim.dut, &o[1]);
        sim.settle();
        let e = sample_dma(&sim.dut);
        let seen = [sample_src0(&sim.dut), sample_src1(&sim.dut)];

        // The host's side: its own protocol checks, then what crossed.
        host.accepted(&e).map_err(|v| format!("host: {v}"))?;
        if let Some(b) = h.rd_resp.as_ref().filter(|_| e.rd_resp_ready) {
            if prev_beat.is_some_and(|(t, last)| !last && t != b.tag) {
                r.interleaves += 1;
            }
            prev_beat = Some((b.tag, b.last));
            if driven.rd_resp != h.rd_resp {
                broken = true;
            }
            beats += 1;
        }
        if h.wr_cpl.is_some() && e.wr_cpl_ready {
            dones += 1;
        }
        let offering = |f: fn(&EngineOut) -> bool| [f(&o[0]), f(&o[1])];
        for s in 0..2 {
            if o[s].rd_req.is_some() && seen[s].rd_req_ready {
                rd_fair.entered(s);
            }
            if o[s].wr.is_some() && seen[s].wr_ready {
                wr_fair.entered(s);
            }
        }
        if let Some(q) = e.rd_req.as_ref().filter(|_| h.rd_req_ready) {
            let g = (q.tag >> RD_TAG_W) as usize;
            rd_fair.granted(g, true, offering(|x| x.rd_req.is_some()));
        }
        if let Some(w) = e.wr.as_ref().filter(|_| h.wr_ready) {
            let g = (w.tag >> WR_TAG_W) as usize;
            wr_fair.granted(g, w.last, offering(|x| x.wr.is_some()));
        }
        // The sources' side: every answer checked where it lands.
        for s in 0..2 {
            src[s].edge(s, &reference, &o[s], &seen[s])?;
        }
        sim.step();
        r.cycles += 1;
    }
    for (s, x) in src.iter().enumerate() {
        let mut got = vec![0; WRITE_SIZE as usize];
        host.memory().read(write_base(s), &mut got).unwrap();
        if got != x.shadow {
            return Err(format!(
                "source {s}: the write region differs from its completions"
            ));
        }
        r.beats[s] = x.beats_in;
        r.read_faults[s] = x.read_faults;
        r.write_faults[s] = x.write_faults;
    }
    r.read_overtakes = rd_fair.worst;
    r.write_overtakes = wr_fair.worst;
    r.host = host.counters();
    Ok(r)
}

fn check(test: &str, reads: usize, writes: usize, cfg: Config, stall: [f64; 2]) -> Report {
    let seed = stream::seed(test);
    let r =
        run(seed, reads, writes, cfg, stall, Break::None).unwrap_or_else(|e| panic!("{test}: {e}"));
    eprintln!("{test}: {r:?}");
    assert_eq!(
        r.host.reads,
        2 * reads as u64,
        "every read reached the host once"
    );
    assert_eq!(
        r.host.writes,
        2 * writes as u64,
        "every write reached the host once"
    );
    assert!(r.read_faults.iter().all(|&f| f > 0), "some reads fault");
    assert!(r.write_faults.iter().all(|&f| f > 0), "some writes fault");
    assert!(
        r.read_overtakes <= 2,
        "a source waited {} reads",
        r.read_overtakes
    );
    assert!(
        r.write_overtakes <= 2,
        "a source waited {} bursts",
        r.write_overtakes
    );
    r
}

#[test]
fn adversarial_host_and_sources() {
    let r = check(
        "adversarial_host_and_sources",
        600,
        300,
        Config::adversarial(LANES, RD_TAG_W + 1),
        [0.2, 0.5],
    );
    assert!(r.interleaves > 0, "the host interleaved no responses");
}

#[test]
fn ideal_host_busy_sources() {
    // Always ready, one cycle, in order: the two sources compete every cycle.
    check(
        "ideal_host_busy_sources",
        600,
        300,
        Config::ideal(LANES, RD_TAG_W + 1),
        [0.0, 0.0],
    );
}

#[test]
fn slow_sources() {
    // Both sources take their answers rarely: the shared response stream waits on them.
    let cfg = Config {
        latency: 1..=20,
        ..Config::adversarial(LANES, RD_TAG_W + 1)
    };
    check("slow_sources", 200, 100, cfg, [0.8, 0.9]);
}

#[test]
fn a_broken_line_fails() {
    let seed = stream::seed("a_broken_line_fails");
    for brk in [Break::ReadData, Break::ReadSource, Break::DoneSource] {
        let e = run(
            seed,
            300,
            150,
            Config::adversarial(LANES, RD_TAG_W + 1),
            [0.2, 0.2],
            brk,
        )
        .expect_err("the scoreboard saw nothing");
        eprintln!("{brk:?}: {e}");
    }
}
