// A plain C++ Verilator harness for the TSO segmenter at 64 bits, linked into the
// co-simulation bench beside the Rust harness (sim/benches/cosim.rs), same model, same run.
// The stimulus comes from the Rust side as arrays: the sends' descriptors (header length, MSS,
// payload length, IPoIB flag) and their data beats, both repeated in step; the segment and
// status sinks are always ready; each cycle reads both output handshakes.
#include "Vtso_64.h"
#include "verilated.h"
#include "bench.h"
#include <cstddef>
#include <cstdint>
#include <memory>

extern "C" uint64_t tso_64_native_bench(const uint32_t* desc, size_t sends, const uint64_t* data,
                                        const uint8_t* keep, const uint8_t* last, size_t beats,
                                        uint64_t cycles) {
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    const std::unique_ptr<Vtso_64> model{new Vtso_64{ctx.get(), "TOP"}};
    Vtso_64& top = *model;
    bench_reset(top);
    top.m_axis_tready = 1;
    top.m_sts_ready = 1;
    uint64_t check = 0;
    size_t d = 0, b = 0;
    for (uint64_t c = 0; c < cycles; ++c) {
        top.s_desc_valid = 1;
        top.s_desc_hdr_len = desc[4 * d];
        top.s_desc_mss = desc[4 * d + 1];
        top.s_desc_len = desc[4 * d + 2];
        top.s_desc_ipoib = desc[4 * d + 3];
        top.s_axis_tvalid = 1;
        top.s_axis_tdata = data[b];
        top.s_axis_tkeep = keep[b];
        top.s_axis_tlast = last[b];
        if (top.m_axis_tvalid) check += top.m_axis_tkeep;
        if (top.m_sts_valid) check += top.m_sts_segments;
        const bool take_desc = top.s_desc_ready;
        const bool take_beat = top.s_axis_tready;
        bench_tick(top);
        d = bench_next(d, take_desc, sends);
        b = bench_next(b, take_beat, beats);
    }
    top.final();
    return check;
}
