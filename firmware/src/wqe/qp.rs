//! QPs: a context staged and written into a free slot (`QP_WRITE`), verbs state changes
//! (`QP_MODIFY`), destroy (`QP_DESTROY`) and send doorbells.

use super::WqeEngine;
use crate::entropy::{self, EntropySource};
use crate::{Bus, Error};
use rocenic_model::entropy::{Entropy, QpType};
use rocenic_model::qp::{QpConfig, QpContext, QpState};
use rocenic_model::wqe::regs;
use rocenic_model::wqe::{DoorbellError, Ring, SendRing};

/// What the firmware keeps of a QP slot.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    qpn: u32,
    qp_type: QpType,
    dest_qpn: u32,
    av_flow_label: u32,
    source: EntropySource,
    /// `QP_FLOW_LABEL` as written.
    staged_flow_label: u32,
    state: QpState,
    entropy: Option<Entropy>,
    ring: Ring,
    /// The last producer index rung, in ring order.
    posted: u32,
}

/// A QP as the firmware knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpInfo {
    /// The QPN.
    pub qpn: u32,
    /// Its slot in the engine (the doorbell's index).
    pub slot: usize,
    /// Its state.
    pub state: QpState,
    /// RC: the flow label and UDP source port fixed at RTR.
    pub entropy: Option<Entropy>,
    /// The last producer index rung.
    pub posted: u32,
}

impl<B: Bus, const QPS: usize, const MRS: usize> WqeEngine<B, QPS, MRS> {
    /// Creates QP `qpn` in RESET with `config`, its send ring `ring`, and for RC the entropy
    /// from `source`: checks the configuration (the model's `QpContext::new`), that the QPN is
    /// new and a slot free, and that the engine can give the QP `source`'s entropy under the
    /// profile ([`entropy::plan`]); then stages it and writes it into the first free slot.
    /// Returns the slot.
    pub fn create_qp(
        &mut self,
        qpn: u32,
        config: &QpConfig,
        ring: &SendRing,
        source: EntropySource,
    ) -> Result<usize, Error> {
        QpContext::new(qpn, *config).map_err(Error::Qp)?;
        if self.find(qpn).is_some() {
            return Err(Error::DuplicateQpn(qpn));
        }
        let n = self.qp_slots();
        let slot = (0..n)
            .find(|&i| self.slots[i].is_none())
            .ok_or(Error::QpTableFull)?;
        let mut staged = *config;
        let av_flow_label = config.av.map_or(0, |av| av.flow_label);
        let flow_label = match (config.qp_type, staged.av.as_mut()) {
            (QpType::Rc, Some(av)) => {
                let plan =
                    entropy::plan(self.profile, source, qpn, config.dest_qpn, av_flow_label)?;
                av.flow_label = plan.flow_label;
                plan.flow_label
            }
            _ if source != EntropySource::Qpn => return Err(Error::CmNeedsRc),
            _ => av_flow_label,
        };
        self.bus
            .write_all(&regs::qp_writes(qpn, &staged, ring, ring.addr(0)))?;
        self.command(regs::qp_write(slot as u32))?;
        self.slots[slot] = Some(Slot {
            qpn,
            qp_type: config.qp_type,
            dest_qpn: config.dest_qpn,
            av_flow_label,
            source,
            staged_flow_label: flow_label,
            state: QpState::Reset,
            entropy: None,
            ring: ring.ring(),
            posted: 0,
        });
        Ok(slot)
    }

    /// A verbs modify of QP `qpn` to `to`. An RC QP entering RTR gets its entropy, checked
    /// again under the profile now in force; RESET forgets it and restarts the ring at 0.
    ///
    /// The engine itself moves a QP to ERR when one of its WQEs fails, and the registers do not
    /// show it. So when the block refuses a modify the firmware thought legal, and the refusal
    /// is what ERR would give, the firmware records ERR (and returns [`Error::Refused`]).
    pub fn modify_qp(&mut self, qpn: u32, to: QpState) -> Result<(), Error> {
        let i = self.index(qpn)?;
        let mut s = self.slots[i].expect("index gives a used slot");
        s.state.modify(to).map_err(Error::Transition)?;
        let entropy = match (to, s.qp_type) {
            (QpState::Rtr, QpType::Rc) => {
                let want =
                    entropy::wanted(self.profile, s.source, s.qpn, s.dest_qpn, s.av_flow_label);
                let plan =
                    entropy::check(self.profile, s.qpn, s.dest_qpn, s.staged_flow_label, want)?;
                Some(plan.entropy)
            }
            (QpState::Rtr | QpState::Reset, _) => None,
            _ => s.entropy,
        };
        if let Err(e) = self.command(regs::qp_modify(i as u32, to)) {
            if matches!(e, Error::Refused { .. }) && !QpState::Err.can_modify_to(to) {
                s.state = QpState::Err;
                self.slots[i] = Some(s);
            }
            return Err(e);
        }
        s.state = to;
        s.entropy = entropy;
        if to == QpState::Reset {
            s.posted = 0;
        }
        self.slots[i] = Some(s);
        Ok(())
    }

    /// RESET → INIT → RTR → RTS.
    pub fn bring_up(&mut self, qpn: u32) -> Result<(), Error> {
        for to in [QpState::Init, QpState::Rtr, QpState::Rts] {
            self.modify_qp(qpn, to)?;
        }
        Ok(())
    }

    /// Destroys QP `qpn`, freeing its slot.
    pub fn destroy_qp(&mut self, qpn: u32) -> Result<(), Error> {
        let i = self.index(qpn)?;
        self.command(regs::qp_destroy(i as u32))?;
        self.slots[i] = None;
        Ok(())
    }

    /// Tells the engine that QP `qpn`'s WQEs up to index `producer` (exclusive) are in host
    /// memory. The QP must be in RTS or ERR (ERR flushes them). A doorbell more than the ring
    /// ahead of the last one rung is refused: the engine measures from its consumer, which is
    /// never ahead of that, so it would refuse it too. A repeated or older index is passed on;
    /// the engine ignores it.
    pub fn ring_doorbell(&mut self, qpn: u32, producer: u32) -> Result<(), Error> {
        let i = self.index(qpn)?;
        let mut s = self.slots[i].expect("index gives a used slot");
        if !matches!(s.state, QpState::Rts | QpState::Err) {
            return Err(Error::NotPostable {
                qpn,
                state: s.state,
            });
        }
        let ahead = producer.wrapping_sub(s.posted);
        let entries = s.ring.entries();
        let behind = ahead > i32::MAX as u32;
        if !behind && ahead > entries {
            return Err(Error::Doorbell(DoorbellError::TooFarAhead {
                written: producer,
                base: s.posted,
                entries,
            }));
        }
        let (addr, value) = regs::doorbell(i as u32, producer);
        self.bus.write(addr, value)?;
        if !behind {
            s.posted = producer;
            self.slots[i] = Some(s);
        }
        Ok(())
    }

    /// QP `qpn`, if it exists.
    pub fn qp(&self, qpn: u32) -> Option<QpInfo> {
        self.find(qpn).map(|i| self.info(i))
    }

    /// Every QP, in slot order.
    pub fn qps(&self) -> impl Iterator<Item = QpInfo> + '_ {
        (0..QPS)
            .filter(|&i| self.slots[i].is_some())
            .map(|i| self.info(i))
    }

    fn info(&self, i: usize) -> QpInfo {
        let s = self.slots[i].expect("a used slot");
        QpInfo {
            qpn: s.qpn,
            slot: i,
            state: s.state,
            entropy: s.entropy,
            posted: s.posted,
        }
    }

    fn find(&self, qpn: u32) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.is_some_and(|s| s.qpn == qpn))
    }

    fn index(&self, qpn: u32) -> Result<usize, Error> {
        self.find(qpn).ok_or(Error::NoSuchQp(qpn))
    }
}
