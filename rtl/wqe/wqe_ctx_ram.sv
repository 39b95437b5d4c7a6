// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_CTX_RAM_SV
`define ROCENIC_WQE_CTX_RAM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The QP context store: simple dual-port block RAM of COLS columns of 36 bits (one ECP5
// PDPW16KD each up to 512 words), a write enable per column, a registered read port.
//
// Timing: a write with we[c] set stores column c at the clock edge. A read with re set presents
// mem[raddr] on rdata after the edge; with re low rdata keeps its value. Reading an address in
// the clock it is written returns either word: the QP table never does (commands run while the
// scheduler reads nothing), so the memories carry no_rw_check and Yosys adds no bypass. Block
// RAM read data comes late in the clock on ECP5 (rss_indirection.sv): callers register it
// before any logic.
module wqe_ctx_ram #(
    parameter  int COLS  = 4,            // 36-bit columns per word
    parameter  int DEPTH = 512,          // words
    localparam int AW    = $clog2(DEPTH) // address width
) (
    input  wire                 clk,
    // write port
    input  wire [COLS-1:0]      we,
    input  wire [AW-1:0]        waddr,
    input  wire [36*COLS-1:0]   wdata,
    // read port
    input  wire                 re,
    input  wire [AW-1:0]        raddr,
    output logic [36*COLS-1:0]  rdata
);

    if (DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
        $error("wqe_ctx_ram: DEPTH must be a power of two, at least 2, got %0d", DEPTH);
    end

    for (genvar c = 0; c < COLS; c++) begin : g_col
        (* no_rw_check *) logic [35:0] mem [DEPTH];
        always_ff @(posedge clk) begin
            if (we[c]) begin
                mem[waddr] <= wdata[36*c +: 36];
            end
            if (re) begin
                rdata[36*c +: 36] <= mem[raddr];
            end
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_CTX_RAM_SV
