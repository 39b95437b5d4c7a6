// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal-only stand-in for rtl/common/mul_reg.sv with the same ports and cycle behaviour, its
// product built by formal/common/mul_abstract.sv (see there why). Read instead of the RTL module by the
// equivalence tasks; build/formal/mul_reg_ecp5 (make formal-dsp) covers the real module.
module mul_reg #(
    parameter int A_W = 18,         // width of a
    parameter int B_W = 18,         // width of b
    parameter int P_W = A_W + B_W   // low product bits kept
) (
    input  wire            clk,
    input  wire            ce,
    input  wire [A_W-1:0]  a,
    input  wire [B_W-1:0]  b,
    output logic [P_W-1:0] p_q
);

    wire [P_W-1:0] p;
    mul_abstract #(.A_W(A_W), .B_W(B_W), .P_W(P_W)) u_mul (.a(a), .b(b), .p(p));

    always_ff @(posedge clk) begin
        if (ce) begin
            p_q <= p;
        end
    end

endmodule

`resetall
