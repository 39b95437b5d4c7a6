// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_PARSER_SV
`define ROCENIC_RSS_PARSER_SV
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`include "rtl/common/wire_pkg.sv"
`include "rtl/rss/rss_parser_hop_table.sv"
`include "rtl/rss/rss_parser_hop_entry.sv"
`include "rtl/rss/rss_parser_hop.sv"
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
// Timing: a fixed-latency pipeline that never stalls; one frame per clock; LATENCY = 13, each
// stage sized for 125 MHz on an ECP5 speed 6 (one extension header per clock).
//   0    the L2 headers' fields decoded, the length compared with each constant, a coarse
//        shift towards the IP header
//   1    L2: EtherType, VLAN tags, or LRH/GRH/BTH/DETH/IPoIB; the offset of the IP header (one
//        of seven values) and the IB QPN
//   2    the window re-based at the IP header (a coarse shift in stage 1, a fine one here)
//   3    L3: IPv4 or the fixed IPv6 header (its checks registered one by one, and applied to
//        the first hop's result); the compares behind the extension-header walk's table
//   4-7  IPv6 extension headers 1 to 4, one per stage (stage 4 also combines the table)
//   8    the hop limit and the end of the IPv6 walk; where the transport header starts
//   9-10 the transport header's fields are read (a 32-byte block, then the fields in it)
//   11   the transport header's length compares
//   12   TCP or UDP and the RoCEv2 BTH: the flags, and the ports and the BTH QPN where the
//        checks passed
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
    localparam int LATENCY /*verilator public*/ = 13;
    /* verilator lint_on UNUSEDPARAM */

    // The window re-based at the IP header: WIN - 14 bytes can be there, padded with zeros to
    // 128 so that every 7-bit index into it is in range (bytes past the window are never used:
    // each read is guarded by a window check).
    localparam int REL = 128;
    localparam int REL_BITS = REL * 8;

    // Field values from rtl/common/wire_pkg.sv (generated from model::wire).
    localparam logic [15:0] ET_IPV4 = wire_pkg::WIRE_ETHERTYPE_IPV4;
    localparam logic [15:0] ET_IPV6 = wire_pkg::WIRE_ETHERTYPE_IPV6;
    localparam logic [15:0] ET_VLAN = wire_pkg::WIRE_ETHERTYPE_VLAN;
    localparam logic [15:0] ET_QINQ = wire_pkg::WIRE_ETHERTYPE_QINQ;
    localparam logic [15:0] ROCEV2_PORT = wire_pkg::WIRE_ROCEV2_PORT;
    localparam logic [7:0]  P_TCP   = wire_pkg::WIRE_IPPROTO_TCP;
    localparam logic [7:0]  P_UDP   = wire_pkg::WIRE_IPPROTO_UDP;
    localparam logic [7:0]  P_HOP   = wire_pkg::WIRE_IPPROTO_HOP_BY_HOP;
    localparam logic [7:0]  P_ROUTE = wire_pkg::WIRE_IPPROTO_IPV6_ROUTE;
    localparam logic [7:0]  P_FRAG  = wire_pkg::WIRE_IPPROTO_IPV6_FRAG;
    localparam logic [7:0]  P_OPTS  = wire_pkg::WIRE_IPPROTO_IPV6_OPTS;
    localparam logic [7:0]  P_NS0   = wire_pkg::WIRE_UNSKIPPED_0;
    localparam logic [7:0]  P_NS1   = wire_pkg::WIRE_UNSKIPPED_1;
    localparam logic [7:0]  P_NS2   = wire_pkg::WIRE_UNSKIPPED_2;
    localparam logic [7:0]  P_NS3   = wire_pkg::WIRE_UNSKIPPED_3;
    localparam logic [7:0]  P_NS4   = wire_pkg::WIRE_UNSKIPPED_4;
    localparam logic [7:0]  P_NS5   = wire_pkg::WIRE_UNSKIPPED_5;
    localparam logic [7:0]  P_NS6   = wire_pkg::WIRE_UNSKIPPED_6;

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
    // Stage 0: the L2 headers' fields, each decoded on its own, and the frame length compared
    // with each offset stage 1 checks it against; the window shifted by 14 (Ethernet), 32
    // (InfiniBand) or 72 (InfiniBand with a GRH), which depends on two header bits only, and
    // the further shift stage 2 makes to reach the IP header, in 4-byte steps (one per VLAN
    // tag, or for an ImmDt). Frames without an IP header take any shift: nothing reads their
    // re-based window. Two narrow selects rather than one seven-way select whose select fans
    // out to 912 bits.
    logic             s0_valid_q;
    logic             s0_ib_q;
    logic [LEN_W-1:0] s0_len_q;
    logic [REL*8+64-1:0] s0_coarse_q;
    logic [1:0]       s0_fine_q;
    // in_len >= 8, 14, 18, 20, 22, 32, 36, 60, 72, 76
    logic s0_ge8_q, s0_ge14_q, s0_ge18_q, s0_ge20_q, s0_ge22_q;
    logic s0_ge32_q, s0_ge36_q, s0_ge60_q, s0_ge72_q, s0_ge76_q;
    // Ethernet: the EtherType or tag at bytes 12, 16 and 20
    logic [15:0] s0_et12_q, s0_et16_q, s0_et20_q;
    logic        s0_tag12_q, s0_tag16_q;
    // InfiniBand: the LRH's link next header (2 = BTH, 3 = GRH then BTH), the BTH opcode (UD
    // SEND Only 0x64, with immediate 0x65) and destination QP, the IPoIB EtherType as IPv4 or
    // IPv6 at each of 28, 32, 68 and 72 (bit 0, 1, 2, 3)
    logic [1:0]  s0_lnh_q;
    logic        s0_send_q, s0_send_imm_q;
    logic [23:0] s0_bth_qpn_q;
    logic [3:0]  s0_ipoib_v4_q, s0_ipoib_v6_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            s0_valid_q <= 1'b0;
        end else begin
            s0_valid_q <= in_valid;
        end
    end

    always_ff @(posedge clk) begin
        logic [7:0] opcode;
        s0_ib_q   <= in_ib;
        s0_len_q  <= in_len;
        s0_ge8_q  <= in_len >= LEN_W'(8);
        s0_ge14_q <= in_len >= LEN_W'(14);
        s0_ge18_q <= in_len >= LEN_W'(18);
        s0_ge20_q <= in_len >= LEN_W'(20);
        s0_ge22_q <= in_len >= LEN_W'(22);
        s0_ge32_q <= in_len >= LEN_W'(32);
        s0_ge36_q <= in_len >= LEN_W'(36);
        s0_ge60_q <= in_len >= LEN_W'(60);
        s0_ge72_q <= in_len >= LEN_W'(72);
        s0_ge76_q <= in_len >= LEN_W'(76);
        s0_et12_q  <= be16_of(in_win, 12);
        s0_et16_q  <= be16_of(in_win, 16);
        s0_et20_q  <= be16_of(in_win, 20);
        s0_tag12_q <= is_tag(be16_of(in_win, 12));
        s0_tag16_q <= is_tag(be16_of(in_win, 16));
        s0_lnh_q   <= in_win[8*1 +: 2];
        // Both BTH positions spelled out: constant selects, no shifter.
        opcode = in_win[8*1 +: 2] == 2'b11 ? byte_of(in_win, 48) : byte_of(in_win, 8);
        s0_send_q     <= opcode == 8'h64;
        s0_send_imm_q <= opcode == 8'h65;
        s0_bth_qpn_q  <= in_win[8*1 +: 2] == 2'b11
                       ? {byte_of(in_win, 53), byte_of(in_win, 54), byte_of(in_win, 55)}
                       : {byte_of(in_win, 13), byte_of(in_win, 14), byte_of(in_win, 15)};
        s0_ipoib_v4_q <= {be16_of(in_win, 72) == ET_IPV4, be16_of(in_win, 68) == ET_IPV4,
                          be16_of(in_win, 32) == ET_IPV4, be16_of(in_win, 28) == ET_IPV4};
        s0_ipoib_v6_q <= {be16_of(in_win, 72) == ET_IPV6, be16_of(in_win, 68) == ET_IPV6,
                          be16_of(in_win, 32) == ET_IPV6, be16_of(in_win, 28) == ET_IPV6};
        if (!in_ib) begin
            s0_coarse_q <= (REL*8+64)'({64'h0, in_win} >> 8*14);
            s0_fine_q   <= !is_tag(be16_of(in_win, 12)) ? 2'd0
                         : is_tag(be16_of(in_win, 16)) ? 2'd2 : 2'd1;
        end else begin
            s0_coarse_q <= in_win[8*1 +: 2] == 2'b11 ? (REL*8+64)'({64'h0, in_win} >> 8*72)
                                                     : (REL*8+64)'({64'h0, in_win} >> 8*32);
            s0_fine_q   <= {1'b0, opcode == 8'h65};
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 1: L2, from stage 0's decoded fields.
    rss_types_pkg::found_t           s1_found_d, s1_found_q;
    logic             s1_ip_d, s1_ip_q;          // an IP header follows at s1_l3_q
    logic [6:0]       s1_l3_d, s1_l3_q;          // its offset: 14, 18, 22, 32, 36, 72 or 76
    logic             s1_valid_q;
    logic [REL*8+64-1:0] s1_coarse_q;
    logic [1:0]          s1_fine_q;
    logic [LEN_W-1:0] s1_len_q;

    always_comb begin
        logic [15:0] et;
        logic        grh;
        logic        ipoib_v4;
        logic        ipoib_v6;
        s1_found_d = '0;
        s1_ip_d    = 1'b0;
        s1_l3_d    = 7'd14;
        et         = 16'h0;
        grh        = s0_lnh_q == 2'b11;
        // The IPoIB header after the DETH (+ ImmDt): at 28 or 32, or 68 or 72 with a GRH.
        ipoib_v4   = s0_ipoib_v4_q[{grh, s0_send_imm_q}];
        ipoib_v6   = s0_ipoib_v6_q[{grh, s0_send_imm_q}];
        if (!s0_ib_q) begin
            if (!s0_ge14_q) begin
                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                et = s0_et12_q;
                if (s0_tag12_q) begin
                    s1_found_d.flags[rss_regs_pkg::RSS_FLAG_VLAN] = 1'b1;
                    if (!s0_ge18_q) begin
                        s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                    end else begin
                        et      = s0_et16_q;
                        s1_l3_d = 7'd18;
                        if (s0_tag16_q) begin
                            if (!s0_ge22_q) begin
                                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                            end else begin
                                et      = s0_et20_q;
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
            if (!s0_ge8_q) begin
                s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (s0_lnh_q == 2'b10 || grh) begin
                if (grh ? !s0_ge60_q : !s0_ge20_q) begin
                    s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                end else begin
                    s1_found_d.flags[rss_regs_pkg::RSS_FLAG_BTH] = 1'b1;
                    s1_found_d.qpn = s0_bth_qpn_q;
                    // UD SEND Only or with immediate: DETH [+ ImmDt] + IPoIB.
                    if (s0_send_q || s0_send_imm_q) begin
                        if (grh ? (s0_send_imm_q ? !s0_ge76_q : !s0_ge72_q)
                                : (s0_send_imm_q ? !s0_ge36_q : !s0_ge32_q)) begin
                            s1_found_d.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                        end else if (ipoib_v4 || ipoib_v6) begin
                            s1_found_d.flags[rss_regs_pkg::RSS_FLAG_IPOIB] = 1'b1;
                            s1_found_d.ethertype = ipoib_v4 ? ET_IPV4 : ET_IPV6;
                            s1_ip_d              = 1'b1;
                            s1_l3_d              = grh ? (s0_send_imm_q ? 7'd76 : 7'd72)
                                                       : (s0_send_imm_q ? 7'd36 : 7'd32);
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
            s1_valid_q <= s0_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s1_found_q  <= s1_found_d;
        s1_ip_q     <= s1_ip_d;
        s1_l3_q     <= s1_l3_d;
        s1_coarse_q <= s0_coarse_q;
        s1_fine_q   <= s0_fine_q;
        s1_len_q    <= s0_len_q;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 2: the window re-based at the IP header (the fine shift, see s1_coarse_q).
    rss_types_pkg::found_t s2_found_q;
    logic                  s2_ip_q;
    logic                  s2_v4_q;              // an IPv4 header follows (decoded here for stage 3)
    logic [LEN_W-1:0]      s2_plen_q;            // bytes from the IP header to the frame's end
    logic [LEN_W-1:0]      s2_plen40_q;          // the same less the fixed IPv6 header's 40
    // Window bytes from the IP header, and from the end of a fixed IPv6 header (stage 3's and
    // the hop table's starting points, subtracted here so that they add nothing there).
    logic [17:0]           s2_win_q;
    logic [17:0]           s2_win40_q;
    logic [10*14-1:0]      s2_words_left_q;      // rss_parser_hop_table's starting points
    logic [10*18-1:0]      s2_window_left_q;
    logic [REL*8-1:0]      s2_rel_d, s2_rel_q;
    logic                  s2_valid_q;

    always_comb begin
        case (s1_fine_q)
            2'd1:    s2_rel_d = REL_BITS'(s1_coarse_q >> 8*4);
            2'd2:    s2_rel_d = REL_BITS'(s1_coarse_q >> 8*8);
            default: s2_rel_d = REL_BITS'(s1_coarse_q);
        endcase
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s2_valid_q <= 1'b0;
        end else begin
            s2_valid_q <= s1_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s2_found_q <= s1_found_q;
        s2_ip_q    <= s1_ip_q;
        s2_v4_q    <= s1_ip_q && s1_found_q.ethertype == ET_IPV4;
        s2_plen_q  <= s1_len_q - LEN_W'(s1_l3_q);
        s2_plen40_q <= s1_len_q - LEN_W'(7'(s1_l3_q + 7'd40));  // l3 + 40 <= 116 fits 7 bits
        s2_win_q   <= 18'(WIN) - 18'(s1_l3_q);
        s2_win40_q <= 18'(WIN - 40) - 18'(s1_l3_q);
        for (int i = 0; i < 10; i++) begin
            // The payload length (rel bytes 4 and 5) straight from the fine shift's output.
            s2_words_left_q[14*i +: 14]  <= 14'({s2_rel_d[8*4 +: 8], s2_rel_d[8*5+3 +: 5]})
                                          - 14'(i + 1);
            s2_window_left_q[18*i +: 18] <= 18'(WIN - 48 - 8 * i) - 18'(s1_l3_q);
        end
        s2_rel_q   <= s2_rel_d;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 3: IPv4 or the fixed IPv6 header.
    rss_types_pkg::found_t           s3_found_d, s3_found_q;
    rss_types_pkg::walk_t            s3_walk_d, s3_walk_q;
    logic [REL*8-1:0] s3_rel_q;
    // The extension-header walk worked out ahead for every word of rel it can reach: the
    // compares here, combined into the hops' table in stage 4 (the first hop combines entry 0).
    localparam int HOP_ENTRY_W = rss_types_pkg::HOP_ENTRY_W;
    localparam int HOP_RAW_W   = rss_types_pkg::HOP_RAW_W;
    localparam int HOP_TABLE_W = 10 * HOP_ENTRY_W;
    logic [10*HOP_RAW_W-1:0] s3_hop_raw_d, s3_hop_raw_q;

    rss_parser_hop_table u_hop_table (
        .rel(s2_rel_q), .words_left(s2_words_left_q), .window_left(s2_window_left_q),
        .table_out(s3_hop_raw_d)
    );
    logic             s3_valid_q;

    // The addresses are picked by the EtherType alone; whether the header holds them (20 bytes
    // of version 4, 40 of version 6) is s3_addr_ok, applied in stage 4. That keeps the length
    // and version checks off the 256 address bits' selects.
    logic s3_addr_ok_d, s3_addr_ok_q;
    logic s3_ip_q, s3_v4_q;                    // an IP header, and its version
    logic s3_ip_hdr_d, s3_ip_hdr_q;            // the fixed header is there, of that version
    logic [3:0] s3_len_bad_d, s3_len_bad_q;    // its lengths disagree with each other or the frame
    logic s3_v4_frag_d, s3_v4_frag_q;          // IPv4: a fragment (offset or MF set)

    always_comb begin
        logic [15:0]      ihl;
        logic [15:0]      total;
        s3_found_d   = s2_found_q;
        if (s2_v4_q) begin
            s3_found_d.src = v4_mapped({rel_byte(s2_rel_q, 7'd12), rel_byte(s2_rel_q, 7'd13),
                                        rel_byte(s2_rel_q, 7'd14), rel_byte(s2_rel_q, 7'd15)});
            s3_found_d.dst = v4_mapped({rel_byte(s2_rel_q, 7'd16), rel_byte(s2_rel_q, 7'd17),
                                        rel_byte(s2_rel_q, 7'd18), rel_byte(s2_rel_q, 7'd19)});
        end else begin
            for (int i = 0; i < 16; i++) begin
                s3_found_d.src[127-8*i -: 8] = rel_byte(s2_rel_q, 7'(8 + i));
                s3_found_d.dst[127-8*i -: 8] = rel_byte(s2_rel_q, 7'(24 + i));
            end
        end
        // The walk's fields are set whatever the checks say (only `transport` and `walking`
        // wait for them, and nothing reads the fields without one of the two), so that no
        // compare lies ahead of the subtractions and the compares that derive from them.
        ihl   = {10'h0, s2_rel_q[3:0], 2'b00};
        total = rel_be16(s2_rel_q, 7'd2);
        s3_walk_d       = '0;
        s3_walk_d.sel   = 10'b1;                  // pos 0
        // The first hop walks every IPv6 frame; stage 4 drops its result where stage 3's
        // checks failed, so that the hop does not wait for them.
        s3_walk_d.walking = s2_ip_q && !s2_v4_q;
        if (s2_v4_q) begin
            s3_walk_d.l4_word     = {1'b0, s2_rel_q[3:0]};
            s3_walk_d.room        = total - ihl;
            s3_walk_d.window_room = s2_win_q - 18'(ihl);
        end else begin
            s3_walk_d.room        = rel_be16(s2_rel_q, 7'd4);
            s3_walk_d.window_room = s2_win40_q;
            s3_walk_d.short2      = s3_walk_d.room < 16'd2;
            s3_walk_d.short8      = s3_walk_d.room < 16'd8;
            s3_walk_d.deep2       = s3_walk_d.window_room < 18'd2;  // never: l3 <= 76
            s3_walk_d.deep8       = s3_walk_d.window_room < 18'd8;
            s3_walk_d.next_header = rel_byte(s2_rel_q, 7'd6);
            s3_walk_d.next_ext    = s3_walk_d.next_header == P_HOP
                                 || s3_walk_d.next_header == P_ROUTE
                                 || s3_walk_d.next_header == P_OPTS;
            s3_walk_d.next_frag   = s3_walk_d.next_header == P_FRAG;
            s3_walk_d.skip_ok     = (s3_walk_d.next_ext || s3_walk_d.next_frag)
                                 && !(s3_walk_d.next_frag ? s3_walk_d.short8 || s3_walk_d.deep8
                                                          : s3_walk_d.short2 || s3_walk_d.deep2);
        end
        // The header checks, each registered on its own and applied to the first hop's result
        // (s3_ok below).
        s3_ip_hdr_d = s2_v4_q ? s2_plen_q >= LEN_W'(20) && s2_rel_q[7:4] == 4'd4
                              : s2_plen_q >= LEN_W'(40) && s2_rel_q[7:4] == 4'd6;
        s3_addr_ok_d = s2_ip_q && s3_ip_hdr_d;
        // IPv4: the IHL under 20, the total length under the IHL, or past the frame; IPv6: the
        // payload past the frame (compared only where plen >= 40).
        s3_len_bad_d[0] = s2_v4_q && ihl < 16'd20;
        s3_len_bad_d[1] = s2_v4_q && total < ihl;
        s3_len_bad_d[2] = s2_v4_q && LEN_W'(total) > s2_plen_q;
        s3_len_bad_d[3] = !s2_v4_q && LEN_W'(rel_be16(s2_rel_q, 7'd4)) > s2_plen40_q;
        s3_v4_frag_d = (rel_be16(s2_rel_q, 7'd6) & 16'h3FFF) != 16'h0;
        if (s2_v4_q && s3_ip_hdr_d) begin
            s3_found_d.l4_protocol = rel_byte(s2_rel_q, 7'd9);
        end
    end

    // Stage 3's outcome, from its registered checks: the IP flags, MALFORMED and FRAG, and
    // whether the transport decision (IPv4) or the extension-header walk (IPv6) is due (s3_ok).
    // Both are applied to the first hop's result as it is registered, beside the hop rather
    // than ahead of it.
    logic [FLAGS-1:0]      s3_flags;
    logic                  s3_ok;
    always_comb begin
        s3_flags = '0;
        s3_ok    = 1'b0;
        if (s3_ip_q) begin
            if (!s3_ip_hdr_q) begin
                s3_flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                // The addresses are valid as soon as the fixed header is there.
                s3_flags[rss_regs_pkg::RSS_FLAG_IPV4] = s3_v4_q;
                s3_flags[rss_regs_pkg::RSS_FLAG_IPV6] = !s3_v4_q;
                if (s3_len_bad_q != 4'b0000) begin
                    s3_flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                end else if (s3_v4_q && s3_v4_frag_q) begin
                    s3_flags[rss_regs_pkg::RSS_FLAG_FRAG] = 1'b1;
                end else begin
                    s3_ok = 1'b1;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s3_valid_q <= 1'b0;
        end else begin
            s3_valid_q <= s2_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s3_found_q <= s3_found_d;
        s3_addr_ok_q <= s3_addr_ok_d;
        s3_ip_q      <= s2_ip_q;
        s3_v4_q      <= s2_v4_q;
        s3_ip_hdr_q  <= s3_ip_hdr_d;
        s3_len_bad_q <= s3_len_bad_d;
        s3_v4_frag_q <= s3_v4_frag_d;
        s3_walk_q  <= s3_walk_d;
        s3_rel_q   <= s2_rel_q;
        s3_hop_raw_q <= s3_hop_raw_d;
    end

    // ------------------------------------------------------------------------------------------
    // Stages 4 to 7: the IPv6 extension-header walk, one header per stage.
    if (rss_regs_pkg::RSS_MAX_EXTENSION_HEADERS != 4) begin : g_bad_hops
        $error("rss_parser: stages 4 to 7 walk exactly 4 extension headers");
    end

    // Spelled out per stage: Yosys 0.70 drops packed arrays of these structs to zero.
    rss_types_pkg::found_t s4_found_d, s4_found_q, s5_found_d, s5_found_q;
    rss_types_pkg::found_t s6_found_d, s6_found_q, s7_found_d, s7_found_q;
    rss_types_pkg::walk_t  s4_walk_d, s4_walk_q, s5_walk_d, s5_walk_q;
    rss_types_pkg::walk_t  s6_walk_d, s6_walk_q, s7_walk_d, s7_walk_q;
    logic [REL*8-1:0]      s4_rel_q, s5_rel_q, s6_rel_q, s7_rel_q;
    logic [HOP_TABLE_W-1:0] s4_hop_table_q, s5_hop_table_q, s6_hop_table_q;
    logic                  s4_valid_q, s5_valid_q, s6_valid_q, s7_valid_q;

    // The first hop is at position 0: entry 0 alone, combined here.
    rss_types_pkg::hop_entry_t s3_entry0;
    rss_parser_hop_entry u_entry0 (.raw(s3_hop_raw_q[HOP_RAW_W-1:0]), .entry(s3_entry0));
    // The later hops' table, combined from stage 3's compares.
    logic [HOP_TABLE_W-1:0] s4_hop_table_d;
    for (genvar i = 0; i < 10; i++) begin : g_entry
        rss_parser_hop_entry u_entry (
            .raw(s3_hop_raw_q[HOP_RAW_W*i +: HOP_RAW_W]),
            .entry(s4_hop_table_d[HOP_ENTRY_W*i +: HOP_ENTRY_W])
        );
    end

    rss_parser_hop u_hop1 (
        .hop_table({(9 * HOP_ENTRY_W)'(0), s3_entry0}), .in_found(s3_found_q),
        .in_walk(s3_walk_q), .out_found(s4_found_d), .out_walk(s4_walk_d)
    );
    rss_parser_hop u_hop2 (
        .hop_table(s4_hop_table_q), .in_found(s4_found_q), .in_walk(s4_walk_q),
        .out_found(s5_found_d), .out_walk(s5_walk_d)
    );
    rss_parser_hop u_hop3 (
        .hop_table(s5_hop_table_q), .in_found(s5_found_q), .in_walk(s5_walk_q),
        .out_found(s6_found_d), .out_walk(s6_walk_d)
    );
    rss_parser_hop u_hop4 (
        .hop_table(s6_hop_table_q), .in_found(s6_found_q), .in_walk(s6_walk_q),
        .out_found(s7_found_d), .out_walk(s7_walk_d)
    );

    always_ff @(posedge clk) begin
        if (rst) begin
            s4_valid_q <= 1'b0;
            s5_valid_q <= 1'b0;
            s6_valid_q <= 1'b0;
            s7_valid_q <= 1'b0;
        end else begin
            s4_valid_q <= s3_valid_q;
            s5_valid_q <= s4_valid_q;
            s6_valid_q <= s5_valid_q;
            s7_valid_q <= s6_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        // The first hop changes only the flags and the protocol, and the walk's state.
        s4_found_q <= s4_found_d;
        if (s3_ok) begin
            s4_found_q.flags <= s4_found_d.flags | s3_flags;
        end else begin
            s4_found_q.flags       <= s3_found_q.flags | s3_flags;
            s4_found_q.l4_protocol <= s3_found_q.l4_protocol;
        end
        if (!s3_addr_ok_q) begin
            s4_found_q.src <= '0;
            s4_found_q.dst <= '0;
        end
        s4_walk_q           <= s4_walk_d;
        s4_walk_q.walking   <= s3_ok && s4_walk_d.walking;
        s4_walk_q.walked    <= s3_ok && s4_walk_d.walked;
        s4_walk_q.transport <= s3_ok && s3_v4_q;
        s4_rel_q   <= s3_rel_q;
        s4_hop_table_q <= s4_hop_table_d;
        s5_found_q <= s5_found_d;
        s5_walk_q  <= s5_walk_d;
        s5_rel_q   <= s4_rel_q;
        s5_hop_table_q <= s4_hop_table_q;
        s6_found_q <= s6_found_d;
        s6_walk_q  <= s6_walk_d;
        s6_rel_q   <= s5_rel_q;
        s6_hop_table_q <= s5_hop_table_q;
        s7_found_q <= s7_found_d;
        s7_walk_q  <= s7_walk_d;
        s7_rel_q   <= s6_rel_q;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 8: the end of the IPv6 walk, and where the transport header starts.
    //
    // The transport header starts at a multiple of 4 in rel (the IPv4 IHL counts 32-bit words,
    // the IPv6 chain 8-byte units). Stage 9 picks the 32-byte block it lies in on the word
    // registered here, stage 10 the fields in that block, and stages 11 and 12 compare and
    // decide: the walk's end, the two selects, the compares and the decision each get a clock.
    rss_types_pkg::found_t s8_found_d, s8_found_q;
    logic        s8_tcp_d, s8_tcp_q;          // a TCP decision is due
    logic        s8_udp_d, s8_udp_q;          // a UDP decision is due
    logic [15:0] s8_seg_len_q;                // transport segment length
    logic [17:0] s8_window_room_q;            // window bytes from the transport header
    // The transport header's 4-byte word in rel; its 16-byte block three more times, so that
    // each group of fields has its own select lines. The copies' reset values differ, which
    // keeps synthesis from merging them (nothing reads them in reset).
    logic [4:0]  s8_l4_word_q;
    logic [2:0]  s8_l4_blk1_q, s8_l4_blk2_q, s8_l4_blk3_q;
    logic [REL*8-1:0] s8_rel_q;
    logic        s8_valid_q;

    // The walk as stage 8 ends it (walking is 0 afterwards).
    /* verilator lint_off UNUSEDSIGNAL */
    rss_types_pkg::walk_t walk;
    /* verilator lint_on UNUSEDSIGNAL */

    always_comb begin
        logic       transport;
        logic [7:0] protocol;
        s8_found_d = s7_found_q;
        walk       = s7_walk_q;
        // The hop limit: a fifth extension header ends the walk with an L3-only hash.
        if (walk.walking) begin
            walk.walking = 1'b0;
            if (walk.next_ext || walk.next_frag) begin
                s8_found_d.l4_protocol = walk.next_header;
                s8_found_d.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                s8_found_d.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else begin
                walk.walked = 1'b1;
            end
        end
        transport = walk.transport;
        protocol  = s8_found_d.l4_protocol;
        if (walk.walked) begin
            s8_found_d.l4_protocol = walk.next_header;
            protocol               = walk.next_header;
            if (walk.fragment) begin
                s8_found_d.flags[rss_regs_pkg::RSS_FLAG_FRAG] = 1'b1;
            end else if (walk.next_header == P_NS0 || walk.next_header == P_NS1
                         || walk.next_header == P_NS2 || walk.next_header == P_NS3
                         || walk.next_header == P_NS4 || walk.next_header == P_NS5
                         || walk.next_header == P_NS6) begin
                // ESP, AH, mobility, HIP, shim6, experimental: not skipped.
                s8_found_d.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
            end else begin
                transport = 1'b1;
            end
        end
        s8_tcp_d = transport && protocol == P_TCP;
        s8_udp_d = transport && protocol == P_UDP;
    end

    always_ff @(posedge clk) begin
        logic [4:0] l4_word;
        l4_word = s7_walk_q.transport ? s7_walk_q.l4_word : 5'd10 + {s7_walk_q.pos[3:0], 1'b0};
        if (rst) begin
            s8_valid_q    <= 1'b0;
            s8_l4_word_q  <= 5'd0;
            s8_l4_blk1_q  <= 3'd1;
            s8_l4_blk2_q  <= 3'd2;
            s8_l4_blk3_q  <= 3'd3;
        end else begin
            s8_valid_q    <= s7_valid_q;
            s8_l4_word_q  <= l4_word;
            s8_l4_blk1_q  <= l4_word[4:2];
            s8_l4_blk2_q  <= l4_word[4:2];
            s8_l4_blk3_q  <= l4_word[4:2];
        end
    end

    always_ff @(posedge clk) begin
        s8_found_q     <= s8_found_d;
        s8_tcp_q       <= s8_tcp_d;
        s8_udp_q       <= s8_udp_d;
        // IPv4's transport header is at its IHL; IPv6's where the walk stopped, pos words past
        // the fixed header (word 5 of rel; pos is 0 to 10 where the fields are used).
        if (s7_walk_q.transport) begin
            s8_seg_len_q     <= s7_walk_q.room;
            s8_window_room_q <= s7_walk_q.window_room;
        end else begin
            s8_seg_len_q     <= s7_walk_q.room - {4'h0, s7_walk_q.pos, 3'b000};
            s8_window_room_q <= s7_walk_q.window_room - {6'h0, s7_walk_q.pos, 3'b000};
        end
        s8_rel_q       <= s7_rel_q;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 9: the 32 bytes of rel from the 16-byte boundary at or before the transport header
    // (an 8-way select per field group, on the group's copy of the word), so that stage 10's
    // select of the fields is 4-way.
    rss_types_pkg::found_t s9_found_q;
    logic        s9_tcp_q, s9_udp_q;
    logic [15:0] s9_seg_len_q;
    logic [17:0] s9_window_room_q;
    logic [255:0] s9_block0_q, s9_block1_q, s9_block2_q, s9_block3_q;
    logic [1:0]  s9_fine_q;                   // the header's 4-byte word in the block
    logic        s9_valid_q;

    // rel padded so that the 32 bytes at any multiple of 16 are in range.
    wire [REL*8+128-1:0] l4_rel_pad = {128'h0, s8_rel_q};

    always_ff @(posedge clk) begin
        if (rst) begin
            s9_valid_q <= 1'b0;
        end else begin
            s9_valid_q <= s8_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s9_found_q       <= s8_found_q;
        s9_tcp_q         <= s8_tcp_q;
        s9_udp_q         <= s8_udp_q;
        s9_seg_len_q     <= s8_seg_len_q;
        s9_window_room_q <= s8_window_room_q;
        // Each group reads only some bytes of its block; synthesis drops the others.
        s9_block0_q      <= l4_rel_pad[128*s8_l4_word_q[4:2] +: 256];
        s9_block1_q      <= l4_rel_pad[128*s8_l4_blk1_q +: 256];
        s9_block2_q      <= l4_rel_pad[128*s8_l4_blk2_q +: 256];
        s9_block3_q      <= l4_rel_pad[128*s8_l4_blk3_q +: 256];
        s9_fine_q        <= s8_l4_word_q[1:0];
    end

    // ------------------------------------------------------------------------------------------
    // Stage 10: the transport header's fields. They are used only when stage 12's window checks
    // pass, and then they lie inside rel.
    rss_types_pkg::found_t s10_found_q;
    logic        s10_tcp_q, s10_udp_q;
    logic [15:0] s10_seg_len_q;
    logic        s10_deep8_q, s10_deep20_q;
    logic [15:0] s10_src_port_q, s10_dst_port_q, s10_udp_len_q;
    logic [7:0]  s10_doff_byte_q;              // TCP data offset byte
    logic [23:0] s10_qpn_q;                    // BTH destination QP behind UDP
    logic        s10_valid_q;

    // The header's first 16 bytes, from each group's block.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [127:0] l4_bytes0 = s9_block0_q[32*s9_fine_q +: 128];
    wire [127:0] l4_bytes1 = s9_block1_q[32*s9_fine_q +: 128];
    wire [127:0] l4_bytes2 = s9_block2_q[32*s9_fine_q +: 128];
    wire [127:0] l4_bytes3 = s9_block3_q[32*s9_fine_q +: 128];
    /* verilator lint_on UNUSEDSIGNAL */

    always_ff @(posedge clk) begin
        if (rst) begin
            s10_valid_q <= 1'b0;
        end else begin
            s10_valid_q <= s9_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        s10_found_q     <= s9_found_q;
        s10_tcp_q       <= s9_tcp_q;
        s10_udp_q       <= s9_udp_q;
        s10_seg_len_q   <= s9_seg_len_q;
        // The first 8 or 20 transport bytes pass the window (two's complement).
        s10_deep8_q     <= s9_window_room_q[17] || s9_window_room_q[16:0] < 17'd8;
        s10_deep20_q    <= s9_window_room_q[17] || s9_window_room_q[16:0] < 17'd20;
        s10_src_port_q  <= {l4_bytes0[7:0],   l4_bytes0[15:8]};
        s10_dst_port_q  <= {l4_bytes1[23:16], l4_bytes1[31:24]};
        s10_udp_len_q   <= {l4_bytes2[39:32], l4_bytes2[47:40]};
        s10_doff_byte_q <= l4_bytes2[103:96];
        s10_qpn_q       <= {l4_bytes3[111:104], l4_bytes3[119:112], l4_bytes3[127:120]};
    end

    // ------------------------------------------------------------------------------------------
    // Stage 11: the transport header's length compares, each registered on its own; stage 12
    // decides on them in the model's order. Splitting the two keeps the carry chains and the
    // decision, and the decision and the 56 field bits' selects, in different clocks' paths.
    rss_types_pkg::found_t s11_found_q;
    logic        s11_tcp_q, s11_udp_q;
    logic        s11_deep8_q, s11_deep20_q;
    logic        s11_seg_lt8_q, s11_seg_lt20_q;    // segment length < 8, < 20
    logic        s11_doff_lt20_q, s11_doff_gt_q;   // TCP data offset < 20, > segment length
    logic        s11_ulen_lt8_q, s11_ulen_lt20_q;  // UDP length < 8, < 20...
    logic        s11_ulen_gt_q;                    // ...> segment length
    logic        s11_roce_q;                       // UDP destination port 4791
    logic [15:0] s11_src_port_q, s11_dst_port_q;
    logic [23:0] s11_qpn_q;
    logic        s11_valid_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            s11_valid_q <= 1'b0;
        end else begin
            s11_valid_q <= s10_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        logic [15:0] doff;
        doff            = {8'h0, s10_doff_byte_q} >> 2 & 16'h3C;
        s11_found_q     <= s10_found_q;
        s11_tcp_q       <= s10_tcp_q;
        s11_udp_q       <= s10_udp_q;
        s11_deep8_q     <= s10_deep8_q;
        s11_deep20_q    <= s10_deep20_q;
        s11_seg_lt8_q   <= s10_seg_len_q < 16'd8;
        s11_seg_lt20_q  <= s10_seg_len_q < 16'd20;
        s11_doff_lt20_q <= doff < 16'd20;
        s11_doff_gt_q   <= doff > s10_seg_len_q;
        s11_ulen_lt8_q  <= s10_udp_len_q < 16'd8;
        s11_ulen_lt20_q <= s10_udp_len_q < 16'd20;
        s11_ulen_gt_q   <= s10_udp_len_q > s10_seg_len_q;
        s11_roce_q      <= s10_dst_port_q == ROCEV2_PORT;
        s11_src_port_q  <= s10_src_port_q;
        s11_dst_port_q  <= s10_dst_port_q;
        s11_qpn_q       <= s10_qpn_q;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 12: TCP or UDP and the RoCEv2 BTH: the flags, and the fields where the checks passed.
    rss_types_pkg::found_t s12_found;
    logic                  s12_ports;   // the transport ports count
    logic                  s12_qpn;     // the BTH's destination QP counts

    always_comb begin
        s12_found = s11_found_q;
        s12_ports = 1'b0;
        s12_qpn   = 1'b0;
        if (s11_tcp_q) begin
            if (s11_seg_lt20_q) begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (s11_deep20_q) begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                s12_found.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else if (s11_doff_lt20_q || s11_doff_gt_q) begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_TCP] = 1'b1;
                s12_ports = 1'b1;
            end
        end else if (s11_udp_q) begin
            if (s11_seg_lt8_q) begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (s11_deep8_q) begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                s12_found.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else if (s11_ulen_lt8_q || s11_ulen_gt_q) begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                s12_found.flags[rss_regs_pkg::RSS_FLAG_UDP] = 1'b1;
                s12_ports = 1'b1;
                if (s11_roce_q) begin
                    if (s11_ulen_lt20_q || s11_seg_lt20_q) begin
                        s12_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
                    end else if (s11_deep20_q) begin
                        // The BTH lies past the window: the ports still count, the QPN not.
                        s12_found.flags[rss_regs_pkg::RSS_FLAG_DEEP] = 1'b1;
                    end else begin
                        s12_found.flags[rss_regs_pkg::RSS_FLAG_BTH] = 1'b1;
                        s12_qpn = 1'b1;
                    end
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
        end else begin
            out_valid <= s11_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        out_flags       <= s12_found.flags;
        out_ethertype   <= s12_found.ethertype;
        out_l4_protocol <= s12_found.l4_protocol;
        out_src         <= s12_found.src;
        out_dst         <= s12_found.dst;
        out_src_port    <= s12_ports ? s11_src_port_q : s12_found.src_port;
        out_dst_port    <= s12_ports ? s11_dst_port_q : s12_found.dst_port;
        out_qpn         <= s12_qpn ? s11_qpn_q : s12_found.qpn;
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_PARSER_SV
