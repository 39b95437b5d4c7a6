//! The ACK Extended Transport Header (4 bytes) of RC acknowledgements and READ responses
//! (docs/reference.md §7): syndrome (8) | MSN (24).
//!
//! The syndrome's top three bits say what it is: `000` ACK (low five bits a credit count,
//! `0x1F` unlimited), `001` RNR NAK (low five bits the RNR timer code), `011` NAK (low five
//! bits the NAK code, 0 to 4). The other patterns are reserved and refused on parse.

use super::MASK24;
use crate::wire::{be24, put24, Error, Result};

/// Length of an AETH.
pub const AETH_LEN: usize = 4;

/// The credit count that means "no flow control" (the responder does not count its WQEs).
pub const CREDITS_UNLIMITED: u8 = 0x1F;

view_common!(
    Aeth,
    AETH_LEN,
    "A view of an ACK Extended Transport Header (4 bytes): syndrome and MSN."
);

impl<T: AsRef<[u8]>> Aeth<T> {
    /// Verifies the buffer holds 4 bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < AETH_LEN {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// The raw syndrome byte.
    pub fn syndrome(&self) -> u8 {
        self.buffer.as_ref()[0]
    }

    /// Message sequence number (24 bits).
    pub fn msn(&self) -> u32 {
        be24(self.buffer.as_ref(), 1)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Aeth<T> {
    /// Sets the raw syndrome byte.
    pub fn set_syndrome(&mut self, v: u8) {
        self.buffer.as_mut()[0] = v;
    }

    /// Sets the MSN (24 bits).
    pub fn set_msn(&mut self, v: u32) {
        put24(self.buffer.as_mut(), 1, v & MASK24);
    }
}

/// The code of a NAK (syndrome `011` and these five bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum NakCode {
    /// A PSN ahead of the expected one: go back to the PSN the NAK carries.
    PsnSequence = 0,
    /// An opcode out of sequence, a length that does not fit, an unsupported request.
    InvalidRequest = 1,
    /// An R_Key, bounds or access-rights check failed.
    RemoteAccess = 2,
    /// The responder could not carry out a valid request (a local fault of its own).
    RemoteOperational = 3,
    /// Invalid RD request (reliable datagram only; an RC requester never expects it).
    InvalidRdRequest = 4,
}

impl NakCode {
    /// The code of `v`, if one of the five defined.
    pub const fn from_bits(v: u8) -> Option<NakCode> {
        Some(match v {
            0 => NakCode::PsnSequence,
            1 => NakCode::InvalidRequest,
            2 => NakCode::RemoteAccess,
            3 => NakCode::RemoteOperational,
            4 => NakCode::InvalidRdRequest,
            _ => return None,
        })
    }
}

/// A decoded syndrome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syndrome {
    /// Positive acknowledgement with a credit count (0..=31; [`CREDITS_UNLIMITED`]).
    Ack {
        /// Credit count code.
        credits: u8,
    },
    /// Receiver not ready: retry after the delay the timer code names (0..=31).
    RnrNak {
        /// RNR timer code.
        timer: u8,
    },
    /// Negative acknowledgement.
    Nak(NakCode),
}

impl Syndrome {
    /// Decodes the syndrome byte; the reserved patterns are malformed.
    pub const fn from_byte(b: u8) -> Result<Syndrome> {
        let low = b & 0x1F;
        match b >> 5 {
            0b000 => Ok(Syndrome::Ack { credits: low }),
            0b001 => Ok(Syndrome::RnrNak { timer: low }),
            0b011 => match NakCode::from_bits(low) {
                Some(c) => Ok(Syndrome::Nak(c)),
                None => Err(Error::Malformed("AETH NAK code is reserved")),
            },
            _ => Err(Error::Malformed("AETH syndrome is reserved")),
        }
    }

    /// The syndrome byte. Credit counts and timer codes keep their low five bits.
    pub const fn to_byte(self) -> u8 {
        match self {
            Syndrome::Ack { credits } => credits & 0x1F,
            Syndrome::RnrNak { timer } => 0x20 | (timer & 0x1F),
            Syndrome::Nak(c) => 0x60 | c as u8,
        }
    }

    /// Whether this is a positive acknowledgement.
    pub const fn is_ack(self) -> bool {
        matches!(self, Syndrome::Ack { .. })
    }
}

/// The fields of an AETH.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AethRepr {
    /// The syndrome.
    pub syndrome: Syndrome,
    /// Message sequence number: the responder's count of completed messages (24 bits).
    pub msn: u32,
}

impl AethRepr {
    /// Reads a checked AETH.
    pub fn parse<T: AsRef<[u8]>>(p: &Aeth<T>) -> Result<AethRepr> {
        p.check_len()?;
        Ok(AethRepr {
            syndrome: Syndrome::from_byte(p.syndrome())?,
            msn: p.msn(),
        })
    }

    /// Always 4.
    pub const fn header_len(&self) -> usize {
        AETH_LEN
    }

    /// Writes the 4 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Aeth<T>) -> Result<()> {
        let too_wide = match self.syndrome {
            Syndrome::Ack { credits: v } | Syndrome::RnrNak { timer: v } => v > 0x1F,
            Syndrome::Nak(_) => false,
        };
        if too_wide {
            return Err(Error::Malformed(
                "AETH credit count or RNR timer exceeds 5 bits",
            ));
        }
        if self.msn > MASK24 {
            return Err(Error::Malformed("AETH MSN exceeds 24 bits"));
        }
        p.check_len()?;
        p.set_syndrome(self.syndrome.to_byte());
        p.set_msn(self.msn);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syndromes_known_bytes() {
        let cases = [
            (0x1F, Syndrome::Ack { credits: 0x1F }),
            (0x00, Syndrome::Ack { credits: 0 }),
            (0x2E, Syndrome::RnrNak { timer: 14 }),
            (0x60, Syndrome::Nak(NakCode::PsnSequence)),
            (0x61, Syndrome::Nak(NakCode::InvalidRequest)),
            (0x62, Syndrome::Nak(NakCode::RemoteAccess)),
            (0x63, Syndrome::Nak(NakCode::RemoteOperational)),
            (0x64, Syndrome::Nak(NakCode::InvalidRdRequest)),
        ];
        for (b, s) in cases {
            assert_eq!(Syndrome::from_byte(b), Ok(s), "{b:#x}");
            assert_eq!(s.to_byte(), b);
        }
    }

    #[test]
    fn reserved_syndromes_refused() {
        for b in 0..=255u8 {
            let defined = b < 0x40 || (0x60..=0x64).contains(&b);
            assert_eq!(Syndrome::from_byte(b).is_ok(), defined, "{b:#x}");
            if let Ok(s) = Syndrome::from_byte(b) {
                assert_eq!(s.to_byte(), b);
            }
        }
    }

    #[test]
    fn layout_and_round_trip() {
        let r = AethRepr {
            syndrome: Syndrome::Nak(NakCode::RemoteAccess),
            msn: 0x12_3456,
        };
        let mut b = [0u8; AETH_LEN];
        r.emit(&mut Aeth::new_unchecked(&mut b[..])).unwrap();
        assert_eq!(b, [0x62, 0x12, 0x34, 0x56]);
        assert_eq!(AethRepr::parse(&Aeth::new_checked(&b[..]).unwrap()), Ok(r));
        assert_eq!(Aeth::new_checked(&b[..3]).err(), Some(Error::Truncated));
        let wide = AethRepr { msn: 1 << 24, ..r };
        assert!(wide.emit(&mut Aeth::new_unchecked(&mut b[..])).is_err());
        let timer = AethRepr {
            syndrome: Syndrome::RnrNak { timer: 32 },
            msn: 0,
        };
        assert!(timer.emit(&mut Aeth::new_unchecked(&mut b[..])).is_err());
    }
}
