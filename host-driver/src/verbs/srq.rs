//! Shared receive queues (`ibv_srq`): one work queue of the receive path that several QPs name
//! (`model::rx::Target::Shared`, docs/rx.md "Work queues").
//!
//! An SRQ is READY from its creation (verbs gives it no states). Its receives go to whichever
//! of its QPs a message arrives for, and each completion to that QP's receive completion
//! queue. A failed receive moves that QP to ERR; the SRQ goes on serving the others. Receives
//! may complete out of posting order (an RC SEND keeps its WQE from its first packet to its
//! last): the driver frees a slot by the completion that names it (see `recv.rs`). A QP
//! reset in the middle of a message gives that message's receive back `WR_FLUSH_ERR` before
//! its receive side is detached, and the reset keeps its SRQ completions (`qp.rs`,
//! `flush_srq_receive`).

use super::cq::CompletionQueue;
use super::pd::ProtectionDomain;
use super::qp::QueuePair;
use super::recv::WqKind;
use super::wr::RecvWr;
use super::{Error, Feature, PostError, QpInitAttr};
use crate::device::Device;
use rocenic_model::rx::WqState;

/// What a shared receive queue is created with (`ibv_srq_init_attr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrqInitAttr {
    /// Receive work requests it holds (rounded up to a power of two).
    pub max_wr: u32,
    /// Scatter entries of each.
    pub max_sge: u32,
    /// The limit that arms verbs' "SRQ limit reached" event: 0, as the device raises no
    /// asynchronous events (`EOPNOTSUPP` otherwise).
    pub srq_limit: u32,
}

/// A shared receive queue. It borrows its PD; QPs created on it borrow it, so it outlives
/// them, and posting to it takes it by shared reference (the driver's tables are behind the
/// context's one borrow). Dropping it destroys it.
pub struct SharedReceiveQueue<'a, D: Device> {
    pd: &'a ProtectionDomain<'a, D>,
    wq_num: u16,
}

impl<'a, D: Device> SharedReceiveQueue<'a, D> {
    pub(super) fn create(
        pd: &'a ProtectionDomain<'a, D>,
        attr: &SrqInitAttr,
    ) -> Result<Self, Error> {
        if attr.srq_limit != 0 {
            return Err(Error::Unsupported(Feature::SrqLimit));
        }
        let mut inner = pd.context().inner.borrow_mut();
        // Completions go to each QP's receive CQ, so the queue names none (0).
        let w =
            inner.create_wq_entry(pd.pdn(), 0, attr.max_wr, attr.max_sge, None, WqKind::Shared)?;
        if let Err(e) = inner.modify_wq(w, WqState::Ready) {
            let _ = inner.destroy_wq_entry(w);
            return Err(e);
        }
        Ok(SharedReceiveQueue { pd, wq_num: w })
    }

    /// Its work queue's number (what completions from it say in `wq_num`).
    pub fn wq_num(&self) -> u32 {
        self.wq_num.into()
    }

    /// Receive work requests it holds (`max_wr` rounded up to a power of two).
    pub fn entries(&self) -> u32 {
        let inner = self.pd.context().inner.borrow();
        inner.rx.as_ref().expect("a receive path").wqs[&self.wq_num]
            .ring
            .ring()
            .entries()
    }

    /// Receive work requests posted and not completed.
    pub fn used(&self) -> u32 {
        let inner = self.pd.context().inner.borrow();
        inner.rx.as_ref().expect("a receive path").wqs[&self.wq_num].used()
    }

    /// Posts one receive work request (`ibv_post_srq_recv`).
    pub fn post_recv(&self, wr: &RecvWr<'_>) -> Result<(), Error> {
        self.post_recv_list(std::slice::from_ref(wr))
            .map_err(|e| e.error)
    }

    /// Posts receive work requests in order with one doorbell; a list stops at its first bad
    /// request. `ENOMEM` when the slot the next one lands on still holds a receive not
    /// completed.
    pub fn post_recv_list(&self, wrs: &[RecvWr<'_>]) -> Result<(), PostError> {
        self.pd
            .context()
            .inner
            .borrow_mut()
            .post_recv_list(self.wq_num, wrs)
    }

    /// A QP receiving into this SRQ (`ibv_create_qp` with `srq`): sends complete to
    /// `send_cq`, receives to `recv_cq`; `attr`'s receive sizes are ignored.
    pub fn create_qp<'q>(
        &'q self,
        send_cq: &'q CompletionQueue<'a, D>,
        recv_cq: &'q CompletionQueue<'a, D>,
        attr: &QpInitAttr,
    ) -> Result<QueuePair<'q, D>, Error> {
        QueuePair::create_with_srq(self.pd, send_cq, recv_cq, self.wq_num, attr)
    }
}

impl<D: Device> Drop for SharedReceiveQueue<'_, D> {
    fn drop(&mut self) {
        // A failing device cannot be reported from a drop.
        let _ = self
            .pd
            .context()
            .inner
            .borrow_mut()
            .destroy_wq_entry(self.wq_num);
    }
}
