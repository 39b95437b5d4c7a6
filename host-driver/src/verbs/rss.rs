//! The receive side's RSS objects (`ibv_wq`, `ibv_rwq_ind_table`, an RSS QP's
//! `ibv_rx_hash_conf`, `ibv_flow`) as types. Each needs a receive path: on a device without
//! one (every backend so far; `query_device` says `receive: false`) creating them fails with
//! `EOPNOTSUPP` ([`Feature::Receive`]). The formats and rules they will follow are the
//! model's: work queues `model::rx::wq`, hashing `model::rss`, steering rules
//! `model::rss::steer`, programmed through `rocenic_firmware::RssPipeline`.

use super::context::Context;
use super::cq::CompletionQueue;
use super::pd::ProtectionDomain;
use super::{Error, Feature};
use crate::device::Device;
use std::marker::PhantomData;

/// The hash function of an RSS QP: Toeplitz or XOR.
pub use rocenic_model::rss::Function as HashFunction;
/// The fields a hash covers.
pub use rocenic_model::rss::HashFields;
/// A steering rule's match: fields of a frame, each under a mask.
pub use rocenic_model::rss::SteeringKey;
/// A work queue's state: RESET, READY or ERR.
pub use rocenic_model::rx::WqState;

/// What a receive work queue is created with (`ibv_wq_init_attr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqInitAttr {
    /// Receive work requests it holds.
    pub max_wr: u32,
    /// Scatter entries of each.
    pub max_sge: u32,
}

/// A receive work queue (`ibv_wq`) with its own completion queue.
pub struct WorkQueue<'a, D: Device> {
    _ctx: &'a Context<D>,
    wq_num: u32,
}

impl<D: Device> WorkQueue<'_, D> {
    /// Its number: what an indirection table's entries name.
    pub fn wq_num(&self) -> u32 {
        self.wq_num
    }

    /// RESET → READY, READY → ERR, … (`ibv_modify_wq`).
    pub fn modify(&mut self, _state: WqState) -> Result<(), Error> {
        Err(Error::Unsupported(Feature::Receive))
    }
}

/// A receive work queue indirection table (`ibv_rwq_ind_table`): 2^k work queues an RSS
/// QP's hash spreads frames over.
pub struct RwqIndirectionTable<'a, D: Device> {
    _ctx: &'a Context<D>,
    wqs: Vec<u32>,
}

impl<D: Device> RwqIndirectionTable<'_, D> {
    /// The work queues, in table order.
    pub fn wqs(&self) -> &[u32] {
        &self.wqs
    }
}

/// How an RSS QP hashes (`ibv_rx_hash_conf`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxHashConf {
    /// Toeplitz or XOR.
    pub function: HashFunction,
    /// The Toeplitz key.
    pub key: Vec<u8>,
    /// What the hash covers.
    pub fields: HashFields,
}

/// A steering rule (`ibv_flow_attr`): frames whose fields match `value` under `mask` go to
/// the QP it is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowAttr {
    /// The fields to match.
    pub value: SteeringKey,
    /// Which bits of them count.
    pub mask: SteeringKey,
}

/// An RSS QP: frames it takes are spread over an indirection table's work queues.
pub struct RssQueuePair<'a, D: Device> {
    _table: &'a RwqIndirectionTable<'a, D>,
    hash: RxHashConf,
}

impl<D: Device> RssQueuePair<'_, D> {
    /// Its hash.
    pub fn hash(&self) -> &RxHashConf {
        &self.hash
    }

    /// Steers frames matching `attr` to it (`ibv_create_flow`).
    pub fn create_flow(&self, _attr: &FlowAttr) -> Result<Flow<'_>, Error> {
        Err(Error::Unsupported(Feature::Rss))
    }
}

/// An installed steering rule (`ibv_flow`); dropping it removes it.
pub struct Flow<'q> {
    _qp: PhantomData<&'q ()>,
    rule: usize,
}

impl Flow<'_> {
    /// The steering-rule slot it holds.
    pub fn rule(&self) -> usize {
        self.rule
    }
}

impl<D: Device> Context<D> {
    /// A receive work queue in `pd` completing to `cq` (`ibv_create_wq`): needs a receive
    /// path.
    pub fn create_wq<'a>(
        &'a self,
        _pd: &'a ProtectionDomain<'_, D>,
        _cq: &'a CompletionQueue<'_, D>,
        _attr: &WqInitAttr,
    ) -> Result<WorkQueue<'a, D>, Error> {
        Err(Error::Unsupported(Feature::Receive))
    }

    /// An indirection table over `wqs` (`ibv_create_rwq_ind_table`): needs a receive path.
    pub fn create_rwq_ind_table<'a>(
        &'a self,
        _wqs: &[&'a WorkQueue<'a, D>],
    ) -> Result<RwqIndirectionTable<'a, D>, Error> {
        Err(Error::Unsupported(Feature::Receive))
    }
}

impl<'c, D: Device> ProtectionDomain<'c, D> {
    /// An RSS QP spreading what it takes over `table` by `hash` (`ibv_create_qp_ex` with
    /// `rx_hash_conf`): needs a receive path.
    pub fn create_rss_qp<'a>(
        &'a self,
        _table: &'a RwqIndirectionTable<'a, D>,
        _hash: &RxHashConf,
    ) -> Result<RssQueuePair<'a, D>, Error> {
        Err(Error::Unsupported(Feature::Receive))
    }
}
