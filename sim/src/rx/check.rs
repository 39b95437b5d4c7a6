//! The receive path's front end (`rtl/rx/rx_check.sv`) driven with frames, the descriptor each
//! must get in the model's terms ([`expected`]: `model::rx::packet::classify`), and a data path
//! played by the bench: for every descriptor it reads back, through the packet buffer's read
//! port, what the data path would copy (a RoCEv2 payload and the GRH area, a raw frame whole),
//! checks it byte for byte, and releases the frame, in order, now and then after a long pause so
//! that the buffer fills and the input has to wait.

use crate::axis::{beats, keep_mask, Beat};
use crate::duts::RxCheck;
use crate::harness::{Hang, Sim};
use crate::stream::{Sink, Source};
use rand::Rng;
use rocenic_model::rx::{classify, Discard, Incoming, GRH_AREA, MAX_FRAME};
use rocenic_model::wire::RoceFrame;
use std::collections::VecDeque;
use std::fmt;

/// Bytes per beat.
pub const BEAT: usize = 8;
/// The packet buffer's beats (16 KiB).
pub const BUF_BEATS: usize = 16384 / BEAT;
/// Beats of the longest frame stored.
pub const MAX_BEATS: usize = MAX_FRAME.div_ceil(BEAT);
/// Clocks from a read address to its beat.
pub const READ_LATENCY: u64 = 2;

/// The RSS pipeline's verdict for a frame, as rx_check takes it with the last beat and passes
/// it on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rss {
    /// Queue.
    pub queue: u16,
    /// Hash.
    pub hash: u32,
    /// Hash type (`model::rss::HashType`, 5 bits).
    pub hash_type: u8,
}

/// A frame and its RSS verdict.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Ethernet, no FCS.
    pub bytes: Vec<u8>,
    /// What the RSS pipeline said.
    pub rss: Rss,
}

/// What a RoCEv2 descriptor carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roce {
    /// CSUM_OK: always set for a RoCEv2 frame taken.
    pub csum_ok: bool,
    /// BTH opcode.
    pub opcode: u8,
    /// BTH destination QP.
    pub dest_qpn: u32,
    /// BTH PSN.
    pub psn: u32,
    /// BTH AckReq.
    pub ack_req: bool,
    /// DETH: Q_Key, source QP.
    pub deth: Option<(u32, u32)>,
    /// RETH: virtual address, R_Key, DMA length.
    pub reth: Option<(u64, u32, u32)>,
    /// Immediate data.
    pub imm: Option<u32>,
    /// IPv6, else IPv4.
    pub ipv6: bool,
    /// Where the IP header starts.
    pub l3_off: usize,
}

/// A descriptor's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not taken, and why.
    Discard(Discard),
    /// Not RoCEv2: delivered whole.
    Raw {
        /// Checksums checked and good.
        csum_ok: bool,
    },
    /// RoCEv2.
    Roce(Roce),
}

/// One descriptor, as rx_check gives it and as the model says it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desc {
    /// The verdict and the transport fields.
    pub verdict: Verdict,
    /// Where the payload lies in the frame (offset, length): RoCEv2 without the pad, raw the
    /// whole frame; none for a discard.
    pub payload: Option<(usize, usize)>,
    /// The frame's length, `MAX_FRAME + 1` for any longer frame.
    pub frame_len: usize,
    /// The RSS verdict, passed on.
    pub rss: Rss,
    /// The buffer address of the frame's first beat.
    pub addr: usize,
    /// The beats it holds there.
    pub beats: usize,
}

/// The descriptor `f` must get when its first beat is stored at buffer address `addr`.
pub fn expected(f: &Frame, addr: usize) -> Desc {
    let len = f.bytes.len();
    let (verdict, payload) = match classify(&f.bytes) {
        Err(d) => (Verdict::Discard(d), None),
        Ok(Incoming::Raw { csum_ok, .. }) => (Verdict::Raw { csum_ok }, Some((0, len))),
        Ok(Incoming::Roce(p)) => {
            let r = RoceFrame::parse(&f.bytes).expect("classify took it");
            let off = p.payload.as_ptr() as usize - f.bytes.as_ptr() as usize;
            let roce = Roce {
                csum_ok: true,
                opcode: p.opcode,
                dest_qpn: p.dest_qpn,
                psn: p.psn,
                ack_req: p.ack_req,
                deth: p.deth,
                reth: p.reth,
                imm: p.imm,
                ipv6: r.ip_version() == 6,
                l3_off: r.l3_offset(),
            };
            (Verdict::Roce(roce), Some((off, p.payload.len())))
        }
    };
    Desc {
        verdict,
        payload,
        frame_len: len.min(MAX_FRAME + 1),
        rss: f.rss,
        addr,
        beats: len.div_ceil(BEAT).clamp(1, MAX_BEATS),
    }
}

/// The descriptor on rx_check's output.
fn observed(d: &RxCheck) -> Desc {
    let verdict = if d.m_desc_discard() != 0 {
        Verdict::Discard(Discard::ALL[usize::from(d.m_desc_reason())])
    } else if d.m_desc_roce() != 0 {
        Verdict::Roce(Roce {
            csum_ok: d.m_desc_csum_ok() != 0,
            opcode: d.m_desc_opcode(),
            dest_qpn: d.m_desc_dest_qpn(),
            psn: d.m_desc_psn(),
            ack_req: d.m_desc_ack_req() != 0,
            deth: (d.m_desc_deth_valid() != 0).then(|| (d.m_desc_qkey(), d.m_desc_src_qp())),
            reth: (d.m_desc_reth_valid() != 0)
                .then(|| (d.m_desc_va(), d.m_desc_rkey(), d.m_desc_dma_len())),
            imm: (d.m_desc_imm_valid() != 0).then(|| d.m_desc_imm()),
            ipv6: d.m_desc_ipv6() != 0,
            l3_off: usize::from(d.m_desc_l3_off()),
        })
    } else {
        Verdict::Raw {
            csum_ok: d.m_desc_csum_ok() != 0,
        }
    };
    let payload = (!matches!(verdict, Verdict::Discard(_))).then(|| {
        (
            usize::from(d.m_desc_payload_off()),
            usize::from(d.m_desc_payload_len()),
        )
    });
    Desc {
        verdict,
        payload,
        frame_len: usize::from(d.m_desc_frame_len()),
        rss: Rss {
            queue: d.m_desc_queue(),
            hash: d.m_desc_hash(),
            hash_type: d.m_desc_hash_type(),
        },
        addr: usize::from(d.m_desc_addr()),
        beats: usize::from(d.m_desc_beats()),
    }
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// rx_check stopped making progress.
    Hang(Hang),
    /// A descriptor differs from the model's.
    Mismatch {
        /// The frame's index in the run.
        frame: usize,
        /// What the model says.
        expected: Box<Desc>,
        /// What rx_check said.
        observed: Box<Desc>,
    },
    /// Bytes read back through the read port differ from the frame's.
    Bytes {
        /// The frame's index in the run.
        frame: usize,
        /// Which bytes.
        what: String,
    },
    /// A stream rule broken (the message says how).
    Protocol(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Hang(h) => h.fmt(f),
            Error::Mismatch {
                frame,
                expected,
                observed,
            } => write!(
                f,
                "frame {frame}: descriptor\n  expected {expected:?}\n  observed {observed:?}"
            ),
            Error::Bytes { frame, what } => write!(f, "frame {frame}: {what} read back wrong"),
            Error::Protocol(m) => write!(f, "protocol violation: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// How the bench treats rx_check.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability per clock that the source waits before its next beat.
    pub idle: f64,
    /// Probability per clock that the descriptor output is held (`m_desc_ready` low).
    pub stall: f64,
    /// Probability per clock that the data path, free, starts a pause...
    pub pause: f64,
    /// ...of up to this many clocks, reading and releasing nothing.
    pub pause_len: u64,
    /// The seed of all of them.
    pub seed: u64,
}

impl Traffic {
    /// Back-to-back input, descriptors taken at once, no pauses.
    pub const FULL_RATE: Traffic = Traffic {
        idle: 0.0,
        stall: 0.0,
        pause: 0.0,
        pause_len: 0,
        seed: 0,
    };
}

/// What a run measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Descriptors taken (one per frame).
    pub descriptors: usize,
    /// Input beats taken.
    pub in_beats: u64,
    /// Clocks in which the source offered a beat and s_axis_tready was low, after the first
    /// beat went in.
    pub in_stalls: u64,
    /// Clocks from the first beat in to the last descriptor out, both included.
    pub cycles: u64,
    /// Beats read back through the read port.
    pub reads: u64,
    /// Clocks from a frame's last beat in to its descriptor out, the least seen.
    pub latency: u64,
    /// The most frames held at once, from their first beat in to their release.
    pub max_held: usize,
}

/// What the bench's data path reads back for one descriptor and checks.
struct Job {
    frame: usize,
    addr: usize,
    /// Frame-relative beats to read, in order.
    beats: Vec<usize>,
    next: usize,
    /// The beats read, by frame-relative index.
    got: Vec<Option<[u8; BEAT]>>,
    /// (what, frame offset, bytes) to find there.
    checks: Vec<(&'static str, usize, Vec<u8>)>,
    /// The GRH area a UD receive starts with, and where its source lies: (expected, l3, IPv6).
    grh: Option<([u8; GRH_AREA], usize, bool)>,
}

impl Job {
    fn new(index: usize, f: &Frame, d: &Desc) -> Job {
        let mut checks = Vec::new();
        let mut grh = None;
        match classify(&f.bytes) {
            Ok(Incoming::Roce(p)) => {
                if let (Some((off, _)), Verdict::Roce(r)) = (d.payload, &d.verdict) {
                    checks.push(("payload", off, p.payload.to_vec()));
                    grh = Some((p.grh, r.l3_off, r.ipv6));
                }
            }
            Ok(Incoming::Raw { frame, .. }) => checks.push(("raw frame", 0, frame.to_vec())),
            Err(_) => {}
        }
        let mut want = vec![false; d.beats];
        let mut mark = |off: usize, len: usize| {
            for b in off / BEAT..(off + len).div_ceil(BEAT) {
                if let Some(w) = want.get_mut(b) {
                    *w = true;
                }
            }
        };
        for (_, off, bytes) in &checks {
            mark(*off, bytes.len());
        }
        if let Some((_, l3, v6)) = grh {
            mark(l3, if v6 { GRH_AREA } else { GRH_AREA / 2 });
        }
        let beats: Vec<usize> = (0..d.beats).filter(|&b| want[b]).collect();
        Job {
            frame: index,
            addr: d.addr,
            beats,
            next: 0,
            got: vec![None; d.beats],
            checks,
            grh,
        }
    }

    /// The frame's bytes `off..off + len` as read.
    fn bytes(&self, off: usize, len: usize) -> Option<Vec<u8>> {
        (off..off + len)
            .map(|i| self.got.get(i / BEAT)?.map(|b| b[i % BEAT]))
            .collect()
    }

    fn verify(&self) -> Result<(), Error> {
        let wrong = |what: String| Error::Bytes {
            frame: self.frame,
            what,
        };
        for (what, off, want) in &self.checks {
            let got = self.bytes(*off, want.len());
            if got.as_deref() != Some(want.as_slice()) {
                return Err(wrong(format!("{what} ({} bytes at {off})", want.len())));
            }
        }
        if let Some((want, l3, v6)) = self.grh {
            // What the data path writes: the IPv6 header, or 20 zeros and the IPv4 header's 20.
            let area = if v6 {
                self.bytes(l3, GRH_AREA)
            } else {
                self.bytes(l3, GRH_AREA / 2)
                    .map(|h| [vec![0; GRH_AREA / 2], h].concat())
            };
            if area.as_deref() != Some(&want[..]) {
                return Err(wrong("GRH area".into()));
            }
        }
        Ok(())
    }
}

/// A co-simulated rx_check.
pub struct CheckRtl {
    sim: Sim<RxCheck>,
    /// Where the next frame's first beat goes, as the bench counts.
    head: usize,
}

impl CheckRtl {
    /// rx_check out of reset; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        let mut sim: Sim<RxCheck> = Sim::new(run);
        drive(&mut sim.dut, None);
        sim.dut.set_m_desc_ready(0);
        sim.dut.set_release_frame(0);
        sim.reset(4);
        CheckRtl { sim, head: 0 }
    }

    /// Pulses `release_frame` `n` times with no descriptor out, which rx_check must ignore.
    pub fn stray_releases(&mut self, n: usize) {
        for _ in 0..n {
            self.sim.dut.set_release_frame(1);
            self.sim.step();
            self.sim.dut.set_release_frame(0);
            self.sim.step();
        }
    }

    /// The simulation.
    pub fn sim(&mut self) -> &mut Sim<RxCheck> {
        &mut self.sim
    }

    /// Runs `frames` through rx_check and the bench's data path. Every descriptor is compared
    /// with [`expected`] as it is taken, what it points at is read back and compared byte for
    /// byte, and the stream rules are checked every clock: a held descriptor stays as it was,
    /// nothing comes out but one descriptor per frame, and once every frame is released the
    /// input is ready again.
    pub fn run(&mut self, frames: &[Frame], t: Traffic) -> Result<Outcome, Error> {
        let mut source: Source<(Beat, Rss)> = Source::new(t.seed, t.idle);
        let mut total_beats = 0u64;
        for f in frames {
            for b in beats(&f.bytes, BEAT, false) {
                source.push((b, f.rss));
                total_beats += 1;
            }
        }
        let mut sink = Sink::new(t.seed, t.stall);
        let mut rng = crate::stream::rng(t.seed ^ 0x5EED_0003);
        let limit = 40 * total_beats + 2_000 + frames.len() as u64 * t.pause_len;
        let start = self.sim.cycle();
        let mut out = Outcome {
            latency: u64::MAX,
            ..Outcome::default()
        };
        let (mut next, mut ends) = (0usize, VecDeque::new());
        let mut jobs: VecDeque<Job> = VecDeque::new();
        let mut inflight: VecDeque<(u64, usize)> = VecDeque::new();
        let mut held: Option<Desc> = None;
        let (mut first_in, mut last_out, mut paused_until) = (None, 0u64, 0u64);
        let (mut held_frames, mut in_frame) = (0usize, false);
        while next < frames.len() || !jobs.is_empty() {
            let now = self.sim.cycle();
            if now - start > limit {
                return Err(Error::Hang(self.sim.hang("rx_check descriptors")));
            }
            let offer = source.offer().cloned();
            let ready = sink.ready();
            let dut = &mut self.sim.dut;
            drive(dut, offer.as_ref());
            dut.set_m_desc_ready(u8::from(ready));

            // The data path: read results, then the next read or the head frame's release.
            while let Some(&(at, b)) = inflight.front() {
                if now - at < READ_LATENCY {
                    break;
                }
                let v = dut.rd_data();
                jobs[0].got[b] = Some(v.to_le_bytes());
                inflight.pop_front();
            }
            let mut release = false;
            if now >= paused_until {
                if t.pause > 0.0 && rng.gen_bool(t.pause) {
                    paused_until = now + rng.gen_range(1..=t.pause_len);
                } else if let Some(job) = jobs.front_mut() {
                    if job.next < job.beats.len() {
                        let b = job.beats[job.next];
                        dut.set_rd_addr(((job.addr + b) % BUF_BEATS) as u16);
                        inflight.push_back((now, b));
                        job.next += 1;
                        out.reads += 1;
                    } else if inflight.is_empty() {
                        job.verify()?;
                        release = true;
                        jobs.pop_front();
                        held_frames -= 1;
                    }
                }
            }
            dut.set_release_frame(u8::from(release));

            // The descriptor output.
            if dut.m_desc_valid() != 0 {
                let d = observed(dut);
                if let Some(h) = held.take() {
                    if h != d {
                        return Err(Error::Protocol(format!(
                            "cycle {now}: a held descriptor changed"
                        )));
                    }
                }
                if ready {
                    let Some(f) = frames.get(next) else {
                        return Err(Error::Protocol(format!(
                            "cycle {now}: a descriptor after the last frame"
                        )));
                    };
                    let want = expected(f, self.head);
                    if d != want {
                        return Err(Error::Mismatch {
                            frame: next,
                            expected: Box::new(want),
                            observed: Box::new(d),
                        });
                    }
                    if let Some(end) = ends.pop_front() {
                        out.latency = out.latency.min(now - end);
                    }
                    self.head = (self.head + d.beats) % BUF_BEATS;
                    jobs.push_back(Job::new(next, f, &d));
                    next += 1;
                    out.descriptors += 1;
                    last_out = now;
                } else {
                    held = Some(d);
                }
            } else if held.is_some() {
                return Err(Error::Protocol(format!(
                    "cycle {now}: a held descriptor vanished"
                )));
            }

            // The input.
            let taken = dut.s_axis_tready() != 0;
            if offer.is_some() && !taken && first_in.is_some() {
                out.in_stalls += 1;
            }
            if let Some((b, _)) = source.accepted(taken) {
                first_in.get_or_insert(now);
                out.in_beats += 1;
                if !in_frame {
                    held_frames += 1;
                    out.max_held = out.max_held.max(held_frames);
                }
                in_frame = !b.last;
                if b.last {
                    ends.push_back(now);
                }
            }
            self.sim.step();
        }
        if source.remaining() != 0 {
            return Err(Error::Protocol(format!(
                "every descriptor out with {} input beats not taken",
                source.remaining()
            )));
        }
        // Drain: nothing more comes out, and with every frame released the input is ready.
        drive(&mut self.sim.dut, None);
        self.sim.dut.set_m_desc_ready(1);
        self.sim.dut.set_release_frame(0);
        for _ in 0..64 {
            if self.sim.dut.m_desc_valid() != 0 {
                return Err(Error::Protocol("a descriptor after the last frame".into()));
            }
            self.sim.step();
        }
        if self.sim.dut.s_axis_tready() == 0 {
            return Err(Error::Protocol(
                "every frame released, and the input is not ready".into(),
            ));
        }
        out.cycles = first_in.map_or(0, |f| last_out.saturating_sub(f) + 1);
        Ok(out)
    }
}

fn drive(dut: &mut RxCheck, beat: Option<&(Beat, Rss)>) {
    dut.set_s_axis_tvalid(u8::from(beat.is_some()));
    if let Some((b, rss)) = beat {
        let mut lanes = [0u8; BEAT];
        lanes.copy_from_slice(&b.data);
        dut.set_s_axis_tdata(u64::from_le_bytes(lanes));
        dut.set_s_axis_tkeep(keep_mask(b.keep) as u8);
        dut.set_s_axis_tlast(u8::from(b.last));
        // The verdict counts with the last beat only: before it, something else.
        let other = if b.last { 0 } else { !0 };
        dut.set_s_meta_queue(rss.queue ^ other as u16);
        dut.set_s_meta_hash(rss.hash ^ other);
        dut.set_s_meta_hash_type(rss.hash_type ^ (other as u8 & 0x1F));
    }
}
