// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Indirection tables: for each RSS context two banks of 2^TABLE_LOG2 queue numbers, in one
// simple dual-port block RAM (address {context, bank, index}). Software writes the bank a
// context does not use and then commits the context with that bank (rss_regs), so a packet never
// sees a half-written table.
//
// Read: rd_addr in cycle c, rd_data in cycle c + 1 (the RAM's output register). Contents start
// at queue 0.
module rss_indirection #(
    parameter  int NUM_CONTEXTS = 4,    // RSS contexts
    parameter  int TABLE_LOG2   = 12,   // log2 of the largest table (entries per bank)
    parameter  int QUEUE_W      = 16,   // Queue number width
    localparam int CTX_W        = NUM_CONTEXTS > 1 ? $clog2(NUM_CONTEXTS) : 1,
    localparam int ADDR_W       = CTX_W + 1 + TABLE_LOG2
) (
    input  wire               clk,
    input  wire               wr_en,
    input  wire [ADDR_W-1:0]  wr_addr,
    input  wire [QUEUE_W-1:0] wr_data,
    input  wire               rd_en,
    input  wire [ADDR_W-1:0]  rd_addr,
    output logic [QUEUE_W-1:0] rd_data
);

    logic [QUEUE_W-1:0] mem [2**ADDR_W];

    // Block RAM without initial contents powers up at zero on ECP5 and iCE40; simulation does
    // the same. (Yosys defines SYNTHESIS; an initial loop over 2^ADDR_W entries is slow there.)
`ifndef SYNTHESIS
    initial begin
        for (int i = 0; i < 2**ADDR_W; i++) begin
            mem[i] = '0;
        end
    end
`endif

    always_ff @(posedge clk) begin
        if (wr_en) begin
            mem[wr_addr] <= wr_data;
        end
    end

    always_ff @(posedge clk) begin
        if (rd_en) begin
            rd_data <= mem[rd_addr];
        end
    end

endmodule

`resetall
