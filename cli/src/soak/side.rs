//! One NIC of the soak: the reference model with the reliable transport on, its RC QPs to the
//! peer, host memory (random source bytes, a landing area of one 64 KiB slot per message in
//! flight, the rings), and what the host posted and has yet to see complete.

use crate::golden::rng::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::nic::NicModel;
use rocenic_model::qp::{self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::rc::Reliable;
use rocenic_model::rx::{RecvCqe, RecvRing, RecvWqe, Target, WqConfig, WqState};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::{
    CompletionRing, DataSegment, Fill, Flags, HostMemory, Memory, Nic, Opcode, Payload, Queues,
    RemoteAddress, Ring, SendEngine, SendRing, WorkRequest, Wqe, BLOCK_BYTES, MAX_WQE_BYTES,
};
use std::collections::VecDeque;

/// The largest message: 64 KiB.
pub const MAX_LEN: u32 = 1 << 16;
/// Messages in flight per QP (posted, not yet completed at the sender): each has its landing
/// slot, so the host checks a message's bytes before the slot takes another.
pub const WINDOW: usize = 16;
/// The most RC QPs each way.
pub const MAX_QPS: usize = 8;

/// Host memory: the source bytes (a message starts anywhere in the first MiB), the landing
/// slots, the send rings, the send completion ring, the receive rings and their completion
/// rings.
const DATA: u64 = 0x10_0000;
const DATA_LEN: usize = (1 << 20) + MAX_LEN as usize;
const LAND: u64 = 0x100_0000;
const LAND_LEN: usize = 2 * MAX_QPS * WINDOW * MAX_LEN as usize;
const RINGS: u64 = 0x80_0000;
const CQ: u64 = 0x90_0000;
const CQ_LOG2: u32 = 12;
const WQ_RINGS: u64 = 0xA0_0000;
const WQ_CQS: u64 = 0xB0_0000;
/// 64 slots a ring, more than [`WINDOW`]: a ring never holds more than the window.
const RING_LOG2: u32 = 6;
/// Send WQEs of 4 blocks (one gather entry and a remote address need 2).
const SQ_STRIDE_LOG2: u32 = 2;

/// Memory keys: the source (gathered by SENDs and WRITEs, read by the peer's READs) and the
/// landing area (written by receives, the peer's WRITEs and this side's READ responses).
const SRC_LKEY: u32 = 0x100;
const SRC_RKEY: u32 = 0x101;
const LAND_LKEY: u32 = 0x200;
const LAND_RKEY: u32 = 0x201;

/// The path MTUs of QPs 0 to 7, every size twice or more.
const MTUS: [PathMtu; MAX_QPS] = [
    PathMtu::Mtu1024,
    PathMtu::Mtu256,
    PathMtu::Mtu4096,
    PathMtu::Mtu512,
    PathMtu::Mtu2048,
    PathMtu::Mtu1024,
    PathMtu::Mtu4096,
    PathMtu::Mtu2048,
];

/// One message a side sends on a QP.
#[derive(Clone, Copy, Debug)]
pub struct Msg {
    pub opcode: Opcode,
    /// Where its bytes are: this side's source (SEND, WRITE), the peer's (READ).
    pub src: u64,
    pub len: u32,
    pub imm: u32,
    /// Where they land: the peer's slot (SEND, WRITE), this side's (READ).
    pub dst: u64,
}

impl Msg {
    /// Whether it consumes a receive WQE at the peer.
    pub fn takes_wqe(&self) -> bool {
        matches!(
            self.opcode,
            Opcode::Send | Opcode::SendImm | Opcode::RdmaWriteImm
        )
    }
}

/// One NIC and its host.
pub struct Side {
    pub nic: Box<NicModel>,
    pub mem: HostMemory,
    pub qpns: Vec<u32>,
    /// Per QP: send WQEs posted (the ring's producer index and the next WR id).
    pub posted: Vec<u32>,
    /// Per QP: receive WQEs posted on its work queue.
    pub rposted: Vec<u32>,
    /// Per QP: the messages posted and not yet completed, oldest first.
    pub flight: Vec<VecDeque<Msg>>,
    /// Per QP's work queue: receive completions not yet matched with their message.
    pub recvd: Vec<VecDeque<RecvCqe>>,
}

/// The addresses of NIC `n` (1 or 2).
fn addr(n: u8) -> (Ipv4Address, Ipv6Address, EthernetAddress) {
    let mut v6 = [0u8; 16];
    v6[0] = 0xfd;
    v6[15] = n;
    (
        Ipv4Address::new(10, 0, 0, n),
        Ipv6Address(v6),
        EthernetAddress([2, 0, 0, 0, 0, n]),
    )
}

/// QP `i`'s QPN on NIC `n`: distinct low bits, so distinct receive slots.
pub fn qpn(n: u8, i: usize) -> u32 {
    u32::from(n) * 0x40 + i as u32
}

/// NIC `n` (1 or 2) with `qps` RC QPs to the other, its QPs' first PSNs `psns` and the peer's
/// `peer_psns`, the transport's settings `rel`, its source bytes from `rng`.
pub fn side(
    n: u8,
    qps: usize,
    psns: &[u32],
    peer_psns: &[u32],
    rel: Reliable,
    rng: &mut Rng,
) -> Side {
    let (v4, v6, mac) = addr(n);
    let peer = 3 - n;
    let (pv4, pv6, pmac) = addr(peer);
    let mut send = SendEngine::new(
        Nic {
            mac,
            ipv4: v4,
            ipv6: v6,
        },
        Profile::Linux,
    );
    for (lkey, base, length, access) in [
        (SRC_LKEY, DATA, DATA_LEN, Access::NONE),
        (SRC_RKEY, DATA, DATA_LEN, Access::REMOTE_READ),
        (LAND_LKEY, LAND, LAND_LEN, Access::LOCAL_WRITE),
        (LAND_RKEY, LAND, LAND_LEN, Access::REMOTE_WRITE),
    ] {
        send.mrs
            .register(MemoryRegion {
                lkey,
                base,
                length: length as u64,
                pd: 1,
                access,
            })
            .expect("distinct keys");
    }
    let qpns: Vec<u32> = (0..qps).map(|i| qpn(n, i)).collect();
    let mut queues = Queues::new(
        CompletionRing::new(Ring::new(CQ_LOG2).expect("a ring size"), 0).expect("start 0"),
        CQ,
    );
    for i in 0..qps {
        // IPv6 on odd QPs, a VLAN tag on every third.
        let ip = if i % 2 == 1 {
            IpPair::V6 { src: v6, dst: pv6 }
        } else {
            IpPair::V4 { src: v4, dst: pv4 }
        };
        let av = qp::AddressVector {
            vlan: (i % 3 == 2).then_some(100),
            ..qp::AddressVector::new(ip, mac, pmac)
        };
        let config = QpConfig {
            qp_type: QpKind::Rc,
            pd: 1,
            mtu: MTUS[i],
            psn: Psn::new(psns[i]).expect("24 bits"),
            dest_qpn: qpn(peer, i),
            q_key: 0,
            av: Some(av),
        };
        send.qps.create(qpns[i], config).expect("a fresh QPN");
        send.qps.bring_up(qpns[i]).expect("created above");
        queues
            .attach(qpns[i], send_ring(i), 0)
            .expect("a free slot");
    }
    let mut nic = Box::new(NicModel::new(send, queues));
    for (i, &q) in qpns.iter().enumerate() {
        let w = i as u16;
        let cfg = WqConfig {
            qpn: q,
            pd: 1,
            ring: RecvRing::new(
                Ring::new(RING_LOG2).expect("a ring size"),
                1,
                WQ_RINGS + u64::from(w) * 0x1_0000,
            )
            .expect("in range"),
            cq: CompletionRing::new(Ring::new(RING_LOG2).expect("a ring size"), 0)
                .expect("start 0"),
            cq_base: WQ_CQS + u64::from(w) * 0x1_0000,
            raw: false,
        };
        nic.rx.create_wq(w, cfg).expect("a fresh queue");
        nic.rx.modify_wq(w, WqState::Ready).expect("RESET to READY");
        let epsn = Psn::new(peer_psns[i]).expect("24 bits");
        nic.rx
            .attach(&nic.send.qps, q, Target::Own(w), epsn)
            .expect("an RC QP");
    }
    nic.set_reliable(Some(rel));
    let mut mem = HostMemory::new();
    let bytes = rng.bytes(DATA_LEN);
    for (base, len, fill) in [
        (DATA, DATA_LEN, Fill::Bytes(&bytes)),
        (LAND, LAND_LEN, Fill::Zero),
        (RINGS, MAX_QPS * 0x1_0000, Fill::Zero),
        (CQ, 32 << CQ_LOG2, Fill::Zero),
        (WQ_RINGS, MAX_QPS * 0x1_0000, Fill::Zero),
        (WQ_CQS, MAX_QPS * 0x1_0000, Fill::Zero),
    ] {
        mem.add(base, len, fill).expect("disjoint regions");
    }
    Side {
        nic,
        mem,
        posted: vec![0; qps],
        rposted: vec![0; qps],
        flight: vec![VecDeque::new(); qps],
        recvd: vec![VecDeque::new(); qps],
        qpns,
    }
}

/// QP `i`'s send ring.
fn send_ring(i: usize) -> SendRing {
    let ring = Ring::new(RING_LOG2).expect("a ring size");
    SendRing::new(ring, SQ_STRIDE_LOG2, RINGS + i as u64 * 0x1_0000).expect("in range")
}

/// The landing slot of QP `i`'s message `k`: of the peer's messages, or of this side's READs.
pub fn slot(i: usize, k: u32, read: bool) -> u64 {
    let n = (usize::from(read) * MAX_QPS + i) * WINDOW + k as usize % WINDOW;
    LAND + n as u64 * u64::from(MAX_LEN)
}

/// A random message of `lens.0` to `lens.1` bytes on QP `i`, the `k`th this side posts there,
/// of one of `ops` (SEND, SEND with immediate, RDMA WRITE with and without immediate, RDMA
/// READ), each alike.
pub fn message(rng: &mut Rng, i: usize, k: u32, lens: (u32, u32), ops: &[Opcode]) -> Msg {
    let opcode = rng.pick(ops);
    let len = rng.range(u64::from(lens.0), u64::from(lens.1)) as u32;
    Msg {
        opcode,
        src: DATA + rng.below(1 << 20),
        len,
        imm: rng.next() as u32,
        dst: slot(i, k, opcode == Opcode::RdmaRead),
    }
}

impl Side {
    /// Posts a receive WQE on QP `i`'s work queue for a message landing at `dst`.
    pub fn post_recv(&mut self, i: usize, dst: u64) {
        let sges = [DataSegment {
            addr: dst,
            length: MAX_LEN,
            lkey: LAND_LKEY,
        }];
        let wqe = RecvWqe::new(u64::from(self.rposted[i]), &sges).expect("one entry");
        let mut bytes = [0u8; 128];
        wqe.encode(&mut bytes).expect("fits a two-block slot");
        let w = i as u16;
        let at = self
            .nic
            .rx
            .wq(w)
            .expect("created")
            .config
            .ring
            .addr(self.rposted[i]);
        self.mem.write(at, &bytes).expect("the ring is memory");
        self.rposted[i] = self.rposted[i].wrapping_add(1);
        self.nic
            .rx
            .post(w, self.rposted[i])
            .expect("never more than the window");
    }

    /// Writes send WQE `m` on QP `i` (signaled, its WR id its count) and rings.
    pub fn post_send(&mut self, i: usize, m: Msg) {
        let index = self.posted[i];
        let read = m.opcode == Opcode::RdmaRead;
        let (local, remote) = if read {
            ((m.dst, LAND_LKEY), (m.src, SRC_RKEY))
        } else {
            ((m.src, SRC_LKEY), (m.dst, LAND_RKEY))
        };
        let sge = [DataSegment {
            addr: local.0,
            length: m.len,
            lkey: local.1,
        }];
        let wr = WorkRequest {
            opcode: m.opcode,
            flags: Flags::SIGNALED,
            index,
            imm: if m.opcode.has_imm() { m.imm } else { 0 },
            wr_id: u64::from(index),
            av: None,
            raddr: m.opcode.has_raddr().then_some(RemoteAddress {
                addr: remote.0,
                rkey: remote.1,
            }),
            tso: None,
            payload: Payload::Gather(&sge),
        };
        let mut bytes = [0u8; MAX_WQE_BYTES];
        let blocks = Wqe::encode(&wr, &mut bytes).expect("in the format").blocks;
        let n = usize::from(blocks) * BLOCK_BYTES;
        let at = send_ring(i).addr(index);
        self.mem.write(at, &bytes[..n]).expect("the ring is memory");
        self.posted[i] = index.wrapping_add(1);
        self.nic
            .queues
            .doorbell(self.qpns[i], self.posted[i])
            .expect("never more than the window");
        self.flight[i].push_back(m);
    }

    /// `len` bytes at `addr` of this side's memory.
    pub fn read(&self, addr: u64, len: u32) -> Vec<u8> {
        let mut out = vec![0u8; len as usize];
        self.mem.read(addr, &mut out).expect("inside a region");
        out
    }
}
