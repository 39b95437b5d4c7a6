// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_TRANSPORT_SV
`define ROCENIC_WQE_TRANSPORT_SV
`include "rtl/rc/rc_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/rc/rc_timer.sv"
`include "rtl/wqe/wqe_reliable.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The reliable transport in the engine's control plane (docs/wqe-reliable.md, "In the
// engine"): wqe_reliable, and what joins it to the scheduler, the QP table, the data path and
// the receive path, as model::wqe::Queues joins RcSend to its send queues.
//
//   - Which slots are its: those holding an RC QP (QP_WRITE says, QP_DESTROY clears) while
//     RC_CONTROL.ON is set. A QP_WRITE of an RC QP starts its slot's requester afresh at the
//     QP's first PSN, with the NIC's settings (RC_TIMING); the scheduler starts nothing while
//     that INIT waits.
//   - Its clock: a tick every RC_CLOCK.TICK cycles (`now` counts them); each tick asks for a
//     sweep (TICK every RC slot, ABORT those moved to ERR elsewhere). A sweep waiting goes
//     before the next turn, except right after a sweep, so that a tick shorter than a sweep
//     cannot starve the turns; ticks that pass meanwhile still count in `now`.
//   - Turns: the scheduler's round robin hands over an RC slot's turn (s_turn); it runs as a
//     step on that slot alone, and turn_done ends it. The turn's picks (prepare, packet) and
//     flushes go back to the scheduler (m_rpick, through a register), which reads the QP's
//     context and hands them to the data path; the data path's answers come back on s_res, a
//     prepare's with the ring index the scheduler took (latched here as the pick left).
//   - Acknowledgements (the receive path's m_rack_*): the slot is QPN mod QPS; one whose slot
//     holds no RC QP of that QPN is dropped, as the model drops one with no requester. The
//     RNR delay of its timer code comes from rc_timer (the local ACK timeout of INIT is the
//     same shift the timer does, done here).
//   - Nothing is started while `hold` (a command pending), so that no move to ERR meets a
//     command's write; `idle` tells the command logic when all that started has finished.
module wqe_transport #(
    parameter  int QPS    = 64,   // QP slots, a power of two, 4..256
    parameter  int TIME_W = 48,   // the clock's and the requester's deadlines' width
    localparam int SW     = $clog2(QPS)
) (
    input  wire                  clk,
    input  wire                  rst,              // synchronous, active high
    // registers (wqe_regs)
    input  wire                  on,               // RC_CONTROL.ON
    input  wire  [4:0]           cfg_timeout,      // RC_TIMING.TIMEOUT: verbs `timeout`
    input  wire  [2:0]           cfg_retry_cnt,    // RC_TIMING.RETRY_CNT
    input  wire  [2:0]           cfg_rnr_retry,    // RC_TIMING.RNR_RETRY (7: forever)
    input  wire  [7:0]           cfg_max_inflight, // RC_TIMING.MAX_INFLIGHT: the window
    input  wire  [15:0]          cfg_scale,        // RC_CLOCK.SCALE: ticks per 4.096 us, 1 or more
    input  wire  [15:0]          cfg_tick,         // RC_CLOCK.TICK: cycles per tick, 1 or more
    input  wire                  hold,             // a command pending: start nothing
    output logic                 idle,             // nothing started and unfinished
    // the QP table and the commands
    input  wire  [QPS-1:0]       valid,            // slots holding a QP
    input  wire  [QPS-1:0]       runnable,         // ... in RTS or ERR
    input  wire  [QPS-1:0]       qp_err,           // ... in ERR
    input  wire  [QPS-1:0]       pending,          // ... with WQEs posted (the scheduler's)
    input  wire                  qp_write,         // one cycle: a QP_WRITE of slot cmd_slot done
    input  wire                  qp_destroy,       // one cycle: a QP_DESTROY of cmd_slot done
    input  wire  [SW-1:0]        cmd_slot,
    input  wire                  qp_rc,            // the QP written is RC
    input  wire  [23:0]          qp_qpn,
    input  wire  [23:0]          qp_psn,           // its first PSN
    // the scheduler
    output logic [QPS-1:0]       rel_rc,           // slots whose turns are the transport's
    output logic [QPS-1:0]       rel_live,         // ... with a failure held or requests outstanding
    input  wire                  s_turn_valid,
    output logic                 s_turn_ready,
    input  wire  [SW-1:0]        s_turn_slot,
    output logic                 turn_done,        // one cycle
    output logic                 m_rpick_valid,
    input  wire                  m_rpick_ready,
    output logic [SW-1:0]        m_rpick_slot,
    output logic                 m_rpick_take,
    output logic [31:0]          m_rpick_index,
    output wqe_dp_pkg::rcp_t     m_rpick_rcp,
    input  wire                  prep_taken,       // one cycle: a prepare pick left for the data path...
    input  wire  [31:0]          prep_index,       // ... with this ring index
    // the data path
    input  wire                  s_res_valid,
    output logic                 s_res_ready,
    input  wire  [4:0]           s_res_status,
    input  wire  [23:0]          s_res_packets,
    input  wire                  s_res_signaled,
    input  wire  wqe_dp_pkg::cqe_t s_res_cqe,
    output logic                 m_cqe_valid,
    input  wire                  m_cqe_ready,
    output wqe_dp_pkg::cqe_t     m_cqe,
    output logic                 m_err_valid,      // one cycle: move m_err_slot's QP to ERR
    output logic [7:0]           m_err_slot,
    // acknowledgements (the receive path's m_rack_*)
    input  wire                  s_rack_valid,
    output logic                 s_rack_ready,
    input  wire  [23:0]          s_rack_qpn,
    input  wire  [23:0]          s_rack_psn,
    input  wire  [7:0]           s_rack_syndrome
);

    // ---- the slots ------------------------------------------------------------------------------
    logic [QPS-1:0]  rc_q;
    (* ram_style = "distributed" *) logic [23:0] qpn_s [QPS];
    always_ff @(posedge clk) begin
        if (rst) begin
            rc_q <= '0;
        end else if (qp_write || qp_destroy) begin
            rc_q[cmd_slot] <= qp_write && qp_rc;
        end
        if (qp_write) begin
            qpn_s[cmd_slot] <= qp_qpn;
        end
    end
    // A register: ON and the slots change only between commands.
    always_ff @(posedge clk) begin
        if (rst) begin
            rel_rc <= '0;
        end else begin
            rel_rc <= on ? rc_q & valid : '0;
        end
    end

    // INIT, waiting for the block to take it.
    logic              init_q;
    logic [SW-1:0]     init_slot_q;
    logic [23:0]       init_psn_q;
    logic [TIME_W-1:0] timeout_q;
    always_ff @(posedge clk) begin
        timeout_q <= cfg_timeout == 5'd0 ? '0 : TIME_W'(cfg_scale) << cfg_timeout;
        if (rst) begin
            init_q <= 1'b0;
        end else if (qp_write && qp_rc) begin
            init_q      <= 1'b1;
            init_slot_q <= cmd_slot;
            init_psn_q  <= qp_psn;
        end else if (init_q && init_ready) begin
            init_q <= 1'b0;
        end
    end
    logic init_ready;

    // ---- the clock ------------------------------------------------------------------------------
    logic [15:0]       tick_cnt_q;
    logic [TIME_W-1:0] now_q;
    logic              sweep_q;      // a sweep due
    logic              sweep_go;
    always_ff @(posedge clk) begin
        if (rst || !on) begin
            tick_cnt_q <= '0;
            now_q      <= '0;
            sweep_q    <= 1'b0;
        end else begin
            if (tick_cnt_q + 16'd1 >= cfg_tick) begin
                tick_cnt_q <= '0;
                now_q      <= now_q + TIME_W'(1);
                sweep_q    <= 1'b1;
            end else begin
                tick_cnt_q <= tick_cnt_q + 16'd1;
                if (sweep_go) begin
                    sweep_q <= 1'b0;
                end
            end
        end
    end

    // ---- steps: a sweep before a turn, but never two sweeps while a turn waits ---------------
    // A sweep visits every slot, so it can take longer than a tick: without the alternation a
    // short RC_CLOCK.TICK would keep a sweep always due and starve the turns. Ticks that pass
    // meanwhile still count in `now`, so the next sweep sees every timer that ran out.
    logic step_valid, step_ready, step_sweep, step_busy_q, step_turn_q, swept_q;
    logic m_step_valid, m_step_ran;
    logic [SW-1:0] m_step_slot;
    assign step_valid   = !step_busy_q && !hold && !init_q && (sweep_q || s_turn_valid);
    assign step_sweep   = sweep_q && !(swept_q && s_turn_valid);
    assign sweep_go     = step_valid && step_ready && step_sweep;
    assign s_turn_ready = step_valid && step_ready && !step_sweep;
    assign turn_done    = m_step_valid && step_turn_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            step_busy_q <= 1'b0;
            swept_q     <= 1'b0;
        end else if (step_valid && step_ready) begin
            step_busy_q <= 1'b1;
            step_turn_q <= !step_sweep;
            swept_q     <= step_sweep;
        end else if (m_step_valid) begin
            step_busy_q <= 1'b0;
        end
    end
    wire unused_step = ^{m_step_ran, m_step_slot};

    // ---- the turn's picks, through a register -----------------------------------------------
    logic                rel_pick_valid, rel_pick_prep, rel_pick_ack_req, rel_flush_valid;
    logic [SW-1:0]       rel_pick_slot, rel_flush_slot;
    logic [31:0]         rel_pick_index;
    logic [23:0]         rel_pick_packet, rel_pick_psn;
    wire                 rq_load = !m_rpick_valid && (rel_pick_valid || rel_flush_valid);
    always_ff @(posedge clk) begin
        if (rst) begin
            m_rpick_valid <= 1'b0;
        end else if (rq_load) begin
            m_rpick_valid <= 1'b1;
        end else if (m_rpick_ready) begin
            m_rpick_valid <= 1'b0;
        end
        if (rq_load) begin
            // A flush takes the next WQE and runs it whole (en 0); a pick is the requester's.
            m_rpick_slot  <= rel_flush_valid ? rel_flush_slot : rel_pick_slot;
            m_rpick_take  <= rel_flush_valid || rel_pick_prep;
            m_rpick_index <= rel_pick_index;
            m_rpick_rcp   <= rel_flush_valid ? '0
                           : {1'b1, rel_pick_prep, rel_pick_packet, rel_pick_psn, rel_pick_ack_req};
        end
    end

    // A prepare's ring index, from the pick that left (the turn waits for its answer).
    logic [31:0] res_index_q;
    always_ff @(posedge clk) begin
        if (prep_taken) begin
            res_index_q <= prep_index;
        end
    end

    // ---- acknowledgements ---------------------------------------------------------------------
    // A_LOOK: the slot's QPN and RC bit read; A_CHECK: the route decided; A_TIMER: its RNR delay asked
    // for; A_WAIT: ...and taken; A_OFFER: to the requester.
    typedef enum logic [2:0] {A_IDLE, A_LOOK, A_CHECK, A_TIMER, A_WAIT, A_OFFER} ack_t;
    ack_t              a_st;
    logic [23:0]       a_qpn, a_psn, a_slot_qpn;
    logic [7:0]        a_syn;
    logic              a_rc;
    logic [TIME_W-1:0] a_ticks;
    logic              t_ready, t_valid;
    logic [TIME_W-1:0] t_ticks;
    logic              ack_ready;
    wire [SW-1:0]      a_slot = a_qpn[SW-1:0];

    assign s_rack_ready = a_st == A_IDLE;

    always_ff @(posedge clk) begin
        if (rst) begin
            a_st <= A_IDLE;
        end else begin
            case (a_st)
                A_IDLE: if (s_rack_valid) begin
                    a_qpn <= s_rack_qpn;
                    a_psn <= s_rack_psn;
                    a_syn <= s_rack_syndrome;
                    a_st  <= A_LOOK;
                end
                A_LOOK: a_st <= A_CHECK;
                A_CHECK: a_st <= a_rc && a_slot_qpn == a_qpn ? A_TIMER : A_IDLE;
                A_TIMER: if (t_ready) a_st <= A_WAIT;
                A_WAIT: if (t_valid) begin
                    a_ticks <= t_ticks;
                    a_st    <= A_OFFER;
                end
                // Not while a command is pending (its failure would move the QP to ERR).
                A_OFFER: if (ack_ready && !hold) a_st <= A_IDLE;
                default: a_st <= A_IDLE;
            endcase
        end
        a_rc       <= rel_rc[a_slot];
        a_slot_qpn <= qpn_s[a_slot];
    end

    rc_timer #(
        .TIME_W (TIME_W),
        .SCALE_W(16)
    ) u_timer (
        .clk      (clk),
        .rst      (rst),
        .cfg_scale(cfg_scale),
        .s_valid  (a_st == A_TIMER),
        .s_ready  (t_ready),
        .s_rnr    (1'b1),
        .s_code   (a_syn[4:0]),
        .m_valid  (t_valid),
        .m_ready  (a_st == A_WAIT),
        .m_ticks  (t_ticks)
    );

    // ---- the block ----------------------------------------------------------------------------
    logic       ack_done, rel_idle;
    logic [rc_pkg::RC_REQ_ANS_W-1:0] ack_ans;
    logic [SW-1:0] rel_err_slot, st_slot;
    logic [23:0] st_una, st_snd, st_nxt;
    logic        st_error;
    logic [4:0]  st_outstanding;
    wire unused_st = ^{ack_done, ack_ans, st_slot, st_una, st_snd, st_nxt, st_error,
                       st_outstanding};

    wqe_reliable #(
        .QPS   (QPS),
        .W     (16),
        .TIME_W(TIME_W)
    ) u_rel (
        .clk, .rst,
        .cfg_max_inflight(24'(cfg_max_inflight)),
        .s_now           (now_q),
        .rc              (rel_rc),
        .runnable,
        .err             (qp_err),
        .pending,
        .s_init_valid    (init_q),
        .s_init_ready    (init_ready),
        .s_init_slot     (init_slot_q),
        .s_init_psn      (init_psn_q),
        .s_init_retry_cnt(cfg_retry_cnt),
        .s_init_rnr_retry(cfg_rnr_retry),
        .s_init_timeout_ticks(timeout_q),
        .s_ack_valid     (a_st == A_OFFER && !hold),
        .s_ack_ready     (ack_ready),
        .s_ack_slot      (a_slot),
        .s_ack_psn       (a_psn),
        .s_ack_syndrome  (a_syn),
        .s_ack_rnr_ticks (a_ticks),
        .ack_done, .ack_ans,
        .s_step_valid    (step_valid),
        .s_step_ready    (step_ready),
        .s_step_sweep    (step_sweep),
        .s_step_turn     (!step_sweep),
        .s_step_one      (1'b1),
        .s_step_slot     (s_turn_slot),
        .m_step_valid, .m_step_ready(1'b1), .m_step_ran, .m_step_slot,
        .m_pick_valid    (rel_pick_valid),
        .m_pick_ready    (!m_rpick_valid),
        .m_pick_slot     (rel_pick_slot),
        .m_pick_prep     (rel_pick_prep),
        .m_pick_index    (rel_pick_index),
        .m_pick_packet   (rel_pick_packet),
        .m_pick_psn      (rel_pick_psn),
        .m_pick_ack_req  (rel_pick_ack_req),
        .s_res_valid, .s_res_ready,
        .s_res_index     (res_index_q),
        .s_res_status, .s_res_packets, .s_res_signaled, .s_res_cqe,
        .m_flush_valid   (rel_flush_valid),
        .m_flush_ready   (!m_rpick_valid && !rel_pick_valid),
        .m_flush_slot    (rel_flush_slot),
        .m_cqe_valid, .m_cqe_ready, .m_cqe,
        .m_err_valid,
        .m_err_slot      (rel_err_slot),
        .live            (rel_live),
        .idle            (rel_idle),
        .st_slot, .st_una, .st_snd, .st_nxt, .st_error, .st_outstanding
    );
    assign m_err_slot = 8'(rel_err_slot);

    // An acknowledgement not yet offered has changed nothing (none is offered while `hold`).
    assign idle = rel_idle && !init_q && !step_busy_q && !m_rpick_valid;

endmodule

`resetall

`endif  // ROCENIC_WQE_TRANSPORT_SV
