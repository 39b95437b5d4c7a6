//! The status of a send as the TSO segmenter reports it (`m_sts_error` of
//! `rtl/tso/tso_segmenter.sv`): the one definition of its codes. `cargo xtask gen` renders them
//! into `rtl/tso/tso_status_pkg.sv` (`xtask/src/tso.rs`).

use super::Error;
use core::fmt;

/// Width of a status code on the RTL's status port, in bits.
pub const STATUS_BITS: u32 = 4;

/// What the segmenter reports for a send: every segment sent, or why none or not all were.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Every segment sent.
    Ok,
    /// MSS 0.
    MssZero,
    /// MSS over `MAX_MSS`, or a segment longer than the IP length fields allow.
    MssTooLarge,
    /// Header length over `MAX_HDR`.
    HeaderTooLong,
    /// Payload length over `MAX_TSO`.
    LenTooLong,
    /// The template is not IPv4/IPv6 + TCP.
    NotTcp,
    /// The template's lengths are inconsistent.
    Malformed,
    /// The data stream ended before the announced length.
    Short,
    /// The data stream went past the announced length.
    Long,
    /// A code the RTL does not define (a bug).
    Unknown(u8),
}

impl Status {
    /// Every status the segmenter reports, in code order.
    pub const KNOWN: [Status; 9] = [
        Status::Ok,
        Status::MssZero,
        Status::MssTooLarge,
        Status::HeaderTooLong,
        Status::LenTooLong,
        Status::NotTcp,
        Status::Malformed,
        Status::Short,
        Status::Long,
    ];

    /// The RTL's code.
    pub const fn code(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::MssZero => 1,
            Status::MssTooLarge => 2,
            Status::HeaderTooLong => 3,
            Status::LenTooLong => 4,
            Status::NotTcp => 5,
            Status::Malformed => 6,
            Status::Short => 7,
            Status::Long => 8,
            Status::Unknown(c) => c,
        }
    }

    /// The status for a code read from the RTL.
    pub fn from_code(code: u8) -> Status {
        Self::KNOWN
            .into_iter()
            .find(|s| s.code() == code)
            .unwrap_or(Status::Unknown(code))
    }

    /// Upper-case name (the RTL's `ERR_<name>`).
    pub const fn name(self) -> &'static str {
        match self {
            Status::Ok => "NONE",
            Status::MssZero => "MSS_ZERO",
            Status::MssTooLarge => "MSS_TOO_LARGE",
            Status::HeaderTooLong => "HDR_TOO_LONG",
            Status::LenTooLong => "LEN_TOO_LONG",
            Status::NotTcp => "NOT_TCP",
            Status::Malformed => "MALFORMED",
            Status::Short => "SHORT",
            Status::Long => "LONG",
            Status::Unknown(_) => "UNKNOWN",
        }
    }

    /// The status of a send that [`Segmenter::new`](super::Segmenter::new) refuses with `e`.
    pub fn from_error(e: &Error) -> Status {
        match e {
            Error::MssZero => Status::MssZero,
            Error::MssTooLarge(_) => Status::MssTooLarge,
            Error::HeaderTooLong { .. } => Status::HeaderTooLong,
            Error::PayloadTooLong { .. } => Status::LenTooLong,
            Error::NotTcp(_) => Status::NotTcp,
            // BufferTooSmall and NoSuchSegment cannot come out of Segmenter::new.
            _ => Status::Malformed,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Ok => "ok",
            Status::MssZero => "MSS is 0",
            Status::MssTooLarge => "MSS too large for the segment buffer or IP",
            Status::HeaderTooLong => "header longer than MAX_HDR",
            Status::LenTooLong => "payload longer than MAX_TSO",
            Status::NotTcp => "header is not IPv4/IPv6 + TCP",
            Status::Malformed => "malformed header",
            Status::Short => "data shorter than announced",
            Status::Long => "data longer than announced",
            Status::Unknown(_) => "unknown status code",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_fit_and_read_back() {
        for (i, s) in Status::KNOWN.into_iter().enumerate() {
            assert_eq!(Status::from_code(s.code()), s);
            assert!(u32::from(s.code()) < 1 << STATUS_BITS, "{s:?}");
            assert!(Status::KNOWN[..i].iter().all(|t| t.code() != s.code()));
        }
        assert_eq!(Status::from_code(15), Status::Unknown(15));
    }
}
