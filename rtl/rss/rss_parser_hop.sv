// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_PARSER_HOP_SV
`define ROCENIC_RSS_PARSER_HOP_SV
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One step of the RSS parser's IPv6 extension-header walk (model: the loop body of ipv6() in
// model/src/rss/parse.rs): hop-by-hop (0), routing (43) and destination options (60) headers
// are skipped by their length, a fragment header (44) by 8 bytes, noting whether it makes the
// packet a fragment. Checks in the model's order: truncation against the IPv6 payload length,
// then the parse window. Combinational; rss_parser registers each of its four hops.
//
// Sized for one clock at 125 MHz: what the header at the walk's word holds was worked out ahead
// (rss_parser_hop_table), and the checks that do not depend on it compare registered values,
// so a hop is a 10-way select of its table entry followed by the choice below: no adds, no
// compares.
module rss_parser_hop #(
    localparam int ENTRIES = 10,                                    // see rss_parser_hop_table
    localparam int ENTRY_W = rss_types_pkg::HOP_ENTRY_W
) (
    input  wire [ENTRIES*ENTRY_W-1:0] hop_table,  // rss_parser_hop_table's, for this frame
    input  rss_types_pkg::found_t     in_found,
    input  rss_types_pkg::walk_t      in_walk,
    output rss_types_pkg::found_t     out_found,
    output rss_types_pkg::walk_t      out_walk
);

    // Decoded a stage early (the previous hop or the L3 stage), so that no check waits for it.
    wire is_ext  = in_walk.next_ext;
    wire is_frag = in_walk.next_frag;

    // The entry at the walk's position: an AND-OR over the one-hot select lines, which maps
    // to a shallow tree of LUTs where a binary 10-way select maps to a chain. It is used only
    // once the window check has passed, and then the position is 0 to 9 (words 5 to 14 of rel,
    // see rss_parser_hop_table).
    rss_types_pkg::hop_entry_t e;
    always_comb begin
        logic [ENTRY_W-1:0] picked;
        picked = '0;
        for (int i = 0; i < ENTRIES; i++) begin
            picked = picked | (hop_table[ENTRY_W*i +: ENTRY_W] & {ENTRY_W{in_walk.sel[i]}});
        end
        e = picked;
    end

    // The header's fixed part (8 bytes for a fragment header, 2 for the others) passes the
    // payload's end, or the window's: checked a stage ahead for both sizes.
    wire short_fixed = is_frag ? in_walk.short8 : in_walk.short2;
    wire deep        = is_frag ? in_walk.deep8 : in_walk.deep2;

    // The outcome, written as next-state equations rather than an if-else chain: the position
    // fields then switch on registered conditions only, and just the walk's end and the
    // MALFORMED flag wait for the entry's two checks.
    wire skip = in_walk.walking && (is_ext || is_frag);    // a header to skip is named...
    wire fits = in_walk.walking && in_walk.skip_ok;        // ...and its fixed part is there
    wire ends_frag = fits && is_frag && e.hdr.frag_last;   // a fragment offset ends the walk
    wire bad_ext   = fits && !is_frag && e.hdr.short_ext;  // the header passes the payload

    always_comb begin
        out_found = in_found;
        out_walk  = in_walk;
        // The walk goes on only past a header that fits.
        out_walk.walking = fits && !ends_frag && !bad_ext;
        out_walk.walked  = in_walk.walked || (in_walk.walking && !skip) || ends_frag;
        if (skip && short_fixed) begin
            out_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
        end
        if (bad_ext) begin
            out_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
        end
        if (skip && !short_fixed && deep) begin
            out_found.l4_protocol = in_walk.next_header;
            out_found.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
            out_found.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
        end
        // The position moves past any header that fits; where the walk then stopped on a bad
        // header, nothing reads it (only a walk that ended normally leads to the transport).
        // Room and window room stay: they follow from the position when the walk ends.
        if (fits) begin
            out_walk.next_header = e.hdr.next_header;
            out_walk.next_ext    = e.hdr.next_ext;
            out_walk.next_frag   = e.hdr.next_frag;
        end
        if (fits && is_frag) begin
            out_walk.pos         = {5'h0, in_walk.pos[3:0] + 4'd1};  // position 0..9 here
            out_walk.sel         = {in_walk.sel[8:0], 1'b0};
            out_walk.short2      = e.frag_short2;
            out_walk.short8      = e.frag_short8;
            out_walk.deep2       = e.frag_deep2;
            out_walk.deep8       = e.frag_deep8;
            out_walk.skip_ok     = e.frag_skip_ok;
            out_walk.fragment    = in_walk.fragment || e.hdr.frag_flag;
        end else if (fits) begin
            out_walk.pos         = e.hdr.next_pos;
            out_walk.sel         = e.hdr.next_sel;
            out_walk.short2      = e.short2;
            out_walk.short8      = e.short8;
            out_walk.deep2       = e.deep2;
            out_walk.deep8       = e.deep8;
            out_walk.skip_ok     = e.skip_ok;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_PARSER_HOP_SV
