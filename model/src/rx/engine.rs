//! The receive engine: one frame and the RSS pipeline's verdict in, at most one completion out
//! (docs/rx.md, "The receive engine").
//!
//! - RoCEv2 frames go to the QP their BTH names: it must have a receive side ([`Target`]), be in
//!   RTR or RTS, and match the opcode's transport. UD checks the Q_Key; RC takes only the
//!   expected PSN, opcodes in sequence and FIRST/MIDDLE packets of exactly the path MTU.
//! - Frames that are not RoCEv2 land whole in the work queue the RSS pipeline chose, if it is
//!   a raw one.
//! - A SEND (or a raw frame) takes the work queue's next receive WQE; its scatter entries are
//!   checked against the memory regions of the queue's PD (local write) before any byte is
//!   written. A UD buffer starts with the 40-byte GRH area. An RDMA WRITE lands at its RETH's
//!   address under the R_Key's region (remote write); with immediate data it also takes a WQE.
//! - A WQE that fails (unreadable, malformed, a bad entry, too short, a write fault) completes
//!   with its status and moves the owner to ERR: the QP and its own queue, the QP alone for a
//!   shared queue, the queue alone for an RSS or raw queue. A queue in ERR flushes its posted
//!   WQEs ([`RecvEngine::flush`]).
//! - Anything else is a [`Discard`]: nothing is written and no PSN or index moves.
//!
//! RC request packets (sequence, length, SEND and WRITE, the responder) are in `engine/rc.rs`.

use super::cqe::{RecvCqe, RecvFlags, RecvOpcode};
use super::packet::{classify_with, Incoming, RocePacket};
use super::wq::{Wq, WqConfig, WqState, WqTransition};
use super::wqe::RecvWqe;
use super::{Discard, CQE_BYTES, HEADER_BYTES, MAX_SGE};
use crate::qp::{Access, MrTable, Psn, QpKind, QpState, QpTable, Status, QPN_MAX, QPN_MIN};
use crate::rc::{Reliable, Responder};
use crate::rss::steer::Meta;
use crate::wire::ib::opcode as op;
use crate::wire::ib::AethRepr;
use crate::wqe::{DataSegment, DoorbellError, Memory, DATA_BYTES};
use core::fmt;

mod rc;

/// The default number of work queues (the RTL's `WQS`).
pub const DEFAULT_WQS: usize = 64;

/// The receive-context slot of `qpn` in a table of `entries` (a power of two): its low bits.
/// The hardware finds a frame's QP by indexing with the BTH's destination QPN and comparing the
/// QPN stored there, so two QPs whose low bits match cannot both receive; drivers allocate
/// QPNs as slot plus a generation above it (and put the QP in the same send-side slot).
pub const fn qp_slot(qpn: u32, entries: usize) -> usize {
    qpn as usize & (entries - 1)
}

/// Where a QP's received messages land.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Its own receive queue: an error moves the QP and the queue to ERR.
    Own(u16),
    /// A shared receive queue: an error moves the QP to ERR, the queue goes on.
    Shared(u16),
    /// An RSS QP (UD): the queue the RSS pipeline chose (its indirection table); an error
    /// moves that queue to ERR, the QP goes on.
    Rss,
}

/// A request the receive engine refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxError {
    /// The work queue number is past the table.
    WqRange(u16),
    /// The work queue already exists.
    WqExists(u16),
    /// No such work queue.
    NoWq(u16),
    /// A modify verbs refuses.
    Transition(WqTransition),
    /// A doorbell value out of range.
    Doorbell(DoorbellError),
    /// The QPN is reserved or wider than 24 bits.
    Qpn(u32),
    /// The QP already has a receive side.
    Attached(u32),
    /// Another QP's receive side holds the slot this QPN maps to ([`qp_slot`]).
    SlotTaken {
        /// The QPN asked for.
        qpn: u32,
        /// The QPN in its slot.
        holder: u32,
    },
    /// The QP has no receive side.
    NotAttached(u32),
    /// Only UD QPs spread over RSS queues.
    RssNotUd(u32),
    /// The QP is not in the QP table.
    NoQp(u32),
    /// The queue is still named by a QP.
    InUse(u16),
}

impl fmt::Display for RxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RxError::WqRange(w) => write!(f, "work queue {w} is past the table"),
            RxError::WqExists(w) => write!(f, "work queue {w} already exists"),
            RxError::NoWq(w) => write!(f, "no work queue {w}"),
            RxError::Transition(t) => write!(f, "{t}"),
            RxError::Doorbell(e) => write!(f, "{e}"),
            RxError::Qpn(q) => write!(f, "QPN 0x{q:x} is reserved or wider than 24 bits"),
            RxError::Attached(q) => write!(f, "QP 0x{q:x} already has a receive side"),
            RxError::SlotTaken { qpn, holder } => write!(
                f,
                "QP 0x{qpn:x} maps to the receive slot of QP 0x{holder:x} (QPNs must differ in their low bits)"
            ),
            RxError::NotAttached(q) => write!(f, "QP 0x{q:x} has no receive side"),
            RxError::RssNotUd(q) => write!(f, "QP 0x{q:x} is not UD: only UD QPs use RSS"),
            RxError::NoQp(q) => write!(f, "no QP 0x{q:x}"),
            RxError::InUse(w) => write!(f, "work queue {w} is still attached to a QP"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RxError {}

/// What the engine has done: frames taken and discarded by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames taken.
    pub accepted: u64,
    /// Frames discarded, indexed by `Discard as usize`.
    pub discarded: [u64; Discard::ALL.len()],
}

impl Counts {
    /// Frames discarded for `why`.
    pub const fn discarded(&self, why: Discard) -> u64 {
        self.discarded[why as usize]
    }
}

/// A frame taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The work queue it landed in (`None`: an RDMA WRITE without immediate data).
    pub wq: Option<u16>,
    /// The completion written and its ring index, when the frame completed a WQE.
    pub completion: Option<(u32, RecvCqe)>,
}

/// A message in progress on an RC QP (what the hardware keeps in the QP's receive context).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// A SEND filling the WQE at host address `addr` of queue `wq`; `done` bytes so far. The
    /// WQE is read again for each packet, as the hardware keeps no copy of its entries.
    Send {
        /// The queue its first packet took the WQE from.
        wq: u16,
        /// The WQE's host address.
        addr: u64,
        /// The WQE's work request id.
        wr_id: u64,
        /// Bytes received so far.
        done: u32,
    },
    /// An RDMA WRITE of `len` bytes at `va`; `done` so far.
    Write {
        /// The RETH's virtual address.
        va: u64,
        /// The RETH's DMA length.
        len: u32,
        /// Bytes received so far.
        done: u32,
    },
}

/// A QP's receive side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RecvQp {
    qpn: u32,
    target: Target,
    epsn: Psn,
    msg: Option<Message>,
    /// The reliable transport's responder (RC, with the switch on): it decides which PSN is
    /// executed and what is answered; `epsn` follows it.
    resp: Option<Responder>,
}

/// An acknowledgement the responder wants sent to the requester of QP `qpn`'s peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RcReply {
    /// The local QP (its address vector and entropy give the route, its `dest_qpn` the
    /// requester's QP).
    pub qpn: u32,
    /// The BTH PSN of the acknowledgement.
    pub psn: Psn,
    /// Syndrome and MSN.
    pub aeth: AethRepr,
    /// READ responses instead of an Acknowledge: the bytes at this address and length, one
    /// path-MTU piece per PSN from `psn` on, `aeth` on the first and last.
    pub read: Option<(u64, u32)>,
}

/// The receive side: work queues, each QP's receive context, the counters.
#[derive(Clone, Debug)]
pub struct RecvEngine<const W: usize = DEFAULT_WQS, const Q: usize = { crate::qp::DEFAULT_QPS }> {
    wqs: [Option<Wq>; W],
    qps: [Option<RecvQp>; Q],
    counts: Counts,
    /// The reliable transport's switch: `None` (the default) discards a PSN other than the
    /// expected one silently and answers nothing, as the RTL does.
    reliable: Option<Reliable>,
    /// The answer to the last frame, until taken.
    reply: Option<RcReply>,
}

impl<const W: usize, const Q: usize> Default for RecvEngine<W, Q> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const Q: usize> RecvEngine<W, Q> {
    /// No work queues, no QPs.
    pub const fn new() -> Self {
        RecvEngine {
            wqs: [None; W],
            qps: [None; Q],
            counts: Counts {
                accepted: 0,
                discarded: [0; Discard::ALL.len()],
            },
            reliable: None,
            reply: None,
        }
    }

    /// Turns the reliable transport on or off (docs/rc.md): with it on, each RC QP's
    /// responder (created from its expected PSN when its first packet arrives) classifies every
    /// request packet, re-acknowledges duplicates, NAKs a gap once, answers RNR when no receive
    /// WQE is posted, and a refused request moves the QP to ERR with a NAK.
    pub fn set_reliable(&mut self, reliable: Option<Reliable>) {
        self.reliable = reliable;
        for q in self.qps.iter_mut().flatten() {
            q.resp = None;
        }
    }

    /// The reliable transport's settings, `None` when off.
    pub const fn reliable(&self) -> Option<Reliable> {
        self.reliable
    }

    /// The acknowledgement the last frame asked for, if any (taken once).
    pub fn take_reply(&mut self) -> Option<RcReply> {
        self.reply.take()
    }

    /// QP `qpn`'s responder (with the switch on, once a packet has reached it).
    pub fn responder(&self, qpn: u32) -> Option<&Responder> {
        let s = self.slot_of(qpn)?;
        self.qps[s].as_ref()?.resp.as_ref()
    }

    /// The counters.
    pub const fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Work queue `w`.
    pub fn wq(&self, w: u16) -> Option<&Wq> {
        self.wqs.get(usize::from(w))?.as_ref()
    }

    /// Work queue `w`, to change: how a bench mirrors what the receive path's hardware does to
    /// a queue on its own (a WQE taken, a completion written, the queue moved to ERR) in the
    /// engine it checks the hardware's control plane against.
    pub fn wq_mut(&mut self, w: u16) -> Result<&mut Wq, RxError> {
        self.wqs
            .get_mut(usize::from(w))
            .ok_or(RxError::WqRange(w))?
            .as_mut()
            .ok_or(RxError::NoWq(w))
    }

    /// Creates work queue `w` in RESET.
    pub fn create_wq(&mut self, w: u16, config: WqConfig) -> Result<(), RxError> {
        if config.qpn > QPN_MAX {
            return Err(RxError::Qpn(config.qpn));
        }
        let slot = self
            .wqs
            .get_mut(usize::from(w))
            .ok_or(RxError::WqRange(w))?;
        if slot.is_some() {
            return Err(RxError::WqExists(w));
        }
        *slot = Some(Wq::new(config));
        Ok(())
    }

    /// Destroys work queue `w`; refused while a QP names it.
    pub fn destroy_wq(&mut self, w: u16) -> Result<Wq, RxError> {
        let named = self
            .qps
            .iter()
            .flatten()
            .any(|q| matches!(q.target, Target::Own(x) | Target::Shared(x) if x == w));
        if named {
            return Err(RxError::InUse(w));
        }
        let wq = *self.wq_mut(w)?;
        self.wqs[usize::from(w)] = None;
        Ok(wq)
    }

    /// A software modify of work queue `w`. RESET empties its rings (indices back to 0).
    pub fn modify_wq(&mut self, w: u16, to: WqState) -> Result<(), RxError> {
        let wq = self.wq_mut(w)?;
        wq.state = wq.state.modify(to).map_err(RxError::Transition)?;
        if to == WqState::Reset {
            *wq = Wq::new(wq.config);
        }
        Ok(())
    }

    /// A receive doorbell: `w`'s producer index is now `producer`; returns the WQEs it adds.
    pub fn post(&mut self, w: u16, producer: u32) -> Result<u32, RxError> {
        self.wq_mut(w)?.post(producer).map_err(RxError::Doorbell)
    }

    /// A completion doorbell: software consumed `w`'s completions up to `consumer`.
    pub fn cq_doorbell(&mut self, w: u16, consumer: u32) -> Result<u32, RxError> {
        self.wq_mut(w)?
            .cq
            .write_consumer(consumer)
            .map_err(RxError::Doorbell)
    }

    /// Gives QP `qpn` (created in `qps`) a receive side landing in `target`, expecting `epsn`
    /// first (RC; the value verbs sets at RTR).
    pub fn attach<const QT: usize>(
        &mut self,
        qps: &QpTable<QT>,
        qpn: u32,
        target: Target,
        epsn: Psn,
    ) -> Result<(), RxError> {
        if !(QPN_MIN..=QPN_MAX).contains(&qpn) {
            return Err(RxError::Qpn(qpn));
        }
        let ctx = qps.get(qpn).ok_or(RxError::NoQp(qpn))?;
        if target == Target::Rss && ctx.config().qp_type != QpKind::Ud {
            return Err(RxError::RssNotUd(qpn));
        }
        if let Target::Own(w) | Target::Shared(w) = target {
            if self.wq(w).is_none() {
                return Err(RxError::NoWq(w));
            }
        }
        let slot = &mut self.qps[qp_slot(qpn, Q)];
        match slot {
            Some(q) if q.qpn == qpn => return Err(RxError::Attached(qpn)),
            Some(q) => return Err(RxError::SlotTaken { qpn, holder: q.qpn }),
            None => {}
        }
        *slot = Some(RecvQp {
            qpn,
            target,
            epsn,
            msg: None,
            resp: None,
        });
        Ok(())
    }

    /// Removes QP `qpn`'s receive side (a message in progress is forgotten).
    pub fn detach(&mut self, qpn: u32) -> Result<(), RxError> {
        let slot = &mut self.qps[qp_slot(qpn, Q)];
        if !slot.is_some_and(|q| q.qpn == qpn) {
            return Err(RxError::NotAttached(qpn));
        }
        *slot = None;
        Ok(())
    }

    /// The receive side of `qpn`, by its slot.
    fn slot_of(&self, qpn: u32) -> Option<usize> {
        let s = qp_slot(qpn, Q);
        self.qps[s].is_some_and(|q| q.qpn == qpn).then_some(s)
    }

    /// The PSN QP `qpn` expects next.
    pub fn expected_psn(&self, qpn: u32) -> Option<Psn> {
        self.slot_of(qpn).and_then(|s| self.qps[s]).map(|q| q.epsn)
    }

    /// QP `qpn`'s message in progress (`None` also when it has no receive side).
    pub fn message(&self, qpn: u32) -> Option<Message> {
        self.slot_of(qpn)
            .and_then(|s| self.qps[s])
            .and_then(|q| q.msg)
    }

    /// Sets QP `qpn`'s expected PSN and message in progress: how a bench mirrors the receive
    /// context that the receive path's hardware writes back after an RC packet, in the engine
    /// it checks the hardware's control plane against (as [`Self::wq_mut`] does for queues).
    pub fn write_back(&mut self, qpn: u32, epsn: Psn, msg: Option<Message>) -> Result<(), RxError> {
        let s = self.slot_of(qpn).ok_or(RxError::NotAttached(qpn))?;
        let q = self.qps[s].as_mut().expect("slot_of found it");
        q.epsn = epsn;
        q.msg = msg;
        Ok(())
    }

    /// One frame: taken, or discarded with the reason (and counted either way).
    pub fn receive<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        frame: &[u8],
        meta: &Meta,
    ) -> Result<Accepted, Discard> {
        let r = match classify_with(frame, self.reliable.is_some()) {
            Err(d) => Err(d),
            Ok(Incoming::Raw { frame, csum_ok }) => self.raw(mrs, mem, frame, csum_ok, meta),
            Ok(Incoming::Roce(p)) => self.roce(qps, mrs, mem, &p, meta),
        };
        match r {
            Ok(_) => self.counts.accepted += 1,
            Err(d) => self.counts.discarded[d as usize] += 1,
        }
        r
    }

    /// The flags and hash every completion of a frame carries.
    fn base_cqe(meta: &Meta, qpn: u32, csum_ok: bool) -> RecvCqe {
        let hashed = meta.hash_type.0 != 0;
        RecvCqe {
            wr_id: 0,
            qpn,
            byte_len: 0,
            imm: 0,
            hash: if hashed { meta.hash } else { 0 },
            src_qp: 0,
            opcode: RecvOpcode::Recv,
            status: Status::Success,
            flags: RecvFlags::when(csum_ok, RecvFlags::CSUM_OK)
                .union(RecvFlags::when(hashed, RecvFlags::HASHED)),
            phase: false,
        }
    }

    /// A frame that is not RoCEv2, into the raw queue the RSS pipeline chose.
    fn raw<const M: usize>(
        &mut self,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        frame: &[u8],
        csum_ok: bool,
        meta: &Meta,
    ) -> Result<Accepted, Discard> {
        let w = meta.queue;
        let wq = self.wq(w).ok_or(Discard::NoWq)?;
        if !wq.config.raw {
            return Err(Discard::NoWq);
        }
        let mut cqe = Self::base_cqe(meta, wq.config.qpn, csum_ok);
        cqe.byte_len = frame.len() as u32;
        let status = match self.take_wqe(w, mrs, mem)?.1 {
            (wr_id, Err(s)) => {
                cqe.wr_id = wr_id;
                s
            }
            (wr_id, Ok(wqe)) => {
                cqe.wr_id = wr_id;
                scatter_whole(mem, &wqe, &[frame])
            }
        };
        cqe.status = status;
        if status != Status::Success {
            self.wq_mut(w).expect("taken above").state = WqState::Err;
        }
        let c = self.complete(w, mem, cqe)?;
        Ok(Accepted {
            wq: Some(w),
            completion: Some(c),
        })
    }

    /// A RoCEv2 packet, to the QP its BTH names.
    fn roce<const QT: usize, const M: usize>(
        &mut self,
        qps: &mut QpTable<QT>,
        mrs: &MrTable<M>,
        mem: &mut impl Memory,
        p: &RocePacket<'_>,
        meta: &Meta,
    ) -> Result<Accepted, Discard> {
        let slot = self.slot_of(p.dest_qpn).ok_or(Discard::NoQp)?;
        let ctx = qps.get(p.dest_qpn).ok_or(Discard::NoQp)?;
        if !matches!(ctx.state(), QpState::Rtr | QpState::Rts) {
            return Err(Discard::QpState);
        }
        let cfg = *ctx.config();
        let ud = op::transport(p.opcode) == op::TRANSPORT_UD;
        // A raw-packet QP takes no RoCE packets: its frames arrive on raw work queues.
        let want = if ud { QpKind::Ud } else { QpKind::Rc };
        if cfg.qp_type != want {
            return Err(Discard::Transport);
        }
        let mtu = cfg.mtu.bytes() as usize;
        let rq = self.qps[slot].expect("found above");
        let mut cqe = Self::base_cqe(meta, p.dest_qpn, true);
        if let Some(imm) = p.imm {
            cqe.imm = imm;
            cqe.flags = cqe.flags.union(RecvFlags::IMM);
        }
        if ud {
            let (qkey, src_qp) = p.deth.expect("UD opcodes carry a DETH");
            if qkey != cfg.q_key {
                return Err(Discard::QKey);
            }
            if p.payload.len() > mtu {
                return Err(Discard::Length);
            }
            let w = self.resolve(rq.target, Some(meta))?;
            cqe.src_qp = src_qp;
            cqe.flags = cqe.flags.union(RecvFlags::GRH);
            cqe.byte_len = (super::GRH_AREA + p.payload.len()) as u32;
            let status = match self.take_wqe(w, mrs, mem)?.1 {
                (wr_id, Err(s)) => {
                    cqe.wr_id = wr_id;
                    s
                }
                (wr_id, Ok(wqe)) => {
                    cqe.wr_id = wr_id;
                    scatter_whole(mem, &wqe, &[&p.grh, p.payload])
                }
            };
            cqe.status = status;
            if status != Status::Success {
                self.fail(qps, p.dest_qpn, rq.target, w);
            }
            let c = self.complete(w, mem, cqe)?;
            return Ok(Accepted {
                wq: Some(w),
                completion: Some(c),
            });
        }
        if let Some(rel) = self.reliable {
            if p.opcode == op::RC_RDMA_READ_REQUEST {
                return self.rc_read(qps, mrs, slot, p, mtu, rel);
            }
            return self.rc_reliable(qps, mrs, mem, slot, p, cqe, mtu, rel);
        }
        // RC: in order, in sequence, MTU-sized except at the end.
        if p.psn != rq.epsn.get() {
            return Err(Discard::Psn);
        }
        self.rc_execute(qps, mrs, mem, slot, p, cqe, mtu)
    }

    /// The work queue of `target` for this frame.
    fn resolve(&self, target: Target, meta: Option<&Meta>) -> Result<u16, Discard> {
        match (target, meta) {
            (Target::Own(w) | Target::Shared(w), _) => Ok(w),
            (Target::Rss, Some(m)) => Ok(m.queue),
            (Target::Rss, None) => Err(Discard::NoWq),
        }
    }

    /// Takes `w`'s next WQE, with room for its completion: its address and what
    /// [`Self::read_wqe`] makes of it.
    #[allow(clippy::type_complexity)]
    fn take_wqe<const M: usize>(
        &mut self,
        w: u16,
        mrs: &MrTable<M>,
        mem: &impl Memory,
    ) -> Result<(u64, (u64, Result<RecvWqe, Status>)), Discard> {
        let wq = self
            .wqs
            .get_mut(usize::from(w))
            .and_then(Option::as_mut)
            .ok_or(Discard::NoWq)?;
        if wq.state != WqState::Ready {
            return Err(Discard::WqState);
        }
        if wq.doorbell.pending() == 0 {
            return Err(Discard::NoWqe);
        }
        if !wq.cq_room() {
            return Err(Discard::CqFull);
        }
        let index = wq.doorbell.take().expect("pending above");
        let addr = wq.config.ring.addr(index);
        Ok((addr, self.read_wqe(w, addr, mrs, mem)))
    }

    /// Reads the WQE at `addr` of queue `w` and checks its entries against the regions of the
    /// queue's PD: its work request id (0 when even the header could not be read) and the WQE
    /// or the status it completes with.
    fn read_wqe<const M: usize>(
        &self,
        w: u16,
        addr: u64,
        mrs: &MrTable<M>,
        mem: &impl Memory,
    ) -> (u64, Result<RecvWqe, Status>) {
        let config = self.wq(w).expect("the caller found the queue").config;
        let slot = config.ring.stride_blocks() as usize * crate::wqe::BLOCK_BYTES;
        let mut b = [0u8; HEADER_BYTES + MAX_SGE * DATA_BYTES];
        if mem.read(addr, &mut b[..HEADER_BYTES]).is_err() {
            return (0, Err(Status::GeneralErr));
        }
        let wr_id = crate::wqe::get_u64(&b, super::layout::header::WR_ID.offset);
        let header: &[u8; HEADER_BYTES] = b[..HEADER_BYTES].try_into().expect("16 bytes");
        let n = match RecvWqe::entries(header, slot) {
            Ok(n) => n,
            Err(_) => return (wr_id, Err(Status::LocQpOpErr)),
        };
        let end = HEADER_BYTES + n * DATA_BYTES;
        if mem
            .read(addr + HEADER_BYTES as u64, &mut b[HEADER_BYTES..end])
            .is_err()
        {
            return (wr_id, Err(Status::GeneralErr));
        }
        let wqe = RecvWqe::decode(&b[..end], slot).expect("header checked above");
        for s in wqe.sges() {
            let checked = mrs.check(
                s.lkey,
                config.pd,
                s.addr,
                s.length.into(),
                Access::LOCAL_WRITE,
            );
            if let Err(st) = checked {
                return (wr_id, Err(st));
            }
        }
        (wr_id, Ok(wqe))
    }

    /// A failed WQE's owner goes to ERR.
    fn fail<const QT: usize>(&mut self, qps: &mut QpTable<QT>, qpn: u32, target: Target, w: u16) {
        if matches!(target, Target::Own(_) | Target::Shared(_)) {
            if let Some(ctx) = qps.get_mut(qpn) {
                ctx.set_error();
            }
            if let Some(s) = self.slot_of(qpn) {
                if let Some(q) = self.qps[s].as_mut() {
                    q.msg = None;
                }
            }
        }
        if matches!(target, Target::Own(_) | Target::Rss) {
            if let Ok(wq) = self.wq_mut(w) {
                wq.state = WqState::Err;
            }
        }
    }

    /// Writes `cqe` at `w`'s next completion entry (room was checked when its WQE was taken).
    fn complete(
        &mut self,
        w: u16,
        mem: &mut impl Memory,
        mut cqe: RecvCqe,
    ) -> Result<(u32, RecvCqe), Discard> {
        let wq = self.wq_mut(w).map_err(|_| Discard::NoWq)?;
        let (i, phase) = wq.cq.push().expect("room checked before the WQE was taken");
        cqe.phase = phase;
        let mut b = [0u8; CQE_BYTES];
        cqe.encode(&mut b)
            .expect("QPNs are 24-bit and the flags defined");
        if mem.write(wq.cqe_addr(i), &b).is_err() {
            // The completion is lost: the queue stops rather than go on silently.
            wq.state = WqState::Err;
            return Err(Discard::Fault);
        }
        Ok((i, cqe))
    }

    /// One flush step: queues of QPs in ERR go to ERR, and their RDMA WRITEs in progress are
    /// forgotten; then, first, the lowest-numbered slot whose QP is in ERR with a SEND in
    /// progress and completion room in that SEND's queue completes its WQE `WR_FLUSH_ERR`
    /// (that WQE was taken from its ring at the message's first packet, so no ring step would
    /// ever complete it: on a shared queue, which stays READY, it would be lost); else the
    /// lowest-numbered queue in ERR with a posted WQE and completion room completes that WQE as
    /// flushed. `None` when there is nothing to flush (or no room).
    pub fn flush<const QT: usize>(
        &mut self,
        qps: &QpTable<QT>,
        mem: &mut impl Memory,
    ) -> Result<Option<(u16, u32, RecvCqe)>, Discard> {
        for q in self.qps.iter_mut().flatten() {
            if qps.get(q.qpn).is_some_and(|c| c.state() == QpState::Err) {
                if matches!(q.msg, Some(Message::Write { .. })) {
                    q.msg = None;
                }
                if let Target::Own(w) = q.target {
                    if let Some(Some(wq)) = self.wqs.get_mut(usize::from(w)) {
                        wq.state = WqState::Err;
                    }
                }
            }
        }
        if let Some(step) = self.flush_in_progress(qps, mem) {
            return step.map(Some);
        }
        let Some(w) = (0..W).find(|&w| {
            self.wqs[w]
                .is_some_and(|q| q.state == WqState::Err && q.doorbell.pending() > 0 && q.cq_room())
        }) else {
            return Ok(None);
        };
        let wq = self.wqs[w].as_mut().expect("found above");
        let index = wq.doorbell.take().expect("pending above");
        let mut h = [0u8; HEADER_BYTES];
        let wr_id = match mem.read(wq.config.ring.addr(index), &mut h) {
            Ok(()) => crate::wqe::get_u64(&h, super::layout::header::WR_ID.offset),
            Err(_) => 0,
        };
        let cqe = RecvCqe::flushed(wr_id, wq.config.qpn);
        let w = w as u16;
        let (i, c) = self.complete(w, mem, cqe)?;
        Ok(Some((w, i, c)))
    }

    /// The first flush step's pick: a QP in ERR holding a SEND's WQE whose queue has room.
    fn flush_in_progress<const QT: usize>(
        &mut self,
        qps: &QpTable<QT>,
        mem: &mut impl Memory,
    ) -> Option<Result<(u16, u32, RecvCqe), Discard>> {
        let (slot, w, wr_id) = self.qps.iter().enumerate().find_map(|(s, q)| {
            let q = q.as_ref()?;
            let Some(Message::Send { wq, wr_id, .. }) = q.msg else {
                return None;
            };
            let err = qps.get(q.qpn).is_some_and(|c| c.state() == QpState::Err);
            (err && self.wq(wq).is_some_and(Wq::cq_room)).then_some((s, wq, wr_id))
        })?;
        let q = self.qps[slot].as_mut().expect("found above");
        q.msg = None;
        let cqe = RecvCqe::flushed(wr_id, q.qpn);
        Some(self.complete(w, mem, cqe).map(|(i, c)| (w, i, c)))
    }
}

/// No RSS verdict (the queue of an RC message is its QP's own or shared one).
const fn meta_none() -> Option<&'static Meta> {
    None
}

/// Writes `parts` one after another into the WQE's buffers from offset 0, when they fit:
/// the status the WQE completes with.
fn scatter_whole(mem: &mut impl Memory, wqe: &RecvWqe, parts: &[&[u8]]) -> Status {
    let total: u64 = parts.iter().map(|p| p.len() as u64).sum();
    if total > wqe.capacity() {
        return Status::LocLenErr;
    }
    let mut at = 0u64;
    for p in parts {
        if scatter(mem, wqe.sges(), at, p).is_err() {
            return Status::GeneralErr;
        }
        at += p.len() as u64;
    }
    Status::Success
}

/// Writes `data` at byte `offset` of the buffers `sges` describe, in order (the caller checked
/// that it fits). `Err` when host memory refuses a write.
fn scatter(
    mem: &mut impl Memory,
    sges: &[DataSegment],
    offset: u64,
    data: &[u8],
) -> Result<(), ()> {
    let mut skip = offset;
    let mut rest = data;
    for s in sges {
        if rest.is_empty() {
            break;
        }
        let len = u64::from(s.length);
        if skip >= len {
            skip -= len;
            continue;
        }
        let n = ((len - skip) as usize).min(rest.len());
        mem.write(s.addr + skip, &rest[..n]).map_err(|_| ())?;
        rest = &rest[n..];
        skip = 0;
    }
    debug_assert!(rest.is_empty(), "the caller checked the capacity");
    Ok(())
}
