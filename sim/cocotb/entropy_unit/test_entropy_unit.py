"""The cocotb half of `make bench-cocotb`: the entropy unit's random back-pressure check.

The vectors (requests and the model's results) come from the Rust half
(sim/benches/vs_cocotb.rs), which runs the same check: a request offered with probability 0.7
a cycle, the sink ready with probability 0.7, every result checked in order. Reports simulated
cycles per wall-clock second to ROCENIC_COCOTB_OUT.

Every output of the unit and every ready comes from a flip-flop, so the signals are read and
driven once per cycle at the falling edge: what is read there holds through the next rising
edge, and a handshake happens at that edge exactly when valid and ready are both high then.
"""

import csv
import os
import random
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

IDLE = 0.3
STALL = 0.3
FIELDS = ("mode", "profile", "qp_type", "lqpn", "rqpn", "fl", "src_port", "dst_port")


@cocotb.test()
async def random_back_pressure(dut):
    with open(os.environ["ROCENIC_COCOTB_VECTORS"]) as f:
        rows = [{k: int(v) for k, v in row.items()} for row in csv.DictReader(f)]
    seed = int(os.environ.get("ROCENIC_SEED", "1"))
    rng = random.Random(seed)
    dut._log.info("%d requests, seed %d", len(rows), seed)

    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    dut.rst.value = 1
    dut.s_req_valid.value = 0
    dut.m_res_ready.value = 0
    for _ in range(4):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0

    sent = got = cycles = 0
    offer = None
    limit = 64 * len(rows) + 1000
    start = time.perf_counter()
    while got < len(rows):
        await FallingEdge(dut.clk)
        cycles += 1
        assert cycles < limit, f"hang: {got} of {len(rows)} results after {cycles} cycles"
        # The sink: a result handshakes at the next edge if it is valid now and ready is high.
        ready = rng.random() >= STALL
        dut.m_res_ready.value = int(ready)
        if ready and dut.m_res_valid.value:
            want = rows[got]
            fl, sport = int(dut.m_res_flow_label.value), int(dut.m_res_udp_sport.value)
            assert (fl, sport) == (want["flow_label"], want["udp_sport"]), (
                f"result {got}: flow label {fl:#x}, port {sport} "
                f"!= {want['flow_label']:#x}, {want['udp_sport']} (seed {seed})"
            )
            got += 1
        # The source: a request stays offered until it is taken.
        if offer is None and sent < len(rows) and rng.random() >= IDLE:
            offer = rows[sent]
            for k in FIELDS:
                getattr(dut, f"s_req_{k}").value = offer[k]
        dut.s_req_valid.value = int(offer is not None)
        if offer is not None and dut.s_req_ready.value:
            offer = None
            sent += 1
    elapsed = time.perf_counter() - start
    dut._log.info("%d cycles in %.2f s: %.0f cycles/s", cycles, elapsed, cycles / elapsed)
    with open(os.environ["ROCENIC_COCOTB_OUT"], "w") as f:
        f.write(f"{cycles} {elapsed}\n")
