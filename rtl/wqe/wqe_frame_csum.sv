// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_FRAME_CSUM_SV
`define ROCENIC_WQE_FRAME_CSUM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The Internet checksum of eight 16-bit words, pipelined: ~(one's-complement sum). Three adder
// levels (pairs, fours, eight), then two end-around-carry folds, each a register stage, so no
// clock carries more than one adder. The words must hold still from `start` until `done`;
// `done` pulses LATENCY = 5 cycles after `start`.
module wqe_frame_csum (
    input  wire         clk,
    input  wire         rst,       // synchronous, active high
    input  wire         start,     // the words are valid from this cycle on
    input  wire [127:0] words,     // word i in bits [16i +: 16]
    output logic        done,      // csum is valid in this cycle (and while the words hold)
    output logic [15:0] csum
);

    logic [3:0][16:0] l1_q;  // sums of pairs
    logic [1:0][17:0] l2_q;  // sums of fours
    logic [18:0] l3_q;       // the sum of eight
    logic [16:0] f1_q;       // first fold: 16 bits and a carry
    logic [4:0]  v_q;        // start, delayed through the five stages

    always_ff @(posedge clk) begin
        for (int i = 0; i < 4; i++) begin
            l1_q[i] <= 17'(words[32*i +: 16]) + 17'(words[32*i+16 +: 16]);
        end
        for (int i = 0; i < 2; i++) begin
            l2_q[i] <= 18'(l1_q[2*i]) + 18'(l1_q[2*i+1]);
        end
        l3_q <= 19'(l2_q[0]) + 19'(l2_q[1]);
        f1_q <= 17'(l3_q[15:0]) + 17'(l3_q[18:16]);
        // The second fold cannot carry again: f1_q is at most 0xFFFF + 7.
        csum <= ~(f1_q[15:0] + 16'(f1_q[16]));
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            v_q <= '0;
        end else begin
            v_q <= {v_q[3:0], start};
        end
    end

    assign done = v_q[4];

endmodule

`resetall

`endif  // ROCENIC_WQE_FRAME_CSUM_SV
