// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The valid/ready rules of one stream, for the formal harnesses: once valid is high without
// ready, valid stays high and the payload stays the same until the handshake, and valid is
// low in the cycle after reset. A harness instantiates it assumed on a stream the design reads
// (SOURCE = 1: the environment keeps the rules) and asserted on one the design drives.
module stream_rules #(
    parameter int W      = 1,  // Payload width (all fields that must hold still, concatenated)
    parameter bit SOURCE = 0   // 1: assume the rules (an input stream), 0: assert them
) (
    input wire         clk,
    input wire         rst,
    input wire         past_ok,  // a previous cycle exists ($past is defined)
    input wire         valid,
    input wire         ready,
    input wire [W-1:0] data
);

    // Registered here, as $past is: the previous cycle was out of reset and stalled.
    logic stalled_q = 1'b0;
    always_ff @(posedge clk) stalled_q <= !rst && valid && !ready;
    wire  stalled_before = past_ok && stalled_q;

    if (SOURCE) begin : g_assume
        always_ff @(posedge clk) begin
            if (stalled_before) begin
                assume (valid);
                assume (data == $past(data));
            end
        end
    end else begin : g_assert
        always_ff @(posedge clk) begin
            if (past_ok && $past(rst)) begin
                assert (!valid);
            end
            if (stalled_before && !rst) begin
                assert (valid);
                assert (data == $past(data));
            end
        end
    end

endmodule

`resetall
