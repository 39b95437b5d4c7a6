// SPDX-License-Identifier: Apache-2.0 OR MIT
// Packages first, whatever order the files are given in (paths from the repository root).
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One step of the RSS parser's IPv6 extension-header walk (model: the loop body of ipv6() in
// model/src/rss/parse.rs): hop-by-hop (0), routing (43) and destination options (60) headers
// are skipped by their length, a fragment header (44) by 8 bytes, noting whether it makes the
// packet a fragment. Checks in the model's order: truncation against the IPv6 payload length,
// then the parse window. Combinational; rss_parser chains four of them, two per stage.
module rss_parser_hop #(
    localparam int WIN = rss_regs_pkg::RSS_PARSE_WINDOW,  // Window bytes
    localparam int REL = 128                              // rel bytes (see rss_parser)
) (
    input  wire [REL*8-1:0]      rel,        // the window re-based at the IP header
    input  wire [6:0]            l3,         // the IP header's offset in the frame
    input  rss_types_pkg::found_t in_found,
    input  rss_types_pkg::walk_t  in_walk,
    output rss_types_pkg::found_t out_found,
    output rss_types_pkg::walk_t  out_walk
);

    function automatic logic [7:0] byte_at(input logic [REL*8-1:0] r, input logic [6:0] i);
        byte_at = r[8*i +: 8];
    endfunction

    // Hop-by-hop 0, routing 43, destination options 60; fragment 44.
    wire        is_ext    = in_walk.next_header == 8'd0 || in_walk.next_header == 8'd43
                         || in_walk.next_header == 8'd60;
    wire        is_frag   = in_walk.next_header == 8'd44;
    wire [15:0] fixed_len = is_frag ? 16'd8 : 16'd2;
    // The absolute end of this header's fixed part, and its offset in rel.
    wire [16:0] window_end = 17'(l3) + 17'd40 + 17'(in_walk.offset) + 17'(fixed_len);
    wire [6:0]  at         = 7'(16'd40 + in_walk.offset);
    wire [15:0] ext_len    = {5'h0, byte_at(rel, at + 7'd1), 3'b000} + 16'd8;
    wire [15:0] frag       = {byte_at(rel, at + 7'd2), byte_at(rel, at + 7'd3)};
    wire [7:0]  next       = byte_at(rel, at);

    always_comb begin
        out_found = in_found;
        out_walk  = in_walk;
        if (in_walk.walking) begin
            if (!is_ext && !is_frag) begin
                out_walk.walking = 1'b0;
                out_walk.walked  = 1'b1;
            end else if (17'(in_walk.offset) + 17'(fixed_len) > 17'(in_walk.payload_len)) begin
                out_walk.walking = 1'b0;
                out_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else if (window_end > 17'(WIN)) begin
                out_walk.walking      = 1'b0;
                out_found.l4_protocol = in_walk.next_header;
                out_found.flags[rss_regs_pkg::RSS_FLAG_L3ONLY] = 1'b1;
                out_found.flags[rss_regs_pkg::RSS_FLAG_DEEP]   = 1'b1;
            end else if (is_frag) begin
                out_walk.next_header = next;
                out_walk.offset      = in_walk.offset + 16'd8;
                out_walk.fragment    = in_walk.fragment || (frag & 16'hFFF9) != 16'h0;
                if (frag[15:3] != 13'h0) begin
                    out_walk.walking = 1'b0;
                    out_walk.walked  = 1'b1;
                end
            end else if (17'(in_walk.offset) + 17'(ext_len) > 17'(in_walk.payload_len)) begin
                out_walk.walking = 1'b0;
                out_found.flags[rss_regs_pkg::RSS_FLAG_MALFORMED] = 1'b1;
            end else begin
                out_walk.next_header = next;
                out_walk.offset      = in_walk.offset + ext_len;
            end
        end
    end

endmodule

`resetall
