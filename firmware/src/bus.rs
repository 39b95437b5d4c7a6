//! The register bus: 32-bit reads and writes of one block's AXI4-Lite registers, at the byte
//! offsets of its map (`model::wqe::regs`, `model::rss::regs`).

use crate::Error;
use core::fmt;

/// Why a register access failed: AXI4-Lite's error responses, or no response at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BusError {
    /// `SLVERR`: the block refused the access.
    Slave {
        /// The register's byte offset.
        addr: u32,
    },
    /// `DECERR`: nothing answers at the address.
    Decode {
        /// The register's byte offset.
        addr: u32,
    },
    /// No response in time (a bus that can tell: a bridge, a co-simulation).
    Timeout {
        /// The register's byte offset.
        addr: u32,
    },
}

impl BusError {
    /// The outcome of an AXI response code (`BRESP`, `RRESP`): `OKAY` and `EXOKAY` succeed.
    pub const fn check(resp: u8, addr: u32) -> Result<(), BusError> {
        match resp & 3 {
            0 | 1 => Ok(()),
            2 => Err(BusError::Slave { addr }),
            _ => Err(BusError::Decode { addr }),
        }
    }
}

impl fmt::Display for BusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BusError::Slave { addr } => write!(f, "register {addr:#05x}: slave error"),
            BusError::Decode { addr } => write!(f, "register {addr:#05x}: decode error"),
            BusError::Timeout { addr } => write!(f, "register {addr:#05x}: no response"),
        }
    }
}

impl core::error::Error for BusError {}

/// One block's registers. Each call is one AXI4-Lite transaction and returns once its response
/// arrived, so the firmware's accesses reach the block in program order.
pub trait Bus {
    /// Reads the register at byte offset `addr`.
    fn read(&mut self, addr: u32) -> Result<u32, BusError>;

    /// Writes `value` to the register at byte offset `addr` (all four byte lanes).
    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError>;

    /// Writes each `(addr, value)` in order, stopping at the first error.
    fn write_all(&mut self, writes: &[(u32, u32)]) -> Result<(), BusError> {
        writes.iter().try_for_each(|&(a, v)| self.write(a, v))
    }
}

impl<B: Bus + ?Sized> Bus for &mut B {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        (**self).read(addr)
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        (**self).write(addr, value)
    }
}

/// Reads `addr` until `done` holds for its value, at most `polls` times: the value that
/// satisfied it, or [`Error::Timeout`] with the last one read.
pub(crate) fn poll<B: Bus>(
    bus: &mut B,
    addr: u32,
    polls: u32,
    done: impl Fn(u32) -> bool,
) -> Result<u32, Error> {
    let mut last = 0;
    for _ in 0..polls {
        last = bus.read(addr)?;
        if done(last) {
            return Ok(last);
        }
    }
    Err(Error::Timeout { addr, polls, last })
}

/// An 8-bit count field of a `CAPS` word: a block holds 1 to 256 of the thing, and 256 reads as 0.
pub(crate) const fn caps_count(v: u32) -> u32 {
    if v == 0 {
        256
    } else {
        v
    }
}

/// Reads a block's `ID` at `id_addr`: [`Error::NotThisBlock`] unless it is `id`.
pub(crate) fn identify<B: Bus>(bus: &mut B, id_addr: u32, id: u32) -> Result<(), Error> {
    let found = bus.read(id_addr)?;
    if found != id {
        return Err(Error::NotThisBlock {
            expected: id,
            found,
        });
    }
    Ok(())
}

/// [`Error::Capacity`] for the first of `(what, the block's count, the firmware's table)` whose
/// block has more than the table holds.
pub(crate) fn fits(tables: &[(&'static str, u32, usize)]) -> Result<(), Error> {
    match tables
        .iter()
        .find(|&&(_, block, firmware)| block as usize > firmware)
    {
        Some(&(what, block, firmware)) => Err(Error::Capacity {
            what,
            block,
            firmware: firmware as u32,
        }),
        None => Ok(()),
    }
}

/// Writes a command word and reads `status` until its bit 0 (`BUSY`) clears; bit 1
/// (`CMD_ERROR`, where the block has one) set then is [`Error::Refused`].
pub(crate) fn command<B: Bus>(
    bus: &mut B,
    status: u32,
    polls: u32,
    (addr, word): (u32, u32),
) -> Result<(), Error> {
    bus.write(addr, word)?;
    let s = poll(bus, status, polls, |s| s & 1 == 0)?;
    if s & 2 != 0 {
        return Err(Error::Refused { command: word });
    }
    Ok(())
}

/// The accessors every block's controller has over its `bus` and `polls` fields.
macro_rules! block_access {
    () => {
        /// Reads of `STATUS` waiting for a command, a commit or idle before it counts as lost
        /// (default [`DEFAULT_POLLS`](crate::DEFAULT_POLLS)).
        pub fn set_poll_limit(&mut self, polls: u32) {
            self.polls = polls.max(1);
        }

        /// The bus.
        pub fn bus(&self) -> &B {
            &self.bus
        }

        /// The bus, to reach what lies behind it (a test bench).
        pub fn bus_mut(&mut self) -> &mut B {
            &mut self.bus
        }

        /// Gives the bus back.
        pub fn into_bus(self) -> B {
            self.bus
        }
    };
}
pub(crate) use block_access;
