//! BTH opcodes (docs/reference.md §3) and helpers. The top three bits are the transport (RC 0x00,
//! UC 0x20, RD 0x40, UD 0x60, CNP 0x80, XRC 0xA0), the low five the operation.

/// RC SEND First.
pub const RC_SEND_FIRST: u8 = 0x00;
/// RC SEND Middle.
pub const RC_SEND_MIDDLE: u8 = 0x01;
/// RC SEND Last.
pub const RC_SEND_LAST: u8 = 0x02;
/// RC SEND Last with Immediate.
pub const RC_SEND_LAST_WITH_IMM: u8 = 0x03;
/// RC SEND Only.
pub const RC_SEND_ONLY: u8 = 0x04;
/// RC SEND Only with Immediate.
pub const RC_SEND_ONLY_WITH_IMM: u8 = 0x05;
/// RC RDMA WRITE First (carries the RETH).
pub const RC_RDMA_WRITE_FIRST: u8 = 0x06;
/// RC RDMA WRITE Middle.
pub const RC_RDMA_WRITE_MIDDLE: u8 = 0x07;
/// RC RDMA WRITE Last.
pub const RC_RDMA_WRITE_LAST: u8 = 0x08;
/// RC RDMA WRITE Last with Immediate.
pub const RC_RDMA_WRITE_LAST_WITH_IMM: u8 = 0x09;
/// RC RDMA WRITE Only (carries the RETH).
pub const RC_RDMA_WRITE_ONLY: u8 = 0x0A;
/// RC RDMA WRITE Only with Immediate (RETH, then ImmDt).
pub const RC_RDMA_WRITE_ONLY_WITH_IMM: u8 = 0x0B;
/// RC RDMA READ Request (carries the RETH; no payload).
pub const RC_RDMA_READ_REQUEST: u8 = 0x0C;
/// RC RDMA READ Response First (carries the AETH).
pub const RC_RDMA_READ_RESPONSE_FIRST: u8 = 0x0D;
/// RC RDMA READ Response Middle (no AETH).
pub const RC_RDMA_READ_RESPONSE_MIDDLE: u8 = 0x0E;
/// RC RDMA READ Response Last (carries the AETH).
pub const RC_RDMA_READ_RESPONSE_LAST: u8 = 0x0F;
/// RC RDMA READ Response Only (carries the AETH).
pub const RC_RDMA_READ_RESPONSE_ONLY: u8 = 0x10;
/// RC Acknowledge: BTH and AETH, nothing else.
pub const RC_ACK: u8 = 0x11;
/// UD SEND Only.
pub const UD_SEND_ONLY: u8 = 0x64;
/// UD SEND Only with Immediate.
pub const UD_SEND_ONLY_WITH_IMM: u8 = 0x65;
/// RoCEv2 congestion notification packet.
pub const CNP: u8 = 0x81;

/// Transport bits of the RC opcodes.
pub const TRANSPORT_RC: u8 = 0x00;
/// Transport bits of the UC opcodes.
pub const TRANSPORT_UC: u8 = 0x20;
/// Transport bits of the RD opcodes.
pub const TRANSPORT_RD: u8 = 0x40;
/// Transport bits of the UD opcodes.
pub const TRANSPORT_UD: u8 = 0x60;
/// Transport bits of the XRC opcodes.
pub const TRANSPORT_XRC: u8 = 0xA0;

/// The transport bits (`opcode & 0xE0`).
pub const fn transport(op: u8) -> u8 {
    op & 0xE0
}

/// True when a RETH follows the BTH: RDMA WRITE FIRST, ONLY and ONLY with Immediate, and the
/// READ request (which UC does not have).
pub const fn has_reth(op: u8) -> bool {
    let low = op & 0x1F;
    match transport(op) {
        TRANSPORT_RC | TRANSPORT_RD | TRANSPORT_XRC => matches!(low, 0x06 | 0x0A | 0x0B | 0x0C),
        TRANSPORT_UC => matches!(low, 0x06 | 0x0A | 0x0B),
        _ => false,
    }
}

/// True when a DETH follows the BTH: the UD opcodes 0x60..=0x7F. (RD also carries a DETH,
/// after an RDETH; RD is not modelled.)
pub const fn has_deth(op: u8) -> bool {
    transport(op) == TRANSPORT_UD
}

/// True when an ImmDt header is present: SEND Last/Only with Immediate (0x03, 0x05) and
/// RDMA WRITE Last/Only with Immediate (0x09, 0x0B) on RC, UC, RD and XRC; SEND Only with
/// Immediate (0x65) on UD. (For RDMA WRITE Only with Immediate a RETH comes first.)
pub const fn has_immdt(op: u8) -> bool {
    let low = op & 0x1F;
    match transport(op) {
        TRANSPORT_RC | TRANSPORT_UC | TRANSPORT_RD | TRANSPORT_XRC => {
            matches!(low, 0x03 | 0x05 | 0x09 | 0x0B)
        }
        TRANSPORT_UD => low == 0x05,
        _ => false,
    }
}

/// True when an AETH follows the BTH: the RC Acknowledge, Atomic Acknowledge and the READ
/// responses First, Last and Only (a Middle carries none). RD and XRC share the RC numbers.
pub const fn has_aeth(op: u8) -> bool {
    let low = op & 0x1F;
    match transport(op) {
        TRANSPORT_RC | TRANSPORT_RD | TRANSPORT_XRC => {
            matches!(low, 0x0D | 0x0F | 0x10 | 0x11 | 0x12)
        }
        _ => false,
    }
}

/// True for the SEND opcodes (First, Middle, Last, Only, with or without Immediate) of RC,
/// UC, RD and XRC, and the UD SEND Only opcodes.
pub const fn is_send(op: u8) -> bool {
    let low = op & 0x1F;
    match transport(op) {
        TRANSPORT_RC | TRANSPORT_UC | TRANSPORT_RD | TRANSPORT_XRC => low <= 0x05,
        TRANSPORT_UD => low == 0x04 || low == 0x05,
        _ => false,
    }
}

/// A short name for the opcodes above, `None` for the others.
pub const fn name(op: u8) -> Option<&'static str> {
    Some(match op {
        RC_SEND_FIRST => "RC_SEND_FIRST",
        RC_SEND_MIDDLE => "RC_SEND_MIDDLE",
        RC_SEND_LAST => "RC_SEND_LAST",
        RC_SEND_LAST_WITH_IMM => "RC_SEND_LAST_WITH_IMM",
        RC_SEND_ONLY => "RC_SEND_ONLY",
        RC_SEND_ONLY_WITH_IMM => "RC_SEND_ONLY_WITH_IMM",
        RC_RDMA_WRITE_FIRST => "RC_RDMA_WRITE_FIRST",
        RC_RDMA_WRITE_MIDDLE => "RC_RDMA_WRITE_MIDDLE",
        RC_RDMA_WRITE_LAST => "RC_RDMA_WRITE_LAST",
        RC_RDMA_WRITE_LAST_WITH_IMM => "RC_RDMA_WRITE_LAST_WITH_IMM",
        RC_RDMA_WRITE_ONLY => "RC_RDMA_WRITE_ONLY",
        RC_RDMA_WRITE_ONLY_WITH_IMM => "RC_RDMA_WRITE_ONLY_WITH_IMM",
        RC_RDMA_READ_REQUEST => "RC_RDMA_READ_REQUEST",
        RC_RDMA_READ_RESPONSE_FIRST => "RC_RDMA_READ_RESPONSE_FIRST",
        RC_RDMA_READ_RESPONSE_MIDDLE => "RC_RDMA_READ_RESPONSE_MIDDLE",
        RC_RDMA_READ_RESPONSE_LAST => "RC_RDMA_READ_RESPONSE_LAST",
        RC_RDMA_READ_RESPONSE_ONLY => "RC_RDMA_READ_RESPONSE_ONLY",
        RC_ACK => "RC_ACK",
        UD_SEND_ONLY => "UD_SEND_ONLY",
        UD_SEND_ONLY_WITH_IMM => "UD_SEND_ONLY_WITH_IMM",
        CNP => "CNP",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    // The test names the helpers through the module path, as callers do.
    use crate::wire::ib::opcode;

    #[test]
    fn opcode_helpers() {
        use opcode::*;
        assert!(has_deth(UD_SEND_ONLY) && has_deth(UD_SEND_ONLY_WITH_IMM) && has_deth(0x7F));
        assert!(!has_deth(RC_SEND_ONLY) && !has_deth(0x80));
        for op in [0x06, 0x0A, 0x0B, 0x0C, 0x26, 0x2A] {
            assert!(has_reth(op), "{op:#x}");
        }
        for op in [0x00, 0x07, 0x08, 0x09, 0x0D, 0x2C, 0x64, 0x66] {
            assert!(!has_reth(op), "{op:#x}");
        }
        for op in [0x03, 0x05, 0x09, 0x0B, 0x23, 0x25, 0x65, 0xA3] {
            assert!(has_immdt(op), "{op:#x}");
        }
        for op in [0x00, 0x01, 0x02, 0x04, 0x64, 0x81, 0x63] {
            assert!(!has_immdt(op), "{op:#x}");
        }
        assert!(is_send(RC_SEND_MIDDLE) && is_send(UD_SEND_ONLY) && !is_send(RC_ACK));
        assert_eq!(name(UD_SEND_ONLY), Some("UD_SEND_ONLY"));
        assert_eq!(
            name(RC_RDMA_READ_RESPONSE_ONLY),
            Some("RC_RDMA_READ_RESPONSE_ONLY")
        );
        for op in [0x0D, 0x0F, 0x10, 0x11, 0x12, 0xB1] {
            assert!(has_aeth(op), "{op:#x}");
        }
        for op in [0x0C, 0x0E, 0x13, 0x31, 0x71, 0x04] {
            assert!(!has_aeth(op), "{op:#x}");
        }
    }
}
