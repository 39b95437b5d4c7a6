// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_MR_KEYS_SV
`define ROCENIC_WQE_MR_KEYS_SV
`include "rtl/wqe/wqe_regs_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Memory-region commands: which lkey each slot of the memory-region table holds, and the
// table's write port. The table itself (bounds, PD, access; the gather checks) is wqe_mr.sv,
// which takes mr_wr_* with the staged region's fields.
//
// An lkey's slot is mr_slot(lkey, MRS) = (lkey >> MR_SLOT_LSB) mod MRS (model/src/wqe/regs.rs).
//   MR_WRITE  refused when the slot holds another lkey; else the slot holds this one and the
//             table is written (mr_wr_clear 0): a region is re-registered under its own lkey.
//   MR_CLEAR  refused unless the slot holds this lkey; else the slot is freed (mr_wr_clear 1).
// cmd_start in cycle c: cmd_done, cmd_error and mr_wr_valid (for one cycle) in c + 3; the staged
// lkey and cmd_clear hold meanwhile.
module wqe_mr_keys #(
    parameter  int MRS = 64,            // memory-region table entries, a power of two, 2..256
    localparam int MW  = $clog2(MRS)    // slot index width
) (
    input  wire           clk,
    input  wire           rst,          // synchronous, active high
    input  wire           cmd_start,    // one cycle
    input  wire           cmd_clear,    // 0 MR_WRITE, 1 MR_CLEAR
    input  wire [31:0]    lkey,         // the staged MR_LKEY
    output logic          cmd_done,
    output logic          cmd_error,
    output logic          mr_wr_valid,
    output logic [MW-1:0] mr_wr_slot,
    output logic          mr_wr_clear
);

    if (MRS < 2 || MRS > 256 || (MRS & (MRS - 1)) != 0) begin : g_bad_mrs
        $error("wqe_mr_keys: MRS must be a power of two, 2..256, got %0d", MRS);
    end

    logic [MRS-1:0] valid_q;
    (* ram_style = "distributed" *) logic [31:0] key_mem [MRS];  // the lkey a valid slot holds

    // The start cycle reads the slot (its lkey, and the row of R valid bits that holds it),
    // cycle 1 compares (and picks the valid bit from the row), cycle 2 decides and writes.
    localparam int LO = MW < 3 ? MW : 3;
    localparam int R  = 2 ** LO;
    wire [MW-1:0] slot = lkey[wqe_regs_pkg::WQE_MR_SLOT_LSB +: MW];
    logic         read_q, look_q, held_q, same_q;
    logic [MW-1:0] slot_q;             // the slot again, from a local flip-flop
    logic [31:0]  key_q;
    logic [R-1:0] row_q;
    if (MW > LO) begin : g_rows
        always_ff @(posedge clk) row_q <= valid_q[R * slot[MW-1:LO] +: R];
    end else begin : g_row
        always_ff @(posedge clk) row_q <= valid_q;
    end
    wire          ok = cmd_clear ? held_q && same_q : !held_q || same_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            read_q      <= 1'b0;
            look_q      <= 1'b0;
            valid_q     <= '0;
            cmd_done    <= 1'b0;
            mr_wr_valid <= 1'b0;
        end else begin
            read_q      <= cmd_start;
            look_q      <= read_q;
            cmd_done    <= look_q;
            cmd_error   <= !ok;
            mr_wr_valid <= look_q && ok;
            mr_wr_slot  <= slot_q;
            mr_wr_clear <= cmd_clear;
            if (look_q && ok) begin
                valid_q[slot_q] <= !cmd_clear;
            end
        end
        slot_q <= slot;
        held_q <= row_q[slot_q[LO-1:0]];
        key_q  <= key_mem[slot];
        same_q <= key_q == lkey;
    end

    always_ff @(posedge clk) begin
        if (look_q && ok && !cmd_clear) begin
            key_mem[slot_q] <= lkey;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_MR_KEYS_SV
