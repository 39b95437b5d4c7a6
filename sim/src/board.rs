//! The board tops' core (`rtl/top/rocenic_core.sv`) behind its UART pins, as a host-driver
//! [`Link`]: bytes the host sends become bits on `uart_rx`, and `uart_tx` is decoded back into
//! bytes, so the host driver runs unchanged against the co-simulated RTL.
//!
//! Two builds of the core: `RocenicCore` as the ECP5 boards carry it (36-byte RSS inputs) and
//! `RocenicCoreIcebreaker` as the iCEBreaker does (12-byte RSS inputs, the entropy unit's
//! products split at 16 bits, 8 registers per request); both with the fast UART below.

use crate::duts::{RocenicCore, RocenicCoreIcebreaker, RocenicCorePorts};
use crate::harness::Sim;
use rocenic_host_driver::Link;
use std::collections::VecDeque;
use std::io;

/// Clocks per UART bit of the `rocenic_core*` DUTs (`CLKS_PER_BIT` in sim/build/duts.rs).
pub const CLKS_PER_BIT: u64 = 8;
/// The DUT's frame timeout in clocks (`IDLE_TIMEOUT` in sim/build/duts.rs).
pub const IDLE_TIMEOUT: u64 = 2000;
/// How long `recv` waits for a byte: past the bridge's timeout plus a whole reply, so that any
/// reply the bridge owes arrives first.
pub const RECV_LIMIT: u64 = IDLE_TIMEOUT + 100 * 10 * CLKS_PER_BIT;

/// Decodes the DUT's `uart_tx` line, one sample per clock.
#[derive(Default)]
struct TxDecoder {
    /// Clocks since the start bit's falling edge, while in a frame.
    at: Option<u64>,
    byte: u8,
    prev: bool,
}

impl TxDecoder {
    /// Feeds one clock's line level; returns a byte when its stop bit's middle passes.
    fn sample(&mut self, line: bool) -> Result<Option<u8>, String> {
        let mut out = Ok(None);
        match self.at {
            None => {
                if self.prev && !line {
                    self.at = Some(0);
                    self.byte = 0;
                }
            }
            Some(t) => {
                let t = t + 1;
                self.at = Some(t);
                // Middle of bit k (0 start, 1..=8 data, 9 stop) is k * CPB + CPB / 2.
                if t % CLKS_PER_BIT == CLKS_PER_BIT / 2 {
                    let k = t / CLKS_PER_BIT;
                    match k {
                        0 if line => {
                            out = Err("uart_tx: start bit not low in its middle".into());
                            self.at = None;
                        }
                        1..=8 => self.byte |= u8::from(line) << (k - 1),
                        9 => {
                            out = if line {
                                Ok(Some(self.byte))
                            } else {
                                Err("uart_tx: stop bit low".into())
                            };
                            self.at = None;
                        }
                        _ => {}
                    }
                }
            }
        }
        self.prev = line;
        out
    }
}

/// The co-simulated core as a [`Link`] (by default the ECP5 boards' build).
pub struct SimLink<D: RocenicCorePorts = RocenicCore> {
    /// The simulation; tests may look at its cycle count.
    pub sim: Sim<D>,
    decoder: TxDecoder,
    received: VecDeque<u8>,
}

impl SimLink {
    /// The ECP5 boards' core, reset, with an idle line.
    pub fn new(run: &str) -> Self {
        Self::open(run)
    }
}

impl SimLink<RocenicCoreIcebreaker> {
    /// The iCEBreaker's core, reset, with an idle line.
    pub fn icebreaker(run: &str) -> Self {
        Self::open(run)
    }
}

impl<D: RocenicCorePorts> SimLink<D> {
    /// A reset core of build `D` with an idle line.
    pub fn open(run: &str) -> Self {
        let mut sim = Sim::<D>::new(run);
        sim.dut.set_uart_rx(true);
        sim.reset(4);
        let mut link = SimLink {
            sim,
            decoder: TxDecoder {
                prev: true,
                ..TxDecoder::default()
            },
            received: VecDeque::new(),
        };
        // A few idle clocks so that the synchronizer sees the line high.
        for _ in 0..4 {
            link.clock().expect("idle line");
        }
        link
    }

    /// One clock, decoding the board's line.
    fn clock(&mut self) -> io::Result<()> {
        self.sim.step();
        let line = self.sim.dut.uart_tx();
        if let Some(b) = self.decoder.sample(line).map_err(io::Error::other)? {
            self.received.push_back(b);
        }
        Ok(())
    }

    /// Holds the host's line at `level` for `bits` bit times.
    pub fn drive(&mut self, level: bool, bits: u64) -> io::Result<()> {
        self.sim.dut.set_uart_rx(level);
        for _ in 0..bits * CLKS_PER_BIT {
            self.clock()?;
        }
        Ok(())
    }

    /// Sends one byte with a chosen stop-bit level (low: a framing error).
    pub fn send_byte(&mut self, b: u8, stop: bool) -> io::Result<()> {
        self.drive(false, 1)?;
        for i in 0..8 {
            self.drive(b >> i & 1 != 0, 1)?;
        }
        self.drive(stop, 1)
    }

    /// Lets `cycles` clocks pass with the host's line idle.
    pub fn idle(&mut self, cycles: u64) -> io::Result<()> {
        self.sim.dut.set_uart_rx(true);
        for _ in 0..cycles {
            self.clock()?;
        }
        Ok(())
    }

    /// Bytes received and not yet taken by `recv`.
    pub fn pending(&self) -> usize {
        self.received.len()
    }
}

impl<D: RocenicCorePorts> Link for SimLink<D> {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        for &b in bytes {
            self.send_byte(b, true)?;
        }
        Ok(())
    }

    fn recv(&mut self) -> io::Result<u8> {
        self.sim.dut.set_uart_rx(true);
        for _ in 0..RECV_LIMIT {
            if let Some(b) = self.received.pop_front() {
                return Ok(b);
            }
            self.clock()?;
        }
        Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "no byte from the core within {RECV_LIMIT} clocks (cycle {})",
                self.sim.cycle()
            ),
        ))
    }
}
