//! QPs' receive contexts: staged and attached into the slot of the QPN's low bits
//! (`QP_ATTACH`), detached (`QP_DETACH`).

use super::RxPath;
use crate::{Bus, Error};
use rocenic_model::qp::QpKind;
use rocenic_model::qp::{Psn, QpConfig, QPN_MAX, QPN_MIN};
use rocenic_model::rx::{qp_slot, regs, RxError, Target};

/// What the firmware keeps of a receive-context slot.
#[derive(Clone, Copy, Debug)]
pub(super) struct Context {
    qpn: u32,
    target: Target,
}

/// A QP's receive side as the firmware knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttachedQp {
    /// The QPN.
    pub qpn: u32,
    /// Its receive-context slot (its QPN's low bits; the send side's slot of the QP).
    pub slot: usize,
    /// Where its messages land.
    pub target: Target,
}

impl<B: Bus, const WQS: usize, const QPS: usize> RxPath<B, WQS, QPS> {
    /// Gives QP `qpn` (configured as `config` on the send side, which must hold it in the
    /// slot of the same number: `WqeEngine::create_qp` puts it there) a receive side landing
    /// in `target`, expecting PSN `epsn` first (RC; verbs sets it at RTR). Checks the model's
    /// rules (`RecvEngine::attach`) against the firmware's tables; when the send side's slot
    /// holds no QP the block refuses ([`Error::Refused`]). The block sees only whether that
    /// slot holds a QP, not which: that it is `qpn`, with `config`, is the caller's to ensure.
    /// Returns the slot.
    pub fn attach(
        &mut self,
        qpn: u32,
        config: &QpConfig,
        target: Target,
        epsn: Psn,
    ) -> Result<usize, Error> {
        if !(QPN_MIN..=QPN_MAX).contains(&qpn) {
            return Err(Error::Rx(RxError::Qpn(qpn)));
        }
        if target == Target::Rss && config.qp_type != QpKind::Ud {
            return Err(Error::Rx(RxError::RssNotUd(qpn)));
        }
        let named = match target {
            Target::Own(w) | Target::Shared(w) => {
                if self.wq(w).is_none() {
                    return Err(Error::Rx(RxError::NoWq(w)));
                }
                Some(w)
            }
            Target::Rss => None,
        };
        let slot = qp_slot(qpn, self.caps.qps as usize);
        match self.ctxs[slot] {
            Some(c) if c.qpn == qpn => return Err(Error::Rx(RxError::Attached(qpn))),
            Some(c) => return Err(Error::Rx(RxError::SlotTaken { qpn, holder: c.qpn })),
            None => {}
        }
        self.bus
            .write_all(&regs::qp_writes(qpn, config, target, epsn))?;
        self.command(regs::qp_attach())?;
        self.ctxs[slot] = Some(Context { qpn, target });
        if let Some(w) = named {
            self.count(w, 1);
        }
        Ok(slot)
    }

    /// Removes QP `qpn`'s receive side (a message in progress is forgotten).
    pub fn detach(&mut self, qpn: u32) -> Result<(), Error> {
        let slot = self
            .slot_of(qpn)
            .ok_or(Error::Rx(RxError::NotAttached(qpn)))?;
        self.bus.write(regs::QP_QPN, qpn)?;
        self.command(regs::qp_detach())?;
        if let Some(Context {
            target: Target::Own(w) | Target::Shared(w),
            ..
        }) = self.ctxs[slot].take()
        {
            self.count(w, -1);
        }
        Ok(())
    }

    /// QP `qpn`'s receive side, if it has one.
    pub fn attached(&self, qpn: u32) -> Option<AttachedQp> {
        let slot = self.slot_of(qpn)?;
        self.ctxs[slot].map(|c| AttachedQp {
            qpn,
            slot,
            target: c.target,
        })
    }

    fn slot_of(&self, qpn: u32) -> Option<usize> {
        let slot = qp_slot(qpn, self.caps.qps as usize);
        self.ctxs[slot]
            .is_some_and(|c| c.qpn == qpn)
            .then_some(slot)
    }

    fn count(&mut self, wq: u16, by: i32) {
        if let Some(q) = self.wqs[usize::from(wq)].as_mut() {
            q.named = q.named.wrapping_add_signed(by);
        }
    }
}
