//! The WQE engine's AXI4-Lite register map: the one definition that the RTL, the test benches,
//! the firmware and the host driver share (docs/wqe-registers.md).
//!
//! [`MAP`] is the source; `cargo xtask gen` renders the SystemVerilog package and the Markdown
//! page from it. The encoders turn model configuration into register writes.
//!
//! Programming is staged, as on the RSS block: software writes a QP context or a memory region
//! into the staging registers, then writes `COMMAND`, which the engine carries out between two
//! WQEs. `STATUS.BUSY` is set until it is done (AXI4-Lite writes wait meanwhile) and
//! `STATUS.CMD_ERROR` says whether the last command was refused (an illegal state transition,
//! an lkey whose slot holds another region, a slot out of range), in which case nothing changed.
//!
//! Multi-word values: addresses, MACs and IPs are byte strings, word i holding bytes 4i..4i+3
//! with byte 4i in bits 31:24 (network order, as the RSS map); 64-bit numbers are two words,
//! the low word first.

use crate::entropy::Profile;
use crate::qp::{IpPair, MemoryRegion, QpConfig, QpKind, QpState};
use crate::regmap::{field, reg};
pub use crate::regmap::{Access, Field, Register};

use super::{Nic, SendRing};

/// Value of `ID`: "WQE1".
pub const ID_VALUE: u32 = 0x5751_4531;
/// The bit of an lkey where its memory-region slot starts: slot = lkey >> 8 mod the table size
/// (an mlx5-style key: table index above a key byte). Two regions whose lkeys share the slot
/// bits cannot be registered together.
pub const MR_SLOT_LSB: u32 = 8;

/// The memory-region table slot of `lkey` in a table of `entries` (a power of two):
/// [`qp::mr_slot`](crate::qp::mr_slot) at [`MR_SLOT_LSB`].
pub const fn mr_slot(lkey: u32, entries: u32) -> u32 {
    crate::qp::mr_slot(lkey, entries, MR_SLOT_LSB)
}

/// `CAPS` fields.
pub mod caps {
    use super::{field, Field};
    /// QP contexts.
    pub const QPS: Field = field("QPS", 0, 8, "QP context slots (send queues)");
    /// Memory regions.
    pub const MRS: Field = field("MRS", 8, 8, "memory-region table entries");
    /// Data segments.
    pub const MAX_SGE: Field = field("MAX_SGE", 16, 8, "data segments a WQE may have");
    /// Data path (8 or 64: six bits, 64 reading as 0).
    pub const DATA_BYTES: Field = field(
        "DATA_BYTES",
        24,
        6,
        "bytes per beat of the frame output (8, or 0 for 64)",
    );
    /// TSO.
    pub const TSO: Field = field(
        "TSO",
        30,
        1,
        "1: TSO work requests (opcode 10 on UD QPs) at the segmenter's limits: 128-byte templates, 256 KiB payloads, MSS up to 9,000",
    );
    /// Raw-packet QPs.
    pub const RAW: Field = field(
        "RAW",
        31,
        1,
        "1: the engine runs raw-packet QPs (QP_FLAGS.RAW with MTU 0 is a QP_WRITE it takes)",
    );
}

/// `CONTROL` fields.
pub mod control {
    use super::{field, Field};
    /// Serve the send queues.
    pub const ENABLE: Field = field(
        "ENABLE",
        0,
        1,
        "serve the send queues (clear it to change CQ_BASE or CQ_LOG2)",
    );
    /// Entropy profile.
    pub const PROFILE: Field = field(
        "PROFILE",
        4,
        2,
        "entropy profile: 0 linux, 1 rfc-v2, 2 rfc-v1, 3 rxe",
    );
    /// The reliable transport.
    pub const RELIABLE: Field = field(
        "RELIABLE",
        8,
        1,
        "the reliable transport on RC QPs (CAPS2.RELIABLE; set it before any QP_WRITE)",
    );
}

/// `CAPS2` fields.
pub mod caps2 {
    use super::{field, Field};
    /// The reliable transport is built in.
    pub const RELIABLE: Field = field(
        "RELIABLE",
        0,
        1,
        "1: the engine has the reliable transport (CONTROL.RELIABLE, RC_TIMING, RC_CLOCK)",
    );
}

/// `RC_TIMING` fields: the NIC's transport settings (`model::rc::Reliable`), taken by each RC
/// QP's requester at its QP_WRITE.
pub mod rc_timing {
    use super::{field, Field};
    /// Verbs `timeout`.
    pub const TIMEOUT: Field = field(
        "TIMEOUT",
        0,
        5,
        "verbs timeout: the local ACK timeout is RC_CLOCK.SCALE << TIMEOUT ticks, 0 none (reset 8)",
    );
    /// Verbs `retry_cnt`.
    pub const RETRY_CNT: Field = field("RETRY_CNT", 8, 3, "verbs retry_cnt (reset 7)");
    /// Verbs `rnr_retry`.
    pub const RNR_RETRY: Field = field("RNR_RETRY", 12, 3, "verbs rnr_retry, 7 forever (reset 7)");
    /// The window.
    pub const MAX_INFLIGHT: Field = field(
        "MAX_INFLIGHT",
        16,
        8,
        "packets a requester keeps unacknowledged, 1 or more (reset 16)",
    );
}

/// `RC_CLOCK` fields: the transport's clock.
pub mod rc_clock {
    use super::{field, Field};
    /// Ticks per 4.096 µs.
    pub const SCALE: Field = field(
        "SCALE",
        0,
        16,
        "ticks per 4.096 us (model::rc::Scale), 1 or more (reset 1)",
    );
    /// Cycles per tick.
    pub const TICK: Field = field(
        "TICK",
        16,
        16,
        "clock cycles per tick, 1 or more; each tick sweeps the RC QPs' timers (reset 512: 4.096 us at 125 MHz)",
    );
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
        "a doorbell was more than a ring ahead and was ignored (sticky)",
    );
    /// A completion write faulted (sticky).
    pub const CQ_FAULT: Field = field(
        "CQ_FAULT",
        3,
        1,
        "a completion write faulted; the engine stopped (sticky)",
    );
    /// Nothing in flight.
    pub const IDLE: Field = field("IDLE", 4, 1, "no WQE in flight and no command pending");
}

/// `COMMAND` fields.
pub mod command {
    use super::{field, Field};
    /// What to do.
    pub const OP: Field = field(
        "OP",
        0,
        4,
        "1 QP_WRITE (staged context into SLOT, state RESET), 2 QP_MODIFY (to STATE), 3 QP_DESTROY, 4 MR_WRITE (staged region), 5 MR_CLEAR (the staged MR_LKEY's region)",
    );
    /// QP slot.
    pub const SLOT: Field = field("SLOT", 8, 8, "the QP slot (QP commands)");
    /// Target state.
    pub const STATE: Field = field(
        "STATE",
        16,
        3,
        "QP_MODIFY: the state (verbs codes: 0 RESET, 1 INIT, 2 RTR, 3 RTS, 6 ERR)",
    );
}

/// `COMMAND.OP` values.
pub mod op {
    /// Write the staged QP context into a slot (the QP starts in RESET).
    pub const QP_WRITE: u32 = 1;
    /// Modify a QP's state (verbs transitions; RC entering RTR fixes its entropy).
    pub const QP_MODIFY: u32 = 2;
    /// Free a QP slot.
    pub const QP_DESTROY: u32 = 3;
    /// Register the staged memory region.
    pub const MR_WRITE: u32 = 4;
    /// Deregister the region of the staged `MR_LKEY`.
    pub const MR_CLEAR: u32 = 5;
}

/// `QP_FLAGS` fields.
pub mod qp_flags {
    use super::{field, Field};
    /// Transport.
    pub const UD: Field = field("UD", 0, 1, "0 RC, 1 UD");
    /// A raw-packet QP. It is written with `MTU` 0 (it has no path MTU), which an engine
    /// without raw QPs refuses as it refuses any MTU code outside 1..5, so such an engine
    /// never runs one as RC.
    pub const RAW: Field = field(
        "RAW",
        3,
        1,
        "1: a raw-packet QP (UD 0, MTU 0: it has no path MTU; an engine without raw QPs refuses its QP_WRITE for that MTU)",
    );
    /// Address family of the RC address vector.
    pub const IPV6: Field = field("IPV6", 1, 1, "RC: the address vector is IPv6 (else IPv4)");
    /// Insert an 802.1Q tag.
    pub const VLAN: Field = field("VLAN", 2, 1, "RC: insert an 802.1Q tag");
    /// Priority code point.
    pub const PCP: Field = field("PCP", 4, 3, "RC: the tag's PCP");
    /// Path MTU.
    pub const MTU: Field = field(
        "MTU",
        8,
        3,
        "path MTU code: 1..5 for 256..4096 bytes; 0 for a raw-packet QP",
    );
    /// Slot stride.
    pub const STRIDE_LOG2: Field = field(
        "STRIDE_LOG2",
        12,
        3,
        "send ring slot: 2^STRIDE_LOG2 blocks of 64 bytes (0..4)",
    );
    /// Ring size.
    pub const RING_LOG2: Field = field("RING_LOG2", 16, 5, "send ring: 2^RING_LOG2 WQEs (0..16)");
}

/// `QP_AV` fields.
pub mod qp_av {
    use super::{field, Field};
    /// VLAN ID.
    pub const VID: Field = field("VID", 0, 12, "RC: VLAN ID");
    /// Traffic class.
    pub const TCLASS: Field = field("TCLASS", 16, 8, "RC: traffic class (IPv4 TOS)");
    /// Hop limit.
    pub const HOP_LIMIT: Field = field("HOP_LIMIT", 24, 8, "RC: hop limit (IPv4 TTL)");
}

/// Every register, in address order.
pub const MAP: &[Register] = &[
    reg(
        0x000,
        "ID",
        1,
        Access::Ro,
        "identifies the block: 0x57514531 (\"WQE1\")",
        &[],
    ),
    reg(
        0x004,
        "CAPS",
        1,
        Access::Ro,
        "the parameters the block was built with",
        &[
            caps::QPS,
            caps::MRS,
            caps::MAX_SGE,
            caps::DATA_BYTES,
            caps::TSO,
            caps::RAW,
        ],
    ),
    reg(
        0x008,
        "CONTROL",
        1,
        Access::Rw,
        "enable, entropy profile and the reliable transport",
        &[control::ENABLE, control::PROFILE, control::RELIABLE],
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
        "carries out a QP or memory-region command with the staged registers",
        &[command::OP, command::SLOT, command::STATE],
    ),
    reg(
        0x018,
        "NIC_IPV4",
        1,
        Access::Rw,
        "the NIC's IPv4 address (UD source)",
        &[],
    ),
    reg(
        0x020,
        "NIC_MAC",
        2,
        Access::Rw,
        "the NIC's MAC (UD source); bytes 4 and 5 in word 1's bits 31:16",
        &[],
    ),
    reg(
        0x030,
        "NIC_IPV6",
        4,
        Access::Rw,
        "the NIC's IPv6 address (UD source)",
        &[],
    ),
    reg(
        0x040,
        "CQ_BASE",
        2,
        Access::Rw,
        "completion ring address (32-byte aligned), low word first",
        &[],
    ),
    reg(
        0x048,
        "CQ_LOG2",
        1,
        Access::Rw,
        "completion ring: 2^CQ_LOG2 entries (0..16); a write restarts its indices at 0",
        &[],
    ),
    reg(
        0x04C,
        "CQ_CONSUMER",
        1,
        Access::Rw,
        "completion doorbell: software's consumer index",
        &[],
    ),
    reg(
        0x050,
        "CQ_PRODUCER",
        1,
        Access::Ro,
        "the next completion index the engine writes",
        &[],
    ),
    reg(
        0x054,
        "WQES",
        1,
        Access::Ro,
        "WQEs completed since reset (wraps)",
        &[],
    ),
    reg(
        0x058,
        "FRAMES",
        1,
        Access::Ro,
        "frames sent since reset (wraps)",
        &[],
    ),
    reg(
        0x05C,
        "CAPS2",
        1,
        Access::Ro,
        "more of the parameters the block was built with",
        &[caps2::RELIABLE],
    ),
    reg(
        0x060,
        "RC_TIMING",
        1,
        Access::Rw,
        "the reliable transport's settings for every RC QP (taken at its QP_WRITE)",
        &[
            rc_timing::TIMEOUT,
            rc_timing::RETRY_CNT,
            rc_timing::RNR_RETRY,
            rc_timing::MAX_INFLIGHT,
        ],
    ),
    reg(
        0x064,
        "RC_CLOCK",
        1,
        Access::Rw,
        "the reliable transport's clock",
        &[rc_clock::SCALE, rc_clock::TICK],
    ),
    reg(
        0x100,
        "QP_QPN",
        1,
        Access::Rw,
        "staged QP: its number (bits 23:0)",
        &[],
    ),
    reg(
        0x104,
        "QP_FLAGS",
        1,
        Access::Rw,
        "staged QP: transport, address family, VLAN, MTU and send ring shape",
        &[
            qp_flags::UD,
            qp_flags::IPV6,
            qp_flags::VLAN,
            qp_flags::RAW,
            qp_flags::PCP,
            qp_flags::MTU,
            qp_flags::STRIDE_LOG2,
            qp_flags::RING_LOG2,
        ],
    ),
    reg(
        0x108,
        "QP_PD",
        1,
        Access::Rw,
        "staged QP: protection domain",
        &[],
    ),
    reg(
        0x10C,
        "QP_PSN",
        1,
        Access::Rw,
        "staged QP: first PSN (bits 23:0)",
        &[],
    ),
    reg(
        0x110,
        "QP_DEST_QPN",
        1,
        Access::Rw,
        "staged QP: RC destination QP (bits 23:0)",
        &[],
    ),
    reg(0x114, "QP_QKEY", 1, Access::Rw, "staged QP: UD Q_Key", &[]),
    reg(
        0x118,
        "QP_AV",
        1,
        Access::Rw,
        "staged QP: RC VLAN ID, traffic class and hop limit",
        &[qp_av::VID, qp_av::TCLASS, qp_av::HOP_LIMIT],
    ),
    reg(
        0x11C,
        "QP_FLOW_LABEL",
        1,
        Access::Rw,
        "staged QP: RC application flow label (bits 19:0; 0 = none)",
        &[],
    ),
    reg(
        0x120,
        "QP_DMAC",
        2,
        Access::Rw,
        "staged QP: RC destination MAC",
        &[],
    ),
    reg(
        0x128,
        "QP_SMAC",
        2,
        Access::Rw,
        "staged QP: RC source MAC",
        &[],
    ),
    reg(
        0x130,
        "QP_SRC_IP",
        4,
        Access::Rw,
        "staged QP: RC source address (IPv4 in word 3)",
        &[],
    ),
    reg(
        0x140,
        "QP_DST_IP",
        4,
        Access::Rw,
        "staged QP: RC destination address (IPv4 in word 3)",
        &[],
    ),
    reg(
        0x150,
        "QP_SQ_BASE",
        2,
        Access::Rw,
        "staged QP: send ring address (64-byte aligned), low word first",
        &[],
    ),
    reg(
        0x180,
        "MR_LKEY",
        1,
        Access::Rw,
        "staged region: lkey (its slot is bits 8 and up)",
        &[],
    ),
    reg(
        0x184,
        "MR_PD",
        1,
        Access::Rw,
        "staged region: protection domain",
        &[],
    ),
    reg(
        0x188,
        "MR_ACCESS",
        1,
        Access::Rw,
        "staged region: verbs access bits 3:0",
        &[],
    ),
    reg(
        0x190,
        "MR_BASE",
        2,
        Access::Rw,
        "staged region: first address, low word first",
        &[],
    ),
    reg(
        0x198,
        "MR_LENGTH",
        2,
        Access::Rw,
        "staged region: length in bytes, low word first",
        &[],
    ),
    reg(
        0x1000,
        "SQ_DOORBELL",
        256,
        Access::Wo,
        "send doorbells: word i is QP slot i's producer index",
        &[],
    ),
];

/// The offset of a register by name, `None` for a name not in [`MAP`].
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
/// `NIC_IPV4`.
pub const NIC_IPV4: u32 = at("NIC_IPV4");
/// `NIC_MAC` (2 words).
pub const NIC_MAC: u32 = at("NIC_MAC");
/// `NIC_IPV6` (4 words).
pub const NIC_IPV6: u32 = at("NIC_IPV6");
/// `CQ_BASE` (2 words).
pub const CQ_BASE: u32 = at("CQ_BASE");
/// `CQ_LOG2`.
pub const CQ_LOG2: u32 = at("CQ_LOG2");
/// `CQ_CONSUMER`.
pub const CQ_CONSUMER: u32 = at("CQ_CONSUMER");
/// `CQ_PRODUCER`.
pub const CQ_PRODUCER: u32 = at("CQ_PRODUCER");
/// `CAPS2`.
pub const CAPS2: u32 = at("CAPS2");
/// `RC_TIMING`.
pub const RC_TIMING: u32 = at("RC_TIMING");
/// `RC_CLOCK`.
pub const RC_CLOCK: u32 = at("RC_CLOCK");
/// `WQES`.
pub const WQES: u32 = at("WQES");
/// `FRAMES`.
pub const FRAMES: u32 = at("FRAMES");
/// `QP_QPN`.
pub const QP_QPN: u32 = at("QP_QPN");
/// `QP_FLAGS`.
pub const QP_FLAGS: u32 = at("QP_FLAGS");
/// `QP_PD`.
pub const QP_PD: u32 = at("QP_PD");
/// `QP_PSN`.
pub const QP_PSN: u32 = at("QP_PSN");
/// `QP_DEST_QPN`.
pub const QP_DEST_QPN: u32 = at("QP_DEST_QPN");
/// `QP_QKEY`.
pub const QP_QKEY: u32 = at("QP_QKEY");
/// `QP_AV`.
pub const QP_AV: u32 = at("QP_AV");
/// `QP_FLOW_LABEL`.
pub const QP_FLOW_LABEL: u32 = at("QP_FLOW_LABEL");
/// `QP_DMAC` (2 words).
pub const QP_DMAC: u32 = at("QP_DMAC");
/// `QP_SMAC` (2 words).
pub const QP_SMAC: u32 = at("QP_SMAC");
/// `QP_SRC_IP` (4 words).
pub const QP_SRC_IP: u32 = at("QP_SRC_IP");
/// `QP_DST_IP` (4 words).
pub const QP_DST_IP: u32 = at("QP_DST_IP");
/// `QP_SQ_BASE` (2 words).
pub const QP_SQ_BASE: u32 = at("QP_SQ_BASE");
/// `MR_LKEY`.
pub const MR_LKEY: u32 = at("MR_LKEY");
/// `MR_PD`.
pub const MR_PD: u32 = at("MR_PD");
/// `MR_ACCESS`.
pub const MR_ACCESS: u32 = at("MR_ACCESS");
/// `MR_BASE` (2 words).
pub const MR_BASE: u32 = at("MR_BASE");
/// `MR_LENGTH` (2 words).
pub const MR_LENGTH: u32 = at("MR_LENGTH");
/// `SQ_DOORBELL` (one word per QP slot).
pub const SQ_DOORBELL: u32 = at("SQ_DOORBELL");

/// A register write: (byte offset, value).
pub type Write32 = (u32, u32);

/// Bytes as network-order words (byte 4i in bits 31:24 of word i); a tail is zero-filled.
fn be_words<const W: usize>(bytes: &[u8]) -> [u32; W] {
    let mut w = [0u32; W];
    for (i, b) in bytes.iter().enumerate().take(4 * W) {
        w[i / 4] |= u32::from(*b) << (24 - 8 * (i % 4));
    }
    w
}

fn lo_hi(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// Writes of an IP address: IPv6 as 4 words, IPv4 in word 3 (words 0..2 zero).
fn ip_words(ip: &IpPair, src: bool) -> [u32; 4] {
    match *ip {
        IpPair::V4 { src: s, dst: d } => {
            let a = if src { s } else { d };
            [0, 0, 0, u32::from_be_bytes(a.0)]
        }
        IpPair::V6 { src: s, dst: d } => be_words(&(if src { s } else { d }).0),
    }
}

/// Writes that set the NIC's addresses and `CONTROL` (enabled or not, with `profile`).
pub fn nic_writes(nic: &Nic, profile: Profile, enable: bool) -> [Write32; 8] {
    let mac: [u32; 2] = be_words(&nic.mac.0);
    let v6: [u32; 4] = be_words(&nic.ipv6.0);
    [
        (NIC_IPV4, u32::from_be_bytes(nic.ipv4.0)),
        (NIC_MAC, mac[0]),
        (NIC_MAC + 4, mac[1]),
        (NIC_IPV6, v6[0]),
        (NIC_IPV6 + 4, v6[1]),
        (NIC_IPV6 + 8, v6[2]),
        (NIC_IPV6 + 12, v6[3]),
        (CONTROL, control_word(enable, profile, false)),
    ]
}

/// `CONTROL`: the engine's enable, the entropy profile and the reliable transport's switch.
pub fn control_word(enable: bool, profile: Profile, reliable: bool) -> u32 {
    control::ENABLE.put(enable.into())
        | control::PROFILE.put(profile.code().into())
        | control::RELIABLE.put(reliable.into())
}

/// Writes that give the engine the reliable transport's settings `rel` (its clock ticking every
/// `tick` cycles) and turn it on or off, keeping `CONTROL`'s other fields as [`nic_writes`]
/// sets them (`enable`, `profile`); write them before any QP.
pub fn reliable_writes(
    rel: Option<&crate::rc::Reliable>,
    tick: u16,
    profile: Profile,
    enable: bool,
) -> [Write32; 3] {
    let r = rel.copied().unwrap_or_default();
    let control = control_word(enable, profile, rel.is_some());
    [
        (
            RC_TIMING,
            rc_timing::TIMEOUT.put(r.timeout.into())
                | rc_timing::RETRY_CNT.put(r.retry_cnt.into())
                | rc_timing::RNR_RETRY.put(r.rnr_retry.into())
                | rc_timing::MAX_INFLIGHT.put(r.max_inflight.min(255)),
        ),
        (
            RC_CLOCK,
            rc_clock::SCALE.put(r.scale.0.min(0xFFFF) as u32) | rc_clock::TICK.put(tick.into()),
        ),
        (CONTROL, control),
    ]
}

/// Writes that place the completion ring (with `CONTROL.ENABLE` clear).
pub fn cq_writes(base: u64, log2: u32) -> [Write32; 3] {
    let b = lo_hi(base);
    [(CQ_BASE, b[0]), (CQ_BASE + 4, b[1]), (CQ_LOG2, log2)]
}

/// Writes that stage QP `qpn` with `config` and its send ring; follow them with
/// [`qp_write(slot)`](qp_write). A raw-packet QP is staged with `RAW`, `MTU` 0 and zeros for
/// what it does not have (PSN, destination QP, Q_Key, address vector).
pub fn qp_writes(qpn: u32, config: &QpConfig, ring: &SendRing, base: u64) -> [Write32; 22] {
    let raw = config.qp_type == QpKind::Raw;
    let av = config.av.filter(|_| !raw);
    let ud = config.qp_type == QpKind::Ud;
    let flags = qp_flags::UD.put(ud.into())
        | qp_flags::RAW.put(raw.into())
        | qp_flags::IPV6.put(av.is_some_and(|a| a.is_ipv6()).into())
        | qp_flags::VLAN.put(av.is_some_and(|a| a.vlan.is_some()).into())
        | qp_flags::PCP.put(av.map_or(0, |a| a.pcp.into()))
        | qp_flags::MTU.put(if raw { 0 } else { config.mtu.code().into() })
        | qp_flags::STRIDE_LOG2.put(ring.stride_blocks().trailing_zeros())
        | qp_flags::RING_LOG2.put(ring.ring().log2());
    let avw = av.map_or(0, |a| {
        qp_av::VID.put(a.vlan.unwrap_or(0).into())
            | qp_av::TCLASS.put(a.traffic_class.into())
            | qp_av::HOP_LIMIT.put(a.hop_limit.into())
    });
    let dmac: [u32; 2] = be_words(&av.map_or([0; 6], |a| a.dst_mac.0));
    let smac: [u32; 2] = be_words(&av.map_or([0; 6], |a| a.src_mac.0));
    let src = av.map_or([0; 4], |a| ip_words(&a.ip, true));
    let dst = av.map_or([0; 4], |a| ip_words(&a.ip, false));
    let sq = lo_hi(base);
    [
        (QP_QPN, qpn),
        (QP_FLAGS, flags),
        (QP_PD, config.pd),
        (QP_PSN, if raw { 0 } else { config.psn.get() }),
        (QP_DEST_QPN, if raw { 0 } else { config.dest_qpn }),
        (QP_QKEY, if raw { 0 } else { config.q_key }),
        (QP_AV, avw),
        (QP_FLOW_LABEL, av.map_or(0, |a| a.flow_label)),
        (QP_DMAC, dmac[0]),
        (QP_DMAC + 4, dmac[1]),
        (QP_SMAC, smac[0]),
        (QP_SMAC + 4, smac[1]),
        (QP_SRC_IP, src[0]),
        (QP_SRC_IP + 4, src[1]),
        (QP_SRC_IP + 8, src[2]),
        (QP_SRC_IP + 12, src[3]),
        (QP_DST_IP, dst[0]),
        (QP_DST_IP + 4, dst[1]),
        (QP_DST_IP + 8, dst[2]),
        (QP_DST_IP + 12, dst[3]),
        (QP_SQ_BASE, sq[0]),
        (QP_SQ_BASE + 4, sq[1]),
    ]
}

/// The command that writes the staged QP into `slot` (state RESET, ring indices 0).
pub fn qp_write(slot: u32) -> Write32 {
    (
        COMMAND,
        command::OP.put(op::QP_WRITE) | command::SLOT.put(slot),
    )
}

/// The command that modifies the QP in `slot` to `state`.
pub fn qp_modify(slot: u32, state: QpState) -> Write32 {
    (
        COMMAND,
        command::OP.put(op::QP_MODIFY)
            | command::SLOT.put(slot)
            | command::STATE.put(state.code().into()),
    )
}

/// The command that frees QP slot `slot`.
pub fn qp_destroy(slot: u32) -> Write32 {
    (
        COMMAND,
        command::OP.put(op::QP_DESTROY) | command::SLOT.put(slot),
    )
}

/// Writes that stage `mr`; follow them with [`mr_write`].
pub fn mr_writes(mr: &MemoryRegion) -> [Write32; 7] {
    let b = lo_hi(mr.base);
    let l = lo_hi(mr.length);
    [
        (MR_LKEY, mr.lkey),
        (MR_PD, mr.pd),
        (MR_ACCESS, mr.access.bits()),
        (MR_BASE, b[0]),
        (MR_BASE + 4, b[1]),
        (MR_LENGTH, l[0]),
        (MR_LENGTH + 4, l[1]),
    ]
}

/// The command that registers the staged region.
pub fn mr_write() -> Write32 {
    (COMMAND, command::OP.put(op::MR_WRITE))
}

/// Writes that deregister the region of `lkey`: the staged `MR_LKEY`, then the command.
pub fn mr_clear(lkey: u32) -> [Write32; 2] {
    [(MR_LKEY, lkey), (COMMAND, command::OP.put(op::MR_CLEAR))]
}

/// The send doorbell of QP `slot`.
pub fn doorbell(slot: u32, producer: u32) -> Write32 {
    (SQ_DOORBELL + 4 * slot, producer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qp::{AddressVector, PathMtu, Psn};
    use crate::wire::{EthernetAddress, Ipv4Address, Ipv6Address};

    #[test]
    fn map_is_ordered_and_disjoint() {
        crate::regmap::check_map(MAP);
    }

    #[test]
    fn encoders_place_bytes_in_network_order() {
        let nic = Nic {
            mac: EthernetAddress([1, 2, 3, 4, 5, 6]),
            ipv4: Ipv4Address::new(10, 0, 0, 1),
            ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        };
        let w = nic_writes(&nic, Profile::RfcV1, true);
        assert_eq!(w[0], (NIC_IPV4, 0x0A00_0001));
        assert_eq!(w[1], (NIC_MAC, 0x0102_0304));
        assert_eq!(w[2], (NIC_MAC + 4, 0x0506_0000));
        assert_eq!(w[3], (NIC_IPV6, 0xFD00_0000));
        assert_eq!(w[6], (NIC_IPV6 + 12, 1));
        assert_eq!(w[7], (CONTROL, 1 | (2 << 4)));
        let av = AddressVector {
            vlan: Some(7),
            pcp: 5,
            traffic_class: 0x48,
            hop_limit: 9,
            flow_label: 0x12345,
            ..AddressVector::new(
                IpPair::V4 {
                    src: nic.ipv4,
                    dst: Ipv4Address::new(10, 0, 0, 2),
                },
                nic.mac,
                EthernetAddress([6, 5, 4, 3, 2, 1]),
            )
        };
        let cfg = QpConfig {
            qp_type: QpKind::Rc,
            pd: 3,
            mtu: PathMtu::Mtu1024,
            psn: Psn::new(0x100).unwrap(),
            dest_qpn: 0x22,
            q_key: 0,
            av: Some(av),
        };
        let ring = SendRing::new(super::super::Ring::new(6).unwrap(), 2, 0x1_0000_0040).unwrap();
        let q = qp_writes(0x11, &cfg, &ring, 0x1_0000_0040);
        assert_eq!(
            q[1],
            (
                QP_FLAGS,
                (1 << 2) | (5 << 4) | (3 << 8) | (2 << 12) | (6 << 16)
            )
        );
        assert_eq!(q[6], (QP_AV, 7 | (0x48 << 16) | (9 << 24)));
        assert_eq!(q[7], (QP_FLOW_LABEL, 0x12345));
        assert_eq!(q[8], (QP_DMAC, 0x0605_0403));
        assert_eq!(q[15], (QP_SRC_IP + 12, 0x0A00_0001));
        assert_eq!(q[19], (QP_DST_IP + 12, 0x0A00_0002));
        assert_eq!(q[20], (QP_SQ_BASE, 0x40));
        assert_eq!(q[21], (QP_SQ_BASE + 4, 1));
        // A raw QP: RAW, MTU 0 (what an engine without raw QPs refuses), nothing RoCE.
        let raw = QpConfig {
            qp_type: QpKind::Raw,
            av: None,
            ..cfg
        };
        let r = qp_writes(0x11, &raw, &ring, 0x1_0000_0040);
        assert_eq!(r[1], (QP_FLAGS, (1 << 3) | (2 << 12) | (6 << 16)));
        assert_eq!(qp_flags::MTU.get(r[1].1), 0);
        assert_eq!((r[3].1, r[4].1, r[5].1, r[6].1, r[8].1), (0, 0, 0, 0, 0));
        assert_eq!(r[2], (QP_PD, 3));
        assert_eq!(
            qp_modify(3, QpState::Err),
            (COMMAND, 2 | (3 << 8) | (6 << 16))
        );
        assert_eq!(doorbell(5, 9), (0x1014, 9));
        assert_eq!(qp_destroy(7), (COMMAND, 3 | (7 << 8)));
        assert_eq!(mr_clear(0x4100), [(MR_LKEY, 0x4100), (COMMAND, 5)]);
        assert_eq!(mr_write(), (COMMAND, 4));
        assert_eq!(mr_slot(0x0000_0300, 64), 3);
        assert_eq!(mr_slot(0x0001_0300, 64), 3);
        assert_eq!(mr_slot(0x0000_4100, 64), 1);
    }
}
