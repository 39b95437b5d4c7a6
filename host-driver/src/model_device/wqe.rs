//! The WQE engine's registers (docs/wqe-registers.md, `model::wqe::regs`) over the model's
//! send engine and queues: QPs in the slots software names, regions in the slots of their
//! lkeys, doorbells, the completion ring and the counters.

use super::regfile::{Pending, RegFile};
use super::{Nic, COMMAND_CYCLES};
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{
    Access as MrAccess, AddressVector, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind,
    QpState,
};
use rocenic_model::regmap::Access;
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::regs::{self, caps, command, control, op, qp_av, qp_flags, status};
use rocenic_model::wqe::{self, CompletionRing, Ring, SendRing};

/// QP slots (send queues): the model's table size, the RTL's default.
pub const QPS: usize = rocenic_model::qp::DEFAULT_QPS;
/// Memory-region slots.
pub const MRS: usize = rocenic_model::wqe::engine::DEFAULT_MRS;
/// Bytes per beat the RTL's frame output has (reported only).
const DATA_BYTES: u32 = 8;
/// The path MTU a raw QP's context holds: it has none (its frames are 14..=4,218 bytes
/// whatever this says), but the model's context has the field. The CLI's and the driver's
/// raw QPs hold the same.
pub const RAW_MTU: PathMtu = PathMtu::Mtu1024;

/// A QP slot's occupant: its QPN and send ring (kept for RESET, which restarts the ring).
#[derive(Clone, Copy, Debug)]
pub(super) struct SlotQp {
    pub(super) qpn: u32,
    ring: SendRing,
}

/// The block's state beyond the model's engine.
pub(super) struct WqeBlock {
    regs: RegFile,
    /// `STATUS`'s `CMD_ERROR`, `DB_ERROR`, `CQ_FAULT` bits.
    pub(super) flags: u32,
    pending: Option<Pending>,
    pub(super) slots: [Option<SlotQp>; QPS],
    mrs: [Option<u32>; MRS],
    wqes: u32,
    frames: u32,
}

impl WqeBlock {
    pub(super) fn new() -> Self {
        WqeBlock {
            regs: RegFile::new(regs::MAP),
            flags: 0,
            pending: None,
            slots: [None; QPS],
            mrs: [None; MRS],
            wqes: 0,
            frames: 0,
        }
    }

    /// A command is waiting: writes to the block wait too.
    pub(super) fn busy(&self) -> bool {
        self.pending.is_some()
    }

    /// The scheduler may pick a WQE: enabled, no command pending, no completion fault.
    pub(super) fn can_pick(&self) -> bool {
        control::ENABLE.get(self.regs.get(regs::CONTROL)) != 0
            && !self.busy()
            && status::CQ_FAULT.get(self.flags) == 0
    }

    /// One WQE ran.
    pub(super) fn count_wqe(&mut self) {
        self.wqes = self.wqes.wrapping_add(1);
    }

    /// `frames` frames left (a WQE's, acknowledgements).
    pub(super) fn count_frames(&mut self, frames: usize) {
        self.frames = self.frames.wrapping_add(frames as u32);
    }

    pub(super) fn read(&self, addr: u32, nic: &Nic) -> u32 {
        match addr {
            regs::ID => regs::ID_VALUE,
            regs::CAPS => {
                caps::QPS.put(QPS as u32)
                    | caps::MRS.put(MRS as u32)
                    | caps::MAX_SGE.put(nic.send.max_sge as u32)
                    | caps::DATA_BYTES.put(DATA_BYTES)
                    | caps::TSO.put(nic.send.tso.is_some().into())
                    | caps::RAW.put(nic.send.qps.raw().into())
            }
            regs::STATUS => {
                self.flags
                    | status::BUSY.put(self.busy().into())
                    | status::IDLE.put((!self.busy()).into())
            }
            regs::CQ_PRODUCER => nic.queues.cq().producer(),
            regs::WQES => self.wqes,
            regs::FRAMES => self.frames,
            _ => match self.regs.access(addr) {
                Some(Access::Rw) => self.regs.get(addr),
                _ => 0,
            },
        }
    }

    pub(super) fn write(&mut self, addr: u32, value: u32, nic: &mut Nic, cycle: u64) {
        match addr {
            regs::STATUS => {
                // Write 1 to clear the sticky bits; CMD_ERROR stays until the next command.
                self.flags &= !(value & (status::DB_ERROR.put(1) | status::CQ_FAULT.put(1)));
                return;
            }
            regs::COMMAND => {
                self.flags &= !status::CMD_ERROR.put(1);
                self.pending = Some(Pending {
                    word: value,
                    due: cycle + COMMAND_CYCLES,
                });
                return;
            }
            _ => {}
        }
        if addr >= regs::SQ_DOORBELL {
            let slot = ((addr - regs::SQ_DOORBELL) / 4) as usize;
            if let Some(Some(q)) = self.slots.get(slot) {
                if nic.queues.doorbell(q.qpn, value).is_err() {
                    self.flags |= status::DB_ERROR.put(1);
                }
            }
            return;
        }
        if self.regs.access(addr) != Some(Access::Rw) {
            return;
        }
        self.regs.set(addr, value);
        match addr {
            regs::CONTROL => {
                let code = control::PROFILE.get(value) as u8;
                let profile = Profile::ALL
                    .into_iter()
                    .find(|p| p.code() == code)
                    .unwrap_or_default();
                nic.send.qps.set_profile(profile);
            }
            a if (regs::NIC_IPV4..regs::CQ_BASE).contains(&a) => {
                nic.send.nic = wqe::Nic {
                    mac: EthernetAddress(self.regs.bytes::<6>(regs::NIC_MAC)),
                    ipv4: Ipv4Address(self.regs.get(regs::NIC_IPV4).to_be_bytes()),
                    ipv6: Ipv6Address(self.regs.bytes::<16>(regs::NIC_IPV6)),
                };
            }
            regs::CQ_LOG2 => {
                // A write restarts the ring's indices at 0; a size the ring cannot have is kept
                // in the register but changes nothing.
                if let Some(cq) = Ring::new(value).and_then(|r| CompletionRing::new(r, 0)) {
                    nic.queues
                        .set_completion_ring(cq, self.regs.get64(regs::CQ_BASE));
                }
            }
            a if a == regs::CQ_BASE || a == regs::CQ_BASE + 4 => {
                let cq = *nic.queues.cq();
                nic.queues
                    .set_completion_ring(cq, self.regs.get64(regs::CQ_BASE));
            }
            regs::CQ_CONSUMER if nic.queues.cq_doorbell(value).is_err() => {
                self.flags |= status::DB_ERROR.put(1);
            }
            _ => {}
        }
    }

    /// Carries out the pending command once its time has come.
    pub(super) fn complete(&mut self, nic: &mut Nic, cycle: u64) {
        let Some(p) = self.pending.filter(|p| p.due <= cycle) else {
            return;
        };
        self.pending = None;
        if self.command(p.word, nic).is_err() {
            self.flags |= status::CMD_ERROR.put(1);
        }
    }

    fn command(&mut self, word: u32, nic: &mut Nic) -> Result<(), ()> {
        let slot = command::SLOT.get(word) as usize;
        match command::OP.get(word) {
            op::QP_WRITE => {
                if slot >= QPS {
                    return Err(());
                }
                let (qpn, config, ring) = self.staged_qp().ok_or(())?;
                // The model keys QPs by number: the old occupant goes, and a QPN held by
                // another slot is refused (the RTL keeps slots and leaves that to software).
                if let Some(old) = self.slots[slot].take() {
                    let _ = nic.send.qps.destroy(old.qpn);
                    let _ = nic.queues.detach(old.qpn);
                }
                nic.send.qps.create(qpn, config).map_err(|_| ())?;
                if nic.queues.attach_at(slot, qpn, ring, 0).is_err() {
                    let _ = nic.send.qps.destroy(qpn);
                    return Err(());
                }
                self.slots[slot] = Some(SlotQp { qpn, ring });
                Ok(())
            }
            op::QP_MODIFY => {
                let q = self.slots.get(slot).copied().flatten().ok_or(())?;
                let to = QpState::from_code(command::STATE.get(word) as u8).ok_or(())?;
                nic.send.qps.modify(q.qpn, to).map_err(|_| ())?;
                if to == QpState::Reset {
                    // The send ring restarts at index 0, as after QP_WRITE.
                    let _ = nic.queues.detach(q.qpn);
                    nic.queues
                        .attach_at(slot, q.qpn, q.ring, 0)
                        .map_err(|_| ())?;
                }
                Ok(())
            }
            op::QP_DESTROY => {
                let q = self.slots.get_mut(slot).and_then(Option::take).ok_or(())?;
                let _ = nic.send.qps.destroy(q.qpn);
                let _ = nic.queues.detach(q.qpn);
                Ok(())
            }
            op::MR_WRITE => {
                let lkey = self.regs.get(regs::MR_LKEY);
                let mr = MemoryRegion {
                    lkey,
                    base: self.regs.get64(regs::MR_BASE),
                    length: self.regs.get64(regs::MR_LENGTH),
                    pd: self.regs.get(regs::MR_PD),
                    access: MrAccess::from_bits_truncate(self.regs.get(regs::MR_ACCESS)),
                };
                if mr.length == 0 || mr.length - 1 > u64::MAX - mr.base {
                    return Err(());
                }
                let s = regs::mr_slot(lkey, MRS as u32) as usize;
                match self.mrs[s] {
                    Some(k) if k != lkey => return Err(()),
                    Some(k) => {
                        let _ = nic.send.mrs.deregister(k);
                    }
                    None => {}
                }
                nic.send.mrs.register(mr).map_err(|_| ())?;
                self.mrs[s] = Some(lkey);
                Ok(())
            }
            op::MR_CLEAR => {
                let lkey = self.regs.get(regs::MR_LKEY);
                let s = regs::mr_slot(lkey, MRS as u32) as usize;
                if self.mrs[s] != Some(lkey) {
                    return Err(());
                }
                self.mrs[s] = None;
                nic.send.mrs.deregister(lkey).map_err(|_| ())?;
                Ok(())
            }
            _ => Err(()),
        }
    }

    /// The staged QP: its number, context and send ring; `None` for a shape the model cannot
    /// hold (ring or stride too large, no such MTU, a misaligned ring).
    fn staged_qp(&self) -> Option<(u32, QpConfig, SendRing)> {
        let r = &self.regs;
        let flags = r.get(regs::QP_FLAGS);
        let ring = SendRing::new(
            Ring::new(qp_flags::RING_LOG2.get(flags))?,
            qp_flags::STRIDE_LOG2.get(flags),
            r.get64(regs::QP_SQ_BASE),
        )?;
        let ud = qp_flags::UD.get(flags) != 0;
        let raw = qp_flags::RAW.get(flags) != 0;
        // A raw QP is written with MTU 0 (it has no path MTU) and no address vector; RAW with
        // UD, or with an MTU code, is no QP the register map describes.
        let (kind, mtu) = match (raw, ud, qp_flags::MTU.get(flags) as u8) {
            (true, false, 0) => (QpKind::Raw, RAW_MTU),
            (true, _, _) => return None,
            (false, true, code) => (QpKind::Ud, PathMtu::from_code(code)?),
            (false, false, code) => (QpKind::Rc, PathMtu::from_code(code)?),
        };
        let av = (kind == QpKind::Rc).then(|| {
            let ip = if qp_flags::IPV6.get(flags) != 0 {
                IpPair::V6 {
                    src: Ipv6Address(r.bytes::<16>(regs::QP_SRC_IP)),
                    dst: Ipv6Address(r.bytes::<16>(regs::QP_DST_IP)),
                }
            } else {
                IpPair::V4 {
                    src: Ipv4Address(r.get(regs::QP_SRC_IP + 12).to_be_bytes()),
                    dst: Ipv4Address(r.get(regs::QP_DST_IP + 12).to_be_bytes()),
                }
            };
            let w = r.get(regs::QP_AV);
            AddressVector {
                vlan: (qp_flags::VLAN.get(flags) != 0).then_some(qp_av::VID.get(w) as u16),
                pcp: qp_flags::PCP.get(flags) as u8,
                traffic_class: qp_av::TCLASS.get(w) as u8,
                hop_limit: qp_av::HOP_LIMIT.get(w) as u8,
                flow_label: r.get(regs::QP_FLOW_LABEL) & 0xF_FFFF,
                ..AddressVector::new(
                    ip,
                    EthernetAddress(r.bytes::<6>(regs::QP_SMAC)),
                    EthernetAddress(r.bytes::<6>(regs::QP_DMAC)),
                )
            }
        });
        let config = QpConfig {
            qp_type: kind,
            pd: r.get(regs::QP_PD),
            mtu,
            psn: Psn::from_bits_truncate(r.get(regs::QP_PSN)),
            dest_qpn: r.get(regs::QP_DEST_QPN),
            q_key: r.get(regs::QP_QKEY),
            av,
        };
        Some((r.get(regs::QP_QPN), config, ring))
    }
}
