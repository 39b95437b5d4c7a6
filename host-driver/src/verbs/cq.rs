//! Completion queues over the engine's one completion ring and the work queues' own rings.
//!
//! The engine writes every completion to one ring in host memory (docs/wqe.md, "Rings and
//! indices"): an entry is new when its phase bit is the phase of its index, and the engine
//! never writes more than the ring ahead of the consumer index the driver reports. The driver
//! takes entries in ring order and hands each to the completion queue of the QP it names;
//! an entry whose queue is full stays in the ring (so do the ones behind it) until that queue
//! is polled. Nothing is overwritten or lost: a full queue holds the ring back, a full ring
//! holds the engine back.

use super::context::{Context, Inner};
use super::{Error, Invalid};
use crate::device::Device;
use rocenic_model::rx::{RecvCqe, RecvFlags, RecvOpcode};
use rocenic_model::wqe::{Cqe, Memory, Opcode, Ring, CQE_BYTES};
use std::collections::VecDeque;

/// A completion's status: the verbs `ibv_wc_status` codes.
pub use rocenic_model::qp::Status as WcStatus;

/// What completed (`ibv_wc_opcode`, with the immediate variants kept apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WcOpcode {
    /// A SEND.
    Send,
    /// A SEND with immediate.
    SendWithImm,
    /// An RDMA WRITE.
    RdmaWrite,
    /// An RDMA WRITE with immediate.
    RdmaWriteWithImm,
    /// A TSO send.
    Tso,
    /// An RDMA READ (a device with the reliable transport).
    RdmaRead,
    /// A received SEND (receive path).
    Recv,
    /// A received RDMA WRITE with immediate (receive path).
    RecvRdmaWithImm,
}

impl From<Opcode> for WcOpcode {
    fn from(o: Opcode) -> Self {
        match o {
            Opcode::Send => WcOpcode::Send,
            Opcode::SendImm => WcOpcode::SendWithImm,
            Opcode::RdmaWrite => WcOpcode::RdmaWrite,
            Opcode::RdmaWriteImm => WcOpcode::RdmaWriteWithImm,
            Opcode::Tso => WcOpcode::Tso,
            Opcode::RdmaRead => WcOpcode::RdmaRead,
        }
    }
}

/// A work completion (`ibv_wc`). Only the driver makes them, from what the device wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    wr_id: u64,
    qp_num: u32,
    status: WcStatus,
    opcode: Option<WcOpcode>,
    byte_len: u32,
    wqe_index: u32,
    recv: Option<RecvInfo>,
}

/// What only a receive completion carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RecvInfo {
    wq: u16,
    imm: Option<u32>,
    src_qp: u32,
    hash: Option<u32>,
    grh: bool,
    csum_ok: bool,
}

impl Completion {
    fn from_cqe(c: &Cqe) -> Self {
        Completion {
            wr_id: c.wr_id,
            qp_num: c.qpn,
            status: c.status,
            opcode: c.opcode.map(WcOpcode::from),
            byte_len: c.byte_len,
            wqe_index: c.wqe_index,
            recv: None,
        }
    }

    /// A receive completion of work queue `wq` for the receive posted at `index` with the
    /// caller's `wr_id`; `qp_num` is the QP it names (the driver's, for a flushed entry of a
    /// queue created on its own).
    pub(super) fn from_recv(c: &RecvCqe, wr_id: u64, qp_num: u32, wq: u16, index: u32) -> Self {
        Completion {
            wr_id,
            qp_num,
            status: c.status,
            opcode: Some(match c.opcode {
                RecvOpcode::Recv => WcOpcode::Recv,
                RecvOpcode::RecvRdmaWithImm => WcOpcode::RecvRdmaWithImm,
            }),
            byte_len: c.byte_len,
            wqe_index: index,
            recv: Some(RecvInfo {
                wq,
                imm: c.flags.contains(RecvFlags::IMM).then_some(c.imm),
                src_qp: c.src_qp,
                hash: c.flags.contains(RecvFlags::HASHED).then_some(c.hash),
                grh: c.flags.contains(RecvFlags::GRH),
                csum_ok: c.flags.contains(RecvFlags::CSUM_OK),
            }),
        }
    }

    /// The work request's `wr_id`.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }

    /// The QP it was posted on (a receive: the QP the message was for; the RSS QP for its
    /// work queues).
    pub fn qp_num(&self) -> u32 {
        self.qp_num
    }

    /// How it ended.
    pub fn status(&self) -> WcStatus {
        self.status
    }

    /// Whether it succeeded.
    pub fn is_success(&self) -> bool {
        self.status.is_success()
    }

    /// What it was; `None` when the engine did not know the opcode.
    pub fn opcode(&self) -> Option<WcOpcode> {
        self.opcode
    }

    /// Message bytes (0 for an error); a UD receive counts the 40-byte GRH area before the
    /// payload, an RDMA WRITE with immediate the WRITE's length.
    pub fn byte_len(&self) -> u32 {
        self.byte_len
    }

    /// A send: the index it was posted at in its send queue. A receive: the index it was
    /// posted at in its work queue (on a shared queue receives may complete out of that
    /// order).
    pub fn wqe_index(&self) -> u32 {
        self.wqe_index
    }

    /// Whether it is a receive completion.
    pub fn is_recv(&self) -> bool {
        self.recv.is_some()
    }

    /// A receive: the work queue it came from (`wc.wq_num` of `ibv_wc_ex`).
    pub fn wq_num(&self) -> Option<u32> {
        self.recv.map(|r| u32::from(r.wq))
    }

    /// A receive: the immediate data (`IBV_WC_WITH_IMM`), as the wire carried it.
    pub fn imm_data(&self) -> Option<u32> {
        self.recv.and_then(|r| r.imm)
    }

    /// A UD receive: the sender's QP (0 otherwise).
    pub fn src_qp(&self) -> u32 {
        self.recv.map_or(0, |r| r.src_qp)
    }

    /// A receive whose buffer starts with the 40-byte GRH area (`IBV_WC_GRH`): UD.
    pub fn has_grh(&self) -> bool {
        self.recv.is_some_and(|r| r.grh)
    }

    /// A receive whose checksums were checked good (`IBV_WC_IP_CSUM_OK`).
    pub fn ip_csum_ok(&self) -> bool {
        self.recv.is_some_and(|r| r.csum_ok)
    }

    /// A receive the RSS pipeline hashed: the hash (`ibv_wc_read_flow_tag`'s neighbour in
    /// `ibv_wc_ex`, the RX hash).
    pub fn rss_hash(&self) -> Option<u32> {
        self.recv.and_then(|r| r.hash)
    }
}

/// The engine's completion ring: where, how big, and the next entry to take.
pub(super) struct HwRing {
    pub(super) base: u64,
    pub(super) ring: Ring,
    pub(super) consumer: u32,
}

impl HwRing {
    pub(super) fn new(base: u64, ring: Ring) -> Self {
        HwRing {
            base,
            ring,
            consumer: 0,
        }
    }
}

/// A completion queue's completions, taken from the ring and not yet polled.
pub(super) struct CqEntry {
    capacity: usize,
    entries: VecDeque<Completion>,
}

impl CqEntry {
    pub(super) fn new(capacity: usize) -> Self {
        CqEntry {
            capacity,
            entries: VecDeque::new(),
        }
    }

    /// Drops every completion of `qpn` (the QP was reset or destroyed, as verbs cleans a CQ)
    /// but its receives from shared queue `srq`: those buffers are the SRQ's, and their
    /// completions are how the caller gets them back.
    pub(super) fn purge(&mut self, qpn: u32, srq: Option<u16>) {
        self.entries
            .retain(|c| c.qp_num != qpn || srq.is_some_and(|w| c.recv.is_some_and(|r| r.wq == w)));
    }

    /// Drops every receive completion of work queue `wq` (it was reset or destroyed).
    pub(super) fn purge_wq(&mut self, wq: u16) {
        self.entries.retain(|c| c.recv.is_none_or(|r| r.wq != wq));
    }

    /// Whether another completion fits.
    pub(super) fn has_room(&self) -> bool {
        self.entries.len() < self.capacity
    }

    /// Adds a completion (the caller checked the room).
    pub(super) fn push(&mut self, c: Completion) {
        self.entries.push_back(c);
    }
}

impl<D: Device> Inner<D> {
    /// Takes the new entries of the engine's completion ring into their completion queues, up
    /// to the first whose queue is full, and reports the new consumer index to the engine.
    pub(super) fn drain(&mut self) -> Result<(), Error> {
        let start = self.hw_cq.consumer;
        // QPs a failed request moved to ERR, whose raw queue follows them there.
        let mut failed: Vec<u32> = Vec::new();
        loop {
            let i = self.hw_cq.consumer;
            let at = self.hw_cq.base + u64::from(self.hw_cq.ring.slot(i)) * CQE_BYTES as u64;
            let mut b = [0u8; CQE_BYTES];
            self.device
                .borrow_mut()
                .memory()
                .read(at, &mut b)
                .expect("the completion ring is host memory");
            let cqe = Cqe::decode(&b).map_err(Error::BadCompletion)?;
            if cqe.phase != self.hw_cq.ring.phase(i) {
                break;
            }
            // A completion of a QP destroyed or reset since is dropped.
            if let Some(qp) = self.qps.get_mut(&cqe.qpn) {
                if qp.current(i) {
                    // An RSS QP has no send CQ and sends nothing.
                    let Some(cq) = self.cqs.get_mut(&qp.send_cq) else {
                        self.hw_cq.consumer = i.wrapping_add(1);
                        continue;
                    };
                    if cq.entries.len() >= cq.capacity {
                        break;
                    }
                    qp.completed(&cqe);
                    if !cqe.status.is_success() {
                        failed.push(cqe.qpn);
                    }
                    cq.entries.push_back(Completion::from_cqe(&cqe));
                }
            }
            self.hw_cq.consumer = i.wrapping_add(1);
        }
        if self.hw_cq.consumer != start {
            self.fw.release_completions(self.hw_cq.consumer)?;
        }
        for qpn in failed {
            self.flush_raw_queue(qpn)?;
        }
        self.drain_recv()
    }
}

/// Device cycles between two looks at the completion ring while waiting.
const WAIT_STEP: u64 = 16;

/// A completion queue (`ibv_cq`) of a fixed number of entries. QPs borrow it, so it outlives
/// them.
pub struct CompletionQueue<'c, D: Device> {
    ctx: &'c Context<D>,
    id: u32,
}

impl<'c, D: Device> CompletionQueue<'c, D> {
    pub(super) fn new(ctx: &'c Context<D>, id: u32) -> Self {
        CompletionQueue { ctx, id }
    }

    pub(super) fn id(&self) -> u32 {
        self.id
    }

    /// The context.
    pub fn context(&self) -> &'c Context<D> {
        self.ctx
    }

    /// Entries it holds.
    pub fn capacity(&self) -> usize {
        self.ctx.inner.borrow().cqs[&self.id].capacity
    }

    /// Up to `max` completions, oldest first (`ibv_poll_cq`); none when nothing completed.
    pub fn poll(&self, max: usize) -> Result<Vec<Completion>, Error> {
        let mut inner = self.ctx.inner.borrow_mut();
        inner.drain()?;
        let cq = inner.cqs.get_mut(&self.id).expect("a live CQ");
        let n = max.min(cq.entries.len());
        let out = cq.entries.drain(..n).collect();
        // Room made here may let the ring's next entries in.
        if n > 0 {
            inner.drain()?;
        }
        Ok(out)
    }

    /// The oldest completion, if any.
    pub fn poll_one(&self) -> Result<Option<Completion>, Error> {
        Ok(self.poll(1)?.pop())
    }

    /// Lets the device run until `n` completions wait in this queue, at most `limit` cycles
    /// (`ETIMEDOUT`); they are then polled as usual. `n` must fit the queue.
    pub fn wait(&self, n: usize, limit: u64) -> Result<(), Error> {
        if n > self.capacity() {
            return Err(
                Invalid::Size("completions to wait for", n as u64, self.capacity() as u64).into(),
            );
        }
        let start = self.ctx.cycle();
        loop {
            let mut inner = self.ctx.inner.borrow_mut();
            inner.drain()?;
            if inner.cqs[&self.id].entries.len() >= n {
                return Ok(());
            }
            let mut dev = inner.device.borrow_mut();
            let spent = dev.cycle() - start;
            if spent >= limit {
                return Err(Error::Timeout { cycles: spent });
            }
            dev.run(WAIT_STEP.min(limit - spent))?;
        }
    }

    /// Polls until `n` completions came, letting the device run in between (at most `limit`
    /// cycles in all): every completion polled, oldest first, also on a timeout, which the
    /// second value reports.
    pub fn poll_until(&self, n: usize, limit: u64) -> (Vec<Completion>, Result<(), Error>) {
        let start = self.ctx.cycle();
        let mut out = Vec::new();
        while out.len() < n {
            match self.poll(n - out.len()) {
                Ok(c) => out.extend(c),
                Err(e) => return (out, Err(e)),
            }
            if out.len() >= n {
                break;
            }
            let spent = self.ctx.cycle() - start;
            if spent >= limit {
                return (out, Err(Error::Timeout { cycles: spent }));
            }
            if let Err(e) = self.ctx.run(WAIT_STEP.min(limit - spent)) {
                return (out, Err(e));
            }
        }
        (out, Ok(()))
    }
}

impl<D: Device> Drop for CompletionQueue<'_, D> {
    fn drop(&mut self) {
        self.ctx.inner.borrow_mut().cqs.remove(&self.id);
    }
}
