// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_SUM_SV
`define ROCENIC_RX_CHECK_SUM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's Internet checksums (RFC 1071, docs/reference.md): the sums of a frame's IPv4
// header bytes and of the bytes its TCP/UDP checksum covers, from the masked beats of
// rx_check_lanes (every other byte zero).
//
// Lanes 2j and 2j+1 make the big-endian word j: every range summed starts at an even byte
// (the IP header at 14 or 18, whole words after it), so the beat's pairs are the checksum's
// words, and an odd last byte is a word with a zero low byte, as RFC 1071 pads it.
// The sums are plain integers, ACC_W bits, folded to 16 bits by the verdict: one's complement
// addition is integer addition folded, and the fold of a sum is zero only when every word was,
// as the model's end-around carries give.
//   E  the beat's four words added
//   F  the frame's running sums, restarted by its first beat; a frame's are here from the
//      clock after its last beat left F until the next frame's first beat leaves F
module rx_check_sum #(
    parameter int ACC_W = 28    // Sum width: 16 bits plus the log2 of the words a frame may hold
) (
    input  wire              clk,
    input  wire              rst,         // synchronous, active high
    input  wire              e_valid,
    input  wire              e_first,
    input  wire [63:0]       e_hdr_data,  // IPv4 header bytes, others zero
    input  wire [63:0]       e_l4_data,   // bytes the TCP/UDP checksum covers, others zero
    output logic [ACC_W-1:0] acc_hdr,
    output logic [ACC_W-1:0] acc_l4
);

    function automatic logic [17:0] words(input logic [63:0] d);
        words = '0;
        for (int j = 0; j < 4; j++) begin
            words = words + {2'b00, d[16*j +: 8], d[16*j+8 +: 8]};
        end
    endfunction

    logic        f_valid, f_first;
    logic [17:0] f_hdr, f_l4;

    always_ff @(posedge clk) begin
        if (rst) begin
            f_valid <= 1'b0;
        end else begin
            f_valid <= e_valid;
        end
    end

    always_ff @(posedge clk) begin
        f_first <= e_first;
        f_hdr   <= words(e_hdr_data);
        f_l4    <= words(e_l4_data);
        if (f_valid) begin
            acc_hdr <= (f_first ? '0 : acc_hdr) + ACC_W'(f_hdr);
            acc_l4  <= (f_first ? '0 : acc_l4) + ACC_W'(f_l4);
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_SUM_SV
