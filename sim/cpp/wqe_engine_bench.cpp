// A plain C++ Verilator harness for the WQE engine, linked into the co-simulation bench beside
// the Rust one (sim/benches/cosim.rs), same model, same run. The engine's stimulus is a host
// memory behind its DMA ports and a register master, so it comes from the Rust side as a
// recording: every input in every cycle of a run of the whole bench (sim::wqe::replay), which
// this loop and the Rust replay drive into a fresh model alike, reading the same outputs.
#include "Vwqe_engine.h"
#include "verilated.h"
#include "bench.h"
#include <cstddef>
#include <cstdint>
#include <memory>

// sim::wqe::replay::EngineInputs, field for field (repr(C)).
struct EngineInputs {
    uint64_t rd_rsp_data;
    uint32_t axil_wdata;
    uint16_t axil_awaddr;
    uint16_t axil_araddr;
    uint64_t bits;  // the narrow inputs, packed as replay::FIELDS lists them
};

// The next `width` bits of `bits` from `at`, which then moves past them.
static inline uint64_t take(uint64_t bits, unsigned& at, unsigned width) {
    const uint64_t v = (bits >> at) & ((uint64_t{1} << width) - 1);
    at += width;
    return v;
}

// Replays `n` records; returns the checksum replay::Seen holds and writes the beats taken.
extern "C" uint64_t wqe_engine_native_replay(const EngineInputs* in, size_t n, uint64_t* beats) {
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    const std::unique_ptr<Vwqe_engine> model{new Vwqe_engine{ctx.get(), "TOP"}};
    Vwqe_engine& top = *model;
    bench_reset(top);
    uint64_t check = 0, taken = 0;
    for (size_t c = 0; c < n; ++c) {
        const EngineInputs& i = in[c];
        unsigned at = 0;
        top.s_axil_awvalid = take(i.bits, at, 1);
        top.s_axil_wvalid = take(i.bits, at, 1);
        top.s_axil_wstrb = take(i.bits, at, 4);
        top.s_axil_bready = take(i.bits, at, 1);
        top.s_axil_arvalid = take(i.bits, at, 1);
        top.s_axil_rready = take(i.bits, at, 1);
        top.m_rd_req_ready = take(i.bits, at, 1);
        top.s_rd_rsp_valid = take(i.bits, at, 1);
        top.s_rd_rsp_keep = take(i.bits, at, 8);
        top.s_rd_rsp_last = take(i.bits, at, 1);
        top.s_rd_rsp_tag = take(i.bits, at, 4);
        top.s_rd_rsp_err = take(i.bits, at, 1);
        top.m_wr_ready = take(i.bits, at, 1);
        top.s_wr_done_valid = take(i.bits, at, 1);
        top.s_wr_done_tag = take(i.bits, at, 2);
        top.s_wr_done_err = take(i.bits, at, 1);
        top.m_axis_tready = take(i.bits, at, 1);
        top.rx_err_set_valid = take(i.bits, at, 1);
        top.rx_err_set_slot = take(i.bits, at, 8);
        top.s_rd_rsp_data = i.rd_rsp_data;
        top.s_axil_wdata = i.axil_wdata;
        top.s_axil_awaddr = i.axil_awaddr;
        top.s_axil_araddr = i.axil_araddr;
        if (top.m_axis_tvalid) {
            check += top.m_axis_tdata;
            taken += top.m_axis_tready;
        }
        if (top.m_rd_req_valid) check += top.m_rd_req_addr;
        if (top.m_wr_valid) check += top.m_wr_addr ^ top.m_wr_data;
        if (top.s_axil_rvalid) check += top.s_axil_rdata;
        bench_tick(top);
    }
    top.final();
    *beats = taken;
    return check;
}
