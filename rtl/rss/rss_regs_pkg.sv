// SPDX-License-Identifier: Apache-2.0 OR MIT
// GENERATED from model/src/rss/regs.rs by render_sv_package; do not edit. The model's
// regs test fails when this file is stale; ROCENIC_BLESS=1 rewrites it.
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_RSS_REGS_PKG_SV
`define ROCENIC_RSS_REGS_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RSS pipeline's AXI4-Lite register map (docs/rss-registers.md).
// A package of constants: a module uses some of them.
/* verilator lint_off UNUSEDPARAM */
package rss_regs_pkg;
    localparam int unsigned RSS_ID_VALUE = 32'h52535331;
    localparam int unsigned RSS_KEY_BYTES = 52;
    localparam int unsigned RSS_PARSE_WINDOW = 128;
    localparam int unsigned RSS_MAX_EXTENSION_HEADERS = 4;

    // Bit positions of the parse flags (model::rss::ParseFlags).
    localparam int unsigned RSS_FLAG_VLAN = 9;
    localparam int unsigned RSS_FLAG_IPOIB = 5;
    localparam int unsigned RSS_FLAG_IPV4 = 0;
    localparam int unsigned RSS_FLAG_IPV6 = 1;
    localparam int unsigned RSS_FLAG_TCP = 2;
    localparam int unsigned RSS_FLAG_UDP = 3;
    localparam int unsigned RSS_FLAG_BTH = 4;
    localparam int unsigned RSS_FLAG_FRAG = 6;
    localparam int unsigned RSS_FLAG_L3ONLY = 7;
    localparam int unsigned RSS_FLAG_MALFORMED = 8;
    localparam int unsigned RSS_FLAG_DEEP = 10;
    localparam int unsigned RSS_FLAGS_W = 11;

    // Bit positions of the hash fields (model::rss::HashFields).
    localparam int unsigned RSS_FIELD_SRC_IPV4 = 0;
    localparam int unsigned RSS_FIELD_DST_IPV4 = 1;
    localparam int unsigned RSS_FIELD_SRC_IPV6 = 2;
    localparam int unsigned RSS_FIELD_DST_IPV6 = 3;
    localparam int unsigned RSS_FIELD_SRC_PORT_TCP = 4;
    localparam int unsigned RSS_FIELD_DST_PORT_TCP = 5;
    localparam int unsigned RSS_FIELD_SRC_PORT_UDP = 6;
    localparam int unsigned RSS_FIELD_DST_PORT_UDP = 7;
    localparam int unsigned RSS_FIELD_BTH_QPN = 12;

    // Bit positions of the hash type (model::rss::HashType).
    localparam int unsigned RSS_HASH_TYPE_IPV4 = 0;
    localparam int unsigned RSS_HASH_TYPE_IPV6 = 1;
    localparam int unsigned RSS_HASH_TYPE_TCP = 2;
    localparam int unsigned RSS_HASH_TYPE_UDP = 3;
    localparam int unsigned RSS_HASH_TYPE_BTH = 4;

    // ID: identifies the block: 0x52535331 ("RSS1")
    localparam logic [11:0] RSS_ID = 12'h000;

    // CAPS: the parameters the block was built with
    localparam logic [11:0] RSS_CAPS = 12'h004;
    localparam int unsigned RSS_CAPS_RULES_LSB = 0;
    localparam int unsigned RSS_CAPS_RULES_W = 8;
    localparam int unsigned RSS_CAPS_CONTEXTS_LSB = 8;
    localparam int unsigned RSS_CAPS_CONTEXTS_W = 8;
    localparam int unsigned RSS_CAPS_TABLE_LOG2_LSB = 16;
    localparam int unsigned RSS_CAPS_TABLE_LOG2_W = 5;
    localparam int unsigned RSS_CAPS_QUEUE_W_LSB = 24;
    localparam int unsigned RSS_CAPS_QUEUE_W_W = 5;

    // STATUS: state
    localparam logic [11:0] RSS_STATUS = 12'h008;
    localparam int unsigned RSS_STATUS_BUSY_LSB = 0;
    localparam int unsigned RSS_STATUS_BUSY_W = 1;

    // COMMIT: copies the staged rule or context into the live configuration, between two packets
    localparam logic [11:0] RSS_COMMIT = 12'h00c;
    localparam int unsigned RSS_COMMIT_INDEX_LSB = 0;
    localparam int unsigned RSS_COMMIT_INDEX_W = 8;
    localparam int unsigned RSS_COMMIT_CONTEXT_LSB = 31;
    localparam int unsigned RSS_COMMIT_CONTEXT_W = 1;

    // PACKETS: packets parsed since reset (wraps)
    localparam logic [11:0] RSS_PACKETS = 12'h010;

    // CTX_CONTROL: staged context: function, table size and bank
    localparam logic [11:0] RSS_CTX_CONTROL = 12'h020;
    localparam int unsigned RSS_CTX_CONTROL_XOR_LSB = 0;
    localparam int unsigned RSS_CTX_CONTROL_XOR_W = 1;
    localparam int unsigned RSS_CTX_CONTROL_TABLE_LOG2_LSB = 8;
    localparam int unsigned RSS_CTX_CONTROL_TABLE_LOG2_W = 5;
    localparam int unsigned RSS_CTX_CONTROL_BANK_LSB = 16;
    localparam int unsigned RSS_CTX_CONTROL_BANK_W = 1;

    // CTX_FIELDS: staged context: hashed fields
    localparam logic [11:0] RSS_CTX_FIELDS = 12'h024;
    localparam int unsigned RSS_CTX_FIELDS_FIELDS_LSB = 0;
    localparam int unsigned RSS_CTX_FIELDS_FIELDS_W = 13;

    // CTX_KEY: staged context: the 52-byte Toeplitz key; word i holds bytes 4i..4i+3, byte 4i in bits 31:24
    localparam logic [11:0] RSS_CTX_KEY = 12'h040;
    localparam int unsigned RSS_CTX_KEY_WORDS = 13;

    // RULE_CONTROL: staged rule: enable and action
    localparam logic [11:0] RSS_RULE_CONTROL = 12'h080;
    localparam int unsigned RSS_RULE_CONTROL_ENABLE_LSB = 0;
    localparam int unsigned RSS_RULE_CONTROL_ENABLE_W = 1;
    localparam int unsigned RSS_RULE_CONTROL_QUEUE_LSB = 1;
    localparam int unsigned RSS_RULE_CONTROL_QUEUE_W = 1;
    localparam int unsigned RSS_RULE_CONTROL_TARGET_LSB = 16;
    localparam int unsigned RSS_RULE_CONTROL_TARGET_W = 16;

    // RULE_ETHERTYPE: staged rule: EtherType
    localparam logic [11:0] RSS_RULE_ETHERTYPE = 12'h084;
    localparam int unsigned RSS_RULE_ETHERTYPE_VALUE_LSB = 0;
    localparam int unsigned RSS_RULE_ETHERTYPE_VALUE_W = 16;
    localparam int unsigned RSS_RULE_ETHERTYPE_MASK_LSB = 16;
    localparam int unsigned RSS_RULE_ETHERTYPE_MASK_W = 16;

    // RULE_L4: staged rule: IP protocol / IPv6 next header
    localparam logic [11:0] RSS_RULE_L4 = 12'h088;
    localparam int unsigned RSS_RULE_L4_VALUE_LSB = 0;
    localparam int unsigned RSS_RULE_L4_VALUE_W = 8;
    localparam int unsigned RSS_RULE_L4_MASK_LSB = 8;
    localparam int unsigned RSS_RULE_L4_MASK_W = 8;

    // RULE_SRC_PORT: staged rule: source port
    localparam logic [11:0] RSS_RULE_SRC_PORT = 12'h08c;
    localparam int unsigned RSS_RULE_SRC_PORT_VALUE_LSB = 0;
    localparam int unsigned RSS_RULE_SRC_PORT_VALUE_W = 16;
    localparam int unsigned RSS_RULE_SRC_PORT_MASK_LSB = 16;
    localparam int unsigned RSS_RULE_SRC_PORT_MASK_W = 16;

    // RULE_DST_PORT: staged rule: destination port
    localparam logic [11:0] RSS_RULE_DST_PORT = 12'h090;
    localparam int unsigned RSS_RULE_DST_PORT_VALUE_LSB = 0;
    localparam int unsigned RSS_RULE_DST_PORT_VALUE_W = 16;
    localparam int unsigned RSS_RULE_DST_PORT_MASK_LSB = 16;
    localparam int unsigned RSS_RULE_DST_PORT_MASK_W = 16;

    // RULE_QPN: staged rule: BTH destination QP value (bits 23:0)
    localparam logic [11:0] RSS_RULE_QPN = 12'h094;

    // RULE_QPN_MASK: staged rule: BTH destination QP mask (bits 23:0)
    localparam logic [11:0] RSS_RULE_QPN_MASK = 12'h098;

    // RULE_SRC: staged rule: source address (IPv4 as ::ffff:a.b.c.d); word i holds bytes 4i..4i+3, byte 4i in bits 31:24
    localparam logic [11:0] RSS_RULE_SRC = 12'h0a0;
    localparam int unsigned RSS_RULE_SRC_WORDS = 4;

    // RULE_SRC_MASK: staged rule: source address mask
    localparam logic [11:0] RSS_RULE_SRC_MASK = 12'h0b0;
    localparam int unsigned RSS_RULE_SRC_MASK_WORDS = 4;

    // RULE_DST: staged rule: destination address
    localparam logic [11:0] RSS_RULE_DST = 12'h0c0;
    localparam int unsigned RSS_RULE_DST_WORDS = 4;

    // RULE_DST_MASK: staged rule: destination address mask
    localparam logic [11:0] RSS_RULE_DST_MASK = 12'h0d0;
    localparam int unsigned RSS_RULE_DST_MASK_WORDS = 4;

    // TABLE_SELECT: where the next TABLE_DATA write goes
    localparam logic [11:0] RSS_TABLE_SELECT = 12'h100;
    localparam int unsigned RSS_TABLE_SELECT_INDEX_LSB = 0;
    localparam int unsigned RSS_TABLE_SELECT_INDEX_W = 16;
    localparam int unsigned RSS_TABLE_SELECT_CONTEXT_LSB = 16;
    localparam int unsigned RSS_TABLE_SELECT_CONTEXT_W = 8;
    localparam int unsigned RSS_TABLE_SELECT_BANK_LSB = 24;
    localparam int unsigned RSS_TABLE_SELECT_BANK_W = 1;

    // TABLE_DATA: writes one indirection table entry (a queue number) at TABLE_SELECT, which then advances
    localparam logic [11:0] RSS_TABLE_DATA = 12'h104;
endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
`endif
