// What the plain C++ bench harnesses (sim/cpp/<dut>_bench.cpp) do as the Rust harness does, so
// that the two loops differ only in the language driving them: a cycle is settle, rising edge,
// falling edge (the shim's tick), reset is held for four cycles and released (Sim::reset), and
// the stimulus streams repeat from their start.
#pragma once

#include <cstddef>

template <class Top> inline void bench_tick(Top& top) {
    top.eval();
    top.clk = 1;
    top.eval();
    top.clk = 0;
    top.eval();
}

template <class Top> inline void bench_reset(Top& top) {
    top.clk = 0;
    top.rst = 1;
    for (int i = 0; i < 4; ++i) bench_tick(top);
    top.rst = 0;
    top.eval();
}

// The index after `i` in a stream of `n` items repeated from its start, if item `i` was taken.
inline size_t bench_next(size_t i, bool taken, size_t n) {
    return taken ? (i + 1 == n ? 0 : i + 1) : i;
}
