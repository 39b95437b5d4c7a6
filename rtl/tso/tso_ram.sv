// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simple dual-port RAM with byte-lane write enables and a registered read port: the shape that
// Yosys and the vendor tools map onto block RAM (one write port, one read port, one clock).
//
// Timing: a write with be[b] set stores lane b at the clock edge. A read with re set presents
// mem[raddr] on rdata after the edge; with re low rdata keeps its value, which is what lets a
// stalled pipeline hold the word it read. A read of an address written at the same edge returns
// the old contents (read-first); the segmenter never does that.
module tso_ram #(
    parameter  int BYTES = 8,                  // Lanes per word
    parameter  int DEPTH = 16,                 // Words
    localparam int AW    = $clog2(DEPTH)       // Address width
) (
    input  wire                 clk,
    // write port
    input  wire [BYTES-1:0]     we,       // per-lane write enable
    input  wire [AW-1:0]        waddr,
    input  wire [BYTES*8-1:0]   wdata,
    // read port
    input  wire                 re,
    input  wire [AW-1:0]        raddr,
    output logic [BYTES*8-1:0]  rdata
);

    if (DEPTH < 2) begin : g_bad_depth
        $error("tso_ram: DEPTH must be at least 2, got %0d", DEPTH);
    end

    logic [BYTES*8-1:0] mem [DEPTH];

    always_ff @(posedge clk) begin
        for (int b = 0; b < BYTES; b++) begin
            if (we[b]) begin
                mem[waddr][8*b +: 8] <= wdata[8*b +: 8];
            end
        end
        if (re) begin
            rdata <= mem[raddr];
        end
    end

endmodule

`resetall
