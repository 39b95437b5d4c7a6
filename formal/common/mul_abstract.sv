// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal-only: the stand-in for a product (a * b, low P_W bits) in the equivalence proofs.
//
// Why an abstraction: a proof that meets the same multiplication twice, once inside the pipeline
// and once in the combinational reference, in different clock cycles, must show two multipliers
// equal bit by bit, which no SAT solver does in reasonable time (the proof with real products ran
// past ten minutes in Yices; a multiplication by the rxe constant against its split alone, past
// five in Yosys's SAT). When both sides build every product through this module with the same
// operands, replacing the product by any other function of (a, b) keeps the two sides equal exactly
// when their plumbing is equal: which operands reach which product, in which cycle, and everything
// done with the results. The stand-in is cheap for a solver yet mixes every operand bit into the
// kept bits, so a wrong operand, a stale register or a swapped product shows. That products are
// products, and that the partial products add up to the definitions' ones, is arithmetic, checked
// against the model in simulation (sim/tests/entropy.rs).
module mul_abstract #(
    parameter int A_W = 18,         // width of a
    parameter int B_W = 18,         // width of b
    parameter int P_W = A_W + B_W   // low product bits kept, at most A_W + B_W
) (
    input  wire  [A_W-1:0] a,
    input  wire  [B_W-1:0] b,
    output logic [P_W-1:0] p
);

    // Every operand bit XORed into the kept bits (a folded onto P_W bits), then one nonlinear
    // step so that sums of stand-ins do not cancel the way sums of XORs would.
    localparam int W = A_W + B_W;
    wire [W-1:0] x = {a, b};
    logic [P_W-1:0] y;
    always_comb begin
        y = '0;
        for (int i = 0; i < W; i++) begin
            y[i % P_W] = y[i % P_W] ^ x[i];
        end
    end
    assign p = y ^ ({y[P_W-2:0], y[P_W-1]} & {y[P_W-3:0], y[P_W-1:P_W-2]});

endmodule

`resetall
