// A plain C++ Verilator harness for the RSS pipeline at 64 bits, linked into the co-simulation
// bench so that the Rust harness (sim/benches/cosim.rs) can be compared with native C++ on the
// same model in the same run. The stimulus comes from the Rust side as arrays, so both loops
// drive the same beats: frames back to back, repeated, into an always-ready sink; each cycle
// reads the output beat's handshake and keep and, on a frame's last beat, its hash and queue.
#include "Vrss_pipeline_64.h"
#include "verilated.h"
#include "bench.h"
#include <cstddef>
#include <cstdint>
#include <memory>

extern "C" uint64_t rss_pipeline_64_native_bench(const uint64_t* data, const uint8_t* keep,
                                                 const uint8_t* last, const uint8_t* user,
                                                 size_t beats, uint64_t cycles) {
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    const std::unique_ptr<Vrss_pipeline_64> model{new Vrss_pipeline_64{ctx.get(), "TOP"}};
    Vrss_pipeline_64& top = *model;
    bench_reset(top);
    top.m_axis_tready = 1;
    uint64_t check = 0;
    size_t i = 0;
    for (uint64_t c = 0; c < cycles; ++c) {
        top.s_axis_tvalid = 1;
        top.s_axis_tdata = data[i];
        top.s_axis_tkeep = keep[i];
        top.s_axis_tlast = last[i];
        top.s_axis_tuser = user[i];
        if (top.m_axis_tvalid) {
            check += top.m_axis_tkeep;
            if (top.m_axis_tlast) check += top.m_meta_hash + top.m_meta_queue;
        }
        const bool take = top.s_axis_tready;
        bench_tick(top);
        i = bench_next(i, take, beats);
    }
    top.final();
    return check;
}
