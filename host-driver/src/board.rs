//! A board's register bus over its UART bridge (`rtl/top/uart_bridge.sv`), and the board
//! core's operations on top of it (entropy, RSS key and hash).
//!
//! The frame format, CRC and register map are `rocenic_model::bridge`; this module only moves
//! bytes. A [`Link`] carries them: [`crate::serial::SerialLink`] is a tty, and the
//! co-simulation (`sim/tests/board_core.rs`) provides one that drives the RTL's UART pins, so
//! the same code is proven against the RTL before it meets a board.

use rocenic_model::bridge::regs::{self, caps, r_ctrl};
use rocenic_model::bridge::{self, FrameError, Op, MAX_FRAME, MAX_WORDS, REPLY_START};
use rocenic_model::entropy::{Entropy, Profile, Request};
use std::fmt;
use std::io;

/// A byte pipe to a board.
pub trait Link {
    /// Sends all of `bytes`.
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// The next byte from the board; `ErrorKind::TimedOut` when none comes in time.
    fn recv(&mut self) -> io::Result<u8>;
}

/// What went wrong talking to a board.
#[derive(Debug)]
pub enum Error {
    /// The link failed or timed out.
    Io(io::Error),
    /// A reply was malformed, or the bridge reported an error.
    Frame(FrameError),
    /// The board is not a rocenic board (its ID register reads this).
    NotRocenic(u32),
    /// The board has no such pipeline.
    Missing(&'static str),
    /// A result did not arrive (the status register kept reading this).
    NotDone(u32),
    /// A QPN wider than the 24 bits the hardware takes.
    QpnTooWide(u32),
    /// An RSS input or key of the wrong length for this board.
    Length {
        /// What was too long.
        what: &'static str,
        /// Its length in bytes.
        len: usize,
        /// The most the board takes.
        max: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "link: {e}"),
            Error::Frame(e) => write!(f, "{e}"),
            Error::NotRocenic(id) => write!(f, "not a rocenic board (ID register {id:#010x})"),
            Error::Missing(what) => write!(f, "the board has no {what}"),
            Error::NotDone(s) => write!(f, "no result (status {s:#x})"),
            Error::QpnTooWide(q) => write!(f, "QPN {q:#x} is wider than 24 bits"),
            Error::Length { what, len, max } => {
                write!(f, "{what} of {len} bytes; this board takes at most {max}")
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<FrameError> for Error {
    fn from(e: FrameError) -> Self {
        Error::Frame(e)
    }
}

/// Bytes skipped looking for a reply's start byte before giving up (line noise, a reply to an
/// earlier request that timed out on the host side).
const MAX_SKIP: usize = 4 * MAX_FRAME;

/// Register reads and writes over a [`Link`].
pub struct RegisterBus<L: Link> {
    link: L,
    max_words: usize,
}

impl<L: Link> RegisterBus<L> {
    /// A bus over `link`, sending up to [`MAX_WORDS`] registers per request.
    pub fn new(link: L) -> Self {
        RegisterBus {
            link,
            max_words: MAX_WORDS,
        }
    }

    /// Limits requests to `n` registers (a bridge built with a smaller `MAX_WORDS`).
    pub fn set_max_words(&mut self, n: usize) {
        self.max_words = n.clamp(1, MAX_WORDS);
    }

    /// The link, for tests that inspect or disturb it.
    pub fn link_mut(&mut self) -> &mut L {
        &mut self.link
    }

    /// Reads `words.len()` consecutive registers from `addr`.
    pub fn read(&mut self, addr: u16, words: &mut [u32]) -> Result<(), Error> {
        let per = self.max_words;
        for (i, chunk) in words.chunks_mut(per).enumerate() {
            let mut frame = [0u8; MAX_FRAME];
            let a = addr.wrapping_add((i * per) as u16);
            let n = bridge::encode_read(a, chunk.len(), &mut frame)?;
            self.transact(Op::Read, &frame[..n], chunk)?;
        }
        Ok(())
    }

    /// Writes `words` to consecutive registers from `addr`.
    pub fn write(&mut self, addr: u16, words: &[u32]) -> Result<(), Error> {
        let per = self.max_words;
        for (i, chunk) in words.chunks(per).enumerate() {
            let mut frame = [0u8; MAX_FRAME];
            let a = addr.wrapping_add((i * per) as u16);
            let n = bridge::encode_write(a, chunk, &mut frame)?;
            let mut echo = vec![0u32; chunk.len()];
            self.transact(Op::Write, &frame[..n], &mut echo)?;
        }
        Ok(())
    }

    /// Reads one register.
    pub fn read1(&mut self, addr: u16) -> Result<u32, Error> {
        let mut w = [0u32];
        self.read(addr, &mut w)?;
        Ok(w[0])
    }

    /// Sends a raw frame and returns the raw reply (tests of the bridge's error paths).
    pub fn raw(&mut self, op: Op, frame: &[u8]) -> Result<Vec<u8>, Error> {
        self.link.send(frame)?;
        self.recv_reply(op)
    }

    fn transact(&mut self, op: Op, frame: &[u8], words: &mut [u32]) -> Result<(), Error> {
        self.link.send(frame)?;
        let reply = self.recv_reply(op)?;
        bridge::decode_reply(op, &reply, words)?;
        Ok(())
    }

    fn recv_reply(&mut self, op: Op) -> Result<Vec<u8>, Error> {
        let mut skipped = 0;
        let start = loop {
            let b = self.link.recv()?;
            if b == REPLY_START {
                break b;
            }
            skipped += 1;
            if skipped > MAX_SKIP {
                return Err(FrameError::Start(b).into());
            }
        };
        let header = [start, self.link.recv()?, self.link.recv()?];
        let len = bridge::reply_len(op, header);
        let mut reply = header.to_vec();
        while reply.len() < len {
            reply.push(self.link.recv()?);
        }
        Ok(reply)
    }
}

/// What a board carries (its `CAPS` register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Register-map version.
    pub version: u8,
    /// The entropy unit is present.
    pub entropy: bool,
    /// The RSS hash unit's input bytes; 0 when absent.
    pub rss_max_input: usize,
    /// Registers per bridge request.
    pub max_words: usize,
}

/// Status reads before a result counts as missing; a result takes a few clocks, a status read
/// a few hundred, so one read normally suffices.
const STATUS_POLLS: usize = 8;

/// A rocenic board behind a register bus.
pub struct Board<L: Link> {
    /// The register bus.
    pub bus: RegisterBus<L>,
    caps: Caps,
}

impl<L: Link> Board<L> {
    /// Checks the ID register and reads the capabilities.
    pub fn open(link: L) -> Result<Self, Error> {
        let mut bus = RegisterBus::new(link);
        let mut w = [0u32; 2];
        bus.read(regs::ID, &mut w)?;
        if w[0] != regs::ID_VALUE {
            return Err(Error::NotRocenic(w[0]));
        }
        let caps = Caps {
            version: caps::VERSION.get(w[1]) as u8,
            entropy: caps::ENTROPY.get(w[1]) != 0,
            rss_max_input: if caps::RSS.get(w[1]) != 0 {
                caps::RSS_INPUT.get(w[1]) as usize
            } else {
                0
            },
            max_words: caps::MAX_WORDS.get(w[1]) as usize,
        };
        bus.set_max_words(caps.max_words);
        Ok(Board { bus, caps })
    }

    /// The board's capabilities.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Reads `status` (and the `N - 1` result registers after it) until `done` is set.
    fn wait_done<const N: usize>(&mut self, status: u16) -> Result<[u32; N], Error> {
        let mut w = [0u32; N];
        for _ in 0..STATUS_POLLS {
            self.bus.read(status, &mut w)?;
            if w[0] & regs::DONE != 0 {
                return Ok(w);
            }
        }
        Err(Error::NotDone(w[0]))
    }

    /// The flow label and UDP source port of one request, computed by the board.
    pub fn entropy(&mut self, profile: Profile, request: &Request) -> Result<Entropy, Error> {
        if !self.caps.entropy {
            return Err(Error::Missing("entropy unit"));
        }
        let words = bridge::entropy_request_words(profile, request).map_err(Error::QpnTooWide)?;
        self.bus.write(regs::E_CTRL, &words)?;
        let [_, fl, sport] = self.wait_done::<3>(regs::E_STATUS)?;
        Ok(Entropy {
            flow_label: fl & 0xF_FFFF,
            udp_sport: sport as u16,
        })
    }

    /// Loads an RSS key of exactly `rss_max_input + 4` bytes.
    pub fn rss_key(&mut self, key: &[u8]) -> Result<(), Error> {
        let max = self.caps.rss_max_input;
        if max == 0 {
            return Err(Error::Missing("RSS hash unit"));
        }
        if key.len() != max + 4 {
            return Err(Error::Length {
                what: "RSS key",
                len: key.len(),
                max: max + 4,
            });
        }
        self.bus.write(regs::R_KEY, &be_words(key))?;
        self.bus.write(regs::R_KEY_GO, &[1])
    }

    /// The Toeplitz (or, with `xor`, XOR) hash of `data` with the loaded key.
    pub fn rss_hash(&mut self, data: &[u8], xor: bool) -> Result<u32, Error> {
        let max = self.caps.rss_max_input;
        if max == 0 {
            return Err(Error::Missing("RSS hash unit"));
        }
        if data.len() > max {
            return Err(Error::Length {
                what: "RSS input",
                len: data.len(),
                max,
            });
        }
        let mut padded = vec![0u8; max];
        padded[..data.len()].copy_from_slice(data);
        self.bus.write(regs::R_DATA, &be_words(&padded))?;
        let ctrl = r_ctrl::LEN.put(data.len() as u32) | r_ctrl::XOR.put(xor.into());
        self.bus.write(regs::R_CTRL, &[ctrl, 1])?;
        let [_, hash] = self.wait_done::<2>(regs::R_STATUS)?;
        Ok(hash)
    }
}

/// Bytes as big-endian words, the last one zero-padded.
fn be_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_be_bytes(w)
        })
        .collect()
}
