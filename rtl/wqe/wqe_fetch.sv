// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_FETCH_SV
`define ROCENIC_WQE_FETCH_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/wqe/wqe_bram.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// WQE fetch: reads the WQE of each pick from host memory into one of two WQE buffers, as the
// model's queues do (docs/wqe.md, "Scheduling"): the first block, whose control segment says
// how many blocks the WQE has, then the rest. When the ring's slots are two blocks or more, the
// first read takes two blocks, so a WQE of up to two blocks (a UD SEND with one data segment)
// costs one read's latency, not two. If that read faults, block 0 is read alone and the model's
// two-read order decides, so a fault in block 1 still reports block 0's fields.
//
// Outcomes handed to wqe_parse with the buffer (meta_status):
//   wqe_fmt_pkg::STATUS_SUCCESS    the whole WQE is in the buffer;
//   wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR  BLOCKS is 0 or larger than the ring's stride (block 0 is in the buffer);
//   wqe_fmt_pkg::STATUS_GENERAL_ERR    a read faulted (meta_bytes says whether block 0 arrived: 0 or 64).
//
// Two buffers, so that the parse of one WQE overlaps the fetch of the next; parse frees a
// buffer with buf_free. One read is outstanding at a time, under tag TAG.
module wqe_fetch
#(
    parameter int DATA_BYTES = 8,   // DMA beat bytes; only 8 (64-bit) is supported
    parameter int TAG_W      = 4,   // DMA tag width
    parameter int TAG        = 0    // the tag fetch reads under
) (
    input  wire                    clk,
    input  wire                    rst,
    // picks from the scheduler
    input  wire                    s_pick_valid,
    output logic                   s_pick_ready,
    input  wire wqe_dp_pkg::pick_t             s_pick,
    // DMA read requests
    output logic                   m_rd_req_valid,
    input  wire                    m_rd_req_ready,
    output logic [63:0]            m_rd_req_addr,
    output logic [12:0]            m_rd_req_len,
    output logic [TAG_W-1:0]       m_rd_req_tag,
    // DMA read responses for TAG only
    input  wire                    s_rd_valid,
    output logic                   s_rd_ready,
    input  wire [8*DATA_BYTES-1:0] s_rd_data,
    input  wire                    s_rd_last,
    input  wire                    s_rd_err,
    // the fetched WQE, to wqe_parse
    output logic                   m_wqe_valid,
    input  wire                    m_wqe_ready,
    output wqe_dp_pkg::pick_t                  m_wqe_pick,
    output logic [4:0]             m_wqe_status,
    output logic [6:0]             m_wqe_bytes64,  // 64-byte blocks in the buffer: 0, 1 or BLOCKS
    output logic                   m_wqe_buf,
    // buffer read port (two cycles' latency) and release, for wqe_parse
    input  wire                    rd_buf,
    input  wire [6:0]              rd_word,
    output logic [63:0]            rd_data,
    input  wire                    buf_free_valid,
    input  wire                    buf_free_id
);

    if (DATA_BYTES != 8) begin : g_bad_width
        $error("wqe_fetch: DATA_BYTES must be 8");
    end

    // Two buffers of 16 blocks of 8 words, in a block RAM with its output register (the
    // smallest wqe_bram is 1,024 words). Parse reads only a buffer it was handed, which fetch
    // does not fill until it is freed, so a read never meets a write to its word (the read
    // port reads on every cycle, but its word is only used then).
    logic [1:0]  busy_q;              // buffer holds a WQE not yet freed by parse

    typedef enum logic [2:0] {S_IDLE, S_REQ0, S_WAIT0, S_REQ1, S_WAIT1, S_HAND} state_t;
    // (S_REQ0 and S_WAIT0 serve both the first read and, after a fault, block 0 alone.)
    state_t      state_q;
    wqe_dp_pkg::pick_t       pick_q;
    logic        buf_q;               // the buffer being filled
    logic [6:0]  word_q;              // next word written in it
    logic [4:0]  status_q;
    logic [6:0]  blocks_q;            // blocks read so far
    logic [4:0]  want_q;              // BLOCKS of the WQE
    logic        two_q;               // the first read takes two blocks
    // The read to request, registered (the second read's address is a 64-bit sum, worked out
    // a cycle ahead in rest_addr_q: the pick is long fixed by then).
    logic [63:0] req_addr_q, rest_addr_q;
    logic [12:0] req_len_q;

    wire [4:0] stride_blocks = 5'd1 << pick_q.stride_log2;
    wire       free_buf      = busy_q[0] ? 1'b1 : 1'b0;     // lowest free buffer
    wire       any_free      = !(busy_q[0] && busy_q[1]);

    assign s_pick_ready   = state_q == S_IDLE && any_free;
    assign m_rd_req_valid = state_q == S_REQ0 || state_q == S_REQ1;
    assign m_rd_req_addr  = req_addr_q;
    assign m_rd_req_len   = req_len_q;
    assign m_rd_req_tag   = TAG_W'(TAG);
    assign s_rd_ready     = state_q == S_WAIT0 || state_q == S_WAIT1;
    assign m_wqe_valid    = state_q == S_HAND;
    assign m_wqe_pick     = pick_q;
    assign m_wqe_status   = status_q;
    assign m_wqe_bytes64  = blocks_q;
    assign m_wqe_buf      = buf_q;

    wire beat = s_rd_valid && s_rd_ready;

    wqe_bram #(.WIDTH(64), .AW(10)) u_mem (
        .clk,
        .wr_en(beat && !s_rd_err), .wr_addr({2'b0, buf_q, word_q}), .wr_data(s_rd_data),
        .rd_addr({2'b0, rd_buf, rd_word}), .rd_data
    );

    // BLOCKS is byte 2 of block 0's first word, which is word 0 of the buffer: it is taken as
    // the beat goes by rather than read back. What it means is registered from it (the read's
    // last beat, where it is acted on, comes seven beats later at the earliest).
    logic [7:0] blocks_byte_q;
    logic       blocks_bad_q;     // 0 or past the stride
    logic       blocks_in_q;      // all in the first read
    always_ff @(posedge clk) begin
        rest_addr_q  <= pick_q.addr + (two_q ? 64'd128 : 64'd64);
        blocks_bad_q <= blocks_byte_q == 8'd0 || blocks_byte_q > {3'b0, stride_blocks};
        blocks_in_q  <= blocks_byte_q == 8'd1 || (two_q && blocks_byte_q == 8'd2);
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            state_q <= S_IDLE;
            busy_q  <= '0;
        end else begin
            if (buf_free_valid) begin
                busy_q[buf_free_id] <= 1'b0;
            end
            case (state_q)
                // Loaded while idle, offered or not (nothing reads them here), so that the
                // pick's load waits for the state alone, not for the handshake too.
                S_IDLE: begin
                    pick_q   <= s_pick;
                    buf_q    <= free_buf;
                    word_q   <= '0;
                    blocks_q <= '0;
                    two_q    <= s_pick.stride_log2 != 3'd0;
                    req_addr_q <= s_pick.addr;
                    req_len_q  <= s_pick.stride_log2 != 3'd0 ? 13'd128 : 13'd64;
                    if (s_pick_valid && s_pick_ready) begin
                        state_q <= S_REQ0;
                    end
                end
                S_REQ0: if (m_rd_req_ready) begin
                    state_q <= S_WAIT0;
                end
                S_WAIT0: if (beat) begin
                    word_q <= word_q + 7'd1;
                    if (word_q == 7'd0) begin
                        blocks_byte_q <= s_rd_data[23:16];
                    end
                    if (s_rd_last) begin
                        if (s_rd_err && two_q) begin
                            // Which block faulted decides: read block 0 alone.
                            two_q   <= 1'b0;
                            req_len_q <= 13'd64;
                            word_q  <= '0;
                            state_q <= S_REQ0;
                        end else if (s_rd_err) begin
                            status_q <= wqe_fmt_pkg::STATUS_GENERAL_ERR;
                            state_q  <= S_HAND;
                        end else begin
                            blocks_q <= 7'd1;
                            // word 0 arrives before the last beat of a 64-byte read
                            if (blocks_bad_q) begin
                                status_q <= wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
                                state_q  <= S_HAND;
                            end else if (blocks_in_q) begin
                                blocks_q <= {4'b0, blocks_byte_q[2:0]};
                                status_q <= wqe_fmt_pkg::STATUS_SUCCESS;
                                state_q  <= S_HAND;
                            end else begin
                                want_q     <= blocks_byte_q[4:0];
                                req_addr_q <= rest_addr_q;
                                req_len_q  <= {2'b0, blocks_byte_q[4:0] - (two_q ? 5'd2 : 5'd1), 6'd0};
                                state_q    <= S_REQ1;
                            end
                        end
                    end
                end
                S_REQ1: if (m_rd_req_ready) begin
                    state_q <= S_WAIT1;
                end
                S_WAIT1: if (beat) begin
                    word_q <= word_q + 7'd1;
                    if (s_rd_last) begin
                        status_q <= s_rd_err ? wqe_fmt_pkg::STATUS_GENERAL_ERR : wqe_fmt_pkg::STATUS_SUCCESS;
                        blocks_q <= s_rd_err ? 7'd1 : {2'b0, want_q};   // block 0 is in either way
                        state_q  <= S_HAND;
                    end
                end
                // A WQE whose block 0 never arrived leaves its buffer empty, and parse frees
                // only a buffer that holds blocks: marked busy, it would stay so, and two such
                // WQEs stopped every fetch.
                S_HAND: if (m_wqe_ready) begin
                    busy_q[buf_q] <= blocks_q != 7'd0;
                    state_q       <= S_IDLE;
                end
                default: state_q <= S_IDLE;
            endcase
        end
    end

endmodule

`endif  // ROCENIC_WQE_FETCH_SV
