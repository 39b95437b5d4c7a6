//! The TSO segmenter (`rtl/tso/tso_segmenter.sv`) driven with sends, and what it must do with
//! each one in the model's terms ([`expected`]).
//!
//! The tests, the efficiency bench and `rocenic tso --engine rtl` share this driver.

pub use crate::axis::{beats, Beat};
/// What the status port reports for a send (`m_sts_error`): the model's codes.
pub use rocenic_model::tso::Status;

use crate::axis::{keep_count, keep_mask};
use crate::duts::{Tso512, Tso64, TsoSegmenterPorts};
use crate::harness::{Hang, Sim};
use crate::stream::{Sink, Source};
use rocenic_model::tso::{Error as ModelError, HeaderLayout, Limits, Segmenter};
use rocenic_model::wire::LinkType;
use std::fmt;

/// One send as the host posts it: a descriptor and the bytes of the data stream (header then
/// payload). For a well-formed send `data.len() == hdr_len + len` and `break_at` is `None`; the
/// error tests break that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Send {
    /// Link header type.
    pub link: LinkType,
    /// Header template length, bytes.
    pub hdr_len: u16,
    /// MSS, bytes.
    pub mss: u16,
    /// Announced payload length, bytes.
    pub len: u32,
    /// What goes down the data stream.
    pub data: Vec<u8>,
    /// `Some(b)` (with `b < data.len()`): the beat that would hold data byte `b` ends before it
    /// (with the bytes from its start up to `b - 1`, possibly none), and the next beat starts
    /// with byte `b`: a partial beat that is not the stream's last, which the input rule forbids.
    pub break_at: Option<usize>,
}

impl Send {
    /// A consistent send: the descriptor says exactly what the data holds.
    pub fn new(link: LinkType, header: &[u8], payload: &[u8], mss: u16) -> Send {
        Send {
            link,
            hdr_len: header.len() as u16,
            mss,
            len: payload.len() as u32,
            data: [header, payload].concat(),
            break_at: None,
        }
    }

    /// Where the data stream is broken by a partial beat, if `break_at` lies inside the data.
    pub fn broken(&self) -> Option<usize> {
        self.break_at.filter(|&b| b < self.data.len())
    }

    /// The data stream's beats on a path of `beat_bytes` (see [`beats`] and `break_at`).
    pub fn beats(&self, beat_bytes: usize) -> Vec<Beat> {
        match self.broken() {
            Some(b) => {
                // Whole beats up to the partial one, none of them last.
                let k = b / beat_bytes * beat_bytes;
                let mut v = if k == 0 {
                    Vec::new()
                } else {
                    beats(&self.data[..k], beat_bytes, false)
                };
                v.extend(beats(&self.data[k..b], beat_bytes, false));
                for beat in &mut v {
                    beat.last = false;
                }
                v.extend(beats(&self.data[b..], beat_bytes, false));
                v
            }
            None => beats(&self.data, beat_bytes, false),
        }
    }

    /// A whole oversized frame, split where its TCP header ends (as a host driver does).
    pub fn from_frame(link: LinkType, frame: &[u8], mss: u16) -> Result<Send, ModelError> {
        let layout = HeaderLayout::parse(link, frame)?;
        let (header, payload) = frame.split_at(layout.header_len);
        Ok(Send::new(link, header, payload, mss))
    }
}

/// What the RTL must do with `send` on a data path of `beat_bytes`: its status and the segments
/// it sends, each `Segmenter::write_segment` of the announced send.
///
/// Descriptor checks come first (MSS 0, header, payload length), then a stream that ends inside
/// the header (Short), then the template checks, then the stream length. A length mismatch shows
/// on one beat: the one holding the stream's last byte (Short) or the announced last byte (Long);
/// segments whose last byte came on an earlier beat are sent, the rest are not.
///
/// A partial beat that is not the last (`break_at`) counts as the stream's end: Short if it
/// comes before the beat of the announced last byte (before or inside the template's last
/// beat: before the template checks too), Long if on or after it, where the payload
/// announced is over (a longer stream); segments whose last byte came on an earlier beat are
/// sent.
pub fn expected(send: &Send, beat_bytes: usize, limits: Limits) -> (Status, Vec<Vec<u8>>) {
    let h = usize::from(send.hdr_len);
    let l = send.len as usize;
    let mss = usize::from(send.mss);
    let have = send.data.len();
    // Missing bytes read as zeros: they only matter for checks that the mismatch rules
    // override.
    let mut header = send.data[..h.min(have)].to_vec();
    header.resize(h, 0);
    let mut payload = send.data.get(h..).unwrap_or(&[]).to_vec();
    payload.resize(l.min(limits.max_tso + 1), 0);
    let checked = Segmenter::new(send.link, &header, &payload, mss, limits);
    if let Err(
        e @ (ModelError::MssZero
        | ModelError::HeaderTooLong { .. }
        | ModelError::PayloadTooLong { .. }),
    ) = checked
    {
        return (Status::from_error(&e), Vec::new());
    }
    let broken = send.broken();
    if have < h || broken.is_some_and(|b| b < h) {
        return (Status::Short, Vec::new());
    }
    let s = match checked {
        Ok(s) => s,
        Err(e) => return (Status::from_error(&e), Vec::new()),
    };
    let p = have - h;
    let n = s.segment_count();
    // Segments whose last byte comes before beat `bad_beat`.
    let sent_before = |bad_beat: usize| {
        (0..n)
            .take_while(|&i| (h + ((i + 1) * mss).min(l)).saturating_sub(1) / beat_bytes < bad_beat)
            .count()
    };
    let (status, sent) = if let Some(b) = broken {
        // The template is whole (b >= h); the RTL takes the partial beat k as a full one.
        let k = b / beat_bytes;
        let last = (h + l).saturating_sub(1) / beat_bytes;
        if l > 0 && k < last {
            (Status::Short, sent_before(k))
        } else {
            (Status::Long, sent_before(k.min(last)))
        }
    } else if p == l {
        (Status::Ok, n)
    } else {
        // h > 0: a template that parsed is at least 44 bytes.
        let bad_beat = (h + p.min(l) - 1) / beat_bytes;
        (
            if p < l { Status::Short } else { Status::Long },
            sent_before(bad_beat),
        )
    };
    let segments = (0..sent)
        .map(|i| {
            let len = s.segment_len(i).expect("a segment of a checked send");
            let mut buf = vec![0u8; len];
            s.write_segment(i, &mut buf)
                .expect("a segment of a checked send");
            buf
        })
        .collect();
    (status, segments)
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The unit stopped making progress.
    Hang(Hang),
    /// The unit broke the stream protocol (the message says how).
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

/// Bytes per beat of a segmenter DUT (its data path width).
pub fn beat_bytes<D: TsoSegmenterPorts>() -> usize {
    D::S_AXIS_TDATA_BITS as usize / 8
}

fn drive_desc<D: TsoSegmenterPorts>(dut: &mut D, desc: Option<&Send>) {
    dut.set_s_desc_valid(desc.is_some());
    if let Some(d) = desc {
        dut.set_s_desc_hdr_len(d.hdr_len);
        dut.set_s_desc_mss(d.mss);
        dut.set_s_desc_len(d.len);
        dut.set_s_desc_ipoib(d.link == LinkType::Ipoib);
    }
}

fn drive_data<D: TsoSegmenterPorts>(dut: &mut D, beat: Option<&Beat>) {
    dut.set_s_axis_tvalid(beat.is_some());
    if let Some(b) = beat {
        dut.write_s_axis_tdata(&b.data);
        dut.set_s_axis_tkeep(keep_mask(b.keep));
        dut.set_s_axis_tlast(b.last);
    }
}

/// The segment beat on offer: its valid bytes and tlast. A tkeep that is not contiguous comes
/// back as one byte too many, which the run reports.
fn seg_beat<D: TsoSegmenterPorts>(dut: &D) -> Option<(Vec<u8>, bool)> {
    if !dut.m_axis_tvalid() {
        return None;
    }
    let w = beat_bytes::<D>();
    let Some(n) = keep_count(dut.m_axis_tkeep(), w) else {
        return Some((vec![0; w + 1], true));
    };
    let mut lanes = vec![0u8; w];
    dut.read_m_axis_tdata(&mut lanes);
    lanes.truncate(n);
    Some((lanes, dut.m_axis_tlast()))
}

/// The status on offer: code and segment count.
fn status<D: TsoSegmenterPorts>(dut: &D) -> Option<(u8, u32)> {
    dut.m_sts_valid()
        .then(|| (dut.m_sts_error(), dut.m_sts_segments()))
}

/// How the stimulus treats the unit.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability per cycle that a source (descriptor or data) waits before its next item.
    pub idle: f64,
    /// Probability per cycle that a sink (segments or status) holds `ready` low.
    pub stall: f64,
    /// The seed of all four.
    pub seed: u64,
}

impl Traffic {
    /// Back-to-back input and always-ready sinks.
    pub const FULL_RATE: Traffic = Traffic {
        idle: 0.0,
        stall: 0.0,
        seed: 0,
    };
}

/// What a run produced and measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// One (status, segments sent) per send, in order.
    pub statuses: Vec<(Status, u32)>,
    /// Every segment, in order.
    pub segments: Vec<Vec<u8>>,
    /// Segment beats handed over.
    pub out_beats: u64,
    /// Cycles from the first to the last segment beat handshake, both included.
    pub out_span: u64,
    /// Cycles from the first input handshake to the last output handshake, both included.
    pub total_cycles: u64,
}

impl Outcome {
    /// Segment beats per cycle between the first and the last segment beat.
    pub fn efficiency(&self) -> f64 {
        if self.out_span == 0 {
            0.0
        } else {
            self.out_beats as f64 / self.out_span as f64
        }
    }
}

/// A co-simulated segmenter of either width.
pub struct TsoRtl<D: TsoSegmenterPorts> {
    sim: Sim<D>,
}

impl<D: TsoSegmenterPorts> TsoRtl<D> {
    /// A unit out of reset; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        let mut sim: Sim<D> = Sim::new(run);
        drive_desc(&mut sim.dut, None);
        drive_data(&mut sim.dut, None);
        sim.dut.set_m_axis_tready(false);
        sim.dut.set_m_sts_ready(false);
        sim.reset(4);
        TsoRtl { sim }
    }

    /// The simulation.
    pub fn sim(&mut self) -> &mut Sim<D> {
        &mut self.sim
    }

    /// Runs `sends` through the unit. Checks on every cycle that a stalled segment beat or
    /// status stays valid and unchanged, that tkeep is contiguous and full but on tlast, and
    /// that nothing comes out after the last status.
    pub fn run(&mut self, sends: &[Send], traffic: Traffic) -> Result<Outcome, Error> {
        let w = beat_bytes::<D>();
        let mut desc_src: Source<Send> = Source::new(traffic.seed, traffic.idle);
        let mut data_src: Source<Beat> = Source::new(traffic.seed ^ 0xDA7A, traffic.idle);
        let mut bound = 10_000u64;
        for s in sends {
            desc_src.push(s.clone());
            let bs = s.beats(w);
            bound += bs.len() as u64;
            for b in bs {
                data_src.push(b);
            }
            let mss = usize::from(s.mss.max(1));
            let segs = (s.len as usize).div_ceil(mss).max(1) as u64;
            let seg_beats = (usize::from(s.hdr_len) + mss.min(s.len as usize)).div_ceil(w) as u64;
            bound += segs * (seg_beats + 4) + 20;
        }
        // Random stalls on both sides can make a run several times slower than full rate.
        let limit = 20 * bound;
        let mut seg_sink = Sink::new(traffic.seed, traffic.stall);
        let mut sts_sink = Sink::new(traffic.seed ^ 0x5757, traffic.stall);
        let start = self.sim.cycle();
        let mut out = Outcome::default();
        let mut current: Vec<u8> = Vec::new();
        let mut held_seg: Option<(Vec<u8>, bool)> = None;
        let mut held_sts: Option<(u8, u32)> = None;
        let (mut first_in, mut first_out, mut last_out) = (None, None, 0u64);
        let mut announced = 0u64;
        loop {
            let done = out.statuses.len() == sends.len() && out.segments.len() as u64 == announced;
            if done {
                break;
            }
            let now = self.sim.cycle();
            if now - start > limit {
                return Err(Error::Hang(self.sim.hang("TSO sends")));
            }
            let d = desc_src.offer().cloned();
            let b = data_src.offer().cloned();
            let (seg_ready, sts_ready) = (seg_sink.ready(), sts_sink.ready());
            let dut = &mut self.sim.dut;
            drive_desc(dut, d.as_ref());
            drive_data(dut, b.as_ref());
            dut.set_m_axis_tready(seg_ready);
            dut.set_m_sts_ready(sts_ready);
            let seg = seg_beat(dut);
            let sts = status(dut);
            if let Some(prev) = held_seg.take() {
                if seg.as_ref() != Some(&prev) {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: a segment beat changed or vanished while stalled"
                    )));
                }
            }
            if let Some(prev) = held_sts.take() {
                if sts != Some(prev) {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: a status changed or vanished while stalled"
                    )));
                }
            }
            if let Some((bytes, last)) = seg {
                if bytes.len() > w || (!last && bytes.len() != w) || bytes.is_empty() {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: segment beat with {} bytes (tlast {last})",
                        bytes.len().min(w + 1)
                    )));
                }
                if seg_ready {
                    first_out.get_or_insert(now);
                    last_out = now;
                    out.out_beats += 1;
                    current.extend_from_slice(&bytes);
                    if last {
                        out.segments.push(std::mem::take(&mut current));
                    }
                } else {
                    held_seg = Some((bytes, last));
                }
            }
            if let Some((code, n)) = sts {
                if sts_ready {
                    out.statuses.push((Status::from_code(code), n));
                    announced += u64::from(n);
                    last_out = last_out.max(now);
                    if out.statuses.len() > sends.len() {
                        return Err(Error::Protocol(format!(
                            "cycle {now}: more statuses than sends"
                        )));
                    }
                } else {
                    held_sts = Some((code, n));
                }
            }
            let (desc_ready, data_ready) = (dut.s_desc_ready(), dut.s_axis_tready());
            if desc_src.accepted(desc_ready).is_some() {
                first_in.get_or_insert(now);
            }
            if data_src.accepted(data_ready).is_some() {
                first_in.get_or_insert(now);
            }
            if out.segments.len() as u64 > announced + 2 && out.statuses.len() == sends.len() {
                return Err(Error::Protocol(
                    "more segments than the statuses count".into(),
                ));
            }
            self.sim.step();
        }
        if data_src.remaining() != 0 || desc_src.remaining() != 0 {
            return Err(Error::Protocol(format!(
                "all statuses out with {} beats and {} descriptors not taken",
                data_src.remaining(),
                desc_src.remaining()
            )));
        }
        // Drain: nothing more may come out.
        drive_desc(&mut self.sim.dut, None);
        drive_data(&mut self.sim.dut, None);
        self.sim.dut.set_m_axis_tready(true);
        self.sim.dut.set_m_sts_ready(true);
        for _ in 0..32 {
            if seg_beat(&self.sim.dut).is_some() || status(&self.sim.dut).is_some() {
                return Err(Error::Protocol(
                    "output beyond what the statuses announce".into(),
                ));
            }
            self.sim.step();
        }
        if !current.is_empty() {
            return Err(Error::Protocol("a segment without tlast".into()));
        }
        if let Some(f) = first_out {
            out.out_span = last_out - f + 1;
        }
        out.total_cycles = first_in.map_or(0, |f| last_out.saturating_sub(f) + 1);
        Ok(out)
    }
}

/// The 64-bit unit.
pub type Tso64Rtl = TsoRtl<Tso64>;
/// The 512-bit unit.
pub type Tso512Rtl = TsoRtl<Tso512>;
