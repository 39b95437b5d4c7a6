// SPDX-License-Identifier: Apache-2.0 OR MIT
// Packages first, whatever order the files are given in (paths from the repository root).
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// RSS parser: the first RSS_PARSE_WINDOW bytes of a frame in, what RSS may hash and steer on out.
//
// Bit-exact with model::rss::parse::classify (model/src/rss/parse.rs), including its limits: only
// the window is read, at most RSS_MAX_EXTENSION_HEADERS IPv6 extension headers are walked, and a
// header past either limit gives an L3-only result flagged DEEP. Lengths are checked against the
// whole frame (in_len), so a frame longer than the window is parsed exactly like the model does.
// Every byte read is guarded by a length check, so bytes of the window past in_len are never
// used; the capture stage zeroes them anyway.
//
// Frames: Ethernet II with up to two 802.1Q/802.1ad tags, or native InfiniBand (LRH, optional
// GRH, BTH; for UD SEND a DETH and optional ImmDt, then the 4-byte IPoIB header and IP). IPv4
// with options and fragments, IPv6 with hop-by-hop, routing, destination-options and fragment
// headers skipped, TCP, UDP, and RoCEv2's BTH destination QP behind UDP port 4791.
//
// Timing: a fixed-latency pipeline that never stalls; one frame per clock; LATENCY = 5.
//   1  L2: EtherType, VLAN tags, or LRH/GRH/BTH/DETH/IPoIB; the offset of the IP header (one of
//      seven values) and the IB QPN
//   2  L3: the window re-based at the IP header (a 7-way mux), IPv4 or the fixed IPv6 header
//   3  IPv6 extension headers 1 and 2
//   4  IPv6 extension headers 3 and 4, then the hop limit
//   5  the end of the IPv6 walk, then TCP or UDP and the RoCEv2 BTH
module rss_parser
#(
    parameter  int LEN_W  = 18,                  // Frame length width; in_len saturates
    localparam int WIN    = rss_regs_pkg::RSS_PARSE_WINDOW,    // Window bytes (the model's PARSE_WINDOW)
    localparam int FLAGS  = rss_regs_pkg::RSS_FLAGS_W          // Parse flag bits
) (
    input  wire               clk,
    input  wire               rst,               // synchronous, active high
    input  wire               in_valid,
    input  wire [WIN*8-1:0]   in_win,            // frame byte i in bits [8i +: 8]
    input  wire [LEN_W-1:0]   in_len,            // frame length in bytes (saturated)
    input  wire               in_ib,             // 1: InfiniBand link layer, 0: Ethernet
    output logic              out_valid,
    output logic [FLAGS-1:0]  out_flags,         // model::rss::ParseFlags
    output logic [15:0]       out_ethertype,     // L3 EtherType, 0 when none was reached
    output logic [7:0]        out_l4_protocol,   // IP protocol / final IPv6 next header, or 0
    output logic [127:0]      out_src,           // byte 0 in [127:120]; IPv4 as ::ffff:a.b.c.d
    output logic [127:0]      out_dst,
    output logic [15:0]       out_src_port,      // 0 without TCP/UDP
    output logic [15:0]       out_dst_port,
    output logic [23:0]       out_qpn            // BTH destination QP, 0 without BTH
);


    // Cycles from in_valid to out_valid; public for the Verilator harness.
    /* verilator lint_off UNUSEDPARAM */
    localparam int LATENCY /*verilator public*/ = 5;
    /* verilator lint_on UNUSEDPARAM */

    // The window re-based at the IP header: WIN - 14 bytes can be there, padded with zeros to
    // 128 so that every 7-bit index into it is in range (bytes past the window are never used:
    // each read is guarded by a window check).
    localparam int REL = 128;
    localparam int REL_BITS = REL * 8;

    localparam logic [15:0] ET_IPV4 = 16'h0800;
    localparam logic [15:0] ET_IPV6 = 16'h86DD;
    localparam logic [15:0] ET_VLAN = 16'h8100;
    localparam logic [15:0] ET_QINQ = 16'h88A8;
    localparam logic [15:0] ROCEV2_PORT = 16'd4791;

    if (FLAGS != 11) begin : g_bad_flags
        $error("rss_parser: rss_types_pkg::found_t holds 11 parse flags");
    end

    if (WIN < 128) begin : g_bad_window
        // The deepest fixed header chain (IB + GRH + DETH + ImmDt + IPoIB + IPv6) ends at 116.
        $error("rss_parser: the parse window must be at least 128 bytes");
    end

    // ------------------------------------------------------------------------------------------
    // Helpers. Byte i of a window is w[8i +: 8]; multi-byte fields are big-endian on the wire.
    function automatic logic [7:0] byte_of(input logic [WIN*8-1:0] w, input int i);
        byte_of = w[8*i +: 8];
    endfunction

    function automatic logic [15:0] be16_of(input logic [WIN*8-1:0] w, input int i);
        be16_of = {w[8*i +: 8], w[8*(i+1) +: 8]};
    endfunction

    function automatic logic [7:0] rel_byte(input logic [REL*8-1:0] r, input logic [6:0] i);
        rel_byte = r[8*i +: 8];
    endfunction

    function automatic logic [15:0] rel_be16(input logic [REL*8-1:0] r, input logic [6:0] i);
        rel_be16 = {r[8*i +: 8], r[8*(i+7'd1) +: 8]};
    endfunction

    function automatic logic is_tag(input logic [15:0] et);
        is_tag = et == ET_VLAN || et == ET_QINQ;
    endfunction

    function automatic logic [127:0] v4_mapped(input logic [31:0] a);
        v4_mapped = {80'h0, 16'hFFFF, a};
    endfunction


    // ------------------------------------------------------------------------------------------
    // Stage 1: L2.
    rss_types_pkg::found_t           s1_found_d, s1_found_q;
    logic             s1_ip_d, s1_ip_q;          // an IP header follows at s1_l3_q
    logic [6:0]       s1_l3_d, s1_l3_q;          // its offset: 14, 18, 22, 32, 36, 72 or 76
    logic             s1_valid_q;
    logic [WIN*8-1:0] s1_win_q;
    logic [LEN_W-1:0] s1_len_q;

    always_comb begin
        logic [15:0] et;
        logic [6:0]  bth_at;
        logic [6:0]  payload_at;
        s1_found_d = '0;
        s1_ip_d    = 1'b0;
        s1_l3_d    = 7'd14;
        et         = 16'h0;
        bth_at     = 7'd8;
        payload_at = 7'd0;
        if (!in_ib) begin
            if (in_len < LEN_W'(14)) begin
                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                et = be16_of(in_win, 12);
                if (is_tag(et)) begin
                    s1_found_d.flags[rss_regs_pkg::RSS_FLAG_VLAN] = 1'b1;
                    if (in_len < LEN_W'(18)) begin
                        s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                    end else begin
                        et      = be16_of(in_win, 16);
                        s1_l3_d = 7'd18;
                        if (is_tag(et)) begin
                            if (in_len < LEN_W'(22)) begin
                                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                            end else begin
                                et      = be16_of(in_win, 20);
                                s1_l3_d = 7'd22;
                            end
                        end
                    end
                end
                if (!s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED]) begin
                    s1_found_d.ethertype = et;
                    s1_ip_d              = et == ET_IPV4 || et == ET_IPV6;
                end
            end
        end else begin
            // LRH: link next header in the low two bits of byte 1: 2 = BTH, 3 = GRH then BTH.
            if (in_len < LEN_W'(8)) begin
                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (in_win[8*1 +: 2] == 2'b10 || in_win[8*1 +: 2] == 2'b11) begin
                bth_at = in_win[8*1 +: 2] == 2'b11 ? 7'd48 : 7'd8;
                if (in_len < LEN_W'(bth_at) + LEN_W'(12)) begin
                    s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                end else begin
                    s1_found_d.flags[rss_regs_pkg::RSS_FLAG_BTH] = 1'b1;
                    // Both BTH positions spelled out: constant selects, no shifter.
                    if (bth_at == 7'd48) begin
                        s1_found_d.qpn = {byte_of(in_win, 53), byte_of(in_win, 54),
                                          byte_of(in_win, 55)};
                        payload_at = byte_of(in_win, 48) == 8'h64 ? 7'd68
                                   : byte_of(in_win, 48) == 8'h65 ? 7'd72 : 7'd0;
                    end else begin
                        s1_found_d.qpn = {byte_of(in_win, 13), byte_of(in_win, 14),
                                          byte_of(in_win, 15)};
                        payload_at = byte_of(in_win, 8) == 8'h64 ? 7'd28
                                   : byte_of(in_win, 8) == 8'h65 ? 7'd32 : 7'd0;
                    end
                    // UD SEND Only (0x64) or with immediate (0x65): DETH [+ ImmDt] + IPoIB.
                    if (payload_at != 7'd0) begin
                        if (in_len < LEN_W'(payload_at) + LEN_W'(4)) begin
                            s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                        end else begin
                            case (payload_at)
                                7'd28:   et = be16_of(in_win, 28);
                                7'd32:   et = be16_of(in_win, 32);
                                7'd68:   et = be16_of(in_win, 68);
                                default: et = be16_of(in_win, 72);
                            endcase
                            if (et == ET_IPV4 || et == ET_IPV6) begin
                                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_IPOIB] = 1'b1;
                                s1_found_d.ethertype             = et;
                                s1_ip_d                          = 1'b1;
                                s1_l3_d                          = payload_at + 7'd4;
                            end
                        end
                    end
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_valid_q <= 1'b0;
        end else begin
            s1_valid_q <= in_valid;
        end
    end

    always_ff @(posedge clk) begin
        s1_found_q <= s1_found_d;
        s1_ip_q    <= s1_ip_d;
        s1_l3_q    <= s1_l3_d;
        s1_win_q   <= in_win;
        s1_len_q   <= in_len;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 2: the window re-based at the IP header, then IPv4 or the fixed IPv6 header.


    rss_types_pkg::found_t           s2_found_d, s2_found_q;
    rss_types_pkg::walk_t            s2_walk_d, s2_walk_q;
    logic [REL*8-1:0] s2_rel_d, s2_rel_q;
    logic [6:0]       s2_l3_q;
    logic             s2_valid_q;

    always_comb begin
        logic [LEN_W-1:0] plen;
        logic [15:0]      ihl;
        logic [15:0]      total;
        s2_found_d = s1_found_q;
        s2_walk_d  = '0;
        // Seven constant shifts rather than a barrel shifter.
        case (s1_l3_q)
            7'd14:   s2_rel_d = REL_BITS'(s1_win_q >> 8*14);
            7'd18:   s2_rel_d = REL_BITS'(s1_win_q >> 8*18);
            7'd22:   s2_rel_d = REL_BITS'(s1_win_q >> 8*22);
            7'd32:   s2_rel_d = REL_BITS'(s1_win_q >> 8*32);
            7'd36:   s2_rel_d = REL_BITS'(s1_win_q >> 8*36);
            7'd72:   s2_rel_d = REL_BITS'(s1_win_q >> 8*72);
            default: s2_rel_d = REL_BITS'(s1_win_q >> 8*76);
        endcase
        plen  = s1_len_q - LEN_W'(s1_l3_q);
        ihl   = {10'h0, s2_rel_d[3:0], 2'b00};
        total = rel_be16(s2_rel_d, 7'd2);
        if (s1_ip_q && s1_found_q.ethertype == ET_IPV4) begin
            if (plen < LEN_W'(20) || s2_rel_d[7:4] != 4'd4) begin
                s2_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                // The addresses are valid as soon as 20 bytes of version 4 are there.
                s2_found_d.flags[rss_regs_pkg::RSS_FLAG_IPV4] = 1'b1;
                s2_found_d.src         = v4_mapped({rel_byte(s2_rel_d, 7'd12),
                                                    rel_byte(s2_rel_d, 7'd13),
                                                    rel_byte(s2_rel_d, 7'd14),
                                                    rel_byte(s2_rel_d, 7'd15)});
                s2_found_d.dst         = v4_mapped({rel_byte(s2_rel_d, 7'd16),
                                                    rel_byte(s2_rel_d, 7'd17),
                                                    rel_byte(s2_rel_d, 7'd18),
                                                    rel_byte(s2_rel_d, 7'd19)});
                s2_found_d.l4_protocol = rel_byte(s2_rel_d, 7'd9);
                if (ihl < 16'd20 || total < ihl || LEN_W'(total) > plen) begin
                    s2_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                end else if ((rel_be16(s2_rel_d, 7'd6) & 16'h3FFF) != 16'h0) begin
                    s2_found_d.flags[rss_regs_pkg::RSS_FLAG_FRAG] = 1'b1;
                end else begin
                    s2_walk_d.transport = 1'b1;
                    s2_walk_d.l4_rel    = ihl;
                    s2_walk_d.seg_len   = total - ihl;
                end
            end
        end else if (s1_ip_q) begin
            if (plen < LEN_W'(40) || s2_rel_d[7:4] != 4'd6) begin
                s2_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                s2_found_d.flags[rss_regs_pkg::RSS_FLAG_IPV6] = 1'b1;
                for (int i = 0; i < 16; i++) begin
                    s2_found_d.src[127-8*i -: 8] = rel_byte(s2_rel_d, 7'(8 + i));
                    s2_found_d.dst[127-8*i -: 8] = rel_byte(s2_rel_d, 7'(24 + i));
                end
                s2_walk_d.payload_len = rel_be16(s2_rel_d, 7'd4);
                s2_walk_d.next_header = rel_byte(s2_rel_d, 7'd6);
                if (LEN_W'(40) + LEN_W'(s2_walk_d.payload_len) > plen) begin
                    s2_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                end else begin
                    s2_walk_d.walking = 1'b1;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s2_valid_q <= 1'b0;
        end else begin
            s2_valid_q <= s1_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s2_found_q <= s2_found_d;
        s2_walk_q  <= s2_walk_d;
        s2_rel_q   <= s2_rel_d;
        s2_l3_q    <= s1_l3_q;
    end

    // ------------------------------------------------------------------------------------------
    // Stages 3 and 4: the IPv6 extension-header walk, two headers per stage.


    rss_types_pkg::found_t           s3_found_d, s3_found_q, s4_found_d, s4_found_q;
    rss_types_pkg::walk_t            s3_walk_d, s3_walk_q, s4_walk_d, s4_walk_q;
    logic [REL*8-1:0] s3_rel_q, s4_rel_q;
    logic [6:0]       s3_l3_q, s4_l3_q;
    logic             s3_valid_q, s4_valid_q;

    if (rss_regs_pkg::RSS_MAX_EXTENSION_HEADERS != 4) begin : g_bad_hops
        $error("rss_parser: stages 3 and 4 walk exactly 4 extension headers");
    end

    // Two headers per stage: hop 1 feeds hop 2 within the clock.
    rss_types_pkg::found_t s3_mid_found, s4_mid_found, s4_hop_found;
    rss_types_pkg::walk_t  s3_mid_walk, s4_mid_walk, s4_hop_walk;

    rss_parser_hop u_hop1 (
        .rel(s2_rel_q), .l3(s2_l3_q), .in_found(s2_found_q), .in_walk(s2_walk_q),
        .out_found(s3_mid_found), .out_walk(s3_mid_walk)
    );
    rss_parser_hop u_hop2 (
        .rel(s2_rel_q), .l3(s2_l3_q), .in_found(s3_mid_found), .in_walk(s3_mid_walk),
        .out_found(s3_found_d), .out_walk(s3_walk_d)
    );
    rss_parser_hop u_hop3 (
        .rel(s3_rel_q), .l3(s3_l3_q), .in_found(s3_found_q), .in_walk(s3_walk_q),
        .out_found(s4_mid_found), .out_walk(s4_mid_walk)
    );
    rss_parser_hop u_hop4 (
        .rel(s3_rel_q), .l3(s3_l3_q), .in_found(s4_mid_found), .in_walk(s4_mid_walk),
        .out_found(s4_hop_found), .out_walk(s4_hop_walk)
    );

    always_comb begin
        s4_found_d = s4_hop_found;
        s4_walk_d  = s4_hop_walk;
        // The hop limit: a fifth extension header ends the walk with an L3-only hash.
        if (s4_walk_d.walking) begin
            if (s4_walk_d.next_header == 8'd0 || s4_walk_d.next_header == 8'd43
                || s4_walk_d.next_header == 8'd60 || s4_walk_d.next_header == 8'd44) begin
                s4_walk_d.walking      = 1'b0;
                s4_found_d.l4_protocol = s4_walk_d.next_header;
                s4_found_d.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                s4_found_d.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else begin
                s4_walk_d.walking = 1'b0;
                s4_walk_d.walked  = 1'b1;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s3_valid_q <= 1'b0;
            s4_valid_q <= 1'b0;
        end else begin
            s3_valid_q <= s2_valid_q;
            s4_valid_q <= s3_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s3_found_q <= s3_found_d;
        s3_walk_q  <= s3_walk_d;
        s3_rel_q   <= s2_rel_q;
        s3_l3_q    <= s2_l3_q;
        s4_found_q <= s4_found_d;
        s4_walk_q  <= s4_walk_d;
        s4_rel_q   <= s3_rel_q;
        s4_l3_q    <= s3_l3_q;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 5: the end of the IPv6 walk, then the transport header.
    rss_types_pkg::found_t s5_found_d;
    // walk.walking is always 0 here (stage 4 ends every walk).
    /* verilator lint_off UNUSEDSIGNAL */
    rss_types_pkg::walk_t  walk;
    /* verilator lint_on UNUSEDSIGNAL */

    always_comb begin
        logic [7:0]  protocol;
        logic [16:0] l4_at;       // absolute offset of the transport header
        logic [6:0]  at;          // its offset in rel
        logic [15:0] doff;
        logic [15:0] udp_len;
        logic [15:0] src_port;
        logic [15:0] dst_port;
        s5_found_d = s4_found_q;
        walk       = s4_walk_q;
        protocol   = s4_found_q.l4_protocol;
        if (walk.walked) begin
            s5_found_d.l4_protocol = walk.next_header;
            protocol               = walk.next_header;
            if (walk.fragment) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_FRAG] = 1'b1;
            end else if (walk.next_header == 8'd50 || walk.next_header == 8'd51
                         || walk.next_header == 8'd135 || walk.next_header == 8'd139
                         || walk.next_header == 8'd140 || walk.next_header == 8'd253
                         || walk.next_header == 8'd254) begin
                // ESP, AH, mobility, HIP, shim6, experimental: not skipped.
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
            end else begin
                walk.transport = 1'b1;
                walk.l4_rel    = 16'd40 + walk.offset;
                walk.seg_len   = walk.payload_len - walk.offset;
            end
        end
        l4_at    = 17'(s4_l3_q) + 17'(walk.l4_rel);
        at       = 7'(walk.l4_rel);
        doff     = {8'h0, rel_byte(s4_rel_q, at + 7'd12)} >> 2 & 16'h3C;
        udp_len  = rel_be16(s4_rel_q, at + 7'd4);
        src_port = rel_be16(s4_rel_q, at);
        dst_port = rel_be16(s4_rel_q, at + 7'd2);
        if (walk.transport && protocol == 8'd6) begin
            if (walk.seg_len < 16'd20) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (l4_at + 17'd20 > 17'(WIN)) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else if (doff < 16'd20 || doff > walk.seg_len) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_TCP] = 1'b1;
                s5_found_d.src_port = src_port;
                s5_found_d.dst_port = dst_port;
            end
        end else if (walk.transport && protocol == 8'd17) begin
            if (walk.seg_len < 16'd8) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (l4_at + 17'd8 > 17'(WIN)) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else if (udp_len < 16'd8 || udp_len > walk.seg_len) begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                s5_found_d.flags[rss_regs_pkg::RSS_FLAG_UDP] = 1'b1;
                s5_found_d.src_port = src_port;
                s5_found_d.dst_port = dst_port;
                if (dst_port == ROCEV2_PORT) begin
                    if (udp_len < 16'd20 || walk.seg_len < 16'd20) begin
                        s5_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                    end else if (l4_at + 17'd20 > 17'(WIN)) begin
                        // The BTH lies past the window: the ports still count, the QPN not.
                        s5_found_d.flags[rss_regs_pkg::RSS_FLAG_DEEP] = 1'b1;
                    end else begin
                        s5_found_d.flags[rss_regs_pkg::RSS_FLAG_BTH] = 1'b1;
                        s5_found_d.qpn = {rel_byte(s4_rel_q, at + 7'd13),
                                          rel_byte(s4_rel_q, at + 7'd14),
                                          rel_byte(s4_rel_q, at + 7'd15)};
                    end
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
        end else begin
            out_valid <= s4_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        out_flags       <= s5_found_d.flags;
        out_ethertype   <= s5_found_d.ethertype;
        out_l4_protocol <= s5_found_d.l4_protocol;
        out_src         <= s5_found_d.src;
        out_dst         <= s5_found_d.dst;
        out_src_port    <= s5_found_d.src_port;
        out_dst_port    <= s5_found_d.dst_port;
        out_qpn         <= s5_found_d.qpn;
    end

endmodule

`resetall
