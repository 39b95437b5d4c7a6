//! The firmware's [`Bus`] over a control plane's bench (the WQE engine's or the receive
//! path's): an access is queued on the bench's AXI4-Lite master and the bench stepped until its
//! response, so the firmware runs as on the NIC's processor, one transaction at a time, while
//! the bench's data path goes on. (The RSS pipeline's is `rocenic_sim::rss::pipeline::
//! FirmwareBus`, which `rocenic rss --engine rtl` uses too.)

use rocenic_firmware::{Bus, BusError};
use rocenic_sim::axil::Op;
use rocenic_sim::duts::{RxCtrlPorts, WqeCtrlPorts};
use rocenic_sim::{rx, wqe};

/// Cycles one access may take before it counts as lost. A write after a command waits for the
/// command, which waits for the data path to be idle.
const LIMIT: u64 = 20_000;

/// A control plane's bench as the bus needs it.
pub trait Bench {
    /// What one cycle logs.
    type Timed;
    /// Queues a register operation under `tag`.
    fn push(&mut self, op: Op, tag: u64);
    /// One clock cycle.
    fn step(&mut self) -> Result<Vec<Self::Timed>, String>;
    /// Cycles run.
    fn cycle(&self) -> u64;
    /// The response `t` is, if it is one: its tag and (a read's) data.
    fn response(t: &Self::Timed) -> Option<(u64, u32)>;
}

/// The two control planes' benches have the same shape: `push`, `step` and `Event::Write` /
/// `Event::Read` answers with their tags.
macro_rules! bench {
    ($ports:path, $m:ident) => {
        impl<D: $ports> Bench for $m::ctrl::Bench<D> {
            type Timed = $m::ctrl::Timed;
            fn push(&mut self, op: Op, tag: u64) {
                self.push(op, tag)
            }
            fn step(&mut self) -> Result<Vec<Self::Timed>, String> {
                self.step()
            }
            fn cycle(&self) -> u64 {
                self.sim.cycle()
            }
            fn response(t: &Self::Timed) -> Option<(u64, u32)> {
                use $m::ctrl::Event;
                match t.event {
                    Event::Write { tag, .. } => Some((tag, 0)),
                    Event::Read { tag, data, .. } => Some((tag, data)),
                    _ => None,
                }
            }
        }
    };
}

bench!(WqeCtrlPorts, wqe);
bench!(RxCtrlPorts, rx);

/// A control plane's bench, with everything it logged while the firmware ran.
pub struct CtrlBus<B: Bench> {
    /// The bench.
    pub bench: B,
    /// Every event, in the order the bench logged them.
    pub events: Vec<B::Timed>,
    /// Register accesses made.
    pub accesses: u64,
    tag: u64,
}

impl<B: Bench> CtrlBus<B> {
    pub fn new(bench: B) -> Self {
        CtrlBus {
            bench,
            events: Vec::new(),
            accesses: 0,
            tag: 0,
        }
    }

    /// One cycle with the firmware idle.
    pub fn step(&mut self) {
        let ev = self.bench.step().unwrap_or_else(|e| panic!("{e}"));
        self.events.extend(ev);
    }

    fn access(&mut self, op: Op) -> Result<u32, BusError> {
        let addr = match op {
            Op::Write { addr, .. } | Op::Read { addr } => addr,
        };
        self.tag += 1;
        self.accesses += 1;
        self.bench.push(op, self.tag);
        let start = self.bench.cycle();
        loop {
            if self.bench.cycle() - start > LIMIT {
                return Err(BusError::Timeout { addr });
            }
            let ev = self.bench.step().unwrap_or_else(|e| panic!("{e}"));
            let done = ev
                .iter()
                .find_map(|t| B::response(t).filter(|&(tag, _)| tag == self.tag));
            self.events.extend(ev);
            if let Some((_, v)) = done {
                return Ok(v);
            }
        }
    }
}

impl<B: Bench> Bus for CtrlBus<B> {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        self.access(Op::Read { addr })
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        self.access(Op::write(addr, value)).map(|_| ())
    }
}
