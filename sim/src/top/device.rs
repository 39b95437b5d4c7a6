//! The co-simulated full core as a host-driver [`Device`]: its three register blocks at their
//! windows of the core's one AXI4-Lite port ([`Block::address`]), [`DmaHost`]'s memory as the
//! host memory it DMAs, every register access and every cycle run stepping the [`Bench`].
//!
//! [`CoreDevice::pair`] joins two cores by a [`crate::link::Link`], as the model's
//! `Link::pair` joins two model NICs. Each core keeps its own clock, as two NICs do, and runs
//! when its driver lets it; each direction's [`Wire`](crate::link::Wire) runs on the
//! receiver's clock: the sender's transmit beats wait in a hand-off queue (the clock crossing;
//! a wire never pushes back) and go into the wire one per receiver cycle, which delivers each
//! frame whole, `delay` receiver cycles after its last beat went in. Alone
//! ([`CoreDevice::new`]), a core keeps what it sends ([`CoreDevice::take_frames`]). A frame put
//! at its input ([`CoreDevice::inject`]) goes in ahead of the wire's, between two of them.

use super::core::{Bench, Counts, Load, LANES};
use crate::axil::Op;
use crate::axis::{beats, Beat};
use crate::duts::{NicCore, NicCorePorts, NicCoreRel};
use crate::link::{Config as LinkConfig, Frame, Link};
use rocenic_firmware::BusError;
use rocenic_host_driver::device::{Block, Device, DeviceError, DeviceInfo};
use rocenic_host_driver::model_device::Side;
use rocenic_model::rc::Reliable;
use rocenic_model::wqe::HostMemory;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::Path;
use std::rc::Rc;

/// What two cores share: the wires and the beats on their way into them.
struct Shared {
    link: Link,
    /// Transmit beats of side A (index 0) and B not yet in their wire.
    handoff: [VecDeque<Beat>; 2],
    /// Frames each side sent whole, in order, as its transmit port handed them out (the
    /// wire's own record has them once they went in, on the receiver's clock), and the one
    /// coming out.
    sent: [Vec<Vec<u8>>; 2],
    frame: [Vec<u8>; 2],
}

/// The wire between two [`CoreDevice`]s; clones are handles to the same one.
#[derive(Clone)]
pub struct CoreLink {
    shared: Rc<RefCell<Shared>>,
}

impl CoreLink {
    /// Every frame so far, both directions, each stamped with its receiver's cycles.
    pub fn frames(&self) -> Vec<Frame> {
        let s = self.shared.borrow();
        s.link.frames().into_iter().cloned().collect()
    }

    /// The frames `from` sent whole so far, in order (some may not have reached the wire
    /// yet, which runs on the other side's clock).
    pub fn sent(&self, from: Side) -> Vec<Vec<u8>> {
        self.sent_since(from, 0)
    }

    /// How many frames `from` sent whole so far.
    pub fn sent_count(&self, from: Side) -> usize {
        self.shared.borrow().sent[from as usize].len()
    }

    /// The frames `from` sent whole after its first `start`, in order.
    pub fn sent_since(&self, from: Side, start: usize) -> Vec<Vec<u8>> {
        let s = self.shared.borrow();
        s.sent[from as usize]
            .get(start..)
            .unwrap_or_default()
            .to_vec()
    }

    /// Nothing on its way either way.
    pub fn idle(&self) -> bool {
        let s = self.shared.borrow();
        s.link.idle() && s.handoff.iter().all(VecDeque::is_empty)
    }
}

/// The full core behind the driver: the default build ([`NicCore`]), or the one with the
/// reliable transport ([`NicCoreRel`], [`CoreDevice::pair_reliable`]).
pub struct CoreDevice<D: NicCorePorts = NicCore> {
    name: String,
    bench: Bench<D>,
    /// The transport's settings, for `Context::open` to program (the build with it).
    reliable: Option<Reliable>,
    link: Option<(CoreLink, Side)>,
    /// Beats put at the input; whether the frame going in now is the wire's (one of the
    /// inbox's does not cut into it).
    inbox: VecDeque<Beat>,
    from_wire: bool,
    /// Alone: the frames sent (the one coming out last).
    sent: Vec<Vec<u8>>,
    frame: Vec<u8>,
    /// The first rule the core broke: every later access fails.
    failed: Option<String>,
}

/// Cycles per tick of the transport's clock in co-simulation ([`CoreDevice::pair_reliable`]):
/// a 32nd of 4.096 µs at 125 MHz, so that a timeout takes 32 times fewer cycles than on a
/// board with the same settings.
pub const RC_TICK: u16 = 16;

impl CoreDevice {
    /// A core out of reset with empty host memory, alone, its surroundings behaving as `load`
    /// says, seeded by `seed`.
    pub fn new(load: &Load, seed: u64) -> CoreDevice {
        Self::on(Bench::new("nic_core", HostMemory::new(), load, seed))
    }

    /// Two cores, `a` and `b`, on a link configured as `cfg` (delay, loss), their
    /// surroundings behaving as `load` says, all seeded from `seed`.
    pub fn pair(load: &Load, cfg: LinkConfig, seed: u64) -> (CoreDevice, CoreDevice, CoreLink) {
        Self::pair_traced(load, cfg, seed, None).expect("no VCD to open")
    }

    /// [`CoreDevice::pair`] with core `a` traced to the VCD file `vcd` when given (`rocenic
    /// sim --vcd FILE`; b is not traced: one model writes one file).
    pub fn pair_traced(
        load: &Load,
        cfg: LinkConfig,
        seed: u64,
        vcd: Option<&Path>,
    ) -> std::io::Result<(CoreDevice, CoreDevice, CoreLink)> {
        Self::pair_of("nic_core", load, cfg, seed, vcd)
    }
}

/// Transport settings for two cores in co-simulation: the model's defaults with a timeout of
/// 2^11 ticks of [`RC_TICK`] cycles (32,768 cycles: longer than a window's round trip behind a
/// slow host with every QP sending), where the model counts 2^8 turns.
pub const TRANSPORT: Reliable = Reliable {
    timeout: 11,
    retry_cnt: 7,
    rnr_retry: 7,
    scale: rocenic_model::rc::Scale(1),
    max_inflight: 16,
    ack_every: 8,
    rnr_timer: 1,
};

impl CoreDevice<NicCoreRel> {
    /// Two cores built with the reliable transport (`nic_core_rel`), as [`CoreDevice::pair`]:
    /// `Context::open` gives each the settings `rel`, its clock ticking every [`RC_TICK`]
    /// cycles.
    pub fn pair_reliable(
        load: &Load,
        cfg: LinkConfig,
        seed: u64,
        rel: Reliable,
    ) -> (Self, Self, CoreLink) {
        let (mut a, mut b, link) =
            Self::pair_of("nic_core_rel", load, cfg, seed, None).expect("no VCD to open");
        for d in [&mut a, &mut b] {
            d.reliable = Some(rel);
            d.name = d
                .name
                .replace("full core", "full core with the reliable transport");
        }
        (a, b, link)
    }
}

impl<D: NicCorePorts> CoreDevice<D> {
    fn on(bench: Bench<D>) -> Self {
        CoreDevice {
            name: "co-simulated full core (rtl/top/nic_core.sv)".into(),
            bench,
            reliable: None,
            link: None,
            inbox: VecDeque::new(),
            from_wire: false,
            sent: Vec::new(),
            frame: Vec::new(),
            failed: None,
        }
    }

    fn pair_of(
        run: &str,
        load: &Load,
        cfg: LinkConfig,
        seed: u64,
        vcd: Option<&Path>,
    ) -> std::io::Result<(Self, Self, CoreLink)> {
        let link = CoreLink {
            shared: Rc::new(RefCell::new(Shared {
                link: Link::new(cfg, seed ^ 0x11AC),
                handoff: [VecDeque::new(), VecDeque::new()],
                sent: [Vec::new(), Vec::new()],
                frame: [Vec::new(), Vec::new()],
            })),
        };
        let mut a = match vcd {
            Some(p) => Self::on(Bench::traced(p, HostMemory::new(), load, seed ^ 0xA)?),
            None => Self::on(Bench::new(run, HostMemory::new(), load, seed ^ 0xA)),
        };
        let mut b = Self::on(Bench::new(run, HostMemory::new(), load, seed ^ 0xB));
        a.name.push_str(" a");
        b.name.push_str(" b");
        a.link = Some((link.clone(), Side::A));
        b.link = Some((link.clone(), Side::B));
        Ok((a, b, link))
    }

    /// The bench.
    pub fn bench(&self) -> &Bench<D> {
        &self.bench
    }

    /// The bench, to inspect or step.
    pub fn bench_mut(&mut self) -> &mut Bench<D> {
        &mut self.bench
    }

    /// What the core did so far.
    pub fn counts(&self) -> Counts {
        self.bench.counts()
    }

    /// Puts `frame` at the receive input, after those already put there and ahead of the
    /// wire's frames not yet started.
    pub fn inject(&mut self, frame: &[u8]) {
        self.inbox.extend(beats(frame, LANES, false));
    }

    /// Alone: takes the frames sent so far, in order.
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.sent)
    }

    /// The rule the core broke, if it broke one.
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    /// One clock cycle of this core (and of the wire toward it); the register operation that
    /// finished in it.
    fn step(&mut self) -> Result<Option<crate::axil::Done>, String> {
        if let Some(f) = &self.failed {
            return Err(f.clone());
        }
        let r = match &self.link {
            Some((link, side)) => {
                let mut s = link.shared.borrow_mut();
                let Shared {
                    link: l,
                    handoff,
                    sent,
                    frame,
                } = &mut *s;
                let (wire, mine, theirs) = match side {
                    Side::A => (&mut l.b_to_a, 0, 1),
                    Side::B => (&mut l.a_to_b, 1, 0),
                };
                let wired = wire.offer().rx;
                let inbox = !self.from_wire && !self.inbox.is_empty();
                let rx = if inbox {
                    self.inbox.front().cloned()
                } else {
                    wired
                };
                let r = self.bench.step(rx.as_ref());
                if let Ok(c) = &r {
                    let tx = handoff[theirs].pop_front();
                    wire.accepted(tx.as_ref(), c.rx_taken && !inbox);
                    if c.rx_taken {
                        let last = rx.as_ref().is_some_and(|b| b.last);
                        if inbox {
                            self.inbox.pop_front();
                        } else {
                            self.from_wire = !last;
                        }
                    }
                    if let Some(b) = &c.tx {
                        handoff[mine].push_back(b.clone());
                        record(b, &mut frame[mine], &mut sent[mine]);
                    }
                }
                r
            }
            None => {
                let r = self.bench.step(self.inbox.front());
                if let Ok(c) = &r {
                    if c.rx_taken {
                        self.inbox.pop_front();
                    }
                    if let Some(b) = &c.tx {
                        record(b, &mut self.frame, &mut self.sent);
                    }
                }
                r
            }
        };
        match r {
            Ok(c) => Ok(c.done),
            Err(e) => {
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }

    fn register(
        &mut self,
        block: Block,
        op: impl Fn(u32) -> Op,
        addr: u32,
    ) -> Result<u32, BusError> {
        let at = block.address(addr).ok_or(BusError::Decode { addr })?;
        if self.failed.is_some() {
            return Err(BusError::Slave { addr });
        }
        let tag = self.bench.next_tag();
        self.bench.push(op(at), tag);
        let start = self.bench.cycle();
        while self.bench.cycle() - start < super::core::ACCESS_LIMIT {
            match self.step() {
                Ok(Some(d)) if d.tag == tag => {
                    return BusError::check(d.resp, addr).map(|()| d.data)
                }
                Ok(_) => {}
                Err(_) => return Err(BusError::Slave { addr }),
            }
        }
        Err(BusError::Timeout { addr })
    }
}

/// A transmit beat into the frame coming out, which joins `sent` whole at its last beat.
fn record(b: &Beat, frame: &mut Vec<u8>, sent: &mut Vec<Vec<u8>>) {
    frame.extend_from_slice(b.bytes());
    if b.last {
        sent.push(std::mem::take(frame));
    }
}

impl<D: NicCorePorts> Device for CoreDevice<D> {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: self.name.clone(),
            blocks: Block::ALL.to_vec(),
            // TSO for UD and raw-packet QPs (CAPS.TSO, the segmenter's default limits);
            // raw-packet QPs (CAPS.RAW).
            tso: Some(rocenic_model::tso::Limits::default()),
            raw: true,
            // The build with the transport gets its settings at Context::open.
            reliable: self.reliable,
            rc_tick: RC_TICK,
            rdma_read: false,
        }
    }

    fn read(&mut self, block: Block, addr: u32) -> Result<u32, BusError> {
        self.register(block, |addr| Op::Read { addr }, addr)
    }

    fn write(&mut self, block: Block, addr: u32, value: u32) -> Result<(), BusError> {
        self.register(block, |a| Op::write(a, value), addr)
            .map(|_| ())
    }

    fn memory(&mut self) -> &mut HostMemory {
        self.bench.memory_mut()
    }

    fn run(&mut self, cycles: u64) -> Result<(), DeviceError> {
        for _ in 0..cycles {
            self.step().map_err(DeviceError::Failed)?;
        }
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.bench.cycle()
    }
}
