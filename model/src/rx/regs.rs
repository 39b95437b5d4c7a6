//! The receive path's AXI4-Lite register map: the one definition the RTL, the test benches, the
//! firmware and the host driver share (docs/rx-registers.md).
//!
//! [`MAP`] is the source; `cargo xtask gen` renders the SystemVerilog package and the Markdown
//! page from it. The encoders turn model configuration into register writes.
//!
//! Programming is staged, as on the WQE engine: software writes a work queue or a QP's receive
//! context into the staging registers, then writes `COMMAND`, which the receive path carries out
//! between two frames. `STATUS.BUSY` is set until it is done and `STATUS.CMD_ERROR` says whether
//! the last command was refused (the [`super::RxError`] cases), in which case nothing changed.
//! Multi-word numbers are two words, the low word first.
//!
//! The QP's state is not here: the receive path reads the send side's (the WQE engine's QP slot
//! of the same number, [`super::qp_slot`]) and moves it to ERR there when a receive fails.

use super::{Target, WqConfig, WqState};
use crate::qp::{Psn, QpConfig, QpKind};
use crate::rc::Reliable;
use crate::regmap::{field, reg};
pub use crate::regmap::{Access, Field, Register};

/// Value of `ID`: "RXQ1".
pub const ID_VALUE: u32 = 0x5258_5131;

/// `CAPS` fields.
pub mod caps {
    use super::{field, Field};
    /// Work queues.
    pub const WQS: Field = field("WQS", 0, 8, "work queues (0 means 256)");
    /// QP receive contexts.
    pub const QPS: Field = field("QPS", 8, 8, "QP receive-context slots (0 means 256)");
    /// Scatter entries.
    pub const MAX_SGE: Field = field("MAX_SGE", 16, 8, "scatter entries a receive WQE may have");
    /// Data path.
    pub const DATA_BYTES: Field = field("DATA_BYTES", 24, 8, "bytes per beat of the frame input");
}

/// `CONTROL` fields.
pub mod control {
    use super::{field, Field};
    /// Take frames.
    pub const ENABLE: Field = field(
        "ENABLE",
        0,
        1,
        "take frames (while clear they wait at the input; none is dropped)",
    );
    /// The reliable transport's responder on RC request packets (docs/rc.md).
    pub const RESPONDER: Field = field(
        "RESPONDER",
        1,
        1,
        "RC: the reliable transport's responder judges each request packet's PSN and answers \
         it (0 in a build without the responder)",
    );
    /// Acknowledge frames to the send side's requester.
    pub const REQUESTER: Field = field(
        "REQUESTER",
        2,
        1,
        "RC: a well-formed Acknowledge frame (model::rc::parse_ack) leaves for the send side's \
         requester and is counted in ACKS instead of discarded as unsupported (0 in a build \
         without it)",
    );
    /// The responder's ACK coalescing.
    pub const ACK_EVERY: Field = field(
        "ACK_EVERY",
        8,
        8,
        "RC: acknowledge at least every this many executed packets (0 as 1)",
    );
    /// The RNR NAK's timer code.
    pub const RNR_TIMER: Field = field(
        "RNR_TIMER",
        16,
        5,
        "RC: the timer code RNR NAKs carry (verbs min_rnr_timer)",
    );
    /// The bits `CONTROL` keeps (the rest read as 0).
    pub const MASK: u32 = ENABLE.put(u32::MAX)
        | RESPONDER.put(u32::MAX)
        | REQUESTER.put(u32::MAX)
        | ACK_EVERY.put(u32::MAX)
        | RNR_TIMER.put(u32::MAX);
}

/// `STATUS` fields.
pub mod status {
    use super::{field, Field};
    /// A command is being carried out.
    pub const BUSY: Field = field("BUSY", 0, 1, "a command is being carried out");
    /// The last command was refused.
    pub const CMD_ERROR: Field = field(
        "CMD_ERROR",
        1,
        1,
        "the last command was refused and changed nothing",
    );
    /// A doorbell was too far ahead (sticky until a write of 1).
    pub const DB_ERROR: Field = field(
        "DB_ERROR",
        2,
        1,
        "a receive or completion doorbell was out of range and was ignored (sticky)",
    );
    /// A completion write faulted (sticky).
    pub const CQ_FAULT: Field = field(
        "CQ_FAULT",
        3,
        1,
        "a completion write faulted; its queue went to ERR (sticky)",
    );
    /// Nothing in flight and, while enabled, nothing to flush (docs/rx.md, "Idle").
    pub const IDLE: Field = field(
        "IDLE",
        4,
        1,
        "no command pending and no frame in flight; while enabled also nothing left to flush: \
         the last flush step found nothing, and nothing changed since it began",
    );
}

/// `COMMAND` fields.
pub mod command {
    use super::{field, Field};
    /// What to do.
    pub const OP: Field = field(
        "OP",
        0,
        4,
        "1 WQ_WRITE (staged queue into WQ, state RESET), 2 WQ_MODIFY (WQ to STATE), 3 WQ_DESTROY, 4 QP_ATTACH (staged receive context into the slot of QP_QPN), 5 QP_DETACH (the QP of QP_QPN)",
    );
    /// Work queue.
    pub const WQ: Field = field("WQ", 8, 8, "the work queue (WQ commands)");
    /// Target state.
    pub const STATE: Field = field(
        "STATE",
        16,
        2,
        "WQ_MODIFY: the state (verbs codes: 0 RESET, 1 RDY, 2 ERR)",
    );
}

/// `COMMAND.OP` values.
pub mod op {
    /// Write the staged work queue (it starts in RESET with empty rings).
    pub const WQ_WRITE: u32 = 1;
    /// Modify a work queue's state.
    pub const WQ_MODIFY: u32 = 2;
    /// Free a work queue (refused while a QP names it).
    pub const WQ_DESTROY: u32 = 3;
    /// Give the QP of the staged `QP_QPN` its receive side.
    pub const QP_ATTACH: u32 = 4;
    /// Remove the receive side of the staged `QP_QPN`.
    pub const QP_DETACH: u32 = 5;
}

/// `WQ_FLAGS` fields.
pub mod wq_flags {
    use super::{field, Field};
    /// Ring size.
    pub const RING_LOG2: Field = field("RING_LOG2", 0, 5, "receive ring: 2^RING_LOG2 WQEs (0..16)");
    /// Slot stride.
    pub const STRIDE_LOG2: Field = field(
        "STRIDE_LOG2",
        8,
        3,
        "receive ring slot: 2^STRIDE_LOG2 blocks of 64 bytes (0..4)",
    );
    /// Completion ring size.
    pub const CQ_LOG2: Field = field(
        "CQ_LOG2",
        16,
        5,
        "completion ring: 2^CQ_LOG2 entries (0..16)",
    );
    /// Raw frames.
    pub const RAW: Field = field(
        "RAW",
        24,
        1,
        "frames that are not RoCEv2 may land here whole",
    );
}

/// `QP_TARGET` fields.
pub mod qp_target {
    use super::{field, Field};
    /// Target kind.
    pub const KIND: Field = field(
        "KIND",
        0,
        2,
        "0 its own queue, 1 a shared queue, 2 RSS (the queue the RSS pipeline chose)",
    );
    /// Work queue.
    pub const WQ: Field = field("WQ", 8, 8, "the queue (kinds 0 and 1)");
}

/// `QP_FLAGS` fields.
pub mod qp_flags {
    use super::{field, Field};
    /// Transport.
    pub const UD: Field = field("UD", 0, 1, "0 RC, 1 UD");
    /// Path MTU.
    pub const MTU: Field = field("MTU", 8, 3, "path MTU code: 1..5 for 256..4096 bytes");
}

/// `QP_TARGET.KIND` values.
pub mod target_kind {
    /// [`super::Target::Own`].
    pub const OWN: u32 = 0;
    /// [`super::Target::Shared`].
    pub const SHARED: u32 = 1;
    /// [`super::Target::Rss`].
    pub const RSS: u32 = 2;
}

/// Every register, in address order.
pub const MAP: &[Register] = &[
    reg(
        0x000,
        "ID",
        1,
        Access::Ro,
        "identifies the block: 0x52585131 (\"RXQ1\")",
        &[],
    ),
    reg(
        0x004,
        "CAPS",
        1,
        Access::Ro,
        "the parameters the block was built with",
        &[caps::WQS, caps::QPS, caps::MAX_SGE, caps::DATA_BYTES],
    ),
    reg(
        0x008,
        "CONTROL",
        1,
        Access::Rw,
        "enable; the RC responder's settings; the requester's input",
        &[
            control::ENABLE,
            control::RESPONDER,
            control::REQUESTER,
            control::ACK_EVERY,
            control::RNR_TIMER,
        ],
    ),
    reg(
        0x00C,
        "STATUS",
        1,
        Access::Rw,
        "state; write 1 to a sticky bit to clear it",
        &[
            status::BUSY,
            status::CMD_ERROR,
            status::DB_ERROR,
            status::CQ_FAULT,
            status::IDLE,
        ],
    ),
    reg(
        0x010,
        "COMMAND",
        1,
        Access::Wo,
        "carries out a work-queue or QP command with the staged registers",
        &[command::OP, command::WQ, command::STATE],
    ),
    reg(
        0x014,
        "ACCEPTED",
        1,
        Access::Ro,
        "frames taken since reset (wraps)",
        &[],
    ),
    reg(
        0x018,
        "ACKS",
        1,
        Access::Ro,
        "Acknowledge frames handed to the send side's requester since reset (wraps; 0 in a build \
         without it)",
        &[],
    ),
    reg(
        0x040,
        "DISCARDS",
        16,
        Access::Ro,
        "frames discarded since reset (wraps), word i for reason i (model::rx::Discard)",
        &[],
    ),
    reg(
        0x100,
        "WQ_QPN",
        1,
        Access::Rw,
        "staged queue: the QP its completions name (bits 23:0)",
        &[],
    ),
    reg(
        0x104,
        "WQ_PD",
        1,
        Access::Rw,
        "staged queue: protection domain of its scatter entries",
        &[],
    ),
    reg(
        0x108,
        "WQ_FLAGS",
        1,
        Access::Rw,
        "staged queue: ring and completion-ring shape, raw frames",
        &[
            wq_flags::RING_LOG2,
            wq_flags::STRIDE_LOG2,
            wq_flags::CQ_LOG2,
            wq_flags::RAW,
        ],
    ),
    reg(
        0x110,
        "WQ_RING_BASE",
        2,
        Access::Rw,
        "staged queue: receive ring address (64-byte aligned), low word first",
        &[],
    ),
    reg(
        0x118,
        "WQ_CQ_BASE",
        2,
        Access::Rw,
        "staged queue: completion ring address (32-byte aligned), low word first",
        &[],
    ),
    reg(
        0x180,
        "QP_QPN",
        1,
        Access::Rw,
        "staged receive context: the QP (bits 23:0; its low bits pick the slot)",
        &[],
    ),
    reg(
        0x184,
        "QP_TARGET",
        1,
        Access::Rw,
        "staged receive context: where its messages land",
        &[qp_target::KIND, qp_target::WQ],
    ),
    reg(
        0x188,
        "QP_EPSN",
        1,
        Access::Rw,
        "staged receive context: RC, the first PSN expected (bits 23:0)",
        &[],
    ),
    reg(
        0x18C,
        "QP_FLAGS",
        1,
        Access::Rw,
        "staged receive context: transport and path MTU (as the QP's)",
        &[qp_flags::UD, qp_flags::MTU],
    ),
    reg(
        0x190,
        "QP_PD",
        1,
        Access::Rw,
        "staged receive context: the QP's protection domain (RDMA WRITE keys)",
        &[],
    ),
    reg(
        0x194,
        "QP_QKEY",
        1,
        Access::Rw,
        "staged receive context: UD Q_Key",
        &[],
    ),
    reg(
        0x1000,
        "RQ_DOORBELL",
        256,
        Access::Wo,
        "receive doorbells: word i is work queue i's producer index",
        &[],
    ),
    reg(
        0x1400,
        "CQ_CONSUMER",
        256,
        Access::Wo,
        "completion doorbells: word i is work queue i's completion consumer index",
        &[],
    ),
    reg(
        0x1800,
        "CQ_PRODUCER",
        256,
        Access::Ro,
        "word i: the next completion index work queue i writes",
        &[],
    ),
];

/// The offset of register `name`.
pub const fn offset(name: &str) -> Option<u32> {
    crate::regmap::offset(MAP, name)
}

const fn at(name: &str) -> u32 {
    crate::regmap::const_offset(MAP, name)
}

/// `ID`.
pub const ID: u32 = at("ID");
/// `CAPS`.
pub const CAPS: u32 = at("CAPS");
/// `CONTROL`.
pub const CONTROL: u32 = at("CONTROL");
/// `STATUS`.
pub const STATUS: u32 = at("STATUS");
/// `COMMAND`.
pub const COMMAND: u32 = at("COMMAND");
/// `ACCEPTED`.
pub const ACCEPTED: u32 = at("ACCEPTED");
/// `ACKS`.
pub const ACKS: u32 = at("ACKS");
/// `DISCARDS`.
pub const DISCARDS: u32 = at("DISCARDS");
/// `WQ_QPN`.
pub const WQ_QPN: u32 = at("WQ_QPN");
/// `WQ_PD`.
pub const WQ_PD: u32 = at("WQ_PD");
/// `WQ_FLAGS`.
pub const WQ_FLAGS: u32 = at("WQ_FLAGS");
/// `WQ_RING_BASE`.
pub const WQ_RING_BASE: u32 = at("WQ_RING_BASE");
/// `WQ_CQ_BASE`.
pub const WQ_CQ_BASE: u32 = at("WQ_CQ_BASE");
/// `QP_QPN`.
pub const QP_QPN: u32 = at("QP_QPN");
/// `QP_TARGET`.
pub const QP_TARGET: u32 = at("QP_TARGET");
/// `QP_EPSN`.
pub const QP_EPSN: u32 = at("QP_EPSN");
/// `QP_FLAGS`.
pub const QP_FLAGS: u32 = at("QP_FLAGS");
/// `QP_PD`.
pub const QP_PD: u32 = at("QP_PD");
/// `QP_QKEY`.
pub const QP_QKEY: u32 = at("QP_QKEY");
/// `RQ_DOORBELL`.
pub const RQ_DOORBELL: u32 = at("RQ_DOORBELL");
/// `CQ_CONSUMER`.
pub const CQ_CONSUMER: u32 = at("CQ_CONSUMER");
/// `CQ_PRODUCER`.
pub const CQ_PRODUCER: u32 = at("CQ_PRODUCER");

/// A register write: (offset, value).
pub type Write32 = (u32, u32);

fn lo_hi(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// The staging writes of work queue `config` (then [`wq_write`]).
pub fn wq_writes(config: &WqConfig) -> [Write32; 7] {
    let flags = wq_flags::RING_LOG2.put(config.ring.ring().log2())
        | wq_flags::STRIDE_LOG2.put(config.ring.stride_blocks().trailing_zeros())
        | wq_flags::CQ_LOG2.put(config.cq.ring().log2())
        | wq_flags::RAW.put(config.raw.into());
    let ring = lo_hi(config.ring.addr(0));
    let cq = lo_hi(config.cq_base);
    [
        (WQ_QPN, config.qpn),
        (WQ_PD, config.pd),
        (WQ_FLAGS, flags),
        (WQ_RING_BASE, ring[0]),
        (WQ_RING_BASE + 4, ring[1]),
        (WQ_CQ_BASE, cq[0]),
        (WQ_CQ_BASE + 4, cq[1]),
    ]
}

/// `COMMAND`: write the staged queue into work queue `wq`.
pub fn wq_write(wq: u16) -> Write32 {
    (
        COMMAND,
        command::OP.put(op::WQ_WRITE) | command::WQ.put(wq.into()),
    )
}

/// `COMMAND`: move work queue `wq` to `state`.
pub fn wq_modify(wq: u16, state: WqState) -> Write32 {
    (
        COMMAND,
        command::OP.put(op::WQ_MODIFY)
            | command::WQ.put(wq.into())
            | command::STATE.put(state as u32),
    )
}

/// `COMMAND`: free work queue `wq`.
pub fn wq_destroy(wq: u16) -> Write32 {
    (
        COMMAND,
        command::OP.put(op::WQ_DESTROY) | command::WQ.put(wq.into()),
    )
}

/// The staging writes of QP `qpn`'s receive context (then [`qp_attach`]).
pub fn qp_writes(qpn: u32, config: &QpConfig, target: Target, epsn: Psn) -> [Write32; 6] {
    let (kind, wq) = match target {
        Target::Own(w) => (target_kind::OWN, w),
        Target::Shared(w) => (target_kind::SHARED, w),
        Target::Rss => (target_kind::RSS, 0),
    };
    [
        (QP_QPN, qpn),
        (
            QP_TARGET,
            qp_target::KIND.put(kind) | qp_target::WQ.put(wq.into()),
        ),
        (QP_EPSN, epsn.get()),
        (
            QP_FLAGS,
            qp_flags::UD.put((config.qp_type == QpKind::Ud).into())
                | qp_flags::MTU.put(config.mtu.code().into()),
        ),
        (QP_PD, config.pd),
        (QP_QKEY, config.q_key),
    ]
}

/// `CONTROL`: `enable`, and with `reliable` the responder on with its `ack_every` and
/// `rnr_timer`. `None` when `ack_every` is past 255 or `rnr_timer` past 31, which the fields
/// cannot hold.
pub fn control(enable: bool, reliable: Option<&Reliable>) -> Option<Write32> {
    control_rc(enable, reliable, false)
}

/// [`control`], and with `requester` Acknowledge frames handed to the send side's requester
/// (`CONTROL.REQUESTER`).
pub fn control_rc(enable: bool, reliable: Option<&Reliable>, requester: bool) -> Option<Write32> {
    let mut v = control::ENABLE.put(enable.into()) | control::REQUESTER.put(requester.into());
    if let Some(r) = reliable {
        if r.ack_every > control::ACK_EVERY.max_value()
            || u32::from(r.rnr_timer) > control::RNR_TIMER.max_value()
        {
            return None;
        }
        v |= control::RESPONDER.put(1)
            | control::ACK_EVERY.put(r.ack_every)
            | control::RNR_TIMER.put(r.rnr_timer.into());
    }
    Some((CONTROL, v))
}

/// `COMMAND`: attach the staged receive context.
pub fn qp_attach() -> Write32 {
    (COMMAND, command::OP.put(op::QP_ATTACH))
}

/// `COMMAND`: detach the QP of the staged `QP_QPN` (write it first).
pub fn qp_detach() -> Write32 {
    (COMMAND, command::OP.put(op::QP_DETACH))
}

/// A receive doorbell: work queue `wq`'s producer index.
pub fn doorbell(wq: u16, producer: u32) -> Write32 {
    (RQ_DOORBELL + 4 * u32::from(wq), producer)
}

/// A completion doorbell: work queue `wq`'s consumer index.
pub fn cq_consumer(wq: u16, consumer: u32) -> Write32 {
    (CQ_CONSUMER + 4 * u32::from(wq), consumer)
}

/// The `DISCARDS` word of `why`.
pub const fn discards(why: super::Discard) -> u32 {
    DISCARDS + 4 * why as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::PathMtu;
    use crate::rx::{Discard, RecvRing};
    use crate::wqe::{CompletionRing, Ring};

    #[test]
    fn map_is_well_formed() {
        crate::regmap::check_map(MAP);
        assert_eq!(
            DISCARDS + 4 * Discard::ALL.len() as u32,
            MAP.iter()
                .find(|r| r.name == "DISCARDS")
                .map_or(0, |r| { r.offset + 4 * r.words }),
            "one DISCARDS word per reason"
        );
    }

    #[test]
    fn encoders() {
        let config = WqConfig {
            qpn: 0x12_3456,
            pd: 3,
            ring: RecvRing::new(Ring::new(6).unwrap(), 2, 0x1_0000_0040).unwrap(),
            cq: CompletionRing::new(Ring::new(9).unwrap(), 0).unwrap(),
            cq_base: 0x2_0000_0020,
            raw: true,
        };
        let w = wq_writes(&config);
        assert_eq!(w[0], (0x100, 0x12_3456));
        assert_eq!(w[2], (0x108, 6 | (2 << 8) | (9 << 16) | (1 << 24)));
        assert_eq!((w[3], w[4]), ((0x110, 0x40), (0x114, 1)));
        assert_eq!((w[5], w[6]), ((0x118, 0x20), (0x11C, 2)));
        assert_eq!(wq_write(7), (0x10, 1 | (7 << 8)));
        assert_eq!(wq_modify(7, WqState::Err), (0x10, 2 | (7 << 8) | (2 << 16)));
        assert_eq!(wq_destroy(1), (0x10, 3 | (1 << 8)));
        let qp = QpConfig {
            qp_type: QpKind::Ud,
            pd: 9,
            mtu: PathMtu::Mtu1024,
            psn: Psn::new(0).unwrap(),
            dest_qpn: 0,
            q_key: 0x5151,
            av: None,
        };
        let q = qp_writes(0x21, &qp, Target::Shared(4), Psn::new(0xAB_CDEF).unwrap());
        assert_eq!(
            q,
            [
                (0x180, 0x21),
                (0x184, 1 | (4 << 8)),
                (0x188, 0xAB_CDEF),
                (0x18C, 1 | (3 << 8)),
                (0x190, 9),
                (0x194, 0x5151),
            ]
        );
        assert_eq!(
            qp_writes(0x21, &qp, Target::Rss, Psn::new(0).unwrap())[1],
            (0x184, 2)
        );
        assert_eq!((qp_attach(), qp_detach()), ((0x10, 4), (0x10, 5)));
        assert_eq!(doorbell(3, 17), (0x100C, 17));
        assert_eq!(cq_consumer(3, 17), (0x140C, 17));
        assert_eq!(discards(Discard::Fault), 0x40 + 4 * 15);
    }

    #[test]
    fn control_word() {
        assert_eq!(control(true, None), Some((0x8, 1)));
        let mut r = Reliable {
            ack_every: 4,
            rnr_timer: 12,
            ..Reliable::default()
        };
        assert_eq!(
            control(false, Some(&r)),
            Some((0x8, 2 | (4 << 8) | (12 << 16)))
        );
        assert_eq!(control::MASK, 0x001F_FF07);
        assert_eq!(control_rc(true, None, true), Some((0x8, 1 | 4)));
        assert_eq!(
            control_rc(true, Some(&r), true),
            Some((0x8, 1 | 2 | 4 | (4 << 8) | (12 << 16)))
        );
        r.ack_every = 256;
        assert_eq!(control(true, Some(&r)), None, "ACK_EVERY holds 8 bits");
        r.ack_every = 255;
        r.rnr_timer = 32;
        assert_eq!(control(true, Some(&r)), None, "RNR_TIMER holds 5 bits");
    }
}
