//! What the test sends and posts: RC senders that retransmit from the PSN the receiver expects
//! (go-back-N, as the reliable transport will), UD packets, damaged and raw frames, and receive
//! WQEs good and bad.

use crate::setup::{Layout, Qp, Region};
use rand::Rng;
use rocenic_model::qp::Psn;
use rocenic_model::rx::{RecvWqe, HEADER_BYTES};
use rocenic_model::wire::ib::{opcode as op, BthRepr, DethRepr, RethRepr};
use rocenic_model::wqe::frame::{Transport, PKEY};
use rocenic_model::wqe::DataSegment;
use rocenic_sim::rx::check::Rss;
use rocenic_sim::rx::frames;
use rocenic_sim::stream::TestRng;

/// One RC packet of a planned message.
#[derive(Clone, Debug)]
pub struct Pkt {
    pub opcode: u8,
    pub psn: u32,
    pub payload: Vec<u8>,
    pub reth: Option<(u64, u32, u32)>,
    pub imm: Option<u32>,
}

/// An RC sender: the packets not yet known to be taken, in PSN order, and where this round's
/// sending is in them.
#[derive(Clone, Debug, Default)]
pub struct Sender {
    pub queue: Vec<Pkt>,
    pub cursor: usize,
    pub next_psn: u32,
    /// Rounds the first packet has been sent without being taken.
    tries: u32,
    /// An RDMA WRITE has been planned: the first one names a region without the right.
    wrote: bool,
}

/// Whether an RC opcode starts a message (FIRST or ONLY).
fn starts(opcode: u8) -> bool {
    matches!(opcode % 6, 0 | 4 | 5)
}

impl Sender {
    /// The receiver expects `epsn`: the packets before it were taken; send again from there. A
    /// message refused three rounds in a row from its start (a bad R_Key, a fault) is given up,
    /// the messages after it sent at its PSNs.
    pub fn resync(&mut self, epsn: u32) {
        match self.queue.iter().position(|p| p.psn == epsn) {
            Some(0) => self.tries += 1,
            Some(i) => {
                self.queue.drain(..i);
                self.tries = 0;
            }
            None => {
                self.queue.clear();
                self.next_psn = epsn;
                self.tries = 0;
            }
        }
        if self.tries >= 3 && self.queue.first().is_some_and(|p| starts(p.opcode)) {
            let end = self.queue[1..]
                .iter()
                .position(|p| starts(p.opcode))
                .map_or(self.queue.len(), |i| i + 1);
            self.queue.drain(..end);
            let mut psn = epsn;
            for p in &mut self.queue {
                p.psn = psn;
                psn = (psn + 1) & 0xFF_FFFF;
            }
            self.next_psn = psn;
            self.tries = 0;
        }
        self.cursor = 0;
    }

    /// The next packet to send, planning a new message when the plan runs out.
    pub fn next(&mut self, rng: &mut TestRng, qp: &Qp, l: &Layout) -> Pkt {
        if self.cursor == self.queue.len() {
            self.plan(rng, qp, l);
        }
        self.cursor += 1;
        self.queue[self.cursor - 1].clone()
    }

    /// Forgets what is planned from `epsn` (the PSN the receiver expects) on, and plans a SEND
    /// of two or three packets there: a message the receiver can be left in the middle of.
    pub fn send_next(&mut self, rng: &mut TestRng, qp: &Qp, l: &Layout, epsn: u32) {
        self.queue.clear();
        self.cursor = 0;
        self.tries = 0;
        self.next_psn = epsn;
        let mtu = qp.mtu.bytes() as usize;
        let imm = rng.gen_bool(0.35).then(|| rng.gen());
        let len = rng.gen_range(mtu + 1..=3 * mtu);
        self.message(rng, qp, l, false, imm, len);
    }

    fn plan(&mut self, rng: &mut TestRng, qp: &Qp, l: &Layout) {
        let mtu = qp.mtu.bytes() as usize;
        let write = rng.gen_bool(0.35);
        let imm = rng.gen_bool(0.35).then(|| rng.gen());
        let len = match rng.gen_range(0..10) {
            0 => 0,
            1 => mtu * rng.gen_range(1..=3),
            2..=5 => rng.gen_range(1..=mtu),
            _ => rng.gen_range(1..=3 * mtu),
        };
        self.message(rng, qp, l, write, imm, len);
    }

    /// A message of `len` bytes, its packets queued from `next_psn`.
    fn message(
        &mut self,
        rng: &mut TestRng,
        qp: &Qp,
        l: &Layout,
        write: bool,
        imm: Option<u32>,
        len: usize,
    ) {
        let mtu = qp.mtu.bytes() as usize;
        let reth = write.then(|| {
            // Mostly a region of the QP's PD with remote write, the range inside; now and then
            // the one over unbacked memory, one without the right, a range past the end, or a
            // key that names nothing.
            // Each sender's first RDMA WRITE names the region without remote write, so that
            // every run meets the R_Key refusal (a few dozen writes reach the check in a run,
            // and one in a few dozen runs drew no refused one).
            let pick = if self.wrote { rng.gen_range(0..12) } else { 0 };
            self.wrote = true;
            let r: &Region = match pick {
                0 => &l.regions[1],
                1 => &l.regions[3],
                _ => l.remote(rng, qp.pd),
            };
            let room = r.mr.length.saturating_sub(len as u64).max(1);
            let mut va = r.mr.base + rng.gen_range(0..room);
            if rng.gen_bool(0.03) {
                va = r.mr.base + r.mr.length - len as u64 / 2;
            }
            let rkey = if rng.gen_bool(0.03) {
                rng.gen()
            } else {
                r.mr.lkey
            };
            (va, rkey, len as u32)
        });
        let n = len.div_ceil(mtu).max(1);
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        for i in 0..n {
            let (first, last) = (i == 0, i == n - 1);
            let base = if write {
                op::RC_RDMA_WRITE_FIRST
            } else {
                op::RC_SEND_FIRST
            };
            // FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM from the base.
            let k = match (first, last) {
                (true, false) => 0,
                (false, false) => 1,
                (false, true) => 2 + u8::from(imm.is_some()),
                (true, true) => 4 + u8::from(imm.is_some()),
            };
            let chunk = data[i * mtu..(len.min((i + 1) * mtu))].to_vec();
            self.queue.push(Pkt {
                opcode: base + k,
                psn: self.next_psn,
                payload: chunk,
                reth: if first { reth } else { None },
                imm: if last { imm } else { None },
            });
            self.next_psn = (self.next_psn + 1) & 0xFF_FFFF;
        }
    }
}

/// A damaged copy of `p`: a PSN off, an opcode out of sequence, or a payload of another
/// length; and what it is.
pub fn spoil(rng: &mut TestRng, p: &Pkt) -> (Pkt, &'static str) {
    let mut q = p.clone();
    match rng.gen_range(0..4) {
        0 => {
            let d = rng.gen_range(1..4u32);
            q.psn = if rng.gen() {
                q.psn.wrapping_add(d)
            } else {
                q.psn.wrapping_sub(d)
            } & 0xFF_FFFF;
            (q, "psn")
        }
        1 | 2 => {
            // Another opcode of the same kind of message (a MIDDLE without a FIRST, a FIRST
            // inside a message, ...), its headers made to match.
            let base = if p.opcode >= op::RC_RDMA_WRITE_FIRST {
                op::RC_RDMA_WRITE_FIRST
            } else {
                0
            };
            q.opcode = base + rng.gen_range(0..6);
            q.reth = op::has_reth(q.opcode).then(|| p.reth.unwrap_or((0x1000, 0x100, 8)));
            q.imm = op::has_immdt(q.opcode).then(|| rng.gen());
            (q, "sequence")
        }
        _ => {
            if q.payload.is_empty() || rng.gen() {
                q.payload.push(rng.gen());
            } else {
                q.payload.pop();
            }
            (q, "length")
        }
    }
}

/// The frame of RC packet `p` to `qpn`.
pub fn rc_frame(rng: &mut TestRng, qpn: u32, p: &Pkt) -> Vec<u8> {
    let t = Transport {
        bth: bth(rng, p.opcode, qpn, p.psn, p.payload.len()),
        reth: p
            .reth
            .map(|(va, rkey, dma_len)| RethRepr { va, rkey, dma_len }),
        deth: None,
        imm: p.imm,
    };
    let (v6, vlan) = (rng.gen(), rng.gen_bool(0.3));
    let route = frames::route(rng, v6, vlan);
    frames::build(&route, &t, &p.payload)
}

/// An Acknowledge frame (opcode 0x11) to `qpn`, and what it is: mostly well formed with a
/// syndrome that is not reserved (what `model::rc::parse_ack` takes), else one thing wrong with
/// it: a reserved syndrome or NAK code, a pad (after the AETH, or after part of it so that the
/// length is an ACK's), bytes after the AETH, no AETH, a bad ICRC.
pub fn ack_frame(rng: &mut TestRng, qpn: u32) -> (Vec<u8>, &'static str) {
    let syndrome: u8 = match rng.gen_range(0..4) {
        0 => rng.gen_range(0x00..0x20),
        1 => rng.gen_range(0x20..0x40),
        _ => rng.gen_range(0x60..0x65),
    };
    let msn: u32 = rng.gen_range(0..1 << 24);
    let mut aeth = vec![syndrome, (msn >> 16) as u8, (msn >> 8) as u8, msn as u8];
    let mut pad = 0;
    let what = match rng.gen_range(0..20) {
        0 => {
            // 0x40..0x5F, 0x80..0xFF, or a NAK code 5..31
            aeth[0] = match rng.gen_range(0..3) {
                0 => rng.gen_range(0x40..0x60),
                1 => rng.gen_range(0x80..=0xFF),
                _ => rng.gen_range(0x65..0x80),
            };
            "ack, reserved syndrome"
        }
        1 => {
            // After a whole AETH, or after its first bytes so that the datagram has an ACK's
            // length: only the pad count tells that one apart.
            pad = rng.gen_range(1..4);
            if rng.gen() {
                aeth.truncate(4 - pad as usize);
            }
            "ack, pad"
        }
        2 => {
            aeth.extend(std::iter::repeat_n(0xA5, 4 * rng.gen_range(1..4)));
            "ack, long"
        }
        3 => {
            aeth.clear();
            "ack, no aeth"
        }
        4 => "ack, icrc",
        _ => "ack",
    };
    let psn = rng.gen_range(0..1 << 24);
    let mut b = bth(rng, op::RC_ACK, qpn, psn, aeth.len());
    b.pad_count = pad;
    let t = Transport {
        bth: b,
        reth: None,
        deth: None,
        imm: None,
    };
    let (v6, vlan) = (rng.gen(), rng.gen_bool(0.3));
    let route = frames::route(rng, v6, vlan);
    let mut f = frames::build(&route, &t, &aeth);
    if what == "ack, icrc" {
        // a bit of the BTH's PSN or the AETH, which the ICRC covers
        let bth = f.len() - 4 - aeth.len() - 12;
        let at = rng.gen_range(bth + 9..f.len() - 4);
        f[at] ^= 1 << rng.gen_range(0..8);
    }
    (f, what)
}

/// A UD SEND to `qpn` with `qkey`, `len` bytes.
pub fn ud_frame(rng: &mut TestRng, qpn: u32, qkey: u32, len: usize) -> Vec<u8> {
    let o = if rng.gen() {
        op::UD_SEND_ONLY
    } else {
        op::UD_SEND_ONLY_WITH_IMM
    };
    let t = Transport {
        bth: {
            let psn = rng.gen_range(0..1 << 24);
            bth(rng, o, qpn, psn, len)
        },
        reth: None,
        deth: Some(DethRepr {
            qkey,
            src_qpn: rng.gen_range(0..1 << 24),
        }),
        imm: op::has_immdt(o).then(|| rng.gen()),
    };
    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let (v6, vlan) = (rng.gen(), rng.gen_bool(0.3));
    let route = frames::route(rng, v6, vlan);
    frames::build(&route, &t, &payload)
}

fn bth(rng: &mut TestRng, opcode: u8, qpn: u32, psn: u32, len: usize) -> BthRepr {
    BthRepr {
        opcode,
        solicited: rng.gen(),
        migreq: rng.gen(),
        pad_count: ((4 - len % 4) % 4) as u8,
        tver: 0,
        pkey: PKEY,
        fecn: rng.gen(),
        becn: rng.gen(),
        dest_qpn: qpn,
        ack_req: rng.gen(),
        psn: Psn::from_bits_truncate(psn).get(),
    }
}

/// A random RSS verdict naming `queue`.
pub fn rss(rng: &mut TestRng, queue: u16) -> Rss {
    Rss {
        queue,
        hash: rng.gen(),
        hash_type: if rng.gen_bool(0.3) {
            0
        } else {
            rng.gen_range(1..32)
        },
    }
}

/// The bytes of a receive WQE for a queue of PD `pd` and `slot` bytes per WQE, and what it
/// is: mostly good entries in regions of the PD with local write, now and then a bad one.
pub fn wqe(
    rng: &mut TestRng,
    l: &Layout,
    pd: u32,
    slot: usize,
    wr_id: u64,
) -> (Vec<u8>, &'static str) {
    let max = ((slot - HEADER_BYTES) / 16).min(63);
    let n = rng.gen_range(1..=max.min(4));
    let mut sges: Vec<DataSegment> = (0..n)
        .map(|_| {
            let r = l.local(rng, pd);
            let len = match rng.gen_range(0..8) {
                0 => rng.gen_range(1..8),
                1 => rng.gen_range(2048..=4200),
                _ => rng.gen_range(8..1500),
            };
            DataSegment {
                addr: r.mr.base + rng.gen_range(0..r.mr.length - len),
                length: len as u32,
                lkey: r.mr.lkey,
            }
        })
        .collect();
    let mut what = "good";
    let i = rng.gen_range(0..n);
    match rng.gen_range(0..80) {
        0 => {
            sges[i].lkey ^= 1;
            what = "bad lkey";
        }
        1 => {
            sges[i].length = 0;
            what = "zero length";
        }
        2 => {
            // A region without local write, or of the other PD.
            sges[i].lkey = l.regions[if rng.gen() {
                4
            } else if pd == 1 {
                2
            } else {
                0
            }]
            .mr
            .lkey;
            what = "no right";
        }
        3 => {
            // Inside the region over unbacked memory: the write faults.
            let r = &l.regions[3];
            sges[i] = DataSegment {
                addr: r.mr.base + 64,
                length: 4096,
                lkey: r.mr.lkey,
            };
            what = if pd == r.mr.pd {
                "unbacked"
            } else {
                "no right"
            };
        }
        _ => {}
    }
    let w = RecvWqe::new(wr_id, &sges).expect("1..=4 entries");
    let mut b = vec![0u8; w.bytes()];
    w.encode(&mut b).expect("sized");
    match rng.gen_range(0..80) {
        0 => {
            b[8] = 0;
            what = "nsge 0";
        }
        3 => {
            b[8] = rng.gen_range(64..=255);
            what = "nsge past 63";
        }
        1 => {
            b[rng.gen_range(9..16)] = rng.gen_range(1..=255);
            what = "reserved";
        }
        2 => {
            b[8] = (max + 1) as u8;
            what = "past the slot";
        }
        _ => {}
    }
    (b, what)
}
