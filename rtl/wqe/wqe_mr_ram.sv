// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_MR_RAM_SV
`define ROCENIC_WQE_MR_RAM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The memory-region table's storage: a simple dual-port RAM with a registered read, the shape
// Yosys maps onto ECP5 block RAM (DP16KD, 36 bits wide per block in this mode).
//
// A write stores wr_data at the clock edge. A read with rd_en presents mem[rd_addr] on rd_data
// after the edge. A read of the address written at the same edge returns undefined data on the
// block RAM (Verilator returns the old word): wqe_mr never uses such a read, it answers it from
// the write, so the memory carries no_rw_check, which keeps Yosys from adding that bypass
// itself behind the read data, where the block RAM's late output leaves no time for it.
// ram_style keeps it in block RAM at every depth: below 32 words Yosys would choose LUT RAM,
// which at 197 bits wide costs more than 300 LUTs, while the block RAMs are spare.
module wqe_mr_ram #(
    parameter  int WIDTH = 8,                 // Word width in bits
    parameter  int DEPTH = 64,                // Words
    localparam int AW    = $clog2(DEPTH)      // Address width
) (
    input  wire              clk,
    input  wire              wr_en,
    input  wire [AW-1:0]     wr_addr,
    input  wire [WIDTH-1:0]  wr_data,
    input  wire              rd_en,
    input  wire [AW-1:0]     rd_addr,
    output logic [WIDTH-1:0] rd_data
);

    if (DEPTH < 2) begin : g_bad_depth
        $error("wqe_mr_ram: DEPTH must be at least 2, got %0d", DEPTH);
    end

    (* no_rw_check, ram_style = "block" *) logic [WIDTH-1:0] mem [DEPTH];

    always_ff @(posedge clk) begin
        if (wr_en) begin
            mem[wr_addr] <= wr_data;
        end
        if (rd_en) begin
            rd_data <= mem[rd_addr];
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_MR_RAM_SV
