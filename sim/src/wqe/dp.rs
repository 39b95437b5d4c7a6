//! The WQE engine's data path (`rtl/wqe/wqe_dp.sv`) run against the model's send engine.
//!
//! The bench plays the parts around the data path as the engine's other blocks will: the
//! control plane (picks in the model's round-robin order, PSNs, the QPs' error state, the
//! completion ring's producer), the memory-region check (the model's `MrTable::check`, in
//! order, after a random delay), host memory ([`DmaHost`]) and the frame builder (each
//! descriptor and its payload turned into a frame by `model::wqe::frame`). The frames and the
//! completion ring must then equal what `model::wqe::Queues` produces from the same memory.
//!
//! A run may instead be a requester's picks ([`RcPick`]): one packet of an RC WQE, with the
//! PSN and AckReq the requester chose, or the checks and packet count its POST needs. Their
//! frames and answers must be what `SendEngine::rc_packet_as` and `rc_fetch_prepare` give
//! for each on an engine without RDMA READ, and nothing else may happen (no PSN taken, no QP
//! moved to ERR, no completion).

use super::bits::{Packer, Unpacker};
use super::host_memory::{Config as DmaConfig, DmaHost};
use crate::duts::{WqeDp, WqeDpPorts};

crate::dma_port_fns!(WqeDpPorts);
use crate::harness::{Hang, Sim};
use crate::mismatch::{compare_frames, Observed};
use crate::stream::rng;
use crate::stream::TestRng;
use rand::Rng;
use rocenic_model::entropy::QpType;
use rocenic_model::qp::{Access, IpPair, QpConfig, QpKind};
use rocenic_model::wire::ib::{BthRepr, DethRepr, RethRepr};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::frame::{
    emit_headers, finish, Route, Transport, MAX_FRAME, MIN_FRAME, PKEY,
};
use rocenic_model::wqe::{
    Cqe, HostMemory, Memory, Nic, Opcode, Queues, RcWqe, SendEngine, SendRing, Status, Step,
};
use std::collections::VecDeque;

/// Width of `wqe_dp_pkg::pick_t`.
pub const PICK_BITS: usize = 664;
/// `pick_t` as the DUT takes it.
pub type PickWords = [u32; PICK_BITS.div_ceil(32)];
/// Width of `wqe_frame_pkg::desc_t`.
pub const DESC_BITS: usize = 712;

/// A requester's pick of the WQE at ring index `wqe` of slot `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcPick {
    /// The send queue's slot.
    pub slot: usize,
    /// The WQE's index in its ring.
    pub wqe: u32,
    /// What the requester asks of it.
    pub ask: RcAsk,
}

/// What a requester's pick asks of its WQE (`pick_t.rcp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcAsk {
    /// Packet `index` of its message (0-based), with the PSN and AckReq given.
    Packet {
        /// Which packet.
        index: u32,
        /// The PSN it goes out with.
        psn: u32,
        /// AckReq in its BTH.
        ack_req: bool,
    },
    /// Its checks and packet count, for the requester's POST (`rcp.prep`).
    Prepare,
}

/// A requester's pick's answer (`m_res`), in pick order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RcAnswer {
    /// A packet's slot and status code (0: sent).
    Packet(u8, u8),
    /// A prepare pick's slot and what it found: the model's `rc_fetch_prepare` on an engine
    /// without RDMA READ (`read` is never set).
    Prepared(u8, Result<RcWqe, Cqe>),
}

/// One send queue as the control plane knows it.
#[derive(Clone, Debug)]
pub struct Queue {
    /// Its QP.
    pub qpn: u32,
    /// Its ring.
    pub ring: SendRing,
    /// WQEs posted, from index 0.
    pub posted: u32,
}

/// A run: the model engine set up with its QPs and regions, the send queues in slot order (all
/// QPs in RTS, every WQE already in memory), the completion ring, and host memory.
#[derive(Clone)]
pub struct Run {
    /// The model (QPs in RTS, regions registered).
    pub engine: SendEngine,
    /// The regions registered, in order.
    pub mrs: Vec<rocenic_model::qp::MemoryRegion>,
    /// Send queues by slot.
    pub queues: Vec<Queue>,
    /// Completion ring base and log2 entries (big enough for every completion).
    pub cq: (u64, u32),
    /// Host memory with the WQEs written.
    pub mem: HostMemory,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Frames, in order.
    pub frames: Vec<Vec<u8>>,
    /// The completion ring's bytes.
    pub cq: Vec<u8>,
    /// A requester's picks' answers, in order.
    pub results: Vec<RcAnswer>,
}

impl Outcome {
    /// Panics, naming `what`, where this run (the RTL's) differs from `want` (the model's): at
    /// the first frame that differs, then on the outcomes and the completion ring.
    pub fn assert_matches(&self, what: &str, want: &Outcome) {
        let observed = Observed {
            frames: &self.frames,
            cycles: &[],
        };
        if let Err(e) = compare_frames(what, None, observed, &want.frames) {
            panic!("{e}");
        }
        assert_eq!(self.results, want.results, "{what}: outcomes");
        assert_eq!(self.cq, want.cq, "{what}: completion ring");
    }
}

impl Run {
    /// What the model produces: `Queues::step` until idle.
    pub fn model(&self) -> Outcome {
        let mut e = self.engine.clone();
        let mut mem = self.mem.clone();
        let (base, log2) = self.cq;
        let ring = rocenic_model::wqe::Ring::new(log2).expect("CQ size");
        let mut q = Queues::<64>::new(
            rocenic_model::wqe::CompletionRing::new(ring, 0).expect("CQ start"),
            base,
        );
        for s in &self.queues {
            q.attach(s.qpn, s.ring, 0).expect("attach");
            q.doorbell(s.qpn, s.posted).expect("doorbell");
        }
        let mut frames = Vec::new();
        loop {
            match q.step(&mut e, &mut mem, &mut |f: &[u8]| frames.push(f.to_vec())) {
                Ok(Step::Idle) => break,
                Ok(Step::CqFull) => panic!("the run's completion ring must hold every completion"),
                Ok(Step::Ran { .. }) => {}
                Err(e) => panic!("model: {e}"),
            }
        }
        Outcome {
            frames,
            cq: self.cq_bytes(&mem),
            results: Vec::new(),
        }
    }

    /// The completion ring's bytes in `mem`.
    fn cq_bytes(&self, mem: &HostMemory) -> Vec<u8> {
        let (base, log2) = self.cq;
        let mut cq = vec![0u8; 32 << log2];
        mem.read(base, &mut cq).expect("CQ in memory");
        cq
    }

    /// The WQE at ring index `wqe` of slot `slot` as the engine fetches it (its `BLOCKS`), or
    /// the status a fetch of it gets.
    pub fn fetched_wqe(&self, slot: usize, wqe: u32) -> Result<Vec<u8>, Status> {
        let q = &self.queues[slot];
        let mut b = [0u8; rocenic_model::wqe::MAX_WQE_BYTES];
        let stride = q.ring.stride_blocks() as usize;
        rocenic_model::wqe::fetch(&self.mem, q.ring.addr(wqe), stride, &mut b)
            .map(|n| b[..n].to_vec())
            .map_err(|(s, _)| s)
    }

    /// What the model does with each of `picks`, in order, on an engine without RDMA READ
    /// (the RTL's): `SendEngine::rc_packet_as` for a packet, `rc_fetch_prepare` for a
    /// prepare. The frames and each pick's answer; the completion ring stays as it is, since a
    /// requester's pick writes none.
    pub fn rc_model(&self, picks: &[RcPick]) -> Outcome {
        let mut frames = Vec::new();
        let mut results = Vec::new();
        for p in picks {
            let q = &self.queues[p.slot];
            let (index, psn, ack_req) = match p.ask {
                RcAsk::Packet {
                    index,
                    psn,
                    ack_req,
                } => (index, psn, ack_req),
                RcAsk::Prepare => {
                    let stride = q.ring.stride_blocks() as usize;
                    let addr = q.ring.addr(p.wqe);
                    let got = self
                        .engine
                        .rc_fetch_prepare(q.qpn, &self.mem, addr, stride, false);
                    results.push(RcAnswer::Prepared(p.slot as u8, got));
                    continue;
                }
            };
            let pkt = rocenic_model::rc::Packet {
                psn: rocenic_model::qp::Psn::from_bits_truncate(psn),
                wr_id: 0,
                index,
                packets: 0,
                ack_req,
                resend: false,
            };
            let st = self.fetched_wqe(p.slot, p.wqe).and_then(|wqe| {
                self.engine.rc_packet_as(
                    self.queues[p.slot].qpn,
                    &wqe,
                    &pkt,
                    &self.mem,
                    &mut |f: &[u8]| frames.push(f.to_vec()),
                    false,
                )
            });
            results.push(RcAnswer::Packet(
                p.slot as u8,
                st.err().map_or(0, |s| s.code()),
            ));
        }
        Outcome {
            frames,
            cq: self.cq_bytes(&self.mem),
            results,
        }
    }

    /// `pick_t` words for each of `picks`.
    pub fn rc_picks(&self, picks: &[RcPick]) -> VecDeque<PickWords> {
        picks
            .iter()
            .map(|p| self.pick_with(p.slot, p.wqe, Some(p.ask)))
            .collect()
    }

    /// The picks the control plane issues: round robin over the slots with WQEs left.
    fn picks(&self) -> VecDeque<(usize, u32)> {
        let mut left: Vec<u32> = self.queues.iter().map(|q| q.posted).collect();
        let mut taken = vec![0u32; left.len()];
        let mut out = VecDeque::new();
        let mut next = 0;
        while left.iter().any(|&l| l > 0) {
            let n = left.len();
            let slot = (0..n)
                .map(|k| (next + k) % n)
                .find(|&s| left[s] > 0)
                .unwrap();
            out.push_back((slot, taken[slot]));
            taken[slot] += 1;
            left[slot] -= 1;
            next = (slot + 1) % n;
        }
        out
    }

    /// `pick_t` for slot `slot`'s WQE `index`, as a whole WQE or, with `rcp`, as the
    /// requester asks.
    fn pick_with(&self, slot: usize, index: u32, rcp: Option<RcAsk>) -> PickWords {
        let q = &self.queues[slot];
        let qp = self.engine.qps.get(q.qpn).expect("QP");
        let c: &QpConfig = qp.config();
        let mut p = Packer::new();
        let (prep, pkt, psn, ack_req) = match rcp {
            Some(RcAsk::Packet {
                index,
                psn,
                ack_req,
            }) => (false, index, psn & 0xFF_FFFF, ack_req),
            // The fields a prepare does not use, all ones: a build that read them would differ.
            Some(RcAsk::Prepare) => (true, 0xFF_FFFF, 0xFF_FFFF, true),
            None => (false, 0, 0, false),
        };
        p.put(1, rcp.is_some().into())
            .put(1, prep.into())
            .put(24, pkt.into())
            .put(24, psn.into())
            .put(1, ack_req.into());
        p.put(8, slot as u128)
            .put(64, q.ring.addr(index).into())
            .put(3, q.ring.stride_blocks().trailing_zeros().into());
        let ent = qp.entropy();
        let av = c.av;
        // A raw QP's context as the control plane holds it (regs::qp_writes): MTU code 0, no
        // destination QPN or Q_Key.
        let raw = c.qp_type == QpKind::Raw;
        let (ipv6, src, dst) = match av.map(|a| a.ip) {
            Some(IpPair::V4 { src, dst }) => (false, ip4(src), ip4(dst)),
            Some(IpPair::V6 { src, dst }) => (true, ip6(src), ip6(dst)),
            None => (false, 0, 0),
        };
        p.put(24, q.qpn.into())
            .put(1, (c.qp_type == QpType::Ud).into())
            .put(32, c.pd.into())
            .put(3, if raw { 0 } else { c.mtu.code().into() })
            .put(24, if raw { 0 } else { c.dest_qpn.into() })
            .put(32, if raw { 0 } else { c.q_key.into() })
            .put(1, ipv6.into())
            .put(1, av.is_some_and(|a| a.vlan.is_some()).into())
            .put(12, av.and_then(|a| a.vlan).unwrap_or(0).into())
            .put(3, av.map_or(0, |a| a.pcp).into())
            .put(8, av.map_or(0, |a| a.traffic_class).into())
            .put(8, av.map_or(0, |a| a.hop_limit).into())
            .put(20, ent.map_or(0, |e| e.flow_label).into())
            .put(16, ent.map_or(0, |e| e.udp_sport).into())
            .put(48, mac(av.map_or([0; 6], |a| a.dst_mac.0)))
            .put(48, mac(av.map_or([0; 6], |a| a.src_mac.0)))
            .put(128, src)
            .put(128, dst)
            .put(1, raw.into());
        p.words()
    }
}

fn ip4(a: Ipv4Address) -> u128 {
    u32::from_be_bytes(a.0).into()
}

fn ip6(a: Ipv6Address) -> u128 {
    u128::from_be_bytes(a.0)
}

fn mac(m: [u8; 6]) -> u128 {
    m.iter().fold(0u128, |v, &b| (v << 8) | u128::from(b))
}

fn mac_bytes(v: u128) -> EthernetAddress {
    let b = v.to_be_bytes();
    EthernetAddress([b[10], b[11], b[12], b[13], b[14], b[15]])
}

/// A frame from a `wqe_frame_pkg::desc_t` and its payload, as `model::wqe::frame` writes it.
pub fn frame_of(desc: &[u32; 23], payload: &[u8]) -> Vec<u8> {
    let mut u = Unpacker::new(desc, DESC_BITS);
    let vlan = u.take(1) == 1;
    let vid = u.take(12) as u16;
    let pcp = u.take(3) as u8;
    let ipv6 = u.take(1) == 1;
    let src = u.take(128);
    let dst = u.take(128);
    let src_mac = mac_bytes(u.take(48));
    let dst_mac = mac_bytes(u.take(48));
    let traffic_class = u.take(8) as u8;
    let hop_limit = u.take(8) as u8;
    let flow_label = u.take(20) as u32;
    let udp_sport = u.take(16) as u16;
    let opcode = u.take(8) as u8;
    let se = u.take(1) == 1;
    let dest_qpn = u.take(24) as u32;
    let ack_req = u.take(1) == 1;
    let psn = u.take(24) as u32;
    let reth_en = u.take(1) == 1;
    let va = u.take(64) as u64;
    let rkey = u.take(32) as u32;
    let dma_len = u.take(32) as u32;
    let deth_en = u.take(1) == 1;
    let qkey = u.take(32) as u32;
    let src_qpn = u.take(24) as u32;
    let imm_en = u.take(1) == 1;
    let imm = u.take(32) as u32;
    let payload_len = u.take(13) as usize;
    let raw = u.take(1) == 1;
    assert_eq!(u.remaining(), 0);
    assert_eq!(
        payload_len,
        payload.len(),
        "descriptor length against the payload stream"
    );
    if raw {
        // The frame builder passes a raw frame as it is; the ICRC stage pads it to 60 bytes.
        let mut f = payload.to_vec();
        f.resize(f.len().max(MIN_FRAME), 0);
        return f;
    }
    let ip = if ipv6 {
        IpPair::V6 {
            src: Ipv6Address(src.to_be_bytes()),
            dst: Ipv6Address(dst.to_be_bytes()),
        }
    } else {
        IpPair::V4 {
            src: Ipv4Address((src as u32).to_be_bytes()),
            dst: Ipv4Address((dst as u32).to_be_bytes()),
        }
    };
    let route = Route {
        src_mac,
        dst_mac,
        vlan: vlan.then_some((vid, pcp)),
        ip,
        traffic_class,
        hop_limit,
        flow_label,
        udp_sport,
    };
    let pad = (payload.len().wrapping_neg() & 3) as u8;
    let t = Transport {
        bth: BthRepr {
            opcode,
            solicited: se,
            migreq: false,
            pad_count: pad,
            tver: 0,
            pkey: PKEY,
            fecn: false,
            becn: false,
            dest_qpn,
            ack_req,
            psn,
        },
        reth: reth_en.then_some(RethRepr { va, rkey, dma_len }),
        deth: deth_en.then_some(DethRepr { qkey, src_qpn }),
        imm: imm_en.then_some(imm),
    };
    let mut buf = vec![0u8; MAX_FRAME];
    let hl = emit_headers(&route, &t, payload.len(), &mut buf).expect("descriptor fields in range");
    buf[hl..hl + payload.len()].copy_from_slice(payload);
    let n = finish(&mut buf, hl, payload.len(), pad, route.l3_offset()).expect("frame");
    buf.truncate(n);
    buf
}

/// How the bench loads the data path.
#[derive(Clone, Debug)]
pub struct Load {
    /// Host memory behaviour.
    pub dma: DmaConfig,
    /// Probability that the frame builder is ready for a descriptor or a payload beat.
    pub out_ready: f64,
    /// Region-check answers come this many cycles after the request (drawn per request).
    pub mr_latency: std::ops::RangeInclusive<u64>,
}

/// Statistics of an RTL run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cycles from reset to idle.
    pub cycles: u64,
    /// Cycles with a payload beat taken.
    pub payload_beats: u64,
    /// Descriptors taken.
    pub frames: u64,
    /// PSNs taken from the control plane.
    pub psn_takes: u64,
    /// QPs moved to ERR.
    pub err_sets: u64,
}

/// Runs `run` through the RTL data path under `load`, seeded by `seed`: its WQEs picked in
/// the control plane's round-robin order.
pub fn rtl(run: &Run, load: &Load, seed: u64, limit: u64) -> Result<(Outcome, Stats), String> {
    let picks = run
        .picks()
        .into_iter()
        .map(|(s, i)| run.pick_with(s, i, None))
        .collect();
    rtl_picks(run, picks, load, seed, limit)
}

/// Runs `picks` (`pick_t` words, [`Run::rc_picks`] for a requester's) through the RTL data
/// path under `load`, seeded by `seed`.
pub fn rtl_picks(
    run: &Run,
    mut picks: VecDeque<PickWords>,
    load: &Load,
    seed: u64,
    limit: u64,
) -> Result<(Outcome, Stats), String> {
    let mut rnd: TestRng = rng(seed);
    let mut sim: Sim<WqeDp> = Sim::new("wqe_dp");
    let mut host = DmaHost::new(run.mem.clone(), load.dma.clone(), seed ^ 0x5EED);
    let nic = run.engine.nic;
    let (cq_base, cq_log2) = run.cq;
    let mut cur_pick: Option<PickWords> = None;
    let mut results = Vec::new();
    // Whether each requester's pick taken is a prepare, in order: its answer's form.
    let mut asked: VecDeque<bool> = VecDeque::new();
    let mut psn: Vec<u32> = run
        .queues
        .iter()
        .map(|q| run.engine.qps.get(q.qpn).unwrap().next_psn().get())
        .collect();
    let mut qp_err = 0u64;
    let mut psn_first = 0u32;
    let mut cq_producer = 0u32;
    // Region checks in flight: (due cycle, status).
    let mut mr: VecDeque<(u64, u8)> = VecDeque::new();
    let mut desc: Option<[u32; 23]> = None;
    let mut payload = Vec::new();
    let mut frames = Vec::new();
    let mut stats = Stats::default();

    sim.dut.set_nic_mac(mac(nic.mac.0) as u64);
    sim.dut.set_nic_ipv4(u32::from_be_bytes(nic.ipv4.0));
    sim.dut.set_nic_ipv6(words128(ip6(nic.ipv6)));
    sim.dut.set_profile(run.engine.qps.profile().code());
    sim.dut.set_cq_base(cq_base);
    sim.dut.set_cq_log2(cq_log2 as u8);
    sim.reset(4);
    let mut busy_seen = false;
    loop {
        let now = sim.cycle();
        if now > limit {
            let h: Hang = sim.hang("wqe_dp run");
            return Err(format!(
                "{h}; {} picks left, {} frames so far",
                picks.len(),
                frames.len()
            ));
        }
        // Inputs.
        if cur_pick.is_none() {
            cur_pick = picks.pop_front();
        }
        sim.dut.set_s_pick_valid(cur_pick.is_some().into());
        if let Some(p) = cur_pick {
            sim.dut.set_s_pick(p);
        }
        sim.dut.set_qp_err(qp_err);
        sim.dut.set_psn_take_first(psn_first);
        sim.dut.set_cq_producer(cq_producer);
        let mr_due = mr.front().is_some_and(|&(due, _)| due <= now);
        sim.dut.set_s_mr_valid(mr_due.into());
        sim.dut.set_s_mr_status(mr.front().map_or(0, |m| m.1));
        let mr_ready = rnd.gen_bool(0.8);
        sim.dut.set_m_mr_ready(mr_ready.into());
        let h = host.offer();
        drive_dma(&mut sim.dut, &h);
        // A frame builder takes the next descriptor once the last frame's payload is in, and a
        // payload only behind its descriptor (with TSO, descriptors wait in a FIFO and a short
        // payload may otherwise come first).
        let desc_ready = desc.is_none() && rnd.gen_bool(load.out_ready);
        let pay_ready = desc.is_some() && rnd.gen_bool(load.out_ready);
        sim.dut.set_m_desc_ready(desc_ready.into());
        sim.dut.set_m_pay_tready(pay_ready.into());
        let res_ready = rnd.gen_bool(load.out_ready);
        sim.dut.set_m_res_ready(res_ready.into());
        sim.settle();

        // Handshakes, from values before the edge.
        let d = &sim.dut;
        if let Some(p) = cur_pick.filter(|_| d.s_pick_ready() == 1) {
            let mut u = Unpacker::new(&p, PICK_BITS);
            if u.take(1) == 1 {
                asked.push_back(u.take(1) == 1);
            }
            cur_pick = None;
        }
        if d.m_res_valid() == 1 && res_ready {
            let prep = asked
                .pop_front()
                .ok_or_else(|| format!("cycle {now}: an answer on m_res with no pick asked"))?;
            results.push(if prep {
                RcAnswer::Prepared(d.m_res_slot(), prepared(d))
            } else {
                RcAnswer::Packet(d.m_res_slot(), d.m_res_status())
            });
        }
        if d.psn_take_valid() == 1 {
            stats.psn_takes += 1;
            let s = usize::from(d.psn_take_slot());
            psn_first = psn[s];
            psn[s] = (psn[s] + 1) & 0xFF_FFFF;
        }
        if d.err_set_valid() == 1 {
            stats.err_sets += 1;
            qp_err |= 1 << d.err_set_slot();
        }
        if d.cqe_written() == 1 {
            cq_producer = cq_producer.wrapping_add(1);
        }
        if mr_due && d.s_mr_ready() == 1 {
            mr.pop_front();
        }
        if d.m_mr_valid() == 1 && mr_ready {
            let st = match run.engine.mrs.check(
                d.m_mr_lkey(),
                d.m_mr_pd(),
                d.m_mr_addr(),
                u64::from(d.m_mr_len()),
                Access::NONE,
            ) {
                Ok(()) => 0,
                Err(s) => s.code(),
            };
            let lat = rnd.gen_range(load.mr_latency.clone());
            let due = mr.back().map_or(now + lat, |&(d0, _)| d0.max(now + lat));
            mr.push_back((due, st));
        }
        if d.m_desc_valid() == 1 && desc_ready {
            assert!(
                desc.is_none(),
                "a descriptor before the last one's payload ended"
            );
            desc = Some(d.m_desc());
            if frame_len_of(&d.m_desc()) == 0 {
                frames.push(frame_of(&desc.take().unwrap(), &[]));
                stats.frames += 1;
            }
        }
        if d.m_pay_tvalid() == 1 && pay_ready {
            let keep = u64::from(d.m_pay_tkeep());
            let n = keep.trailing_ones() as usize;
            assert_eq!(keep >> n, 0, "payload keep not contiguous");
            payload.extend_from_slice(&d.m_pay_tdata().to_le_bytes()[..n]);
            stats.payload_beats += 1;
            if d.m_pay_tlast() == 1 {
                let dd = desc.take().ok_or("payload without a descriptor")?;
                frames.push(frame_of(&dd, &payload));
                payload.clear();
                stats.frames += 1;
            }
        }
        let eng = sample_dma(d);
        let idle = d.idle() == 1;
        host.accepted(&eng)
            .map_err(|v| format!("cycle {now}: {v}"))?;
        busy_seen |= !idle;
        if idle && busy_seen && picks.is_empty() && cur_pick.is_none() && host.idle() {
            stats.cycles = now;
            break;
        }
        sim.step();
    }
    let mut cq = vec![0u8; 32 << cq_log2];
    host.memory()
        .read(cq_base, &mut cq)
        .map_err(|e| e.to_string())?;
    Ok((
        Outcome {
            frames,
            cq,
            results,
        },
        stats,
    ))
}

/// A prepare pick's answer as the DUT gives it: its status and, on success, its packets and
/// SIGNALED flag, with the completion held beside them (`wqe_dp_pkg::cqe_t`).
fn prepared(d: &WqeDp) -> Result<RcWqe, Cqe> {
    let cqe = cqe_of(&d.m_res_cqe());
    assert_eq!(
        cqe.status.code(),
        d.m_res_status(),
        "m_res_status against the completion's"
    );
    if cqe.status != Status::Success {
        return Err(cqe);
    }
    Ok(RcWqe {
        packets: d.m_res_packets(),
        cqe,
        signaled: d.m_res_signaled() == 1,
        read: false,
    })
}

/// The completion `wqe_dp_pkg::cqe_t` words hold (phase bit clear).
pub(crate) fn cqe_of(words: &[u32]) -> Cqe {
    let mut u = Unpacker::new(words, CQE_T_BITS);
    let wr_id = u.take(64) as u64;
    let qpn = u.take(24) as u32;
    let byte_len = u.take(32) as u32;
    let wqe_index = u.take(32) as u32;
    let opcode = u.take(8) as u8;
    let status = u.take(5) as u8;
    assert_eq!(u.remaining(), 0);
    Cqe {
        wr_id,
        qpn,
        byte_len,
        wqe_index,
        opcode: Opcode::from_u8(opcode),
        status: Status::from_code(status).unwrap_or_else(|| panic!("status code {status}")),
        phase: false,
    }
}

/// `wqe_dp_pkg::cqe_t` words of `c`.
pub(crate) fn cqe_words(c: &Cqe) -> [u32; 6] {
    let mut p = Packer::new();
    p.put(64, c.wr_id.into())
        .put(24, c.qpn.into())
        .put(32, c.byte_len.into())
        .put(32, c.wqe_index.into())
        .put(8, c.opcode.map_or(0xFF, |o| o as u8).into())
        .put(5, c.status.code().into());
    p.words()
}

/// Width of `wqe_dp_pkg::cqe_t`.
const CQE_T_BITS: usize = 165;

fn frame_len_of(desc: &[u32; 23]) -> u32 {
    (desc[0] >> 1) & 0x1FFF
}

fn words128(v: u128) -> [u32; 4] {
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}

/// The NIC addresses every run uses.
pub fn nic() -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(10, 0, 0, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}
