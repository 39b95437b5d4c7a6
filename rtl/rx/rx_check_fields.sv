// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_FIELDS_SV
`define ROCENIC_RX_CHECK_FIELDS_SV
`include "rtl/rx/rx_check_pkg.sv"
`include "rtl/common/wire_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's header capture: as each beat of a frame goes by, the header words it completes are
// registered (rx_check_pkg::fields_t), so that one clock after a beat its words are readable.
//
// A beat of 8 bytes completes two words (rx_check_pkg: word k is bytes 4k-2 to 4k+1): word 2b
// from the previous beat's last two bytes and this beat's first two, and word 2b+1 from bytes
// 2 to 5. Which word is which field follows from the words before it:
//   word 3         bytes 12-13: a VLAN TPID, or the EtherType
//   word 4         bytes 16-17: the EtherType after a tag
//   words L..L+2   the IP header's first three (L = 4, or 5 after a tag)
//   words U..U+9   UDP, BTH and the extension headers' five words, U = L + IHL (IPv4) or
//                  L + 10 (IPv6). Which of them a beat holds is worked out as the beat is
//                  taken in, a clock before it reaches A, from a U registered from the bytes
//                  of the beats three and more before it: the IHL is read from its byte, in
//                  beat 1 (beat 2 tagged), and the first transport word is in beat 4 (5
//                  tagged); a beat taken before U is known holds none of them.
// A word is taken whenever its index comes by, so a frame too short for a word leaves the
// previous frame's there: the verdict reads only words the frame's length says it holds.
// `known` says which of the words the lane masks need have come by in this frame.
module rx_check_fields #(
    parameter  int BEAT_W  = 10,                      // Width of a beat's index in its frame
    localparam int L4_WORDS = rx_check_pkg::L4_WORDS
) (
    input  wire                    clk,
    input  wire                    rst,       // synchronous, active high
    // a beat being taken in this clock, and its index in its frame
    input  wire                    in_valid,
    input  wire [BEAT_W-1:0]       in_beat,
    // the beat taken in (rx_check's input register)
    input  wire                    a_valid,
    input  wire                    a_first,   // the first beat of a frame
    input  wire [BEAT_W-1:0]       a_beat,    // its index in the frame (saturating)
    input  wire [63:0]             a_data,    // byte lane i in bits [8i +: 8]
    // the words so far, one clock after the beat that completed each
    output rx_check_pkg::fields_t  f,
    output logic                   known_ip0,   // IP word 0 (IPv4 IHL and total length)
    output logic                   known_ip1,   // IP word 1 (IPv6 payload length, next header)
    output logic                   known_proto, // IPv4 word 2 (protocol)
    output logic                   known_ulen   // the UDP length
);

    localparam logic [15:0] TPID_VLAN = wire_pkg::WIRE_ETHERTYPE_VLAN;
    localparam logic [15:0] TPID_QINQ = wire_pkg::WIRE_ETHERTYPE_QINQ;
    localparam logic [15:0] ET_IPV4   = wire_pkg::WIRE_ETHERTYPE_IPV4;
    localparam logic [15:0] ET_IPV6   = wire_pkg::WIRE_ETHERTYPE_IPV6;
    localparam int          L3W       = rx_check_pkg::L3_WORD;
    localparam int          KW        = BEAT_W + 2;     // word index, signed difference

    // The two words this beat completes, first byte on top.
    logic [15:0] prev_q;                                // the previous beat's bytes 6 and 7
    wire  [31:0] w0 = {prev_q, a_data[7:0], a_data[15:8]};
    wire  [31:0] w1 = {a_data[23:16], a_data[31:24], a_data[39:32], a_data[47:40]};

    always_ff @(posedge clk) begin
        if (a_valid) begin
            prev_q <= {a_data[55:48], a_data[63:56]};
        end
    end

    // Word index k is slot k % 2 of beat k / 2.
    function automatic logic at(input logic [BEAT_W-1:0] beat, input int k, input int slot);
        at = k % 2 == slot && beat == BEAT_W'(k / 2);
    endfunction

    // What the words so far say.
    logic        vlan_q, ipv4_q, ipv6_q;
    logic [31:0] ip0_q, ip1_q;
    logic [7:0]  proto_q;

    logic        known_l2;    // the EtherType, after the tag if there is one
    logic [3:0]  ihl_q;       // the IPv4 IHL, read from its byte as soon as it comes
    logic        known_ihl;

    // The UDP header's word index, from the words so far, if they tell it; registered, as
    // early as that allows: the IHL's byte is 14 (beat 1) or 18 (beat 2, a tag's), and the
    // first transport word comes at beat 4, or 5 with a tag.
    logic [4:0] u_q;
    logic       u_known_q;

    always_ff @(posedge clk) begin
        u_q       <= 5'(L3W) + {4'd0, vlan_q} + (ipv6_q ? 5'd10 : {1'b0, ihl_q});
        u_known_q <= known_l2 && (ipv6_q || (ipv4_q && known_ihl));
    end

    // The beat coming in: word 2b's index less U, so the transport words each slot holds.
    wire signed [KW-1:0] rel_in = $signed({1'b0, in_beat, 1'b0}) - $signed(KW'(u_q));
    logic [L4_WORDS-1:0] hit0_q, hit1_q;     // transport word j is in slot 0 / slot 1

    // Before beat 4 U may still be the previous frame's (two clocks behind the words).
    wire                 may_hold = u_known_q && in_beat >= BEAT_W'(4);

    always_ff @(posedge clk) begin
        if (in_valid) begin
            for (int j = 0; j < L4_WORDS; j++) begin
                hit0_q[j] <= may_hold && rel_in == KW'(j);
                hit1_q[j] <= may_hold && rel_in == KW'(j - 1);
            end
        end
    end

    // The IHL: byte 14 (lane 6 of beat 1) unless bytes 12-13 of that beat are a TPID, else
    // byte 18 (lane 2 of beat 2).
    wire tpid_here = {a_data[39:32], a_data[47:40]} == TPID_VLAN
                  || {a_data[39:32], a_data[47:40]} == TPID_QINQ;

    always_ff @(posedge clk) begin
        if (rst) begin
            known_ihl <= 1'b0;
        end else if (a_valid) begin
            if (a_beat == BEAT_W'(1) && !tpid_here) begin
                ihl_q     <= a_data[51:48];
                known_ihl <= 1'b1;
            end else if (a_beat == BEAT_W'(2) && vlan_q) begin
                ihl_q     <= a_data[19:16];
                known_ihl <= 1'b1;
            end else if (a_first) begin
                known_ihl <= 1'b0;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            vlan_q   <= 1'b0;
            ipv4_q   <= 1'b0;
            ipv6_q   <= 1'b0;
            known_l2 <= 1'b0;
        end else if (a_valid) begin
            if (at(a_beat, 3, 1)) begin
                // bytes 12-13: a tag, or the EtherType of an untagged frame
                vlan_q   <= w1[15:0] == TPID_VLAN || w1[15:0] == TPID_QINQ;
                ipv4_q   <= w1[15:0] == ET_IPV4;
                ipv6_q   <= w1[15:0] == ET_IPV6;
                known_l2 <= !(w1[15:0] == TPID_VLAN || w1[15:0] == TPID_QINQ);
            end else if (at(a_beat, 4, 0) && vlan_q) begin
                // bytes 16-17: the EtherType after a tag
                ipv4_q   <= w0[15:0] == ET_IPV4;
                ipv6_q   <= w0[15:0] == ET_IPV6;
                known_l2 <= 1'b1;
            end else if (a_first) begin
                vlan_q   <= 1'b0;
                ipv4_q   <= 1'b0;
                ipv6_q   <= 1'b0;
                known_l2 <= 1'b0;
            end
        end
    end

    // The IP header's words L + n, n = 0..2, are in beat (L + n) / 2, slot (L + n) % 2.
    logic [2:0] ip_hit;
    always_comb begin
        for (int n = 0; n < 3; n++) begin
            ip_hit[n] = vlan_q ? a_beat == BEAT_W'((L3W + 1 + n) / 2)
                                 : a_beat == BEAT_W'((L3W + n) / 2);
        end
    end

    // Words L and L+2 are in slot 0 untagged (L = 4), slot 1 tagged; word L+1 in the other.
    wire [31:0] ip_even = vlan_q ? w1 : w0;
    wire [31:0] ip_odd  = vlan_q ? w0 : w1;

    always_ff @(posedge clk) begin
        if (a_valid) begin
            if (ip_hit[0]) begin
                ip0_q <= ip_even;
            end
            if (ip_hit[1]) begin
                ip1_q <= ip_odd;
            end
            if (ip_hit[2]) begin
                proto_q <= ip_even[23:16];
            end
        end
    end

    // Transport word j: UDP 0-1, BTH 2-4, the extension headers' 5-9.
    logic [L4_WORDS-1:0][31:0] l4_q;
    logic [L4_WORDS-1:0]       l4_hit;

    for (genvar j = 0; j < L4_WORDS; j++) begin : g_l4
        assign l4_hit[j] = hit0_q[j] || hit1_q[j];
        always_ff @(posedge clk) begin
            if (a_valid && l4_hit[j]) begin
                l4_q[j] <= hit0_q[j] ? w0 : w1;
            end
        end
    end

    always_comb begin
        f.vlan   = vlan_q;
        f.ipv4     = ipv4_q;
        f.ipv6     = ipv6_q;
        f.ip0      = ip0_q;
        f.ip1      = ip1_q;
        f.ip_proto = proto_q;
        f.l4_0     = l4_q[0];
        f.l4_1     = l4_q[1];
        f.bth0     = l4_q[2];
        f.bth1     = l4_q[3];
        f.bth2     = l4_q[4];
        f.ext      = {l4_q[5], l4_q[6], l4_q[7], l4_q[8], l4_q[9]};
    end

    // Which words of this frame have come by; cleared by its first beat.
    always_ff @(posedge clk) begin
        if (rst) begin
            known_ip0   <= 1'b0;
            known_ip1   <= 1'b0;
            known_proto <= 1'b0;
            known_ulen  <= 1'b0;
        end else if (a_valid) begin
            known_ip0   <= (known_ip0 && !a_first) || ip_hit[0];
            known_ip1   <= (known_ip1 && !a_first) || ip_hit[1];
            known_proto <= (known_proto && !a_first) || ip_hit[2];
            known_ulen  <= (known_ulen && !a_first) || l4_hit[1];
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_FIELDS_SV
