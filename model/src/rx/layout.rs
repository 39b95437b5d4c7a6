//! The receive side's byte layouts as data, like the send side's ([`crate::wqe::layout`]): the
//! receive WQE's header and the receive completion, one table each, every byte covered.

use crate::regmap::field;
use crate::wqe::layout::{f, rsvd, Field, SegField};

/// The receive WQE's header: bytes 0..16 of its slot; its scatter entries follow, each a send
/// data segment ([`crate::wqe::layout::data`]).
pub mod header {
    use super::*;
    /// Work request id.
    pub const WR_ID: SegField = f("WR_ID", 0, 8, 64, "work request id, copied into the CQE");
    /// Scatter entries.
    pub const NSGE: SegField = f(
        "NSGE",
        8,
        1,
        8,
        "scatter entries that follow, 1..=MAX_SGE, all within the slot",
    );
    /// Reserved.
    pub const RSVD: SegField = rsvd(9, 7);
}

/// The receive WQE header's table.
pub const HEADER: &[SegField] = &[header::WR_ID, header::NSGE, header::RSVD];

/// The receive completion (32 bytes).
pub mod cqe {
    use super::*;
    /// Bits of `FLAGS`.
    pub const FLAG_BITS: &[Field] = &[
        field("IMM", 0, 1, "IMM holds the message's immediate data"),
        field(
            "GRH",
            1,
            1,
            "the buffer starts with the 40-byte GRH area (UD receives)",
        ),
        field(
            "CSUM_OK",
            2,
            1,
            "the packet's checksums were checked and good (ICRC; IPv4 header, TCP/UDP)",
        ),
        field(
            "HASHED",
            3,
            1,
            "HASH holds the RSS hash that picked the queue",
        ),
    ];
    /// Bits of `OWNER`.
    pub const OWNER_BITS: &[Field] = &[field(
        "PHASE",
        0,
        1,
        "1 on the ring's even laps, 0 on odd ones",
    )];
    /// Work request id.
    pub const WR_ID: SegField = f("WR_ID", 0, 8, 64, "the receive WQE's WR_ID");
    /// The receiving QP.
    pub const QPN: SegField = f(
        "QPN",
        8,
        4,
        24,
        "the QP the message was for (an RSS QP for its work queues)",
    );
    /// Byte count.
    pub const BYTE_LEN: SegField = f(
        "BYTE_LEN",
        12,
        4,
        32,
        "bytes received (UD: the 40-byte GRH area included)",
    );
    /// Immediate data.
    pub const IMM: SegField = f("IMM", 16, 4, 32, "immediate data, as the wire carries it");
    /// RSS hash.
    pub const HASH: SegField = f("HASH", 20, 4, 32, "the RSS hash (0 unless HASHED)");
    /// Source QP.
    pub const SRC_QP: SegField = f("SRC_QP", 24, 4, 24, "UD: the sender's QP (DETH)");
    /// Opcode.
    pub const OPCODE: SegField = f(
        "OPCODE",
        28,
        1,
        8,
        "ibv_wc_opcode: 0x80 RECV, 0x81 RECV_RDMA_WITH_IMM",
    );
    /// Status.
    pub const STATUS: SegField = f("STATUS", 29, 1, 8, "ibv_wc_status value");
    /// Flags.
    pub const FLAGS: SegField = SegField {
        subfields: FLAG_BITS,
        ..f("FLAGS", 30, 1, 8, "what the entry holds")
    };
    /// Owner / phase.
    pub const OWNER: SegField = SegField {
        subfields: OWNER_BITS,
        ..f("OWNER", 31, 1, 8, "owner byte, written last")
    };
}

/// The receive completion's table.
pub const CQE: &[SegField] = &[
    cqe::WR_ID,
    cqe::QPN,
    cqe::BYTE_LEN,
    cqe::IMM,
    cqe::HASH,
    cqe::SRC_QP,
    cqe::OPCODE,
    cqe::STATUS,
    cqe::FLAGS,
    cqe::OWNER,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each table covers its bytes once, in order, with every field aligned to its size.
    fn tiles(t: &[SegField], bytes: usize) {
        let mut at = 0;
        for x in t {
            assert_eq!(
                x.offset, at,
                "{} starts where the previous field ends",
                x.name
            );
            if !x.is_reserved() {
                assert_eq!(x.offset % x.bytes, 0, "{} aligned", x.name);
            }
            at += x.bytes;
        }
        assert_eq!(at, bytes);
    }

    #[test]
    fn tables_tile_their_bytes() {
        tiles(HEADER, super::super::HEADER_BYTES);
        tiles(CQE, super::super::CQE_BYTES);
    }
}
