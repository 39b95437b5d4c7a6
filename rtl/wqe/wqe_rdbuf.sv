// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_RDBUF_SV
`define ROCENIC_WQE_RDBUF_SV
`include "rtl/wqe/wqe_bram.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The packet buffer: the gathered bytes of the packets being planned and sent, and the tag
// table that tracks each piece's DMA read. wqe_gather allocates a tag with the piece's first
// word; the DMA responses of that tag, which may come in any order with the other tags' and
// after any latency, are written from there one beat per word (a response is packed from lane
// 0, so every piece starts on a word); the last beat marks the tag done (or failed). Inline
// pieces are written by wqe_gather itself through the same port when no response beat takes
// it. wqe_emit reads the words back and frees the tag.
module wqe_rdbuf #(
    parameter int TAG_W = 4,    // DMA tag width; the tags 0 .. 2^TAG_W - 2 are tracked here
    parameter int BUF_W = 11    // log2 of the buffer's 64-bit words
) (
    input  wire                  clk,
    input  wire                  rst,
    // allocation (wqe_gather)
    input  wire                  alloc_valid,
    input  wire [TAG_W-1:0]      alloc_tag,
    input  wire [BUF_W-1:0]      alloc_base,
    // DMA responses of the pieces' tags (always accepted)
    input  wire                  s_rsp_valid,
    input  wire [63:0]           s_rsp_data,
    input  wire [TAG_W-1:0]      s_rsp_tag,
    input  wire                  s_rsp_last,
    input  wire                  s_rsp_err,
    // inline writes (wqe_gather), when the port is free
    input  wire                  inl_valid,
    output logic                 inl_ready,
    input  wire [BUF_W-1:0]      inl_addr,
    input  wire [63:0]           inl_data,
    input  wire                  inl_done,
    input  wire [TAG_W-1:0]      inl_tag,
    // state for wqe_gather and wqe_emit
    output logic [2**TAG_W-2:0]  busy,
    output logic [2**TAG_W-2:0]  done,
    output logic [2**TAG_W-2:0]  err,
    // release (wqe_emit)
    input  wire                  free_valid,
    input  wire [TAG_W-1:0]      free_tag,
    // read port, two cycles' latency (wqe_emit)
    input  wire [BUF_W-1:0]      rd_addr,
    output logic [63:0]          rd_data
);

    localparam int TAGS = 2 ** TAG_W - 1;

    logic [TAGS-1:0][BUF_W-1:0] next_q; // where each tag's next beat goes

    // A response beat is registered first, with the address of its word, and written the
    // cycle after. The address is its tag's pointer, or, when the beat before it was of the
    // same tag (whose pointer steps only as that one is written), that beat's address plus 1.
    logic             rv_q, rlast_q, rerr_q;
    logic [TAG_W-1:0] rtag_q;
    logic [TAGS-1:0]  rhot_q;
    logic [63:0]      rdata_q;
    logic [BUF_W-1:0] raddr_q;
    wire [BUF_W-1:0]  raddr_next = raddr_q + 1'b1;
    always_ff @(posedge clk) begin
        if (rst) begin
            rv_q <= 1'b0;
        end else begin
            rv_q <= s_rsp_valid;
        end
        rtag_q  <= s_rsp_tag;
        rlast_q <= s_rsp_last;
        rerr_q  <= s_rsp_err;
        rdata_q <= s_rsp_data;
        raddr_q <= rv_q && rtag_q == s_rsp_tag ? raddr_next : next_q[s_rsp_tag];
        for (int t = 0; t < TAGS; t++) begin
            rhot_q[t] <= s_rsp_tag == TAG_W'(t);
        end
    end

    assign inl_ready = !rv_q;

    // A word is read only while its piece is complete, and written only while its piece is
    // being filled, so a read never meets a write to its word at the same edge (the read port
    // reads on every cycle, but its word is only used then).
    wqe_bram #(.WIDTH(64), .AW(BUF_W)) u_mem (
        .clk,
        .wr_en(rv_q ? !rerr_q : inl_valid),
        .wr_addr(rv_q ? raddr_q : inl_addr),
        .wr_data(rv_q ? rdata_q : inl_data),
        .rd_addr, .rd_data
    );

    always_ff @(posedge clk) begin
        if (rst) begin
            busy <= '0;
            done <= '0;
            err  <= '0;
        end else begin
            if (rv_q) begin
                if (rlast_q) begin
                    done[rtag_q] <= 1'b1;
                    err[rtag_q]  <= rerr_q;
                end
            end else if (inl_valid && inl_done) begin
                done[inl_tag] <= 1'b1;
            end
            if (free_valid) begin
                busy[free_tag] <= 1'b0;
                done[free_tag] <= 1'b0;
                err[free_tag]  <= 1'b0;
            end
            // Allocation last: a tag freed and taken in one cycle is taken.
            if (alloc_valid) begin
                busy[alloc_tag]   <= 1'b1;
                done[alloc_tag]   <= 1'b0;
                err[alloc_tag]    <= 1'b0;
            end
        end
    end

    // Each tag's write pointer steps as a beat of that tag is written; allocation sets it.
    for (genvar t = 0; t < TAGS; t++) begin : g_next
        always_ff @(posedge clk) begin
            if (alloc_valid && alloc_tag == TAG_W'(t)) begin
                next_q[t] <= alloc_base;
            end else if (rv_q && rhot_q[t]) begin
                next_q[t] <= raddr_next;
            end
        end
    end

endmodule

`endif  // ROCENIC_WQE_RDBUF_SV
