// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_NIC_DMA_SV
`define ROCENIC_NIC_DMA_SV
`include "rtl/top/nic_dma_mux.sv"
`include "rtl/top/nic_dma_demux.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The full core's one DMA port (docs/wqe-dma.md, "DMA interface") shared by two sources: source 0
// the WQE engine, source 1 the receive path, each with its own read port (tagged requests,
// responses in any order) and write port (bursts and their completions).
//
// Reads: the requests are merged round robin, each tag widened by a top bit that names its
// source ({source, tag}), so the two tag spaces stay apart on the host's side; every response
// beat goes back to the source its tag's top bit names, with that bit taken off, in the order
// the host sent them. Writes: bursts (the beats up to `last`) are merged round robin and never
// interleaved, tags widened the same way; each completion goes back by its tag's top bit.
//
// Every valid and ready comes from a flip-flop (nic_dma_mux, nic_dma_demux, skid buffers):
// a request takes 2 cycles through, a response 2. No beat is lost or duplicated under any
// latency or back-pressure. The responses share one stream from the host: a source that holds
// its ready low holds the other source's responses once its two-beat buffer is full, so each
// source must take the responses to what it asked for without waiting on the other (the WQE
// engine reserves room before it asks, docs/wqe-dma.md; the receive path must too).
module nic_dma #(
    parameter  int DATA_BYTES = 8,  // lanes of a beat (the core's 64-bit data path)
    parameter  int RD_TAG_W   = 4,  // each source's read tag bits (the host's are one more)
    parameter  int WR_TAG_W   = 2,  // each source's write tag bits (the host's are one more)
    localparam int DW         = 8 * DATA_BYTES
) (
    input  wire                     clk,
    input  wire                     rst,              // synchronous, active high
    // source 0 (the WQE engine): its m_rd_req_* / s_rd_rsp_* / m_wr_* / s_wr_done_*
    input  wire                     s0_rd_req_valid,
    output logic                    s0_rd_req_ready,
    input  wire  [63:0]             s0_rd_req_addr,
    input  wire  [12:0]             s0_rd_req_len,
    input  wire  [RD_TAG_W-1:0]     s0_rd_req_tag,
    output logic                    m0_rd_rsp_valid,
    input  wire                     m0_rd_rsp_ready,
    output logic [DW-1:0]           m0_rd_rsp_data,
    output logic [DATA_BYTES-1:0]   m0_rd_rsp_keep,
    output logic                    m0_rd_rsp_last,
    output logic [RD_TAG_W-1:0]     m0_rd_rsp_tag,
    output logic                    m0_rd_rsp_err,
    input  wire                     s0_wr_valid,
    output logic                    s0_wr_ready,
    input  wire  [63:0]             s0_wr_addr,
    input  wire  [DW-1:0]           s0_wr_data,
    input  wire  [DATA_BYTES-1:0]   s0_wr_keep,
    input  wire                     s0_wr_last,
    input  wire  [WR_TAG_W-1:0]     s0_wr_tag,
    output logic                    m0_wr_done_valid,
    input  wire                     m0_wr_done_ready,
    output logic [WR_TAG_W-1:0]     m0_wr_done_tag,
    output logic                    m0_wr_done_err,
    // source 1 (the receive path), the same ports
    input  wire                     s1_rd_req_valid,
    output logic                    s1_rd_req_ready,
    input  wire  [63:0]             s1_rd_req_addr,
    input  wire  [12:0]             s1_rd_req_len,
    input  wire  [RD_TAG_W-1:0]     s1_rd_req_tag,
    output logic                    m1_rd_rsp_valid,
    input  wire                     m1_rd_rsp_ready,
    output logic [DW-1:0]           m1_rd_rsp_data,
    output logic [DATA_BYTES-1:0]   m1_rd_rsp_keep,
    output logic                    m1_rd_rsp_last,
    output logic [RD_TAG_W-1:0]     m1_rd_rsp_tag,
    output logic                    m1_rd_rsp_err,
    input  wire                     s1_wr_valid,
    output logic                    s1_wr_ready,
    input  wire  [63:0]             s1_wr_addr,
    input  wire  [DW-1:0]           s1_wr_data,
    input  wire  [DATA_BYTES-1:0]   s1_wr_keep,
    input  wire                     s1_wr_last,
    input  wire  [WR_TAG_W-1:0]     s1_wr_tag,
    output logic                    m1_wr_done_valid,
    input  wire                     m1_wr_done_ready,
    output logic [WR_TAG_W-1:0]     m1_wr_done_tag,
    output logic                    m1_wr_done_err,
    // the host: one read port and one write port, tags one bit wider
    output logic                    m_rd_req_valid,
    input  wire                     m_rd_req_ready,
    output logic [63:0]             m_rd_req_addr,
    output logic [12:0]             m_rd_req_len,
    output logic [RD_TAG_W:0]       m_rd_req_tag,     // {source, the source's tag}
    input  wire                     s_rd_rsp_valid,
    output logic                    s_rd_rsp_ready,
    input  wire  [DW-1:0]           s_rd_rsp_data,
    input  wire  [DATA_BYTES-1:0]   s_rd_rsp_keep,
    input  wire                     s_rd_rsp_last,
    input  wire  [RD_TAG_W:0]       s_rd_rsp_tag,
    input  wire                     s_rd_rsp_err,
    output logic                    m_wr_valid,
    input  wire                     m_wr_ready,
    output logic [63:0]             m_wr_addr,
    output logic [DW-1:0]           m_wr_data,
    output logic [DATA_BYTES-1:0]   m_wr_keep,
    output logic                    m_wr_last,
    output logic [WR_TAG_W:0]       m_wr_tag,         // {source, the source's tag}
    input  wire                     s_wr_done_valid,
    output logic                    s_wr_done_ready,
    input  wire  [WR_TAG_W:0]       s_wr_done_tag,
    input  wire                     s_wr_done_err
);

    // ---- read requests: one-beat packets, round robin ------------------------------------------
    localparam int RQ_W = 64 + 13 + RD_TAG_W;
    logic rq_src, rq_last;
    logic [RD_TAG_W-1:0] rq_tag;

    nic_dma_mux #(.WIDTH(RQ_W)) u_rd_req (
        .clk, .rst,
        .s_valid({s1_rd_req_valid, s0_rd_req_valid}),
        .s_ready({s1_rd_req_ready, s0_rd_req_ready}),
        .s_data({s1_rd_req_addr, s1_rd_req_len, s1_rd_req_tag,
                 s0_rd_req_addr, s0_rd_req_len, s0_rd_req_tag}),
        .s_last(2'b11),
        .m_valid(m_rd_req_valid), .m_ready(m_rd_req_ready),
        .m_data({m_rd_req_addr, m_rd_req_len, rq_tag}),
        .m_last(rq_last), .m_src(rq_src)
    );
    assign m_rd_req_tag = {rq_src, rq_tag};
    wire unused_rq_last = rq_last;  // every request is its own packet

    // ---- read responses: back by the tag's top bit ---------------------------------------------
    localparam int RS_W = DW + DATA_BYTES + 1 + RD_TAG_W + 1;

    nic_dma_demux #(.WIDTH(RS_W)) u_rd_rsp (
        .clk, .rst,
        .s_valid(s_rd_rsp_valid), .s_ready(s_rd_rsp_ready),
        .s_data({s_rd_rsp_data, s_rd_rsp_keep, s_rd_rsp_last, s_rd_rsp_tag[RD_TAG_W-1:0],
                 s_rd_rsp_err}),
        .s_sel(s_rd_rsp_tag[RD_TAG_W]),
        .m_valid({m1_rd_rsp_valid, m0_rd_rsp_valid}),
        .m_ready({m1_rd_rsp_ready, m0_rd_rsp_ready}),
        .m_data({m1_rd_rsp_data, m1_rd_rsp_keep, m1_rd_rsp_last, m1_rd_rsp_tag, m1_rd_rsp_err,
                 m0_rd_rsp_data, m0_rd_rsp_keep, m0_rd_rsp_last, m0_rd_rsp_tag, m0_rd_rsp_err})
    );

    // ---- writes: bursts, round robin, never interleaved ----------------------------------------
    localparam int WQ_W = 64 + DW + DATA_BYTES + WR_TAG_W;
    logic wq_src;
    logic [WR_TAG_W-1:0] wq_tag;

    nic_dma_mux #(.WIDTH(WQ_W)) u_wr (
        .clk, .rst,
        .s_valid({s1_wr_valid, s0_wr_valid}),
        .s_ready({s1_wr_ready, s0_wr_ready}),
        .s_data({s1_wr_addr, s1_wr_data, s1_wr_keep, s1_wr_tag,
                 s0_wr_addr, s0_wr_data, s0_wr_keep, s0_wr_tag}),
        .s_last({s1_wr_last, s0_wr_last}),
        .m_valid(m_wr_valid), .m_ready(m_wr_ready),
        .m_data({m_wr_addr, m_wr_data, m_wr_keep, wq_tag}),
        .m_last(m_wr_last), .m_src(wq_src)
    );
    assign m_wr_tag = {wq_src, wq_tag};

    // ---- write completions: back by the tag's top bit ------------------------------------------
    nic_dma_demux #(.WIDTH(WR_TAG_W + 1)) u_wr_done (
        .clk, .rst,
        .s_valid(s_wr_done_valid), .s_ready(s_wr_done_ready),
        .s_data({s_wr_done_tag[WR_TAG_W-1:0], s_wr_done_err}),
        .s_sel(s_wr_done_tag[WR_TAG_W]),
        .m_valid({m1_wr_done_valid, m0_wr_done_valid}),
        .m_ready({m1_wr_done_ready, m0_wr_done_ready}),
        .m_data({m1_wr_done_tag, m1_wr_done_err, m0_wr_done_tag, m0_wr_done_err})
    );

endmodule

`resetall

`endif  // ROCENIC_NIC_DMA_SV
