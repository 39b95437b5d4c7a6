//! An AXI4-Lite master bus-functional model with seeded random delays, for any DUT with an
//! `s_axil_*` slave port.
//!
//! One operation at a time, in order: a write drives AW and W, each after its own random delay
//! and held until accepted, then takes B with random `bready` gaps; a read drives AR likewise and
//! takes R. Every completed operation reports the cycles a bench needs to reason about timing:
//! when the response was first offered (a register block answers a write once it took effect) and
//! when AR was accepted (the cycle whose state a read returns in rocenic's register blocks).
//!
//! The DUT side is two functions per top module, written by [`axil_port_fns!`] over the top's
//! port trait: `drive_axil(dut, &Pins)` and `sample_axil(dut) -> Seen`.

use crate::stream::TestRng;
use rand::Rng;
use std::collections::VecDeque;

/// A register operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Write `data` to byte address `addr` with byte strobes `strb`.
    Write {
        /// Byte address.
        addr: u32,
        /// The word.
        data: u32,
        /// Byte lanes written (bit i: bits 8i..8i+7).
        strb: u8,
    },
    /// Read the word at byte address `addr`.
    Read {
        /// Byte address.
        addr: u32,
    },
}

impl Op {
    /// A whole-word write.
    pub fn write(addr: u32, data: u32) -> Op {
        Op::Write {
            addr,
            data,
            strb: 0xF,
        }
    }
}

/// A finished operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    /// The operation.
    pub op: Op,
    /// The caller's tag, as given to [`Master::push`].
    pub tag: u64,
    /// Read data (0 for a write).
    pub data: u32,
    /// BRESP or RRESP.
    pub resp: u8,
    /// The cycle the request was accepted: AR, or the later of AW and W.
    pub accepted: u64,
    /// Write: the first cycle B was offered. Read: the cycle AR was accepted.
    pub at: u64,
    /// The cycle the response was taken.
    pub taken: u64,
}

/// What the master drives in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pins {
    /// AWVALID.
    pub awvalid: bool,
    /// AWADDR.
    pub awaddr: u32,
    /// WVALID.
    pub wvalid: bool,
    /// WDATA.
    pub wdata: u32,
    /// WSTRB.
    pub wstrb: u8,
    /// BREADY.
    pub bready: bool,
    /// ARVALID.
    pub arvalid: bool,
    /// ARADDR.
    pub araddr: u32,
    /// RREADY.
    pub rready: bool,
}

/// What the master samples in a cycle (after the DUT settled).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// AWREADY.
    pub awready: bool,
    /// WREADY.
    pub wready: bool,
    /// BVALID.
    pub bvalid: bool,
    /// BRESP.
    pub bresp: u8,
    /// ARREADY.
    pub arready: bool,
    /// RVALID.
    pub rvalid: bool,
    /// RDATA.
    pub rdata: u32,
    /// RRESP.
    pub rresp: u8,
}

/// The operation in progress.
#[derive(Clone, Copy, Debug)]
struct Current {
    op: Op,
    tag: u64,
    /// AW (or AR) is being driven / was accepted.
    a_on: bool,
    a_done: bool,
    /// W is being driven / was accepted.
    w_on: bool,
    w_done: bool,
    /// First cycle B was seen, or AR's acceptance.
    at: Option<u64>,
    /// The cycle the request was accepted (AR, or the later of AW and W).
    accepted: u64,
}

/// The master: a queue of operations and the seeded randomness of its timing.
pub struct Master {
    queue: VecDeque<(Op, u64)>,
    cur: Option<Current>,
    delay: f64,
    max_wait: u32,
    waited: u32,
    rng: TestRng,
    pins: Pins,
}

impl Master {
    /// A master that, each cycle, holds back a valid it could raise, or a ready, with probability
    /// `delay`, but never more than `max_wait` cycles in a row (so that a bench can bound how
    /// late a response is taken).
    pub fn new(seed: u64, delay: f64, max_wait: u32) -> Master {
        Master {
            queue: VecDeque::new(),
            cur: None,
            delay,
            max_wait,
            waited: 0,
            rng: crate::stream::rng(seed ^ 0x5EED_A1A1),
            pins: Pins::default(),
        }
    }

    /// Queues an operation under `tag`.
    pub fn push(&mut self, op: Op, tag: u64) {
        self.queue.push_back((op, tag));
    }

    /// Whether nothing is queued or in progress.
    pub fn idle(&self) -> bool {
        self.cur.is_none() && self.queue.is_empty()
    }

    /// Operations queued or in progress.
    pub fn pending(&self) -> usize {
        self.queue.len() + usize::from(self.cur.is_some())
    }

    fn go(&mut self) -> bool {
        if self.waited >= self.max_wait || self.delay <= 0.0 || !self.rng.gen_bool(self.delay) {
            self.waited = 0;
            true
        } else {
            self.waited += 1;
            false
        }
    }

    /// This cycle's pins (call once per cycle, before the DUT settles).
    pub fn drive(&mut self) -> Pins {
        if self.cur.is_none() {
            if let Some((op, tag)) = self.queue.pop_front() {
                self.cur = Some(Current {
                    op,
                    tag,
                    a_on: false,
                    a_done: false,
                    w_on: false,
                    w_done: false,
                    at: None,
                    accepted: 0,
                });
            }
        }
        let mut p = Pins::default();
        let Some(mut c) = self.cur else {
            self.pins = p;
            return p;
        };
        if !c.a_done && !c.a_on {
            c.a_on = self.go();
        }
        match c.op {
            Op::Write { addr, data, strb } => {
                if !c.w_done && !c.w_on {
                    c.w_on = self.go();
                }
                p.awvalid = c.a_on && !c.a_done;
                p.awaddr = addr;
                p.wvalid = c.w_on && !c.w_done;
                p.wdata = data;
                p.wstrb = strb;
                p.bready = c.a_done && c.w_done && self.go();
            }
            Op::Read { addr } => {
                p.arvalid = c.a_on && !c.a_done;
                p.araddr = addr;
                p.rready = c.a_done && self.go();
            }
        }
        self.cur = Some(c);
        self.pins = p;
        p
    }

    /// Reports what the DUT showed in `cycle` (sampled after it settled, before the edge);
    /// returns the operation that finished at this edge, if any.
    pub fn observe(&mut self, cycle: u64, seen: &Seen) -> Option<Done> {
        let p = self.pins;
        let c = self.cur.as_mut()?;
        match c.op {
            Op::Write { .. } => {
                if p.awvalid && seen.awready {
                    c.a_done = true;
                    c.accepted = cycle;
                }
                if p.wvalid && seen.wready {
                    c.w_done = true;
                    c.accepted = cycle;
                }
                if seen.bvalid && c.at.is_none() && c.a_done && c.w_done {
                    c.at = Some(cycle);
                }
                if p.bready && seen.bvalid {
                    let done = Done {
                        op: c.op,
                        tag: c.tag,
                        data: 0,
                        resp: seen.bresp,
                        accepted: c.accepted,
                        at: c.at.unwrap_or(cycle),
                        taken: cycle,
                    };
                    self.cur = None;
                    return Some(done);
                }
            }
            Op::Read { .. } => {
                if p.arvalid && seen.arready {
                    c.a_done = true;
                    c.at = Some(cycle);
                    c.accepted = cycle;
                } else if p.rready && seen.rvalid {
                    let done = Done {
                        op: c.op,
                        tag: c.tag,
                        data: seen.rdata,
                        resp: seen.rresp,
                        accepted: c.accepted,
                        at: c.at.unwrap_or(cycle),
                        taken: cycle,
                    };
                    self.cur = None;
                    return Some(done);
                }
            }
        }
        None
    }
}

/// `drive_axil` and `sample_axil` for the DUTs of one top module, over its port trait: the
/// glue between [`Master`] and the DUT's `s_axil_*` ports.
#[macro_export]
macro_rules! axil_port_fns {
    ($ports:path) => {
        /// Drives the DUT's AXI4-Lite inputs.
        fn drive_axil<D: $ports>(dut: &mut D, p: &$crate::axil::Pins) {
            dut.set_s_axil_awvalid(p.awvalid);
            dut.set_s_axil_awaddr(p.awaddr as _);
            dut.set_s_axil_wvalid(p.wvalid);
            dut.set_s_axil_wdata(p.wdata);
            dut.set_s_axil_wstrb(p.wstrb as _);
            dut.set_s_axil_bready(p.bready);
            dut.set_s_axil_arvalid(p.arvalid);
            dut.set_s_axil_araddr(p.araddr as _);
            dut.set_s_axil_rready(p.rready);
        }

        /// Samples the DUT's AXI4-Lite outputs.
        fn sample_axil<D: $ports>(dut: &D) -> $crate::axil::Seen {
            $crate::axil::Seen {
                awready: dut.s_axil_awready(),
                wready: dut.s_axil_wready(),
                bvalid: dut.s_axil_bvalid(),
                bresp: dut.s_axil_bresp() as u8,
                arready: dut.s_axil_arready(),
                rvalid: dut.s_axil_rvalid(),
                rdata: dut.s_axil_rdata(),
                rresp: dut.s_axil_rresp() as u8,
            }
        }
    };
}
