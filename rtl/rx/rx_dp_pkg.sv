// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_RX_DP_PKG_SV
`define ROCENIC_RX_DP_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The codes the receive data path's parts pass between them (docs/rx-dp.md), defined once:
// what rx_dp_emit writes from and what rx_dp_fetch does. The completion statuses are
// model::qp::Status's, in wqe_fmt_pkg (generated).
// A package of constants: a module uses some of them.
/* verilator lint_off UNUSEDPARAM */
package rx_dp_pkg;

    // rx_dp_emit's sources.
    localparam logic [1:0] SRC_FRAME = 2'd0;   // the packet buffer
    localparam logic [1:0] SRC_ZERO  = 2'd1;   // zero bytes
    localparam logic [1:0] SRC_CQE   = 2'd2;   // the completion given with the start

    // rx_dp_fetch's operations.
    localparam logic [1:0] OP_WQE  = 2'd0;     // a WQE, its entries region-checked
    localparam logic [1:0] OP_HDR  = 2'd1;     // a WQE's header alone (a flush step's WR_ID)
    localparam logic [1:0] OP_RKEY = 2'd2;     // an RDMA WRITE's R_Key, VA and length

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
`endif  // ROCENIC_RX_DP_PKG_SV
