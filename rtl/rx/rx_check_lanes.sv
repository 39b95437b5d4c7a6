// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_LANES_SV
`define ROCENIC_RX_CHECK_LANES_SV
`include "rtl/rx/rx_check_pkg.sv"
`include "rtl/common/wire_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's lane masks: for each beat, what each byte is to the ICRC, to the IPv4 header
// checksum and to the TCP/UDP checksum, and whether it is one of the ICRC's four bytes
// (docs/reference.md §3; docs/rx.md, "rx_check (RTL)").
//
// Three stages, each beat moving one a clock (no stall: the input register is the only place a
// frame waits):
//   B  where the headers lie, relative to the IP header, from the words rx_check_fields has
//      captured (one clock after the beat that completed them, so a beat sees every word up to
//      its own): the IP header's end, the UDP (or TCP) header, the ICRC, the TCP/UDP checksum's
//      end, and the beat's own offset from the IP header. A position whose words have not come
//      by yet is LARGE, past every byte: nothing ends before it is known, and no header the
//      masks need is known later than the beat that holds its first byte.
//   C  each position less the beat's start, clamped to [-64, 63]: every lane test below is
//      then a compare of seven bits against a constant
//   D  per lane: the CRC's view of the byte (zero before the IP header and from the ICRC on;
//      all ones in the variant fields: IPv4 TOS, TTL, header checksum; IPv6 traffic class,
//      flow label, hop limit; the UDP checksum; BTH byte 4), the byte if it is in the IPv4
//      header, the byte if the TCP/UDP checksum covers it (the segment, or the pseudo-header's
//      addresses), and the ICRC's bytes as they pass; and whether the beat reaches the CRC and
//      ends it there
// The outputs are the E registers.
module rx_check_lanes #(
    parameter int BEAT_W = 10   // Width of a beat's index in its frame
) (
    input  wire                   clk,
    input  wire                   rst,          // synchronous, active high
    // B: the beat, one clock after rx_check_fields saw it
    input  wire                   b_valid,
    input  wire                   b_first,
    input  wire                   b_last,
    input  wire [BEAT_W-1:0]      b_beat,       // index in its frame (saturating)
    input  wire [7:0]             b_keep,       // lanes with frame bytes (all but on the last)
    input  wire [63:0]            b_data,
    input  rx_check_pkg::fields_t f,
    input  wire                   known_ip0,
    input  wire                   known_ip1,
    input  wire                   known_proto,
    input  wire                   known_ulen,
    // E: the beat's lanes
    output logic                  e_valid,
    output logic                  e_first,
    output logic                  e_last,
    output logic                  e_vlan,     // the frame's tag bit as this beat knew it
    output logic                  e_crc_valid,  // the beat holds bytes before the ICRC
    output logic                  e_crc_last,   // ...and the last of them
    output logic [2:0]            e_crc_empty,  // lanes after that last byte
    output logic [63:0]           e_crc_data,   // what the CRC reads
    output logic [63:0]           e_hdr_data,   // IPv4 header bytes, others zero
    output logic [63:0]           e_l4_data,    // bytes the TCP/UDP checksum covers
    output logic [31:0]           e_stored      // the frame's ICRC bytes so far, little-endian
);

    localparam int RW = 19;                         // relative positions, signed
    localparam int PW = BEAT_W + 5;                 // a beat's offset from the IP header, signed
    localparam logic signed [RW-1:0] LARGE = RW'(131071);
    localparam logic [7:0] UDP = wire_pkg::WIRE_IPPROTO_UDP;

    // The words the masks do not need.
    wire unused_fields = ^{f.ip0[31:28], f.ip0[23:16], f.ip1[7:0], f.l4_0, f.l4_1[15:0], f.bth0,
                           f.bth1, f.bth2, f.ext};

    // ------------------------------------------------------------------------------------------
    // B: positions relative to the IP header's first byte.
    logic signed [RW-1:0] r_hdr, r_udp, r_icrc, r_l4;
    logic signed [PW-1:0] rb;                       // the beat's first byte, from the IP header

    always_comb begin
        logic [16:0] ip_len;
        logic        len_known;
        logic [7:0]  proto;
        logic        udp;
        logic signed [RW-1:0] ihl4;
        ihl4      = RW'({f.ip0[27:24], 2'b00});
        ip_len    = f.ipv4 ? {1'b0, f.ip0[15:0]} : 17'd40 + {1'b0, f.ip1[31:16]};
        len_known = (f.ipv4 && known_ip0) || (f.ipv6 && known_ip1);
        proto     = f.ipv4 ? f.ip_proto : f.ip1[15:8];
        udp       = ((f.ipv4 && known_proto) || (f.ipv6 && known_ip1)) && proto == UDP;
        r_hdr     = (f.ipv4 && known_ip0) ? ihl4 : LARGE;
        r_udp     = f.ipv6 ? RW'(40) : r_hdr;
        r_icrc    = len_known ? $signed(RW'(ip_len)) - RW'(4) : LARGE;
        if (udp) begin
            r_l4 = (known_ulen && r_udp != LARGE) ? r_udp + RW'(f.l4_1[31:16]) : LARGE;
        end else begin
            r_l4 = len_known ? RW'(ip_len) : LARGE;
        end
        rb = $signed(PW'({b_beat, 3'b000})) - (f.vlan ? PW'(18) : PW'(14));
    end

    logic                 c_valid, c_first, c_last, c_vlan, c_v4, c_v6;
    logic [7:0]           c_keep;
    logic [63:0]          c_data;
    logic signed [RW-1:0] c_hdr, c_udp, c_icrc, c_l4;
    logic signed [PW-1:0] c_rb;

    always_ff @(posedge clk) begin
        if (rst) begin
            c_valid <= 1'b0;
        end else begin
            c_valid <= b_valid;
        end
    end

    // Data registers load every clock: valid says what they hold.
    always_ff @(posedge clk) begin
        c_first  <= b_first;
        c_last   <= b_last;
        c_vlan <= f.vlan;
        c_v4     <= f.ipv4;
        c_v6     <= f.ipv6;
        c_keep   <= b_keep;
        c_data   <= b_data;
        c_hdr    <= r_hdr;
        c_udp    <= r_udp;
        c_icrc   <= r_icrc;
        c_l4     <= r_l4;
        c_rb     <= rb;
    end

    // ------------------------------------------------------------------------------------------
    // C: each position less the beat's start, clamped: past the range, the top bits are not
    // all the sign.
    function automatic logic [6:0] from_beat(input logic signed [RW-1:0] r,
                                             input logic signed [PW-1:0] b);
        logic signed [RW:0] v;
        v = (RW + 1)'(r) - (RW + 1)'(b);
        if (v[RW:6] == '0 || v[RW:6] == '1) begin
            from_beat = v[6:0];
        end else begin
            from_beat = v[RW] ? 7'h40 : 7'h3F;        // -64 or 63
        end
    endfunction

    logic                 d_valid, d_first, d_last, d_vlan, d_v4, d_v6;
    logic [7:0]           d_keep;
    logic [63:0]          d_data;
    logic [6:0]           d_l3, d_hdr, d_udp, d_icrc, d_l4;   // two's complement

    always_ff @(posedge clk) begin
        if (rst) begin
            d_valid <= 1'b0;
        end else begin
            d_valid <= c_valid;
        end
    end

    always_ff @(posedge clk) begin
        d_first <= c_first;
        d_last  <= c_last;
        d_vlan  <= c_vlan;
        d_v4    <= c_v4;
        d_v6    <= c_v6;
        d_keep  <= c_keep;
        d_data  <= c_data;
        d_l3    <= from_beat('0, c_rb);
        d_hdr   <= from_beat(c_hdr, c_rb);
        d_udp   <= from_beat(c_udp, c_rb);
        d_icrc  <= from_beat(c_icrc, c_rb);
        d_l4    <= from_beat(c_l4, c_rb);
    end

    // ------------------------------------------------------------------------------------------
    // D: lane i is byte p = start + i; with d = X - start, p < X when d > i, and p == X + c when
    // d == i - c. Each such test is a constant table of d's 128 values (a 7-input function, a
    // few LUTs) rather than a compare, which synthesis would give a carry chain.
    function automatic int value(input int v);     // a table index as the signed d it is
        value = v >= 64 ? v - 128 : v;
    endfunction

    function automatic logic [127:0] t_below(input int i);         // p < X
        for (int v = 0; v < 128; v++) begin
            t_below[v] = value(v) > i;
        end
    endfunction

    function automatic logic [127:0] t_at(input int i, input int c); // p == X + c
        for (int v = 0; v < 128; v++) begin
            t_at[v] = value(v) == i - c;
        end
    endfunction

    // X + lo <= p < X + hi
    function automatic logic [127:0] t_range(input int i, input int lo, input int hi);
        for (int v = 0; v < 128; v++) begin
            t_range[v] = value(v) <= i - lo && value(v) > i - hi;
        end
    endfunction

    logic [63:0]     crc_data, hdr_data, l4_data;
    logic [7:0][3:0] stored_hit;                   // lane i holds the ICRC's byte j
    logic [31:0]     stored_q;

    for (genvar i = 0; i < 8; i++) begin : g_lane
        localparam logic [127:0] BELOW    = t_below(i);
        // IPv4 TOS, TTL, header checksum; IPv6 traffic class and flow label, hop limit
        localparam logic [127:0] V4_ONES  = t_at(i, 1) | t_at(i, 8) | t_at(i, 10) | t_at(i, 11);
        localparam logic [127:0] V6_NIB   = t_at(i, 0);
        localparam logic [127:0] V6_ONES  = t_at(i, 1) | t_at(i, 2) | t_at(i, 3) | t_at(i, 7);
        // the UDP checksum, BTH byte 4 (FECN, BECN, reserved)
        localparam logic [127:0] UDP_ONES = t_at(i, 6) | t_at(i, 7) | t_at(i, 12);
        // the pseudo-header's addresses: IPv4 bytes 12-19, IPv6 bytes 8-39
        localparam logic [127:0] ADDR4    = t_range(i, 12, 20);
        localparam logic [127:0] ADDR6    = t_range(i, 8, 40);

        wire [7:0] b     = d_data[8*i +: 8];
        wire       in_ip = !BELOW[d_l3];
        wire [7:0] ones  = (UDP_ONES[d_udp] || (d_v4 && V4_ONES[d_l3]) || (d_v6 && V6_ONES[d_l3]))
                           ? 8'hFF : {4'h0, {4{d_v6 && V6_NIB[d_l3]}}};
        wire       addr  = d_v4 ? ADDR4[d_l3] : (d_v6 && ADDR6[d_l3]);
        wire       seg   = !BELOW[d_udp] && BELOW[d_l4];

        assign crc_data[8*i +: 8] = (d_keep[i] && in_ip && BELOW[d_icrc]) ? (b | ones) : 8'h00;
        assign hdr_data[8*i +: 8] = (d_keep[i] && d_v4 && in_ip && BELOW[d_hdr]) ? b : 8'h00;
        assign l4_data[8*i +: 8]  = (d_keep[i] && (d_v4 || d_v6) && (seg || addr)) ? b : 8'h00;

        for (genvar j = 0; j < 4; j++) begin : g_stored
            localparam logic [127:0] AT = t_at(i, j);
            assign stored_hit[i][j] = d_keep[i] && AT[d_icrc];
        end
    end

    // The ICRC's bytes as they pass (at most one lane holds each).
    logic [3:0][7:0] stored_d;
    always_comb begin
        for (int j = 0; j < 4; j++) begin
            stored_d[j] = stored_q[8*j +: 8];
            for (int i = 0; i < 8; i++) begin
                if (stored_hit[i][j]) begin
                    stored_d[j] = d_data[8*i +: 8];
                end
            end
        end
    end

    // The beat against the ICRC's offset: whether it holds bytes before it, and if it holds
    // the last of them, the lanes after that one (d of 1 to 8 bytes from the beat's start).
    function automatic logic [127:0] t_span(input int lo, input int hi);
        for (int v = 0; v < 128; v++) begin
            t_span[v] = value(v) >= lo && value(v) <= hi;
        end
    endfunction

    function automatic logic [3*128-1:0] t_empty();
        for (int v = 0; v < 128; v++) begin
            t_empty[3*v +: 3] = 3'(8 - value(v));
        end
    endfunction

    localparam logic [127:0]     CRC_IN   = t_span(1, 63);
    localparam logic [127:0]     CRC_LAST = t_span(1, 8);
    localparam logic [3*128-1:0] CRC_EMPTY = t_empty();

    always_ff @(posedge clk) begin
        if (rst) begin
            e_valid <= 1'b0;
        end else begin
            e_valid <= d_valid;
        end
    end

    always_ff @(posedge clk) begin
        e_first     <= d_first;
        e_last      <= d_last;
        e_vlan      <= d_vlan;
        e_crc_valid <= CRC_IN[d_icrc];
        e_crc_last  <= CRC_LAST[d_icrc];
        e_crc_empty <= CRC_EMPTY[3*d_icrc +: 3];
        e_crc_data  <= crc_data;
        e_hdr_data  <= hdr_data;
        e_l4_data   <= l4_data;
        if (d_valid) begin
            stored_q <= stored_d;
        end
    end

    assign e_stored = stored_q;

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_LANES_SV
