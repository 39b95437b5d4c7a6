// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_RAM_SV
`define ROCENIC_TSO_RAM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simple dual-port RAM with byte-lane write enables and a registered read port: the shape that
// Yosys and the vendor tools map onto block RAM (one write port, one read port, one clock).
//
// Timing: a write with be[b] set stores lane b at the clock edge. A read with re set presents
// mem[raddr] on rdata after the edge; with re low rdata keeps its value, which is what lets a
// stalled pipeline hold the word it read. A read of an address written at the same edge returns
// either word: the segmenter never does that, so the memories carry no_rw_check, which keeps
// Yosys from adding a bypass register and multiplexer behind the read data.
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

    // Block RAM has no output register in the Yosys ECP5 mapping, and its read data comes late
    // in the clock (about 5.8 ns of 8 at 125 MHz). A word wider than 36 bits in a RAM deeper than
    // 512 words would be cascaded in depth, with a multiplexer after the read data that leaves
    // no time for routing; one RAM per byte lane (2048 x 9 each) needs none. Shallow RAMs keep
    // the wide form, which takes fewer blocks.
    if (DEPTH > 512) begin : g_lanes
        for (genvar b = 0; b < BYTES; b++) begin : g_lane
            (* no_rw_check *) logic [7:0] mem [DEPTH];
            always_ff @(posedge clk) begin
                if (we[b]) begin
                    mem[waddr] <= wdata[8*b +: 8];
                end
                if (re) begin
                    rdata[8*b +: 8] <= mem[raddr];
                end
            end
        end
    end else begin : g_wide
        (* no_rw_check *) logic [BYTES*8-1:0] mem [DEPTH];
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
    end

endmodule

`resetall

`endif  // ROCENIC_TSO_RAM_SV
