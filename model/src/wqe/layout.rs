//! The byte layouts as data: one table of [`SegField`]s per segment, in offset order, covering
//! every byte of the segment (reserved bytes included). The codecs read their offsets from these
//! constants, and `cargo xtask gen` renders them into `rtl/wqe/wqe_fmt_pkg.sv` and the tables
//! of `docs/wqe.md` (`xtask/src/wqe.rs`).

use super::Flags;
use crate::regmap::field;
pub use crate::regmap::Field;

/// The name of every reserved area.
pub const RESERVED: &str = "RSVD";

/// A field of a segment: `bytes` little-endian bytes at byte `offset`, of which the low `bits`
/// are significant and the rest reserved (zero). When `subfields` is not empty, only their bits
/// are significant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegField {
    /// Upper-case name; reserved areas are called [`RESERVED`].
    pub name: &'static str,
    /// Byte offset in the segment.
    pub offset: usize,
    /// Width in bytes.
    pub bytes: usize,
    /// Significant low bits (0 for a reserved area).
    pub bits: u32,
    /// Bit fields of a flags or tag field.
    pub subfields: &'static [Field],
    /// What it means.
    pub doc: &'static str,
}

impl SegField {
    /// A reserved area: every bit must be zero.
    pub fn is_reserved(&self) -> bool {
        self.name == RESERVED
    }
}

pub(crate) const fn f(
    name: &'static str,
    offset: usize,
    bytes: usize,
    bits: u32,
    doc: &'static str,
) -> SegField {
    SegField {
        name,
        offset,
        bytes,
        bits,
        subfields: &[],
        doc,
    }
}

pub(crate) const fn rsvd(offset: usize, bytes: usize) -> SegField {
    f(RESERVED, offset, bytes, 0, "reserved, zero")
}

/// The one-bit field of a [`Flags`] constant, so that the bit positions have one definition.
const fn flag(name: &'static str, flag: Flags, doc: &'static str) -> Field {
    field(name, flag.bits().trailing_zeros(), 1, doc)
}

/// The control segment: bytes 0..32 of block 0.
pub mod control {
    use super::*;
    /// Bits of `FLAGS` (the values of `enum ibv_send_flags`).
    pub const FLAG_BITS: &[Field] = &[
        flag("FENCE", Flags::FENCE, "wait for earlier RDMA READs"),
        flag(
            "SIGNALED",
            Flags::SIGNALED,
            "a successful WR writes a completion",
        ),
        flag(
            "SOLICITED",
            Flags::SOLICITED,
            "set the BTH solicited-event bit",
        ),
        flag("INLINE", Flags::INLINE, "the payload follows in the WQE"),
        flag("IP_CSUM", Flags::IP_CSUM, "fill the IPv4 header checksum"),
    ];
    /// Opcode.
    pub const OPCODE: SegField = f("OPCODE", 0, 1, 8, "the operation, an ibv_wr_opcode value");
    /// Flags.
    pub const FLAGS: SegField = SegField {
        subfields: FLAG_BITS,
        ..f("FLAGS", 1, 1, 8, "send flags, ibv_send_flags bits")
    };
    /// Blocks.
    pub const BLOCKS: SegField = f("BLOCKS", 2, 1, 8, "64-byte blocks of this WQE, 1..=16");
    /// Data segments.
    pub const NSGE: SegField = f("NSGE", 3, 1, 8, "data segments that follow (0 when INLINE)");
    /// WQE index.
    pub const INDEX: SegField = f(
        "INDEX",
        4,
        4,
        32,
        "the producer index of this WQE; copied into its CQE",
    );
    /// Immediate.
    pub const IMM: SegField = f(
        "IMM",
        8,
        4,
        32,
        "immediate data (opcodes WITH_IMM; else 0), sent big-endian",
    );
    /// Inline length.
    pub const INLINE_LEN: SegField = f(
        "INLINE_LEN",
        12,
        2,
        16,
        "bytes of inline data (INLINE; else 0)",
    );
    /// Address vector present.
    pub const AV: SegField = f("AV", 14, 1, 1, "1: a UD address-vector segment follows");
    /// Reserved.
    pub const RSVD0: SegField = rsvd(15, 1);
    /// Work request id.
    pub const WR_ID: SegField = f(
        "WR_ID",
        16,
        8,
        64,
        "the caller's wr_id, copied into the CQE",
    );
    /// TSO's maximum segment size.
    pub const MSS: SegField = f(
        "MSS",
        24,
        2,
        16,
        "TSO: TCP payload bytes per segment (else 0)",
    );
    /// TSO's header length.
    pub const HDR_LEN: SegField = f(
        "HDR_LEN",
        26,
        2,
        16,
        "TSO: bytes of the header template that follows the address vector (else 0)",
    );
    /// Reserved.
    pub const RSVD1: SegField = rsvd(28, 4);
}

/// The control segment's table.
pub const CONTROL: &[SegField] = &[
    control::OPCODE,
    control::FLAGS,
    control::BLOCKS,
    control::NSGE,
    control::INDEX,
    control::IMM,
    control::INLINE_LEN,
    control::AV,
    control::RSVD0,
    control::WR_ID,
    control::MSS,
    control::HDR_LEN,
    control::RSVD1,
];

/// The UD address-vector segment (48 bytes).
pub mod av {
    use super::*;
    /// Bits of `VLAN` (an 802.1Q TCI without DEI).
    pub const VLAN_BITS: &[Field] = &[
        field("VID", 0, 12, "VLAN identifier"),
        field("PCP", 13, 3, "priority code point"),
    ];
    /// Bits of `AV_FLAGS`.
    pub const AV_FLAG_BITS: &[Field] = &[field("VLAN", 0, 1, "insert an 802.1Q tag from VLAN")];
    /// Destination QPN.
    pub const DQPN: SegField = f("DQPN", 0, 4, 24, "destination QP number");
    /// Q_Key.
    pub const QKEY: SegField = f("QKEY", 4, 4, 32, "Q_Key for the DETH");
    /// Destination GID.
    pub const DGID: SegField = f(
        "DGID",
        8,
        16,
        128,
        "destination IPv6 address in network order, or ::ffff:a.b.c.d for IPv4 (the RoCEv2 GID form)",
    );
    /// Destination MAC.
    pub const DMAC: SegField = f("DMAC", 24, 6, 48, "destination MAC in wire order");
    /// VLAN tag.
    pub const VLAN: SegField = SegField {
        subfields: VLAN_BITS,
        ..f(
            "VLAN",
            30,
            2,
            16,
            "VLAN tag control (AV_FLAGS.VLAN; else 0)",
        )
    };
    /// Flow label.
    pub const FLOW_LABEL: SegField = f(
        "FLOW_LABEL",
        32,
        4,
        20,
        "IPv6 flow label; 0: the entropy unit's",
    );
    /// Traffic class.
    pub const TCLASS: SegField = f("TCLASS", 36, 1, 8, "traffic class (IPv6) or TOS (IPv4)");
    /// Hop limit.
    pub const HOP_LIMIT: SegField = f("HOP_LIMIT", 37, 1, 8, "hop limit (IPv6) or TTL (IPv4)");
    /// Flags.
    pub const AV_FLAGS: SegField = SegField {
        subfields: AV_FLAG_BITS,
        ..f("AV_FLAGS", 38, 1, 8, "address-vector flags")
    };
    /// Reserved.
    pub const RSVD0: SegField = rsvd(39, 1);
    /// Reserved.
    pub const RSVD1: SegField = rsvd(40, 8);
}

/// The address-vector segment's table.
pub const AV: &[SegField] = &[
    av::DQPN,
    av::QKEY,
    av::DGID,
    av::DMAC,
    av::VLAN,
    av::FLOW_LABEL,
    av::TCLASS,
    av::HOP_LIMIT,
    av::AV_FLAGS,
    av::RSVD0,
    av::RSVD1,
];

/// The remote-address segment (16 bytes, RDMA WRITE).
pub mod raddr {
    use super::*;
    /// Remote virtual address.
    pub const RADDR: SegField = f("RADDR", 0, 8, 64, "remote virtual address (RETH VA)");
    /// R_Key.
    pub const RKEY: SegField = f("RKEY", 8, 4, 32, "remote key (RETH R_Key)");
    /// Reserved.
    pub const RSVD: SegField = rsvd(12, 4);
}

/// The remote-address segment's table.
pub const RADDR: &[SegField] = &[raddr::RADDR, raddr::RKEY, raddr::RSVD];

/// A data (gather) segment (16 bytes).
pub mod data {
    use super::*;
    /// Address.
    pub const ADDR: SegField = f("ADDR", 0, 8, 64, "host address of the bytes");
    /// Length.
    pub const LENGTH: SegField = f("LENGTH", 8, 4, 32, "bytes to gather");
    /// Local key.
    pub const LKEY: SegField = f("LKEY", 12, 4, 32, "lkey of the memory region holding them");
}

/// The data segment's table.
pub const DATA: &[SegField] = &[data::ADDR, data::LENGTH, data::LKEY];

/// The completion queue entry (32 bytes).
pub mod cqe {
    use super::*;
    /// Bits of `OWNER`.
    pub const OWNER_BITS: &[Field] = &[field(
        "PHASE",
        0,
        1,
        "1 on the ring's even laps, 0 on odd ones",
    )];
    /// Work request id.
    pub const WR_ID: SegField = f("WR_ID", 0, 8, 64, "the WQE's WR_ID");
    /// QP number.
    pub const QPN: SegField = f("QPN", 8, 4, 24, "the QP the WQE was posted on");
    /// Byte count.
    pub const BYTE_LEN: SegField = f("BYTE_LEN", 12, 4, 32, "message bytes");
    /// WQE index.
    pub const WQE_INDEX: SegField = f("WQE_INDEX", 16, 4, 32, "the WQE's INDEX");
    /// Opcode.
    pub const OPCODE: SegField = f("OPCODE", 20, 1, 8, "the WQE's OPCODE (0xFF when unknown)");
    /// Status.
    pub const STATUS: SegField = f("STATUS", 21, 1, 8, "ibv_wc_status value");
    /// Reserved.
    pub const RSVD: SegField = rsvd(22, 9);
    /// Owner / phase.
    pub const OWNER: SegField = SegField {
        subfields: OWNER_BITS,
        ..f("OWNER", 31, 1, 8, "owner byte, written last")
    };
}

/// The completion's table.
pub const CQE: &[SegField] = &[
    cqe::WR_ID,
    cqe::QPN,
    cqe::BYTE_LEN,
    cqe::WQE_INDEX,
    cqe::OPCODE,
    cqe::STATUS,
    cqe::RSVD,
    cqe::OWNER,
];

/// Every table with its segment's short name (the prefix of its constants in
/// `rtl/wqe/wqe_fmt_pkg.sv`) and size, for renderers and tests.
pub const SEGMENTS: &[(&str, usize, &[SegField])] = &[
    ("CTRL", super::CONTROL_BYTES, CONTROL),
    ("AV", super::AV_BYTES, AV),
    ("RADDR", super::RADDR_BYTES, RADDR),
    ("DATA", super::DATA_BYTES, DATA),
    ("CQE", super::cqe::CQE_BYTES, CQE),
];
