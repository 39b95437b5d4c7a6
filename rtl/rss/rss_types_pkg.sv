// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_RSS_TYPES_PKG_SV
`define ROCENIC_RSS_TYPES_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Types the RSS pipeline's modules share: the live form of a steering rule and of an RSS
// context, as rss_regs holds them and the datapath reads them, and the parser's stage records. Their register encoding is in
// rss_regs_pkg (generated from model/src/rss/regs.rs); their meaning in model/src/rss/steer.rs.
package rss_types_pkg;

    // The fields a rule matches (model::rss::SteeringKey). Addresses byte 0 in the top byte,
    // IPv4 as ::ffff:a.b.c.d.
    typedef struct packed {
        logic [15:0]  ethertype;
        logic [7:0]   l4_protocol;
        logic [127:0] src;
        logic [127:0] dst;
        logic [15:0]  src_port;
        logic [15:0]  dst_port;
        logic [23:0]  qpn;
    } steer_key_t;

    // A steering rule (model::rss::Rule): matches when enabled and (key ^ value) & mask == 0.
    typedef struct packed {
        logic        enable;
        logic        to_queue;   // 1: target is a queue, 0: target is an RSS context
        logic [15:0] target;
        steer_key_t  value;
        steer_key_t  mask;
    } rule_t;

    // An RSS context (model::rss::regs::ContextRegs).
    typedef struct packed {
        logic         xor_hash;    // 1: XOR hash, 0: Toeplitz with key
        logic [4:0]   table_log2;  // indirection entries in use: 2^table_log2
        logic         bank;        // indirection table bank in use
        logic [12:0]  fields;      // model::rss::HashFields bits
        logic [415:0] key;         // 52-byte key, byte 0 in [415:408]
    } context_t;

    // What the parser has found so far (rss_parser, rss_parser_hop).
    typedef struct packed {
        logic [10:0]  flags;        // RSS_FLAGS_W bits (rss_parser checks the width)
        logic [15:0]  ethertype;
        logic [7:0]   l4_protocol;
        logic [127:0] src;
        logic [127:0] dst;
        logic [15:0]  src_port;
        logic [15:0]  dst_port;
        logic [23:0]  qpn;
    } found_t;

    // The IPv6 walk and the transport decision, carried from the parser's stage 3 to stage 8.
    // The position is the header being looked at: during the IPv6 walk the next extension
    // header, after it (or for IPv4) the transport header. IPv6 headers follow each other from
    // the payload's start in 8-byte words, so the walk keeps just its position in words; room
    // and window room follow from it once the walk ends. Only what the stages compare and
    // select on is kept, so that no hop adds or compares.
    typedef struct packed {
        logic        walking;      // IPv6 extension-header walk in progress
        logic        walked;       // IPv6 walk ended normally: the transport decision is due
        logic        fragment;     // an IPv6 fragment header with offset or M set was walked
        logic [7:0]  next_header;  // IPv6 next header being looked at...
        logic        next_ext;     // ...decoded: hop-by-hop (0), routing (43) or destination
        logic        next_frag;    // options (60); fragment (44)
        // IPv4: bytes from the transport header to the end of the IP payload, and to the end
        // of the parse window. IPv6: the payload length, and the window bytes after the fixed
        // header (both fixed during the walk). Window bytes are two's complement.
        logic [15:0] room;
        logic [17:0] window_room;
        logic [8:0]  pos;          // IPv6: the position, in 8-byte words from the payload's start
        logic [9:0]  sel;          // pos one-hot while it is 0 to 9: a hop's select lines
        // A stage ahead, at the position: room < 2, room < 8, window room < 2, window room < 8
        // (the checks of a header's fixed part, 2 bytes or a fragment header's 8).
        logic        short2;
        logic        short8;
        logic        deep2;
        logic        deep8;
        logic        skip_ok;      // ...and together: a header to skip is named and its fixed
                                   // part is there (a walking hop takes it on this bit alone)
        logic        transport;    // IPv4: a TCP/UDP decision is due...
        logic [4:0]  l4_word;      // ...at this 4-byte word of rel (the IHL)
    } walk_t;

    // What the header at one 8-byte word of rel names, and where it leads: the part of a
    // hop_entry_t that rss_parser_hop_table reads straight from the frame.
    typedef struct packed {
        logic [7:0]  next_header;  // the header's next header...
        logic        next_ext;     // ...decoded: hop-by-hop, routing or destination options
        logic        next_frag;    // ...or fragment
        logic        frag_flag;    // as a fragment header: offset or M set
        logic        frag_last;    // as a fragment header: the offset ends the walk
        logic        short_ext;    // as an extension header: it passes the payload's end
        logic [8:0]  next_pos;     // as an extension header: walk_t.pos after it...
        logic [9:0]  next_sel;     // ...and walk_t.sel
    } hop_header_t;

    // What an IPv6 walk finds at one 8-byte word of rel if an extension header starts there
    // (rss_parser_hop_table): everything a hop needs, worked out for every word at once.
    typedef struct packed {
        hop_header_t hdr;          // the header there and where it leads...
        logic        short2;       // ...and the four checks there
        logic        short8;
        logic        deep2;
        logic        deep8;
        logic        skip_ok;      // ...and walk_t.skip_ok there
        logic        frag_short2;  // as a fragment header: the four checks after it...
        logic        frag_short8;
        logic        frag_deep2;
        logic        frag_deep8;
        logic        frag_skip_ok; // ...and walk_t.skip_ok there
    } hop_entry_t;
    // Its width, spelled out for Yosys (Verilator's width lint checks it where entries are packed).
    /* verilator lint_off UNUSEDPARAM */
    localparam int HOP_ENTRY_W = 42;
    /* verilator lint_on UNUSEDPARAM */

    // What rss_parser_hop_table registers per word: the compares behind a hop_entry_t, which
    // rss_parser_hop_entry combines a stage later (the first hop reads only entry 0 and can
    // combine its own; later hops get the combined table).
    typedef struct packed {
        hop_header_t hdr;
        // As an extension header, the header's length in words against what is left past it:
        logic        len_eq_words;    // the payload's whole words (hop_entry_t.short8)
        logic        len_ge_win;      // the window's whole words (hop_entry_t.deep8)
        logic        len_gt_win;      // ...strictly more (deep2, with win_low_lt2)
        logic        win_low_lt2;     // the window's bytes past whole words: 0 or 1
        logic        payload_low_lt2; // the payload's bytes past whole words: 0 or 1
        // As a fragment header (8 bytes), what is left past it:
        logic        frag_words0;     // no payload word (hop_entry_t.frag_short8)
        logic        frag_win_lt8;    // fewer than 8 window bytes (frag_deep8)
        logic        frag_win_lt2;    // fewer than 2 (frag_deep2)
    } hop_raw_t;
    /* verilator lint_off UNUSEDPARAM */
    localparam int HOP_RAW_W = 40;
    /* verilator lint_on UNUSEDPARAM */

endpackage

`resetall
`endif
