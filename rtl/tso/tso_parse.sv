// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_PARSE_SV
`define ROCENIC_TSO_PARSE_SV
`include "rtl/tso/tso_status_pkg.sv"
`include "rtl/common/wire_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Header template check and field extraction for the TSO segmenter (docs/reference.md §5).
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
// a full byte-indexed multiplexer; the TCP fields through a second window, one of the 23 places
// a TCP header can start (link header + IHL), picked in two clocks (stages 3 and 4).
//
// Timing: a chain of dependent choices (link type -> IP offset -> IHL -> TCP offset -> lengths
// -> error priority) is too deep for one clock, so it is cut into LATENCY register stages. The
// stages run freely and read the inputs directly, so the inputs must be held from the start
// pulse until done; done pulses LATENCY cycles after start, with every output valid from then
// until the inputs change.
module tso_parse #(
    parameter int HDR_BYTES = 128,   // Bytes of the template array (at least the longest template)
    parameter int MAX_MSS   = 9000   // Largest MSS the segment buffer holds
) (
    input  wire                   clk,
    input  wire                   rst,        // synchronous, active high
    input  wire                   start,      // inputs valid from now on, held until done
    output wire                   done,       // outputs valid (a pulse LATENCY cycles on)
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

    localparam logic [3:0] ERR_MSS_TOO_LARGE = tso_status_pkg::TSO_ERR_MSS_TOO_LARGE;
    localparam logic [3:0] ERR_NOT_TCP       = tso_status_pkg::TSO_ERR_NOT_TCP;
    localparam logic [3:0] ERR_MALFORMED     = tso_status_pkg::TSO_ERR_MALFORMED;
    localparam int         LATENCY           = 6;   // register stages, start to done
    // Field values from rtl/common/wire_pkg.sv (generated from model::wire).
    localparam logic [15:0] ET_IPV4 = wire_pkg::WIRE_ETHERTYPE_IPV4;
    localparam logic [15:0] ET_IPV6 = wire_pkg::WIRE_ETHERTYPE_IPV6;
    localparam logic [15:0] ET_VLAN = wire_pkg::WIRE_ETHERTYPE_VLAN;
    localparam logic [15:0] ET_QINQ = wire_pkg::WIRE_ETHERTYPE_QINQ;
    localparam logic [7:0]  P_TCP   = wire_pkg::WIRE_IPPROTO_TCP;
    // IP offset by link_sel (0 IPoIB, 1 untagged Ethernet, 2 tagged), 8 bits each
    localparam logic [23:0] LINK_BASE         = {8'd18, 8'd14, 8'd4};
    // Where the TCP header can start: IP offset + IHL * 4 (IHL 5..15; IPv6 as 10). 4 + 4r for
    // IPoIB (j = r - 5, 0..10); 14 + 4r untagged and 18 + 4r = 14 + 4(r + 1) tagged (j = 11..22).
    localparam int         NT                = 23;
    localparam int         NG                = (NT + 3) / 4;   // groups of four of them

    // The TCP offset of candidate j.
    function automatic int toff(input int j);
        toff = j < 11 ? 24 + 4 * j : 4 * j - 10;
    endfunction

    // The candidate of IHL r behind link header sel.
    function automatic int tidx(input int r, input int sel);
        tidx = sel == 0 ? r - 5 : sel == 1 ? r + 6 : r + 7;
    endfunction

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

    // The IHL, if an IPv4 header starts at byte p.
    function automatic logic [3:0] ihl_at(input logic [VIEW*8-1:0] v, input int p);
        ihl_at = v[8*p +: 4];
    endfunction

    logic [LATENCY-1:0] stage_q;   // start, shifted: which stages hold this template's results
    always_ff @(posedge clk) begin
        if (rst) begin
            stage_q <= '0;
        end else begin
            stage_q <= {stage_q[LATENCY-2:0], start};
        end
    end
    assign done = stage_q[LATENCY-1];

    // ---- stage 1: the link header. The three EtherType candidates are compared before the
    // VLAN tag picks one, so that no compare waits on another.
    wire [15:0] et12  = {at(view, 12), at(view, 13)};
    wire [15:0] et0   = {at(view, 0), at(view, 1)};
    wire [15:0] et16  = {at(view, 16), at(view, 17)};

    logic [1:0] s1_sel_q;     // link_sel below
    logic [2:0] s1_v4_q;      // EtherType IPv4 at bytes 0 (IPoIB), 12 (untagged), 16 (tagged)
    logic [2:0] s1_v6_q;      // the same for IPv6
    logic [2:0] s1_short_q;   // template shorter than the link header: IPoIB, untagged, tagged
    // For each IP offset (link type): the template does not reach past its first byte
    // (s1_ip_le_q), it has 64 bytes or more from there (s1_ip_big_q, beyond any IHL), else the
    // bytes from there mod 64 (s1_ip_room_q), so that stage 2's IHL check is a 6-bit compare.
    logic [2:0] s1_ip_le_q;
    logic [2:0] s1_ip_big_q;
    logic [17:0] s1_ip_room_q;
    always_ff @(posedge clk) begin
        for (int sel = 0; sel < 3; sel++) begin
            s1_ip_le_q[sel]          <= hdr_len <= 16'(LINK_BASE[8*sel +: 8]);
            s1_ip_big_q[sel]         <= hdr_len >= 16'(LINK_BASE[8*sel +: 8]) + 16'd64;
            s1_ip_room_q[6*sel +: 6] <= 6'(hdr_len - 16'(LINK_BASE[8*sel +: 8]));
            s1_short_q[sel]          <= hdr_len < 16'(LINK_BASE[8*sel +: 8]);
        end
        s1_sel_q   <= ipoib ? 2'd0 : et12 == ET_VLAN || et12 == ET_QINQ ? 2'd2 : 2'd1;
        s1_v4_q    <= {et16 == ET_IPV4, et12 == ET_IPV4, et0 == ET_IPV4};
        s1_v6_q    <= {et16 == ET_IPV6, et12 == ET_IPV6, et0 == ET_IPV6};
    end

    // ---- stage 2: the IP header's first bytes (ip_byte), at the offset its link type puts it
    wire [1:0] link_sel = s1_sel_q;   // 0 IPoIB, 1 untagged Ethernet, 2 tagged
    wire is_v4 = s1_v4_q[link_sel];
    wire is_v6 = s1_v6_q[link_sel];

    // Byte p of the IP header, whichever link header is in front.
    function automatic logic [7:0] ip_byte(input logic [VIEW*8-1:0] v, input logic [1:0] sel,
                                           input int p);
        case (sel)
            2'd0:    ip_byte = at(v, 4 + p);
            2'd2:    ip_byte = at(v, 18 + p);
            default: ip_byte = at(v, 14 + p);
        endcase
    endfunction

    wire [7:0] ip_at8 = link_sel == 2'd0 ? 8'd4 : link_sel == 2'd2 ? 8'd18 : 8'd14;
    wire [7:0] ipb0   = ip_byte(view, link_sel, 0);

    logic        s2_link_short_q;
    logic        s2_v4_q;
    logic        s2_v6_q;
    logic [7:0]  s2_ip_off_q;
    logic [1:0]  s2_sel_q;    // link_sel
    logic [3:0]  s2_version_q;
    logic [3:0]  s2_ihl_q;
    logic [7:0]  s2_b6_q;     // IP header bytes 6, 7 and 9, compared in stage 3
    logic [7:0]  s2_b7_q;
    logic [7:0]  s2_b9_q;
    logic [15:0] s2_ident_q;
    // Per link type sel, with the IHL at that IP offset: the IPv4 length checks (template not
    // past the IP header's first byte, or shorter than the IHL), and IPv6's (shorter than 40
    // bytes); stage 3 picks. No adder follows the IP header's window.
    logic [2:0]  s2_v4_short_q;
    logic [2:0]  s2_v6_short_q;
    logic [NT-1:0] s2_thit_q;   // one-hot: the TCP header at toff(j)
    logic [2:0]    v4_short;
    logic [2:0]    v6_short;
    logic [NT-1:0] thit;
    always_comb begin
        thit = '0;
        for (int sel = 0; sel < 3; sel++) begin
            logic [15:0] base;
            base          = 16'(LINK_BASE[8*sel +: 8]);
            v4_short[sel] = s1_ip_le_q[sel]
                            || (!s1_ip_big_q[sel]
                                && s1_ip_room_q[6*sel +: 6] < {ihl_at(view, 32'(base)), 2'b00});
            v6_short[sel] = hdr_len < base + 16'd40;
            for (int r = 5; r <= 15; r++) begin
                if (link_sel == 2'(sel)
                    && (s1_v4_q[sel] ? ihl_at(view, 32'(base)) == 4'(r) : r == 10)) begin
                    thit[tidx(r, sel)] = 1'b1;
                end
            end
        end
    end
    always_ff @(posedge clk) begin
        s2_v4_short_q   <= v4_short;
        s2_v6_short_q   <= v6_short;
        s2_thit_q       <= thit;
        s2_link_short_q <= s1_short_q[link_sel];
        s2_v4_q         <= is_v4;
        s2_v6_q         <= is_v6;
        s2_ip_off_q     <= ip_at8;
        s2_sel_q        <= link_sel;
        s2_version_q    <= ipb0[7:4];
        s2_ihl_q        <= ipb0[3:0];
        s2_b6_q         <= ip_byte(view, link_sel, 6);
        s2_b7_q         <= ip_byte(view, link_sel, 7);
        s2_b9_q         <= ip_byte(view, link_sel, 9);
        s2_ident_q      <= {ip_byte(view, link_sel, 4), ip_byte(view, link_sel, 5)};
    end

    // ---- stage 3: where the TCP header is (IPv4: at the IHL, 20..60 in steps of 4; IPv6: at
    // 40), the IP length checks (picked from stage 2's, one per link type), and the first half
    // of the TCP field pick.
    wire [5:0]  tcp_rel = s2_v4_q ? {s2_ihl_q, 2'b00} : 6'd40;

    logic        s3_link_short_q;
    logic        s3_v4_q;
    logic        s3_v6_q;
    logic        s3_v4_malformed_q;
    logic        s3_v4_not_tcp_q;
    logic        s3_v6_malformed_q;
    logic        s3_v6_not_tcp_q;
    logic [7:0]  s3_ip_off_q;
    logic [7:0]  s3_tcp_off_q;
    // The TCP fields picked in two clocks: here of each group of four candidates (zero if the
    // TCP header is in none of them), in stage 4 among the groups.
    logic [NG*32-1:0] s3_gseq_q;    // sequence number bytes, as in the template
    logic [NG*16-1:0] s3_gdf_q;     // data offset and flags bytes
    logic [15:0] s3_ident_q;
    logic [16:0] s3_ip_hdr_q;   // bytes from the IP header on, less IPv6's fixed 40
    always_ff @(posedge clk) begin
        s3_link_short_q   <= s2_link_short_q;
        s3_v4_q           <= s2_v4_q;
        s3_v6_q           <= s2_v6_q;
        s3_v4_malformed_q <= s2_v4_short_q[s2_sel_q] || s2_version_q != 4'd4
                             || s2_ihl_q < 4'd5;
        s3_v4_not_tcp_q   <= s2_b9_q != P_TCP || ({s2_b6_q, s2_b7_q} & 16'h3FFF) != 0;
        s3_v6_malformed_q <= s2_v6_short_q[s2_sel_q] || s2_version_q != 4'd6;
        s3_v6_not_tcp_q   <= s2_b6_q != P_TCP;
        s3_ip_off_q       <= s2_ip_off_q;
        s3_tcp_off_q      <= s2_ip_off_q + {2'b00, tcp_rel};
        for (int g = 0; g < NG; g++) begin
            logic [31:0] sq;
            logic [15:0] df;
            sq = '0;
            df = '0;
            for (int j = 4 * g; j < 4 * g + 4 && j < NT; j++) begin
                sq = sq | ({32{s2_thit_q[j]}} & view[8*(toff(j) + 4) +: 32]);
                df = df | ({16{s2_thit_q[j]}} & view[8*(toff(j) + 12) +: 16]);
            end
            s3_gseq_q[32*g +: 32] <= sq;
            s3_gdf_q[16*g +: 16]  <= df;
        end
        s3_ident_q        <= s2_ident_q;
        s3_ip_hdr_q       <= {1'b0, hdr_len} - {9'd0, s2_ip_off_q} - (s2_v4_q ? 17'd0 : 17'd40);
    end

    // ---- stage 4: the TCP fields the segmenter rewrites or checks: sequence number (bytes 4-7)
    // and the data offset and flags (bytes 12-13), the OR of the groups' picks (none for an IHL
    // below 5, which fails earlier anyway); the MSS check; the TCP header's room.
    logic [31:0] tcp_seq;
    logic [15:0] tcp_doff_flags;
    always_comb begin
        tcp_seq        = '0;
        tcp_doff_flags = '0;
        for (int g = 0; g < NG; g++) begin
            tcp_seq        = tcp_seq | s3_gseq_q[32*g +: 32];
            tcp_doff_flags = tcp_doff_flags | s3_gdf_q[16*g +: 16];
        end
    end
    wire [15:0] tcp_at = {8'd0, s3_tcp_off_q};

    logic        s4_mss_big_q;
    logic        s4_link_short_q;
    logic        s4_v4_q;
    logic        s4_v6_q;
    logic        s4_v4_malformed_q;
    logic        s4_v4_not_tcp_q;
    logic        s4_v6_malformed_q;
    logic        s4_v6_not_tcp_q;
    logic [31:0] s4_seq_q;
    logic [15:0] s4_doff_flags_q;
    logic        s4_tcp_short_q;   // the template ends before TCP byte 13
    logic [15:0] s4_tcp_room_q;    // template bytes from the TCP header on
    always_ff @(posedge clk) begin
        s4_tcp_short_q     <= hdr_len <= tcp_at + 16'd12;
        s4_tcp_room_q      <= hdr_len - tcp_at;
        // IPv4 total length or IPv6 payload length of a full segment (16-bit field), 17 bits.
        s4_mss_big_q       <= s3_ip_hdr_q + {1'b0, mss} > 17'h0FFFF
                              || {16'd0, mss} > 32'(MAX_MSS);
        s4_link_short_q    <= s3_link_short_q;
        s4_v4_q            <= s3_v4_q;
        s4_v6_q            <= s3_v6_q;
        s4_v4_malformed_q  <= s3_v4_malformed_q;
        s4_v4_not_tcp_q    <= s3_v4_not_tcp_q;
        s4_v6_malformed_q  <= s3_v6_malformed_q;
        s4_v6_not_tcp_q    <= s3_v6_not_tcp_q;
        s4_seq_q           <= tcp_seq;
        s4_doff_flags_q    <= tcp_doff_flags;
    end

    // ---- stage 5: TCP header checks
    wire [3:0]  doff   = s4_doff_flags_q[7:4];

    logic       s5_tcp_malformed_q;
    logic       s5_mss_big_q;
    logic       s5_link_short_q;
    logic       s5_v4_q;
    logic       s5_v6_q;
    logic       s5_v4_malformed_q;
    logic       s5_v4_not_tcp_q;
    logic       s5_v6_malformed_q;
    logic       s5_v6_not_tcp_q;
    always_ff @(posedge clk) begin
        s5_tcp_malformed_q <= s4_tcp_short_q || doff < 4'd5
                              || s4_tcp_room_q != {10'd0, doff, 2'b00};
        s5_mss_big_q       <= s4_mss_big_q;
        s5_link_short_q    <= s4_link_short_q;
        s5_v4_q            <= s4_v4_q;
        s5_v6_q            <= s4_v6_q;
        s5_v4_malformed_q  <= s4_v4_malformed_q;
        s5_v4_not_tcp_q    <= s4_v4_not_tcp_q;
        s5_v6_malformed_q  <= s4_v6_malformed_q;
        s5_v6_not_tcp_q    <= s4_v6_not_tcp_q;
    end

    // ---- stage 6: the first failing check in the model's order
    always_ff @(posedge clk) begin
        if (s5_link_short_q) begin
            err <= ERR_MALFORMED;
        end else if (!s5_v4_q && !s5_v6_q) begin
            err <= ERR_NOT_TCP;
        end else if (s5_v4_q && s5_v4_malformed_q) begin
            err <= ERR_MALFORMED;
        end else if (s5_v4_q && s5_v4_not_tcp_q) begin
            err <= ERR_NOT_TCP;
        end else if (s5_v6_q && s5_v6_malformed_q) begin
            err <= ERR_MALFORMED;
        end else if (s5_v6_q && s5_v6_not_tcp_q) begin
            err <= ERR_NOT_TCP;
        end else if (s5_tcp_malformed_q) begin
            err <= ERR_MALFORMED;
        end else if (s5_mss_big_q) begin
            err <= ERR_MSS_TOO_LARGE;
        end else begin
            err <= 4'd0;
        end
    end

    assign ipv4      = s3_v4_q;
    assign ip_off    = s3_ip_off_q;
    assign tcp_off   = s3_tcp_off_q;
    assign ident     = s3_ident_q;
    assign seq       = {s4_seq_q[7:0], s4_seq_q[15:8], s4_seq_q[23:16], s4_seq_q[31:24]};
    assign doff_byte = s4_doff_flags_q[7:0];
    assign flags     = s4_doff_flags_q[15:8];

endmodule

`resetall

`endif  // ROCENIC_TSO_PARSE_SV
