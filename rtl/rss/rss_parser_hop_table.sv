// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_PARSER_HOP_TABLE_SV
`define ROCENIC_RSS_PARSER_HOP_TABLE_SV
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`include "rtl/common/wire_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RSS parser's IPv6 extension-header walk, worked out ahead for every place a header can
// start: per 8-byte word of rel from 5 (right after the fixed IPv6 header) to 14 (the last word
// whose first 2 bytes can lie in the window), the compares behind an rss_types_pkg::hop_entry_t
// (an rss_types_pkg::hop_raw_t; rss_parser_hop_entry combines them a stage later). Extension
// headers are multiples of 8 bytes, so every header of a chain starts on such a word, and a
// header's offset into the IPv6 payload follows from its word: 8 * (word - 5). So each entry
// depends on the frame alone, not on the headers before it, and all ten are computed side by
// side; a hop of the walk (rss_parser_hop) is then a 10-way select and no arithmetic, which is
// what fits it in one clock at 125 MHz. Combinational.
module rss_parser_hop_table #(
    localparam int WIN     = rss_regs_pkg::RSS_PARSE_WINDOW,  // Window bytes
    localparam int REL     = 128,                             // rel bytes (see rss_parser)
    localparam int FIRST   = 5,                               // first word: 40 / 8
    localparam int ENTRIES = 10,                              // words FIRST to FIRST + 9
    localparam int ENTRY_W = rss_types_pkg::HOP_RAW_W
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [REL*8-1:0]           rel,     // the window re-based at the IP header
    /* verilator lint_on UNUSEDSIGNAL */
    // Per entry i, registered a stage ahead so that each field below is one add or compare:
    // the IPv6 payload's 8-byte words past the first 8 bytes of a header at word FIRST + i
    // (payload length / 8 - (i + 1), negative when the payload ends first), and the window
    // bytes past them (WIN - IP header offset - 40 - 8 (i + 1)). Two's complement.
    input  wire [ENTRIES*14-1:0]      words_left,
    input  wire [ENTRIES*18-1:0]      window_left,
    output logic [ENTRIES*ENTRY_W-1:0] table_out  // entry i (word FIRST + i) at [ENTRY_W*i +:]
);

    if (WIN - 14 - 2 > 8 * (FIRST + ENTRIES - 1)) begin : g_bad_entries
        $error("rss_parser_hop_table: a header can start past the last entry");
    end

    // The window words past a header's first 8 bytes are at most (WIN - 48 - 14) / 8: below 16,
    // so the deep checks below compare 4 bits.
    if (WIN - 48 - 14 >= 128) begin : g_bad_window
        $error("rss_parser_hop_table: the deep checks assume fewer than 16 window words");
    end

    // The IPv6 payload length's bytes past whole words, in the fixed header.
    wire [2:0] payload_len_low = rel[8*5 +: 3];

    for (genvar i = 0; i < ENTRIES; i++) begin : g_entry
        localparam int WORD = FIRST + i;
        rss_types_pkg::hop_raw_t e;
        wire [31:0] head = rel[64*WORD +: 32];
        wire [7:0]  len  = head[15:8];          // in 8-byte units, not counting the first 8
        wire [15:0] frag = {head[23:16], head[31:24]};
        wire signed [13:0] words = $signed(words_left[14*i +: 14]);
        wire signed [17:0] win   = $signed(window_left[18*i +: 18]);
        wire [3:0]         win_words = win[6:3];    // win / 8 where win >= 0 (then below 16)
        // The compares below, spelled out for the value ranges here so that none needs a carry
        // chain (rss_parser_hop_entry builds the next hop's skip test on them):
        //   len == words, len > words (the header ends exactly at, or past, the payload's end),
        //   len >= win_words, len > win_words.
        wire len_eq_words = words[13:8] == 6'h0 && words[7:0] == len;
        wire len_gt_words = words[13] || (words[12:8] == 5'h0 && len > words[7:0]);
        wire len_ge_win   = win[17] || len[7:4] != 4'h0 || len[3:0] >= win_words;
        wire len_gt_win   = win[17] || len[7:4] != 4'h0 || len[3:0] > win_words;

        always_comb begin
            e.hdr.next_header = head[7:0];
            e.hdr.next_ext    = head[7:0] == wire_pkg::WIRE_IPPROTO_HOP_BY_HOP
                             || head[7:0] == wire_pkg::WIRE_IPPROTO_IPV6_ROUTE
                             || head[7:0] == wire_pkg::WIRE_IPPROTO_IPV6_OPTS;
            e.hdr.next_frag   = head[7:0] == wire_pkg::WIRE_IPPROTO_IPV6_FRAG;
            e.hdr.frag_flag   = (frag & 16'hFFF9) != 16'h0;
            e.hdr.frag_last   = frag[15:3] != 13'h0;
            // The header ends past the payload. The walk reaches this word only with the fixed
            // part inside the payload, so words >= -1; where this holds, nothing else is read.
            e.hdr.short_ext   = len_gt_words;
            e.hdr.next_pos    = 9'(len) + 9'(i + 1);
            // One-hot: entry j follows where len + i + 1 == j, an 8-bit compare each.
            for (int j = 0; j < ENTRIES; j++) begin
                e.hdr.next_sel[j] = j > i && len == 8'(j - i - 1);
            end
            // Room past it < 8 where room >= 0: no word left. Window room past it (win - 8 len)
            // < 8 and < 2, as compares of whole words (win = 8 win_words + r): < 8 is
            // win_words <= len; < 2 is that for r < 2, else <.
            e.len_eq_words    = len_eq_words;
            e.len_ge_win      = len_ge_win;
            e.len_gt_win      = len_gt_win;
            e.win_low_lt2     = win[2:0] < 3'd2;
            e.payload_low_lt2 = payload_len_low < 3'd2;
            // Past a fragment header here (8 bytes; a hop takes it only when it fits, so then
            // words >= 0): the same checks on the starting points themselves.
            e.frag_words0     = words == 14'sd0;
            e.frag_win_lt8    = win < 18'sd8;
            e.frag_win_lt2    = win < 18'sd2;
        end

        assign table_out[ENTRY_W*i +: ENTRY_W] = e;
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_PARSER_HOP_TABLE_SV
