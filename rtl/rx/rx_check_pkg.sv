// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_RX_CHECK_PKG_SV
`define ROCENIC_RX_CHECK_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// What rx_check reads from a frame's headers while it streams in (docs/rx.md, "rx_check (RTL)").
//
// The frame is seen as 32-bit words after two leading zero bytes: word k holds bytes 4k-2 to
// 4k+1. Every header after the Ethernet addresses then starts on a word (the Ethernet header
// is 14 or 18 bytes, IP headers are whole words), so each field below is one captured word.
// Bytes are in wire order, the first in bits [31:24].
// A package of types: a module uses some of them.
/* verilator lint_off UNUSEDPARAM */
package rx_check_pkg;

    // The headers of one frame. A word the frame is too short to hold keeps what it held; the
    // verdict reads only words its length checks say are there.
    typedef struct packed {
        logic         vlan;       // bytes 12-13 are a VLAN TPID (0x8100 or 0x88A8): IP at 18
        logic         ipv4;       // the EtherType (after the tag) is IPv4...
        logic         ipv6;       // ...or IPv6
        logic [31:0]  ip0;        // IP word 0: IPv4 version, IHL, TOS, total length; IPv6
                                  // version, traffic class, flow label
        logic [31:0]  ip1;        // IP word 1: IPv4 identification, flags, fragment offset;
                                  // IPv6 payload length, next header, hop limit
        logic [7:0]   ip_proto;   // IPv4 protocol (word 2)
        logic [31:0]  l4_0;       // after the IP header: ports
        logic [31:0]  l4_1;       // UDP length and checksum
        logic [31:0]  bth0;       // BTH: opcode, SE/M/PadCnt/TVer, P_Key
        logic [31:0]  bth1;       // BTH: FECN/BECN, destination QP (TCP: data offset on top)
        logic [31:0]  bth2;       // BTH: AckReq, PSN
        logic [159:0] ext;        // the five words after the BTH, the first in [159:128]:
                                  // RETH, DETH and ImmDt as the opcode says
    } fields_t;

    // Words before the IP header: 4 untagged, 5 tagged (the header starts at byte 14 or 18).
    localparam int L3_WORD = 4;
    // Words of the transport headers captured from the UDP header on: UDP 2, BTH 3, then the
    // longest extension headers, RETH 4 and ImmDt 1.
    localparam int L4_WORDS = 10;

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
`endif
