//! The firmware's [`Bus`] over the WQE control plane's bench: an access is queued on the bench's
//! AXI4-Lite master and the bench stepped until its response, so the firmware runs as on the
//! NIC's processor, one transaction at a time, while the bench's data path goes on. (The RSS
//! pipeline's is `rocenic_sim::rss::pipeline::FirmwareBus`, which `rocenic rss --engine rtl`
//! uses too.)

use rocenic_firmware::{Bus, BusError};
use rocenic_sim::axil::Op;
use rocenic_sim::duts::WqeCtrlPorts;
use rocenic_sim::wqe::ctrl::{Bench as CtrlBench, Event, Timed};

/// Cycles one access may take before it counts as lost. A write after a command waits for the
/// command, which waits for the data path to be idle.
const LIMIT: u64 = 20_000;

/// The WQE engine's control plane bench, with everything it logged while the firmware ran.
pub struct CtrlBus<D: WqeCtrlPorts> {
    /// The bench.
    pub bench: CtrlBench<D>,
    /// Every event, in the order the bench logged them.
    pub events: Vec<Timed>,
    /// Register accesses made.
    pub accesses: u64,
    tag: u64,
}

impl<D: WqeCtrlPorts> CtrlBus<D> {
    pub fn new(bench: CtrlBench<D>) -> Self {
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
        let start = self.bench.sim.cycle();
        loop {
            if self.bench.sim.cycle() - start > LIMIT {
                return Err(BusError::Timeout { addr });
            }
            let ev = self.bench.step().unwrap_or_else(|e| panic!("{e}"));
            let done = ev.iter().find_map(|t| match t.event {
                Event::Write { tag, .. } if tag == self.tag => Some(0),
                Event::Read { tag, data, .. } if tag == self.tag => Some(data),
                _ => None,
            });
            self.events.extend(ev);
            if let Some(v) = done {
                return Ok(v);
            }
        }
    }
}

impl<D: WqeCtrlPorts> Bus for CtrlBus<D> {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        self.access(Op::Read { addr })
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        self.access(Op::write(addr, value)).map(|_| ())
    }
}
