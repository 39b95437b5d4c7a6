// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_WQE_FRAME_PKG_SV
`define ROCENIC_WQE_FRAME_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// What the frame builder (wqe_frame) needs to know of one packet, and the sizes of its header
// buffer. The fields are model::wqe::frame's Route and Transport (docs/wqe.md, "Frames").
// A package of types and sizes: a module uses some of them.
/* verilator lint_off UNUSEDPARAM */
package wqe_frame_pkg;

    // One packet. Addresses hold their first octet in the top byte; an IPv4 address is in bits
    // [31:0] of its 128-bit field (the rest is ignored).
    typedef struct packed {
        // Ethernet and IP (model::wqe::frame::Route)
        logic         vlan_en;       // insert an 802.1Q tag: TPID 0x8100, TCI = pcp << 13 | vid
        logic [11:0]  vid;
        logic [2:0]   pcp;
        logic         ipv6;          // 1: IPv6, 0: IPv4
        logic [127:0] src_ip;
        logic [127:0] dst_ip;
        logic [47:0]  src_mac;
        logic [47:0]  dst_mac;
        logic [7:0]   tclass;        // traffic class (IPv4: the TOS byte)
        logic [7:0]   hop_limit;     // hop limit (IPv4: TTL)
        logic [19:0]  flow_label;    // IPv6 only
        logic [15:0]  udp_sport;
        // BTH (M = 0, TVer = 0, P_Key = 0xFFFF, FECN = BECN = 0; PadCnt from payload_len)
        logic [7:0]   opcode;
        logic         se;
        logic [23:0]  dest_qpn;
        logic         ack_req;
        logic [23:0]  psn;
        // extension headers, in this order after the BTH when enabled
        logic         reth_en;
        logic [63:0]  va;
        logic [31:0]  rkey;
        logic [31:0]  dma_len;
        logic         deth_en;
        logic [31:0]  qkey;
        logic [23:0]  src_qpn;
        logic         imm_en;
        logic [31:0]  imm;
        // payload bytes, 0..4096 (raw: 14..4218)
        logic [12:0]  payload_len;
        // a raw-packet QP's frame: the payload is the whole frame, every field above but
        // payload_len is ignored, and no ICRC follows
        logic         raw;
    } desc_t;

    // The header seen as 32-bit words after two leading zero bytes: every part after the
    // Ethernet addresses is a whole number of words there (the header is 2 mod 4 bytes long).
    // Tagged Ethernet 5 words, IPv6 10, UDP 2, BTH 3, RETH 4, DETH 2, ImmDt 1.
    localparam int HDR_WORDS = 27;
    // Output beats of 8 bytes that can hold header bytes: the longest header is 106 bytes.
    localparam int HDR_BEATS = 14;

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
`endif
