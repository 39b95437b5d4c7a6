"""A cocotb smoke test of the RSS pipeline, driven as a cocotb user would: cocotbext-axi's
AXI4-Lite master and AXI-Stream source and sink bound by the ports' prefixes (s_axil_,
s_axis_, m_axis_).

It reads the block's ID, programs context 0 (the one a packet no rule matches goes to) with
the Microsoft verification key over IPv4 addresses and TCP ports, sends the public suite's
IPv4 rows as TCP frames, and checks that each frame comes out unchanged with the suite's hash
(`rocenic`'s model and RTL tests hold the same rows).
"""

import os
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotbext.axi import (AxiLiteBus, AxiLiteMaster, AxiStreamBus, AxiStreamFrame,
                           AxiStreamSink, AxiStreamSource)

import regmap

KEY = bytes.fromhex(
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
# (source, source port, destination, destination port, hash of addresses and ports)
ROWS = [
    ("66.9.149.187", 2794, "161.142.100.80", 1766, 0x51CCC178),
    ("199.92.111.2", 14230, "65.69.140.83", 4739, 0xC626B0EA),
    ("24.19.198.95", 12898, "12.22.207.184", 38024, 0x5C2B394A),
    ("38.27.205.30", 48228, "209.142.163.6", 2217, 0xAFC7327F),
    ("153.39.163.191", 44251, "202.188.127.2", 1303, 0x10E828A2),
]


def tcp_frame(src, sport, dst, dport):
    """Ethernet II, IPv4 (no options), TCP (no options), 8 payload bytes."""
    ip4 = lambda a: bytes(int(x) for x in a.split("."))
    tcp = sport.to_bytes(2, "big") + dport.to_bytes(2, "big") + bytes(8) + bytes([0x50, 0x18])
    tcp += bytes(6) + b"rocenic!"
    ip = bytes([0x45, 0]) + (20 + len(tcp)).to_bytes(2, "big") + bytes(4) + bytes([64, 6, 0, 0])
    ip += ip4(src) + ip4(dst)
    return bytes(6) + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip + tcp


@cocotb.test()
async def verification_rows(dut):
    regs = regmap.load(Path(os.environ["ROCENIC_ROOT"]) / "rtl/rss/rss_regs_pkg.sv")
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    axil = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    dut.rst.value = 1
    for _ in range(4):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    ident = int.from_bytes((await axil.read(regs["RSS_ID"], 4)).data, "little")
    assert ident == regs["RSS_ID_VALUE"], f"ID {ident:#x}"

    fields = sum(1 << regs[f"RSS_FIELD_{f}"]
                 for f in ("SRC_IPV4", "DST_IPV4", "SRC_PORT_TCP", "DST_PORT_TCP"))
    await axil.write(regs["RSS_CTX_CONTROL"], (0).to_bytes(4, "little"))
    await axil.write(regs["RSS_CTX_FIELDS"], fields.to_bytes(4, "little"))
    for i in range(regs["RSS_CTX_KEY_WORDS"]):
        word = KEY[4 * i:4 * i + 4].ljust(4, b"\0")
        # Byte 4i in bits 31:24: the word big-endian, the bus little-endian.
        await axil.write(regs["RSS_CTX_KEY"] + 4 * i, int.from_bytes(word, "big").to_bytes(4, "little"))
    await axil.write(regs["RSS_COMMIT"], (1 << regs["RSS_COMMIT_CONTEXT_LSB"]).to_bytes(4, "little"))
    while int.from_bytes((await axil.read(regs["RSS_STATUS"], 4)).data, "little") & 1:
        pass

    # The metadata is valid with a frame's last beat.
    hashes = []

    async def watch():
        while True:
            await RisingEdge(dut.clk)
            if dut.m_axis_tvalid.value and dut.m_axis_tready.value and dut.m_axis_tlast.value:
                hashes.append(int(dut.m_meta_hash.value))

    cocotb.start_soon(watch())
    frames = [tcp_frame(*row[:4]) for row in ROWS]
    for f in frames:
        await source.send(AxiStreamFrame(f, tuser=0))
    for i, (f, row) in enumerate(zip(frames, ROWS)):
        out = await sink.recv()
        assert bytes(out.tdata) == f, f"row {i}: the frame changed"
    for _ in range(4):
        await RisingEdge(dut.clk)
    want = [row[4] for row in ROWS]
    assert hashes == want, f"hashes {[hex(h) for h in hashes]} != {[hex(h) for h in want]}"
    dut._log.info("%d frames through unchanged with the suite's hashes", len(frames))
