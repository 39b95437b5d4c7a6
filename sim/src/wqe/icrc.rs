//! The WQE engine's ICRC stage (`rtl/wqe/wqe_icrc.sv`) driven with frames, and what it must
//! send for each one in the model's terms ([`expected`]: `model::wire::icrc_append`).
//!
//! The tests and the throughput figures share this driver.

pub use crate::axis::{beats, Beat};

use crate::axis::{keep_count, keep_mask};
use crate::duts::{WqeIcrc512, WqeIcrc64, WqeIcrcPorts};
use crate::harness::{Hang, Sim};
use crate::stream::{Sink, Source};
use rocenic_model::wire::ethernet::{HEADER_LEN, TAGGED_HEADER_LEN};
use rocenic_model::wire::{icrc_append, Error as WireError, ICRC_LEN, MIN_FRAME};
use std::fmt;

/// A frame as the engine hands it to the stage: complete but for the ICRC and the padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Ethernet header to the last pad byte.
    pub bytes: Vec<u8>,
    /// It carries an 802.1Q tag (`s_axis_tuser[0]`): its IP header starts at byte 18, else 14.
    pub vlan: bool,
    /// A raw-packet QP's frame (`s_axis_tuser[1]`): padded to 60 bytes, no ICRC.
    pub raw: bool,
}

impl Frame {
    /// Offset of the IP header.
    pub fn l3(&self) -> usize {
        if self.vlan {
            TAGGED_HEADER_LEN
        } else {
            HEADER_LEN
        }
    }

    /// Its beats on a path of `lanes` bytes, the tag bit in tuser (the stage reads the first).
    pub fn beats(&self, lanes: usize) -> Vec<Beat> {
        beats(&self.bytes, lanes, self.vlan)
    }

    /// `s_axis_tuser`: the tag and the raw bit.
    pub fn user(&self) -> u8 {
        u8::from(self.vlan) | u8::from(self.raw) << 1
    }
}

/// What the stage must send for `frame`: the bytes, the ICRC, zeros up to 60 bytes (a raw
/// frame: the bytes and the zeros only).
pub fn expected(frame: &Frame) -> Result<Vec<u8>, WireError> {
    let n = frame.bytes.len();
    let mut out = frame.bytes.clone();
    if frame.raw {
        out.resize(n.max(MIN_FRAME), 0);
        return Ok(out);
    }
    out.resize((n + ICRC_LEN).max(MIN_FRAME), 0);
    let len = icrc_append(&mut out, n, frame.l3())?;
    out.truncate(len);
    Ok(out)
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The stage stopped making progress.
    Hang(Hang),
    /// The stage broke the stream protocol (the message says how).
    Protocol(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Hang(h) => h.fmt(f),
            Error::Protocol(m) => write!(f, "protocol violation: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// How the stimulus treats the stage.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability per cycle that the source waits before its next beat.
    pub idle: f64,
    /// Probability per cycle that the sink holds `m_axis_tready` low.
    pub stall: f64,
    /// The seed of both.
    pub seed: u64,
}

impl Traffic {
    /// Back-to-back input and an always-ready sink.
    pub const FULL_RATE: Traffic = Traffic {
        idle: 0.0,
        stall: 0.0,
        seed: 0,
    };
}

/// What a run produced and measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Every frame that came out, in order.
    pub frames: Vec<Vec<u8>>,
    /// Input beats taken.
    pub in_beats: u64,
    /// Output beats handed over.
    pub out_beats: u64,
    /// Cycles from the first input handshake on in which the source offered a beat and
    /// `s_axis_tready` was low (before it, the output slice's ready is still rising from reset).
    pub in_stalls: u64,
    /// Cycles from the first to the last output handshake, both included.
    pub out_span: u64,
    /// Cycles from the first input handshake to the last output handshake, both included.
    pub total_cycles: u64,
    /// Cycles from the first input handshake to the first output beat's.
    pub latency: u64,
}

impl Outcome {
    /// Output beats per cycle between the first and the last output beat.
    pub fn out_rate(&self) -> f64 {
        if self.out_span == 0 {
            0.0
        } else {
            self.out_beats as f64 / self.out_span as f64
        }
    }
}

/// Bytes per beat of a stage DUT.
pub fn beat_bytes<D: WqeIcrcPorts>() -> usize {
    D::S_AXIS_TDATA_BITS as usize / 8
}

/// A beat and its frame's `tuser`.
type InBeat = (Beat, u8);

fn drive_in<D: WqeIcrcPorts>(dut: &mut D, beat: Option<&InBeat>) {
    dut.set_s_axis_tvalid(beat.is_some());
    if let Some((b, user)) = beat {
        dut.write_s_axis_tdata(&b.data);
        dut.set_s_axis_tkeep(keep_mask(b.keep));
        dut.set_s_axis_tlast(b.last);
        dut.set_s_axis_tuser(*user);
    }
}

/// The output beat on offer: its valid bytes and tlast, or why its tkeep is illegal.
fn out_beat<D: WqeIcrcPorts>(dut: &D) -> Option<Result<(Vec<u8>, bool), String>> {
    if !dut.m_axis_tvalid() {
        return None;
    }
    let w = beat_bytes::<D>();
    let (keep, last) = (dut.m_axis_tkeep(), dut.m_axis_tlast());
    let Some(n) = keep_count(keep, w) else {
        return Some(Err(format!(
            "tkeep {keep:#x} is not contiguous from lane 0"
        )));
    };
    if n == 0 || (!last && n != w) {
        return Some(Err(format!("beat with {n} bytes (tlast {last})")));
    }
    let mut lanes = vec![0u8; w];
    dut.read_m_axis_tdata(&mut lanes);
    lanes.truncate(n);
    Some(Ok((lanes, last)))
}

/// A co-simulated stage of either width.
pub struct IcrcRtl<D: WqeIcrcPorts> {
    sim: Sim<D>,
}

impl<D: WqeIcrcPorts> IcrcRtl<D> {
    /// A stage out of reset; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        drive_in(&mut sim.dut, None);
        sim.dut.set_m_axis_tready(false);
        sim.reset(4);
        IcrcRtl { sim }
    }

    /// The simulation.
    pub fn sim(&mut self) -> &mut Sim<D> {
        &mut self.sim
    }

    /// Runs `frames` through the stage. Checks on every cycle that a stalled output beat stays
    /// valid and unchanged and that its tkeep is legal (contiguous from lane 0, not empty, full
    /// but on tlast), and afterwards that nothing more comes out.
    pub fn run(&mut self, frames: &[Frame], traffic: Traffic) -> Result<Outcome, Error> {
        let w = beat_bytes::<D>();
        let mut source: Source<InBeat> = Source::new(traffic.seed, traffic.idle);
        let mut bound = 1_000u64;
        for f in frames {
            let bs = f.beats(w);
            bound += bs.len() as u64 + (MIN_FRAME / w) as u64 + 2;
            for b in bs {
                source.push((b, f.user()));
            }
        }
        // Random gaps and stalls together can make a run several times slower than full rate.
        let limit = 20 * bound;
        let mut sink = Sink::new(traffic.seed, traffic.stall);
        let start = self.sim.cycle();
        let mut out = Outcome::default();
        let mut current: Vec<u8> = Vec::new();
        let mut held: Option<(Vec<u8>, bool)> = None;
        let (mut first_in, mut first_out, mut last_out) = (None, None, 0u64);
        while out.frames.len() < frames.len() {
            let now = self.sim.cycle();
            if now - start > limit {
                return Err(Error::Hang(self.sim.hang("ICRC frames")));
            }
            let offer = source.offer().cloned();
            let ready = sink.ready();
            let dut = &mut self.sim.dut;
            drive_in(dut, offer.as_ref());
            dut.set_m_axis_tready(ready);
            let beat = match out_beat(dut) {
                Some(Err(e)) => return Err(Error::Protocol(format!("cycle {now}: {e}"))),
                Some(Ok(b)) => Some(b),
                None => None,
            };
            if let Some(prev) = held.take() {
                if beat.as_ref() != Some(&prev) {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: an output beat changed or vanished while stalled"
                    )));
                }
            }
            if let Some((bytes, last)) = beat {
                if ready {
                    first_out.get_or_insert(now);
                    last_out = now;
                    out.out_beats += 1;
                    current.extend_from_slice(&bytes);
                    if last {
                        out.frames.push(std::mem::take(&mut current));
                    }
                } else {
                    held = Some((bytes, last));
                }
            }
            let taken = dut.s_axis_tready();
            if offer.is_some() && !taken && first_in.is_some() {
                out.in_stalls += 1;
            }
            if source.accepted(taken).is_some() {
                first_in.get_or_insert(now);
                out.in_beats += 1;
            }
            self.sim.step();
        }
        if source.remaining() != 0 {
            return Err(Error::Protocol(format!(
                "all frames out with {} input beats not taken",
                source.remaining()
            )));
        }
        // Drain: nothing more may come out.
        drive_in(&mut self.sim.dut, None);
        self.sim.dut.set_m_axis_tready(true);
        for _ in 0..32 {
            if self.sim.dut.m_axis_tvalid() {
                return Err(Error::Protocol("output after the last frame".into()));
            }
            self.sim.step();
        }
        if !current.is_empty() {
            return Err(Error::Protocol("output beats without tlast".into()));
        }
        if let Some(f) = first_out {
            out.out_span = last_out - f + 1;
            out.latency = f - first_in.unwrap_or(f);
        }
        out.total_cycles = first_in.map_or(0, |f| last_out.saturating_sub(f) + 1);
        Ok(out)
    }
}

/// The 64-bit stage.
pub type Icrc64Rtl = IcrcRtl<WqeIcrc64>;
/// The 512-bit stage.
pub type Icrc512Rtl = IcrcRtl<WqeIcrc512>;
