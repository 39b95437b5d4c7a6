// SPDX-License-Identifier: Apache-2.0 OR MIT
// Packages first, whatever order the files are given in (paths from the repository root).
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RSS parser's IPv6 extension-header walk, worked out ahead for every place a header can
// start: one rss_types_pkg::hop_entry_t per 8-byte word of rel from 5 (right after the fixed
// IPv6 header) to 14 (the last word whose first 2 bytes can lie in the window). Extension
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
    localparam int ENTRY_W = rss_types_pkg::HOP_ENTRY_W
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [REL*8-1:0]           rel,     // the window re-based at the IP header
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [6:0]                 l3,      // the IP header's offset in the frame
    output logic [ENTRIES*ENTRY_W-1:0] table_out  // entry i (word FIRST + i) at [ENTRY_W*i +:]
);

    if (WIN - 14 - 2 > 8 * (FIRST + ENTRIES - 1)) begin : g_bad_entries
        $error("rss_parser_hop_table: a header can start past the last entry");
    end

    // The IPv6 payload length, in the fixed header.
    wire [15:0] payload_len = {rel[8*4 +: 8], rel[8*5 +: 8]};
    // Window bytes from the end of the fixed IPv6 header.
    wire [17:0] window_after_fixed = 18'(WIN - 40) - 18'(l3);

    for (genvar i = 0; i < ENTRIES; i++) begin : g_entry
        localparam int WORD = FIRST + i;
        rss_types_pkg::hop_entry_t e;
        wire [31:0] head = rel[64*WORD +: 32];
        wire [7:0]  len  = head[15:8];          // in 8-byte units, not counting the first 8
        wire [15:0] frag = {head[23:16], head[31:24]};
        // Header words from the payload's start to the end of this one: i + len + 1.
        wire [12:0] end_words = 13'(len) + 13'(i + 1);

        always_comb begin
            e.next_header = head[7:0];
            e.next_ext    = head[7:0] == 8'd0 || head[7:0] == 8'd43 || head[7:0] == 8'd60;
            e.next_frag   = head[7:0] == 8'd44;
            e.frag_flag   = (frag & 16'hFFF9) != 16'h0;
            e.frag_last   = frag[15:3] != 13'h0;
            // 8 * end_words > payload length. The walk reaches this word only with the fixed
            // part inside the payload, so 8 * i <= payload length.
            e.short_ext   = end_words > payload_len[15:3];
            e.room        = {payload_len[15:3] - end_words, payload_len[2:0]};
            e.window_room = window_after_fixed - {2'b00, end_words, 3'b000};
            e.word_at     = 4'(WORD) + len[3:0] + 4'd1;
            e.short2      = e.room < 16'd2;
            e.short8      = e.room < 16'd8;
            e.deep2       = e.window_room[17] || e.window_room[16:0] < 17'd2;
            e.deep8       = e.window_room[17] || e.window_room[16:0] < 17'd8;
        end

        assign table_out[ENTRY_W*i +: ENTRY_W] = e;
    end

endmodule

`resetall
