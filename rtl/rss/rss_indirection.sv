// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_INDIRECTION_SV
`define ROCENIC_RSS_INDIRECTION_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Indirection tables: for each RSS context two banks of 2^TABLE_LOG2 queue numbers, in one
// simple dual-port block RAM (address {context, bank, index}). Software writes the bank a
// context does not use and then commits the context with that bank (rss_regs), so a packet never
// sees a half-written table.
//
// Read: rd_addr in cycle c, the entry in cycle c + 1 (the RAM's output register). A write to
// the same address in cycle c is seen by that read (write first). Contents start at queue 0.
//
// The entry comes in two parts, for the caller to register before it picks one: a block RAM's
// read data leaves it about 6 ns after the clock on ECP5, which leaves no room for a multiplexer
// ahead of the next register at 125 MHz. Two ports of a block RAM at one address in one clock
// give undefined read data, so the memory carries no_rw_check (Yosys would otherwise add that
// multiplexer itself) and such a read is answered from the write: rd_hit, with rd_hit_data.
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
    output logic [QUEUE_W-1:0] rd_ram,       // the entry, unless rd_hit
    output logic               rd_hit,       // the entry was written as it was read...
    output logic [QUEUE_W-1:0] rd_hit_data   // ...with this
);

    (* no_rw_check *) logic [QUEUE_W-1:0] mem [2**ADDR_W];

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
            rd_ram      <= mem[rd_addr];
            rd_hit      <= wr_en && wr_addr == rd_addr;
            rd_hit_data <= wr_data;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_INDIRECTION_SV
