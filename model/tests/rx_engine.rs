//! The receive engine end to end in the model: NIC A's send engine puts random RC and UD
//! messages on the wire, NIC B's receive engine takes them, and every byte that lands in B's
//! memory, every completion and every counter is checked against what A sent; then the
//! discards (bad ICRC, Q_Key, PSN gaps, no WQE), the error paths (short buffers, bad keys) with
//! their flushes, and RSS spreading UD and raw frames over work queues.
//!
//! Each property prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::qp::{
    self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpState, Status,
};
use rocenic_model::rss::steer::Meta;
use rocenic_model::rx::{
    Discard, RecvCqe, RecvEngine, RecvFlags, RecvOpcode, RecvRing, RecvWqe, Target, WqConfig,
    WqState, CQE_BYTES, GRH_AREA,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address, RoceFrame};
use rocenic_model::wqe::{self, *};

#[path = "common/seeded.rs"]
mod seeded;
use seeded::config;

const B_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];
const A_DATA: u64 = 0x10000;
const A_DATA_LEN: usize = 0x10000;
const A_RINGS: u64 = 0x100000;
const A_CQ: u64 = 0x200000;
const B_RBUF: u64 = 0x100000;
const B_RBUF_LEN: usize = 0x200000;
const B_WBUF: u64 = 0x400000;
const B_WBUF_LEN: usize = 0x40000;
const B_RINGS: u64 = 0x800000;
const B_CQS: u64 = 0x900000;
const RING_LOG2: u32 = 8;
const QKEY: u32 = 0x5151;
const RKEY: u32 = 0x300;
const B_LKEY: u32 = 0x200;

/// A's QPN, B's QPN, type, MTU, IPv6, VLAN, B's target.
type Pair = (u32, u32, QpType, PathMtu, bool, Option<u16>, Target);

/// The QP pairs.
const PAIRS: [Pair; 3] = [
    (
        0x11,
        0x21,
        QpType::Rc,
        PathMtu::Mtu256,
        false,
        None,
        Target::Own(0),
    ),
    (
        0x12,
        0x22,
        QpType::Rc,
        PathMtu::Mtu1024,
        true,
        Some(5),
        Target::Shared(1),
    ),
    (
        0x13,
        0x23,
        QpType::Ud,
        PathMtu::Mtu512,
        true,
        None,
        Target::Own(2),
    ),
];

fn v4(n: u8) -> Ipv4Address {
    Ipv4Address::new(10, 0, 0, n)
}

fn v6(n: u8) -> Ipv6Address {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = n;
    Ipv6Address(a)
}

fn nic(n: u8) -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, n]),
        ipv4: v4(n),
        ipv6: v6(n),
    }
}

fn av(from: u8, to: u8, ipv6: bool, vlan: Option<u16>) -> qp::AddressVector {
    let ip = if ipv6 {
        IpPair::V6 {
            src: v6(from),
            dst: v6(to),
        }
    } else {
        IpPair::V4 {
            src: v4(from),
            dst: v4(to),
        }
    };
    qp::AddressVector {
        vlan,
        ..qp::AddressVector::new(
            ip,
            EthernetAddress([2, 0, 0, 0, 0, from]),
            EthernetAddress([2, 0, 0, 0, 0, to]),
        )
    }
}

fn first_psn(i: usize) -> Psn {
    // Near the wrap, so messages cross it.
    Psn::new(0xFF_FFF8 + i as u32).unwrap()
}

/// NIC A: the sender.
struct Sender {
    e: SendEngine,
    q: Queues,
    mem: HostMemory,
    produced: [u32; 3],
}

/// NIC B: the receiver (its send engine holds its QP and region tables).
struct Receiver {
    e: SendEngine,
    rx: RecvEngine<8>,
    mem: HostMemory,
    posted: [u32; 8],
    next_buf: u64,
}

fn sender() -> Sender {
    let mut e = SendEngine::new(nic(1), Profile::Linux);
    e.mrs
        .register(MemoryRegion {
            lkey: 0x100,
            base: A_DATA,
            length: A_DATA_LEN as u64,
            pd: 1,
            access: Access::LOCAL_WRITE,
        })
        .unwrap();
    let mut q = Queues::new(
        CompletionRing::new(Ring::new(12).unwrap(), 0).unwrap(),
        A_CQ,
    );
    for (i, &(a, b, qp_type, mtu, ipv6, vlan, _)) in PAIRS.iter().enumerate() {
        let rc = qp_type == QpType::Rc;
        let cfg = QpConfig {
            qp_type: qp_type.into(),
            pd: 1,
            mtu,
            psn: first_psn(i),
            dest_qpn: if rc { b } else { 0 },
            q_key: QKEY,
            av: rc.then(|| av(1, 2, ipv6, vlan)),
        };
        e.qps.create(a, cfg).unwrap();
        e.qps.bring_up(a).unwrap();
        let ring = SendRing::new(
            Ring::new(RING_LOG2).unwrap(),
            4,
            A_RINGS + i as u64 * 0x40000,
        );
        q.attach(a, ring.unwrap(), 0).unwrap();
    }
    let mut mem = HostMemory::new();
    mem.add(A_DATA, A_DATA_LEN, Fill::Counter).unwrap();
    mem.add(A_RINGS, 3 * 0x40000, Fill::Zero).unwrap();
    mem.add(A_CQ, CQE_BYTES << 12, Fill::Zero).unwrap();
    Sender {
        e,
        q,
        mem,
        produced: [0; 3],
    }
}

fn wq_config(w: u16, qpn: u32, raw: bool) -> WqConfig {
    WqConfig {
        qpn,
        pd: 1,
        ring: RecvRing::new(
            Ring::new(RING_LOG2).unwrap(),
            2,
            B_RINGS + u64::from(w) * 0x10000,
        )
        .unwrap(),
        cq: CompletionRing::new(Ring::new(RING_LOG2).unwrap(), 0).unwrap(),
        cq_base: B_CQS + u64::from(w) * 0x10000,
        raw,
    }
}

fn receiver() -> Receiver {
    let mut e = SendEngine::new(nic(2), Profile::Linux);
    for (lkey, base, len, access) in [
        (B_LKEY, B_RBUF, B_RBUF_LEN, Access::LOCAL_WRITE),
        (RKEY, B_WBUF, B_WBUF_LEN, Access::REMOTE_WRITE),
    ] {
        e.mrs
            .register(MemoryRegion {
                lkey,
                base,
                length: len as u64,
                pd: 1,
                access,
            })
            .unwrap();
    }
    let mut rx = RecvEngine::<8>::new();
    for (i, &(a, b, qp_type, mtu, ipv6, vlan, target)) in PAIRS.iter().enumerate() {
        let rc = qp_type == QpType::Rc;
        let cfg = QpConfig {
            qp_type: qp_type.into(),
            pd: 1,
            mtu,
            psn: Psn::new(0x1000).unwrap(),
            dest_qpn: if rc { a } else { 0 },
            q_key: QKEY,
            av: rc.then(|| av(2, 1, ipv6, vlan)),
        };
        e.qps.create(b, cfg).unwrap();
        e.qps.bring_up(b).unwrap();
        let w = i as u16;
        rx.create_wq(w, wq_config(w, b, false)).unwrap();
        rx.modify_wq(w, WqState::Ready).unwrap();
        rx.attach(&e.qps, b, target, first_psn(i)).unwrap();
    }
    let mut mem = HostMemory::new();
    mem.add(B_RBUF, B_RBUF_LEN, Fill::Zero).unwrap();
    mem.add(B_WBUF, B_WBUF_LEN, Fill::Zero).unwrap();
    mem.add(B_RINGS, 8 * 0x10000, Fill::Zero).unwrap();
    mem.add(B_CQS, 8 * 0x10000, Fill::Zero).unwrap();
    Receiver {
        e,
        rx,
        mem,
        posted: [0; 8],
        next_buf: B_RBUF,
    }
}

impl Receiver {
    /// Posts a receive WQE on `w` whose entries have `lens` bytes (fresh buffers, with gaps);
    /// returns the entries.
    fn post(&mut self, w: u16, wr_id: u64, lens: &[u32], lkey: u32) -> Vec<DataSegment> {
        let sges: Vec<DataSegment> = lens
            .iter()
            .map(|&length| {
                let addr = self.next_buf;
                self.next_buf += u64::from(length) + 24;
                DataSegment { addr, length, lkey }
            })
            .collect();
        assert!(
            self.next_buf < B_RBUF + B_RBUF_LEN as u64,
            "test buffers fit"
        );
        let wqe = RecvWqe::new(wr_id, &sges).unwrap();
        let mut slot = [0u8; 256];
        wqe.encode(&mut slot).unwrap();
        let wq = *self.rx.wq(w).unwrap();
        let index = self.posted[usize::from(w)];
        self.mem.write(wq.config.ring.addr(index), &slot).unwrap();
        self.posted[usize::from(w)] = index + 1;
        assert_eq!(self.rx.post(w, index + 1), Ok(1));
        sges
    }

    /// The bytes of `len` from the buffers `sges`, in order.
    fn gather(&self, sges: &[DataSegment], len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for s in sges {
            let n = (s.length as usize).min(len - out.len());
            let mut b = vec![0u8; n];
            self.mem.read(s.addr, &mut b).unwrap();
            out.extend(b);
        }
        out
    }

    /// The completion at index `i` of `w`, read back from host memory.
    fn cqe(&self, w: u16, i: u32) -> RecvCqe {
        let wq = self.rx.wq(w).unwrap();
        let mut b = [0u8; CQE_BYTES];
        self.mem.read(wq.cqe_addr(i), &mut b).unwrap();
        RecvCqe::decode(&b).unwrap()
    }

    fn take(&mut self, frame: &[u8], meta: &Meta) -> Result<rocenic_model::rx::Accepted, Discard> {
        self.rx
            .receive(&mut self.e.qps, &self.e.mrs, &mut self.mem, frame, meta)
    }
}

impl Sender {
    /// Posts one WR on pair `p` and runs the engine: the frames.
    fn send(
        &mut self,
        p: usize,
        opcode: Opcode,
        off: u64,
        len: u32,
        imm: u32,
        raddr: u64,
    ) -> Vec<Vec<u8>> {
        let (a, b, qp_type, ..) = PAIRS[p];
        let index = self.produced[p];
        let sge = [DataSegment {
            addr: A_DATA + off,
            length: len,
            lkey: 0x100,
        }];
        let wr = WorkRequest {
            opcode,
            flags: Flags::SIGNALED,
            index,
            imm: if opcode.has_imm() { imm } else { 0 },
            wr_id: u64::from(index),
            av: (qp_type == QpType::Ud).then_some(wqe::AddressVector {
                dqpn: b,
                qkey: QKEY,
                dgid: v6(2).0,
                dmac: B_MAC,
                vlan: None,
                flow_label: 0,
                tclass: 0,
                hop_limit: 64,
            }),
            raddr: opcode.has_raddr().then_some(RemoteAddress {
                addr: raddr,
                rkey: RKEY,
            }),
            tso: None,
            payload: Payload::Gather(&sge),
        };
        let mut bytes = vec![0u8; MAX_WQE_BYTES];
        Wqe::encode(&wr, &mut bytes).unwrap();
        let ring = SendRing::new(
            Ring::new(RING_LOG2).unwrap(),
            4,
            A_RINGS + p as u64 * 0x40000,
        );
        self.mem.write(ring.unwrap().addr(index), &bytes).unwrap();
        self.produced[p] = index + 1;
        self.q.doorbell(a, index + 1).unwrap();
        let mut frames = Vec::new();
        loop {
            let step = self
                .q
                .step(&mut self.e, &mut self.mem, &mut |f: &[u8]| {
                    frames.push(f.to_vec())
                })
                .unwrap();
            match step {
                Step::Idle => break,
                Step::Ran { cqe, .. } => {
                    let (_, c) = cqe.expect("signaled");
                    assert_eq!(c.status, Status::Success, "the sender's WR completes");
                    let n = self.q.cq().producer();
                    self.q.cq_doorbell(n).unwrap();
                }
                Step::CqFull => unreachable!("consumed after each WR"),
            }
        }
        frames
    }

    fn payload(&self, off: u64, len: u32) -> Vec<u8> {
        let mut b = vec![0u8; len as usize];
        self.mem.read(A_DATA + off, &mut b).unwrap();
        b
    }
}

/// One generated message.
#[derive(Clone, Debug)]
struct Msg {
    pair: usize,
    /// 0 SEND, 1 SEND_IMM, 2 RDMA WRITE, 3 RDMA WRITE_IMM (UD: SEND / SEND_IMM only).
    kind: u8,
    off: u64,
    len: u32,
    imm: u32,
    /// How the receive WQE's capacity is split (fractions of the need, at least one entry).
    split: Vec<u8>,
}

fn msg() -> impl Strategy<Value = Msg> {
    (
        0usize..3,
        0u8..4,
        0u64..0x8000,
        1u32..3500,
        any::<u32>(),
        prop::collection::vec(1u8..=255, 1..5),
    )
        .prop_map(|(pair, kind, off, len, imm, split)| {
            let ud = PAIRS[pair].2 == QpType::Ud;
            Msg {
                pair,
                kind: if ud { kind % 2 } else { kind },
                off,
                // UD messages fit one packet of the QP's MTU.
                len: if ud { len % 512 + 1 } else { len },
                imm,
                split,
            }
        })
}

/// Entry lengths summing to exactly `need` (each at least 1), shaped by `split`.
fn entries(need: u32, split: &[u8]) -> Vec<u32> {
    let total: u32 = split.iter().map(|&s| u32::from(s)).sum();
    let mut lens: Vec<u32> = split
        .iter()
        .map(|&s| (u64::from(need) * u64::from(s) / u64::from(total)).max(1) as u32)
        .collect();
    let sum: u32 = lens.iter().sum();
    if sum > need {
        lens = vec![need];
    } else {
        *lens.last_mut().unwrap() += need - sum;
    }
    lens
}

proptest! {
    #![proptest_config(config("rx_engine::messages_land_whole", 24))]

    /// Random messages over the three pairs: every byte lands where the WQE or RETH says,
    /// every completion says what was sent, nothing is discarded.
    #[test]
    fn messages_land_whole(msgs in prop::collection::vec(msg(), 1..40)) {
        let mut a = sender();
        let mut b = receiver();
        let mut wbuf_next = B_WBUF;
        let mut completions = [0u32; 8];
        let mut frames_total = 0u64;
        for (k, m) in msgs.iter().enumerate() {
            let (_, bqpn, qp_type, _, ipv6, ..) = PAIRS[m.pair];
            let ud = qp_type == QpType::Ud;
            let w = match PAIRS[m.pair].6 {
                Target::Own(w) | Target::Shared(w) => w,
                Target::Rss => unreachable!(),
            };
            let opcode = [Opcode::Send, Opcode::SendImm, Opcode::RdmaWrite, Opcode::RdmaWriteImm]
                [usize::from(m.kind)];
            let write = m.kind >= 2;
            let raddr = wbuf_next;
            if write {
                wbuf_next += u64::from(m.len) + 8;
                if wbuf_next > B_WBUF + B_WBUF_LEN as u64 {
                    wbuf_next = B_WBUF;
                    continue;
                }
            }
            let need = if ud { m.len + GRH_AREA as u32 } else { m.len };
            let wr_id = 0x5000 + k as u64;
            let sges = (!write || m.kind == 3).then(|| b.post(w, wr_id, &entries(need, &m.split), B_LKEY));
            let frames = a.send(m.pair, opcode, m.off, m.len, m.imm, raddr);
            frames_total += frames.len() as u64;
            let mut last = None;
            for f in &frames {
                prop_assert!(RoceFrame::parse(f).unwrap().is_valid());
                let got = b.take(f, &Meta::default());
                prop_assert!(got.is_ok(), "message {k}: {got:?}");
                last = got.unwrap().completion;
            }
            let sent = a.payload(m.off, m.len);
            if write {
                let mut landed = vec![0u8; m.len as usize];
                b.mem.read(raddr, &mut landed).unwrap();
                prop_assert_eq!(&landed, &sent, "message {}: RDMA WRITE bytes", k);
            }
            match sges {
                None => prop_assert!(last.is_none()),
                Some(sges) => {
                    let (i, c) = last.expect("the last packet completes the WQE");
                    prop_assert_eq!(i, completions[usize::from(w)]);
                    completions[usize::from(w)] += 1;
                    prop_assert_eq!(b.cqe(w, i), c, "the entry in memory is the one returned");
                    let imm = m.kind % 2 == 1;
                    let want = RecvCqe {
                        wr_id,
                        qpn: bqpn,
                        byte_len: need,
                        imm: if imm { m.imm } else { 0 },
                        hash: 0,
                        src_qp: if ud { PAIRS[m.pair].0 } else { 0 },
                        opcode: if write { RecvOpcode::RecvRdmaWithImm } else { RecvOpcode::Recv },
                        status: Status::Success,
                        flags: RecvFlags::CSUM_OK
                            .union(RecvFlags::when(imm, RecvFlags::IMM))
                            .union(RecvFlags::when(ud, RecvFlags::GRH)),
                        phase: true,
                    };
                    prop_assert_eq!(c, want, "message {}", k);
                    if !write {
                        let landed = b.gather(&sges, need as usize);
                        let body = if ud { &landed[GRH_AREA..] } else { &landed[..] };
                        prop_assert_eq!(body, &sent[..], "message {}: SEND bytes", k);
                        if ud {
                            // The GRH area holds the IPv6 header as it came.
                            let f = RoceFrame::parse(frames.last().unwrap()).unwrap();
                            let l3 = f.l3_offset();
                            prop_assert!(ipv6);
                            prop_assert_eq!(&landed[..GRH_AREA], &f.frame()[l3..l3 + GRH_AREA]);
                        }
                    }
                }
            }
        }
        let counts = b.rx.counts();
        prop_assert_eq!(counts.accepted, frames_total);
        prop_assert_eq!(counts.discarded, [0; Discard::ALL.len()]);
    }
}

/// The frames of one message on pair `p` (buffers posted by the caller).
fn frames_of(a: &mut Sender, p: usize, opcode: Opcode, len: u32) -> Vec<Vec<u8>> {
    a.send(p, opcode, 0x100, len, 0xABCD, B_WBUF)
}

#[test]
fn discards_leave_no_trace() {
    let mut a = sender();
    let mut b = receiver();
    // A bad ICRC: one payload bit flipped.
    let frames = frames_of(&mut a, 0, Opcode::Send, 100);
    let mut bad = frames[0].clone();
    let at = bad.len() - 10;
    bad[at] ^= 1;
    let before = b.mem.clone();
    assert_eq!(b.take(&bad, &Meta::default()), Err(Discard::Icrc));
    // No WQE posted yet: the good frame is refused and its PSN not taken.
    assert_eq!(b.take(&frames[0], &Meta::default()), Err(Discard::NoWqe));
    assert_eq!(b.rx.expected_psn(0x21), Some(first_psn(0)));
    assert!(b.mem.regions().eq(before.regions()), "nothing written");
    b.post(0, 1, &[100], B_LKEY);
    assert!(b.take(&frames[0], &Meta::default()).is_ok());
    // The same frame again is a duplicate.
    assert_eq!(b.take(&frames[0], &Meta::default()), Err(Discard::Psn));
    // A gap: the second packet of a three-packet message without its first.
    let frames = frames_of(&mut a, 0, Opcode::Send, 600);
    assert_eq!(frames.len(), 3);
    b.post(0, 2, &[600], B_LKEY);
    assert_eq!(b.take(&frames[1], &Meta::default()), Err(Discard::Psn));
    for f in &frames {
        assert!(b.take(f, &Meta::default()).is_ok());
    }
    // UD with another Q_Key: rewrite the DETH and fix the ICRC.
    let frames = frames_of(&mut a, 2, Opcode::Send, 64);
    let mut bad = frames[0].clone();
    let f = RoceFrame::parse(&bad).unwrap();
    let deth = f.bth_offset() + 12;
    bad[deth + 3] ^= 1;
    rocenic_model::wire::icrc_fill(&mut bad).unwrap();
    b.post(2, 3, &[200], B_LKEY);
    assert_eq!(b.take(&bad, &Meta::default()), Err(Discard::QKey));
    assert!(b.take(&frames[0], &Meta::default()).is_ok());
    // A frame for a QP with no receive side.
    let mut bad = frames[0].clone();
    let bth = RoceFrame::parse(&bad).unwrap().bth_offset();
    bad[bth + 7] = 0x77;
    rocenic_model::wire::icrc_fill(&mut bad).unwrap();
    assert_eq!(b.take(&bad, &Meta::default()), Err(Discard::NoQp));
    let c = b.rx.counts();
    assert_eq!(c.accepted, 5);
    for (d, n) in [
        (Discard::Icrc, 1),
        (Discard::NoWqe, 1),
        (Discard::Psn, 2),
        (Discard::QKey, 1),
        (Discard::NoQp, 1),
    ] {
        assert_eq!(c.discarded(d), n, "{d}");
    }
}

#[test]
fn errors_complete_and_flush() {
    let mut a = sender();
    let mut b = receiver();
    // RC on its own queue: a buffer one byte short completes LOC_LEN_ERR at the packet that
    // overflows it; the QP and the queue go to ERR; the rest of the message is refused.
    b.post(0, 10, &[599], B_LKEY);
    b.post(0, 11, &[64], B_LKEY);
    b.post(0, 12, &[64], B_LKEY);
    let frames = frames_of(&mut a, 0, Opcode::Send, 600);
    assert!(b
        .take(&frames[0], &Meta::default())
        .unwrap()
        .completion
        .is_none());
    assert!(b
        .take(&frames[1], &Meta::default())
        .unwrap()
        .completion
        .is_none());
    let (_, c) = b
        .take(&frames[2], &Meta::default())
        .unwrap()
        .completion
        .unwrap();
    assert_eq!(
        (c.wr_id, c.status, c.byte_len),
        (10, Status::LocLenErr, 600)
    );
    assert_eq!(b.e.qps.get(0x21).unwrap().state(), QpState::Err);
    let more = frames_of(&mut a, 0, Opcode::Send, 10);
    assert_eq!(b.take(&more[0], &Meta::default()), Err(Discard::QpState));
    // The two WQEs left flush, in order, then nothing.
    for wr_id in [11, 12] {
        let (w, _, c) = b.rx.flush(&b.e.qps, &mut b.mem).unwrap().unwrap();
        assert_eq!((w, c.wr_id, c.status), (0, wr_id, Status::WrFlushErr));
    }
    assert_eq!(b.rx.flush(&b.e.qps, &mut b.mem), Ok(None));
    assert_eq!(b.rx.wq(0).unwrap().state, WqState::Err);

    // Shared queue: an entry with a key of no region completes LOC_PROT_ERR before any byte
    // lands; the QP goes to ERR, the shared queue stays READY.
    b.post(1, 20, &[100], 0x999);
    let frames = frames_of(&mut a, 1, Opcode::SendImm, 100);
    let (_, c) = b
        .take(&frames[0], &Meta::default())
        .unwrap()
        .completion
        .unwrap();
    assert_eq!((c.wr_id, c.status, c.imm), (20, Status::LocProtErr, 0xABCD));
    assert_eq!(b.e.qps.get(0x22).unwrap().state(), QpState::Err);
    assert_eq!(b.rx.wq(1).unwrap().state, WqState::Ready);

    // UD: a buffer that cannot hold the GRH area and the payload.
    b.post(2, 30, &[GRH_AREA as u32 + 63], B_LKEY);
    let frames = frames_of(&mut a, 2, Opcode::Send, 64);
    let (_, c) = b
        .take(&frames[0], &Meta::default())
        .unwrap()
        .completion
        .unwrap();
    assert_eq!((c.wr_id, c.status), (30, Status::LocLenErr));
    assert_eq!(b.e.qps.get(0x23).unwrap().state(), QpState::Err);

    // An RDMA WRITE under a key of no region, or past its region, is refused whole.
    let mut a = sender();
    let mut b = receiver();
    let frames = a.send(
        0,
        Opcode::RdmaWrite,
        0,
        100,
        0,
        B_WBUF + B_WBUF_LEN as u64 - 50,
    );
    assert_eq!(b.take(&frames[0], &Meta::default()), Err(Discard::RKey));
    assert_eq!(b.e.qps.get(0x21).unwrap().state(), QpState::Rts);
}

/// A QP moved to ERR in the middle of a SEND: the WQE its first packet took completes
/// `WR_FLUSH_ERR` at the first flush step, before its queue's posted WQEs (it was taken first),
/// on its own queue and on a shared one (which stays READY and would otherwise never see it
/// again). Each WQE completes exactly once.
#[test]
fn err_mid_message_flushes_the_wqe_in_progress() {
    let mut a = sender();
    let mut b = receiver();
    // Own queue: one of three packets in, then software moves the QP to ERR.
    b.post(0, 40, &[600], B_LKEY);
    b.post(0, 41, &[64], B_LKEY);
    let frames = frames_of(&mut a, 0, Opcode::Send, 600);
    assert_eq!(frames.len(), 3);
    assert!(b
        .take(&frames[0], &Meta::default())
        .unwrap()
        .completion
        .is_none());
    b.e.qps.modify(0x21, QpState::Err).unwrap();
    assert_eq!(b.take(&frames[1], &Meta::default()), Err(Discard::QpState));
    for wr_id in [40, 41] {
        let (w, _, c) = b.rx.flush(&b.e.qps, &mut b.mem).unwrap().unwrap();
        assert_eq!(
            (w, c.wr_id, c.qpn, c.status, c.byte_len),
            (0, wr_id, 0x21, Status::WrFlushErr, 0)
        );
    }
    assert_eq!(b.rx.flush(&b.e.qps, &mut b.mem), Ok(None));

    // Shared queue: the message's WQE completes flushed, naming the QP; the queue's other
    // WQE stays posted for the queue's other QPs, and the queue READY.
    b.post(1, 50, &[2000], B_LKEY);
    b.post(1, 51, &[64], B_LKEY);
    let frames = frames_of(&mut a, 1, Opcode::Send, 2000);
    assert_eq!(frames.len(), 2);
    assert!(b
        .take(&frames[0], &Meta::default())
        .unwrap()
        .completion
        .is_none());
    b.e.qps.modify(0x22, QpState::Err).unwrap();
    let (w, _, c) = b.rx.flush(&b.e.qps, &mut b.mem).unwrap().unwrap();
    assert_eq!(
        (w, c.wr_id, c.qpn, c.status),
        (1, 50, 0x22, Status::WrFlushErr)
    );
    assert_eq!(b.rx.flush(&b.e.qps, &mut b.mem), Ok(None));
    assert_eq!(b.rx.wq(1).unwrap().state, WqState::Ready);
    assert_eq!(b.rx.wq(1).unwrap().doorbell.pending(), 1);
}

/// Any packet of a SEND in progress may complete its WQE (the last, or one that fails), so each
/// needs room for a completion: with the ring full it waits (`cq_full`, its PSN not taken),
/// and completes once software frees an entry.
#[test]
fn a_send_in_progress_waits_for_completion_room() {
    let mut a = sender();
    let mut b = receiver();
    // The UD QP moves to the RC QP's shared queue 1, so that it can fill that queue's ring
    // while the RC QP's SEND is in progress.
    b.rx.detach(0x23).unwrap();
    b.rx.attach(&b.e.qps, 0x23, Target::Shared(1), Psn::new(0).unwrap())
        .unwrap();
    // Three packets (MTU 1024) into 1,500 bytes: the second overflows.
    b.post(1, 70, &[1500], B_LKEY);
    let frames = frames_of(&mut a, 1, Opcode::Send, 2500);
    assert_eq!(frames.len(), 3);
    let first = b.take(&frames[0], &Meta::default()).unwrap();
    assert!(first.completion.is_none());
    let slots = 1u32 << RING_LOG2;
    for i in 0..slots {
        b.post(1, 100 + u64::from(i), &[64], B_LKEY);
        let ud = frames_of(&mut a, 2, Opcode::Send, 8);
        let got = b.take(&ud[0], &Meta::default()).unwrap();
        assert!(got.completion.is_some(), "UD {i} completes");
    }
    assert!(!b.rx.wq(1).unwrap().cq_room(), "the ring is full");
    let psn = b.rx.expected_psn(0x22);
    assert_eq!(b.take(&frames[1], &Meta::default()), Err(Discard::CqFull));
    assert_eq!(b.rx.expected_psn(0x22), psn, "its PSN not taken");
    // Software frees one entry: the packet overflows the WQE and completes it.
    b.rx.cq_doorbell(1, 1).unwrap();
    let (_, c) = b
        .take(&frames[1], &Meta::default())
        .unwrap()
        .completion
        .expect("the overflow completes the WQE");
    assert_eq!(
        (c.wr_id, c.qpn, c.status, c.byte_len),
        (70, 0x22, Status::LocLenErr, 2048)
    );
}

/// An RSS QP spreads UD traffic over four work queues by the RSS pipeline's verdict; a
/// steering rule sends frames that are not RoCEv2 whole to a raw queue.
#[test]
fn rss_spreads_ud_and_raw_lands_whole() {
    use rocenic_model::rss::parse::classify;
    use rocenic_model::rss::steer::{distribute, Action, ContextView, Rule, SteeringKey};
    use rocenic_model::rss::{Context, Function, HashFields};
    use rocenic_model::toeplitz::MICROSOFT_KEY;
    use rocenic_model::wire::LinkType;

    let mut a = sender();
    let mut b = receiver();
    // QP 0x23 becomes an RSS QP over queues 3..=6; queue 7 takes raw frames.
    b.rx.detach(0x23).unwrap();
    b.rx.attach(&b.e.qps, 0x23, Target::Rss, Psn::new(0).unwrap())
        .unwrap();
    for w in 3..=7u16 {
        b.rx.create_wq(w, wq_config(w, 0x23, w == 7)).unwrap();
        b.rx.modify_wq(w, WqState::Ready).unwrap();
    }
    let ctx = Context::new(Function::Toeplitz, HashFields::DEFAULT, &MICROSOFT_KEY).unwrap();
    let table: Vec<u16> = (0..16).map(|i| 3 + i % 4).collect();
    let raw_rule = Rule {
        enabled: true,
        value: SteeringKey {
            dst_port: 4792,
            ..SteeringKey::default()
        },
        mask: SteeringKey {
            dst_port: 0xFFFF,
            ..SteeringKey::default()
        },
        action: Action::Queue(7),
    };
    let meta_of = |f: &[u8]| {
        distribute(
            &classify(LinkType::Ethernet, f),
            &[raw_rule],
            &[ContextView {
                context: &ctx,
                table: &table,
            }],
        )
    };
    let frame = frames_of(&mut a, 2, Opcode::Send, 64).remove(0);
    let udp = RoceFrame::parse(&frame).unwrap().udp_offset();
    let mut per_wq = [0u32; 8];
    for k in 0..64u16 {
        let mut f = frame.clone();
        f[udp..udp + 2].copy_from_slice(&(0xC000 + k * 131).to_be_bytes());
        rocenic_model::wire::icrc_fill(&mut f).unwrap();
        let meta = meta_of(&f);
        assert!(meta.hash_type.0 != 0, "hashed");
        let w = meta.queue;
        assert_eq!(w, table[(meta.hash & 15) as usize]);
        b.post(w, 0x100 + u64::from(k), &[200], B_LKEY);
        let got = b.take(&f, &meta).unwrap();
        let (i, c) = got.completion.unwrap();
        assert_eq!(got.wq, Some(w));
        assert_eq!(i, per_wq[usize::from(w)]);
        per_wq[usize::from(w)] += 1;
        assert_eq!(
            (c.wr_id, c.qpn, c.hash),
            (0x100 + u64::from(k), 0x23, meta.hash)
        );
        assert!(c.flags.contains(RecvFlags::HASHED.union(RecvFlags::GRH)));
    }
    assert!(per_wq[3..=6].iter().all(|&n| n > 0), "spread: {per_wq:?}");
    assert_eq!(per_wq[3..=6].iter().sum::<u32>(), 64);

    // Not RoCEv2 (UDP port 4792): the rule picks raw queue 7, the frame lands whole.
    let mut raw = frame.clone();
    raw[udp + 2..udp + 4].copy_from_slice(&4792u16.to_be_bytes());
    let meta = meta_of(&raw);
    assert_eq!(meta.queue, 7);
    let sges = b.post(7, 0x700, &[40, 1000], B_LKEY);
    let (_, c) = b.take(&raw, &meta).unwrap().completion.unwrap();
    assert_eq!(
        (c.wr_id, c.byte_len, c.status),
        (0x700, raw.len() as u32, Status::Success)
    );
    assert_eq!(b.gather(&sges, raw.len()), raw);
    // IPv6 UDP with checksum 0 (as RoCEv2 senders leave it) is not a checksum checked good.
    assert!(!c.flags.contains(RecvFlags::CSUM_OK));
    // A raw frame steered to a queue that is not a raw one is refused.
    let mut to_rss = meta;
    to_rss.queue = 3;
    assert_eq!(b.take(&raw, &to_rss), Err(Discard::NoWq));
}

#[test]
fn attach_and_queue_rules() {
    use rocenic_model::rx::RxError;
    let mut b = receiver();
    // 0x61 has the low six bits of 0x21 (64 slots).
    let cfg = *b.e.qps.get(0x21).unwrap().config();
    b.e.qps.create(0x61, cfg).unwrap();
    assert_eq!(
        b.rx.attach(&b.e.qps, 0x61, Target::Own(0), Psn::new(0).unwrap()),
        Err(RxError::SlotTaken {
            qpn: 0x61,
            holder: 0x21
        })
    );
    assert_eq!(
        b.rx.attach(&b.e.qps, 0x21, Target::Own(0), Psn::new(0).unwrap()),
        Err(RxError::Attached(0x21))
    );
    b.rx.detach(0x21).unwrap();
    assert_eq!(
        b.rx.attach(&b.e.qps, 0x61, Target::Rss, Psn::new(0).unwrap()),
        Err(RxError::RssNotUd(0x61))
    );
    assert_eq!(
        b.rx.attach(&b.e.qps, 0x61, Target::Own(5), Psn::new(0).unwrap()),
        Err(RxError::NoWq(5))
    );
    assert_eq!(
        b.rx.attach(&b.e.qps, 0x99, Target::Own(0), Psn::new(0).unwrap()),
        Err(RxError::NoQp(0x99))
    );
    b.rx.attach(&b.e.qps, 0x61, Target::Own(0), Psn::new(0).unwrap())
        .unwrap();
    assert_eq!(b.rx.expected_psn(0x61), Some(Psn::new(0).unwrap()));
    assert_eq!(b.rx.expected_psn(0x21), None);
    // Queues: no destroy while named, no READY from ERR, a doorbell past the ring refused.
    assert_eq!(b.rx.destroy_wq(0), Err(RxError::InUse(0)));
    assert_eq!(
        b.rx.create_wq(0, wq_config(0, 0x61, false)),
        Err(RxError::WqExists(0))
    );
    assert_eq!(
        b.rx.create_wq(8, wq_config(0, 0x61, false)),
        Err(RxError::WqRange(8))
    );
    b.rx.modify_wq(0, WqState::Err).unwrap();
    assert!(matches!(
        b.rx.modify_wq(0, WqState::Ready),
        Err(RxError::Transition(_))
    ));
    assert!(matches!(
        b.rx.post(1, (1 << RING_LOG2) + 1),
        Err(RxError::Doorbell(_))
    ));
    b.rx.modify_wq(0, WqState::Reset).unwrap();
    assert_eq!(b.rx.wq(0).unwrap().doorbell.producer(), 0);
}
