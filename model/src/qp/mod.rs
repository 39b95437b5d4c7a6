//! QP contexts, memory regions and protection: the state the WQE engine keeps per QP and per
//! registered region (docs/qp.md; verbs facts in docs/reference.md §6, PSNs in §7).
//!
//! - [`QpTable`]: up to `N` (default [`DEFAULT_QPS`]) [`QpContext`]s keyed by QPN, each with its
//!   [`QpConfig`] ([`QpKind`]: RC, UD or raw packet; PD, [`PathMtu`], first [`Psn`],
//!   destination QPN, Q_Key, [`AddressVector`]), its [`QpState`] and, for RC, the UDP source
//!   port and flow label fixed at RTR ([`qp_entropy`]).
//! - [`MrTable`]: up to `N` [`MemoryRegion`]s keyed by lkey and the check every gather entry
//!   passes before any DMA; [`mr_slot`] and [`mr_lkeys_fit`]: the slot an lkey takes in the
//!   hardware table, which does not search, and whether a set of lkeys fits it.
//! - [`Status`]: the verbs completion statuses, defined once for every module.

mod av;
mod context;
mod entropy;
mod gather;
mod kind;
mod mr;
mod mr_slot;
mod mtu;
mod psn;
mod state;
mod status;
mod table;

pub use av::{AddressVector, AvError, IpPair};
pub use context::{ConfigError, QpConfig, QpContext, QPN_MAX, QPN_MIN};
pub use entropy::qp_entropy;
pub use gather::{check_gather, check_gather_for, Sge};
pub use kind::QpKind;
pub use mr::{Access, MemoryRegion, MrError, MrTable, MAX_MSG_SIZE};
pub use mr_slot::{mr_lkeys_fit, mr_slot};
pub use mtu::PathMtu;
pub use psn::Psn;
pub use state::{IllegalTransition, QpState};
pub use status::{Status, UnknownStatus};
pub use table::{QpError, QpTable, DEFAULT_QPS};

/// The entropy unit's RC/UD type (defined once there); a QP's own is [`QpKind`].
pub use crate::entropy::QpType;
