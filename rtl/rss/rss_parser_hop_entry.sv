// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_PARSER_HOP_ENTRY_SV
`define ROCENIC_RSS_PARSER_HOP_ENTRY_SV
`include "rtl/rss/rss_types_pkg.sv"
`include "rtl/rss/rss_regs_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One entry of the RSS parser's IPv6 walk table: the registered compares of
// rss_parser_hop_table combined into the checks a hop reads (rss_parser_hop). A separate clock
// from the compares, so that neither the table nor the first hop, which combines entry 0 itself,
// holds both. Combinational.
module rss_parser_hop_entry (
    input  rss_types_pkg::hop_raw_t   raw,
    output rss_types_pkg::hop_entry_t entry
);

    always_comb begin
        entry.hdr          = raw.hdr;
        // Room past the header < 8 and < 2 where room >= 0: no word left, and fewer than 2 odd
        // bytes. Window room past it < 8, and < 2 (see rss_parser_hop_table).
        entry.short8       = raw.len_eq_words;
        entry.short2       = raw.len_eq_words && raw.payload_low_lt2;
        entry.deep8        = raw.len_ge_win;
        entry.deep2        = raw.win_low_lt2 ? raw.len_ge_win : raw.len_gt_win;
        entry.frag_short8  = raw.frag_words0;
        entry.frag_short2  = raw.frag_words0 && raw.payload_low_lt2;
        entry.frag_deep8   = raw.frag_win_lt8;
        entry.frag_deep2   = raw.frag_win_lt2;
        // Whether the next hop skips the header named here: the hop's own test, a stage early.
        entry.skip_ok      = (raw.hdr.next_ext || raw.hdr.next_frag)
                          && !(raw.hdr.next_frag ? entry.short8 || entry.deep8
                                             : entry.short2 || entry.deep2);
        entry.frag_skip_ok = (raw.hdr.next_ext || raw.hdr.next_frag)
                          && !(raw.hdr.next_frag ? entry.frag_short8 || entry.frag_deep8
                                             : entry.frag_short2 || entry.frag_deep2);
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_PARSER_HOP_ENTRY_SV
