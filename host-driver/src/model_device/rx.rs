//! The receive path's registers (docs/rx-registers.md, `model::rx::regs`) over the model's
//! receive engine: work queues and receive contexts staged and commanded, receive and
//! completion doorbells, completion producers, counters.

use super::regfile::{Pending, RegFile};
use super::wqe::{SlotQp, QPS};
use super::{Nic, COMMAND_CYCLES};
use rocenic_model::qp::{PathMtu, Psn};
use rocenic_model::regmap::Access;
use rocenic_model::rx::regs::{
    self, caps, command, control, op, qp_flags, qp_target, status, target_kind, wq_flags,
};
use rocenic_model::rx::{qp_slot, Discard, RecvRing, Target, WqConfig, WqState, MAX_SGE};
use rocenic_model::wqe::{CompletionRing, Ring};

/// Work queues: the model's, the RTL's default.
pub const WQS: usize = rocenic_model::rx::engine::DEFAULT_WQS;
/// Bytes per beat of the RTL's frame input (reported only).
const DATA_BYTES: u32 = 8;

/// The block's state beyond the model's engine.
pub(super) struct RxBlock {
    regs: RegFile,
    /// `STATUS`'s `CMD_ERROR`, `DB_ERROR`, `CQ_FAULT` bits.
    flags: u32,
    pending: Option<Pending>,
    /// The last turn ran a flush step that found nothing (`STATUS.IDLE` while enabled,
    /// docs/rx.md "Idle": each turn runs after the accesses before it, so nothing changed since).
    pub(super) quiet: bool,
}

impl RxBlock {
    pub(super) fn new() -> Self {
        RxBlock {
            regs: RegFile::new(regs::MAP),
            flags: 0,
            pending: None,
            quiet: false,
        }
    }

    pub(super) fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// Frames are taken: enabled and no command pending.
    pub(super) fn takes_frames(&self) -> bool {
        control::ENABLE.get(self.regs.get(regs::CONTROL)) != 0 && !self.busy()
    }

    /// A completion write faulted.
    pub(super) fn cq_fault(&mut self) {
        self.flags |= status::CQ_FAULT.put(1);
    }

    pub(super) fn read(&self, addr: u32, nic: &Nic) -> u32 {
        let counts = nic.rx.counts();
        match addr {
            regs::ID => regs::ID_VALUE,
            regs::CAPS => {
                caps::WQS.put(WQS as u32)
                    | caps::QPS.put(QPS as u32)
                    | caps::MAX_SGE.put(MAX_SGE as u32)
                    | caps::DATA_BYTES.put(DATA_BYTES)
            }
            regs::STATUS => {
                let enabled = control::ENABLE.get(self.regs.get(regs::CONTROL)) != 0;
                self.flags
                    | status::BUSY.put(self.busy().into())
                    | status::IDLE.put((!self.busy() && (!enabled || self.quiet)).into())
            }
            regs::ACCEPTED => counts.accepted as u32,
            a if (regs::DISCARDS..regs::DISCARDS + 4 * Discard::ALL.len() as u32).contains(&a) => {
                counts.discarded[((a - regs::DISCARDS) / 4) as usize] as u32
            }
            a if (regs::CQ_PRODUCER..regs::CQ_PRODUCER + 4 * 256).contains(&a) => {
                let w = ((a - regs::CQ_PRODUCER) / 4) as u16;
                nic.rx.wq(w).map_or(0, |q| q.cq.producer())
            }
            _ => match self.regs.access(addr) {
                Some(Access::Rw) => self.regs.get(addr),
                _ => 0,
            },
        }
    }

    pub(super) fn write(&mut self, addr: u32, value: u32, nic: &mut Nic, cycle: u64) {
        let doorbell = |base: u32| (base..base + 4 * 256).contains(&addr);
        if addr == regs::STATUS {
            self.flags &= !(value & (status::DB_ERROR.put(1) | status::CQ_FAULT.put(1)));
        } else if addr == regs::COMMAND {
            self.flags &= !status::CMD_ERROR.put(1);
            self.pending = Some(Pending {
                word: value,
                due: cycle + COMMAND_CYCLES,
            });
        } else if doorbell(regs::RQ_DOORBELL) {
            let w = ((addr - regs::RQ_DOORBELL) / 4) as u16;
            // Out of range sets DB_ERROR; a queue that does not exist ignores it.
            if let Err(rocenic_model::rx::RxError::Doorbell(_)) = nic.rx.post(w, value) {
                self.flags |= status::DB_ERROR.put(1);
            }
        } else if doorbell(regs::CQ_CONSUMER) {
            let w = ((addr - regs::CQ_CONSUMER) / 4) as u16;
            if let Err(rocenic_model::rx::RxError::Doorbell(_)) = nic.rx.cq_doorbell(w, value) {
                self.flags |= status::DB_ERROR.put(1);
            }
        } else if self.regs.access(addr) == Some(Access::Rw) {
            // The core builds its receive path without the requester's input (no requester on
            // its send side yet): CONTROL.REQUESTER reads 0 there, and so here.
            let value = if addr == regs::CONTROL {
                value & !control::REQUESTER.put(1)
            } else {
                value
            };
            self.regs.set(addr, value);
            if addr == regs::CONTROL {
                nic.set_responder(responder(self.regs.get(regs::CONTROL)));
            }
        }
    }

    /// Carries out the pending command once its time has come (between two frames: a frame is
    /// taken whole within one turn of the model).
    pub(super) fn complete(&mut self, nic: &mut Nic, slots: &[Option<SlotQp>], cycle: u64) {
        let Some(p) = self.pending.filter(|p| p.due <= cycle) else {
            return;
        };
        self.pending = None;
        if self.command(p.word, nic, slots).is_err() {
            self.flags |= status::CMD_ERROR.put(1);
        }
    }

    fn command(&mut self, word: u32, nic: &mut Nic, slots: &[Option<SlotQp>]) -> Result<(), ()> {
        let w = command::WQ.get(word) as u16;
        let r = &self.regs;
        match command::OP.get(word) {
            op::WQ_WRITE => {
                let flags = r.get(regs::WQ_FLAGS);
                let ring = RecvRing::new(
                    Ring::new(wq_flags::RING_LOG2.get(flags)).ok_or(())?,
                    wq_flags::STRIDE_LOG2.get(flags),
                    r.get64(regs::WQ_RING_BASE),
                )
                .ok_or(())?;
                let cq = Ring::new(wq_flags::CQ_LOG2.get(flags))
                    .and_then(|c| CompletionRing::new(c, 0))
                    .ok_or(())?;
                let config = WqConfig {
                    qpn: r.get(regs::WQ_QPN),
                    pd: r.get(regs::WQ_PD),
                    ring,
                    cq,
                    cq_base: r.get64(regs::WQ_CQ_BASE),
                    raw: wq_flags::RAW.get(flags) != 0,
                };
                nic.rx.create_wq(w, config).map_err(|_| ())
            }
            op::WQ_MODIFY => {
                let to = match command::STATE.get(word) {
                    0 => WqState::Reset,
                    1 => WqState::Ready,
                    2 => WqState::Err,
                    _ => return Err(()),
                };
                nic.rx.modify_wq(w, to).map_err(|_| ())
            }
            op::WQ_DESTROY => nic.rx.destroy_wq(w).map(|_| ()).map_err(|_| ()),
            op::QP_ATTACH => {
                let qpn = r.get(regs::QP_QPN);
                let t = r.get(regs::QP_TARGET);
                let tw = qp_target::WQ.get(t) as u16;
                let target = match qp_target::KIND.get(t) {
                    target_kind::OWN => Target::Own(tw),
                    target_kind::SHARED => Target::Shared(tw),
                    target_kind::RSS => Target::Rss,
                    _ => return Err(()),
                };
                PathMtu::from_code(qp_flags::MTU.get(r.get(regs::QP_FLAGS)) as u8).ok_or(())?;
                // The block asks the send side's slot of the QPN whether it holds a QP; the
                // model then also wants it to be this QP (its table is keyed by QPN).
                if slots[qp_slot(qpn & 0xFF_FFFF, QPS)].is_none() {
                    return Err(());
                }
                let epsn = Psn::from_bits_truncate(r.get(regs::QP_EPSN));
                nic.rx
                    .attach(&nic.send.qps, qpn, target, epsn)
                    .map_err(|_| ())
            }
            op::QP_DETACH => nic.rx.detach(r.get(regs::QP_QPN)).map_err(|_| ()),
            _ => Err(()),
        }
    }
}

/// The RC responder's settings `CONTROL` asks for (`RESPONDER`, `ACK_EVERY` with 0 as 1,
/// `RNR_TIMER`), `None` when off.
fn responder(control: u32) -> Option<rocenic_model::rc::Reliable> {
    (control::RESPONDER.get(control) != 0).then(|| rocenic_model::rc::Reliable {
        ack_every: control::ACK_EVERY.get(control).max(1),
        rnr_timer: control::RNR_TIMER.get(control) as u8,
        ..Default::default()
    })
}
