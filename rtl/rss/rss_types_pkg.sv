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

    // The IPv6 walk and the transport decision, carried from the parser's stage 2 to stage 5.
    typedef struct packed {
        logic        walking;      // IPv6 extension-header walk in progress
        logic        walked;       // IPv6 walk ended normally: the transport decision is due
        logic        fragment;     // an IPv6 fragment header with offset or M set was walked
        logic [7:0]  next_header;  // IPv6 next header being looked at
        logic [15:0] offset;       // walk position, from the end of the fixed IPv6 header
        logic [15:0] payload_len;  // IPv6 payload length
        logic        transport;    // a TCP/UDP decision is due at l4_rel with seg_len
        logic [15:0] l4_rel;       // transport offset from the IP header
        logic [15:0] seg_len;      // transport segment length (bounded by the IP length)
    } walk_t;

endpackage

`resetall
`endif
