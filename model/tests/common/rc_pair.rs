//! The two-NIC harness the RC tests share (docs/rc.md, "Tests"): two `NicModel`s with the
//! reliable transport on, three RC QP pairs between them (MTU 256 over IPv4, 1024 over IPv6,
//! 512 over IPv4 with a VLAN tag), and a pure-Rust wire each way that loses, duplicates and
//! corrupts frames with seeded probabilities, delivers on the next turn and can drop one exact
//! frame. Messages are SENDs, RDMA WRITEs (with and without immediate) and, when asked, RDMA
//! READs; [`check_delivered`] holds every one to exactly once, in order, byte for byte.
//!
//! A test binary includes it with `#[path = "common/rc_pair.rs"] mod rc_pair;` after declaring
//! `splitmix` the same way; not every binary uses every item.
#![allow(dead_code)]

use crate::splitmix::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::link::{Fate, Faults};
use rocenic_model::nic::NicModel;
use rocenic_model::qp::Status;
use rocenic_model::qp::{self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::rc::Reliable;
use rocenic_model::rx::{
    classify, Incoming, RecvCqe, RecvOpcode, RecvRing, RecvWqe, Target, WqConfig, WqState,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::*;
use std::collections::VecDeque;

pub const DATA: u64 = 0x10000;
pub const DATA_LEN: usize = 0x10000;
pub const RINGS: u64 = 0x100000;
pub const CQ: u64 = 0x200000;
pub const RBUF: u64 = 0x1000000;
pub const WBUF: u64 = 0x2000000;
pub const BUF_LEN: usize = 0x800000;
pub const WQ_RINGS: u64 = 0x400000;
pub const WQ_CQS: u64 = 0x500000;
pub const LKEY: u32 = 0x100;
pub const RLKEY: u32 = 0x200;
pub const RKEY: u32 = 0x300;
/// The R_Key of the data area for RDMA READs (the same bytes as `LKEY`'s, remote read).
pub const READ_RKEY: u32 = 0x400;
pub const RING_LOG2: u32 = 8;
pub const PAIRS: usize = 3;
/// Side A's QPNs; B's are these + 0x10. Distinct low bits: distinct receive slots.
pub const QPN_A: [u32; PAIRS] = [0x11, 0x12, 0x13];
pub const MTUS: [PathMtu; PAIRS] = [PathMtu::Mtu256, PathMtu::Mtu1024, PathMtu::Mtu512];

pub fn addr(n: u8) -> (Ipv4Address, Ipv6Address, EthernetAddress) {
    let mut v6 = [0u8; 16];
    v6[0] = 0xfd;
    v6[15] = n;
    (
        Ipv4Address::new(10, 0, 0, n),
        Ipv6Address(v6),
        EthernetAddress([2, 0, 0, 0, 0, n]),
    )
}

/// One message a side sends on a pair.
#[derive(Clone, Copy, Debug)]
pub struct Msg {
    pub opcode: Opcode,
    pub src: u64,
    pub len: u32,
    pub imm: u32,
    /// Where it lands at the peer: the receive buffer (SEND) or the RDMA WRITE target. An
    /// RDMA READ is the other way round: `src` is the peer's bytes, `dst` where they land here.
    pub dst: u64,
}

impl Msg {
    pub fn takes_wqe(&self) -> bool {
        !matches!(self.opcode, Opcode::RdmaWrite | Opcode::RdmaRead)
    }
}

/// One NIC, its memory, and what it posted and saw.
pub struct Side {
    pub nic: Box<NicModel>,
    pub mem: HostMemory,
    pub qpns: [u32; PAIRS],
    /// Send WQEs posted per pair (the ring's producer index).
    pub posted: [u32; PAIRS],
    /// Receive WQEs posted per pair's work queue.
    pub rposted: [u32; PAIRS],
    /// Send completions seen, per pair: (wr_id, status).
    pub sent: [Vec<(u64, Status)>; PAIRS],
    /// Receive completions seen, per pair's work queue.
    pub recvd: [Vec<RecvCqe>; PAIRS],
    pub next_rbuf: u64,
    pub next_wbuf: u64,
}

/// A side with three RC QPs to the peer (`n` is 1 or 2), the PSNs its QPs start from, and the
/// reliable settings.
pub fn side(
    n: u8,
    psns: [u32; PAIRS],
    peer_psns: [u32; PAIRS],
    rel: Option<Reliable>,
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
    for (lkey, base, len, access) in [
        (LKEY, DATA, DATA_LEN, Access::LOCAL_WRITE),
        (RLKEY, RBUF, BUF_LEN, Access::LOCAL_WRITE),
        (RKEY, WBUF, BUF_LEN, Access::REMOTE_WRITE),
        (READ_RKEY, DATA, DATA_LEN, Access::REMOTE_READ),
    ] {
        send.mrs
            .register(MemoryRegion {
                lkey,
                base,
                length: len as u64,
                pd: 1,
                access,
            })
            .unwrap();
    }
    let offset = if n == 1 { 0 } else { 0x10 };
    let qpns = QPN_A.map(|q| q + offset);
    let peers = QPN_A.map(|q| q + 0x10 - offset);
    let mut queues = Queues::new(CompletionRing::new(Ring::new(12).unwrap(), 0).unwrap(), CQ);
    for i in 0..PAIRS {
        let ip = if i == 1 {
            IpPair::V6 { src: v6, dst: pv6 }
        } else {
            IpPair::V4 { src: v4, dst: pv4 }
        };
        let av = qp::AddressVector {
            vlan: (i == 2).then_some(7),
            ..qp::AddressVector::new(ip, mac, pmac)
        };
        send.qps
            .create(
                qpns[i],
                QpConfig {
                    qp_type: QpKind::Rc,
                    pd: 1,
                    mtu: MTUS[i],
                    psn: Psn::new(psns[i]).unwrap(),
                    dest_qpn: peers[i],
                    q_key: 0,
                    av: Some(av),
                },
            )
            .unwrap();
        send.qps.bring_up(qpns[i]).unwrap();
        let ring = SendRing::new(Ring::new(RING_LOG2).unwrap(), 2, RINGS + i as u64 * 0x10000);
        queues.attach(qpns[i], ring.unwrap(), 0).unwrap();
    }
    let mut nic = Box::new(NicModel::new(send, queues));
    for i in 0..PAIRS {
        let w = i as u16;
        let cfg = WqConfig {
            qpn: qpns[i],
            pd: 1,
            ring: RecvRing::new(
                Ring::new(RING_LOG2).unwrap(),
                1,
                WQ_RINGS + u64::from(w) * 0x10000,
            )
            .unwrap(),
            cq: CompletionRing::new(Ring::new(RING_LOG2).unwrap(), 0).unwrap(),
            cq_base: WQ_CQS + u64::from(w) * 0x10000,
            raw: false,
        };
        nic.rx.create_wq(w, cfg).unwrap();
        nic.rx.modify_wq(w, WqState::Ready).unwrap();
        nic.rx
            .attach(
                &nic.send.qps,
                qpns[i],
                Target::Own(w),
                Psn::new(peer_psns[i]).unwrap(),
            )
            .unwrap();
    }
    nic.set_reliable(rel);
    let mut mem = HostMemory::new();
    mem.add(DATA, DATA_LEN, Fill::Zero).unwrap();
    let data: Vec<u8> = (0..DATA_LEN).map(|_| rng.next() as u8).collect();
    mem.write(DATA, &data).unwrap();
    mem.add(RINGS, PAIRS * 0x10000, Fill::Zero).unwrap();
    mem.add(CQ, 32 << 12, Fill::Zero).unwrap();
    mem.add(RBUF, BUF_LEN, Fill::Zero).unwrap();
    mem.add(WBUF, BUF_LEN, Fill::Zero).unwrap();
    mem.add(WQ_RINGS, PAIRS * 0x10000, Fill::Zero).unwrap();
    mem.add(WQ_CQS, PAIRS * 0x10000, Fill::Zero).unwrap();
    Side {
        nic,
        mem,
        qpns,
        posted: [0; PAIRS],
        rposted: [0; PAIRS],
        sent: Default::default(),
        recvd: Default::default(),
        next_rbuf: RBUF,
        next_wbuf: WBUF,
    }
}

impl Side {
    /// Claims `len` bytes (at least one) of this side's receive or write buffers.
    pub fn claim(&mut self, write: bool, len: u32) -> u64 {
        let next = if write {
            &mut self.next_wbuf
        } else {
            &mut self.next_rbuf
        };
        let at = *next;
        *next += u64::from(len.max(1)).next_multiple_of(64) + 64;
        assert!(*next < if write { WBUF } else { RBUF } + BUF_LEN as u64);
        at
    }

    /// Posts a receive WQE for `m` on pair `p`'s work queue.
    pub fn post_recv(&mut self, p: usize, m: &Msg) {
        let sges = [DataSegment {
            addr: m.dst,
            length: m.len.max(1),
            lkey: RLKEY,
        }];
        let wqe = RecvWqe::new(u64::from(self.rposted[p]), &sges).unwrap();
        let mut slot = [0u8; 128];
        wqe.encode(&mut slot).unwrap();
        let w = p as u16;
        let at = self.nic.rx.wq(w).unwrap().config.ring.addr(self.rposted[p]);
        self.mem.write(at, &slot).unwrap();
        self.rposted[p] += 1;
        self.nic.rx.post(w, self.rposted[p]).unwrap();
    }

    /// Writes send WQE `m` on pair `p` (signaled, `wr_id` its ring index) and rings.
    pub fn post_send(&mut self, p: usize, m: &Msg) {
        let index = self.posted[p];
        let read = m.opcode == Opcode::RdmaRead;
        let sge = [if read {
            DataSegment {
                addr: m.dst,
                length: m.len,
                lkey: RLKEY,
            }
        } else {
            DataSegment {
                addr: m.src,
                length: m.len,
                lkey: LKEY,
            }
        }];
        let wr = WorkRequest {
            opcode: m.opcode,
            flags: Flags::SIGNALED,
            index,
            imm: if m.opcode.has_imm() { m.imm } else { 0 },
            wr_id: u64::from(index),
            av: None,
            raddr: m.opcode.has_raddr().then_some(if read {
                RemoteAddress {
                    addr: m.src,
                    rkey: READ_RKEY,
                }
            } else {
                RemoteAddress {
                    addr: m.dst,
                    rkey: RKEY,
                }
            }),
            tso: None,
            payload: Payload::Gather(if m.len == 0 { &[] } else { &sge }),
        };
        let mut bytes = vec![0u8; MAX_WQE_BYTES];
        let n = usize::from(Wqe::encode(&wr, &mut bytes).unwrap().blocks) * BLOCK_BYTES;
        let ring = SendRing::new(Ring::new(RING_LOG2).unwrap(), 2, RINGS + p as u64 * 0x10000);
        self.mem
            .write(ring.unwrap().addr(index), &bytes[..n])
            .unwrap();
        self.posted[p] += 1;
        self.nic
            .queues
            .doorbell(self.qpns[p], self.posted[p])
            .unwrap();
    }
}

/// A random message to `to` (claiming its landing place there).
pub fn message(rng: &mut Rng, to: &mut Side, max_len: u32) -> Msg {
    let opcode = [
        Opcode::Send,
        Opcode::SendImm,
        Opcode::RdmaWrite,
        Opcode::RdmaWriteImm,
    ][rng.below(4) as usize];
    message_of(rng, to, opcode, max_len)
}

/// A random message from `from` to `to`, one in five an RDMA READ of `to`'s data area into
/// `from`'s buffers.
pub fn message_or_read(rng: &mut Rng, from: &mut Side, to: &mut Side, max_len: u32) -> Msg {
    if rng.below(5) == 0 {
        let mut m = message_of(rng, to, Opcode::RdmaRead, max_len);
        m.dst = from.claim(false, m.len);
        return m;
    }
    message(rng, to, max_len)
}

fn message_of(rng: &mut Rng, to: &mut Side, opcode: Opcode, max_len: u32) -> Msg {
    // Mostly short, some long: 0 B to max_len.
    let len = match rng.below(4) {
        0 => rng.below(64) as u32,
        _ => rng.below(u64::from(max_len) + 1) as u32,
    };
    let src = DATA + rng.below((DATA_LEN as u64) - u64::from(len));
    let dst = if opcode == Opcode::RdmaRead {
        0
    } else {
        to.claim(opcode.has_raddr(), len)
    };
    Msg {
        opcode,
        src,
        len,
        imm: rng.next() as u32,
        dst,
    }
}

/// Picks the exact frame to drop.
pub type Pick = Box<dyn FnMut(&[u8]) -> bool>;

/// One direction of the wire: frames in flight (delivered on the next turn), the seeded
/// faults (each frame's fate `model::link::Faults::fate` of the seed, the direction and its
/// place, as every rocenic wire draws it), and an exact frame to drop once.
pub struct Wire {
    pub flight: VecDeque<Vec<u8>>,
    pub loss: f64,
    pub dup: f64,
    pub corrupt: f64,
    pub drop_once: Option<Pick>,
    pub frames: u64,
    pub dropped: u64,
    seed: u64,
    dir: u8,
}

impl Wire {
    pub fn new(dir: u8, seed: u64, loss: f64, dup: f64, corrupt: f64) -> Wire {
        Wire {
            flight: VecDeque::new(),
            loss,
            dup,
            corrupt,
            drop_once: None,
            frames: 0,
            dropped: 0,
            seed,
            dir,
        }
    }

    /// What reaches the far end of the frames in flight.
    pub fn deliver(&mut self) -> Vec<Vec<u8>> {
        let faults = Faults {
            loss: self.loss,
            corrupt: self.corrupt,
            duplicate: self.dup,
        };
        let mut out = Vec::new();
        for mut f in self.flight.drain(..) {
            let index = self.frames;
            self.frames += 1;
            if let Some(pick) = self.drop_once.as_mut() {
                if pick(&f) {
                    self.drop_once = None;
                    self.dropped += 1;
                    continue;
                }
            }
            let fate = faults.fate(self.seed, self.dir, index, f.len());
            fate.apply(&mut f);
            match fate {
                Fate::Lost => self.dropped += 1,
                Fate::Duplicate => out.extend([f.clone(), f]),
                _ => out.push(f),
            }
        }
        out
    }
}

/// A data packet's (opcode, PSN), `None` for anything else.
pub fn data_psn(f: &[u8]) -> Option<(u8, u32)> {
    match classify(f) {
        Ok(Incoming::Roce(p)) => Some((p.opcode, p.psn)),
        _ => None,
    }
}

/// Two sides and the wire between them.
pub struct Run {
    pub a: Side,
    pub b: Side,
    pub ab: Wire,
    pub ba: Wire,
    pub rng: Rng,
    pub turns: u64,
}

impl Run {
    pub fn new(seed: u64, rel: Option<Reliable>, psns: [u32; PAIRS], wire: (f64, f64, f64)) -> Run {
        let mut rng = Rng(seed);
        let peer = psns.map(|p| (p + 0x1000) & 0xFF_FFFF);
        let a = side(1, psns, peer, rel, &mut rng);
        let b = side(2, peer, psns, rel, &mut rng);
        Run {
            a,
            b,
            ab: Wire::new(0, seed, wire.0, wire.1, wire.2),
            ba: Wire::new(1, seed, wire.0, wire.1, wire.2),
            rng,
            turns: 0,
        }
    }

    /// One turn: the frames in flight arrive, then each side takes one send turn.
    pub fn turn(&mut self) {
        self.turns += 1;
        for (wire, to) in [(&mut self.ab, &mut self.b), (&mut self.ba, &mut self.a)] {
            for f in wire.deliver() {
                if let Ok(acc) = to.nic.receive(&mut to.mem, &f) {
                    if let (Some(w), Some((_, c))) = (acc.wq, acc.completion) {
                        to.recvd[usize::from(w)].push(c);
                    }
                }
            }
        }
        for (from, wire) in [(&mut self.a, &mut self.ab), (&mut self.b, &mut self.ba)] {
            let step = from
                .nic
                .send_step(&mut from.mem, &mut |f: &[u8]| {
                    wire.flight.push_back(f.to_vec())
                })
                .unwrap();
            if let Step::Ran {
                qpn,
                cqe: Some((_, c)),
            } = step
            {
                let p = from.qpns.iter().position(|&q| q == qpn).unwrap();
                from.sent[p].push((c.wr_id, c.status));
            }
        }
    }

    /// Turns until every posted send WQE has completed (or `limit` turns: a hang).
    pub fn until_done(&mut self, limit: u64) {
        let start = self.turns;
        while [&self.a, &self.b]
            .iter()
            .any(|s| (0..PAIRS).any(|p| s.sent[p].len() < s.posted[p] as usize))
        {
            assert!(
                self.turns - start < limit,
                "hang: no completion for {limit} turns"
            );
            self.turn();
        }
        // Let the last ACKs and duplicates settle.
        for _ in 0..4 {
            self.turn();
        }
    }
}

/// Checks that `to` holds every message of `msgs` (sent by `from` on each pair) once, in order,
/// byte for byte, and that every WR completed once with success.
pub fn check_delivered(from: &Side, to: &Side, msgs: &[Vec<Msg>; PAIRS]) {
    for (p, sent) in msgs.iter().enumerate() {
        let want: Vec<(u64, Status)> = (0..sent.len() as u64)
            .map(|i| (i, Status::Success))
            .collect();
        assert_eq!(
            from.sent[p], want,
            "pair {p}: every WR completes once, in order"
        );
        let wqe_msgs: Vec<&Msg> = sent.iter().filter(|m| m.takes_wqe()).collect();
        assert_eq!(
            to.recvd[p].len(),
            wqe_msgs.len(),
            "pair {p}: one receive completion each"
        );
        for (k, (c, m)) in to.recvd[p].iter().zip(&wqe_msgs).enumerate() {
            assert_eq!(
                (c.wr_id, c.status),
                (k as u64, Status::Success),
                "pair {p} recv {k}"
            );
            assert_eq!(c.byte_len, m.len);
            let rdma = m.opcode.has_raddr();
            assert_eq!(
                c.opcode,
                if rdma {
                    RecvOpcode::RecvRdmaWithImm
                } else {
                    RecvOpcode::Recv
                }
            );
            assert_eq!(c.imm, if m.opcode.has_imm() { m.imm } else { 0 });
        }
        for (k, m) in sent.iter().enumerate() {
            // A READ's bytes go the other way: the peer's region into the local buffer.
            let (src, dst) = if m.opcode == Opcode::RdmaRead {
                (to, from)
            } else {
                (from, to)
            };
            let mut want = vec![0u8; m.len as usize];
            src.mem.read(m.src, &mut want).unwrap();
            let mut got = vec![0u8; m.len as usize];
            dst.mem.read(m.dst, &mut got).unwrap();
            assert!(
                got == want,
                "pair {p} message {k} ({:?}, {} B) lands intact",
                m.opcode,
                m.len
            );
        }
        // Exactly once: the responder executed one last packet per message.
        let msn = to.nic.rx.responder(to.qpns[p]).map_or(0, |r| r.msn());
        assert_eq!(msn, sent.len() as u32, "pair {p}: messages executed");
    }
}

/// Posts `n` random messages each way on every pair (receive WQEs first; with `late`, B's for
/// the second half of A's messages are left to the caller), returns them.
pub fn workload(
    run: &mut Run,
    n: usize,
    max_len: u32,
    late: bool,
) -> ([Vec<Msg>; PAIRS], [Vec<Msg>; PAIRS]) {
    workload_with(run, n, max_len, late, false)
}

/// [`workload`], with RDMA READs among the messages when `reads`.
pub fn workload_with(
    run: &mut Run,
    n: usize,
    max_len: u32,
    late: bool,
    reads: bool,
) -> ([Vec<Msg>; PAIRS], [Vec<Msg>; PAIRS]) {
    let mut ab: [Vec<Msg>; PAIRS] = Default::default();
    let mut ba: [Vec<Msg>; PAIRS] = Default::default();
    for p in 0..PAIRS {
        for k in 0..n {
            let m = if reads {
                message_or_read(&mut run.rng, &mut run.a, &mut run.b, max_len)
            } else {
                message(&mut run.rng, &mut run.b, max_len)
            };
            if m.takes_wqe() && !(late && k >= n / 2) {
                run.b.post_recv(p, &m);
            }
            run.a.post_send(p, &m);
            ab[p].push(m);
            let m = if reads {
                message_or_read(&mut run.rng, &mut run.b, &mut run.a, max_len)
            } else {
                message(&mut run.rng, &mut run.a, max_len)
            };
            if m.takes_wqe() {
                run.a.post_recv(p, &m);
            }
            run.b.post_send(p, &m);
            ba[p].push(m);
        }
    }
    (ab, ba)
}

pub fn reliable() -> Reliable {
    Reliable {
        timeout: 6,
        ..Reliable::default()
    }
}

pub fn summary(run: &Run) -> String {
    let (ca, cb) = (
        run.a.nic.queues.rc_counters(),
        run.b.nic.queues.rc_counters(),
    );
    let (na, nb) = (run.a.nic.rc_counts(), run.b.nic.rc_counts());
    format!(
        "{} turns, frames {}+{} ({} dropped), resent {}, timeouts {}, seq NAKs {}, RNR NAKs {}, ACKs sent {}",
        run.turns,
        run.ab.frames,
        run.ba.frames,
        run.ab.dropped + run.ba.dropped,
        ca.resent + cb.resent,
        ca.timeouts + cb.timeouts,
        ca.seq_naks + cb.seq_naks,
        ca.rnr_naks + cb.rnr_naks,
        na.acks_sent + nb.acks_sent,
    )
}
