// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes the package it uses: the modules that use it include it, so any file
// order compiles.
`ifndef ROCENIC_WQE_DP_PKG_SV
`define ROCENIC_WQE_DP_PKG_SV
`include "rtl/wqe/wqe_frame_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Every user imports a few of these constants, so unused ones are expected.
/* verilator lint_off UNUSEDPARAM */

// Types the WQE engine's data path passes between its stages (docs/wqe-dp.md, "Data path"):
// the QP context it needs, the pick it starts from, and the checked WQE it sends.
package wqe_dp_pkg;

    // Status and opcode codes: wqe_fmt_pkg's (generated from the model), named in full where
    // they are used (Yosys reads a package constant only from a module, not from a package).

    // The QP context fields the data path reads, as the control plane hands them over with a
    // pick (a snapshot: commands wait for the data path to be idle, so it cannot go stale).
    typedef struct packed {
        logic [23:0]  qpn;
        logic         ud;          // 0 RC, 1 UD
        logic [31:0]  pd;
        logic [2:0]   mtu;         // path MTU code 1..5 (256 << (code - 1) bytes)
        logic [23:0]  dest_qpn;    // RC
        logic [31:0]  qkey;        // UD: used when the WQE's Q_Key has its top bit set
        logic         ipv6;        // RC address vector: family
        logic         vlan;        // RC: insert an 802.1Q tag
        logic [11:0]  vid;
        logic [2:0]   pcp;
        logic [7:0]   tclass;
        logic [7:0]   hop_limit;
        logic [19:0]  flow_label;  // RC: fixed at RTR by the entropy unit
        logic [15:0]  udp_sport;   // RC: fixed at RTR by the entropy unit
        logic [47:0]  dmac;        // first octet in [47:40]
        logic [47:0]  smac;
        logic [127:0] src_ip;      // IPv4 in [31:0], first octet in [31:24]
        logic [127:0] dst_ip;
        logic         raw;         // a raw-packet QP (ud 0, mtu 0): a SEND is one whole frame
    } ctx_t;

    // A requester's pick (docs/wqe-dp.md, "The requester's packets"): with en 1 and prep 0 the
    // data path builds packet `index` of the WQE with this PSN and AckReq; with prep 1 it only
    // checks the WQE and counts its packets, what the requester's POST needs. Either answers
    // on m_res instead of a completion. With en 0 the pick is a whole WQE, run to its
    // completion as before.
    typedef struct packed {
        logic        en;
        logic        prep;         // check and count only (index, psn, ack_req unused)
        logic [23:0] index;        // which packet of the message (0-based)
        logic [23:0] psn;
        logic        ack_req;
    } rcp_t;

    // One WQE to run: the packet asked for (if any), which QP slot, where its WQE lies, the
    // slot stride, the context.
    typedef struct packed {
        rcp_t        rcp;
        logic [7:0]  slot;
        logic [63:0] addr;         // host address of the WQE's first block
        logic [2:0]  stride_log2;  // the ring's slot: 2^stride_log2 blocks
        ctx_t        ctx;
    } pick_t;

    // A WQE after the checks: the completion fields read from its bytes as they are, the
    // status the checks gave (ST_SUCCESS: send it), and what sending needs. Its data segments
    // (nsge of them, or inline_words words of inline data) travel in their own FIFOs.
    typedef struct packed {
        logic [7:0]   slot;
        ctx_t         ctx;
        logic [63:0]  wr_id;
        logic [31:0]  index;
        logic [7:0]   opcode_raw;   // the OPCODE byte; the CQE writes 0xFF when it is unknown
        logic         opcode_known;
        logic [4:0]   status;
        logic [1:0]   opcode;       // valid when status is ST_SUCCESS
        logic         signaled;
        logic         solicited;
        logic         inline_en;
        logic [31:0]  len;          // message bytes
        logic [31:0]  imm;
        logic [63:0]  raddr;
        logic [31:0]  rkey;
        logic [23:0]  dqpn;         // UD address vector
        logic [31:0]  qkey;
        logic [127:0] dgid;
        logic [47:0]  dmac;
        logic         vlan;
        logic [11:0]  vid;
        logic [2:0]   pcp;
        logic [19:0]  flow_label;
        logic [7:0]   tclass;
        logic [7:0]   hop_limit;
        logic [4:0]   sges;         // entries pushed to the SGE FIFO for this WQE
        logic [7:0]   inline_words; // words pushed to the inline FIFO for this WQE
        // TSO (opcode 10 on a UD QP, an engine built with TSO): the header template went out
        // on the inline FIFO ahead of the data (ceil(hdr_len / 8) words, in inline_words).
        logic         tso;
        logic [15:0]  mss;
        logic [15:0]  hdr_len;
        // The pick's packet (rcp.en): the planner sets first and last from its index.
        rcp_t         rcp;
        logic         rcp_first;
        logic         rcp_last;
    } wqe_t;

    // One data segment, as the gather stage needs it (the checks are done).
    typedef struct packed {
        logic [63:0] addr;
        logic [31:0] len;
    } sge_t;

    // One packet for the frame builder is wqe_frame_pkg::desc_t (its fields are
    // model/src/wqe/frame.rs's Route and Transport).


    // One completion to write (model::wqe::Cqe without the phase, which the writer adds).
    typedef struct packed {
        logic [63:0] wr_id;
        logic [23:0] qpn;
        logic [31:0] byte_len;
        logic [31:0] index;
        logic [7:0]  opcode;       // 0xFF: unknown
        logic [4:0]  status;
    } cqe_t;

    // Its width, for a module that stores it in a RAM word (Yosys takes no $bits of a type).
    localparam int CQE_BITS = 64 + 24 + 32 + 32 + 8 + 5;

endpackage

`endif  // ROCENIC_WQE_DP_PKG_SV
