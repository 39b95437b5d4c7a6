//! Work queues: a queue staged and written into its number (`WQ_WRITE`), verbs state changes
//! (`WQ_MODIFY`), destroy (`WQ_DESTROY`), receive doorbells and completion consumers.

use super::RxPath;
use crate::{ring, Bus, Error};
use rocenic_model::qp::QPN_MAX;
use rocenic_model::rx::regs;
use rocenic_model::rx::{RxError, WqConfig, WqState};

/// What the firmware keeps of a work queue.
#[derive(Clone, Copy, Debug)]
pub(super) struct Queue {
    pub(super) config: WqConfig,
    pub(super) state: WqState,
    /// The last producer index rung.
    pub(super) posted: u32,
    /// Receive contexts naming it as their own or shared queue.
    pub(super) named: u32,
}

/// A work queue as the firmware knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqInfo {
    /// Its number.
    pub wq: u16,
    /// What it was created with.
    pub config: WqConfig,
    /// Its state as software last set it (the block also moves a queue to ERR on a failed
    /// receive; a modify then refused records that).
    pub state: WqState,
    /// The last producer index rung.
    pub posted: u32,
    /// Receive contexts naming it as their own or shared queue.
    pub contexts: u32,
}

impl<B: Bus, const WQS: usize, const QPS: usize> RxPath<B, WQS, QPS> {
    /// Creates work queue `wq` in RESET with `config` (its rings' shapes are the model's
    /// types, so only the number and the QPN are left to check). Software must have zeroed
    /// the completion ring (the owner bit; docs/rx.md).
    pub fn create_wq(&mut self, wq: u16, config: &WqConfig) -> Result<(), Error> {
        // The model's order: the QPN, the number, the queue.
        if config.qpn > QPN_MAX {
            return Err(Error::Rx(RxError::Qpn(config.qpn)));
        }
        if u32::from(wq) >= self.caps.wqs {
            return Err(Error::Rx(RxError::WqRange(wq)));
        }
        if self.wqs[usize::from(wq)].is_some() {
            return Err(Error::Rx(RxError::WqExists(wq)));
        }
        self.bus.write_all(&regs::wq_writes(config))?;
        self.command(regs::wq_write(wq))?;
        self.wqs[usize::from(wq)] = Some(Queue {
            config: *config,
            state: WqState::Reset,
            posted: 0,
            named: 0,
        });
        Ok(())
    }

    /// A verbs modify of work queue `wq` (`ibv_modify_wq`): RESET→READY, READY→ERR, any→RESET
    /// (which empties both rings: the indices restart at 0).
    ///
    /// The block moves a queue to ERR itself when a receive into it fails, and the registers do
    /// not show it; so when the block refuses a modify the firmware thought legal and ERR
    /// explains the refusal, the firmware records ERR (and returns [`Error::Refused`]).
    pub fn modify_wq(&mut self, wq: u16, to: WqState) -> Result<(), Error> {
        let mut q = self.queue(wq)?;
        q.state
            .modify(to)
            .map_err(|t| Error::Rx(RxError::Transition(t)))?;
        if let Err(e) = self.command(regs::wq_modify(wq, to)) {
            if matches!(e, Error::Refused { .. }) && WqState::Err.modify(to).is_err() {
                q.state = WqState::Err;
                self.wqs[usize::from(wq)] = Some(q);
            }
            return Err(e);
        }
        q.state = to;
        if to == WqState::Reset {
            q.posted = 0;
        }
        self.wqs[usize::from(wq)] = Some(q);
        Ok(())
    }

    /// Destroys work queue `wq`; no receive context may name it.
    pub fn destroy_wq(&mut self, wq: u16) -> Result<(), Error> {
        let q = self.queue(wq)?;
        if q.named > 0 {
            return Err(Error::Rx(RxError::InUse(wq)));
        }
        self.command(regs::wq_destroy(wq))?;
        self.wqs[usize::from(wq)] = None;
        Ok(())
    }

    /// Tells the block that work queue `wq`'s receive WQEs up to index `producer` (exclusive)
    /// are in host memory (`RQ_DOORBELL`), in any state (verbs keeps WQEs posted in RESET).
    /// One more than the ring ahead of the last doorbell is refused: the block measures from
    /// its consumer, never ahead of that, so it would ignore it. A repeated or older index is
    /// passed on and ignored.
    pub fn post_receives(&mut self, wq: u16, producer: u32) -> Result<(), Error> {
        let mut q = self.queue(wq)?;
        q.posted = ring::ring(q.posted, producer, q.config.ring.ring().entries())
            .map_err(Error::Doorbell)?;
        let (addr, value) = regs::doorbell(wq, producer);
        self.bus.write(addr, value)?;
        self.wqs[usize::from(wq)] = Some(q);
        Ok(())
    }

    /// Releases work queue `wq`'s completions before index `consumer` (`CQ_CONSUMER`). The
    /// block ignores an index behind its consumer or past its producer (the latter sets
    /// `STATUS.DB_ERROR`).
    pub fn release_completions(&mut self, wq: u16, consumer: u32) -> Result<(), Error> {
        self.queue(wq)?;
        let (addr, value) = regs::cq_consumer(wq, consumer);
        Ok(self.bus.write(addr, value)?)
    }

    /// The index of the next completion work queue `wq` writes (`CQ_PRODUCER`).
    pub fn cq_producer(&mut self, wq: u16) -> Result<u32, Error> {
        self.queue(wq)?;
        Ok(self.bus.read(regs::CQ_PRODUCER + 4 * u32::from(wq))?)
    }

    /// Work queue `wq`, if it exists.
    pub fn wq(&self, wq: u16) -> Option<WqInfo> {
        let q = (*self.wqs.get(usize::from(wq))?)?;
        Some(WqInfo {
            wq,
            config: q.config,
            state: q.state,
            posted: q.posted,
            contexts: q.named,
        })
    }

    /// Every work queue, in number order.
    pub fn wqs(&self) -> impl Iterator<Item = WqInfo> + '_ {
        (0..WQS as u16).filter_map(|w| self.wq(w))
    }

    pub(super) fn queue(&self, wq: u16) -> Result<Queue, Error> {
        if u32::from(wq) >= self.caps.wqs {
            return Err(Error::Rx(RxError::WqRange(wq)));
        }
        self.wqs[usize::from(wq)].ok_or(Error::Rx(RxError::NoWq(wq)))
    }
}
