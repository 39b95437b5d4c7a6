// SPDX-License-Identifier: Apache-2.0 OR MIT
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
    // C: each position less the beat's start, clamped.
    function automatic logic signed [6:0] clamp(input logic signed [RW:0] v);
        if (v > (RW + 1)'(63)) begin
            clamp = 7'sd63;
        end else if (v < -(RW + 1)'(64)) begin
            clamp = -7'sd64;
        end else begin
            clamp = 7'(v);
        end
    endfunction

    function automatic logic signed [6:0] from_beat(input logic signed [RW-1:0] r,
                                                    input logic signed [PW-1:0] b);
        from_beat = clamp((RW + 1)'(r) - (RW + 1)'(b));
    endfunction

    logic                 d_valid, d_first, d_last, d_vlan, d_v4, d_v6;
    logic [7:0]           d_keep;
    logic [63:0]          d_data;
    logic signed [6:0]    d_l3, d_hdr, d_udp, d_icrc, d_l4;

    always_ff @(posedge clk) begin
        if (rst) begin
            d_valid <= 1'b0;
        end else begin
            d_valid <= c_valid;
        end
    end

    always_ff @(posedge clk) begin
        d_first  <= c_first;
        d_last   <= c_last;
        d_vlan <= c_vlan;
        d_v4     <= c_v4;
        d_v6     <= c_v6;
        d_keep   <= c_keep;
        d_data   <= c_data;
        d_l3     <= from_beat('0, c_rb);
        d_hdr    <= from_beat(c_hdr, c_rb);
        d_udp    <= from_beat(c_udp, c_rb);
        d_icrc   <= from_beat(c_icrc, c_rb);
        d_l4     <= from_beat(c_l4, c_rb);
    end

    // ------------------------------------------------------------------------------------------
    // D: lane i is byte p = start + i; with d = X - start, p < X when d > i, p == X + c when
    // d == i - c.
    function automatic logic below(input logic signed [6:0] d, input int i);
        below = int'(d) > i;
    endfunction

    function automatic logic at(input logic signed [6:0] d, input int i, input int c);
        at = int'(d) == i - c;
    endfunction

    logic [63:0] crc_data, hdr_data, l4_data;
    logic [3:0][7:0] stored_d;
    logic [31:0] stored_q;

    always_comb begin
        logic [7:0] b, ones;
        logic       in_ip, seg, addr;
        stored_d = stored_q;
        for (int i = 0; i < 8; i++) begin
            b     = d_data[8*i +: 8];
            in_ip = !below(d_l3, i);
            ones  = '0;
            if (d_v4) begin
                if (at(d_l3, i, 1) || at(d_l3, i, 8) || at(d_l3, i, 10) || at(d_l3, i, 11)) begin
                    ones = 8'hFF;                 // TOS, TTL, header checksum
                end
            end else if (d_v6) begin
                if (at(d_l3, i, 0)) begin
                    ones = 8'h0F;                 // traffic class, high nibble
                end
                if (at(d_l3, i, 1) || at(d_l3, i, 2) || at(d_l3, i, 3) || at(d_l3, i, 7)) begin
                    ones = 8'hFF;                 // traffic class, flow label, hop limit
                end
            end
            if (at(d_udp, i, 6) || at(d_udp, i, 7) || at(d_udp, i, 12)) begin
                ones = 8'hFF;                     // UDP checksum, BTH FECN/BECN/reserved
            end
            crc_data[8*i +: 8] = (d_keep[i] && in_ip && below(d_icrc, i)) ? (b | ones) : 8'h00;
            hdr_data[8*i +: 8] = (d_keep[i] && d_v4 && in_ip && below(d_hdr, i)) ? b : 8'h00;
            // the pseudo-header's addresses: IPv4 bytes 12-19, IPv6 bytes 8-39
            addr = d_v4 ? (!below(d_l3, i - 12) && below(d_l3, i - 20))
                        : (d_v6 && !below(d_l3, i - 8) && below(d_l3, i - 40));
            seg  = !below(d_udp, i) && below(d_l4, i);
            l4_data[8*i +: 8]  = (d_keep[i] && (d_v4 || d_v6) && (seg || addr)) ? b : 8'h00;
            for (int j = 0; j < 4; j++) begin
                if (d_keep[i] && at(d_icrc, i, j)) begin
                    stored_d[j] = b;
                end
            end
        end
    end

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
        e_vlan    <= d_vlan;
        e_crc_valid <= d_icrc > 7'sd0;
        e_crc_last  <= d_icrc > 7'sd0 && d_icrc <= 7'sd8;
        e_crc_empty <= 3'(7'sd8 - d_icrc);
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
