// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: the modules that use it include it, so any file order compiles.
`ifndef ROCENIC_RX_CTRL_PKG_SV
`define ROCENIC_RX_CTRL_PKG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Types the receive path's control plane (rx_ctrl) hands to its data path, and the forms it
// stores work queues and receive contexts in. The register encoding is rx_regs_pkg (generated
// from model/src/rx/regs.rs); the meaning of each field is model::rx's (docs/rx.md).
// Types, and the constants of the stored forms (a module uses some of them).
/* verilator lint_off UNUSEDPARAM */
package rx_ctrl_pkg;

    // Work-queue states: the verbs codes of COMMAND.STATE (model::rx::WqState).
    localparam logic [1:0] WQ_RESET = 2'd0;
    localparam logic [1:0] WQ_READY = 2'd1;
    localparam logic [1:0] WQ_ERR   = 2'd2;

    // The message in progress on an RC QP (model::rx's `Message`).
    localparam logic [1:0] MSG_NONE  = 2'd0;
    localparam logic [1:0] MSG_SEND  = 2'd1;
    localparam logic [1:0] MSG_WRITE = 2'd2;

    // The reliable transport's responder state of an RC QP (model::rc::Responder; the block
    // rc_responder applies the rules): all zero when the context is attached.
    typedef struct packed {
        logic [23:0] msn;       // messages completed, modulo 2^24
        logic        nak_sent;  // a NAK was sent, the expected PSN has not arrived since
        logic [7:0]  unacked;   // packets executed since the last ACK
        logic        error;     // the receive side is in ERR: requests dropped unanswered
    } resp_t;

    // What the data path writes back into a receive context after an RC packet: the next PSN it
    // expects, the message in progress and the responder's state. The fields of `msg_addr` and
    // `msg_arg` depend on the kind: a SEND keeps the host address of its WQE and the WQE's
    // WR_ID, a WRITE its RETH's virtual address and DMA length (in msg_arg[31:0]).
    typedef struct packed {
        logic [23:0] epsn;      // the PSN expected next
        logic [1:0]  msg;       // MSG_NONE, MSG_SEND or MSG_WRITE
        logic [7:0]  msg_wq;    // SEND: the queue its WQE came from
        logic [63:0] msg_addr;  // SEND: the WQE's host address; WRITE: the RETH's VA
        logic [63:0] msg_arg;   // SEND: the WQE's WR_ID; WRITE: the RETH's DMA length
        logic [31:0] msg_done;  // bytes of the message taken so far
        resp_t       resp;      // the responder's state
    } rcv_t;

    // A receive context as the data path reads it (ctx_rd): what QP_ATTACH staged and what the
    // data path wrote back since. Only `valid` means anything when it is clear.
    typedef struct packed {
        logic        valid;     // the slot holds a receive context
        logic [23:0] qpn;       // its QP (the slot is the QPN's low bits)
        logic [1:0]  kind;      // QP_TARGET.KIND: 0 its own queue, 1 a shared queue, 2 RSS
        logic [7:0]  wq;        // the queue (kinds 0 and 1)
        logic        ud;        // transport: 0 RC, 1 UD
        logic [2:0]  mtu;       // path MTU code 1..5: 256 << (code - 1) bytes
        logic [31:0] pd;        // protection domain (RDMA WRITE's R_Key check)
        logic [31:0] qkey;      // UD: the Q_Key
        rcv_t        rcv;       // the expected PSN and the message in progress
    } ctx_t;

    // A work queue as the data path reads it (q_rd), with the host addresses of its next WQE and
    // of its next completion worked out. Only `valid` means anything when it is clear.
    typedef struct packed {
        logic        valid;       // the queue exists
        logic [1:0]  state;       // WQ_RESET, WQ_READY or WQ_ERR
        logic        pending;     // a WQE is posted: producer != consumer
        logic        room;        // the completion ring has room for one more
        logic        raw;         // frames that are not RoCEv2 may land here
        logic [23:0] qpn;         // the QP its completions name
        logic [31:0] pd;          // protection domain of its scatter entries
        logic [2:0]  stride_log2; // a WQE slot is 2^stride_log2 blocks of 64 bytes
        logic [31:0] consumer;    // the index of the next WQE to take...
        logic [63:0] wqe_addr;    // ...and its host address
        logic [31:0] cq_producer; // the index of the next completion to write...
        logic [63:0] cqe_addr;    // ...its host address...
        logic        cqe_phase;   // ...and the phase bit it carries (Ring::phase)
    } wq_view_t;

    // The stored forms: block RAM words of three 36-bit columns (rx_ram).
    localparam int COLS = 3;            // columns per word
    localparam int WORD = 36 * COLS;    // bits per word

    // A work queue: two words, written by WQ_WRITE only. Word 0 (the low 108 bits) holds what
    // the WQE's address needs, word 1 what the completion's does.
    typedef struct packed {
        logic [11:0] spare1;
        logic [31:0] pd;          // protection domain of its scatter entries
        logic [63:0] cq_base;     // completion entry 0's host address
        logic [11:0] spare0;
        logic        raw;         // frames that are not RoCEv2 may land here
        logic [4:0]  cq_log2;     // 2^cq_log2 completions
        logic [2:0]  stride_log2; // a WQE slot is 2^stride_log2 blocks of 64 bytes
        logic [4:0]  ring_log2;   // 2^ring_log2 WQEs
        logic [23:0] qpn;         // the QP its completions name
        logic [57:0] ring_base;   // the receive ring's host address, bits 63:6
    } wq_image_t;

    // A receive context: word 0 what QP_ATTACH staged, words 1 to 3 what the data path writes
    // back (rcv_t: the PSN and the message in words 1 and 2, the responder's state in word 3; a
    // slot is four words, so its address is {slot, word}). The message's kind is kept in
    // flip-flops beside it, so that a flush clears every QP's at once.
    typedef struct packed {
        logic [5:0]  spare;
        logic [31:0] qkey;
        logic [31:0] pd;
        logic [2:0]  mtu;
        logic        ud;
        logic [7:0]  wq;
        logic [1:0]  kind;
        logic [23:0] qpn;
    } ctx_static_t;

    typedef struct packed {
        logic [73:0] spare3;
        resp_t       resp;
        logic [23:0] spare;
        logic [31:0] msg_done;
        logic [63:0] msg_arg;
        logic [63:0] msg_addr;
        logic [7:0]  msg_wq;
        logic [23:0] epsn;
    } ctx_dynamic_t;

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
`endif
