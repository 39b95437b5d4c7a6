//! The receive side's objects as types: work queues (`ibv_wq`), indirection tables
//! (`ibv_rwq_ind_table`), RSS QPs (`ibv_create_qp_ex` with `ibv_rx_hash_conf`) and flows
//! (`ibv_flow`). On a device without a receive path creating them fails with `EOPNOTSUPP`.
//!
//! - A work queue is the receive path's (`model::rx::wq`; firmware `RxPath::create_wq`), with
//!   its own completion ring taken into the completion queue it was created with.
//! - An RSS QP is a UD QP the engine holds (the receive path reads a frame's QP state from the
//!   send side's slot) with no send queue to speak of, whose receive side targets RSS
//!   (`Target::Rss`), an RSS context of the pipeline (firmware `RssPipeline::set_context`:
//!   hash, key, and the table's work queues as its indirection table) and a steering rule that
//!   sends frames for its QPN to that context. Context 0 stays the pipeline's default for
//!   frames no rule matches.
//! - A flow is a steering rule of an RSS QP: frames for the QP that also match the flow's key
//!   go to the QP's context (hashed) or to one of its work queues (not hashed). Flows take the
//!   lowest free rules, RSS QPs' own rules the highest, and rules are tried in order, so a flow
//!   comes before the rule of its QP.
//! - A raw packet QP's flow (`QueuePair::create_flow`) is a steering rule too: frames matching
//!   its key (no QPN: a raw frame has no BTH) land whole in the QP's own raw work queue.
//! - A raw packet RSS QP (`ibv_create_qp_ex` of `IBV_QPT_RAW_PACKET` with `rx_hash_conf`)
//!   spreads raw frames over a table of raw work queues (`Context::create_raw_wq`): an RSS
//!   context like a UD RSS QP's, but no rule of its own and nothing in the engine (a raw frame
//!   names no QP and the receive path reads no QP state for it): its flows, matching the
//!   frame's fields alone, bring frames to it, hashed over its table or to one of its queues.

use super::attr::QpType;
use super::context::Context;
use super::cq::CompletionQueue;
use super::pd::ProtectionDomain;
use super::qp::create_entry;
use super::recv::WqKind;
use super::wr::RecvWr;
use super::{
    Error, Exhausted, Feature, InitAttr, Invalid, PostError, QpAttr, QpInitAttr, RtrAttr, RtsAttr,
};
use crate::device::Device;
use rocenic_firmware::rss::ContextConfig;
use rocenic_model::qp::{PathMtu, Psn};
use rocenic_model::rss::{Action, Rule};
use rocenic_model::rx::Target;

/// The hash function of an RSS QP: Toeplitz or XOR.
pub use rocenic_model::rss::Function as HashFunction;
/// The fields a hash covers.
pub use rocenic_model::rss::HashFields;
/// A steering rule's match: fields of a frame, each under a mask.
pub use rocenic_model::rss::SteeringKey;
/// A work queue's state: RESET, READY or ERR.
pub use rocenic_model::rx::WqState;

/// A QPN's bits: what an RSS QP's rules compare.
const QPN_MASK: u32 = 0xFF_FFFF;

/// What a receive work queue is created with (`ibv_wq_init_attr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqInitAttr {
    /// Receive work requests it holds (rounded up to a power of two).
    pub max_wr: u32,
    /// Scatter entries of each.
    pub max_sge: u32,
}

/// A receive work queue (`ibv_wq`), completing to the completion queue it was created with.
/// Posting borrows it mutably; dropping it destroys it.
pub struct WorkQueue<'a, D: Device> {
    ctx: &'a Context<D>,
    wq_num: u16,
}

impl<D: Device> WorkQueue<'_, D> {
    /// Its number: what an indirection table's entries name.
    pub fn wq_num(&self) -> u32 {
        self.wq_num.into()
    }

    /// Its state as the driver last learnt it (a failed receive moves it to ERR when its
    /// completion is taken).
    pub fn state(&self) -> WqState {
        self.ctx
            .inner
            .borrow()
            .rx
            .as_ref()
            .expect("a receive path")
            .wqs[&self.wq_num]
            .state
    }

    /// Receive work requests it holds.
    pub fn entries(&self) -> u32 {
        let inner = self.ctx.inner.borrow();
        inner.rx.as_ref().expect("a receive path").wqs[&self.wq_num]
            .ring
            .ring()
            .entries()
    }

    /// RESET → READY, READY → ERR, any → RESET (`ibv_modify_wq`); RESET empties it and drops
    /// its completions not yet polled.
    pub fn modify(&mut self, state: WqState) -> Result<(), Error> {
        self.ctx.inner.borrow_mut().modify_wq(self.wq_num, state)
    }

    /// Posts a receive work request (`ibv_post_wq_recv`), in any state (RESET keeps it, ERR
    /// flushes it).
    pub fn post_recv(&mut self, wr: &RecvWr<'_>) -> Result<(), Error> {
        self.post_recv_list(std::slice::from_ref(wr))
            .map_err(|e| e.error)
    }

    /// Posts receive work requests in order with one doorbell; a list stops at its first bad
    /// request.
    pub fn post_recv_list(&mut self, wrs: &[RecvWr<'_>]) -> Result<(), PostError> {
        self.ctx.inner.borrow_mut().post_recv_list(self.wq_num, wrs)
    }
}

impl<D: Device> Drop for WorkQueue<'_, D> {
    fn drop(&mut self) {
        // A failing device cannot be reported from a drop.
        let _ = self.ctx.inner.borrow_mut().destroy_wq_entry(self.wq_num);
    }
}

/// A receive work queue indirection table (`ibv_rwq_ind_table`): 2^k work queues an RSS
/// QP's hash spreads frames over, all raw or none. It borrows its work queues.
pub struct RwqIndirectionTable<'a, D: Device> {
    ctx: &'a Context<D>,
    wqs: Vec<u16>,
    raw: bool,
}

impl<D: Device> RwqIndirectionTable<'_, D> {
    /// The work queues, in table order.
    pub fn wqs(&self) -> Vec<u32> {
        self.wqs.iter().map(|&w| w.into()).collect()
    }

    /// Its work queues are raw (`Context::create_raw_wq`): a raw packet RSS QP's table.
    pub fn is_raw(&self) -> bool {
        self.raw
    }
}

/// How an RSS QP hashes (`ibv_rx_hash_conf`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxHashConf {
    /// Toeplitz or XOR.
    pub function: HashFunction,
    /// The Toeplitz key (at least 4 bytes more than the longest input the fields select,
    /// at most 52).
    pub key: Vec<u8>,
    /// What the hash covers.
    pub fields: HashFields,
}

/// Where a flow's frames go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowAction {
    /// Hashed over the RSS QP's indirection table, as its other frames.
    Rss,
    /// To this work queue of the QP's table (or a raw packet QP's own queue), unhashed.
    Wq(u32),
    /// To the raw packet QP's own receive queue, unhashed (`ibv_create_flow` on a QP).
    Qp,
}

/// A steering rule (`ibv_flow_attr`): frames for the QP whose fields match `value` under
/// `mask` go where `action` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowAttr {
    /// The fields to match (the QPN is the QP's).
    pub value: SteeringKey,
    /// Which bits of them count.
    pub mask: SteeringKey,
    /// Where matching frames go.
    pub action: FlowAction,
}

/// An RSS QP: the UD frames for its QPN (a raw packet RSS QP: the raw frames its flows
/// match) are spread over an indirection table's work queues by its hash. It borrows the
/// table (so its work queues). Dropping it destroys it.
pub struct RssQueuePair<'a, D: Device> {
    ctx: &'a Context<D>,
    table: &'a RwqIndirectionTable<'a, D>,
    qpn: u32,
    context: usize,
    /// The rule steering frames for its QPN to its context (a UD RSS QP's; a raw one has
    /// none).
    rule: Option<usize>,
    hash: RxHashConf,
}

impl<D: Device> RssQueuePair<'_, D> {
    /// Its number: UD senders address it.
    pub fn qp_num(&self) -> u32 {
        self.qpn
    }

    /// Its hash.
    pub fn hash(&self) -> &RxHashConf {
        &self.hash
    }

    /// The RSS context it holds in the pipeline.
    pub fn rss_context(&self) -> usize {
        self.context
    }

    /// A raw packet RSS QP (its frames are raw, brought by its flows alone).
    pub fn is_raw(&self) -> bool {
        self.table.raw
    }

    /// Steers frames that match `attr` to it (`ibv_create_flow`): for a UD RSS QP frames for
    /// its QPN, for a raw one raw frames by their fields alone.
    pub fn create_flow(&self, attr: &FlowAttr) -> Result<Flow<'_, D>, Error> {
        let action = match attr.action {
            FlowAction::Rss => Action::Context(self.context as u8),
            FlowAction::Wq(w) if self.table.wqs.iter().any(|&x| u32::from(x) == w) => {
                Action::Queue(w as u16)
            }
            FlowAction::Wq(_) => {
                return Err(Invalid::Attr("a flow's work queue must be in the QP's table").into())
            }
            FlowAction::Qp => {
                return Err(Invalid::Attr("an RSS QP has no receive queue of its own").into())
            }
        };
        let mut inner = self.ctx.inner.borrow_mut();
        let rx = inner.rx()?;
        // Before the QP's own rule, which rules are tried in order.
        let rule = rx
            .rules
            .iter()
            .position(|u| !u)
            .filter(|&r| self.rule.is_none_or(|own| r < own))
            .ok_or(Exhausted::SteeringRules)?;
        let mut value = attr.value;
        let mut mask = attr.mask;
        // A raw frame carries no BTH: its QPN field is 0 and means nothing.
        (value.qpn, mask.qpn) = if self.table.raw {
            (0, 0)
        } else {
            (self.qpn, QPN_MASK)
        };
        let r = Rule {
            enabled: true,
            value,
            mask,
            action,
        };
        rx.rss
            .as_mut()
            .ok_or(Error::Unsupported(Feature::Rss))?
            .set_rule(rule, &r)?;
        rx.rules[rule] = true;
        Ok(Flow {
            ctx: self.ctx,
            rule,
            serial: None,
        })
    }
}

impl<D: Device> Drop for RssQueuePair<'_, D> {
    fn drop(&mut self) {
        let mut inner = self.ctx.inner.borrow_mut();
        // A failing device cannot be reported from a drop.
        if let Ok(rx) = inner.rx() {
            if let (Some(rss), Some(r)) = (rx.rss.as_mut(), self.rule) {
                let _ = rss.disable_rule(r);
            }
            if let Some(r) = self.rule {
                rx.rules[r] = false;
            }
            rx.contexts[self.context] = false;
            for w in &self.table.wqs {
                if let Some(e) = rx.wqs.get_mut(w) {
                    e.rss_qpn = None;
                }
            }
        }
        inner.destroy_qp_entry(self.qpn);
    }
}

/// An installed steering rule (`ibv_flow`); dropping it removes it. An RSS QP's flow borrows
/// the QP; a raw packet QP's borrows the context only (the QP is posted to by `&mut` while
/// its flows stand), and destroying the QP removes its flows.
pub struct Flow<'q, D: Device> {
    pub(super) ctx: &'q Context<D>,
    pub(super) rule: usize,
    /// A raw packet QP's flow: its serial number.
    pub(super) serial: Option<u64>,
}

impl<D: Device> Flow<'_, D> {
    /// The steering-rule slot it holds.
    pub fn rule(&self) -> usize {
        self.rule
    }
}

impl<D: Device> Drop for Flow<'_, D> {
    fn drop(&mut self) {
        let mut inner = self.ctx.inner.borrow_mut();
        if let Ok(rx) = inner.rx() {
            if let Some(serial) = self.serial {
                // Its QP's destroy may have removed it already.
                if rx.raw_flows.get(&self.rule).map(|f| f.0) != Some(serial) {
                    return;
                }
                rx.raw_flows.remove(&self.rule);
            }
            if let Some(rss) = rx.rss.as_mut() {
                let _ = rss.disable_rule(self.rule);
            }
            rx.rules[self.rule] = false;
        }
    }
}

impl<D: Device> Context<D> {
    /// A receive work queue in `pd` completing to `cq` (`ibv_create_wq`), in RESET.
    pub fn create_wq<'a>(
        &'a self,
        pd: &'a ProtectionDomain<'_, D>,
        cq: &'a CompletionQueue<'_, D>,
        attr: &WqInitAttr,
    ) -> Result<WorkQueue<'a, D>, Error> {
        self.create_wq_of(pd, cq, attr, WqKind::Plain)
    }

    /// A raw receive work queue in `pd` completing to `cq`, in RESET: frames that are not
    /// RoCEv2 land in it whole, for a raw packet RSS QP's table. The receive path marks a queue
    /// raw when it is created, where verbs leaves it to the QP that uses it.
    pub fn create_raw_wq<'a>(
        &'a self,
        pd: &'a ProtectionDomain<'_, D>,
        cq: &'a CompletionQueue<'_, D>,
        attr: &WqInitAttr,
    ) -> Result<WorkQueue<'a, D>, Error> {
        if !self.query_device().raw_packet {
            return Err(Error::Unsupported(Feature::RawPacket));
        }
        self.create_wq_of(pd, cq, attr, WqKind::Raw)
    }

    fn create_wq_of<'a>(
        &'a self,
        pd: &'a ProtectionDomain<'_, D>,
        cq: &'a CompletionQueue<'_, D>,
        attr: &WqInitAttr,
        kind: WqKind,
    ) -> Result<WorkQueue<'a, D>, Error> {
        if !std::ptr::eq(self, pd.context()) || !std::ptr::eq(self, cq.context()) {
            return Err(Invalid::Attr("a PD or completion queue of another context").into());
        }
        let w = self.inner.borrow_mut().create_wq_entry(
            pd.pdn(),
            cq.id(),
            attr.max_wr,
            attr.max_sge,
            None,
            kind,
        )?;
        Ok(WorkQueue {
            ctx: self,
            wq_num: w,
        })
    }

    /// An indirection table over `wqs` (`ibv_create_rwq_ind_table`): a power of two of them,
    /// at most the pipeline's largest table.
    pub fn create_rwq_ind_table<'a>(
        &'a self,
        wqs: &[&'a WorkQueue<'a, D>],
    ) -> Result<RwqIndirectionTable<'a, D>, Error> {
        let max = match self.query_device().rss {
            Some(c) => c.max_rwq_indirection_table_size,
            None if self.query_device().receive => return Err(Error::Unsupported(Feature::Rss)),
            None => return Err(Error::Unsupported(Feature::Receive)),
        };
        if !wqs.len().is_power_of_two() || wqs.len() > max as usize {
            return Err(
                Invalid::Size("indirection table entries", wqs.len() as u64, max.into()).into(),
            );
        }
        if wqs.iter().any(|w| !std::ptr::eq(self, w.ctx)) {
            return Err(Invalid::Attr("a work queue of another context").into());
        }
        let raw: Vec<bool> = {
            let inner = self.inner.borrow();
            let rx = inner.rx.as_ref().expect("a device with RSS receives");
            wqs.iter().map(|w| rx.wqs[&w.wq_num].raw).collect()
        };
        if raw.iter().any(|&r| r != raw[0]) {
            return Err(Invalid::Attr("an indirection table of raw and plain work queues").into());
        }
        Ok(RwqIndirectionTable {
            ctx: self,
            wqs: wqs.iter().map(|w| w.wq_num).collect(),
            raw: raw[0],
        })
    }
}

impl<'c, D: Device> ProtectionDomain<'c, D> {
    /// An RSS QP spreading the UD frames for it over `table` by `hash` (`ibv_create_qp_ex`
    /// with `rx_hash_conf`), its Q_Key `qkey`, ready to receive (the engine holds it in RTS).
    pub fn create_rss_qp<'a>(
        &'a self,
        table: &'a RwqIndirectionTable<'a, D>,
        hash: &RxHashConf,
        qkey: u32,
    ) -> Result<RssQueuePair<'a, D>, Error> {
        if table.raw {
            return Err(Invalid::Attr("a UD RSS QP's table of raw work queues").into());
        }
        self.create_rss(table, hash, Some(qkey))
    }

    /// A raw packet RSS QP spreading raw frames over `table`'s raw work queues by `hash`
    /// (`ibv_create_qp_ex` of `IBV_QPT_RAW_PACKET` with `rx_hash_conf`). Frames reach it by
    /// its flows ([`RssQueuePair::create_flow`]) alone; completions name it.
    pub fn create_raw_rss_qp<'a>(
        &'a self,
        table: &'a RwqIndirectionTable<'a, D>,
        hash: &RxHashConf,
    ) -> Result<RssQueuePair<'a, D>, Error> {
        if !table.raw {
            return Err(
                Invalid::Attr("a raw RSS QP's table of work queues that are not raw").into(),
            );
        }
        self.create_rss(table, hash, None)
    }

    /// An RSS QP over `table`: UD with Q_Key `qkey` (in the engine, with the rule for its
    /// QPN), or raw (`None`: a QPN for its completions, no rule, nothing in the engine).
    fn create_rss<'a>(
        &'a self,
        table: &'a RwqIndirectionTable<'a, D>,
        hash: &RxHashConf,
        qkey: Option<u32>,
    ) -> Result<RssQueuePair<'a, D>, Error> {
        let ctx = self.context();
        if !std::ptr::eq(ctx, table.ctx) {
            return Err(Invalid::Attr("an indirection table of another context").into());
        }
        let (context, rule) = {
            let mut inner = ctx.inner.borrow_mut();
            let rx = inner.rx()?;
            if rx.rss.is_none() {
                return Err(Error::Unsupported(Feature::Rss));
            }
            let context = (1..rx.contexts.len())
                .find(|&c| !rx.contexts[c])
                .ok_or(Exhausted::RssContexts)?;
            let rule = match qkey {
                Some(_) => Some(
                    (0..rx.rules.len())
                        .rev()
                        .find(|&r| !rx.rules[r])
                        .ok_or(Exhausted::SteeringRules)?,
                ),
                None => None,
            };
            (context, rule)
        };
        let attr = QpInitAttr {
            max_send_wr: 1,
            max_send_sge: 1,
            ..QpInitAttr::new(if qkey.is_some() {
                QpType::Ud
            } else {
                QpType::RawPacket
            })
        };
        let qpn = create_entry(ctx, self.pdn(), 0, None, None, &attr)?;
        let mut inner = ctx.inner.borrow_mut();
        // A UD RSS QP in the engine: the receive path reads its state from the send side.
        let up = match qkey {
            Some(qkey) => [
                QpAttr::Init(InitAttr::ud(qkey)),
                QpAttr::Rtr(RtrAttr::ud(PathMtu::Mtu4096)),
                QpAttr::Rts(RtsAttr::new(Psn::from_bits_truncate(0))),
            ]
            .into_iter()
            .try_for_each(|a| inner.modify_qp(qpn, a)),
            None => Ok(()),
        };
        let r = up.and_then(|()| {
            let config = match qkey {
                Some(_) => Some(inner.qps[&qpn].engine_config().expect("in the engine")),
                None => None,
            };
            let rx = inner.rx()?;
            let table_wqs: Vec<u16> = table.wqs.clone();
            let rss = rx.rss.as_mut().expect("checked above");
            rss.set_context(
                context,
                &ContextConfig {
                    function: hash.function,
                    fields: hash.fields,
                    key: &hash.key,
                },
                &table_wqs,
            )?;
            if let (Some(config), Some(rule)) = (config, rule) {
                rx.fw
                    .attach(qpn, &config, Target::Rss, Psn::from_bits_truncate(0))?;
                let rule_def = Rule {
                    enabled: true,
                    value: SteeringKey {
                        qpn,
                        ..SteeringKey::default()
                    },
                    mask: SteeringKey {
                        qpn: QPN_MASK,
                        ..SteeringKey::default()
                    },
                    action: Action::Context(context as u8),
                };
                let rss = rx.rss.as_mut().expect("checked above");
                rss.set_rule(rule, &rule_def)?;
                rx.rules[rule] = true;
            }
            rx.contexts[context] = true;
            for w in &table_wqs {
                if let Some(e) = rx.wqs.get_mut(w) {
                    e.rss_qpn = Some(qpn);
                }
            }
            Ok(())
        });
        if let Err(e) = r {
            inner.destroy_qp_entry(qpn);
            return Err(e);
        }
        Ok(RssQueuePair {
            ctx,
            table,
            qpn,
            context,
            rule,
            hash: hash.clone(),
        })
    }
}
