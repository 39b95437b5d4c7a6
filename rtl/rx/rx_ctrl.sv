// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CTRL_SV
`define ROCENIC_RX_CTRL_SV
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_regs_pkg.sv"
`include "rtl/rx/rx_regs.sv"
`include "rtl/rx/rx_wq_table.sv"
`include "rtl/rx/rx_rings.sv"
`include "rtl/rx/rx_ctx_table.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive path's control plane: the AXI4-Lite registers, the work-queue table with its ring
// indices, the receive contexts, the commands, and the flush pick. docs/rx.md, "rx_ctrl (RTL)",
// describes the data-path interface and its timing; the map is docs/rx-registers.md.
//
// Parts (one file each; this module wires them, starts the commands and runs the flush steps):
//   rx_regs       AXI4-Lite slave, staging registers, CONTROL, STATUS, counters
//   rx_wq_table   work queues: configuration (block RAM), valid bits and states; WQ commands;
//                 queue reads; ERR; the flush pick
//   rx_rings      each queue's receive and completion ring indices (LUT RAM), pending and room
//                 bits; doorbells, completion consumer writes, takes, pushes
//   rx_ctx_table  receive contexts (block RAM), valid bits and message kinds; QP commands;
//                 context reads and write-backs; the flush rule; the pick of a SEND in progress
//
// Commands: a COMMAND write sets STATUS.BUSY (cmd_pending). The command starts once the data
// path is idle (dp_idle) and nothing it gave is still being stored; the data path starts no frame
// and no flush step while cmd_pending is high. A few cycles later BUSY clears, with
// STATUS.CMD_ERROR telling whether it was refused. An OP that is no command is refused.
//
// Data-path contract: start work (a frame or a flush step) only in a cycle where cmd_pending is
// low, and keep dp_idle low from the cycle after until its last operation has been given. One
// read per port at a time; no write-back of a context while a read of it is under way; at most
// one write-back every two cycles; take (push) only from a queue it read with a WQE pending
// (room), and not twice within three cycles. A flush step: flush_req, then nothing until
// flush_done (and no flush_req within three cycles of an earlier take, push, ERR or write-back).
// Its answer: a QP in ERR whose SEND in progress holds a WQE (flush_ip: the lowest such slot
// whose queue has room; its queue, QP and WR_ID; rx_ctrl forgets the message), else the lowest
// queue in ERR with a WQE posted and room (flush_wq), else nothing. It reflects the state of
// PICK_LAG cycles before flush_done: while SENDs in progress are looked at, doorbells and
// completion consumer writes wait before they store, so that nothing it reads moves meanwhile.
//
// STATUS.IDLE (docs/rx.md, "Idle"): no command pending and, while disabled, dp_idle; while
// enabled, no frame in the path (frame_in_path, from the path's input to the frame's end) and
// the last flush step found nothing, having started after the last change that could give it
// work (a QP's ERR bit, a doorbell or completion consumer write, a command) with no frame since.
module rx_ctrl #(
    parameter  int WQS        = 64,  // work queues, a power of two, 4..256 (CAPS.WQS)
    parameter  int QPS        = 64,  // receive-context slots, the send side's QPS (CAPS.QPS)
    parameter  int MAX_SGE    = 63,  // scatter entries a receive WQE may have (CAPS only)
    parameter  int DATA_BYTES = 8,   // bytes per frame beat (CAPS only; the data path's)
    parameter  bit RESPONDER  = 1,   // the data path has the RC responder (CONTROL.RESPONDER)
    parameter  bit REQUESTER  = 0,   // the data path hands Acknowledge frames to a requester
                                     // (CONTROL.REQUESTER)
    localparam int AW         = rx_regs_pkg::RX_ADDR_W,
    localparam int WW         = $clog2(WQS),
    localparam int SW         = $clog2(QPS)
) (
    input  wire              clk,
    input  wire              rst,              // synchronous, active high
    // AXI4-Lite slave (rx_regs)
    input  wire              s_axil_awvalid,
    output logic             s_axil_awready,
    input  wire [AW-1:0]     s_axil_awaddr,
    input  wire              s_axil_wvalid,
    output logic             s_axil_wready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    output logic             s_axil_bvalid,
    input  wire              s_axil_bready,
    output logic [1:0]       s_axil_bresp,
    input  wire              s_axil_arvalid,
    output logic             s_axil_arready,
    input  wire [AW-1:0]     s_axil_araddr,
    output logic             s_axil_rvalid,
    input  wire              s_axil_rready,
    output logic [31:0]      s_axil_rdata,
    output logic [1:0]       s_axil_rresp,
    // control
    output logic             enable,           // CONTROL.ENABLE: take frames
    output logic             responder,        // CONTROL.RESPONDER, .ACK_EVERY, .RNR_TIMER:
    output logic [7:0]       ack_every,        // the RC responder and its settings
    output logic [4:0]       rnr_timer,
    output logic             requester,        // CONTROL.REQUESTER: Acknowledge frames out
    output logic             cmd_pending,      // a command waits: start nothing
    input  wire              dp_idle,          // the data path has nothing in flight
    input  wire              frame_in_path,    // a frame is between the input and its end
    // the send side's QP slots
    input  wire [QPS-1:0]    sq_valid,         // holding a QP (QP_ATTACH needs it)
    input  wire [QPS-1:0]    qp_err,           // holding a QP in ERR (the flush rule)
    // receive contexts
    input  wire              ctx_rd_valid,
    input  wire [7:0]        ctx_rd_slot,      // < QPS
    output logic             ctx_rd_done,      // C_LAG cycles after ctx_rd_valid...
    output rx_ctrl_pkg::ctx_t ctx_rd,          // ...the context, held until the next read
    input  wire              ctx_wr_valid,     // write back a context's PSN and message
    input  wire [7:0]        ctx_wr_slot,
    input  rx_ctrl_pkg::rcv_t ctx_wr,
    // work queues
    input  wire              q_rd_valid,
    input  wire [7:0]        q_rd_wq,          // < WQS
    output logic             q_rd_done,        // Q_LAG cycles after q_rd_valid...
    output rx_ctrl_pkg::wq_view_t q_rd,        // ...the queue, held until the next read
    input  wire              take_valid,       // the queue's next WQE is taken (consumer + 1)
    input  wire [7:0]        take_wq,
    input  wire              push_valid,       // a completion is written (producer + 1)
    input  wire [7:0]        push_wq,
    input  wire              wq_err_valid,     // the queue goes to ERR
    input  wire [7:0]        wq_err_wq,
    // flush steps
    input  wire              flush_req,        // one cycle
    output logic             flush_done,       // one cycle...
    output logic             flush_found,      // ...whether there is a WQE to flush...
    output logic [7:0]       flush_wq,         // ...its queue...
    output logic             flush_ip,         // ...a SEND's in progress (else a posted one)...
    output logic [23:0]      flush_qpn,        // ...whose QP...
    output logic [63:0]      flush_wr_id,      // ...and WR_ID are these (all held)
    // counters and faults
    input  wire              accepted,         // a frame was taken (ACCEPTED)
    input  wire              ack_taken,        // an Acknowledge left for the requester (ACKS)
    input  wire              discard_valid,    // a frame was discarded...
    input  wire [3:0]        discard_reason,   // ...for this model::rx::Discard (DISCARDS)
    input  wire              cq_fault          // a completion write faulted (STATUS.CQ_FAULT)
);

    // ------------------------------------------------------------------------------------------
    // Registers.
    logic [31:0] wq_qpn, wq_pd, wq_flags, qp_qpn, qp_target, qp_epsn, qp_flags, qp_pd, qp_qkey;
    logic [63:0] wq_ring_base, wq_cq_base;
    logic [3:0]  cmd_op;
    logic [7:0]  cmd_wq;
    logic [1:0]  cmd_state;
    logic        cmd_done, cmd_error;
    logic        ring_req_valid, ring_req_cq, ring_req_done, ring_req_error;
    logic [7:0]  ring_req_wq;
    logic [31:0] ring_req_value;
    logic        idle;             // STATUS.IDLE (below)
    logic [WW-1:0] cq_rd_wq;
    logic [31:0] cq_rd_producer;
    logic [WQS-1:0] wq_valid, pending, room;
    logic        flush_busy;

    rx_regs #(
        .WQS       (WQS),
        .QPS       (QPS),
        .MAX_SGE   (MAX_SGE),
        .DATA_BYTES(DATA_BYTES),
        .RESPONDER (RESPONDER),
        .REQUESTER (REQUESTER)
    ) u_regs (
        .clk, .rst,
        .s_axil_awvalid, .s_axil_awready, .s_axil_awaddr, .s_axil_wvalid, .s_axil_wready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_bvalid, .s_axil_bready, .s_axil_bresp,
        .s_axil_arvalid, .s_axil_arready, .s_axil_araddr, .s_axil_rvalid, .s_axil_rready,
        .s_axil_rdata, .s_axil_rresp,
        .enable, .responder, .requester, .ack_every, .rnr_timer,
        .wq_qpn, .wq_pd, .wq_flags, .wq_ring_base, .wq_cq_base,
        .qp_qpn, .qp_target, .qp_epsn, .qp_flags, .qp_pd, .qp_qkey,
        .cmd_pending, .cmd_op, .cmd_wq, .cmd_state, .cmd_done, .cmd_error,
        .ring_req_valid, .ring_req_cq, .ring_req_wq, .ring_req_value, .ring_req_done,
        .ring_req_error,
        .cq_rd_wq, .cq_rd_producer, .wq_valid,
        .idle       (idle),
        .cq_fault_in(cq_fault),
        .accepted, .ack_taken, .discard_valid, .discard_reason
    );

    // ------------------------------------------------------------------------------------------
    // STATUS.IDLE. While enabled the data path runs flush steps back to back between frames,
    // so dp_idle stays low; idle then means that the last step found nothing and that nothing
    // a step reads changed since it started (clean_q), with no frame in between.
    logic [QPS-1:0] qp_err_q;
    logic           clean_q, quiet_q;
    wire            change = qp_err != qp_err_q || ring_req_done || cmd_pending;

    assign idle = !cmd_pending && (enable ? quiet_q && !frame_in_path : dp_idle);

    always_ff @(posedge clk) begin
        qp_err_q <= qp_err;
        if (rst) begin
            clean_q <= 1'b0;
            quiet_q <= 1'b0;
        end else begin
            if (flush_req) begin
                clean_q <= 1'b1;   // the step reads the qp_err of this cycle
            end else if (change) begin
                clean_q <= 1'b0;
            end
            if (flush_done) begin
                quiet_q <= !flush_found && clean_q && !change && !frame_in_path;
            end else if (change || frame_in_path) begin
                quiet_q <= 1'b0;
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // Commands: start one when the data path is idle and its operations are stored, send it to
    // its table, gather the answer. Whether it may start is registered; sampled while the
    // command is pending, when the data path starts nothing, so once true it stays true.
    logic rings_busy, err_busy, wr_busy, sweep_busy;
    logic started_q, may_start_q, bad_done_q, start_wq_q, start_qp_q;
    logic wq_done, wq_error, qp_done, qp_error;
    wire  quiet = !rings_busy && !err_busy && !wr_busy && !sweep_busy && !flush_busy;
    wire  start = cmd_pending && !started_q && may_start_q;
    wire  is_wq = cmd_op == rx_regs_pkg::RX_OP_WQ_WRITE || cmd_op == rx_regs_pkg::RX_OP_WQ_MODIFY
               || cmd_op == rx_regs_pkg::RX_OP_WQ_DESTROY;
    wire  is_qp = cmd_op == rx_regs_pkg::RX_OP_QP_ATTACH || cmd_op == rx_regs_pkg::RX_OP_QP_DETACH;

    assign cmd_done  = wq_done || qp_done || bad_done_q;
    assign cmd_error = wq_done ? wq_error : qp_done ? qp_error : 1'b1;

    always_ff @(posedge clk) begin
        if (rst) begin
            started_q   <= 1'b0;
            bad_done_q  <= 1'b0;
            may_start_q <= 1'b0;
            start_wq_q  <= 1'b0;
            start_qp_q  <= 1'b0;
        end else begin
            may_start_q <= cmd_pending && dp_idle && quiet;
            // The table's start is registered: it enables many flip-flops there.
            start_wq_q  <= start && is_wq;
            start_qp_q  <= start && is_qp;
            bad_done_q  <= start && !is_wq && !is_qp;
            if (start) begin
                started_q <= 1'b1;
            end
            if (cmd_done) begin
                started_q <= 1'b0;
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // Flush steps: the rule first (the contexts' sweep, and its ERRs stored), then both picks,
    // a SEND in progress (rx_ctx_table) before a posted WQE (rx_wq_table); the answer once both
    // are in.
    logic pick_start, sweep_valid, pick_done, pick_found;
    logic [7:0] pick_wq;
    logic ip_done, ip_found, ip_hold;
    logic [7:0] ip_wq;
    logic [23:0] ip_qpn;
    logic [63:0] ip_wr_id;
    logic pk_in_q, ip_in_q;
    logic [WW-1:0] sweep_wq;
    typedef enum logic [1:0] {F_IDLE, F_SWEEP, F_PICK} fstate_t;
    fstate_t f_q;

    assign pick_start = f_q == F_SWEEP && !sweep_busy && !err_busy;
    assign flush_busy = f_q != F_IDLE;
    wire picked = (pick_done || pk_in_q) && (ip_done || ip_in_q);

    always_ff @(posedge clk) begin
        if (rst) begin
            f_q        <= F_IDLE;
            pk_in_q    <= 1'b0;
            ip_in_q    <= 1'b0;
            flush_done <= 1'b0;
        end else begin
            flush_done <= 1'b0;
            case (f_q)
                F_IDLE:  if (flush_req) f_q <= F_SWEEP;
                F_SWEEP: if (pick_start) f_q <= F_PICK;
                F_PICK: begin
                    pk_in_q <= pk_in_q || pick_done;
                    ip_in_q <= ip_in_q || ip_done;
                    if (picked) begin
                        f_q        <= F_IDLE;
                        pk_in_q    <= 1'b0;
                        ip_in_q    <= 1'b0;
                        flush_done <= 1'b1;
                    end
                end
                default: f_q <= F_IDLE;
            endcase
        end
        if (f_q == F_PICK && picked) begin
            flush_found <= ip_found || pick_found;
            flush_wq    <= ip_found ? ip_wq : pick_wq;
            flush_ip    <= ip_found;
            flush_qpn   <= ip_qpn;
            flush_wr_id <= ip_wr_id;
        end
    end

    // ------------------------------------------------------------------------------------------
    // The tables.
    logic          clr_valid, clr_shape;
    logic [WW-1:0] clr_wq;
    logic [4:0]    clr_ring_log2, clr_cq_log2;
    logic          ref_valid, ref_inc;
    logic [WW-1:0] ref_wq, view_wq;
    logic [31:0]   view_consumer, view_cq_producer;
    logic [4:0]    view_ring_log2, view_cq_log2;

    rx_wq_table #(
        .WQS(WQS),
        .QPS(QPS)
    ) u_wqs (
        .clk, .rst,
        .cmd_start(start_wq_q),
        .cmd_op, .cmd_wq, .cmd_state,
        .st_qpn       (wq_qpn),
        .st_pd        (wq_pd),
        .st_flags     (wq_flags),
        .st_ring_base (wq_ring_base),
        .st_cq_base   (wq_cq_base),
        .cmd_done     (wq_done),
        .cmd_error    (wq_error),
        .clr_valid, .clr_wq, .clr_shape, .clr_ring_log2, .clr_cq_log2,
        .ref_valid, .ref_inc, .ref_wq,
        .valid        (wq_valid),
        .pending, .room,
        .err_valid    (wq_err_valid),
        .err_wq       (wq_err_wq[WW-1:0]),
        .sweep_valid, .sweep_wq, .err_busy,
        .q_rd_valid,
        .q_rd_wq      (q_rd_wq[WW-1:0]),
        .q_rd_done, .q_rd,
        .view_wq, .view_consumer, .view_cq_producer, .view_ring_log2, .view_cq_log2,
        .pick_start, .pick_done, .pick_found, .pick_wq
    );

    rx_rings #(
        .WQS(WQS)
    ) u_rings (
        .clk, .rst,
        .valid        (wq_valid),
        .ring_req_valid, .ring_req_cq, .ring_req_wq, .ring_req_value, .ring_req_done,
        .ring_req_error,
        .clr_valid, .clr_wq, .clr_shape, .clr_ring_log2, .clr_cq_log2,
        .take_valid,
        .take_wq      (take_wq[WW-1:0]),
        .push_valid,
        .push_wq      (push_wq[WW-1:0]),
        .pending, .room,
        .hold         (ip_hold),
        .view_wq, .view_consumer, .view_cq_producer, .view_ring_log2, .view_cq_log2,
        .axil_wq          (cq_rd_wq),
        .axil_cq_producer (cq_rd_producer),
        .busy         (rings_busy)
    );

    rx_ctx_table #(
        .QPS(QPS),
        .WQS(WQS)
    ) u_ctxs (
        .clk, .rst,
        .cmd_start(start_qp_q),
        .cmd_op,
        .st_qpn   (qp_qpn),
        .st_target(qp_target),
        .st_epsn  (qp_epsn),
        .st_flags (qp_flags),
        .st_pd    (qp_pd),
        .st_qkey  (qp_qkey),
        .sq_valid, .wq_valid,
        .cmd_done (qp_done),
        .cmd_error(qp_error),
        .ref_valid, .ref_inc, .ref_wq,
        .ctx_rd_valid,
        .ctx_rd_slot(ctx_rd_slot[SW-1:0]),
        .ctx_rd_done, .ctx_rd,
        .ctx_wr_valid,
        .ctx_wr_slot(ctx_wr_slot[SW-1:0]),
        .ctx_wr,
        .wr_busy,
        .sweep_start(flush_req),
        .qp_err, .sweep_valid, .sweep_wq, .sweep_busy,
        .room,
        .ip_start (pick_start),
        .ip_done, .ip_found, .ip_wq, .ip_qpn, .ip_wr_id, .ip_hold
    );

    // The slot and queue bits above an index (the data path gives indices below QPS and WQS).
    wire unused_idx = ^{ctx_rd_slot, ctx_wr_slot, q_rd_wq, take_wq, push_wq, wq_err_wq};

endmodule

`resetall

`endif  // ROCENIC_RX_CTRL_SV
