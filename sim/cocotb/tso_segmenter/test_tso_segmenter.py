"""A cocotb smoke test of the TSO segmenter, driven as a cocotb user would: cocotbext-axi's
AXI-Stream source and sink bound by the ports' prefixes (s_axis_, m_axis_), the descriptor and
status handshakes by hand.

One send: an Ethernet + IPv4 + TCP header template and 4,000 payload bytes at MSS 1448. Checks
three segments of 1448, 1448 and 1104 bytes, each with the template's addresses, the IPv4
total length and identification, the TCP sequence number, a valid IPv4 header checksum and a
valid TCP checksum, PSH and FIN only on the last, and a status of success with 3 segments.
"""

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

MSS = 1448
SEQ0 = 0x01020304
ID0 = 0x4242


def csum(data):
    """RFC 1071 ones' complement sum, folded and complemented."""
    if len(data) % 2:
        data += b"\0"
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def template():
    eth = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x08\x00"
    ip = bytes([0x45, 0, 0, 0]) + ID0.to_bytes(2, "big") + bytes([0x40, 0, 64, 6, 0, 0])
    ip += bytes([10, 0, 0, 1, 10, 0, 0, 2])
    tcp = (40000).to_bytes(2, "big") + (5201).to_bytes(2, "big") + SEQ0.to_bytes(4, "big")
    tcp += bytes(4) + bytes([0x50, 0x19]) + (65535).to_bytes(2, "big") + bytes(4)  # PSH|FIN|ACK
    return eth + ip + tcp


@cocotb.test()
async def one_send_three_segments(dut):
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    dut.s_desc_valid.value = 0
    dut.m_sts_ready.value = 0
    dut.rst.value = 1
    for _ in range(4):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    hdr = template()
    payload = bytes((i * 7 + 3) & 0xFF for i in range(4000))
    dut.s_desc_hdr_len.value = len(hdr)
    dut.s_desc_mss.value = MSS
    dut.s_desc_len.value = len(payload)
    dut.s_desc_ipoib.value = 0
    dut.s_desc_valid.value = 1
    await source.send(AxiStreamFrame(hdr + payload))
    while True:
        await RisingEdge(dut.clk)
        if dut.s_desc_ready.value:
            break
    dut.s_desc_valid.value = 0

    sizes = [1448, 1448, 1104]
    for i, size in enumerate(sizes):
        seg = bytes((await sink.recv()).tdata)
        ip, tcp, data = seg[14:34], seg[34:54], seg[54:]
        assert len(seg) == 54 + size, f"segment {i}: {len(seg)} bytes"
        assert seg[:14] == hdr[:14], f"segment {i}: Ethernet header"
        assert data == payload[i * MSS:i * MSS + size], f"segment {i}: payload"
        assert int.from_bytes(ip[2:4], "big") == 40 + size, f"segment {i}: IPv4 total length"
        assert int.from_bytes(ip[4:6], "big") == ID0 + i, f"segment {i}: identification"
        assert ip[12:20] == hdr[26:34], f"segment {i}: addresses"
        assert csum(ip) == 0, f"segment {i}: IPv4 header checksum"
        assert int.from_bytes(tcp[4:8], "big") == SEQ0 + i * MSS, f"segment {i}: sequence"
        last = i == len(sizes) - 1
        assert (tcp[13] & 0x09 == 0x09) == last, f"segment {i}: PSH/FIN {tcp[13]:#x}"
        pseudo = ip[12:20] + bytes([0, 6]) + (20 + size).to_bytes(2, "big")
        assert csum(pseudo + tcp + data) == 0, f"segment {i}: TCP checksum"

    dut.m_sts_ready.value = 1
    while True:
        await RisingEdge(dut.clk)
        if dut.m_sts_valid.value:
            break
    assert int(dut.m_sts_error.value) == 0, f"status {int(dut.m_sts_error.value)}"
    assert int(dut.m_sts_segments.value) == 3, f"{int(dut.m_sts_segments.value)} segments"
    dut._log.info("3 segments, each checked; status success")
