// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_WQE_PKG_SV
`define ROCENIC_WQE_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Types the WQE engine's control plane hands to its data path, and the form it keeps a QP in.
// The register encoding is wqe_regs_pkg (generated from model/src/wqe/regs.rs); the meaning of
// each field is model::qp's (docs/qp.md).
// Types, and the constants of the stored form (a module uses some of them).
/* verilator lint_off UNUSEDPARAM */
package wqe_pkg;

    // What the data path needs of a QP to run one of its WQEs: a snapshot taken when the
    // scheduler picks the WQE (m_pick_ctx). Commands wait until the data path is idle, so a
    // snapshot never goes stale while its WQE runs. Addresses are byte strings with the first
    // byte in the top bits (network order, as the registers hold them).
    typedef struct packed {
        logic [23:0]  qpn;         // the QP's own number (UD: the DETH source QP)
        logic         ud;          // transport: 0 RC, 1 UD
        logic [31:0]  pd;          // protection domain every gather entry must belong to
        logic [2:0]   mtu;         // path MTU code 1..5: 256 << (code - 1) bytes
        logic [23:0]  dest_qpn;    // RC: the connected QP (the BTH destination)
        logic [31:0]  qkey;        // UD: the QP's Q_Key (a WQE's with its top bit set takes it)
        logic         ipv6;        // RC address vector: IPv6 (else IPv4)
        logic         vlan;        // RC: insert an 802.1Q tag
        logic [11:0]  vid;         // RC: the tag's VLAN ID
        logic [2:0]   pcp;         // RC: the tag's priority code point
        logic [7:0]   tclass;      // RC: traffic class (IPv4 TOS)
        logic [7:0]   hop_limit;   // RC: hop limit (IPv4 TTL)
        logic [19:0]  flow_label;  // RC: the IPv6 flow label fixed on entering RTR; UD: 0
        logic [15:0]  udp_sport;   // RC: the UDP source port fixed on entering RTR; UD: 0
        logic [47:0]  dmac;        // RC: destination MAC
        logic [47:0]  smac;        // RC: source MAC
        logic [127:0] src_ip;      // RC: source address; IPv4 in [31:0]
        logic [127:0] dst_ip;      // RC: destination address; IPv4 in [31:0]
        logic         raw;         // a raw-packet QP (ud 0, mtu 0): its SENDs are whole frames
    } qp_ctx_t;

    // A QP slot as the control plane stores it: five words of CTX_COLS x 36 bits in block RAM
    // (wqe_qp_table). Word 0 holds what commands read (the entropy in its column 0, alone, so
    // that entering RTR or RESET rewrites that one cell); words 0..4 are read for a pick.
    localparam int CTX_COLS  = 4;                 // 36-bit block RAM columns per word
    localparam int CTX_WORD  = 36 * CTX_COLS;     // bits per word
    localparam int CTX_WORDS = 5;                 // words per slot
    typedef struct packed {
        // words 1..4
        logic [68:0]  spare1;
        logic [127:0] dst_ip;
        logic [127:0] src_ip;
        logic [47:0]  smac;
        logic [47:0]  dmac;
        logic [7:0]   hop_limit;
        logic [7:0]   tclass;
        logic [2:0]   pcp;
        logic [11:0]  vid;
        logic         vlan;
        logic         ipv6;
        logic [31:0]  qkey;
        logic [31:0]  pd;
        logic [57:0]  sq_base;     // send ring address, bits 63:6 (word 1: the pick needs it early)
        // word 0
        logic [2:0]   spare0;
        logic         raw;         // a raw-packet QP (QP_FLAGS.RAW; its mtu is 0)
        logic [4:0]   ring_log2;   // send ring of 2^ring_log2 WQEs (0..16)
        logic [2:0]   stride_log2; // a WQE slot is 2^stride_log2 blocks (0..4)
        logic [2:0]   mtu;
        logic [23:0]  first_psn;   // the PSN staged at QP_WRITE; RESET rewinds to it
        logic [19:0]  app_fl;      // the application flow label (RC address vector; 0 = none)
        logic         ud;
        logic [23:0]  dest_qpn;
        logic [23:0]  qpn;
        logic [19:0]  flow_label;  // word 0, column 0: the entropy fixed at RTR
        logic [15:0]  udp_sport;
    } qp_image_t;

    // The entropy cell: word 0, column 0.
    localparam int ENTROPY_W = 36;

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
`endif
