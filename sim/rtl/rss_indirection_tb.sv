// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_INDIRECTION_TB_SV
`define ROCENIC_RSS_INDIRECTION_TB_SV
`include "rtl/rss/rss_indirection.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Test wrapper: rss_indirection with the clk/rst pair the co-simulation harness drives, and the
// entry picked the way rss_pipeline picks it (after its own registers there), so that
// sim/tests/rss_indirection.rs can check a read against a write to the same address in the same
// clock. Verilator's memory returns the old entry on such a read; the block RAM returns
// undefined data; the table's answer must be the new entry either way.
module rss_indirection_tb #(
    parameter  int NUM_CONTEXTS = 1,    // RSS contexts: few, so that reads and writes collide
    parameter  int TABLE_LOG2   = 2,    // log2 of the entries per bank
    parameter  int QUEUE_W      = 16,   // Queue number width
    localparam int CTX_W        = NUM_CONTEXTS > 1 ? $clog2(NUM_CONTEXTS) : 1,
    localparam int ADDR_W       = CTX_W + 1 + TABLE_LOG2
) (
    input  wire                clk,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                rst,      // the table has no reset; the harness drives one
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                wr_en,
    input  wire [ADDR_W-1:0]   wr_addr,
    input  wire [QUEUE_W-1:0]  wr_data,
    input  wire                rd_en,
    input  wire [ADDR_W-1:0]   rd_addr,
    output logic [QUEUE_W-1:0] rd_data
);

    logic [QUEUE_W-1:0] ram, hit_data;
    logic               hit;
    rss_indirection #(
        .NUM_CONTEXTS(NUM_CONTEXTS),
        .TABLE_LOG2  (TABLE_LOG2),
        .QUEUE_W     (QUEUE_W)
    ) u_table (
        .clk, .wr_en, .wr_addr, .wr_data, .rd_en, .rd_addr,
        .rd_ram(ram), .rd_hit(hit), .rd_hit_data(hit_data)
    );
    assign rd_data = hit ? hit_data : ram;

endmodule

`resetall

`endif  // ROCENIC_RSS_INDIRECTION_TB_SV
