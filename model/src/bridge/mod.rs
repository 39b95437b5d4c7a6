//! The UART register bridge of the board tops (`rtl/top/uart_bridge.sv`): frame format, CRC,
//! operation and status codes ([`Op`], [`Status`]) and the board core's register map ([`regs`]),
//! shared by the host driver and the tests so that both speak exactly what the RTL speaks; the
//! RTL's packages and `docs/core-registers.md` are rendered from them by `cargo xtask gen`.
//!
//! A request reads or writes up to [`MAX_WORDS`] consecutive 32-bit registers; every request
//! gets one reply. Multi-byte fields are big-endian; the CRC is CRC-16/CCITT-FALSE over every
//! byte between the start byte and the CRC itself.
//!
//! ```text
//! request: 0xA5 | op | addr_hi | addr_lo | count | count x 4 data bytes (write only) | crc_hi | crc_lo
//! reply:   0x5A | status | count | count x 4 data bytes (successful read only) | crc_hi | crc_lo
//! ```

mod codes;
pub mod regs;

pub use codes::{Op, Status};

use crate::entropy::{Profile, QpType, Request};
use core::fmt;
use regs::{e_ctrl, e_ports};

/// First byte of a request.
pub const REQUEST_START: u8 = 0xA5;
/// First byte of a reply.
pub const REPLY_START: u8 = 0x5A;
/// Most registers one request may carry in the board tops' bridge (`MAX_WORDS` in the RTL).
pub const MAX_WORDS: usize = 16;
/// Bytes of the longest request or reply with [`MAX_WORDS`] registers.
pub const MAX_FRAME: usize = 5 + 4 * MAX_WORDS + 2;

/// CRC-16/CCITT-FALSE of `crc` extended by one byte (polynomial 0x1021, MSB first).
pub const fn crc16_update(crc: u16, byte: u8) -> u16 {
    let mut c = crc ^ ((byte as u16) << 8);
    let mut i = 0;
    while i < 8 {
        c = if c & 0x8000 != 0 {
            (c << 1) ^ 0x1021
        } else {
            c << 1
        };
        i += 1;
    }
    c
}

/// CRC-16/CCITT-FALSE (initial value 0xFFFF, no reflection, no final XOR) of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0xFFFF, |c, &b| crc16_update(c, b))
}

/// Why a frame could not be built or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The register count is 0 or above [`MAX_WORDS`].
    Count(usize),
    /// The output buffer is too small.
    Buffer,
    /// The reply does not start with [`REPLY_START`].
    Start(u8),
    /// The reply is shorter than its header says.
    Truncated,
    /// The reply's CRC does not match.
    Crc {
        /// CRC in the reply.
        stored: u16,
        /// CRC computed over it.
        computed: u16,
    },
    /// The reply carries a count other than the request's.
    CountMismatch {
        /// Registers asked for.
        asked: usize,
        /// Count in the reply.
        got: u8,
    },
    /// The bridge answered with an error status.
    Status(Status),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Count(n) => write!(f, "register count {n} not in 1..={MAX_WORDS}"),
            FrameError::Buffer => f.write_str("frame buffer too small"),
            FrameError::Start(b) => write!(f, "reply starts with {b:#04x}, not 0x5a"),
            FrameError::Truncated => f.write_str("reply truncated"),
            FrameError::Crc { stored, computed } => {
                write!(f, "reply CRC {stored:#06x}, computed {computed:#06x}")
            }
            FrameError::CountMismatch { asked, got } => {
                write!(f, "asked for {asked} registers, reply says {got}")
            }
            FrameError::Status(s) => write!(f, "bridge error: {s}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for FrameError {}

fn check_count(n: usize) -> Result<u8, FrameError> {
    if (1..=MAX_WORDS).contains(&n) {
        Ok(n as u8)
    } else {
        Err(FrameError::Count(n))
    }
}

fn finish(out: &mut [u8], len: usize) -> usize {
    let crc = crc16(&out[1..len]);
    out[len..len + 2].copy_from_slice(&crc.to_be_bytes());
    len + 2
}

/// Writes a request reading `count` registers from `addr` into `out`; returns its length.
/// Addresses past 0xFFFF wrap to 0, as the bridge's 16-bit bus address does.
pub fn encode_read(addr: u16, count: usize, out: &mut [u8]) -> Result<usize, FrameError> {
    let n = check_count(count)?;
    if out.len() < 7 {
        return Err(FrameError::Buffer);
    }
    let [hi, lo] = addr.to_be_bytes();
    out[..5].copy_from_slice(&[REQUEST_START, Op::Read.code(), hi, lo, n]);
    Ok(finish(out, 5))
}

/// Writes a request writing `words` to `addr`, `addr + 1`, … (modulo 2^16, as the bridge's bus
/// address wraps) into `out`; returns its length.
pub fn encode_write(addr: u16, words: &[u32], out: &mut [u8]) -> Result<usize, FrameError> {
    let n = check_count(words.len())?;
    let len = 5 + 4 * words.len();
    if out.len() < len + 2 {
        return Err(FrameError::Buffer);
    }
    let [hi, lo] = addr.to_be_bytes();
    out[..5].copy_from_slice(&[REQUEST_START, Op::Write.code(), hi, lo, n]);
    for (chunk, w) in out[5..len].chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
    Ok(finish(out, len))
}

/// The length of the whole reply, known from its first three bytes (start, status, count)
/// and the operation that was asked for.
pub fn reply_len(op: Op, header: [u8; 3]) -> usize {
    let data = Status::from_byte(header[1]) == Status::Ok && op == Op::Read;
    3 + if data { 4 * header[2] as usize } else { 0 } + 2
}

/// Checks a complete reply to a request for `words.len()` registers; a read's data goes into
/// `words`.
pub fn decode_reply(op: Op, reply: &[u8], words: &mut [u32]) -> Result<(), FrameError> {
    if reply.len() < 5 {
        return Err(FrameError::Truncated);
    }
    if reply[0] != REPLY_START {
        return Err(FrameError::Start(reply[0]));
    }
    let len = reply_len(op, [reply[0], reply[1], reply[2]]);
    if reply.len() < len {
        return Err(FrameError::Truncated);
    }
    let stored = u16::from_be_bytes([reply[len - 2], reply[len - 1]]);
    let computed = crc16(&reply[1..len - 2]);
    if stored != computed {
        return Err(FrameError::Crc { stored, computed });
    }
    let status = Status::from_byte(reply[1]);
    if status != Status::Ok {
        return Err(FrameError::Status(status));
    }
    if reply[2] as usize != words.len() {
        return Err(FrameError::CountMismatch {
            asked: words.len(),
            got: reply[2],
        });
    }
    if op == Op::Read {
        for (w, chunk) in words.iter_mut().zip(reply[3..len - 2].chunks_exact(4)) {
            *w = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
    }
    Ok(())
}

/// The entropy unit's profile code (`s_req_profile`).
pub fn profile_code(p: Profile) -> u32 {
    u32::from(p.code())
}

/// The widest QPN the hardware takes: 24 bits, as on the wire.
pub const MAX_QPN: u32 = 0x00FF_FFFF;

/// The registers `E_CTRL`, `E_LQPN`, `E_RQPN`, `E_FL`, `E_PORTS` for a request, then a write
/// to `E_GO`: one write request of six words. `Err` carries a QPN wider than 24 bits.
pub fn entropy_request_words(profile: Profile, request: &Request) -> Result<[u32; 6], u32> {
    let check = |q: u32| if q > MAX_QPN { Err(q) } else { Ok(q) };
    let p = e_ctrl::PROFILE.put(profile_code(profile));
    Ok(match *request {
        Request::Qp {
            lqpn,
            rqpn,
            flow_label,
            qp_type,
        } => {
            let ud = e_ctrl::QP_TYPE.put(u32::from(qp_type == QpType::Ud));
            [p | ud, check(lqpn)?, check(rqpn)?, flow_label, 0, 1]
        }
        Request::Cm {
            src_port,
            dst_port,
            flowinfo,
            lqpn,
            rqpn,
        } => [
            e_ctrl::MODE.put(1) | p,
            check(lqpn)?,
            check(rqpn)?,
            flowinfo,
            e_ports::SRC_PORT.put(src_port.into()) | e_ports::DST_PORT.put(dst_port.into()),
            1,
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_check_value() {
        // The catalogue check value of CRC-16/CCITT-FALSE.
        assert_eq!(crc16(b"123456789"), 0x29B1);
    }

    #[test]
    fn write_frame_layout() {
        let mut buf = [0u8; MAX_FRAME];
        let n = encode_write(0x0102, &[0xDEAD_BEEF], &mut buf).unwrap();
        assert_eq!(n, 11);
        assert_eq!(
            &buf[..9],
            &[0xA5, 0x02, 0x01, 0x02, 0x01, 0xDE, 0xAD, 0xBE, 0xEF]
        );
        assert_eq!(u16::from_be_bytes([buf[9], buf[10]]), crc16(&buf[1..9]));
    }

    #[test]
    fn counts_out_of_range_are_refused() {
        let mut buf = [0u8; MAX_FRAME];
        assert_eq!(encode_read(0, 0, &mut buf), Err(FrameError::Count(0)));
        assert_eq!(
            encode_write(0, &[0; MAX_WORDS + 1], &mut buf),
            Err(FrameError::Count(MAX_WORDS + 1))
        );
    }

    #[test]
    fn read_reply_round_trip_and_damage() {
        let mut reply = [REPLY_START, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0];
        let crc = crc16(&reply[1..11]);
        reply[11..].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(reply_len(Op::Read, [reply[0], reply[1], reply[2]]), 13);
        let mut words = [0u32; 2];
        decode_reply(Op::Read, &reply, &mut words).unwrap();
        assert_eq!(words, [0x0102_0304, 0x0506_0708]);
        reply[4] ^= 0x10;
        assert!(matches!(
            decode_reply(Op::Read, &reply, &mut words),
            Err(FrameError::Crc { .. })
        ));
    }

    #[test]
    fn error_reply_has_no_data() {
        let mut reply = [REPLY_START, 0x01, 0, 0, 0];
        let crc = crc16(&reply[1..3]);
        reply[3..].copy_from_slice(&crc.to_be_bytes());
        assert_eq!(reply_len(Op::Read, [reply[0], reply[1], reply[2]]), 5);
        assert_eq!(
            decode_reply(Op::Read, &reply, &mut [0u32; 1]),
            Err(FrameError::Status(Status::BadCrc))
        );
    }
}
