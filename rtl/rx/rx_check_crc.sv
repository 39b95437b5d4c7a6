// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_CRC_SV
`define ROCENIC_RX_CHECK_CRC_SV
`include "rtl/wqe/wqe_icrc_crc.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's ICRC: the CRC of each frame's masked beats (rx_check_lanes) through the send
// side's CRC pipeline, wqe_icrc_crc, compared with the ICRC the frame carries
// (docs/reference.md §3).
//
// wqe_icrc_crc needs, with a frame's first beat, whether its IP header starts at byte 18 (a
// tag) or 14, but the tag's TPID is in bytes 12-13, the second beat. So the beats wait one in a
// hold register H: a beat goes on to the CRC when the next beat comes (whose tag bit is then
// known), or at once if it is its frame's last. Beats after the ICRC's last byte do not go in.
//   F  a register stage, so that a last beat leaves H when the checksums have taken it
//   H  the hold; a frame's last beat leaves it the clock after it came
//   C..E  wqe_icrc_crc (2 + log2(8) clocks), with the frame's end, its checksums and the ICRC
//      it carries alongside
//   V  the frame's result, registered: the ICRC it carries matched the CRC's (the CRC's last
//      result in the frame, which may come before the frame's end when Ethernet padding
//      follows the packet, so it is kept until then), and the two checksum sums
// A frame too short for its ICRC gets no CRC result and a mismatch; its verdict is malformed
// anyway, for its length.
module rx_check_crc #(
    parameter int ACC_W = 28    // Width of the checksum sums carried along
) (
    input  wire              clk,
    input  wire              rst,           // synchronous, active high
    // E: the beat's lanes
    input  wire              e_valid,
    input  wire              e_first,
    input  wire              e_last,
    input  wire              e_vlan,
    input  wire              e_crc_valid,
    input  wire              e_crc_last,
    input  wire [2:0]        e_crc_empty,
    input  wire [63:0]       e_crc_data,
    input  wire [31:0]       e_stored,
    // the checksum sums, final for a frame when its last beat leaves H (rx_check_sum)
    input  wire [ACC_W-1:0]  acc_hdr,
    input  wire [ACC_W-1:0]  acc_l4,
    // V: one result per frame, in order
    output logic             v_valid,
    output logic             v_icrc_ok,
    output logic [ACC_W-1:0] v_acc_hdr,
    output logic [ACC_W-1:0] v_acc_l4
);

    // One beat as it waits: frame first/last, tag bit, CRC valid/last/empty, data, stored ICRC.
    typedef struct packed {
        logic        first;
        logic        last;
        logic        vlan;
        logic        crc_valid;
        logic        crc_last;
        logic [2:0]  crc_empty;
        logic [63:0] crc_data;
        logic [31:0] stored;
    } beat_t;

    logic  f_valid, h_valid;
    beat_t f_q, h_q;

    // H lets its beat go when the next one is in F, or when it ends its frame.
    wire feed = h_valid && (f_valid || h_q.last);

    always_ff @(posedge clk) begin
        if (rst) begin
            f_valid <= 1'b0;
            h_valid <= 1'b0;
        end else begin
            f_valid <= e_valid;
            if (f_valid) begin
                h_valid <= 1'b1;
            end else if (feed) begin
                h_valid <= 1'b0;
            end
        end
    end

    always_ff @(posedge clk) begin
        f_q <= {e_first, e_last, e_vlan, e_crc_valid, e_crc_last, e_crc_empty, e_crc_data,
                e_stored};
        if (f_valid) begin
            h_q <= f_q;
        end
    end

    // A first beat goes in with the tag bit of the beat after it (in F, of the same frame).
    wire vlan = (h_q.first && f_valid && !f_q.first) ? f_q.vlan : h_q.vlan;

    localparam int SIDE_W = 1 + 2 * ACC_W + 32;

    logic              out_valid, out_last;
    logic [31:0]       out_icrc;
    logic              s_end;
    logic [ACC_W-1:0]  s_hdr, s_l4;
    logic [31:0]       s_stored;

    wqe_icrc_crc #(
        .DATA_BYTES(8),
        .SIDE_W    (SIDE_W)
    ) u_crc (
        .clk      (clk),
        .rst      (rst),
        .adv      (1'b1),
        .in_valid (feed && h_q.crc_valid),
        .in_first (h_q.first),
        .in_last  (h_q.crc_last),
        .in_vlan  (vlan),
        .in_data  (h_q.crc_data),
        .in_empty (h_q.crc_empty),
        .in_side  ({feed && h_q.last, acc_hdr, acc_l4, h_q.stored}),
        .out_valid(out_valid),
        .out_last (out_last),
        .out_icrc (out_icrc),
        .out_side ({s_end, s_hdr, s_l4, s_stored})
    );

    // The CRC's last result of the frame so far.
    wire        got = out_valid && out_last;
    logic       have_q;
    logic [31:0] icrc_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            have_q  <= 1'b0;
            v_valid <= 1'b0;
        end else begin
            have_q  <= !s_end && (got || have_q);
            v_valid <= s_end;
        end
    end

    always_ff @(posedge clk) begin
        if (got) begin
            icrc_q <= out_icrc;
        end
        v_icrc_ok <= (got || have_q) && (got ? out_icrc : icrc_q) == s_stored;
        v_acc_hdr <= s_hdr;
        v_acc_l4  <= s_l4;
    end

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_CRC_SV
