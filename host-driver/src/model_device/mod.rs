//! A NIC as the reference model sees it (`model::nic::NicModel`: send engine and queues, RSS
//! steering, receive engine) behind its three register blocks, as a host-driver [`Device`].
//!
//! Each block answers its map as docs/wqe-registers.md, docs/rx-registers.md and
//! docs/rss-registers.md describe it: staging registers that read back, `COMMAND` (or the RSS
//! pipeline's `COMMIT`) with `STATUS.BUSY` while it waits and `STATUS.CMD_ERROR` when it was
//! refused, doorbells with the model's doorbell rule and `DB_ERROR`, completion producers and
//! consumers, counters, `ID` and `CAPS`, unmapped addresses reading 0. Every command is carried
//! out on the `NicModel`, so the engines are the ones `rocenic sim` runs. Host memory is the
//! model's `HostMemory`, the device's [`Device::memory`].
//!
//! Time (a "cycle" here is one turn of the model, not a clock of the RTL): every register
//! access takes one turn, and [`Device::run`] runs turns. In each turn, in this order:
//!
//! 1. a command (or commit) written [`COMMAND_CYCLES`] turns ago takes effect, so the
//!    firmware's first `STATUS` read sees `BUSY` and a later one the result;
//! 2. the send side, when enabled with no command pending and no completion fault, runs one
//!    WQE (`Queues::step`, round robin in slot order): its frames go to the wire;
//! 3. the receive side, when enabled with no command or commit pending, takes one frame
//!    waiting at its input (the RSS verdict, then `RecvEngine::receive`), or when none waits,
//!    runs one flush step.
//!
//! A write to a block whose command is still pending waits for it, as the RTL holds the
//! write. The same calls in the same order give the same turns, frames and completions.
//!
//! Frames leave to a [`Link`] when the device is one end of one (both ends in order, and a
//! record of all for a pcap), else they are kept ([`ModelDevice::take_frames`]);
//! [`ModelDevice::inject`] puts a frame at the input.

mod link;
mod regfile;
mod rss;
mod rx;
mod wqe;

pub use link::{Link, Side, WireFrame};

use crate::device::{Block, Device, DeviceError, DeviceInfo};
use rocenic_firmware::BusError;
use rocenic_model::entropy::Profile;
use rocenic_model::nic::NicModel;
use rocenic_model::rx::{Discard, WqState};
use rocenic_model::tso::Limits as TsoLimits;
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::{
    self as mwqe, CompletionRing, HostMemory, Queues, Ring, SendEngine, Step,
};
use std::collections::VecDeque;

/// Turns from a `COMMAND` or `COMMIT` write to its effect.
pub const COMMAND_CYCLES: u64 = 2;

/// The model NIC of the register blocks.
type Nic = NicModel;

/// The reference model's NIC behind its registers (see the module's description).
pub struct ModelDevice {
    name: String,
    nic: Box<Nic>,
    memory: HostMemory,
    cycle: u64,
    wqe: wqe::WqeBlock,
    rx: rx::RxBlock,
    rss: rss::RssBlock,
    /// Frames put at the input ([`ModelDevice::inject`]), taken before the wire's.
    inbox: VecDeque<Vec<u8>>,
    /// Frames sent while not on a link.
    sent: Vec<Vec<u8>>,
    link: Option<(Link, Side)>,
}

impl Default for ModelDevice {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelDevice {
    /// A NIC out of reset (every block as its reset leaves it: disabled, no QP, region, queue,
    /// context or rule set), with empty host memory, TSO and raw-packet QPs.
    pub fn new() -> Self {
        let nic0 = mwqe::Nic {
            mac: EthernetAddress([0; 6]),
            ipv4: Ipv4Address([0; 4]),
            ipv6: Ipv6Address([0; 16]),
        };
        let mut send = SendEngine::new(nic0, Profile::Linux);
        send.tso = Some(TsoLimits::default());
        send.qps.set_raw(true);
        let cq = CompletionRing::new(Ring::new(0).expect("one entry"), 0).expect("index 0");
        let mut nic = Box::new(NicModel::new(send, Queues::new(cq, 0)));
        let rss = rss::RssBlock::new(&mut nic);
        ModelDevice {
            name: "reference model NIC (model::nic::NicModel)".into(),
            nic,
            memory: HostMemory::new(),
            cycle: 0,
            wqe: wqe::WqeBlock::new(),
            rx: rx::RxBlock::new(),
            rss,
            inbox: VecDeque::new(),
            sent: Vec::new(),
            link: None,
        }
    }

    /// Names it in reports (`a`, `b`, …).
    pub fn named(mut self, name: &str) -> Self {
        self.name = format!("{} {name}", self.name);
        self
    }

    /// Without TSO, as the co-simulated full core is (its send engine refuses TSO work requests,
    /// and the driver sizes UD send slots without room for a TSO header), so that the same
    /// program leaves the same host memory on both.
    pub fn without_tso(mut self) -> Self {
        self.nic.send.tso = None;
        self
    }

    /// Without raw-packet QPs, as an engine without them: `CAPS.RAW` reads 0, a raw QP's
    /// `QP_WRITE` (MTU code 0) is refused with `CMD_ERROR`, and [`DeviceInfo::raw`] says false.
    pub fn without_raw(mut self) -> Self {
        self.nic.send.qps.set_raw(false);
        self
    }

    /// With the reliable connection transport (docs/rc.md) of settings `rel`: RC requests
    /// complete when acknowledged, lost packets are sent again, and RDMA READ runs
    /// ([`DeviceInfo::reliable`]).
    pub fn with_reliable(mut self, rel: rocenic_model::rc::Reliable) -> Self {
        self.nic.set_reliable(Some(rel));
        self
    }

    /// The model behind the registers, to inspect.
    pub fn nic(&self) -> &NicModel {
        &self.nic
    }

    /// Puts `frame` at the receive input (after those already waiting).
    pub fn inject(&mut self, frame: &[u8]) {
        self.inbox.push_back(frame.to_vec());
    }

    /// Takes the frames sent since the last call while not on a link, in order.
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.sent)
    }

    /// Frames waiting at the input (injected or on the wire toward it).
    pub fn waiting(&self) -> usize {
        self.inbox.len() + self.link.as_ref().map_or(0, |(l, s)| l.waiting(s.other()))
    }

    pub(crate) fn attach_link(&mut self, link: Link, side: Side) {
        self.link = Some((link, side));
    }

    fn busy(&self, block: Block) -> bool {
        match block {
            Block::Wqe => self.wqe.busy(),
            Block::Rx => self.rx.busy(),
            Block::Rss => self.rss.busy(),
        }
    }

    /// One turn (see the module's description).
    fn tick(&mut self) {
        self.cycle += 1;
        let now = self.cycle;
        self.wqe.complete(&mut self.nic, now);
        self.rx.complete(&mut self.nic, &self.wqe.slots, now);
        self.rss.complete(&mut self.nic, now);
        // The receive side's acknowledgements leave whatever the send queues do (ENABLE,
        // CQ_FAULT), as the RTL core's do; with the whole transport on, send_step sends them.
        let mut out = Vec::new();
        if self.nic.reliable().is_none() {
            self.nic
                .send_replies(&self.memory, &mut |f: &[u8]| out.push(f.to_vec()));
        }
        if self.wqe.can_pick() {
            match self
                .nic
                .send_step(&mut self.memory, &mut |f: &[u8]| out.push(f.to_vec()))
            {
                Ok(Step::Ran { .. }) => self.wqe.count_wqe(),
                Ok(Step::Idle | Step::CqFull) => {}
                // Only a completion write can fail here: the engine stops.
                Err(_) => self.wqe.flags |= rocenic_model::wqe::regs::status::CQ_FAULT.put(1),
            }
        }
        // FRAMES counts every frame that left, acknowledgements too.
        self.wqe.count_frames(out.len());
        for f in out {
            match &self.link {
                Some((l, s)) => l.send(*s, now, f),
                None => self.sent.push(f),
            }
        }
        if !self.rx.takes_frames() || self.rss.busy() {
            self.rx.quiet = false;
        } else {
            let frame = self
                .inbox
                .pop_front()
                .or_else(|| self.link.as_ref().and_then(|(l, s)| l.receive(s.other())));
            let ready = |n: &Nic| -> Vec<bool> {
                (0..rx::WQS as u16)
                    .map(|w| n.rx.wq(w).is_some_and(|q| q.state != WqState::Err))
                    .collect()
            };
            let before = ready(&self.nic);
            self.rx.quiet = false;
            let r = match frame {
                Some(f) => {
                    self.rss.parsed();
                    self.nic.receive(&mut self.memory, &f).map(|_| ())
                }
                None => {
                    let r = self.nic.flush(&mut self.memory);
                    self.rx.quiet = matches!(r, Ok(None));
                    r.map(|_| ())
                }
            };
            // A completion write that faulted moved its queue to ERR (an RDMA WRITE's payload
            // fault moves nothing).
            if r == Err(Discard::Fault) && before != ready(&self.nic) {
                self.rx.cq_fault();
            }
        }
    }
}

impl Device for ModelDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: self.name.clone(),
            blocks: vec![Block::Wqe, Block::Rss, Block::Rx],
            tso: self.nic.send.tso,
            raw: self.nic.send.qps.raw(),
            reliable: self.nic.reliable(),
            // The model counts its transport's time in turns (Reliable::scale).
            rc_tick: 1,
            rdma_read: self.nic.reliable().is_some(),
        }
    }

    fn read(&mut self, block: Block, addr: u32) -> Result<u32, BusError> {
        self.tick();
        let addr = addr & !3;
        Ok(match block {
            Block::Wqe => self.wqe.read(addr, &self.nic),
            Block::Rx => self.rx.read(addr, &self.nic),
            Block::Rss => self.rss.read(addr),
        })
    }

    fn write(&mut self, block: Block, addr: u32, value: u32) -> Result<(), BusError> {
        self.tick();
        while self.busy(block) {
            self.tick();
        }
        let (addr, now) = (addr & !3, self.cycle);
        match block {
            Block::Wqe => self.wqe.write(addr, value, &mut self.nic, now),
            Block::Rx => self.rx.write(addr, value, &mut self.nic, now),
            Block::Rss => self.rss.write(addr, value, now),
        }
        Ok(())
    }

    fn memory(&mut self) -> &mut HostMemory {
        &mut self.memory
    }

    fn run(&mut self, cycles: u64) -> Result<(), DeviceError> {
        for _ in 0..cycles {
            self.tick();
        }
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.cycle
    }
}
