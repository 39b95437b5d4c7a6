// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Header template check and field extraction for the TSO segmenter (REFERENCE §5).
//
// Agrees with HeaderLayout::parse and Segmenter::new in model/src/tso.rs, check for check and in
// the same order, so that a bad template gets the model's error class:
//   link   Ethernet: shorter than 14 bytes, or vlan (0x8100/0x88A8) and shorter than 18 ->
//          MALFORMED; IPoIB: shorter than 4 -> MALFORMED. EtherType neither IPv4 nor IPv6 ->
//          NOT_TCP.
//   IPv4   truncated, version not 4, IHL below 5, or the IHL past the template -> MALFORMED;
//          protocol not TCP, or a fragment (MF or offset set) -> NOT_TCP.
//   IPv6   shorter than 40 bytes or version not 6 -> MALFORMED; next header not TCP -> NOT_TCP.
//   TCP    data offset byte past the template, data offset below 5, or IP + TCP headers not
//          ending exactly at hdr_len -> MALFORMED.
//   MSS    the IPv4 total length / IPv6 payload length of a full segment over 0xFFFF, or the MSS
//          over MAX_MSS (the segment buffer) -> MSS_TOO_LARGE.
// Bytes at or past hdr_len count as absent, whatever the array holds there.
//
// The IP header starts at byte 4, 14 or 18, so fields are read through a 3-way window instead of
// a full byte-indexed multiplexer; the TCP fields through a second window at the IHL.
//
// Purely combinational; the segmenter registers the results.
module tso_parse #(
    parameter int HDR_BYTES = 128,   // Bytes of the template array (at least the longest template)
    parameter int MAX_MSS   = 9000   // Largest MSS the segment buffer holds
) (
    input  wire [HDR_BYTES*8-1:0] hdr,        // byte p in bits [8p+7:8p]
    input  wire [15:0]            hdr_len,    // template length in bytes
    input  wire                   ipoib,      // 1: 4-byte IPoIB header, 0: Ethernet II
    input  wire [15:0]            mss,
    output logic [3:0]            err,        // 0, or ERR_* below
    output logic [7:0]            ip_off,     // offset of the IP header
    output logic [7:0]            tcp_off,    // offset of the TCP header
    output logic                  ipv4,       // else IPv6
    output logic [15:0]           ident,      // IPv4 identification
    output logic [31:0]           seq,        // TCP sequence number
    output logic [7:0]            doff_byte,  // TCP byte 12 (data offset, reserved bits)
    output logic [7:0]            flags       // TCP byte 13
);

    localparam logic [3:0] ERR_MSS_TOO_LARGE = 4'd2;
    localparam logic [3:0] ERR_NOT_TCP       = 4'd5;
    localparam logic [3:0] ERR_MALFORMED     = 4'd6;

    // The array padded with zeros so that every window below stays inside it.
    localparam int VIEW = HDR_BYTES + 18 + 80;
    logic [VIEW*8-1:0] view;
    always_comb begin
        view                  = '0;
        view[HDR_BYTES*8-1:0] = hdr;
    end

    function automatic logic [7:0] at(input logic [VIEW*8-1:0] v, input int p);
        at = v[8*p +: 8];
    endfunction

    // ---- link header
    wire [15:0] et12 = {at(view, 12), at(view, 13)};
    wire        vlan = !ipoib && (et12 == 16'h8100 || et12 == 16'h88A8);
    wire [15:0] ethertype = ipoib  ? {at(view, 0), at(view, 1)}
                          : vlan ? {at(view, 16), at(view, 17)}
                          :          et12;
    wire        link_short = ipoib  ? hdr_len < 16'd4
                           : vlan ? hdr_len < 16'd18
                           :          hdr_len < 16'd14;

    // ---- IP header, through a window of 80 bytes at the IP offset (60 of IPv4 + 20 of TCP)
    logic [80*8-1:0] ipw;
    always_comb begin
        if (ipoib) begin
            ip_off = 8'd4;
            ipw    = view[4*8 +: 80*8];
        end else if (vlan) begin
            ip_off = 8'd18;
            ipw    = view[18*8 +: 80*8];
        end else begin
            ip_off = 8'd14;
            ipw    = view[14*8 +: 80*8];
        end
    end

    wire        is_v4   = ethertype == 16'h0800;
    wire        is_v6   = ethertype == 16'h86DD;
    wire [3:0]  version = ipw[7:4];
    wire [3:0]  ihl     = ipw[3:0];
    wire [15:0] ip_at   = {8'd0, ip_off};
    wire [15:0] ihl_len = {10'd0, ihl, 2'b00};

    wire v4_malformed = hdr_len <= ip_at || version != 4'd4 || ihl < 4'd5
                        || hdr_len < ip_at + ihl_len;
    wire v4_not_tcp   = ipw[9*8 +: 8] != 8'd6 || ({ipw[6*8 +: 8], ipw[7*8 +: 8]} & 16'h3FFF) != 0;
    wire v6_malformed = hdr_len < ip_at + 16'd40 || version != 4'd6;
    wire v6_not_tcp   = ipw[6*8 +: 8] != 8'd6;

    // ---- TCP header, 20 bytes at the IHL (IPv4: 20..60 in steps of 4) or 40 (IPv6)
    wire [5:0] tcp_rel = is_v4 ? {ihl, 2'b00} : 6'd40;
    // Only the fields the segmenter rewrites or checks: sequence number (bytes 4-7) and the data
    // offset and flags (bytes 12-13).
    logic [31:0] tcp_seq;
    logic [15:0] tcp_doff_flags;
    always_comb begin
        tcp_seq        = ipw[24*8 +: 32];
        tcp_doff_flags = ipw[32*8 +: 16];
        for (int r = 5; r <= 15; r++) begin
            if (tcp_rel == 6'(4 * r)) begin
                tcp_seq        = ipw[32*r+32 +: 32];
                tcp_doff_flags = ipw[32*r+96 +: 16];
            end
        end
    end
    assign tcp_off = ip_off + {2'b00, tcp_rel};

    wire [15:0] tcp_at   = {8'd0, tcp_off};
    wire [3:0]  doff     = tcp_doff_flags[7:4];
    wire        tcp_malformed = hdr_len <= tcp_at + 16'd12 || doff < 4'd5
                                || tcp_at + {10'd0, doff, 2'b00} != hdr_len;

    // IPv4 total length or IPv6 payload length of a full segment (16-bit field), 17 bits wide.
    wire [16:0] ip_len   = {1'b0, hdr_len} - {9'd0, ip_off} - (is_v4 ? 17'd0 : 17'd40) + {1'b0, mss};
    wire        mss_big  = ip_len > 17'h0FFFF || {16'd0, mss} > 32'(MAX_MSS);

    always_comb begin
        if (link_short) begin
            err = ERR_MALFORMED;
        end else if (!is_v4 && !is_v6) begin
            err = ERR_NOT_TCP;
        end else if (is_v4 && v4_malformed) begin
            err = ERR_MALFORMED;
        end else if (is_v4 && v4_not_tcp) begin
            err = ERR_NOT_TCP;
        end else if (is_v6 && v6_malformed) begin
            err = ERR_MALFORMED;
        end else if (is_v6 && v6_not_tcp) begin
            err = ERR_NOT_TCP;
        end else if (tcp_malformed) begin
            err = ERR_MALFORMED;
        end else if (mss_big) begin
            err = ERR_MSS_TOO_LARGE;
        end else begin
            err = 4'd0;
        end
    end

    assign ipv4      = is_v4;
    assign ident     = {ipw[4*8 +: 8], ipw[5*8 +: 8]};
    assign seq       = {tcp_seq[7:0], tcp_seq[15:8], tcp_seq[23:16], tcp_seq[31:24]};
    assign doff_byte = tcp_doff_flags[7:0];
    assign flags     = tcp_doff_flags[15:8];

endmodule

`resetall
