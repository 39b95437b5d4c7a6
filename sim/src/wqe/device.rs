//! The co-simulated WQE engine as a host-driver [`Device`]: the engine's AXI4-Lite port is
//! its one register block ([`Block::Wqe`]), [`DmaHost`](super::host_memory::DmaHost)'s memory
//! is the host memory it DMAs, and every register access and every cycle run steps the
//! [`Bench`]. The frames it sent wait in the bench ([`WqeDevice::take_frames`]).
//!
//! It has no receive path or RSS, and offers the driver no TSO (the default build has the
//! segmenter, `CAPS.TSO`, but the firmware's identify does not read that yet), and says so in
//! its [`DeviceInfo`].

use super::engine::{Bench, Load};
use crate::axil::Op;
use rocenic_firmware::BusError;
use rocenic_host_driver::device::{Block, Device, DeviceError, DeviceInfo};
use rocenic_model::wqe::HostMemory;

/// The engine behind the driver.
pub struct WqeDevice {
    bench: Bench,
    /// The first rule the engine broke (DMA protocol, output keep): every later access fails.
    failed: Option<String>,
}

impl WqeDevice {
    /// An engine out of reset with empty host memory, its surroundings behaving as `load`
    /// says, seeded by `seed`.
    pub fn new(load: &Load, seed: u64) -> WqeDevice {
        WqeDevice::from_bench(Bench::new(HostMemory::new(), load, seed, None).expect("no trace"))
    }

    /// Over a bench made otherwise (traced, say).
    pub fn from_bench(bench: Bench) -> WqeDevice {
        WqeDevice {
            bench,
            failed: None,
        }
    }

    /// The bench.
    pub fn bench(&self) -> &Bench {
        &self.bench
    }

    /// The bench, to step or inspect it.
    pub fn bench_mut(&mut self) -> &mut Bench {
        &mut self.bench
    }

    /// Takes the frames the engine sent so far, in order.
    pub fn take_frames(&mut self) -> Vec<Vec<u8>> {
        self.bench.take_frames()
    }

    /// The rule the engine broke, if it broke one.
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn register(&mut self, block: Block, op: Op, addr: u32) -> Result<u32, BusError> {
        if block != Block::Wqe || self.failed.is_some() {
            return Err(BusError::Decode { addr });
        }
        match self.bench.access(op) {
            Ok(Some(done)) => BusError::check(done.resp, addr).map(|()| done.data),
            Ok(None) => Err(BusError::Timeout { addr }),
            Err(e) => {
                self.failed = Some(e);
                Err(BusError::Slave { addr })
            }
        }
    }
}

impl Device for WqeDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: "co-simulated WQE engine (rtl/wqe/wqe_engine.sv)".into(),
            blocks: vec![Block::Wqe],
            // As the engine says (CAPS.TSO: the default build has TSO, for UD and raw QPs).
            tso: None,
            raw: true,
            // The default engine is built without the reliable transport.
            reliable: None,
            rc_tick: 1,
            rdma_read: false,
        }
    }

    fn read(&mut self, block: Block, addr: u32) -> Result<u32, BusError> {
        self.register(block, Op::Read { addr }, addr)
    }

    fn write(&mut self, block: Block, addr: u32, value: u32) -> Result<(), BusError> {
        self.register(block, Op::write(addr, value), addr)
            .map(|_| ())
    }

    fn memory(&mut self) -> &mut HostMemory {
        self.bench.memory_mut()
    }

    fn run(&mut self, cycles: u64) -> Result<(), DeviceError> {
        if let Some(f) = &self.failed {
            return Err(DeviceError::Failed(f.clone()));
        }
        for _ in 0..cycles {
            if let Err(e) = self.bench.step() {
                self.failed = Some(e.clone());
                return Err(DeviceError::Failed(e));
            }
        }
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.bench.cycle()
    }
}
