//! What the firmware refuses or fails at. Input errors are found before any register write, so
//! a refused call leaves the hardware as it was.

use crate::BusError;
use core::fmt;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{ConfigError, IllegalTransition, QpState};
use rocenic_model::rc::Reliable;
use rocenic_model::rx::RxError;
use rocenic_model::wqe::DoorbellError;

/// A firmware error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// A register access failed.
    Bus(BusError),
    /// The block's `ID` register does not name the block the firmware expects.
    NotThisBlock {
        /// The expected `ID`.
        expected: u32,
        /// What it reads.
        found: u32,
    },
    /// The block has more of something than the firmware's tables hold (a const parameter).
    Capacity {
        /// What.
        what: &'static str,
        /// The block's number (`CAPS`).
        block: u32,
        /// The firmware's.
        firmware: u32,
    },
    /// A status bit did not reach its value in `polls` reads of `addr` (`last` is the last
    /// value read).
    Timeout {
        /// The register polled.
        addr: u32,
        /// Reads made.
        polls: u32,
        /// The last value read.
        last: u32,
    },
    /// The block refused a command the firmware had checked (`STATUS.CMD_ERROR`): its state is
    /// not what the firmware believed. The `COMMAND` word is given.
    Refused {
        /// The `COMMAND` word.
        command: u32,
    },

    // WQE engine.
    /// The change needs the engine stopped (`CONTROL.ENABLE` clear): the completion ring, the
    /// NIC's addresses and the entropy profile.
    Enabled,
    /// A ring of 2^`log2` entries: at most 2^16.
    RingSize(u32),
    /// An address that is not a multiple of `align`.
    Misaligned {
        /// The address.
        addr: u64,
        /// Its required alignment in bytes.
        align: u64,
    },
    /// A ring that would run past the end of the 64-bit address space.
    RingPastEnd {
        /// First byte.
        base: u64,
        /// Bytes.
        bytes: u64,
    },
    /// The QP's configuration is out of range (the model's check: QPN, destination QPN,
    /// address vector).
    Qp(ConfigError),
    /// A QP with this QPN exists.
    DuplicateQpn(u32),
    /// The QP's slot (its QPN's low bits, `model::rx::qp_slot`) holds another QP.
    QpSlotTaken {
        /// The QPN to create.
        qpn: u32,
        /// Its slot.
        slot: usize,
        /// The QPN there.
        holder: u32,
    },
    /// No QP has this QPN.
    NoSuchQp(u32),
    /// The state transition is not one verbs allows; the QP keeps its state.
    Transition(IllegalTransition),
    /// The engine fixes an RC QP's entropy at RTR in QP mode, from its QPNs and the flow label
    /// staged with it; under this profile no staged flow label gives the connection manager's
    /// entropy (rfc-v1 derives the CM port from the CM's ports).
    EntropyNotRepresentable {
        /// The profile.
        profile: Profile,
    },
    /// Connection-manager entropy asked for a UD QP, whose entropy is computed per work request.
    CmNeedsRc,
    /// A doorbell for a QP that does not send: verbs refuses posting in RESET, INIT and RTR.
    NotPostable {
        /// The QP.
        qpn: u32,
        /// Its state.
        state: QpState,
    },
    /// The engine was built without the reliable transport (`CAPS2.RELIABLE` reads 0).
    NoReliable,
    /// Transport settings `RC_TIMING` and `RC_CLOCK` cannot hold (timeout above 31, a retry
    /// count above 7, a window of 0 or above 255, a scale of 0 or above 65,535), or a tick of 0
    /// cycles.
    ReliableSettings(Reliable, u16),
    /// A doorbell more than the ring ahead of what was posted, which the engine would ignore.
    Doorbell(DoorbellError),
    /// A memory region of length 0, or past 2^64.
    MrRange {
        /// First byte.
        base: u64,
        /// Length.
        length: u64,
    },
    /// The region's table slot (`mr_slot` of its lkey) holds another region.
    MrSlotTaken {
        /// The lkey to register.
        lkey: u32,
        /// Its slot.
        slot: u32,
        /// The lkey registered there.
        holder: u32,
    },
    /// No region has this lkey.
    NoSuchMr(u32),

    // Receive path.
    /// A work-queue or receive-context request the model's receive engine refuses
    /// (`RecvEngine`'s rules, checked against the firmware's tables).
    Rx(RxError),
    /// RC responder settings `CONTROL` cannot hold: `ACK_EVERY` above 255 or `RNR_TIMER`
    /// above 31.
    ResponderSettings {
        /// The acknowledgement interval asked for.
        ack_every: u32,
        /// The RNR timer code asked for.
        rnr_timer: u8,
    },
    /// The receive path was built without the RC responder (`CONTROL.RESPONDER` reads 0).
    NoResponder,
    /// The receive path was built without handing Acknowledge frames to requesters
    /// (`CONTROL.REQUESTER` reads 0).
    NoRequester,

    // RSS pipeline.
    /// A steering rule index past `CAPS.RULES`.
    RuleIndex {
        /// The index.
        index: usize,
        /// Rules the block has.
        rules: usize,
    },
    /// An RSS context index past the contexts in use.
    ContextIndex {
        /// The index.
        index: usize,
        /// Contexts in use.
        contexts: usize,
    },
    /// A queue number wider than `CAPS.QUEUE_W` bits.
    QueueTooWide {
        /// The queue.
        queue: u16,
        /// The width.
        width: u32,
    },
    /// A rule's BTH QPN value or mask wider than 24 bits.
    QpnTooWide(u32),
    /// Hash-field bits that name no field (the fields are bits 0..=7 and 12).
    HashFields(u32),
    /// A Toeplitz key shorter than the longest input its hash fields select, plus 4, or longer
    /// than the hardware's 52 bytes.
    KeyLength {
        /// The key's length.
        len: usize,
        /// The shortest key for these fields.
        min: usize,
        /// The longest.
        max: usize,
    },
    /// An indirection table whose length is not a power of two (or is 0).
    TableSize(usize),
    /// An indirection table longer than the block's (`CAPS.TABLE_LOG2`).
    TableTooLarge {
        /// Its length.
        len: usize,
        /// The block's largest.
        max: usize,
    },
}

impl From<BusError> for Error {
    fn from(e: BusError) -> Self {
        Error::Bus(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Bus(e) => write!(f, "{e}"),
            Error::NotThisBlock { expected, found } => {
                write!(
                    f,
                    "ID register reads {found:#010x}, expected {expected:#010x}"
                )
            }
            Error::Capacity {
                what,
                block,
                firmware,
            } => write!(
                f,
                "the block has {block} {what}; the firmware holds {firmware}"
            ),
            Error::Timeout { addr, polls, last } => write!(
                f,
                "register {addr:#05x} still {last:#x} after {polls} reads"
            ),
            Error::Refused { command } => write!(f, "command {command:#x} refused by the block"),
            Error::Enabled => f.write_str("the engine must be disabled first"),
            Error::RingSize(log2) => write!(f, "a ring of 2^{log2} entries: at most 2^16"),
            Error::Misaligned { addr, align } => {
                write!(f, "address {addr:#x} is not {align}-byte aligned")
            }
            Error::RingPastEnd { base, bytes } => {
                write!(f, "a ring of {bytes} bytes at {base:#x} runs past 2^64")
            }
            Error::Qp(e) => write!(f, "QP configuration: {e:?}"),
            Error::DuplicateQpn(q) => write!(f, "QP {q:#x} exists"),
            Error::QpSlotTaken { qpn, slot, holder } => write!(
                f,
                "QP {qpn:#x} takes slot {slot}, which holds QP {holder:#x}"
            ),
            Error::NoSuchQp(q) => write!(f, "no QP {q:#x}"),
            Error::Transition(t) => write!(f, "{t}"),
            Error::EntropyNotRepresentable { profile } => write!(
                f,
                "under profile {profile} the engine cannot give an RC QP the CM's entropy"
            ),
            Error::CmNeedsRc => f.write_str("CM entropy is for RC QPs"),
            Error::NotPostable { qpn, state } => {
                write!(f, "QP {qpn:#x} is in {state}: nothing may be posted")
            }
            Error::Doorbell(e) => write!(f, "{e}"),
            Error::MrRange { base, length } => {
                write!(
                    f,
                    "region of {length} bytes at {base:#x}: empty or past 2^64"
                )
            }
            Error::MrSlotTaken { lkey, slot, holder } => write!(
                f,
                "lkey {lkey:#x} takes slot {slot}, which holds lkey {holder:#x}"
            ),
            Error::NoSuchMr(l) => write!(f, "no region with lkey {l:#x}"),
            Error::Rx(e) => write!(f, "{e}"),
            Error::ResponderSettings {
                ack_every,
                rnr_timer,
            } => write!(
                f,
                "responder settings ack_every {ack_every} (at most 255), rnr_timer {rnr_timer} \
                 (at most 31)"
            ),
            Error::NoResponder => f.write_str("the receive path has no RC responder"),
            Error::NoRequester => {
                f.write_str("the receive path does not hand Acknowledge frames to requesters")
            }
            Error::NoReliable => f.write_str("the WQE engine has no reliable transport"),
            Error::ReliableSettings(r, tick) => write!(
                f,
                "transport settings timeout {} (at most 31), retry_cnt {} and rnr_retry {} (at \
                 most 7), max_inflight {} (1 to 255), scale {} (1 to 65535), tick {tick} cycles \
                 (at least 1)",
                r.timeout, r.retry_cnt, r.rnr_retry, r.max_inflight, r.scale.0
            ),
            Error::RuleIndex { index, rules } => {
                write!(f, "rule {index}: the block has {rules}")
            }
            Error::ContextIndex { index, contexts } => {
                write!(f, "RSS context {index}: {contexts} in use")
            }
            Error::QueueTooWide { queue, width } => {
                write!(f, "queue {queue} does not fit {width} bits")
            }
            Error::QpnTooWide(q) => write!(f, "QPN {q:#x} is wider than 24 bits"),
            Error::HashFields(bits) => write!(f, "hash fields {bits:#x} name no field"),
            Error::KeyLength { len, min, max } => {
                write!(f, "a key of {len} bytes; these fields need {min} to {max}")
            }
            Error::TableSize(n) => {
                write!(f, "an indirection table of {n} entries: not a power of two")
            }
            Error::TableTooLarge { len, max } => {
                write!(
                    f,
                    "an indirection table of {len} entries; the block holds {max}"
                )
            }
        }
    }
}

impl core::error::Error for Error {}
