//! The verbs-shaped API: what a libibverbs user recognises, with its contracts in the types.
//!
//! ```text
//! Context::open(device)            ibv_open_device, then the engine set up and enabled
//!   .query_device()                ibv_query_device (TSO, RSS, receive capabilities)
//!   .alloc_pd()                    ibv_alloc_pd
//!   .alloc_buffer(len)             host memory the device can DMA
//!   .create_cq(cqe)                ibv_create_cq
//! pd.reg_mr(&buf, access)          ibv_reg_mr: lkey, rkey
//! pd.create_ah(&ah)                ibv_create_ah
//! pd.create_qp(&cq, &init)         ibv_create_qp
//! qp.modify(QpAttr::Init(..))      ibv_modify_qp, one typed attribute set per state
//! qp.post_send(&wr)                ibv_post_send
//! qp.post_recv(&wr)                ibv_post_recv (a receive path)
//! cq.poll(n)                       ibv_poll_cq
//! ctx.create_wq(&pd, &cq, ..)      ibv_create_wq; wq.modify, wq.post_recv (ibv_post_wq_recv)
//! ctx.create_rwq_ind_table(&wqs)   ibv_create_rwq_ind_table
//! pd.create_srq(&attr)             ibv_create_srq; srq.post_recv (ibv_post_srq_recv)
//! srq.create_qp(&scq, &rcq, &init) ibv_create_qp with srq
//! pd.create_rss_qp(&table, ..)     ibv_create_qp_ex with rx_hash_conf
//! rss_qp.create_flow(&attr)        ibv_create_flow
//! raw_qp.create_flow(&attr)        ibv_create_flow on a raw packet QP (its own raw queue)
//! run_together(&[&a, &b], n)       two simulated NICs on a wire share time
//! ```
//!
//! The contracts: every object borrows what it depends on (a region its buffer and PD, a QP
//! its PD and CQ, everything the context), so nothing is freed under another; posting borrows
//! the QP mutably; a [`Completion`] only comes from the device; every failure is an [`Error`]
//! with the errno verbs returns. Formats, rings, the doorbell rule and the QP and region rules
//! are `rocenic_model`'s; register sequences are `rocenic_firmware`'s.

mod attr;
mod buffer;
mod context;
mod cq;
mod error;
mod mr;
mod pd;
mod qp;
mod recv;
mod rss;
mod srq;
mod wr;

pub use attr::{InitAttr, QpAttr, QpInitAttr, QpType, RcPeer, RtrAttr, RtsAttr};
pub use buffer::DmaBuffer;
pub use context::{run_together, Context, DeviceAttr, OpenAttr, RssCaps, TsoCaps};
pub use cq::{Completion, CompletionQueue, WcOpcode, WcStatus};
pub use error::{errno, Error, Exhausted, Feature, Invalid, PostError};
pub use mr::{AccessFlags, MemoryRegion};
pub use pd::{AddressHandle, AhAttr, Gid, ProtectionDomain};
pub use qp::QueuePair;
pub use rss::{
    Flow, FlowAction, FlowAttr, HashFields, HashFunction, RssQueuePair, RwqIndirectionTable,
    RxHashConf, SteeringKey, WorkQueue, WqInitAttr, WqState,
};
pub use srq::{SharedReceiveQueue, SrqInitAttr};
pub use wr::{Data, RecvWr, RemoteAddr, SendFlags, SendOp, SendWr, Sge, UdDest};

/// The entropy source of an RC QP (its QPNs, or the connection manager's ports).
pub use rocenic_firmware::EntropySource;
/// The entropy profiles.
pub use rocenic_model::entropy::Profile;
/// Path MTUs, PSNs, QP states.
pub use rocenic_model::qp::{PathMtu, Psn, QpState};
/// The NIC's addresses.
pub use rocenic_model::wqe::Nic;
