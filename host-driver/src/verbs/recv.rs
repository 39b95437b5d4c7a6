//! The receive side's shared machinery: the receive path's firmware (`RxPath`) and the RSS
//! pipeline's (`RssPipeline`) over the device's blocks, every work queue's rings in host
//! memory, posting receives, and taking the queues' completions into completion queues.
//!
//! A work queue (docs/rx.md, "Work queues") is a ring of receive WQEs (`model::rx::RecvWqe`,
//! 2^k slots of the stride its `max_sge` needs) and a completion ring of the same number of
//! entries, both zeroed at creation.
//!
//! Receives need not complete in the order they were posted: on a shared receive queue an RC
//! SEND takes its WQE at its first packet and completes it at its last, so with messages in
//! progress on two QPs a later WQE can complete first, while the receive path still reads the
//! earlier one at each packet (`model::rx::engine`). So the driver writes each WQE's ring
//! index as the work request id the device sees, keeps the caller's `wr_id` by slot, and frees
//! a slot only when the completion naming that index comes back: posting when the slot the
//! next index lands on is still taken is `ENOMEM`, however many others are free.

use super::context::Inner;
use super::cq::Completion;
use super::wr::RecvWr;
use super::{Error, Exhausted, Invalid, PostError};
use crate::device::{BlockBus, Device};
use rocenic_firmware::{RssPipeline, RxPath};
use rocenic_model::rx::layout::cqe as owner;
use rocenic_model::rx::{
    RecvCqe, RecvRing, RecvWqe, WqConfig, WqState, CQE_BYTES, HEADER_BYTES, MAX_SGE,
};
use rocenic_model::wqe::{CompletionRing, Memory, Ring, BLOCK_BYTES, DATA_BYTES};
use std::collections::BTreeMap;

/// The receive path of a device that has one.
pub(super) struct RxSide<D: Device> {
    pub(super) fw: RxPath<BlockBus<D>>,
    /// The RSS pipeline, when the device has one.
    pub(super) rss: Option<RssPipeline<BlockBus<D>>>,
    pub(super) wqs: BTreeMap<u16, WqEntry>,
    /// RSS contexts handed out (context 0, the pipeline's default for frames no rule
    /// matches, never is).
    pub(super) contexts: Vec<bool>,
    /// Steering rules in use.
    pub(super) rules: Vec<bool>,
    /// Raw packet QPs' flows by rule: the flow's serial number and its QP. A QP's destroy
    /// removes its flows, so a flow dropped after its QP finds its rule gone (or another's).
    pub(super) raw_flows: BTreeMap<usize, (u64, u32)>,
    /// The serial number of the next raw packet QP's flow.
    pub(super) next_flow: u64,
}

/// What a work queue is for, beyond its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WqKind {
    /// A QP's own queue, or one an RSS QP's table names.
    Plain,
    /// A shared receive queue.
    Shared,
    /// A raw-packet queue: frames that are not RoCEv2 land in it whole.
    Raw,
}

/// What the driver keeps of a work queue.
pub(super) struct WqEntry {
    /// The completion queue its completions go to.
    pub(super) cq: u32,
    pub(super) ring: RecvRing,
    pub(super) max_sge: u32,
    pub(super) cq_ring: Ring,
    pub(super) cq_base: u64,
    /// The next index to post at, and the next completion to take.
    pub(super) producer: u32,
    pub(super) consumer: u32,
    /// Its state as the driver last learnt it (a failed receive moves it to ERR when its
    /// completion is taken).
    pub(super) state: WqState,
    /// The QP whose own receive queue it is.
    pub(super) owner: Option<u32>,
    /// A shared receive queue: its completions go to the receive CQ of the QP they name.
    pub(super) shared: bool,
    /// By ring slot: the index a receive was posted at and its caller's `wr_id`, until its
    /// completion is taken.
    pub(super) slots: Vec<Option<(u32, u64)>>,
    /// The RSS QP spreading over it.
    pub(super) rss_qpn: Option<u32>,
    /// A raw-packet queue: a failed receive moves it to ERR alone, never its QP.
    pub(super) raw: bool,
}

impl WqEntry {
    /// Receives posted and not completed.
    pub(super) fn used(&self) -> u32 {
        self.slots.iter().flatten().count() as u32
    }

    /// The receive a completion names by its work request id (the ring index the driver
    /// wrote): its slot is freed, and its index and the caller's `wr_id` returned.
    fn complete(&mut self, hw_wr_id: u64) -> Result<(u32, u64), Error> {
        let index = u32::try_from(hw_wr_id).map_err(|_| bad_wr_id())?;
        let slot = self.ring.ring().slot(index) as usize;
        match self.slots[slot] {
            Some((i, wr_id)) if i == index => {
                self.slots[slot] = None;
                Ok((index, wr_id))
            }
            _ => Err(bad_wr_id()),
        }
    }
}

/// A receive completion whose work request id names no receive the driver posted.
fn bad_wr_id() -> Error {
    Error::BadCompletion(rocenic_model::wqe::Error::Reserved { field: "WR_ID" })
}

impl<D: Device> Inner<D> {
    pub(super) fn rx(&mut self) -> Result<&mut RxSide<D>, Error> {
        self.rx
            .as_mut()
            .ok_or(Error::Unsupported(super::Feature::Receive))
    }

    /// A new work queue in RESET: `max_wr` receives of `max_sge` entries in PD `pd`,
    /// completing to CQ `cq`, naming `qpn` in its completions (0 until an RSS QP uses it);
    /// `kind`: a QP's or RSS QP's queue, a shared one, or a raw-packet one.
    pub(super) fn create_wq_entry(
        &mut self,
        pd: u32,
        cq: u32,
        max_wr: u32,
        max_sge: u32,
        owner: Option<u32>,
        kind: WqKind,
    ) -> Result<u16, Error> {
        let (shared, raw) = (kind == WqKind::Shared, kind == WqKind::Raw);
        let rx = self.rx()?;
        let caps = rx.fw.caps();
        let most = (caps.max_sge as usize).min(MAX_SGE) as u32;
        if max_sge == 0 || max_sge > most {
            return Err(Invalid::Size("max_recv_sge", max_sge.into(), most.into()).into());
        }
        let max_wr_limit = 1u32 << Ring::MAX_LOG2;
        if max_wr == 0 || max_wr > max_wr_limit {
            return Err(Invalid::Size("max_recv_wr", max_wr.into(), max_wr_limit.into()).into());
        }
        let w = (0..caps.wqs.min(u32::from(u16::MAX)) as u16)
            .find(|w| rx.fw.wq(*w).is_none())
            .ok_or(Exhausted::WqTable)?;
        let entries = max_wr.next_power_of_two();
        let ring = Ring::new(entries.trailing_zeros()).expect("at most 2^16");
        let bytes = (HEADER_BYTES + max_sge as usize * DATA_BYTES).div_ceil(BLOCK_BYTES);
        let stride_log2 = (bytes as u32).next_power_of_two().trailing_zeros();
        let ring_base = self.alloc(u64::from(entries) << (stride_log2 + 6))?;
        let cq_base = self.alloc(u64::from(entries) * CQE_BYTES as u64)?;
        let config = WqConfig {
            qpn: owner.unwrap_or(0),
            pd,
            ring: RecvRing::new(ring, stride_log2, ring_base).expect("page aligned"),
            cq: CompletionRing::new(ring, 0).expect("index 0"),
            cq_base,
            raw,
        };
        if let Err(e) = self.rx()?.fw.create_wq(w, &config) {
            self.free(ring_base);
            self.free(cq_base);
            return Err(e.into());
        }
        self.rx()?.wqs.insert(
            w,
            WqEntry {
                cq,
                ring: config.ring,
                max_sge,
                cq_ring: ring,
                cq_base,
                producer: 0,
                consumer: 0,
                state: WqState::Reset,
                owner,
                rss_qpn: None,
                shared,
                slots: vec![None; entries as usize],
                raw,
            },
        );
        Ok(w)
    }

    /// A software modify of work queue `w`; one the block refuses because the queue went to
    /// ERR there (a failed receive not taken yet) leaves it in ERR. RESET empties its rings.
    pub(super) fn modify_wq(&mut self, w: u16, to: WqState) -> Result<(), Error> {
        let rx = self.rx()?;
        let from = rx.wqs[&w].state;
        from.modify(to).map_err(Invalid::WqTransition)?;
        match rx.fw.modify_wq(w, to) {
            Ok(()) => {}
            Err(rocenic_firmware::Error::Refused { .. })
                if rx.fw.wq(w).is_some_and(|i| i.state == WqState::Err) =>
            {
                rx.wqs.get_mut(&w).expect("a live WQ").state = WqState::Err;
                return Err(Invalid::WqTransition(rocenic_model::rx::WqTransition {
                    from: WqState::Err,
                    to,
                })
                .into());
            }
            Err(e) => return Err(e.into()),
        }
        rx.wqs.get_mut(&w).expect("a live WQ").state = to;
        if to == WqState::Reset {
            self.restart_wq(w)?;
        }
        Ok(())
    }

    /// After a RESET: the block's indices restart at 0, so do the driver's; the completion
    /// ring is zeroed again (its phase bits start over) and its completions are dropped.
    fn restart_wq(&mut self, w: u16) -> Result<(), Error> {
        let rx = self.rx()?;
        let e = rx.wqs.get_mut(&w).expect("a live WQ");
        e.producer = 0;
        e.consumer = 0;
        e.slots.fill(None);
        let (cq, base, n) = (e.cq, e.cq_base, e.cq_ring.entries());
        let zeros = vec![0u8; n as usize * CQE_BYTES];
        self.device
            .borrow_mut()
            .memory()
            .write(base, &zeros)
            .expect("a live completion ring is host memory");
        if let Some(c) = self.cqs.get_mut(&cq) {
            c.purge_wq(w);
        }
        Ok(())
    }

    /// Destroys work queue `w` and frees its rings.
    pub(super) fn destroy_wq_entry(&mut self, w: u16) -> Result<(), Error> {
        let rx = self.rx()?;
        let r = rx.fw.destroy_wq(w);
        if r.is_ok() || rx.fw.wq(w).is_none() {
            let e = rx.wqs.remove(&w).expect("a live WQ");
            if let Some(c) = self.cqs.get_mut(&e.cq) {
                c.purge_wq(w);
            }
            self.free(e.ring.addr(0));
            self.free(e.cq_base);
        }
        Ok(r?)
    }

    /// Writes the receive WQEs of `wrs` at work queue `w`'s next indices and rings its
    /// doorbell once for them; a list stops at its first bad request.
    pub(super) fn post_recv_list(&mut self, w: u16, wrs: &[RecvWr<'_>]) -> Result<(), PostError> {
        let mut refused = None;
        let mut posted = 0;
        for (i, wr) in wrs.iter().enumerate() {
            match self.write_recv_wqe(w, wr) {
                Ok(()) => posted += 1,
                Err(error) => {
                    refused = Some(PostError { bad_wr: i, error });
                    break;
                }
            }
        }
        if posted > 0 {
            let rx = self.rx().map_err(|error| PostError { bad_wr: 0, error })?;
            let producer = rx.wqs[&w].producer;
            rx.fw.post_receives(w, producer).map_err(|e| PostError {
                bad_wr: 0,
                error: e.into(),
            })?;
        }
        refused.map_or(Ok(()), Err)
    }

    fn write_recv_wqe(&mut self, w: u16, wr: &RecvWr<'_>) -> Result<(), Error> {
        let e = &self.rx()?.wqs[&w];
        if wr.sgl.is_empty() {
            return Err(Invalid::Attr("a receive work request needs a scatter entry").into());
        }
        if wr.sgl.len() > e.max_sge as usize {
            return Err(Invalid::TooManySge {
                n: wr.sgl.len(),
                max: e.max_sge,
            }
            .into());
        }
        let entries = e.ring.ring().entries();
        let slot = e.ring.ring().slot(e.producer) as usize;
        if e.slots[slot].is_some() {
            return Err(Exhausted::RecvQueue {
                wq: w.into(),
                entries,
            }
            .into());
        }
        // The device sees the ring index as the work request id (see the module's description).
        let wqe = RecvWqe::new(u64::from(e.producer), wr.sgl).map_err(Invalid::Wqe)?;
        let mut bytes = vec![0u8; e.ring.stride_blocks() as usize * BLOCK_BYTES];
        wqe.encode(&mut bytes).map_err(Invalid::Wqe)?;
        let addr = e.ring.addr(e.producer);
        self.device
            .borrow_mut()
            .memory()
            .write(addr, &bytes)
            .expect("a live receive ring is host memory");
        let e = self.rx()?.wqs.get_mut(&w).expect("a live WQ");
        e.slots[slot] = Some((e.producer, wr.wr_id));
        e.producer = e.producer.wrapping_add(1);
        Ok(())
    }

    /// Takes the new entries of every work queue's completion ring into their completion
    /// queues, each ring in order up to the first whose queue is full, and reports each new
    /// consumer index to the block. A failed receive moves the queue to ERR, and the QP too
    /// when the queue is its own, as the receive path moved them; on a shared queue it moves
    /// the QP alone.
    pub(super) fn drain_recv(&mut self) -> Result<(), Error> {
        let Some(rx) = self.rx.as_mut() else {
            return Ok(());
        };
        let mut released = Vec::new();
        for (&w, e) in rx.wqs.iter_mut() {
            let start = e.consumer;
            loop {
                let i = e.consumer;
                let at = e.cq_base + u64::from(e.cq_ring.slot(i)) * CQE_BYTES as u64;
                let mut b = [0u8; CQE_BYTES];
                self.device
                    .borrow_mut()
                    .memory()
                    .read(at, &mut b)
                    .expect("a live completion ring is host memory");
                // An entry not written yet is all zeros but for its phase: look at that first.
                let phase = b[owner::OWNER.offset] & 1 != 0;
                if phase != e.cq_ring.phase(i) {
                    break;
                }
                let cqe = RecvCqe::decode(&b).map_err(Error::BadCompletion)?;
                // A shared queue's completion goes to the receive CQ of the QP it names; one
                // of a QP destroyed since is dropped.
                let cq_id = if e.shared {
                    self.qps.get(&cqe.qpn).and_then(|q| q.recv_cq)
                } else {
                    Some(e.cq)
                };
                let cq = match cq_id {
                    Some(id) => match self.cqs.get_mut(&id) {
                        Some(cq) if cq.has_room() => Some(cq),
                        _ => break,
                    },
                    None => None,
                };
                let (index, wr_id) = e.complete(cqe.wr_id)?;
                e.consumer = i.wrapping_add(1);
                let Some(cq) = cq else {
                    continue;
                };
                // A flushed entry names the queue's configured QP, which a queue created on
                // its own does not know: the driver names the RSS QP using it.
                let qpn = match (cqe.qpn, e.owner, e.rss_qpn) {
                    (0, None, Some(q)) => q,
                    (q, _, _) => q,
                };
                if !cqe.status.is_success() {
                    if !e.shared {
                        e.state = WqState::Err;
                    }
                    // A raw frame's failure moves its queue alone (docs/rx.md): the receive
                    // path holds no receive context for a raw QP.
                    let failed = if e.shared {
                        Some(cqe.qpn)
                    } else {
                        e.owner.filter(|_| !e.raw)
                    };
                    if let Some(q) = failed.and_then(|o| self.qps.get_mut(&o)) {
                        q.set_err();
                    }
                }
                cq.push(Completion::from_recv(&cqe, wr_id, qpn, w, index));
            }
            if e.consumer != start {
                released.push((w, e.consumer));
            }
        }
        for (w, c) in released {
            rx.fw.release_completions(w, c)?;
        }
        Ok(())
    }
}
