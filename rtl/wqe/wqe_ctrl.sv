// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_CTRL_SV
`define ROCENIC_WQE_CTRL_SV
`include "rtl/wqe/wqe_pkg.sv"
`include "rtl/wqe/wqe_regs_pkg.sv"
`include "rtl/wqe/wqe_regs.sv"
`include "rtl/wqe/wqe_err_merge.sv"
`include "rtl/wqe/wqe_qp_table.sv"
`include "rtl/wqe/wqe_mr_keys.sv"
`include "rtl/wqe/wqe_sched.sv"
`include "rtl/wqe/wqe_transport.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The WQE engine's control plane: the AXI4-Lite registers, the QP context table, the memory
// region keys, the send doorbells and the scheduler that hands the data path one WQE at a time.
// docs/wqe-ctrl.md, "Control plane (RTL)", describes the interface and its timing; the map is
// docs/wqe-registers.md.
//
// Parts (one file each; this module wires them and runs the commands):
//   wqe_regs      AXI4-Lite slave, staging registers, configuration, STATUS, counters
//   wqe_qp_table  QP contexts (block RAM), states, next PSNs; QP commands; entropy at RTR
//   wqe_mr_keys   which lkey each memory-region slot holds; MR commands; the MR write port
//   wqe_sched     send and completion ring indices, doorbells, round robin, the pick stream
//   wqe_err_merge the data path's, the transport's and the receive path's moves to ERR into
//                 the table's port
//   wqe_transport (RELIABLE = 1) the reliable transport: the RC slots' turns, acknowledgements,
//                 timers (docs/wqe-reliable.md, "In the engine")
//
// Commands: a COMMAND write sets STATUS.BUSY. The command starts once nothing else can touch
// what it changes: no pick started, being read or offered, none outstanding (every pick has had
// its wqe_retire), and dp_idle. The scheduler starts no pick while BUSY is set. The command
// takes a few cycles (an RC QP's entry into RTR waits for the entropy unit), then BUSY clears
// with STATUS.CMD_ERROR telling whether it was refused. An OP that is no command is refused.
//
// Data-path contract: take a pick (m_pick_*), run it, pulse wqe_retire when it is wholly
// finished (its PSNs taken, its err_set given, its completion written if any); pulse
// cqe_written for each completion as it is written, before software can see it; keep dp_idle
// low from the cycle after a pick is taken until all of that is done.
module wqe_ctrl #(
    parameter  int QPS        = 64,  // QP slots (send queues), a power of two, 4..256
    parameter  int MRS        = 64,  // memory-region table entries, a power of two, 2..256
    parameter  int MAX_SGE    = 16,  // data segments a WQE may have (CAPS only; the data path's)
    parameter  int DATA_BYTES = 8,   // bytes per frame beat (CAPS only; the data path's)
    parameter  int TSO        = 0,   // the data path runs TSO (CAPS only; the data path's)
    parameter  int RELIABLE   = 0,   // 1: the reliable transport (wqe_transport) is built in
    localparam int AW         = wqe_regs_pkg::WQE_ADDR_W,
    localparam int MW         = $clog2(MRS)
) (
    input  wire              clk,
    input  wire              rst,              // synchronous, active high
    // AXI4-Lite slave (wqe_regs)
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
    // picks: one WQE to run (wqe_sched)
    output logic             m_pick_valid,
    input  wire              m_pick_ready,
    output logic [7:0]       m_pick_slot,
    output logic [31:0]      m_pick_index,     // the WQE's ring index (the consumer it took)
    output logic [63:0]      m_pick_addr,      // host address of its first block
    output logic [2:0]       m_pick_stride_log2,
    output wqe_pkg::qp_ctx_t m_pick_ctx,       // its QP, as of the pick (or m_ack's QP)
    output wqe_dp_pkg::rcp_t m_pick_rcp,       // the transport's packet or prepare, else 0
    // the transport (RELIABLE = 1): the data path's answers to its picks, its completions,
    // and the acknowledgements the receive path picks out (rx_path's m_rack_*)
    input  wire              s_res_valid,
    output logic             s_res_ready,
    input  wire  [4:0]       s_res_status,
    input  wire  [23:0]      s_res_packets,
    input  wire              s_res_signaled,
    input  wire  wqe_dp_pkg::cqe_t s_res_cqe,
    output logic             m_cqe_valid,
    input  wire              m_cqe_ready,
    output wqe_dp_pkg::cqe_t m_cqe,
    input  wire              s_rack_valid,
    output logic             s_rack_ready,
    input  wire  [23:0]      s_rack_qpn,
    input  wire  [23:0]      s_rack_psn,
    input  wire  [7:0]       s_rack_syndrome,
    input  wire              s_ack_valid,      // acknowledgements to frame (wqe_sched)
    output logic             s_ack_ready,
    input  wire [23:0]       s_ack_qpn,
    input  wire [23:0]       s_ack_psn,
    input  wire [7:0]        s_ack_syndrome,
    input  wire [23:0]       s_ack_msn,
    output logic             m_ack_valid,      // ... with their QP's route in m_pick_ctx
    input  wire              m_ack_ready,
    output logic [23:0]      m_ack_psn,
    output logic [7:0]       m_ack_syndrome,
    output logic [23:0]      m_ack_msn,
    // data path status
    input  wire              dp_idle,          // nothing in flight (see the contract above)
    input  wire              wqe_retire,       // one cycle per picked WQE finished
    input  wire              cqe_written,      // one cycle per completion written
    input  wire              frame_sent,       // one cycle per frame (FRAMES)...
    input  wire              ack_sent,         // ...and per acknowledgement frame
    input  wire              cq_fault,         // a completion write faulted (STATUS.CQ_FAULT)
    // QP state and PSNs (wqe_qp_table)
    input  wire              err_set_valid,    // move err_set_slot to ERR
    input  wire [7:0]        err_set_slot,
    input  wire              psn_take_valid,   // take psn_take_count PSNs of psn_take_slot...
    input  wire [7:0]        psn_take_slot,
    input  wire [23:0]       psn_take_count,
    output logic [23:0]      psn_take_first,   // ...the first of them, in the next cycle
    output logic [QPS-1:0]   qp_err,           // slots holding a QP in ERR
    // the receive path's view of the slots (rx_path), and its moves to ERR (wqe_err_merge)
    output logic [QPS-1:0]   sq_valid,         // slots holding a QP
    output logic [QPS-1:0]   sq_rcv,           // slots holding a QP in RTR or RTS
    input  wire              rx_err_set_valid, // move rx_err_set_slot to ERR (any cycle)
    input  wire  [7:0]       rx_err_set_slot,
    // configuration
    output logic [47:0]      nic_mac,          // first octet in [47:40]
    output logic [31:0]      nic_ipv4,         // first octet in [31:24]
    output logic [127:0]     nic_ipv6,
    output logic [1:0]       profile,          // entropy profile: 0 linux, 1 rfc-v2, 2 rfc-v1, 3 rxe
    output logic             enable,
    // completion ring (the phase bit is the data path's: producer >> cq_log2, inverted, bit 0)
    output logic [63:0]      cq_base,
    output logic [4:0]       cq_log2,
    output logic [31:0]      cq_producer,      // the index of the next completion to write
    // memory-region table write port (to wqe_mr); the region's fields hold while the command runs
    output logic             mr_wr_valid,      // one cycle
    output logic [MW-1:0]    mr_wr_slot,
    output logic             mr_wr_clear,      // 1: free the slot; 0: write the fields below
    output logic [31:0]      mr_wr_lkey,
    output logic [31:0]      mr_wr_pd,
    output logic [3:0]       mr_wr_access,
    output logic [63:0]      mr_wr_base,
    output logic [63:0]      mr_wr_length
);

    localparam int SW = $clog2(QPS);

    // ------------------------------------------------------------------------------------------
    // Registers.
    wqe_pkg::qp_image_t qp_staged;
    logic        cmd_pending;
    logic [3:0]  cmd_op;
    logic [7:0]  cmd_slot;
    logic [2:0]  cmd_state;
    logic        cmd_done, cmd_error;
    logic        ring_req_valid, ring_req_cq, ring_req_done, ring_req_error;
    logic [7:0]  ring_req_slot;
    logic [31:0] ring_req_value;
    logic        cq_restart, cq_fault_q;
    logic [31:0] cq_consumer;
    logic        quiet, none_outstanding, idle;
    logic        rel_on, rel_idle;
    logic [31:0] rc_timing, rc_clock;

    // STATUS.IDLE: nothing in flight, an acknowledgement waiting included. A command does not
    // wait for that one (it waits for the command: ack_hold), only for what has begun.
    logic ack_waiting;
    assign idle = !cmd_pending && quiet && none_outstanding && dp_idle && !ack_waiting && rel_idle;

    wqe_regs #(
        .QPS       (QPS),
        .MRS       (MRS),
        .MAX_SGE   (MAX_SGE),
        .DATA_BYTES(DATA_BYTES),
        .TSO       (TSO),
        .RELIABLE  (RELIABLE)
    ) u_regs (
        .clk, .rst,
        .s_axil_awvalid, .s_axil_awready, .s_axil_awaddr, .s_axil_wvalid, .s_axil_wready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_bvalid, .s_axil_bready, .s_axil_bresp,
        .s_axil_arvalid, .s_axil_arready, .s_axil_araddr, .s_axil_rvalid, .s_axil_rready,
        .s_axil_rdata, .s_axil_rresp,
        .enable, .profile, .reliable(rel_on), .rc_timing, .rc_clock, .nic_mac, .nic_ipv4, .nic_ipv6, .cq_base, .cq_log2, .cq_restart,
        .qp_staged,
        .mr_lkey  (mr_wr_lkey),
        .mr_pd    (mr_wr_pd),
        .mr_access(mr_wr_access),
        .mr_base  (mr_wr_base),
        .mr_length(mr_wr_length),
        .cmd_pending, .cmd_op, .cmd_slot, .cmd_state, .cmd_done, .cmd_error,
        .ring_req_valid, .ring_req_cq, .ring_req_slot, .ring_req_value, .ring_req_done,
        .ring_req_error,
        .idle,
        .cq_fault_in(cq_fault),
        .cq_fault   (cq_fault_q),
        .cq_consumer, .cq_producer, .wqe_retire, .frame_sent, .ack_sent
    );

    // ------------------------------------------------------------------------------------------
    // Commands: start one when nothing runs, send it to its unit, gather the answer.
    // Whether the pending command may start, registered. Sampled while the command is pending,
    // so no pick can start any more (the scheduler's pipeline holds none), and once true it stays
    // true: nothing is left to give the data path work.
    logic started_q, may_start_q;
    wire  start   = cmd_pending && !started_q && may_start_q;
    wire  is_qp   = cmd_op == wqe_regs_pkg::WQE_OP_QP_WRITE
                 || cmd_op == wqe_regs_pkg::WQE_OP_QP_MODIFY
                 || cmd_op == wqe_regs_pkg::WQE_OP_QP_DESTROY;
    wire  is_mr   = cmd_op == wqe_regs_pkg::WQE_OP_MR_WRITE
                 || cmd_op == wqe_regs_pkg::WQE_OP_MR_CLEAR;
    logic qp_done, qp_error, mr_done, mr_error, bad_done_q;

    assign cmd_done  = qp_done || mr_done || bad_done_q;
    assign cmd_error = qp_done ? qp_error : mr_done ? mr_error : 1'b1;

    always_ff @(posedge clk) begin
        if (rst) begin
            started_q   <= 1'b0;
            bad_done_q  <= 1'b0;
            may_start_q <= 1'b0;
        end else begin
            may_start_q <= cmd_pending && quiet && none_outstanding && dp_idle && rel_idle;
            bad_done_q <= start && !is_qp && !is_mr;
            if (start) begin
                started_q <= 1'b1;
            end
            if (cmd_done) begin
                started_q <= 1'b0;
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // QP table, memory-region keys, scheduler.
    logic [QPS-1:0] valid, runnable, pending, rel_rc, rel_live;
    logic           rel_err_valid;
    logic [7:0]     rel_err_slot;
    logic           turn_valid, turn_ready, turn_done;
    logic [SW-1:0]  turn_slot;
    logic           rpick_valid, rpick_ready, rpick_take;
    logic [SW-1:0]  rpick_slot;
    logic [31:0]    rpick_index;
    wqe_dp_pkg::rcp_t rpick_rcp;
    logic           err_valid;
    logic [7:0]     err_slot;

    assign sq_valid = valid;

    wqe_err_merge #(
        .QPS(QPS)
    ) u_err (
        .clk, .rst,
        .dp_valid (err_set_valid),
        .dp_slot  (err_set_slot),
        .rel_valid(rel_err_valid),
        .rel_slot (rel_err_slot),
        .rx_valid (rx_err_set_valid),
        .rx_slot  (rx_err_set_slot),
        .hold     (cmd_pending),
        .err_valid, .err_slot
    );
    logic           ring_clr;
    logic [SW-1:0]  ring_clr_slot;
    logic [4:0]     ring_clr_log2;
    logic           rd_en;
    logic [SW-1:0]  rd_slot;
    logic [2:0]     rd_word;
    logic [wqe_pkg::CTX_WORD-1:0] rd_data;

    wqe_qp_table #(
        .QPS(QPS)
    ) u_table (
        .clk, .rst,
        .cmd_start(start && is_qp),
        .cmd_op, .cmd_slot, .cmd_state,
        .staged   (qp_staged),
        .profile,
        .cmd_done (qp_done),
        .cmd_error(qp_error),
        .ring_clr, .ring_clr_slot, .ring_clr_log2,
        .rd_en, .rd_slot, .rd_word, .rd_data,
        .valid, .runnable, .rcv(sq_rcv), .qp_err,
        .err_set_valid(err_valid), .err_set_slot(err_slot),
        .psn_take_valid, .psn_take_slot, .psn_take_count, .psn_take_first
    );

    wqe_mr_keys #(
        .MRS(MRS)
    ) u_mr_keys (
        .clk, .rst,
        .cmd_start(start && is_mr),
        .cmd_clear(cmd_op == wqe_regs_pkg::WQE_OP_MR_CLEAR),
        .lkey     (mr_wr_lkey),
        .cmd_done (mr_done),
        .cmd_error(mr_error),
        .mr_wr_valid, .mr_wr_slot, .mr_wr_clear
    );

    wqe_sched #(
        .QPS(QPS)
    ) u_sched (
        .clk, .rst,
        .enable,
        .hold(cmd_pending || cq_fault_q),
        .ack_hold(cmd_pending),
        .valid, .runnable,
        .s_ack_valid, .s_ack_ready, .s_ack_qpn, .s_ack_psn, .s_ack_syndrome, .s_ack_msn,
        .m_ack_valid, .m_ack_ready, .m_ack_psn, .m_ack_syndrome, .m_ack_msn,
        .ring_req_valid, .ring_req_cq, .ring_req_slot, .ring_req_value, .ring_req_done,
        .ring_req_error,
        .ring_clr, .ring_clr_slot, .ring_clr_log2,
        .cq_log2, .cq_restart, .cqe_written, .wqe_retire,
        .cq_producer, .cq_consumer,
        .rd_en, .rd_slot, .rd_word, .rd_data,
        .m_pick_valid, .m_pick_ready, .m_pick_slot, .m_pick_index, .m_pick_addr,
        .m_pick_stride_log2, .m_pick_ctx, .m_pick_rcp,
        .rel_rc, .rel_live,
        .m_turn_valid(turn_valid), .m_turn_ready(turn_ready), .m_turn_slot(turn_slot),
        .turn_done,
        .s_rpick_valid(rpick_valid), .s_rpick_ready(rpick_ready), .s_rpick_slot(rpick_slot),
        .s_rpick_take(rpick_take), .s_rpick_index(rpick_index), .s_rpick_rcp(rpick_rcp),
        .pending,
        .quiet, .none_outstanding, .ack_waiting
    );

    // ------------------------------------------------------------------------------------------
    // The reliable transport.
    if (RELIABLE != 0) begin : g_rel
        wqe_transport #(
            .QPS(QPS)
        ) u_transport (
            .clk, .rst,
            .on              (rel_on),
            .cfg_timeout     (rc_timing[wqe_regs_pkg::WQE_RC_TIMING_TIMEOUT_LSB +: 5]),
            .cfg_retry_cnt   (rc_timing[wqe_regs_pkg::WQE_RC_TIMING_RETRY_CNT_LSB +: 3]),
            .cfg_rnr_retry   (rc_timing[wqe_regs_pkg::WQE_RC_TIMING_RNR_RETRY_LSB +: 3]),
            .cfg_max_inflight(rc_timing[wqe_regs_pkg::WQE_RC_TIMING_MAX_INFLIGHT_LSB +: 8]),
            .cfg_scale       (rc_clock[wqe_regs_pkg::WQE_RC_CLOCK_SCALE_LSB +: 16]),
            .cfg_tick        (rc_clock[wqe_regs_pkg::WQE_RC_CLOCK_TICK_LSB +: 16]),
            .hold            (cmd_pending),
            .idle            (rel_idle),
            .valid, .runnable, .qp_err, .pending,
            .qp_write        (qp_done && !qp_error && cmd_op == wqe_regs_pkg::WQE_OP_QP_WRITE),
            .qp_destroy      (qp_done && !qp_error && cmd_op == wqe_regs_pkg::WQE_OP_QP_DESTROY),
            .cmd_slot        (cmd_slot[SW-1:0]),
            .qp_rc           (!qp_staged.ud && !qp_staged.raw),
            .qp_qpn          (qp_staged.qpn),
            .qp_psn          (qp_staged.first_psn),
            .rel_rc, .rel_live,
            .s_turn_valid(turn_valid), .s_turn_ready(turn_ready), .s_turn_slot(turn_slot),
            .turn_done,
            .m_rpick_valid(rpick_valid), .m_rpick_ready(rpick_ready), .m_rpick_slot(rpick_slot),
            .m_rpick_take(rpick_take), .m_rpick_index(rpick_index), .m_rpick_rcp(rpick_rcp),
            .prep_taken      (m_pick_valid && m_pick_ready && m_pick_rcp.en && m_pick_rcp.prep),
            .prep_index      (m_pick_index),
            .s_res_valid, .s_res_ready, .s_res_status, .s_res_packets, .s_res_signaled,
            .s_res_cqe,
            .m_cqe_valid, .m_cqe_ready, .m_cqe,
            .m_err_valid     (rel_err_valid),
            .m_err_slot      (rel_err_slot),
            .s_rack_valid, .s_rack_ready, .s_rack_qpn, .s_rack_psn, .s_rack_syndrome
        );
        // RC_TIMING's bits between its fields, RC_CLOCK's all in use.
        wire unused_timing = ^{rc_timing[31:24], rc_timing[15], rc_timing[11], rc_timing[7:5]};
    end else begin : g_no_rel
        assign rel_idle      = 1'b1;
        assign rel_rc        = '0;
        assign rel_live      = '0;
        assign rel_err_valid = 1'b0;
        assign rel_err_slot  = '0;
        assign turn_ready    = 1'b0;
        assign turn_done     = 1'b0;
        assign rpick_valid   = 1'b0;
        assign rpick_slot    = '0;
        assign rpick_take    = 1'b0;
        assign rpick_index   = '0;
        assign rpick_rcp     = '0;
        assign s_res_ready   = 1'b1;
        assign m_cqe_valid   = 1'b0;
        assign m_cqe         = '0;
        assign s_rack_ready  = 1'b1;
        wire unused_rel = ^{rel_on, rc_timing, rc_clock, pending, turn_valid, turn_slot,
                            rpick_ready, s_res_valid, s_res_status, s_res_packets,
                            s_res_signaled, s_res_cqe, m_cqe_ready, s_rack_valid, s_rack_qpn,
                            s_rack_psn, s_rack_syndrome};
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_CTRL_SV
