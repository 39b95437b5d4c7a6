// A plain C++ Verilator harness for the entropy unit, linked into the co-simulation bench so
// that the Rust harness can be compared with native C++ on the same model in the same run.
// It drives the same stimulus shape as the Rust bench: back-to-back QP requests, always-ready
// sink, one result read per cycle. Context and model are heap-allocated as in Verilator's own
// example harnesses (and as the Rust shim does).
#include "Ventropy_unit.h"
#include "verilated.h"
#include "bench.h"
#include <cstdint>
#include <memory>

extern "C" uint64_t entropy_unit_native_bench(uint64_t cycles) {
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    const std::unique_ptr<Ventropy_unit> model{new Ventropy_unit{ctx.get(), "TOP"}};
    Ventropy_unit& top = *model;
    bench_reset(top);
    top.m_res_ready = 1;
    uint64_t check = 0;
    uint32_t q = 1;
    for (uint64_t c = 0; c < cycles; ++c) {
        q = (q * 1103515245u + 12345u) & 0xFFFFFFu;
        top.s_req_valid = 1;
        top.s_req_mode = 0;
        top.s_req_profile = 0;
        top.s_req_qp_type = 0;
        top.s_req_lqpn = q;
        top.s_req_rqpn = q ^ 0x5A5A5Au;
        top.s_req_fl = 0;
        top.s_req_src_port = 0;
        top.s_req_dst_port = 0;
        if (top.m_res_valid) check += top.m_res_udp_sport;
        bench_tick(top);
    }
    top.final();
    return check;
}
