//! The send engine against an oracle written out here from docs/wqe.md: random WQE streams on
//! RC and UD QPs in two PDs (valid and invalid, inline and gathered, every opcode, IPv4 and
//! IPv6, VLAN), posted to send rings and run by `Queues`. Every frame is parsed back and its
//! ICRC, headers, PSN, entropy and payload checked; every completion's status, order and ring
//! entry checked; nothing sent after an error.
//!
//! Each property prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::entropy::{Profile, QpType, Request};
use rocenic_model::qp::{
    self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpState, Status,
};
use rocenic_model::rc::Reliable;
use rocenic_model::wire::ib::{opcode as op, Deth, ImmDt, Reth};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address, RoceFrame};
use rocenic_model::wqe::{self, *};
use std::collections::BTreeMap;

#[path = "common/seeded.rs"]
mod seeded;
use seeded::config;

/// Host memory as regions of bytes; a read or write touching a gap faults.
struct Mem(Vec<(u64, Vec<u8>)>);

impl Mem {
    fn find(&self, addr: u64, len: usize) -> Option<(usize, usize)> {
        self.0.iter().enumerate().find_map(|(i, (b, v))| {
            let off = addr.checked_sub(*b)? as usize;
            (off + len <= v.len()).then_some((i, off))
        })
    }
}

impl Memory for Mem {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), Fault> {
        let (i, off) = self.find(addr, out.len()).ok_or(Fault {
            addr,
            len: out.len(),
        })?;
        out.copy_from_slice(&self.0[i].1[off..off + out.len()]);
        Ok(())
    }
    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Fault> {
        let (i, off) = self.find(addr, data.len()).ok_or(Fault {
            addr,
            len: data.len(),
        })?;
        self.0[i].1[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
}

const NIC_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
const DATA: u64 = 0x10000; // 0x18000 bytes of data, counter-filled
const HOLE: u64 = 0x30000; // region 0x300 covers 0x1000 bytes; only the first 0x800 are memory
const RINGS: u64 = 0x100000;
const CQ: u64 = 0x200000;
const CQ_LOG2: u32 = 12;
const RING_LOG2: u32 = 6;
const STRIDE_LOG2: u32 = 4;

/// (qpn, type, pd, mtu, ipv6, vlan): the QPs of every run.
const QPS: [(u32, QpType, u32, PathMtu, bool, Option<u16>); 4] = [
    (0x11, QpType::Rc, 1, PathMtu::Mtu256, false, None),
    (0x12, QpType::Rc, 2, PathMtu::Mtu1024, true, Some(7)),
    (0x13, QpType::Ud, 1, PathMtu::Mtu512, false, None),
    (0x14, QpType::Rc, 1, PathMtu::Mtu4096, true, None),
];
const UD_QKEY: u32 = 0x5151;

fn nic() -> Nic {
    Nic {
        mac: EthernetAddress(NIC_MAC),
        ipv4: Ipv4Address::new(10, 0, 0, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}

fn rc_av(ipv6: bool, vlan: Option<u16>, fl: u32) -> qp::AddressVector {
    let ip = if ipv6 {
        IpPair::V6 {
            src: nic().ipv6,
            dst: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]),
        }
    } else {
        IpPair::V4 {
            src: nic().ipv4,
            dst: Ipv4Address::new(10, 0, 0, 2),
        }
    };
    qp::AddressVector {
        vlan,
        pcp: 5,
        traffic_class: 0x48,
        hop_limit: 9,
        flow_label: fl,
        ..qp::AddressVector::new(
            ip,
            EthernetAddress(NIC_MAC),
            EthernetAddress([2, 0, 0, 0, 0, 2]),
        )
    }
}

/// One generated work request.
#[derive(Clone, Debug)]
struct Wr {
    qp: usize,
    /// 0..=3 an opcode, 4: the TSO value (unknown), 5: 0x7F.
    opcode: u8,
    signaled: bool,
    solicited: bool,
    inline: Option<Vec<u8>>,
    /// (lkey choice, offset, length).
    sges: Vec<(usize, u64, u32)>,
    /// UD: (ipv6, vlan, flow label, dqpn, qkey from the QP); RC: ignored.
    av: (bool, Option<u16>, u32, u32, bool),
    /// Flip the AV's presence (UD without, RC with).
    av_mismatch: bool,
    imm: u32,
}

const LKEYS: [u32; 4] = [0x100, 0x200, 0x300, 0x999];

fn wr() -> impl Strategy<Value = Wr> {
    let sge = (
        0usize..4,
        0u64..0x9000,
        prop_oneof![8 => 1u32..3000, 1 => Just(0u32)],
    );
    (
        0usize..4,
        prop_oneof![20 => 0u8..4, 1 => 4u8..6],
        any::<bool>(),
        any::<bool>(),
        prop_oneof![
            6 => prop::collection::vec(sge.clone(), 0..4),
            1 => prop::collection::vec(sge, 17..19),
        ],
        prop::option::weighted(0.2, prop::collection::vec(any::<u8>(), 0..300)),
        (
            any::<bool>(),
            prop::option::of(1u16..100),
            prop_oneof![Just(0u32), 1u32..0xFFFFF],
            0x100u32..0x104,
            any::<bool>(),
        ),
        prop::bool::weighted(0.03),
        any::<u32>(),
    )
        .prop_map(
            |(qp, opcode, signaled, solicited, sges, inline, av, av_mismatch, imm)| {
                // Aim most entries inside their region so that most requests pass.
                let sges = sges
                    .into_iter()
                    .map(|(k, off, len)| {
                        let size = [0x8000u64, 0x4000, 0x1000, 0x100][k];
                        let off = if off < 0x8800 { off % size } else { off };
                        (k, off, len.min(size as u32 + 8))
                    })
                    .collect();
                Wr {
                    qp,
                    opcode,
                    signaled,
                    solicited,
                    inline,
                    sges,
                    av,
                    av_mismatch,
                    imm,
                }
            },
        )
}

fn region(k: usize) -> (u64, u64, u32) {
    // (base, length, pd); key 3 (0x999) is unregistered.
    [
        (DATA, 0x8000, 1),
        (DATA + 0x8000, 0x4000, 2),
        (HOLE, 0x1000, 1),
        (0, 0, 0),
    ][k]
}

/// What the oracle expects of one request: its status and, when frames go out, the message.
fn oracle(w: &Wr, mem: &Mem, errored: bool) -> (Status, Option<Vec<u8>>, usize) {
    let (_, qt, pd, mtu, _, _) = QPS[w.qp];
    let ud = qt == QpType::Ud;
    if errored {
        return (Status::WrFlushErr, None, 0);
    }
    if w.opcode > 3 || (ud && w.opcode < 2) || w.av_mismatch {
        return (Status::LocQpOpErr, None, 0);
    }
    let msg: Vec<u8> = if let Some(d) = &w.inline {
        d.clone()
    } else {
        if w.sges.len() > 16 {
            return (Status::LocQpOpErr, None, 0);
        }
        for &(k, off, len) in &w.sges {
            if len == 0 {
                return (Status::LocLenErr, None, 0);
            }
            let (_, size, rpd) = region(k);
            if k == 3 || rpd != pd || off + u64::from(len) > size {
                return (Status::LocProtErr, None, 0);
            }
        }
        // The bytes, with None where no memory backs them.
        let mut m = Vec::new();
        for &(k, off, len) in &w.sges {
            let base = region(k).0 + off;
            for a in base..base + u64::from(len) {
                let mut b = [0u8];
                m.push(mem.read(a, &mut b).ok().map(|_| b[0]));
            }
        }
        if ud && m.len() > mtu.bytes() as usize {
            return (Status::LocLenErr, None, 0);
        }
        match m.iter().position(Option::is_none) {
            Some(bad) => {
                // Packets before the one holding the first missing byte go out.
                let sent = bad / mtu.bytes() as usize;
                let bytes: Vec<u8> = m[..sent * mtu.bytes() as usize]
                    .iter()
                    .map(|b| b.unwrap())
                    .collect();
                return (Status::GeneralErr, Some(bytes), sent);
            }
            None => m.into_iter().map(Option::unwrap).collect(),
        }
    };
    if ud && msg.len() > mtu.bytes() as usize {
        return (Status::LocLenErr, None, 0);
    }
    let packets = if msg.is_empty() {
        1
    } else {
        msg.len().div_ceil(mtu.bytes() as usize)
    };
    (Status::Success, Some(msg), packets)
}

/// The whole message's length (the RETH's DMA length, also when a fault cut the message).
fn msg_len(w: &Wr) -> usize {
    match &w.inline {
        Some(d) => d.len(),
        None => w.sges.iter().map(|s| s.2 as usize).sum(),
    }
}

fn encode(w: &Wr, index: u32) -> Vec<u8> {
    let (_, qt, ..) = QPS[w.qp];
    let ud = qt == QpType::Ud;
    let opcode = Opcode::from_u8(w.opcode.min(3)).unwrap();
    let (v6, vlan, fl, dqpn, qp_qkey) = w.av;
    let av = (ud != w.av_mismatch).then(|| wqe::AddressVector {
        dqpn,
        qkey: if qp_qkey { 0x8000_0000 } else { 0x2222 },
        dgid: if v6 {
            [0xfe; 16]
        } else {
            wqe::AddressVector::mapped([10, 0, 0, 9])
        },
        dmac: [2, 0, 0, 0, 0, 9],
        vlan: vlan.map(|vid| Vlan { vid, pcp: 3 }),
        flow_label: fl,
        tclass: 0x10,
        hop_limit: 33,
    });
    let sges: Vec<DataSegment> = w
        .sges
        .iter()
        .map(|&(k, off, length)| DataSegment {
            addr: region(k).0 + off,
            length,
            lkey: LKEYS[k],
        })
        .collect();
    let mut flags = Flags::from_bits(0).unwrap();
    if w.signaled {
        flags = flags.union(Flags::SIGNALED);
    }
    if w.solicited {
        flags = flags.union(Flags::SOLICITED);
    }
    let wr = WorkRequest {
        opcode,
        flags,
        index,
        imm: if opcode.has_imm() { w.imm } else { 0 },
        wr_id: 0xABC0_0000 + u64::from(index) * 16 + w.qp as u64,
        av,
        raddr: opcode.has_raddr().then_some(RemoteAddress {
            addr: 0x7000_0000 + u64::from(index),
            rkey: 0x55,
        }),
        tso: None,
        payload: match &w.inline {
            Some(d) => Payload::Inline(d),
            None => Payload::Gather(&sges),
        },
    };
    let mut out = vec![0u8; MAX_WQE_BYTES];
    let c = Wqe::encode(&wr, &mut out).expect("the generator stays in the format");
    out.truncate(usize::from(c.blocks) * BLOCK_BYTES);
    match w.opcode {
        4 => out[0] = Opcode::Tso as u8,
        5 => out[0] = 0x7F,
        _ => {}
    }
    out
}

fn setup() -> (SendEngine, Queues, Mem) {
    let mut e = SendEngine::<64, 64>::new(nic(), Profile::Linux);
    for (k, lkey) in LKEYS.iter().enumerate().take(3) {
        let (base, length, pd) = region(k);
        e.mrs
            .register(MemoryRegion {
                lkey: *lkey,
                base,
                length,
                pd,
                access: Access::LOCAL_WRITE,
            })
            .unwrap();
    }
    let mut q = Queues::new(
        CompletionRing::new(Ring::new(CQ_LOG2).unwrap(), 0).unwrap(),
        CQ,
    );
    for (i, &(qpn, qp_type, pd, mtu, v6, vlan)) in QPS.iter().enumerate() {
        let rc = qp_type == QpType::Rc;
        let cfg = QpConfig {
            qp_type: qp_type.into(),
            pd,
            mtu,
            psn: Psn::new(0xFF_FFF0 + i as u32).unwrap(), // wraps within the run
            dest_qpn: if rc { 0x900 + qpn } else { 0 },
            q_key: UD_QKEY,
            av: rc.then(|| rc_av(v6, vlan, if qpn == 0x14 { 0x12345 } else { 0 })),
        };
        e.qps.create(qpn, cfg).unwrap();
        e.qps.bring_up(qpn).unwrap();
        let ring = SendRing::new(
            Ring::new(RING_LOG2).unwrap(),
            STRIDE_LOG2,
            RINGS + (i as u64) * 0x10000,
        )
        .unwrap();
        q.attach(qpn, ring, 0).unwrap();
    }
    let mut data = vec![0u8; 0xC000];
    for (i, b) in data.iter_mut().enumerate() {
        *b = (i * 7 + 3) as u8;
    }
    let mem = Mem(vec![
        (DATA, data),
        (HOLE, (0..0x800).map(|i| i as u8 ^ 0x5A).collect()),
        (RINGS, vec![0; 4 * 0x10000]),
        (CQ, vec![0; 32 << CQ_LOG2]),
    ]);
    (e, q, mem)
}

/// Per QP, the messages that put frames on the wire: the request, the bytes sent (all of them,
/// or those before a DMA fault), the packets sent and the WQE index.
type Expected = BTreeMap<u32, Vec<(Wr, Vec<u8>, usize, u32)>>;

/// Posts `wrs` (at most 64 per QP, the ring size) and runs the engine dry.
fn run(wrs: &[Wr]) -> Result<(), TestCaseError> {
    let (mut e, mut q, mut mem) = setup();
    let mut produced = [0u32; 4];
    for w in wrs {
        let (qpn, ..) = QPS[w.qp];
        let i = produced[w.qp];
        if i as usize >= 1 << RING_LOG2 {
            continue;
        }
        let bytes = encode(w, i);
        mem.write(RINGS + w.qp as u64 * 0x10000 + u64::from(i) * 1024, &bytes)
            .unwrap();
        produced[w.qp] += 1;
        // Doorbells written late, repeated and stale on purpose.
        q.doorbell(qpn, produced[w.qp]).unwrap();
        q.doorbell(qpn, produced[w.qp] - 1).unwrap();
    }
    let mut frames = Vec::new();
    let mut cqes = Vec::new();
    loop {
        match q
            .step(&mut e, &mut mem, &mut |f: &[u8]| frames.push(f.to_vec()))
            .unwrap()
        {
            Step::Idle => break,
            Step::CqFull => prop_assert!(false, "the CQ holds every completion"),
            Step::Ran { cqe, .. } => cqes.extend(cqe),
        }
    }
    // The oracle, per QP in posting order.
    let mut expect_cq: BTreeMap<u32, Vec<(u64, Status, u32)>> = BTreeMap::new();
    let mut expect_msgs: Expected = BTreeMap::new();
    let mut errored = [false; 4];
    let mut posted = [0u32; 4];
    for w in wrs {
        let (qpn, ..) = QPS[w.qp];
        let i = posted[w.qp];
        if i as usize >= 1 << RING_LOG2 {
            continue;
        }
        posted[w.qp] += 1;
        let (status, msg, packets) = oracle(w, &mem, errored[w.qp]);
        let wr_id = 0xABC0_0000 + u64::from(i) * 16 + w.qp as u64;
        if status != Status::Success || w.signaled {
            let len = if status == Status::Success {
                msg.as_ref().unwrap().len() as u32
            } else {
                0
            };
            expect_cq.entry(qpn).or_default().push((wr_id, status, len));
        }
        if let Some(m) = msg {
            expect_msgs
                .entry(qpn)
                .or_default()
                .push((w.clone(), m, packets, i));
        }
        errored[w.qp] |= status != Status::Success;
    }
    // Completions: per QP, the expected ones in order; the ring holds them with their phase.
    let mut got_cq: BTreeMap<u32, Vec<(u64, Status, u32)>> = BTreeMap::new();
    for (idx, c) in &cqes {
        got_cq
            .entry(c.qpn)
            .or_default()
            .push((c.wr_id, c.status, c.byte_len));
        let mut b = [0u8; CQE_BYTES];
        mem.read(CQ + u64::from(*idx % (1 << CQ_LOG2)) * 32, &mut b)
            .unwrap();
        prop_assert_eq!(Cqe::decode(&b).unwrap(), *c);
        prop_assert!(c.phase, "first lap writes phase 1");
    }
    prop_assert_eq!(&got_cq, &expect_cq);
    for (i, &(qpn, ..)) in QPS.iter().enumerate() {
        let st = e.qps.get(qpn).unwrap().state();
        prop_assert_eq!(
            st == QpState::Err,
            errored[i],
            "QP {:#x} state {:?}",
            qpn,
            st
        );
    }
    check_frames(&frames, &expect_msgs)
}

/// Frames, grouped by QP, against the expected messages.
fn check_frames(frames: &[Vec<u8>], expect: &Expected) -> Result<(), TestCaseError> {
    let mut by_qp: BTreeMap<u32, Vec<RoceFrame<'_>>> = BTreeMap::new();
    for f in frames {
        prop_assert!(f.len() >= 60);
        let r = RoceFrame::parse(f).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(r.is_valid(), "ICRC");
        let b = r.bth();
        let qpn = if op::has_deth(b.opcode()) {
            Deth::new_checked(r.bth_payload()).unwrap().src_qpn()
        } else {
            b.dest_qpn() - 0x900
        };
        by_qp.entry(qpn).or_default().push(r);
    }
    for (&qpn, msgs) in expect {
        let (i, &(_, qt, _, mtu, v6, vlan)) =
            QPS.iter().enumerate().find(|q| q.1 .0 == qpn).unwrap();
        let got = by_qp.remove(&qpn).unwrap_or_default();
        let mut it = got.iter();
        let mut psn = Psn::new(0xFF_FFF0 + i as u32).unwrap();
        for (w, msg, packets, index) in msgs {
            let opcode = Opcode::from_u8(w.opcode).unwrap();
            let mut payload = Vec::new();
            for p in 0..*packets {
                let f = it
                    .next()
                    .ok_or_else(|| TestCaseError::fail(format!("QP {qpn:#x}: frame missing")))?;
                let b = f.bth();
                prop_assert_eq!(b.psn(), psn.get());
                psn = psn.next();
                let last = p + 1 == msg_len(w).max(1).div_ceil(mtu.bytes() as usize);
                let mut ext = 0;
                if op::has_reth(b.opcode()) {
                    let r = Reth::new_checked(&f.bth_payload()[ext..]).unwrap();
                    prop_assert_eq!(r.va(), 0x7000_0000 + u64::from(*index));
                    prop_assert_eq!(r.dma_len() as usize, msg_len(w));
                    ext += 16;
                }
                if op::has_deth(b.opcode()) {
                    let d = Deth::new_checked(&f.bth_payload()[ext..]).unwrap();
                    prop_assert_eq!(d.qkey(), if w.av.4 { UD_QKEY } else { 0x2222 });
                    ext += 8;
                }
                if op::has_immdt(b.opcode()) {
                    prop_assert!(last, "ImmDt on the last packet only");
                    prop_assert_eq!(
                        ImmDt::new_checked(&f.bth_payload()[ext..]).unwrap().imm(),
                        w.imm
                    );
                    ext += 4;
                }
                prop_assert_eq!(op::has_reth(b.opcode()), p == 0 && opcode.has_raddr());
                prop_assert_eq!(op::has_immdt(b.opcode()), last && opcode.has_imm());
                prop_assert_eq!(b.ack_req(), last && qt == QpType::Rc);
                prop_assert_eq!(
                    b.solicited(),
                    last && w.solicited && opcode != Opcode::RdmaWrite
                );
                let body = &f.bth_payload()[ext..];
                let pad = usize::from(b.pad_count());
                prop_assert!(body[body.len() - pad..].iter().all(|&x| x == 0));
                payload.extend_from_slice(&body[..body.len() - pad]);
                // Entropy: RC fixed at RTR, UD per request; the IPv6 flow label with it.
                let frame = f.frame();
                let l3 = f.l3_offset();
                let (lqpn, rqpn, fl) = if qt == QpType::Rc {
                    (qpn, 0x900 + qpn, if qpn == 0x14 { 0x12345 } else { 0 })
                } else {
                    (qpn, w.av.3, w.av.2)
                };
                let e = Profile::Linux.compute(&Request::Qp {
                    lqpn,
                    rqpn,
                    flow_label: fl,
                    qp_type: qt,
                });
                let sport = u16::from_be_bytes([frame[f.udp_offset()], frame[f.udp_offset() + 1]]);
                prop_assert_eq!(sport, e.udp_sport);
                let is_v6 = f.ip_version() == 6;
                let want_v6 = if qt == QpType::Rc { v6 } else { w.av.0 };
                prop_assert_eq!(is_v6, want_v6);
                if is_v6 {
                    let got_fl =
                        u32::from_be_bytes([0, frame[l3 + 1] & 0xF, frame[l3 + 2], frame[l3 + 3]]);
                    prop_assert_eq!(got_fl, e.flow_label);
                }
                let want_vlan = if qt == QpType::Rc { vlan } else { w.av.1 };
                prop_assert_eq!(l3 == 18, want_vlan.is_some());
            }
            prop_assert_eq!(&payload, msg, "QP {:#x} message {}", qpn, index);
        }
        prop_assert!(
            it.next().is_none(),
            "QP {:#x}: frames after its last message",
            qpn
        );
    }
    prop_assert!(
        by_qp.is_empty(),
        "frames of unexpected QPs: {:?}",
        by_qp.keys().collect::<Vec<_>>()
    );
    Ok(())
}

proptest! {
    #![proptest_config(config("wqe_engine::random_streams", 96))]
    #[test]
    fn random_streams(wrs in prop::collection::vec(wr(), 1..120)) {
        run(&wrs)?;
    }
}

/// A WQE the engine cannot read: a slot past host memory faults (`general_err`, no opcode), a
/// `BLOCKS` of 0 or above the stride is `loc_qp_op_err` under the block's own `WR_ID`; either
/// way the QP goes to ERR and its next WQE flushes.
#[test]
fn unreadable_wqes() {
    for case in 0..3 {
        let (mut e, _, mut mem) = setup();
        let mut q = Queues::<64>::new(
            CompletionRing::new(Ring::new(CQ_LOG2).unwrap(), 0).unwrap(),
            CQ,
        );
        // Stride 2 blocks; case 0 puts the ring where no memory is.
        let base = if case == 0 { 0x900_0000 } else { RINGS };
        let ring = SendRing::new(Ring::new(2).unwrap(), 1, base).unwrap();
        q.attach(0x11, ring, 0).unwrap();
        let w = Wr {
            qp: 0,
            opcode: 2,
            signaled: true,
            solicited: false,
            inline: Some(vec![1, 2, 3]),
            sges: vec![],
            av: (false, None, 0, 0, false),
            av_mismatch: false,
            imm: 0,
        };
        for i in 0..2u32 {
            let mut b = encode(&w, i);
            b[2] = [1, 0, 3][case]; // BLOCKS: fine, 0, above the stride of 2
            b.resize(128, 0);
            if case != 0 {
                mem.write(base + u64::from(i) * 128, &b).unwrap();
            }
        }
        q.doorbell(0x11, 2).unwrap();
        let mut frames = 0;
        let mut got = Vec::new();
        while let Step::Ran { cqe, .. } = q
            .step(&mut e, &mut mem, &mut |_: &[u8]| frames += 1)
            .unwrap()
        {
            got.extend(cqe.map(|c| (c.1.wr_id, c.1.status, c.1.opcode)));
        }
        let first = if case == 0 {
            (0, Status::GeneralErr, None)
        } else {
            (0xABC0_0000, Status::LocQpOpErr, Some(Opcode::Send))
        };
        let flushed = if case == 0 {
            (0, Status::WrFlushErr, None)
        } else {
            (0xABC0_0010, Status::WrFlushErr, Some(Opcode::Send))
        };
        assert_eq!(got, vec![first, flushed], "case {case}");
        assert_eq!(frames, 0);
        assert_eq!(e.qps.get(0x11).unwrap().state(), QpState::Err);
    }
}

/// A signaled RDMA READ WQE at `index` with WR id `wr_id`, of 64 bytes into `lkey`'s region.
fn read_wqe(index: u32, wr_id: u64, lkey: u32) -> Vec<u8> {
    let sges = [DataSegment {
        addr: DATA,
        length: 64,
        lkey,
    }];
    let wr = WorkRequest {
        opcode: Opcode::RdmaRead,
        flags: Flags::SIGNALED,
        index,
        imm: 0,
        wr_id,
        av: None,
        raddr: Some(RemoteAddress {
            addr: 0x7000_0000,
            rkey: 0x55,
        }),
        tso: None,
        payload: Payload::Gather(&sges),
    };
    let mut out = vec![0u8; MAX_WQE_BYTES];
    let c = Wqe::encode(&wr, &mut out).unwrap();
    out.truncate(usize::from(c.blocks) * BLOCK_BYTES);
    out
}

/// RDMA READ, which only the reliable transport runs: without it (the RTL engine's case) its
/// opcode is unknown, refused before its gather list is looked at and flushed with no opcode;
/// with it, a flushed READ's completion names it.
#[test]
fn read_without_the_transport() {
    let read = |index: u32, lkey: u32| read_wqe(index, 0x4EAD_0000 + u64::from(index), lkey);
    let send = |index: u32, k: usize| {
        let w = Wr {
            qp: 0,
            opcode: 2,
            signaled: true,
            solicited: false,
            inline: None,
            sges: vec![(k, 0, 10)],
            av: (false, None, 0, 0, false),
            av_mismatch: false,
            imm: 0,
        };
        encode(&w, index)
    };
    let read_id = |i: u64| 0x4EAD_0000 + i;
    let send_id = |i: u64| 0xABC0_0000 + i * 16;
    // (the reliable transport on, WQE 0, WQE 1, the completions due)
    let cases = [
        // A READ whose entry names no region: an unknown opcode, not a protection error.
        (
            false,
            read(0, LKEYS[3]),
            send(1, 0),
            [
                (read_id(0), Status::LocQpOpErr, None),
                (send_id(1), Status::WrFlushErr, Some(Opcode::Send)),
            ],
        ),
        (
            false,
            send(0, 3),
            read(1, LKEYS[0]),
            [
                (send_id(0), Status::LocProtErr, Some(Opcode::Send)),
                (read_id(1), Status::WrFlushErr, None),
            ],
        ),
        (
            true,
            send(0, 3),
            read(1, LKEYS[0]),
            [
                (send_id(0), Status::LocProtErr, Some(Opcode::Send)),
                (read_id(1), Status::WrFlushErr, Some(Opcode::RdmaRead)),
            ],
        ),
    ];
    for (n, (reliable, w0, w1, want)) in cases.into_iter().enumerate() {
        let (mut e, mut q, mut mem) = setup();
        if reliable {
            q.set_reliable(Some(Reliable::default()));
        }
        let base = RINGS; // QP 0x11's ring, stride 16 blocks
        mem.write(base, &w0).unwrap();
        mem.write(base + (BLOCK_BYTES << STRIDE_LOG2) as u64, &w1)
            .unwrap();
        q.doorbell(0x11, 2).unwrap();
        let mut frames = 0;
        let mut got = Vec::new();
        for _ in 0..1000 {
            match q
                .step(&mut e, &mut mem, &mut |_: &[u8]| frames += 1)
                .unwrap()
            {
                Step::Ran { cqe, .. } => {
                    got.extend(cqe.map(|c| (c.1.wr_id, c.1.status, c.1.opcode)))
                }
                _ if got.len() == 2 => break,
                _ => {}
            }
        }
        assert_eq!(got, want, "case {n}");
        assert_eq!(frames, 0, "case {n}");
        assert_eq!(e.qps.get(0x11).unwrap().state(), QpState::Err, "case {n}");
    }
}

/// What an RC QP's requester takes of a WQE (`rc_prepare_as`, `rc_fetch_prepare`) and sends
/// of it (`rc_packet_as`). On an engine that runs READs, a READ is prepared (or refused by its
/// checks) with its opcode named, and its request sent. On one without (the RTL's today), it
/// is `loc_qp_op_err` with its opcode unknown, whatever its gather list. Other WQEs are the
/// same either way, and a fetch that faults is its status.
#[test]
fn rc_prepare_with_and_without_read() {
    let (e, _q, mut mem) = setup();
    let read = |lkey: u32| read_wqe(3, 0x4EAD, lkey);
    let good = read(LKEYS[0]);
    let got = e
        .rc_prepare_as(0x11, &good, true)
        .expect("a READ of a region");
    assert!(got.read && got.signaled);
    assert_eq!(got.packets, 1);
    assert_eq!(
        (
            got.cqe.opcode,
            got.cqe.status,
            got.cqe.byte_len,
            got.cqe.wr_id
        ),
        (Some(Opcode::RdmaRead), Status::Success, 64, 0x4EAD)
    );
    assert_eq!(e.rc_prepare(0x11, &good), Ok(got));
    let refused = |w: &[u8], read: bool| {
        e.rc_prepare_as(0x11, w, read)
            .map(|_| ())
            .map_err(|c| (c.status, c.opcode, c.byte_len, c.wr_id))
    };
    assert_eq!(
        refused(&read(LKEYS[3]), true),
        Err((Status::LocProtErr, Some(Opcode::RdmaRead), 0, 0x4EAD))
    );
    // A packet of the READ (its request): sent with READs, refused without.
    let pkt = rocenic_model::rc::Packet {
        psn: Psn::from_bits_truncate(5),
        wr_id: 0,
        index: 0,
        packets: 1,
        ack_req: true,
        resend: false,
    };
    let mut frames = 0;
    let mut count = |_: &[u8]| frames += 1;
    assert_eq!(
        e.rc_packet_as(0x11, &good, &pkt, &mem, &mut count, true),
        Ok(())
    );
    assert_eq!(
        e.rc_packet_as(0x11, &good, &pkt, &mem, &mut count, false),
        Err(Status::LocQpOpErr)
    );
    assert_eq!(frames, 1, "one READ request, with READs");
    for w in [good.clone(), read(LKEYS[3])] {
        assert_eq!(
            refused(&w, false),
            Err((Status::LocQpOpErr, None, 0, 0x4EAD))
        );
    }
    // A SEND is the same either way, and fetched from a ring slot it is what its bytes are.
    let w = Wr {
        qp: 0,
        opcode: 2,
        signaled: false,
        solicited: false,
        inline: None,
        sges: vec![(0, 0, 3000)],
        av: (false, None, 0, 0, false),
        av_mismatch: false,
        imm: 0,
    };
    let send = encode(&w, 7);
    let ok = e.rc_prepare_as(0x11, &send, false).expect("a SEND");
    assert_eq!(e.rc_prepare_as(0x11, &send, true), Ok(ok));
    assert!(!ok.read && !ok.signaled);
    mem.write(RINGS, &send).unwrap();
    let stride = 1 << STRIDE_LOG2;
    assert_eq!(e.rc_fetch_prepare(0x11, &mem, RINGS, stride, false), Ok(ok));
    // Nothing mapped there: the fetch's general error, from no bytes (no opcode).
    let c = e
        .rc_fetch_prepare(0x11, &mem, 0xFFFF_0000_0000, stride, true)
        .unwrap_err();
    assert_eq!((c.status, c.opcode, c.wr_id), (Status::GeneralErr, None, 0));
}
