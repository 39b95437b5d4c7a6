//! The reliable transport joined to the NIC model (docs/rc.md, "Joined to the engines"): two
//! `NicModel`s with the switch on, joined by a wire that loses, duplicates and corrupts frames
//! with seeded probabilities and can drop one exact frame. RC SEND and RDMA WRITE messages
//! (with and without immediate data) of random sizes go both ways over three QP pairs; every
//! message lands exactly once, in order and byte for byte, every work request completes exactly
//! once. Directed runs walk each recovery path: a lost data packet (NAK sequence error, go-back),
//! a lost ACK (timeout, duplicate, re-acknowledgement), RNR, retry exhaustion on a dead link and
//! PSNs wrapping at 2^24; and with the switch off a PSN gap is still discarded silently.
//!
//! Each randomized run prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::entropy::Profile;
use rocenic_model::nic::NicModel;
use rocenic_model::qp::{self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::qp::{QpState, Status};
use rocenic_model::rc::{parse_ack, Reliable};
use rocenic_model::rx::{
    classify, Discard, Incoming, RecvCqe, RecvOpcode, RecvRing, RecvWqe, Target, WqConfig, WqState,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::*;
use std::collections::VecDeque;

#[path = "common/seeded.rs"]
mod seeded;

const DATA: u64 = 0x10000;
const DATA_LEN: usize = 0x10000;
const RINGS: u64 = 0x100000;
const CQ: u64 = 0x200000;
const RBUF: u64 = 0x1000000;
const WBUF: u64 = 0x2000000;
const BUF_LEN: usize = 0x800000;
const WQ_RINGS: u64 = 0x400000;
const WQ_CQS: u64 = 0x500000;
const LKEY: u32 = 0x100;
const RLKEY: u32 = 0x200;
const RKEY: u32 = 0x300;
const RING_LOG2: u32 = 8;
const PAIRS: usize = 3;
/// Side A's QPNs; B's are these + 0x10. Distinct low bits: distinct receive slots.
const QPN_A: [u32; PAIRS] = [0x11, 0x12, 0x13];
const MTUS: [PathMtu; PAIRS] = [PathMtu::Mtu256, PathMtu::Mtu1024, PathMtu::Mtu512];

#[path = "common/splitmix.rs"]
mod splitmix;
use splitmix::Rng;

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

/// One message a side sends on a pair.
#[derive(Clone, Copy, Debug)]
struct Msg {
    opcode: Opcode,
    src: u64,
    len: u32,
    imm: u32,
    /// Where it lands at the peer: the receive buffer (SEND) or the RDMA WRITE target.
    dst: u64,
}

impl Msg {
    fn takes_wqe(&self) -> bool {
        !matches!(self.opcode, Opcode::RdmaWrite)
    }
}

/// One NIC, its memory, and what it posted and saw.
struct Side {
    nic: Box<NicModel>,
    mem: HostMemory,
    qpns: [u32; PAIRS],
    /// Send WQEs posted per pair (the ring's producer index).
    posted: [u32; PAIRS],
    /// Receive WQEs posted per pair's work queue.
    rposted: [u32; PAIRS],
    /// Send completions seen, per pair: (wr_id, status).
    sent: [Vec<(u64, Status)>; PAIRS],
    /// Receive completions seen, per pair's work queue.
    recvd: [Vec<RecvCqe>; PAIRS],
    next_rbuf: u64,
    next_wbuf: u64,
}

/// A side with three RC QPs to the peer (`n` is 1 or 2), the PSNs its QPs start from, and the
/// reliable settings.
fn side(
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
    fn claim(&mut self, write: bool, len: u32) -> u64 {
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
    fn post_recv(&mut self, p: usize, m: &Msg) {
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
    fn post_send(&mut self, p: usize, m: &Msg) {
        let index = self.posted[p];
        let sge = [DataSegment {
            addr: m.src,
            length: m.len,
            lkey: LKEY,
        }];
        let wr = WorkRequest {
            opcode: m.opcode,
            flags: Flags::SIGNALED,
            index,
            imm: if m.opcode.has_imm() { m.imm } else { 0 },
            wr_id: u64::from(index),
            av: None,
            raddr: m.opcode.has_raddr().then_some(RemoteAddress {
                addr: m.dst,
                rkey: RKEY,
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

/// A random message from `from` (claiming its landing place at `to`).
fn message(rng: &mut Rng, to: &mut Side, max_len: u32) -> Msg {
    let opcode = [
        Opcode::Send,
        Opcode::SendImm,
        Opcode::RdmaWrite,
        Opcode::RdmaWriteImm,
    ][rng.below(4) as usize];
    // Mostly short, some long: 0 B to max_len.
    let len = match rng.below(4) {
        0 => rng.below(64) as u32,
        _ => rng.below(u64::from(max_len) + 1) as u32,
    };
    let src = DATA + rng.below((DATA_LEN as u64) - u64::from(len));
    let dst = to.claim(opcode.has_raddr(), len);
    Msg {
        opcode,
        src,
        len,
        imm: rng.next() as u32,
        dst,
    }
}

/// Picks the exact frame to drop.
type Pick = Box<dyn FnMut(&[u8]) -> bool>;

/// One direction of the wire: frames in flight (delivered on the next turn), the seeded
/// faults, and an exact frame to drop once.
struct Wire {
    flight: VecDeque<Vec<u8>>,
    loss: f64,
    dup: f64,
    corrupt: f64,
    drop_once: Option<Pick>,
    frames: u64,
    dropped: u64,
}

impl Wire {
    fn new(loss: f64, dup: f64, corrupt: f64) -> Wire {
        Wire {
            flight: VecDeque::new(),
            loss,
            dup,
            corrupt,
            drop_once: None,
            frames: 0,
            dropped: 0,
        }
    }

    /// What reaches the far end of the frames in flight.
    fn deliver(&mut self, rng: &mut Rng) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for mut f in self.flight.drain(..) {
            self.frames += 1;
            if let Some(pick) = self.drop_once.as_mut() {
                if pick(&f) {
                    self.drop_once = None;
                    self.dropped += 1;
                    continue;
                }
            }
            if rng.chance(self.loss) {
                self.dropped += 1;
                continue;
            }
            if rng.chance(self.corrupt) {
                let i = rng.below(f.len() as u64) as usize;
                f[i] ^= 1 << rng.below(8);
            }
            if rng.chance(self.dup) {
                out.push(f.clone());
            }
            out.push(f);
        }
        out
    }
}

/// A data packet's (opcode, PSN), `None` for anything else.
fn data_psn(f: &[u8]) -> Option<(u8, u32)> {
    match classify(f) {
        Ok(Incoming::Roce(p)) => Some((p.opcode, p.psn)),
        _ => None,
    }
}

/// Two sides and the wire between them.
struct Run {
    a: Side,
    b: Side,
    ab: Wire,
    ba: Wire,
    rng: Rng,
    turns: u64,
}

impl Run {
    fn new(seed: u64, rel: Option<Reliable>, psns: [u32; PAIRS], wire: (f64, f64, f64)) -> Run {
        let mut rng = Rng(seed);
        let peer = psns.map(|p| (p + 0x1000) & 0xFF_FFFF);
        let a = side(1, psns, peer, rel, &mut rng);
        let b = side(2, peer, psns, rel, &mut rng);
        Run {
            a,
            b,
            ab: Wire::new(wire.0, wire.1, wire.2),
            ba: Wire::new(wire.0, wire.1, wire.2),
            rng,
            turns: 0,
        }
    }

    /// One turn: the frames in flight arrive, then each side takes one send turn.
    fn turn(&mut self) {
        self.turns += 1;
        for (wire, to) in [(&mut self.ab, &mut self.b), (&mut self.ba, &mut self.a)] {
            for f in wire.deliver(&mut self.rng) {
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
    fn until_done(&mut self, limit: u64) {
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
fn check_delivered(from: &Side, to: &Side, msgs: &[Vec<Msg>; PAIRS]) {
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
            let mut want = vec![0u8; m.len as usize];
            from.mem.read(m.src, &mut want).unwrap();
            let mut got = vec![0u8; m.len as usize];
            to.mem.read(m.dst, &mut got).unwrap();
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
fn workload(
    run: &mut Run,
    n: usize,
    max_len: u32,
    late: bool,
) -> ([Vec<Msg>; PAIRS], [Vec<Msg>; PAIRS]) {
    let mut ab: [Vec<Msg>; PAIRS] = Default::default();
    let mut ba: [Vec<Msg>; PAIRS] = Default::default();
    for p in 0..PAIRS {
        for k in 0..n {
            let m = message(&mut run.rng, &mut run.b, max_len);
            if m.takes_wqe() && !(late && k >= n / 2) {
                run.b.post_recv(p, &m);
            }
            run.a.post_send(p, &m);
            ab[p].push(m);
            let m = message(&mut run.rng, &mut run.a, max_len);
            if m.takes_wqe() {
                run.a.post_recv(p, &m);
            }
            run.b.post_send(p, &m);
            ba[p].push(m);
        }
    }
    (ab, ba)
}

fn reliable() -> Reliable {
    Reliable {
        timeout: 6,
        ..Reliable::default()
    }
}

fn summary(run: &Run) -> String {
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

proptest! {
    #![proptest_config(seeded::config("rc_nic_lossy_links_deliver_once_in_order", 40))]

    /// Random messages both ways over three pairs, on a wire losing up to 5 %, duplicating up
    /// to 2 % and corrupting up to 2 % of frames each way, PSNs starting anywhere, windows of
    /// 1 to 24 packets, ACKs every 1 to 16; with `late`, B's receive WQEs for the second half
    /// of A's messages are posted only after 150 turns (RNR NAKs until then).
    #[test]
    fn lossy_links_deliver_once_in_order(
        seed in any::<u64>(),
        loss in 0.0f64..0.05,
        dup in 0.0f64..0.02,
        corrupt in 0.0f64..0.02,
        psns in prop::array::uniform3(0u32..(1 << 24)),
        n in 1usize..25,
        max_inflight in 1u32..25,
        ack_every in 1u32..17,
        late in any::<bool>(),
    ) {
        let rel = Reliable { max_inflight, ack_every, ..reliable() };
        let mut run = Run::new(seed, Some(rel), psns, (loss, dup, corrupt));
        let (ab, ba) = workload(&mut run, n, 6000, late);
        if late {
            for _ in 0..150 {
                run.turn();
            }
            for (p, msgs) in ab.iter().enumerate() {
                for m in msgs[n / 2..].iter().filter(|m| m.takes_wqe()) {
                    run.b.post_recv(p, m);
                }
            }
        }
        run.until_done(200_000);
        check_delivered(&run.a, &run.b, &ab);
        check_delivered(&run.b, &run.a, &ba);
    }
}

/// A fixed lossy run whose figures the docs quote: 600 messages (100 per pair each way) at 2 %
/// loss, 1 % duplication and 1 % corruption.
#[test]
fn lossy_run_figures() {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(19);
    eprintln!("lossy_run_figures: seed {seed} (replay with ROCENIC_SEED={seed})");
    let mut run = Run::new(
        seed,
        Some(reliable()),
        [0xFF_FF00, 5, 0x80_0000],
        (0.02, 0.01, 0.01),
    );
    let (ab, ba) = workload(&mut run, 100, 8192, false);
    run.until_done(1_000_000);
    check_delivered(&run.a, &run.b, &ab);
    check_delivered(&run.b, &run.a, &ba);
    let c = run.a.nic.queues.rc_counters();
    assert!(
        c.resent > 0 && c.timeouts + c.seq_naks > 0,
        "{}",
        summary(&run)
    );
    eprintln!("lossy_run_figures: 600 messages: {}", summary(&run));
}

/// One message on pair 1 (1024-byte MTU) from A to B.
fn one_message(run: &mut Run, opcode: Opcode, len: u32, post_recv: bool) -> Msg {
    let dst = run.b.claim(opcode.has_raddr(), len);
    let m = Msg {
        opcode,
        src: DATA + 0x100,
        len,
        imm: 0x1234_5678,
        dst,
    };
    if post_recv && m.takes_wqe() {
        run.b.post_recv(1, &m);
    }
    run.a.post_send(1, &m);
    m
}

fn msgs_on_1(m: Vec<Msg>) -> [Vec<Msg>; PAIRS] {
    [Vec::new(), m, Vec::new()]
}

#[test]
fn a_lost_data_packet_is_naked_once_and_sent_again() {
    let mut run = Run::new(1, Some(reliable()), [0, 100, 0], (0.0, 0.0, 0.0));
    // Five packets; the second (PSN 101) is lost once.
    let m = one_message(&mut run, Opcode::RdmaWriteImm, 4500, true);
    run.ab.drop_once = Some(Box::new(|f: &[u8]| {
        data_psn(f).is_some_and(|(_, psn)| psn == 101)
    }));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(vec![m]));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    assert_eq!((c.seq_naks, c.timeouts), (1, 0), "{}", summary(&run));
    // Go-back-N: 101 and whatever had been sent after it when the NAK came back; those
    // arrived ahead and were dropped without a NAK of their own.
    assert!((1..=4).contains(&c.resent), "{}", summary(&run));
    assert_eq!(run.ab.frames, 5 + c.resent, "nothing else on the wire");
    assert_eq!(run.b.nic.rc_counts().seq_naks_sent, 1);
    assert_eq!(
        run.b.nic.rx.counts().discarded(Discard::Psn),
        c.resent - 1,
        "the packets sent after 101 before the NAK came back arrived ahead"
    );
}

#[test]
fn a_lost_ack_times_out_and_the_duplicate_is_acknowledged_again() {
    let mut run = Run::new(2, Some(reliable()), [0, 7, 0], (0.0, 0.0, 0.0));
    let m = one_message(&mut run, Opcode::Send, 300, true);
    // A spare receive WQE: executing the duplicate again would land it there.
    run.b.post_recv(1, &m);
    run.ba.drop_once = Some(Box::new(|f: &[u8]| parse_ack(f).is_ok()));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(vec![m]));
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    assert_eq!((c.timeouts, c.resent, c.seq_naks), (1, 1, 0));
    assert_eq!(run.b.nic.rc_counts().acks_sent, 2, "the ACK and the re-ACK");
    assert_eq!(
        run.b.nic.rx.counts().discarded(Discard::Psn),
        1,
        "the duplicate"
    );
    assert!(run.turns > 64, "the timeout (64 turns) passed");
}

#[test]
fn rnr_waits_until_a_receive_wqe_is_posted() {
    let rel = Reliable {
        rnr_retry: 7,
        rnr_timer: 4, // 40 µs: ten turns
        ..reliable()
    };
    let mut run = Run::new(3, Some(rel), [0, 50, 0], (0.0, 0.0, 0.0));
    let m = one_message(&mut run, Opcode::SendImm, 2000, false);
    for _ in 0..100 {
        run.turn();
    }
    assert!(
        run.a.sent[1].is_empty(),
        "no completion without a receive WQE"
    );
    let rnr = run.b.nic.rc_counts().rnr_naks_sent;
    assert!(rnr >= 5, "RNR NAKs every delay: {rnr}");
    assert_eq!(
        run.a
            .nic
            .queues
            .requester(QPN_A[1])
            .unwrap()
            .counters()
            .rnr_naks,
        rnr
    );
    run.b.post_recv(1, &m);
    run.until_done(1_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(vec![m]));
}

#[test]
fn a_dead_link_exhausts_the_retries_and_flushes_the_rest() {
    let mut run = Run::new(4, Some(reliable()), [0, 0, 0], (0.0, 0.0, 0.0));
    run.ab.loss = 1.0;
    let ms: Vec<Msg> = (0..3)
        .map(|_| one_message(&mut run, Opcode::Send, 100, true))
        .collect();
    run.until_done(100_000);
    assert_eq!(
        run.a.sent[1],
        [
            (0, Status::RetryExcErr),
            (1, Status::WrFlushErr),
            (2, Status::WrFlushErr)
        ]
    );
    let c = run.a.nic.queues.requester(QPN_A[1]).unwrap().counters();
    // retry_cnt 7: seven timeouts resend, the eighth gives up.
    assert_eq!(c.timeouts, 8, "{}", summary(&run));
    assert_eq!(
        run.a.nic.send.qps.get(QPN_A[1]).unwrap().state(),
        QpState::Err
    );
    // A WR posted after the failure is flushed; the other pairs are untouched.
    run.a.post_send(1, &ms[0]);
    run.until_done(1_000);
    assert_eq!(run.a.sent[1][3], (3, Status::WrFlushErr));
    assert_eq!(
        run.a.nic.send.qps.get(QPN_A[0]).unwrap().state(),
        QpState::Rts
    );
    assert!(run.b.recvd[1].is_empty());
}

#[test]
fn psns_wrap_at_2_24_through_a_go_back() {
    let start = 0xFF_FFFC;
    let mut run = Run::new(5, Some(reliable()), [0, start, 0], (0.0, 0.0, 0.0));
    // Two 5-packet messages: PSNs 0xFFFFFC..=0x000005; PSN 0 is lost once.
    let ms = vec![
        one_message(&mut run, Opcode::RdmaWrite, 4200, true),
        one_message(&mut run, Opcode::Send, 4200, true),
    ];
    run.ab.drop_once = Some(Box::new(|f: &[u8]| {
        data_psn(f).is_some_and(|(_, psn)| psn == 0)
    }));
    run.until_done(10_000);
    check_delivered(&run.a, &run.b, &msgs_on_1(ms));
    let r = run.a.nic.queues.requester(QPN_A[1]).unwrap();
    assert_eq!(r.una().get(), 6, "everything up to PSN 5 acknowledged");
    assert_eq!(r.counters().seq_naks, 1);
}

#[test]
fn with_the_switch_off_nothing_is_acknowledged_and_gaps_are_discarded() {
    let mut run = Run::new(6, None, [0, 10, 0], (0.0, 0.0, 0.0));
    let m = one_message(&mut run, Opcode::Send, 3000, true);
    // The WQE completes on the turn its frames leave, before anything arrives.
    run.turn();
    assert_eq!(run.a.sent[1], [(0, Status::Success)]);
    assert_eq!(run.ab.flight.len(), 3);
    // The middle packet is lost: the rest is discarded as a PSN gap, and nothing answers.
    run.ab.drop_once = Some(Box::new(|f: &[u8]| {
        data_psn(f).is_some_and(|(_, psn)| psn == 11)
    }));
    for _ in 0..10 {
        run.turn();
    }
    assert_eq!(run.b.nic.rx.counts().discarded(Discard::Psn), 1);
    assert_eq!(run.ba.frames, 0, "no ACK or NAK frames");
    assert!(run.b.recvd[1].is_empty());
    assert_eq!(run.b.nic.rc_counts(), Default::default());
    let _ = m;
}

#[test]
fn a_refused_rkey_completes_rem_access_err_and_both_qps_go_to_err() {
    let mut run = Run::new(7, Some(reliable()), [0, 300, 0], (0.0, 0.0, 0.0));
    let good = one_message(&mut run, Opcode::Send, 100, true);
    // Past the end of B's write region: the responder refuses the R_Key's range.
    let bad = Msg {
        opcode: Opcode::RdmaWrite,
        src: DATA,
        len: 600,
        imm: 0,
        dst: WBUF + BUF_LEN as u64 - 100,
    };
    run.a.post_send(1, &bad);
    let after = one_message(&mut run, Opcode::Send, 100, false);
    run.until_done(10_000);
    assert_eq!(
        run.a.sent[1],
        [
            (0, Status::Success),
            (1, Status::RemAccessErr),
            (2, Status::WrFlushErr)
        ]
    );
    assert_eq!(run.b.nic.rc_counts().fatal_naks_sent, 1);
    for s in [&run.a, &run.b] {
        let qp = s.nic.send.qps.get(s.qpns[1]).unwrap();
        assert_eq!(qp.state(), QpState::Err);
    }
    assert_eq!(run.b.recvd[1].len(), 1, "the SEND before it landed");
    let _ = (good, after);
}
