//! Queue pairs: their send queues in host memory, the verbs state machine, and posting.
//!
//! The engine holds a QP's whole context from one `QP_WRITE` (docs/wqe-ctrl.md, "Control plane"):
//! its PD, path MTU, first send PSN, peer and address vector. Verbs hands those over across
//! three state changes, the first send PSN last (RTS), so the driver keeps a QP in RESET, INIT
//! and RTR itself, checking every change against the model's state table, and gives it to the
//! engine on RTS (a QP that receives: on RTR, below): the firmware writes the context and
//! moves it RESET→INIT→RTR→RTS there, the engine fixing an RC QP's entropy at its RTR. ERR is passed on while the engine holds the
//! QP; RESET takes the QP out of the engine again. Illegal changes are refused with `EINVAL`
//! before any register is touched.
//!
//! The engine moves a QP to ERR when one of its requests fails, and says so only in the
//! completion: the driver learns it there (or from a modify the engine refuses).
//!
//! On a device with a receive path, a QP created with `max_recv_wr` and `max_recv_sge` gets
//! its own receive work queue (docs/rx.md, "Work queues"), or names a shared one (an SRQ).
//! Verbs receives from RTR, and the receive path asks the send side's slot whether it holds
//! the QP, so such a QP enters the engine at RTR (with a send PSN it does not use yet) and its
//! receive side is attached, expecting the RTR's `rq_psn`, its own queue made READY. At RTS the
//! context is written again with the send PSN while the receive path is stopped. RESET detaches
//! it and empties its own queue; a QP in ERR has its own queue flushed by the receive path.
//! A raw packet QP's own queue is a raw work queue that only its flows
//! ([`QueuePair::create_flow`]) fill: it is made READY with no receive context attached, fails
//! alone; the driver moves it to ERR with the QP (a modify, or a failed request's completion),
//! so that the receive path flushes it (docs/host-driver.md, "Raw packet QPs").

use super::attr::{InitAttr, QpAttr, QpInitAttr, QpType, RtrAttr};
use super::context::{Context, Inner};
use super::cq::CompletionQueue;
use super::pd::ProtectionDomain;
use super::recv::WqKind;
use super::rss::{Flow, FlowAction, FlowAttr};
use super::wr::{slot_blocks, RecvWr, SendWr, SqShape};
use super::{Error, Exhausted, Feature, Invalid, PostError};
use crate::device::Device;
use rocenic_firmware::{entropy, EntropySource};
use rocenic_model::entropy::Entropy;
use rocenic_model::qp::{IllegalTransition, Psn, QpConfig, QpContext, QpKind, QpState, QPN_MAX};
use rocenic_model::rss::{Action, Rule};
use rocenic_model::rx::qp_slot;
use rocenic_model::rx::{Target, WqState};
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
    /// Its own receive work queue.
    pub(super) recv: Option<u16>,
    /// The shared receive queue it receives into instead.
    pub(super) srq: Option<u16>,
    /// Where its receive completions go (`None`: it receives nothing, or is an RSS QP whose
    /// queues name their own).
    pub(super) recv_cq: Option<u32>,
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

    /// The context the engine holds, `None` while it does not hold the QP.
    pub(super) fn engine_config(&self) -> Option<QpConfig> {
        self.config.map(|(c, _)| c)
    }

    /// A failed receive into its own queue moved it to ERR (the receive path moves the QP).
    pub(super) fn set_err(&mut self) {
        if self.in_engine {
            self.state = QpState::Err;
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
        recv_cq: &'a CompletionQueue<'c, D>,
        attr: &QpInitAttr,
    ) -> Result<Self, Error> {
        let ctx = pd.context();
        if !std::ptr::eq(ctx, send_cq.context()) || !std::ptr::eq(ctx, recv_cq.context()) {
            return Err(Invalid::Attr("a completion queue of another context").into());
        }
        let qpn = create_entry(ctx, pd.pdn(), send_cq.id(), Some(recv_cq.id()), None, attr)?;
        Ok(QueuePair { ctx, qpn })
    }

    /// A QP receiving into shared receive queue `srq` (its `max_recv_wr` and `max_recv_sge`
    /// are ignored, as verbs does), its receive completions to `recv_cq`.
    pub(super) fn create_with_srq<'c>(
        pd: &'a ProtectionDomain<'c, D>,
        send_cq: &'a CompletionQueue<'c, D>,
        recv_cq: &'a CompletionQueue<'c, D>,
        srq: u16,
        attr: &QpInitAttr,
    ) -> Result<Self, Error> {
        let ctx = pd.context();
        if !std::ptr::eq(ctx, send_cq.context()) || !std::ptr::eq(ctx, recv_cq.context()) {
            return Err(Invalid::Attr("a completion queue of another context").into());
        }
        let attr = QpInitAttr {
            max_recv_wr: 0,
            max_recv_sge: 0,
            ..*attr
        };
        let qpn = create_entry(
            ctx,
            pd.pdn(),
            send_cq.id(),
            Some(recv_cq.id()),
            Some(srq),
            &attr,
        )?;
        Ok(QueuePair { ctx, qpn })
    }

    /// Its number.
    pub fn qp_num(&self) -> u32 {
        self.qpn
    }

    /// RC, UD or raw packet.
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

    /// Posts a receive work request to its receive queue (`ibv_post_recv`).
    pub fn post_recv(&mut self, wr: &RecvWr<'_>) -> Result<(), Error> {
        self.post_recv_list(std::slice::from_ref(wr))
            .map_err(|e| e.error)
    }

    /// Posts receive work requests in order and rings the queue's doorbell once for them; a
    /// list stops at its first bad request. Refused in RESET (verbs takes receives from INIT
    /// on; they wait in the queue, and the QP receives from RTR), `EOPNOTSUPP` on a device
    /// without a receive path, `EINVAL` for a QP created without a receive queue or with a
    /// shared one (post to the SRQ).
    pub fn post_recv_list(&mut self, wrs: &[RecvWr<'_>]) -> Result<(), PostError> {
        let mut inner = self.ctx.inner.borrow_mut();
        let q = &inner.qps[&self.qpn];
        let refuse = |error: Error| PostError { bad_wr: 0, error };
        let w = match q.recv {
            Some(w) => w,
            None if inner.rx.is_none() => return Err(refuse(Error::Unsupported(Feature::Receive))),
            None if q.srq.is_some() => {
                return Err(refuse(
                    Invalid::Attr("the QP receives into a shared receive queue").into(),
                ))
            }
            None => {
                return Err(refuse(
                    Invalid::Attr("the QP was created without a receive queue").into(),
                ))
            }
        };
        if q.state == QpState::Reset {
            return Err(refuse(
                Invalid::State {
                    qpn: self.qpn,
                    state: q.state,
                }
                .into(),
            ));
        }
        inner.post_recv_list(w, wrs)
    }

    /// Steers the frames matching `attr` to its own receive queue (`ibv_create_flow` on a raw
    /// packet QP): a steering rule of the RSS pipeline, the lowest one free, whose match is
    /// `attr`'s key under its mask (no QPN: a raw frame has no BTH) and whose action is the
    /// QP's raw work queue, unhashed. `attr.action` is [`FlowAction::Qp`] or
    /// [`FlowAction::Wq`] of that queue. Dropping the flow removes the rule, and so does
    /// destroying the QP (the flow borrows the context, so that the QP can be posted to).
    /// `EINVAL` on a QP of another type or one without a receive queue, `EOPNOTSUPP` without
    /// an RSS pipeline, `ENOMEM` when every rule is taken.
    pub fn create_flow(&self, attr: &FlowAttr) -> Result<Flow<'a, D>, Error> {
        let mut inner = self.ctx.inner.borrow_mut();
        let q = &inner.qps[&self.qpn];
        if q.qp_type != QpType::RawPacket {
            return Err(
                Invalid::Attr("a QP's flows are a raw packet QP's; RSS QPs have theirs").into(),
            );
        }
        let w = q
            .recv
            .ok_or(Invalid::Attr("the QP was created without a receive queue"))?;
        match attr.action {
            FlowAction::Qp => {}
            FlowAction::Wq(x) if x == u32::from(w) => {}
            _ => {
                return Err(
                    Invalid::Attr("a raw packet QP's flow goes to its own receive queue").into(),
                )
            }
        }
        let rx = inner.rx()?;
        let rule = rx
            .rules
            .iter()
            .position(|u| !u)
            .ok_or(Exhausted::SteeringRules)?;
        let r = Rule {
            enabled: true,
            value: attr.value,
            mask: attr.mask,
            action: Action::Queue(w),
        };
        rx.rss
            .as_mut()
            .ok_or(Error::Unsupported(Feature::Rss))?
            .set_rule(rule, &r)?;
        rx.rules[rule] = true;
        let serial = rx.next_flow;
        rx.next_flow += 1;
        rx.raw_flows.insert(rule, (serial, self.qpn));
        Ok(Flow {
            ctx: self.ctx,
            rule,
            serial: Some(serial),
        })
    }

    /// Its own receive work queue's number, if it has one.
    pub fn recv_wq_num(&self) -> Option<u32> {
        self.with(|q| q.recv.map(u32::from))
    }

    /// Receive work requests its receive queue holds (`max_recv_wr` rounded up to a power of
    /// two), 0 without one.
    pub fn recv_queue_entries(&self) -> u32 {
        let inner = self.ctx.inner.borrow();
        let w = inner.qps[&self.qpn].recv;
        match (w, inner.rx.as_ref()) {
            (Some(w), Some(rx)) => rx.wqs[&w].ring.ring().entries(),
            _ => 0,
        }
    }
}

impl<D: Device> Drop for QueuePair<'_, D> {
    fn drop(&mut self) {
        self.ctx.inner.borrow_mut().destroy_qp_entry(self.qpn);
    }
}

/// A QP entry in RESET for PD `pdn`, completing sends to CQ `send_cq` (0: none, an RSS QP)
/// and receives to `recv_cq`, its send ring in host memory and, when `attr` asks for receives,
/// its own work queue; returns its QPN.
pub(super) fn create_entry<D: Device>(
    ctx: &Context<D>,
    pdn: u32,
    send_cq: u32,
    recv_cq: Option<u32>,
    srq: Option<u16>,
    attr: &QpInitAttr,
) -> Result<u32, Error> {
    let dev = ctx.query_device();
    let wants_recv = attr.max_recv_wr != 0 || attr.max_recv_sge != 0;
    if wants_recv && !dev.receive {
        return Err(Error::Unsupported(Feature::Receive));
    }
    if attr.qp_type == QpType::RawPacket && !dev.raw_packet {
        return Err(Error::Unsupported(Feature::RawPacket));
    }
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
    if wants_recv {
        size("max_recv_sge", attr.max_recv_sge, dev.max_recv_sge)?;
        size("max_recv_wr", attr.max_recv_wr, dev.max_qp_wr)?;
        if attr.max_recv_wr == 0 || attr.max_recv_sge == 0 {
            return Err(Invalid::Attr("a receive queue needs max_recv_wr and max_recv_sge").into());
        }
    }
    let entries = attr.max_send_wr.max(1).next_power_of_two();
    let ring = Ring::new(entries.trailing_zeros()).expect("at most max_qp_wr");
    let tso_header = match (attr.qp_type, dev.tso) {
        (QpType::Ud | QpType::RawPacket, Some(t)) => t.max_header as usize,
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
    let slots = inner.fw.qp_slots();
    if inner.qps.len() >= slots {
        return Err(Exhausted::QpTable.into());
    }
    // A QP sits in the engine's slot of its QPN's low bits (the receive path finds it
    // there), so the next QPN whose slot is free; some n in a row cover every slot.
    let taken = |q: u32| {
        inner
            .qps
            .keys()
            .any(|&k| qp_slot(k, slots) == qp_slot(q, slots))
    };
    let qpn = (inner.next_qpn..)
        .take(slots)
        .find(|&q| !taken(q))
        .expect("a slot is free");
    if qpn > QPN_MAX {
        return Err(Exhausted::Qpns.into());
    }
    let bytes = u64::from(ring.entries()) << (stride_log2 + 6);
    let base = inner.alloc(bytes)?;
    let ring = SendRing::new(ring, stride_log2, base).expect("page aligned, inside 2^64");
    let recv = if wants_recv {
        let cq = recv_cq.expect("a QP with receives names its CQ");
        let kind = match attr.qp_type {
            QpType::RawPacket => WqKind::Raw,
            _ => WqKind::Plain,
        };
        let (wr, sge) = (attr.max_recv_wr, attr.max_recv_sge);
        match inner.create_wq_entry(pdn, cq, wr, sge, Some(qpn), kind) {
            Ok(w) => Some(w),
            Err(e) => {
                inner.free(base);
                return Err(e);
            }
        }
    } else {
        None
    };
    inner.next_qpn = qpn + 1;
    inner.qps.insert(
        qpn,
        QpEntry {
            qp_type: attr.qp_type,
            pd: pdn,
            send_cq,
            state: QpState::Reset,
            in_engine: false,
            ring,
            shape: SqShape {
                qp_type: attr.qp_type,
                max_sge: attr.max_send_sge,
                max_inline: attr.max_inline_data,
                sig_all: attr.sq_sig_all,
                stride_blocks: ring.stride_blocks(),
                tso: dev
                    .tso
                    .is_some_and(|t| attr.qp_type != QpType::RawPacket || t.raw_packet),
                read: dev.rdma_read,
            },
            producer: 0,
            done: 0,
            init: None,
            rtr: None,
            config: None,
            fresh_from: None,
            recv,
            srq,
            recv_cq: (recv.is_some() || srq.is_some())
                .then_some(recv_cq)
                .flatten(),
        },
    );
    Ok(qpn)
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
                let q = self.qps.get_mut(&qpn).expect("a live QP");
                q.rtr = Some(a);
                // A QP that receives enters the engine now (with a send PSN it will not use
                // before RTS) so that its receive side is attached: verbs receives from RTR.
                if q.recv.is_some() || q.srq.is_some() {
                    self.give_to_engine(qpn, a.rq_psn, QpState::Rtr)?;
                }
            }
            QpAttr::Rts(a) if from == QpState::Rts => {
                let psn = self.qps[&qpn].config.map(|(c, _)| c.psn);
                if psn != Some(a.sq_psn) {
                    return Err(Invalid::Attr("the send PSN changes only on RTR→RTS").into());
                }
                self.engine_modify(qpn, to)?;
            }
            QpAttr::Rts(a) if self.qps[&qpn].in_engine => self.rts_in_engine(qpn, a.sq_psn)?,
            QpAttr::Rts(a) => self.give_to_engine(qpn, a.sq_psn, QpState::Rts)?,
            QpAttr::Err => {
                if self.qps[&qpn].in_engine {
                    self.engine_modify(qpn, to)?;
                }
                self.flush_raw_queue(qpn)?;
            }
        }
        self.qps.get_mut(&qpn).expect("a live QP").state = to;
        Ok(())
    }

    /// A raw packet QP in ERR: its own queue to ERR too, so the receive path flushes its
    /// posted receives (`WR_FLUSH_ERR`) as verbs flushes a QP's receive queue. The receive
    /// path holds no receive context for a raw QP, so it cannot see the QP's state itself.
    pub(super) fn flush_raw_queue(&mut self, qpn: u32) -> Result<(), Error> {
        let q = &self.qps[&qpn];
        let Some(w) = q.recv.filter(|_| q.qp_type == QpType::RawPacket) else {
            return Ok(());
        };
        if self.rx()?.wqs[&w].state == WqState::Ready {
            self.modify_wq(w, WqState::Err)?;
        }
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
            qp_type: q.qp_type.kind(),
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
            (QpType::RawPacket, Some(_)) => {
                Err(Invalid::Attr("a raw packet QP has no peer").into())
            }
            _ => self
                .engine_config(qpn, a, Psn::from_bits_truncate(0))
                .map(|_| ()),
        }
    }

    /// The firmware writes the context with send PSN `psn` and brings the QP up in the engine
    /// to `to` (RTR or RTS); a QP that receives gets its receive side, expecting the RTR's
    /// `rq_psn`, unless it has it already.
    fn give_to_engine(&mut self, qpn: u32, psn: Psn, to: QpState) -> Result<(), Error> {
        let rtr = self.qps[&qpn].rtr.expect("RTR or RTS comes from RTR");
        let (config, source) = self.engine_config(qpn, &rtr, psn)?;
        let ring = self.qps[&qpn].ring;
        // The firmware stages the address vector's own flow label and plans CM entropy itself.
        let mut given = config;
        if let (Some(av), Some(peer)) = (given.av.as_mut(), rtr.peer) {
            av.flow_label = peer.ah.flow_label;
        }
        self.fw.create_qp(qpn, &given, &ring, source)?;
        let steps: &[QpState] = match to {
            QpState::Rtr => &[QpState::Init, QpState::Rtr],
            _ => &[QpState::Init, QpState::Rtr, QpState::Rts],
        };
        for &s in steps {
            if let Err(e) = self.fw.modify_qp(qpn, s) {
                let _ = self.fw.destroy_qp(qpn);
                return Err(e.into());
            }
        }
        let q = self.qps.get_mut(&qpn).expect("a live QP");
        q.in_engine = true;
        q.config = Some((config, source));
        let target = match (q.recv, q.srq) {
            (Some(w), _) => Some((w, Target::Own(w))),
            (None, Some(w)) => Some((w, Target::Shared(w))),
            (None, None) => None,
        };
        if let Some((w, target)) = target {
            if self.rx()?.fw.attached(qpn).is_none() {
                if let Err(e) = self.start_receiving(qpn, w, target, &config, rtr.rq_psn) {
                    let _ = self.take_from_engine(qpn);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// RTR→RTS of a QP the engine took at RTR. The engine sets a QP's first send PSN only
    /// when the context is written, so the firmware writes it again with the RTS's PSN and
    /// brings it up to RTS; the receive side stays attached (its expected PSN and any message
    /// in progress are the receive path's, not the send side's). Meanwhile the receive path is
    /// stopped, frames waiting at its input, so none finds the QP out of RTR. The modify to RTS
    /// first finds a QP the receive path moved to ERR.
    fn rts_in_engine(&mut self, qpn: u32, psn: Psn) -> Result<(), Error> {
        let rx = self.rx()?;
        rx.fw.disable()?;
        rx.fw.wait_idle()?;
        let r = self.rewrite_at_rts(qpn, psn);
        self.rx()?.fw.enable()?;
        r
    }

    fn rewrite_at_rts(&mut self, qpn: u32, psn: Psn) -> Result<(), Error> {
        self.engine_modify(qpn, QpState::Rts)?;
        self.fw.destroy_qp(qpn)?;
        let q = self.qps.get_mut(&qpn).expect("a live QP");
        q.in_engine = false;
        q.config = None;
        self.give_to_engine(qpn, psn, QpState::Rts)
    }

    /// The engine holds QP `qpn`: queue `w` READY (a shared queue is from its creation), its
    /// receive side attached to `target`. A raw QP's queue only becomes READY: raw frames reach
    /// it by the steering verdict (its flows), not through a receive context.
    fn start_receiving(
        &mut self,
        qpn: u32,
        w: u16,
        target: Target,
        config: &QpConfig,
        epsn: Psn,
    ) -> Result<(), Error> {
        if self.rx()?.wqs[&w].state != WqState::Ready {
            self.modify_wq(w, WqState::Ready)?;
        }
        if config.qp_type != QpKind::Raw {
            self.rx()?.fw.attach(qpn, config, target, epsn)?;
        }
        Ok(())
    }

    /// Destroys QP `qpn`: out of the engine, its receive queue and rings freed. A failing
    /// device cannot be reported from a drop; the QP is gone from the driver.
    pub(super) fn destroy_qp_entry(&mut self, qpn: u32) {
        if let Some(rx) = self.rx.as_mut() {
            let flows: Vec<usize> = rx
                .raw_flows
                .iter()
                .filter(|(_, f)| f.1 == qpn)
                .map(|(&r, _)| r)
                .collect();
            for r in flows {
                if let Some(rss) = rx.rss.as_mut() {
                    let _ = rss.disable_rule(r);
                }
                rx.rules[r] = false;
                rx.raw_flows.remove(&r);
            }
        }
        let _ = self.take_from_engine(qpn);
        if let Some(q) = self.qps.remove(&qpn) {
            if let Some(w) = q.recv {
                let _ = self.destroy_wq_entry(w);
            }
            self.free(q.ring.addr(0));
        }
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
    /// the destroy, which waits for its request in flight). Its receives from a shared queue
    /// are the SRQ's, not its own: the one a SEND in progress holds is flushed first, and
    /// their completions are kept (docs/host-driver.md, "QP states").
    pub(super) fn take_from_engine(&mut self, qpn: u32) -> Result<(), Error> {
        self.flush_srq_receive(qpn)?;
        let q = &self.qps[&qpn];
        let cq = q.send_cq;
        let srq = q.srq;
        if let Some(rx) = self.rx.as_mut() {
            if rx.fw.attached(qpn).is_some() {
                rx.fw.detach(qpn)?;
            }
        }
        if let Some(w) = q.recv {
            self.modify_wq(w, WqState::Reset)?;
        }
        let q = &self.qps[&qpn];
        if q.in_engine {
            self.fw.destroy_qp(qpn)?;
            let fresh = self.fw.cq_producer()?;
            let q = self.qps.get_mut(&qpn).expect("a live QP");
            q.in_engine = false;
            q.config = None;
            q.fresh_from = Some(fresh);
        }
        if let Some(c) = self.cqs.get_mut(&cq) {
            c.purge(qpn, srq);
        }
        Ok(())
    }

    /// A QP on a shared receive queue may hold one of its WQEs for a SEND in progress (taken
    /// at the first packet, completed at the last); detaching its receive side forgets the
    /// message, and no ring step would ever complete that WQE. So the QP goes to ERR in the
    /// engine first, and the receive path's flush completes the WQE `WR_FLUSH_ERR` naming the
    /// QP; `STATUS.IDLE` of the enabled path says the flush has run (docs/rx.md, "Idle").
    fn flush_srq_receive(&mut self, qpn: u32) -> Result<(), Error> {
        let q = &self.qps[&qpn];
        if q.srq.is_none() || !q.in_engine {
            return Ok(());
        }
        let state = q.state;
        let Some(rx) = self.rx.as_mut() else {
            return Ok(());
        };
        if rx.fw.attached(qpn).is_none() || !rx.fw.is_enabled() {
            return Ok(());
        }
        if state != QpState::Err {
            // Refused only when a receive already moved it there: as good.
            match self.engine_modify(qpn, QpState::Err) {
                Ok(()) | Err(Error::Invalid(Invalid::Transition(_))) => {}
                Err(e) => return Err(e),
            }
        }
        self.rx()?.fw.wait_idle()?;
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
