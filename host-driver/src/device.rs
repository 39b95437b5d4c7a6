//! What a backend gives the driver: the NIC's register blocks, the host memory it DMAs, a
//! clock to let it run, and what it was built with.
//!
//! A backend is the co-simulated RTL today (`rocenic_sim::wqe::device`: the WQE engine, the
//! one send-side block that exists whole), and later the full core, or a board behind its
//! serial bridge. The driver reaches each block's registers through a [`BlockBus`], the
//! firmware's [`Bus`] over one [`Block`] of a shared device, so the firmware's sequences
//! (`rocenic_firmware`) run unchanged on every backend.

use rocenic_firmware::{Bus, BusError};
use rocenic_model::nic::regs::{self as nic_regs, Window};
use rocenic_model::tso::Limits as TsoLimits;
use rocenic_model::wqe::HostMemory;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// One register block of the NIC, each with its own map at byte offsets from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Block {
    /// The WQE engine's control plane (`model::wqe::regs`).
    Wqe,
    /// The RSS pipeline (`model::rss::regs`).
    Rss,
    /// The receive path (`model::rx::regs`).
    Rx,
}

impl Block {
    /// Every block, in the order of the full core's address map.
    pub const ALL: [Block; 3] = [Block::Wqe, Block::Rss, Block::Rx];

    /// Its window in the full core's one AXI4-Lite map (`model::nic::regs`,
    /// docs/nic-registers.md): a backend with a single register port reaches the block there.
    pub fn window(self) -> &'static Window {
        &nic_regs::WINDOWS[self as usize]
    }

    /// The first byte address of its window.
    pub fn base(self) -> u32 {
        self.window().base
    }

    /// Its register at byte offset `addr` as an address on the full core's port; `None` past
    /// the window (the block's map does not reach there).
    pub fn address(self, addr: u32) -> Option<u32> {
        let w = self.window();
        (addr < w.size()).then(|| w.base + addr)
    }

    /// The block and offset an address on the full core's port reaches; `None` in no window
    /// (the core reads 0 there and ignores writes).
    pub fn decode(addr: u32) -> Option<(Block, u32)> {
        nic_regs::decode(addr).map(|(i, offset)| (Block::ALL[i], offset))
    }
}

/// What a device carries beyond what its registers say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// A name for reports.
    pub name: String,
    /// The register blocks it has; an access to another is a decode error.
    pub blocks: Vec<Block>,
    /// The send engine segments TSO work requests, within these limits (`None`: it refuses
    /// them): what the device says, which `Context::open` keeps only if the engine's
    /// `CAPS.TSO` is set (and fills with the default limits if the device gave none).
    pub tso: Option<TsoLimits>,
    /// The send engine has raw-packet QPs (`IBV_QPT_RAW_PACKET`): what the device says, which
    /// `Context::open` replaces by the engine's `CAPS.RAW` as the firmware reads it (the RTL
    /// engine and the model have them; an engine without them refuses one as its `QP_WRITE`
    /// refuses a path MTU code of 0).
    pub raw: bool,
    /// The reliable connection transport (docs/rc.md: an RC request completes when
    /// acknowledged; lost packets are sent again) and its NIC-wide settings, `None` without.
    /// The model's NIC runs it as made ([`crate::model_device::ModelDevice::with_reliable`]);
    /// a device whose engine has it in registers (`CAPS2.RELIABLE`: the RTL core built with
    /// it) gets these settings from `Context::open`, its clock ticking every
    /// [`rc_tick`](Self::rc_tick) cycles.
    pub reliable: Option<rocenic_model::rc::Reliable>,
    /// Cycles per tick of the transport's clock (`RC_CLOCK.TICK`): 512 is 4.096 µs at 125 MHz;
    /// a co-simulation shortens it so that its timeouts take fewer cycles.
    pub rc_tick: u16,
    /// RDMA READ: the requester takes READ responses (the model's NIC with the transport).
    pub rdma_read: bool,
}

impl DeviceInfo {
    /// Whether the device has `block`.
    pub fn has(&self, block: Block) -> bool {
        self.blocks.contains(&block)
    }
}

/// A device that failed: the backend's own error, not a verbs one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// The device broke a rule of an interface (a co-simulation's protocol checks), or the
    /// backend itself failed; the message says which.
    Failed(String),
    /// A condition did not hold within this many cycles.
    Timeout {
        /// Cycles run.
        cycles: u64,
    },
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::Failed(m) => write!(f, "device failed: {m}"),
            DeviceError::Timeout { cycles } => {
                write!(f, "device did not get there in {cycles} cycles")
            }
        }
    }
}

impl std::error::Error for DeviceError {}

/// A NIC as the driver sees it.
pub trait Device {
    /// What it carries.
    fn info(&self) -> DeviceInfo;

    /// Reads the register at byte offset `addr` of `block`; returns once the response arrived.
    fn read(&mut self, block: Block, addr: u32) -> Result<u32, BusError>;

    /// Writes the register at byte offset `addr` of `block`; returns once the response arrived.
    fn write(&mut self, block: Block, addr: u32, value: u32) -> Result<(), BusError>;

    /// The host memory the NIC reads and writes by DMA: rings, completions and buffers live
    /// here, at the addresses the driver gives the NIC.
    fn memory(&mut self) -> &mut HostMemory;

    /// Lets the device run for `cycles` clock cycles.
    fn run(&mut self, cycles: u64) -> Result<(), DeviceError>;

    /// Clock cycles run so far (register accesses take some too).
    fn cycle(&self) -> u64;

    /// Lets the device run until `done` holds (checked before each cycle), at most `limit`
    /// cycles; returns the cycles run.
    fn run_until(
        &mut self,
        limit: u64,
        done: &mut dyn FnMut(&mut Self) -> bool,
    ) -> Result<u64, DeviceError>
    where
        Self: Sized,
    {
        let start = self.cycle();
        loop {
            if done(self) {
                return Ok(self.cycle() - start);
            }
            if self.cycle() - start >= limit {
                return Err(DeviceError::Timeout { cycles: limit });
            }
            self.run(1)?;
        }
    }
}

/// The firmware's [`Bus`] over one block of a shared device.
pub struct BlockBus<D: Device> {
    device: Rc<RefCell<D>>,
    block: Block,
}

impl<D: Device> BlockBus<D> {
    /// `block` of `device`.
    pub fn new(device: Rc<RefCell<D>>, block: Block) -> Self {
        BlockBus { device, block }
    }

    /// The block.
    pub fn block(&self) -> Block {
        self.block
    }
}

impl<D: Device> Bus for BlockBus<D> {
    fn read(&mut self, addr: u32) -> Result<u32, BusError> {
        self.device.borrow_mut().read(self.block, addr)
    }

    fn write(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        self.device.borrow_mut().write(self.block, addr, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_model::{rss, rx, wqe};

    #[test]
    fn blocks_sit_in_their_windows() {
        // Each block's window holds that block's own map, in the map's order.
        for (i, b) in Block::ALL.iter().enumerate() {
            assert_eq!(b.window(), &nic_regs::WINDOWS[i]);
        }
        assert_eq!(Block::Wqe.window().map, wqe::regs::MAP);
        assert_eq!(Block::Rss.window().map, rss::regs::MAP);
        assert_eq!(Block::Rx.window().map, rx::regs::MAP);
        assert_eq!(
            [Block::Wqe.base(), Block::Rss.base(), Block::Rx.base()],
            [0x0000, 0x2000, 0x4000]
        );
    }

    #[test]
    fn addresses_round_trip() {
        for b in Block::ALL {
            for r in b.window().map {
                let last = r.offset + 4 * (r.words - 1);
                for off in [r.offset, last] {
                    let a = b.address(off).expect("inside the window");
                    assert_eq!(Block::decode(a), Some((b, off)), "{b:?} {}", r.name);
                }
            }
            assert_eq!(b.address(b.window().size()), None);
        }
        assert_eq!(
            Block::address(Block::Rx, rx::regs::CQ_PRODUCER),
            Some(0x5800)
        );
        assert_eq!(
            Block::address(Block::Wqe, wqe::regs::SQ_DOORBELL),
            Some(0x1000)
        );
        // The holes decode to no block.
        assert_eq!(Block::decode(0x2200), None);
        assert_eq!(Block::decode(0x6000), None);
    }
}
