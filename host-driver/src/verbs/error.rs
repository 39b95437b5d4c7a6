//! The driver's errors: one typed value per cause, each with the errno verbs returns for it.

use crate::device::DeviceError;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{AvError, ConfigError, IllegalTransition, QpState};
use rocenic_model::rx::{RxError, WqTransition};
use std::fmt;

/// The Linux errno values verbs calls return (`errno.h`).
pub mod errno {
    /// Operation not permitted.
    pub const EPERM: i32 = 1;
    /// Input/output error: the device or its firmware failed.
    pub const EIO: i32 = 5;
    /// Out of memory or of a device resource; a full send queue.
    pub const ENOMEM: i32 = 12;
    /// Bad address: outside a buffer.
    pub const EFAULT: i32 = 14;
    /// Invalid argument.
    pub const EINVAL: i32 = 22;
    /// Operation not supported by the device.
    pub const EOPNOTSUPP: i32 = 95;
    /// Timed out.
    pub const ETIMEDOUT: i32 = 110;
}

/// An argument verbs refuses with `EINVAL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invalid {
    /// A QP state change verbs does not allow (`ib_modify_qp_is_ok`); the QP keeps its state.
    Transition(IllegalTransition),
    /// Posting to a QP in a state that takes no work requests (RESET, INIT, RTR; or ERR when
    /// the QP never reached RTS, so the engine never held it).
    State {
        /// The QP.
        qpn: u32,
        /// Its state.
        state: QpState,
    },
    /// An attribute the call needs is missing, or one it cannot take is given.
    Attr(&'static str),
    /// The opcode does not suit the QP's type (RDMA WRITE on UD, TSO on RC).
    Opcode(&'static str),
    /// More scatter/gather entries than the QP was created for.
    TooManySge {
        /// Entries given.
        n: usize,
        /// The QP's `max_send_sge`.
        max: u32,
    },
    /// More inline bytes than the QP was created for.
    InlineTooLong {
        /// Bytes given.
        len: usize,
        /// The QP's `max_inline_data`.
        max: u32,
    },
    /// A QP configuration the model refuses (QPN, destination QPN, address vector).
    Qp(ConfigError),
    /// An address vector field out of range.
    AddressVector(AvError),
    /// The connection manager's entropy cannot be given by the engine under this profile.
    Entropy(Profile),
    /// A work request the WQE format cannot hold (a field too wide, too many bytes).
    Wqe(rocenic_model::wqe::Error),
    /// Remote write or atomic access without local write (verbs requires it).
    Access(u32),
    /// A size out of the device's range: what, the value, the most allowed.
    Size(&'static str, u64, u64),
    /// A work-queue state change verbs does not allow (`ibv_modify_wq`); the queue keeps its
    /// state.
    WqTransition(WqTransition),
    /// A receive-path request the model's rules refuse (`RecvEngine`'s, checked by the
    /// firmware before any register is written).
    Rx(RxError),
    /// An RSS configuration the firmware refuses before any register is written: hash fields,
    /// key length, table size, a queue or QPN too wide.
    Rss(rocenic_firmware::Error),
}

/// A resource that ran out (`ENOMEM`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// The send queue holds `entries` WQEs not yet completed (verbs: the QP's `max_send_wr`,
    /// rounded up to a power of two).
    SendQueue {
        /// The QP.
        qpn: u32,
        /// Its ring's entries.
        entries: u32,
    },
    /// Every QP slot of the engine is taken.
    QpTable,
    /// Every memory-region slot of the engine is taken.
    MrTable,
    /// The host memory the device sees has no room (or an allocation would pass 2^64).
    HostMemory,
    /// No QPN is left.
    Qpns,
    /// The receive queue holds `entries` receive work requests not yet completed.
    RecvQueue {
        /// The work queue.
        wq: u32,
        /// Its ring's entries.
        entries: u32,
    },
    /// Every work queue of the receive path is taken.
    WqTable,
    /// Every RSS context is taken (context 0 is the pipeline's default and is not handed out).
    RssContexts,
    /// Every steering rule is taken, or none is left before the RSS QP's own rule.
    SteeringRules,
}

/// What a device may lack (`EOPNOTSUPP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// A send engine (the WQE engine's registers).
    Send,
    /// A receive path: receive queues, work queues, `post_recv` (the model backend has one;
    /// the co-simulated WQE engine does not).
    Receive,
    /// RSS: indirection tables, RSS QPs, flows (they spread received frames).
    Rss,
    /// TSO work requests (the RTL engine refuses them for now).
    Tso,
    /// Raw-packet QPs (the RTL engine has none yet).
    RawPacket,
    /// An SRQ limit (verbs' limit event: the device raises no asynchronous events).
    SrqLimit,
    /// The RC responder alone (acknowledgements of received RC requests): a receive path
    /// built with it.
    Responder,
    /// RDMA READ: only a device whose requester takes READ responses
    /// ([`crate::device::DeviceInfo::rdma_read`]).
    RdmaRead,
    /// The reliable transport in registers: a WQE engine built with it (`CAPS2.RELIABLE`) and
    /// a receive path that hands it Acknowledge frames.
    Reliable,
}

/// A verbs call that failed. [`Error::errno`] is the value libibverbs would return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `EINVAL`.
    Invalid(Invalid),
    /// `ENOMEM`.
    Exhausted(Exhausted),
    /// `EFAULT`: `len` bytes at `offset` are not inside a buffer or region of `size` bytes.
    Range {
        /// First byte, from the buffer's start.
        offset: u64,
        /// Bytes.
        len: u64,
        /// The buffer's or region's size.
        size: u64,
    },
    /// `EOPNOTSUPP`.
    Unsupported(Feature),
    /// `EPERM`: the buffer lies in another device's host memory, which this device cannot
    /// reach.
    ForeignBuffer,
    /// `ETIMEDOUT`: the device did not get there in `cycles` clock cycles.
    Timeout {
        /// Cycles run.
        cycles: u64,
    },
    /// `EIO`: the device failed.
    Device(DeviceError),
    /// `EIO`: the firmware failed (a register access, a command the block refused that the
    /// driver did not foresee, a status that never came).
    Firmware(rocenic_firmware::Error),
    /// `EIO`: the device wrote a completion the format refuses.
    BadCompletion(rocenic_model::wqe::Error),
}

impl Error {
    /// The errno verbs returns for this error.
    pub fn errno(&self) -> i32 {
        match self {
            Error::Invalid(_) => errno::EINVAL,
            Error::Exhausted(_) => errno::ENOMEM,
            Error::Range { .. } => errno::EFAULT,
            Error::Unsupported(_) => errno::EOPNOTSUPP,
            Error::ForeignBuffer => errno::EPERM,
            Error::Timeout { .. } => errno::ETIMEDOUT,
            Error::Device(_) | Error::Firmware(_) | Error::BadCompletion(_) => errno::EIO,
        }
    }
}

impl From<Invalid> for Error {
    fn from(e: Invalid) -> Self {
        Error::Invalid(e)
    }
}

impl From<Exhausted> for Error {
    fn from(e: Exhausted) -> Self {
        Error::Exhausted(e)
    }
}

impl From<DeviceError> for Error {
    fn from(e: DeviceError) -> Self {
        match e {
            DeviceError::Timeout { cycles } => Error::Timeout { cycles },
            e => Error::Device(e),
        }
    }
}

impl From<rocenic_firmware::Error> for Error {
    /// The firmware's input errors are the verbs ones; the rest is the device failing.
    fn from(e: rocenic_firmware::Error) -> Self {
        use rocenic_firmware::Error as F;
        match e {
            F::Transition(t) => Invalid::Transition(t).into(),
            F::Qp(c) => Invalid::Qp(c).into(),
            F::EntropyNotRepresentable { profile } => Invalid::Entropy(profile).into(),
            F::CmNeedsRc => Invalid::Attr("connection-manager entropy on a UD QP").into(),
            F::NotPostable { qpn, state } => Invalid::State { qpn, state }.into(),
            F::Rx(RxError::Transition(t)) => Invalid::WqTransition(t).into(),
            F::Rx(e) => Invalid::Rx(e).into(),
            F::ResponderSettings { .. } => {
                Invalid::Attr("responder settings (ack_every at most 255, rnr_timer at most 31)")
                    .into()
            }
            F::NoResponder => Error::Unsupported(Feature::Responder),
            F::NoReliable | F::NoRequester => Error::Unsupported(Feature::Reliable),
            F::ReliableSettings(..) => Invalid::Attr(
                "transport settings (timeout at most 31, retry counts at most 7, max_inflight 1 \
                 to 255, scale 1 to 65535, a tick of 1 cycle or more)",
            )
            .into(),
            e @ (F::HashFields(_)
            | F::KeyLength { .. }
            | F::TableSize(_)
            | F::TableTooLarge { .. }
            | F::QueueTooWide { .. }
            | F::QpnTooWide(_)) => Invalid::Rss(e).into(),
            e => Error::Firmware(e),
        }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Transition(t) => write!(f, "{t}"),
            Invalid::State { qpn, state } => {
                write!(f, "QP {qpn:#x} is in {state}: it takes no such work requests")
            }
            Invalid::Attr(what) => write!(f, "attribute: {what}"),
            Invalid::Opcode(what) => write!(f, "opcode: {what}"),
            Invalid::TooManySge { n, max } => {
                write!(f, "{n} scatter/gather entries; the QP takes {max}")
            }
            Invalid::InlineTooLong { len, max } => {
                write!(f, "{len} inline bytes; the QP takes {max}")
            }
            Invalid::Qp(c) => write!(f, "QP configuration: {c:?}"),
            Invalid::AddressVector(e) => write!(f, "address vector: {e:?}"),
            Invalid::Entropy(p) => write!(
                f,
                "the engine cannot give this QP the connection manager's entropy under profile {p:?}"
            ),
            Invalid::Wqe(e) => write!(f, "work request: {e}"),
            Invalid::Access(bits) => write!(
                f,
                "access {bits:#x}: remote write or atomic needs local write"
            ),
            Invalid::Size(what, v, max) => write!(f, "{what} {v}: at most {max}"),
            Invalid::WqTransition(t) => write!(f, "{t}"),
            Invalid::Rx(e) => write!(f, "receive path: {e}"),
            Invalid::Rss(e) => write!(f, "RSS: {e}"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(e) => write!(f, "invalid argument: {e}"),
            Error::Exhausted(e) => write!(f, "out of resources: {e:?}"),
            Error::Range { offset, len, size } => write!(
                f,
                "{len} bytes at offset {offset:#x} run outside {size} bytes"
            ),
            Error::Unsupported(what) => write!(f, "the device has no {what:?} support"),
            Error::ForeignBuffer => f.write_str("a buffer of another device"),
            Error::Timeout { cycles } => write!(f, "timed out after {cycles} cycles"),
            Error::Device(e) => write!(f, "{e}"),
            Error::Firmware(e) => write!(f, "firmware: {e}"),
            Error::BadCompletion(e) => write!(f, "completion from the device: {e}"),
        }
    }
}

impl std::error::Error for Error {}

/// A list of work requests that failed at `bad_wr` (verbs' `bad_wr`): the ones before it were
/// posted, it and those after were not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostError {
    /// Index of the first work request not posted.
    pub bad_wr: usize,
    /// Why.
    pub error: Error,
}

impl PostError {
    /// The errno verbs returns.
    pub fn errno(&self) -> i32 {
        self.error.errno()
    }
}

impl fmt::Display for PostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "work request {}: {}", self.bad_wr, self.error)
    }
}

impl std::error::Error for PostError {}
