//! The frame builder (`rtl/wqe/wqe_frame.sv`) driven with packets, and the bytes each must
//! become in the model's terms ([`expected`]): `model::wqe::frame::emit_headers`, the payload,
//! then `pad_payload`, i.e. the frame without its ICRC and minimum-length zeros.

use crate::axis::{bytes_to_u64, bytes_to_words_msb_first, keep_count, keep_mask, u64_to_bytes};
use crate::duts::WqeFramePorts;
use crate::harness::{Hang, Sim};
use crate::stream::{Sink, Source};
use rocenic_model::qp::IpPair;
use rocenic_model::wqe::frame::{emit_headers, header_len, pad_payload, Route, Transport, PKEY};
use std::fmt;

/// Bytes per beat (the RTL's `DATA_BYTES`; 64-bit only).
pub const BEAT: usize = 8;
/// The largest payload a descriptor can announce.
pub const MAX_PAYLOAD: usize = 4096;
/// The largest raw frame (a raw-packet QP's, the port's largest frame).
pub use rocenic_model::wqe::check::MAX_RAW_FRAME;

/// One packet: where it goes, its transport headers and its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Ethernet and IP.
    pub route: Route,
    /// BTH and extension headers.
    pub transport: Transport,
    /// The payload, at most [`MAX_PAYLOAD`] bytes; a raw packet's is the frame.
    pub payload: Vec<u8>,
    /// A raw-packet QP's frame: the payload goes out as it is, route and transport unused.
    pub raw: bool,
}

impl Packet {
    /// A packet with the BTH fields the RTL fixes (M 0, TVer 0, P_Key 0xFFFF, FECN and BECN 0)
    /// and derives (PadCnt from the payload's length) set that way, so that the model's frame
    /// is the one the RTL must build.
    pub fn new(route: Route, mut transport: Transport, payload: Vec<u8>) -> Packet {
        assert!(payload.len() <= MAX_PAYLOAD, "payload over 4096 bytes");
        let b = &mut transport.bth;
        b.migreq = false;
        b.tver = 0;
        b.pkey = PKEY;
        b.fecn = false;
        b.becn = false;
        b.pad_count = pad_of(payload.len());
        Packet {
            route,
            transport,
            payload,
            raw: false,
        }
    }

    /// A raw-packet QP's frame (14 to [`MAX_RAW_FRAME`] bytes), with `route` and `transport` in
    /// the descriptor's other fields, which the RTL must ignore.
    pub fn raw(route: Route, transport: Transport, frame: Vec<u8>) -> Packet {
        assert!(
            (14..=MAX_RAW_FRAME).contains(&frame.len()),
            "a raw frame of {} bytes",
            frame.len()
        );
        Packet {
            raw: true,
            ..Packet::new(route, transport, Vec::new())
        }
        .with_payload(frame)
    }

    fn with_payload(mut self, payload: Vec<u8>) -> Packet {
        self.payload = payload;
        self
    }

    /// Bytes of the frame the RTL sends: headers, payload and pad.
    pub fn frame_len(&self) -> usize {
        expected(self).len()
    }
}

/// Pad bytes after a payload of `len` bytes (the BTH's PadCnt).
pub fn pad_of(len: usize) -> u8 {
    (len.wrapping_neg() & 3) as u8
}

/// The frame the RTL must send for `p`: the model's headers, the payload, the pad (a raw
/// packet: the payload alone).
pub fn expected(p: &Packet) -> Vec<u8> {
    if p.raw {
        return p.payload.clone();
    }
    let len = p.payload.len();
    // Headers, payload and pad; a descriptor may ask for a RETH and a DETH together, which
    // model packets never have (so MAX_FRAME does not count them).
    let mut buf = vec![0u8; header_len(&p.route, &p.transport) + len + 3];
    let hl = emit_headers(&p.route, &p.transport, len, &mut buf).expect("headers of a packet");
    buf[hl..hl + len].copy_from_slice(&p.payload);
    let n = pad_payload(&mut buf, hl, len, p.transport.bth.pad_count).expect("sized for it");
    buf.truncate(n);
    buf
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

/// How the stimulus treats the unit.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability per cycle that the descriptor source waits before its next descriptor.
    pub desc_idle: f64,
    /// Probability per cycle that the payload source waits before its next beat.
    pub idle: f64,
    /// Probability per cycle that the frame sink holds `ready` low.
    pub stall: f64,
    /// The seed of all three.
    pub seed: u64,
}

impl Traffic {
    /// Back-to-back input and an always-ready sink.
    pub const FULL_RATE: Traffic = Traffic {
        desc_idle: 0.0,
        idle: 0.0,
        stall: 0.0,
        seed: 0,
    };
}

/// One frame as it came out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Its bytes (tkeep's).
    pub bytes: Vec<u8>,
    /// `tuser[0]` (the 802.1Q flag), the same on every beat.
    pub user: bool,
    /// `tuser[1]` (a raw frame), the same on every beat.
    pub raw: bool,
}

/// What a run produced and measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Every frame, in order.
    pub frames: Vec<Frame>,
    /// Frame beats handed over.
    pub out_beats: u64,
    /// Cycles from the first to the last frame beat handshake, both included.
    pub out_span: u64,
    /// Cycles from the first descriptor handshake to the first frame beat handshake.
    pub latency: u64,
}

impl Outcome {
    /// Frame beats per cycle between the first and the last frame beat.
    pub fn beats_per_cycle(&self) -> f64 {
        if self.out_span == 0 {
            0.0
        } else {
            self.out_beats as f64 / self.out_span as f64
        }
    }
}

/// A payload beat as the source holds it.
#[derive(Clone, Copy, Debug)]
struct InBeat {
    data: u64,
    keep: usize,
    last: bool,
}

/// An output beat on offer: data, tkeep, tlast, tuser.
type OutBeat = (u64, u8, bool, u8);

fn drive_desc<D: WqeFramePorts>(dut: &mut D, p: Option<&Packet>) {
    dut.set_s_desc_valid(p.is_some());
    let Some(p) = p else { return };
    let r = &p.route;
    let (vid, pcp) = r.vlan.unwrap_or((0, 0));
    dut.set_s_desc_vlan_en(r.vlan.is_some());
    dut.set_s_desc_vid(vid);
    dut.set_s_desc_pcp(pcp);
    let (v6, src, dst) = match r.ip {
        IpPair::V4 { src, dst } => {
            let mut s = [0u8; 16];
            let mut d = [0u8; 16];
            s[12..].copy_from_slice(&src.0);
            d[12..].copy_from_slice(&dst.0);
            (false, s, d)
        }
        IpPair::V6 { src, dst } => (true, src.0, dst.0),
    };
    dut.set_s_desc_ipv6(v6);
    let mut w = [0u32; 4];
    bytes_to_words_msb_first(&src, 16, &mut w);
    dut.set_s_desc_src_ip(w);
    bytes_to_words_msb_first(&dst, 16, &mut w);
    dut.set_s_desc_dst_ip(w);
    let mac = |m: [u8; 6]| m.iter().fold(0u64, |v, &b| v << 8 | u64::from(b));
    dut.set_s_desc_src_mac(mac(r.src_mac.0));
    dut.set_s_desc_dst_mac(mac(r.dst_mac.0));
    dut.set_s_desc_tclass(r.traffic_class);
    dut.set_s_desc_hop_limit(r.hop_limit);
    dut.set_s_desc_flow_label(r.flow_label);
    dut.set_s_desc_udp_sport(r.udp_sport);
    let t = &p.transport;
    dut.set_s_desc_opcode(t.bth.opcode);
    dut.set_s_desc_se(t.bth.solicited);
    dut.set_s_desc_dest_qpn(t.bth.dest_qpn);
    dut.set_s_desc_ack_req(t.bth.ack_req);
    dut.set_s_desc_psn(t.bth.psn);
    let (va, rkey, dma_len) = t.reth.map_or((0, 0, 0), |r| (r.va, r.rkey, r.dma_len));
    dut.set_s_desc_reth_en(t.reth.is_some());
    dut.set_s_desc_va(va);
    dut.set_s_desc_rkey(rkey);
    dut.set_s_desc_dma_len(dma_len);
    let (qkey, src_qpn) = t.deth.map_or((0, 0), |d| (d.qkey, d.src_qpn));
    dut.set_s_desc_deth_en(t.deth.is_some());
    dut.set_s_desc_qkey(qkey);
    dut.set_s_desc_src_qpn(src_qpn);
    dut.set_s_desc_imm_en(t.imm.is_some());
    dut.set_s_desc_imm(t.imm.unwrap_or(0));
    dut.set_s_desc_payload_len(p.payload.len() as u16);
    dut.set_s_desc_raw(p.raw);
}

fn drive_data<D: WqeFramePorts>(dut: &mut D, b: Option<InBeat>) {
    dut.set_s_axis_tvalid(b.is_some());
    if let Some(b) = b {
        dut.set_s_axis_tdata(b.data);
        dut.set_s_axis_tkeep(keep_mask(b.keep) as u8);
        dut.set_s_axis_tlast(b.last);
    }
}

fn out_beat<D: WqeFramePorts>(dut: &D) -> Option<OutBeat> {
    dut.m_axis_tvalid().then(|| {
        (
            dut.m_axis_tdata(),
            dut.m_axis_tkeep(),
            dut.m_axis_tlast(),
            dut.m_axis_tuser(),
        )
    })
}

/// A co-simulated frame builder.
pub struct FrameRtl<D: WqeFramePorts> {
    sim: Sim<D>,
}

impl<D: WqeFramePorts> FrameRtl<D> {
    /// A unit out of reset; `run` names its VCD when `ROCENIC_VCD` is set.
    pub fn new(run: &str) -> Self {
        assert_eq!(D::S_AXIS_TDATA_BITS as usize, 8 * BEAT);
        let mut sim: Sim<D> = Sim::new(run);
        drive_desc(&mut sim.dut, None);
        drive_data(&mut sim.dut, None);
        sim.dut.set_m_axis_tready(false);
        sim.reset(4);
        FrameRtl { sim }
    }

    /// The simulation.
    pub fn sim(&mut self) -> &mut Sim<D> {
        &mut self.sim
    }

    /// Runs `packets` through the unit. Checks on every cycle that a stalled frame beat stays
    /// valid and unchanged, that tkeep is contiguous from lane 0 and full but on tlast, that
    /// tuser holds through a frame, and that nothing comes out after the last frame.
    pub fn run(&mut self, packets: &[Packet], traffic: Traffic) -> Result<Outcome, Error> {
        let mut desc_src: Source<usize> = Source::new(traffic.seed, traffic.desc_idle);
        let mut data_src: Source<InBeat> = Source::new(traffic.seed ^ 0xDA7A, traffic.idle);
        let mut bound = 1_000u64;
        for (i, p) in packets.iter().enumerate() {
            desc_src.push(i);
            let n = p.payload.len().div_ceil(BEAT);
            for (k, chunk) in p.payload.chunks(BEAT).enumerate() {
                data_src.push(InBeat {
                    data: bytes_to_u64(chunk),
                    keep: chunk.len(),
                    last: k + 1 == n,
                });
            }
            bound += (p.payload.len() + 120).div_ceil(BEAT) as u64 + 4;
        }
        // Random gaps and stalls can make a run several times slower than full rate.
        let limit = 20 * bound;
        let mut sink = Sink::new(traffic.seed, traffic.stall);
        let start = self.sim.cycle();
        let mut out = Outcome::default();
        let mut current = Frame::default();
        let mut held: Option<OutBeat> = None;
        let (mut first_in, mut first_out, mut last_out) = (None, None, 0u64);
        let mut lanes = [0u8; BEAT];
        while out.frames.len() < packets.len() {
            let now = self.sim.cycle();
            if now - start > limit {
                return Err(Error::Hang(self.sim.hang("frames")));
            }
            let d = desc_src.offer().copied();
            let b = data_src.offer().copied();
            let ready = sink.ready();
            let dut = &mut self.sim.dut;
            drive_desc(dut, d.map(|i| &packets[i]));
            drive_data(dut, b);
            dut.set_m_axis_tready(ready);
            let beat = out_beat(dut);
            if let Some(prev) = held.take() {
                if beat != Some(prev) {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: a frame beat changed or vanished while stalled"
                    )));
                }
            }
            if let Some(o @ (data, keep, last, user)) = beat {
                let n = keep_count(u64::from(keep), BEAT).filter(|&n| n > 0);
                let Some(n) = n.filter(|&n| last || n == BEAT) else {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: tkeep {keep:#04x} with tlast {last}"
                    )));
                };
                let (tag, raw) = (user & 1 != 0, user & 2 != 0);
                if !current.bytes.is_empty() && (tag != current.user || raw != current.raw) {
                    return Err(Error::Protocol(format!(
                        "cycle {now}: tuser changed inside frame {}",
                        out.frames.len()
                    )));
                }
                if ready {
                    first_out.get_or_insert(now);
                    last_out = now;
                    out.out_beats += 1;
                    u64_to_bytes(data, &mut lanes);
                    current.user = tag;
                    current.raw = raw;
                    current.bytes.extend_from_slice(&lanes[..n]);
                    if last {
                        out.frames.push(std::mem::take(&mut current));
                    }
                } else {
                    held = Some(o);
                }
            }
            let (desc_ready, data_ready) = (dut.s_desc_ready(), dut.s_axis_tready());
            if desc_src.accepted(desc_ready).is_some() {
                first_in.get_or_insert(now);
            }
            data_src.accepted(data_ready);
            self.sim.step();
        }
        if data_src.remaining() != 0 || desc_src.remaining() != 0 {
            return Err(Error::Protocol(format!(
                "all frames out with {} payload beats and {} descriptors not taken",
                data_src.remaining(),
                desc_src.remaining()
            )));
        }
        // Drain: nothing more may come out.
        drive_desc(&mut self.sim.dut, None);
        drive_data(&mut self.sim.dut, None);
        self.sim.dut.set_m_axis_tready(true);
        for _ in 0..32 {
            if self.sim.dut.m_axis_tvalid() {
                return Err(Error::Protocol("a beat after the last frame".into()));
            }
            self.sim.step();
        }
        if let Some(f) = first_out {
            out.out_span = last_out - f + 1;
            out.latency = f - first_in.unwrap_or(f);
        }
        Ok(out)
    }
}

/// The 64-bit unit.
pub type WqeFrameRtl = FrameRtl<crate::duts::WqeFrame>;
