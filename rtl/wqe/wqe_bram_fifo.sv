// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_BRAM_FIFO_SV
`define ROCENIC_WQE_BRAM_FIFO_SV
`include "rtl/wqe/wqe_bram.sv"
`include "rtl/common/stream_fifo.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Valid/ready FIFO of 2^AW words in a block RAM with its output register (wqe_bram), for a
// FIFO too deep for LUT RAM whose head must not come straight off a block RAM's read register.
// Words are read from the RAM ahead of the sink into a small FIFO (stream_fifo, LUT RAM), one
// per clock while that has room for every word read and not yet taken (credits_q), so one
// word per clock flows; a word pushed in cycle c is on m_data in cycle c + 5 at the earliest.
//
// s_ready and m_valid are flip-flops.
module wqe_bram_fifo #(
    parameter int WIDTH = 64,   // bits of a word
    parameter int AW    = 10    // log2 of the words the block RAM holds (see wqe_bram)
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              s_valid,
    output logic             s_ready,
    input  wire [WIDTH-1:0]  s_data,
    output logic             m_valid,
    input  wire              m_ready,
    output logic [WIDTH-1:0] m_data
);

    localparam int OUT_LOG2 = 3;                          // the read-ahead FIFO: 8 words
    localparam logic [OUT_LOG2:0] CREDITS = (OUT_LOG2 + 1)'(2 ** OUT_LOG2);

    logic [AW:0]       wr_q, rd_q;     // words written, words read out of the RAM (one extra bit)
    logic [AW:0]       used_q;         // wr_q - rd_q: words in the RAM
    logic              some_q;         // wr_q != rd_q: the RAM holds a word
    logic [OUT_LOG2:0] credits_q;      // words the read-ahead FIFO can still be sent
    logic              can_read_q;     // credits_q != 0
    logic              rv1_q, rv2_q;   // a word read is in the RAM's output register (rv2_q)
    logic              take_q;         // the sink took a word last cycle: its credit returns

    wire push = s_valid && s_ready;
    wire read = some_q && can_read_q;
    wire [AW:0] used = used_q;
    wire [OUT_LOG2:0] credits_d = credits_q - (OUT_LOG2 + 1)'(read) + (OUT_LOG2 + 1)'(take_q);
    // Full next: one word free and one written, none read; or full and none read.
    wire full_d = (used == (AW + 1)'(2 ** AW - 1) && push && !read)
               || (used == (AW + 1)'(2 ** AW) && !read);
    // A word left next: one written, or none read and there was one, or one read of two or more.
    wire some_d = push || (read ? used != (AW + 1)'(1) : some_q);

    logic [WIDTH-1:0] rd_data;
    wqe_bram #(.WIDTH(WIDTH), .AW(AW)) u_ram (
        .clk, .wr_en(push), .wr_addr(wr_q[AW-1:0]), .wr_data(s_data),
        .rd_addr(rd_q[AW-1:0]), .rd_data
    );

    logic unused_out_ready;            // always: the credits keep room
    stream_fifo #(.WIDTH(WIDTH), .DEPTH_LOG2(OUT_LOG2)) u_out (
        .clk, .rst, .s_valid(rv2_q), .s_ready(unused_out_ready), .s_data(rd_data),
        .m_valid, .m_ready, .m_data
    );

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_q       <= '0;
            rd_q       <= '0;
            used_q     <= '0;
            some_q     <= 1'b0;
            s_ready    <= 1'b0;
            credits_q  <= CREDITS;
            can_read_q <= 1'b1;
            rv1_q      <= 1'b0;
            rv2_q      <= 1'b0;
            take_q     <= 1'b0;
        end else begin
            wr_q       <= wr_q + (AW + 1)'(push);
            rd_q       <= rd_q + (AW + 1)'(read);
            used_q     <= used_q + (AW + 1)'(push) - (AW + 1)'(read);
            some_q     <= some_d;
            s_ready    <= !full_d;
            credits_q  <= credits_d;
            can_read_q <= credits_d != '0;
            rv1_q      <= read;
            rv2_q      <= rv1_q;
            take_q     <= m_valid && m_ready;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_BRAM_FIFO_SV
