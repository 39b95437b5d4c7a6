//! The WQE engine's inputs, cycle by cycle, recorded from a run of the whole bench
//! ([`super::engine::run_recorded`]) and replayed into a fresh model: the run again, without
//! the host memory, register master and sink that made it, so that a plain C++ loop
//! (`sim/cpp/wqe_engine_bench.cpp`) and a Rust loop can drive the same cycles and be timed
//! against each other (`make bench`). The model is deterministic, so a replay reproduces the
//! run: the same output beats, the same DMA traffic.

use crate::duts::{WqeEngine, WqeEnginePorts};
use crate::harness::Sim;

/// Every input of the engine in one cycle but the clock and reset. `repr(C)`: the C++ loop
/// reads the same records (`EngineInputs` in `sim/cpp/wqe_engine_bench.cpp`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineInputs {
    /// `s_rd_rsp_data`.
    pub rd_rsp_data: u64,
    /// `s_axil_wdata`.
    pub axil_wdata: u32,
    /// `s_axil_awaddr`.
    pub axil_awaddr: u16,
    /// `s_axil_araddr`.
    pub axil_araddr: u16,
    /// The narrow inputs, packed as [`FIELDS`] lists them.
    pub bits: u64,
}

/// The narrow inputs in `bits`, from bit 0 up: name and width. The C++ loop unpacks the same.
pub const FIELDS: [(&str, u32); 20] = [
    ("s_axil_awvalid", 1),
    ("s_axil_wvalid", 1),
    ("s_axil_wstrb", 4),
    ("s_axil_bready", 1),
    ("s_axil_arvalid", 1),
    ("s_axil_rready", 1),
    ("m_rd_req_ready", 1),
    ("s_rd_rsp_valid", 1),
    ("s_rd_rsp_keep", 8),
    ("s_rd_rsp_last", 1),
    ("s_rd_rsp_tag", 4),
    ("s_rd_rsp_err", 1),
    ("m_wr_ready", 1),
    ("s_wr_done_valid", 1),
    ("s_wr_done_tag", 2),
    ("s_wr_done_err", 1),
    ("m_axis_tready", 1),
    ("rx_err_set_valid", 1),
    ("rx_err_set_slot", 8),
    ("reserved", 24),
];

impl EngineInputs {
    /// What `d`'s inputs hold now.
    pub fn of<D: WqeEnginePorts>(d: &D) -> EngineInputs {
        let narrow = [
            u64::from(d.s_axil_awvalid()),
            u64::from(d.s_axil_wvalid()),
            u64::from(d.s_axil_wstrb()),
            u64::from(d.s_axil_bready()),
            u64::from(d.s_axil_arvalid()),
            u64::from(d.s_axil_rready()),
            u64::from(d.m_rd_req_ready()),
            u64::from(d.s_rd_rsp_valid()),
            u64::from(d.s_rd_rsp_keep()),
            u64::from(d.s_rd_rsp_last()),
            u64::from(d.s_rd_rsp_tag()),
            u64::from(d.s_rd_rsp_err()),
            u64::from(d.m_wr_ready()),
            u64::from(d.s_wr_done_valid()),
            u64::from(d.s_wr_done_tag()),
            u64::from(d.s_wr_done_err()),
            u64::from(d.m_axis_tready()),
            u64::from(d.rx_err_set_valid()),
            u64::from(d.rx_err_set_slot()),
            0,
        ];
        let (mut bits, mut at) = (0u64, 0u32);
        for (v, (name, w)) in narrow.into_iter().zip(FIELDS) {
            debug_assert!(v >> w == 0, "{name} wider than {w} bits");
            bits |= v << at;
            at += w;
        }
        EngineInputs {
            rd_rsp_data: d.s_rd_rsp_data(),
            axil_wdata: d.s_axil_wdata(),
            axil_awaddr: d.s_axil_awaddr(),
            axil_araddr: d.s_axil_araddr(),
            bits,
        }
    }

    /// The narrow inputs, unpacked in [`FIELDS`] order.
    fn narrow(&self) -> [u64; 20] {
        let mut out = [0u64; 20];
        let mut at = 0;
        for (o, (_, w)) in out.iter_mut().zip(FIELDS) {
            *o = (self.bits >> at) & ((1u64 << w) - 1);
            at += w;
        }
        out
    }

    /// Drives `d`'s inputs with these values.
    #[inline]
    pub fn apply<D: WqeEnginePorts>(&self, d: &mut D) {
        let n = self.narrow();
        d.set_s_axil_awvalid(n[0] != 0);
        d.set_s_axil_wvalid(n[1] != 0);
        d.set_s_axil_wstrb(n[2] as u8);
        d.set_s_axil_bready(n[3] != 0);
        d.set_s_axil_arvalid(n[4] != 0);
        d.set_s_axil_rready(n[5] != 0);
        d.set_m_rd_req_ready(n[6] != 0);
        d.set_s_rd_rsp_valid(n[7] != 0);
        d.set_s_rd_rsp_keep(n[8] as u8);
        d.set_s_rd_rsp_last(n[9] != 0);
        d.set_s_rd_rsp_tag(n[10] as u8);
        d.set_s_rd_rsp_err(n[11] != 0);
        d.set_m_wr_ready(n[12] != 0);
        d.set_s_wr_done_valid(n[13] != 0);
        d.set_s_wr_done_tag(n[14] as u8);
        d.set_s_wr_done_err(n[15] != 0);
        d.set_m_axis_tready(n[16] != 0);
        d.set_rx_err_set_valid(n[17] != 0);
        d.set_rx_err_set_slot(n[18] as u8);
        d.set_s_rd_rsp_data(self.rd_rsp_data);
        d.set_s_axil_wdata(self.axil_wdata);
        d.set_s_axil_awaddr(self.axil_awaddr);
        d.set_s_axil_araddr(self.axil_araddr);
    }
}

/// What a replay saw: the output beats taken and a checksum of every output handshake.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Cycles in which the frame output's beat was taken (valid and ready).
    pub beats: u64,
    /// The sum of the output beats' data and of the DMA requests' and writes' addresses and
    /// data, the register reads' data and the completions' slots, as they were offered.
    pub check: u64,
}

/// Replays `inputs` into a fresh model out of the same reset as the bench's (4 cycles): every
/// cycle the inputs set, the outputs read, the clock stepped.
pub fn replay(inputs: &[EngineInputs]) -> Seen {
    replay_on::<WqeEngine>(inputs)
}

/// [`replay`] into the build `D` of the engine.
pub fn replay_on<D: WqeEnginePorts>(inputs: &[EngineInputs]) -> Seen {
    let mut sim: Sim<D> = Sim::with_trace("replay", false);
    sim.reset(4);
    let mut seen = Seen::default();
    for i in inputs {
        let d = &mut sim.dut;
        i.apply(d);
        if d.m_axis_tvalid() {
            seen.check = seen.check.wrapping_add(d.m_axis_tdata());
            seen.beats += u64::from(d.m_axis_tready());
        }
        if d.m_rd_req_valid() {
            seen.check = seen.check.wrapping_add(d.m_rd_req_addr());
        }
        if d.m_wr_valid() {
            seen.check = seen.check.wrapping_add(d.m_wr_addr() ^ d.m_wr_data());
        }
        if d.s_axil_rvalid() {
            seen.check = seen.check.wrapping_add(u64::from(d.s_axil_rdata()));
        }
        sim.step();
    }
    seen
}
