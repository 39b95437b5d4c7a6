//! Queue pairs: their send queues in host memory, the verbs state machine, and posting.
//!
//! The engine holds a QP's whole context from one `QP_WRITE` (docs/wqe.md, "Control plane"):
//! its PD, path MTU, first send PSN, peer and address vector. Verbs hands those over across
//! three state changes, the first send PSN last (RTS), so the driver keeps a QP in RESET, INIT
//! and RTR itself, checking every change against the model's state table, and gives it to the
//! engine on RTS: the firmware writes the context and moves it RESET→INIT→RTR→RTS there, the
//! engine fixing an RC QP's entropy at its RTR. ERR is passed on while the engine holds the
//! QP; RESET takes the QP out of the engine again. Illegal changes are refused with `EINVAL`
//! before any register is touched.
//!
//! The engine moves a QP to ERR when one of its requests fails, and says so only in the
//! completion: the driver learns it there (or from a modify the engine refuses).

use super::attr::{InitAttr, QpAttr, QpInitAttr, RtrAttr};
use super::context::{Context, Inner};
use super::cq::CompletionQueue;
use super::pd::ProtectionDomain;
use super::wr::{slot_blocks, RecvWr, SendWr, SqShape};
use super::{Error, Exhausted, Feature, Invalid, PostError};
use crate::device::Device;
use rocenic_firmware::{entropy, EntropySource};
use rocenic_model::entropy::{Entropy, QpType};
use rocenic_model::qp::{IllegalTransition, Psn, QpConfig, QpContext, QpState, QPN_MAX};
use rocenic_model::wqe::{Cqe, Memory, Ring, SendRing, BLOCK_BYTES, MAX_WQE_BYTES};

/// What the driver keeps of a QP.
pub(super) struct QpEntry {
    qp_type: QpType,
    pd: u32,
    pub(super) send_cq: u32,
    state: QpState,
    /// The engine holds the QP (it reached RTS and was not reset since).
    in_engine: bool,
    ring: SendRing,
    shape: SqShape,
    /// The next index to post at, and the index after the newest completed request.
    producer: u32,
    done: u32,
    init: Option<InitAttr>,
    rtr: Option<RtrAttr>,
    /// The context the engine was given, with the entropy source.
    config: Option<(QpConfig, EntropySource)>,
    /// Completion-ring entries before this index belong to the QP before its last reset.
    fresh_from: Option<u32>,
}

impl QpEntry {
    /// Whether the completion-ring entry at `i` belongs to the QP as it is now; once the
    /// ring's consumer is past the reset, every entry does.
    pub(super) fn current(&mut self, i: u32) -> bool {
        match self.fresh_from {
            Some(f) if i.wrapping_sub(f) > i32::MAX as u32 => false,
            Some(_) => {
                self.fresh_from = None;
                true
            }
            None => true,
        }
    }

    /// A completion of the QP: its send queue is free up to the request, and an error moves
    /// the QP to ERR as it moved in the engine.
    pub(super) fn completed(&mut self, c: &Cqe) {
        self.done = c.wqe_index.wrapping_add(1);
        if !c.status.is_success() && self.in_engine {
            self.state = QpState::Err;
        }
    }
}

/// A queue pair (`ibv_qp`). It borrows its PD and completion queue; posting borrows it
/// mutably, so one caller posts at a time. Dropping it destroys it.
pub struct QueuePair<'a, D: Device> {
    ctx: &'a Context<D>,
    qpn: u32,
}

impl<'a, D: Device> QueuePair<'a, D> {
    pub(super) fn create<'c>(
        pd: &'a ProtectionDomain<'c, D>,
        send_cq: &'a CompletionQueue<'c, D>,
        attr: &QpInitAttr,
    ) -> Result<Self, Error> {
        let ctx = pd.context();
        if !std::ptr::eq(ctx, send_cq.context()) {
            return Err(Invalid::Attr("a completion queue of another context").into());
        }
        if attr.max_recv_wr != 0 || attr.max_recv_sge != 0 {
            return Err(Error::Unsupported(Feature::Receive));
        }
        let dev = ctx.query_device();
        let size = |what, v: u32, max: u32| {
            if v > max {
                Err(Invalid::Size(what, v.into(), max.into()))
            } else {
                Ok(())
            }
        };
        size("max_send_sge", attr.max_send_sge, dev.max_sge)?;
        size("max_inline_data", attr.max_inline_data, dev.max_inline_data)?;
        size("max_send_wr", attr.max_send_wr, dev.max_qp_wr)?;
        let entries = attr.max_send_wr.max(1).next_power_of_two();
        let ring = Ring::new(entries.trailing_zeros()).expect("at most max_qp_wr");
        let tso_header = match (attr.qp_type, dev.tso) {
            (QpType::Ud, Some(t)) => t.max_header as usize,
            _ => 0,
        };
        let blocks = slot_blocks(
            attr.qp_type,
            attr.max_send_sge,
            attr.max_inline_data,
            tso_header,
        )?;
        let stride_log2 = blocks.next_power_of_two().trailing_zeros();
        let mut inner = ctx.inner.borrow_mut();
        if inner.qps.len() >= inner.fw.qp_slots() {
            return Err(Exhausted::QpTable.into());
        }
        let qpn = inner.next_qpn;
        if qpn > QPN_MAX {
            return Err(Exhausted::Qpns.into());
        }
        let bytes = u64::from(ring.entries()) << (stride_log2 + 6);
        let base = inner.alloc(bytes)?;
        inner.next_qpn += 1;
        let ring = SendRing::new(ring, stride_log2, base).expect("page aligned, inside 2^64");
        inner.qps.insert(
            qpn,
            QpEntry {
                qp_type: attr.qp_type,
                pd: pd.pdn(),
                send_cq: send_cq.id(),
                state: QpState::Reset,
                in_engine: false,
                ring,
                shape: SqShape {
                    qp_type: attr.qp_type,
                    max_sge: attr.max_send_sge,
                    max_inline: attr.max_inline_data,
                    sig_all: attr.sq_sig_all,
                    stride_blocks: ring.stride_blocks(),
                    tso: dev.tso.is_some(),
                },
                producer: 0,
                done: 0,
                init: None,
                rtr: None,
                config: None,
                fresh_from: None,
            },
        );
        Ok(QueuePair { ctx, qpn })
    }

    /// Its number.
    pub fn qp_num(&self) -> u32 {
        self.qpn
    }

    /// RC or UD.
    pub fn qp_type(&self) -> QpType {
        self.with(|q| q.qp_type)
    }

    /// Its state as the driver last learnt it (a failed request moves it to ERR when its
    /// completion is polled).
    pub fn state(&self) -> QpState {
        self.with(|q| q.state)
    }

    /// Send work requests it holds at most (`max_send_wr` rounded up to a power of two).
    pub fn send_queue_entries(&self) -> u32 {
        self.with(|q| q.ring.ring().entries())
    }

    /// Send work requests posted and not known completed.
    pub fn send_queue_used(&self) -> u32 {
        self.with(|q| q.producer.wrapping_sub(q.done))
    }

    /// The context the engine was given (for CM entropy, the address vector's flow label is
    /// the one staged) and its send ring; `None` while the engine does not hold the QP.
    pub fn engine_context(&self) -> Option<(QpConfig, SendRing)> {
        self.with(|q| q.config.map(|(c, _)| (c, q.ring)))
    }

    /// RC: the UDP source port and flow label the engine fixed at RTR.
    pub fn entropy(&self) -> Option<Entropy> {
        self.ctx
            .inner
            .borrow()
            .fw
            .qp(self.qpn)
            .and_then(|i| i.entropy)
    }

    fn with<R>(&self, f: impl FnOnce(&QpEntry) -> R) -> R {
        f(&self.ctx.inner.borrow().qps[&self.qpn])
    }

    /// Changes its state with the attributes the new state needs (`ibv_modify_qp`).
    pub fn modify(&mut self, attr: QpAttr) -> Result<(), Error> {
        self.ctx.inner.borrow_mut().modify_qp(self.qpn, attr)
    }

    /// RESET→INIT→RTR→RTS in one call.
    pub fn bring_up(
        &mut self,
        init: InitAttr,
        rtr: RtrAttr,
        rts: super::RtsAttr,
    ) -> Result<(), Error> {
        self.modify(QpAttr::Init(init))?;
        self.modify(QpAttr::Rtr(rtr))?;
        self.modify(QpAttr::Rts(rts))
    }

    /// Posts one send work request (`ibv_post_send`).
    pub fn post_send(&mut self, wr: &SendWr<'_>) -> Result<(), Error> {
        self.post_send_list(std::slice::from_ref(wr))
            .map_err(|e| e.error)
    }

    /// Posts work requests in order and rings the doorbell once for them. On a refusal the
    /// ones before it are posted (and rung), it and the rest are not.
    pub fn post_send_list(&mut self, wrs: &[SendWr<'_>]) -> Result<(), PostError> {
        let mut inner = self.ctx.inner.borrow_mut();
        let mut refused = None;
        let mut posted = 0;
        for (i, wr) in wrs.iter().enumerate() {
            match inner.write_wqe(self.qpn, wr) {
                Ok(()) => posted += 1,
                Err(error) => {
                    refused = Some(PostError { bad_wr: i, error });
                    break;
                }
            }
        }
        if posted > 0 {
            let producer = inner.qps[&self.qpn].producer;
            inner
                .fw
                .ring_doorbell(self.qpn, producer)
                .map_err(|e| PostError {
                    bad_wr: 0,
                    error: e.into(),
                })?;
        }
        refused.map_or(Ok(()), Err)
    }

    /// Posts a receive work request (`ibv_post_recv`): needs a receive path.
    pub fn post_recv(&mut self, _wr: &RecvWr<'_>) -> Result<(), Error> {
        Err(Error::Unsupported(Feature::Receive))
    }
}

impl<D: Device> Drop for QueuePair<'_, D> {
    fn drop(&mut self) {
        let mut inner = self.ctx.inner.borrow_mut();
        // A failing device cannot be reported from a drop; the QP is gone from the driver.
        let _ = inner.take_from_engine(self.qpn);
        if let Some(q) = inner.qps.remove(&self.qpn) {
            inner.free(q.ring.addr(0));
        }
    }
}

impl<D: Device> Inner<D> {
    /// One verbs state change of QP `qpn` (see the module's description).
    pub(super) fn modify_qp(&mut self, qpn: u32, attr: QpAttr) -> Result<(), Error> {
        let to = attr.state();
        let from = self.qps[&qpn].state;
        if !from.can_modify_to(to) {
            return Err(Invalid::Transition(IllegalTransition { from, to }).into());
        }
        match attr {
            QpAttr::Reset => {
                self.take_from_engine(qpn)?;
                let q = self.qps.get_mut(&qpn).expect("a live QP");
                q.producer = 0;
                q.done = 0;
                q.init = None;
                q.rtr = None;
            }
            QpAttr::Init(a) => {
                self.qps.get_mut(&qpn).expect("a live QP").init = Some(a);
            }
            QpAttr::Rtr(a) => {
                self.check_rtr(qpn, &a)?;
                self.qps.get_mut(&qpn).expect("a live QP").rtr = Some(a);
            }
            QpAttr::Rts(a) if from == QpState::Rts => {
                let psn = self.qps[&qpn].config.map(|(c, _)| c.psn);
                if psn != Some(a.sq_psn) {
                    return Err(Invalid::Attr("the send PSN changes only on RTR→RTS").into());
                }
                self.engine_modify(qpn, to)?;
            }
            QpAttr::Rts(a) => self.give_to_engine(qpn, a.sq_psn)?,
            QpAttr::Err => {
                if self.qps[&qpn].in_engine {
                    self.engine_modify(qpn, to)?;
                }
            }
        }
        self.qps.get_mut(&qpn).expect("a live QP").state = to;
        Ok(())
    }

    /// The engine's context of QP `qpn` once it sends from `psn`, with its entropy source;
    /// the address vector's flow label is the one the firmware will stage (for CM entropy,
    /// the plan's, checked with the model).
    fn engine_config(
        &self,
        qpn: u32,
        rtr: &RtrAttr,
        psn: Psn,
    ) -> Result<(QpConfig, EntropySource), Error> {
        let q = &self.qps[&qpn];
        let init = q.init.unwrap_or_default();
        let mut av = rtr.peer.map(|p| p.ah.rc_vector(&self.nic)).transpose()?;
        let source = rtr.peer.map_or(EntropySource::Qpn, |p| p.entropy);
        let dest_qpn = rtr.peer.map_or(0, |p| p.dest_qpn);
        if let Some(av) = av.as_mut() {
            let profile = self.fw.profile();
            av.flow_label =
                entropy::plan(profile, source, qpn, dest_qpn, av.flow_label)?.flow_label;
        }
        let config = QpConfig {
            qp_type: q.qp_type,
            pd: q.pd,
            mtu: rtr.path_mtu,
            psn,
            dest_qpn,
            q_key: init.qkey,
            av,
        };
        QpContext::new(qpn, config).map_err(Invalid::Qp)?;
        Ok((config, source))
    }

    /// RTR's attributes suit the QP's type and make a context the engine takes.
    fn check_rtr(&self, qpn: u32, a: &RtrAttr) -> Result<(), Error> {
        match (self.qps[&qpn].qp_type, a.peer) {
            (QpType::Rc, None) => Err(Invalid::Attr("an RC QP's RTR needs its peer").into()),
            (QpType::Ud, Some(_)) => Err(Invalid::Attr("a UD QP has no peer").into()),
            _ => self
                .engine_config(qpn, a, Psn::from_bits_truncate(0))
                .map(|_| ()),
        }
    }

    /// RTR→RTS: the firmware writes the context and brings the QP up in the engine.
    fn give_to_engine(&mut self, qpn: u32, psn: Psn) -> Result<(), Error> {
        let rtr = self.qps[&qpn].rtr.expect("RTS comes from RTR");
        let (config, source) = self.engine_config(qpn, &rtr, psn)?;
        let ring = self.qps[&qpn].ring;
        // The firmware stages the address vector's own flow label and plans CM entropy itself.
        let mut given = config;
        if let (Some(av), Some(peer)) = (given.av.as_mut(), rtr.peer) {
            av.flow_label = peer.ah.flow_label;
        }
        self.fw.create_qp(qpn, &given, &ring, source)?;
        if let Err(e) = self.fw.bring_up(qpn) {
            let _ = self.fw.destroy_qp(qpn);
            return Err(e.into());
        }
        let q = self.qps.get_mut(&qpn).expect("a live QP");
        q.in_engine = true;
        q.config = Some((config, source));
        Ok(())
    }

    /// A modify the engine carries out; one it refuses because the QP went to ERR there
    /// (a failed request whose completion was not polled yet) leaves the QP in ERR.
    fn engine_modify(&mut self, qpn: u32, to: QpState) -> Result<(), Error> {
        match self.fw.modify_qp(qpn, to) {
            Err(rocenic_firmware::Error::Refused { .. })
                if self.fw.qp(qpn).is_some_and(|i| i.state == QpState::Err) =>
            {
                self.qps.get_mut(&qpn).expect("a live QP").state = QpState::Err;
                Err(Invalid::Transition(IllegalTransition {
                    from: QpState::Err,
                    to,
                })
                .into())
            }
            r => Ok(r?),
        }
    }

    /// Destroys QP `qpn` in the engine, if it is there, and forgets its completions: those
    /// taken into its CQ, and those still in the ring (the engine writes none for it after
    /// the destroy, which waits for its request in flight).
    pub(super) fn take_from_engine(&mut self, qpn: u32) -> Result<(), Error> {
        let q = &self.qps[&qpn];
        let cq = q.send_cq;
        if q.in_engine {
            self.fw.destroy_qp(qpn)?;
            let fresh = self.fw.cq_producer()?;
            let q = self.qps.get_mut(&qpn).expect("a live QP");
            q.in_engine = false;
            q.config = None;
            q.fresh_from = Some(fresh);
        }
        if let Some(c) = self.cqs.get_mut(&cq) {
            c.purge(qpn);
        }
        Ok(())
    }

    /// Writes the WQE of `wr` at QP `qpn`'s next send-queue index (the doorbell comes after).
    fn write_wqe(&mut self, qpn: u32, wr: &SendWr<'_>) -> Result<(), Error> {
        let q = &self.qps[&qpn];
        if !(q.in_engine && matches!(q.state, QpState::Rts | QpState::Err)) {
            return Err(Invalid::State {
                qpn,
                state: q.state,
            }
            .into());
        }
        let entries = q.ring.ring().entries();
        if q.producer.wrapping_sub(q.done) >= entries {
            return Err(Exhausted::SendQueue { qpn, entries }.into());
        }
        let mut out = [0u8; MAX_WQE_BYTES];
        let n = wr.encode(&q.shape, q.producer, &mut out)?;
        debug_assert_eq!(n % BLOCK_BYTES, 0);
        let addr = q.ring.addr(q.producer);
        self.device
            .borrow_mut()
            .memory()
            .write(addr, &out[..n])
            .expect("a live send ring is host memory");
        let q = self.qps.get_mut(&qpn).expect("a live QP");
        q.producer = q.producer.wrapping_add(1);
        Ok(())
    }
}
