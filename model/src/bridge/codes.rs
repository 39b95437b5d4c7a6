//! The bridge's operation and status codes: the one definition; `cargo xtask gen` renders them
//! into `rtl/top/uart_bridge_pkg.sv`.

use core::fmt;

/// Request operation codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// Read `count` registers.
    Read = 0x01,
    /// Write `count` registers.
    Write = 0x02,
}

impl Op {
    /// Every operation.
    pub const ALL: [Op; 2] = [Op::Read, Op::Write];

    /// The op byte of a request.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Upper-case name (the RTL's `OP_<name>`).
    pub const fn name(self) -> &'static str {
        match self {
            Op::Read => "READ",
            Op::Write => "WRITE",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Read => "read `count` registers",
            Op::Write => "write `count` registers",
        })
    }
}

/// The status byte of a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Carried out.
    Ok,
    /// The request's CRC did not match; nothing was done.
    BadCrc,
    /// Unknown operation code.
    BadOp,
    /// `count` was 0 or above the bridge's maximum.
    BadCount,
    /// The line went quiet in the middle of the request.
    Timeout,
    /// A status code this codec does not know.
    Unknown(u8),
}

impl Status {
    /// Every status the bridge sends.
    pub const KNOWN: [Status; 5] = [
        Status::Ok,
        Status::BadCrc,
        Status::BadOp,
        Status::BadCount,
        Status::Timeout,
    ];

    /// The status byte.
    pub const fn code(self) -> u8 {
        match self {
            Status::Ok => 0x00,
            Status::BadCrc => 0x01,
            Status::BadOp => 0x02,
            Status::BadCount => 0x03,
            Status::Timeout => 0x04,
            Status::Unknown(b) => b,
        }
    }

    /// The status for a reply byte.
    pub fn from_byte(b: u8) -> Status {
        Self::KNOWN
            .into_iter()
            .find(|s| s.code() == b)
            .unwrap_or(Status::Unknown(b))
    }

    /// Upper-case name (the RTL's `ST_<name>`).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::BadCrc => "BAD_CRC",
            Status::BadOp => "BAD_OP",
            Status::BadCount => "BAD_COUNT",
            Status::Timeout => "TIMEOUT",
            Status::Unknown(_) => "UNKNOWN",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ok => f.write_str("ok"),
            Status::BadCrc => f.write_str("the bridge saw a bad CRC"),
            Status::BadOp => f.write_str("the bridge does not know the operation"),
            Status::BadCount => f.write_str("register count out of range"),
            Status::Timeout => f.write_str("the request was cut short (timeout)"),
            Status::Unknown(b) => write!(f, "unknown status {b:#04x}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_read_back() {
        for (i, s) in Status::KNOWN.into_iter().enumerate() {
            assert_eq!(Status::from_byte(s.code()), s);
            assert!(Status::KNOWN[..i].iter().all(|t| t.code() != s.code()));
        }
        assert_eq!(Status::from_byte(0x7F), Status::Unknown(0x7F));
        assert_ne!(Op::Read.code(), Op::Write.code());
    }
}
