// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_SUM16_SV
`define ROCENIC_TSO_SUM16_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Plain binary sum of the 16-bit big-endian words of one data beat (callers zero the lanes that
// do not count): the partial Internet checksum of those bytes before the end-around-carry fold
// (RFC 1071 lets the fold wait until the very end, so callers accumulate these sums in a wide
// register and fold once per segment).
//
// Lane 2m is the high byte and lane 2m+1 the low byte of word m: that is the checksum's byte
// order whenever lane parity equals the byte's offset parity from the start of the summed
// region, which the segmenter guarantees (headers are always an even number of bytes long).
//
// Purely combinational.
module tso_sum16 #(
    parameter  int BYTES = 8,                           // Lanes in the beat (even)
    localparam int SUM_W = 16 + $clog2(BYTES / 2 + 1)   // Wide enough for BYTES/2 words
) (
    input  wire [BYTES*8-1:0] data,   // lane l in bits [8l+7:8l]
    output logic [SUM_W-1:0]  sum
);

    if (BYTES < 2 || BYTES % 2 != 0) begin : g_bad_bytes
        $error("tso_sum16: BYTES must be even and at least 2, got %0d", BYTES);
    end

    always_comb begin
        sum = '0;
        for (int m = 0; m < BYTES / 2; m++) begin
            sum = sum + SUM_W'({data[16*m +: 8], data[16*m+8 +: 8]});
        end
    end

endmodule

`resetall

`endif  // ROCENIC_TSO_SUM16_SV
