// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_MR_CMP_SV
`define ROCENIC_WQE_MR_CMP_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One lookup against one table entry, combinational: the five conditions a gather entry must
// meet (model::qp::MrTable::check, after the length check), for the caller to register and
// then combine. The bounds are 65-bit numbers, so neither sum can have
// wrapped: [addr, req_lim) must lie in [base, lim), the model's addr >= base and
// len <= length - (addr - base).
//
// Each bound is compared in two halves, the upper half's order and equality and the lower
// half's order, which the caller combines after its register: two carry chains of 32 bits
// rather than one of 64, so the comparison leaves room in the clock for its inputs to come from
// flip-flops placed beside the block RAM they capture.
module wqe_mr_cmp (
    input  wire [31:0] req_lkey,
    input  wire [31:0] req_pd,
    input  wire [63:0] req_addr,
    input  wire [64:0] req_lim,      // addr + len
    input  wire [3:0]  req_access,   // rights needed
    input  wire [31:0] ent_lkey,
    input  wire [31:0] ent_pd,
    input  wire [3:0]  ent_access,   // rights granted
    input  wire [63:0] ent_base,
    input  wire [64:0] ent_lim,      // base + length, at most 2^64
    // {lkey equal, PD equal, rights held,
    //  addr[63:32] > base[63:32], addr[63:32] == base[63:32], addr[31:0] >= base[31:0],
    //  req_lim[64:32] < ent_lim[64:32], req_lim[64:32] == ent_lim[64:32],
    //  req_lim[31:0] <= ent_lim[31:0]}
    output logic [8:0] part
);

    assign part = {
        ent_lkey == req_lkey,
        ent_pd == req_pd,
        (req_access & ~ent_access) == 4'd0,
        req_addr[63:32] > ent_base[63:32],
        req_addr[63:32] == ent_base[63:32],
        req_addr[31:0] >= ent_base[31:0],
        req_lim[64:32] < ent_lim[64:32],
        req_lim[64:32] == ent_lim[64:32],
        req_lim[31:0] <= ent_lim[31:0]
    };

endmodule

`resetall

`endif  // ROCENIC_WQE_MR_CMP_SV
