// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_RELIABLE_SV
`define ROCENIC_WQE_RELIABLE_SV
`include "rtl/rc/rc_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_bram.sv"
`include "rtl/rc/rc_requester.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The send side of the reliable transport for the RC send queues (model/src/wqe/reliable.rs,
// `RcSend`, and the RC part of `Queues::step`; docs/rc.md, "Joined to the engines"): the
// requester of every slot (rc_requester), the completion each posted WQE gets when it is
// acknowledged, a failure held until what is before it has completed, and the turn that asks
// the data path for prepare and packet picks (wqe_dp_pkg::rcp_t).
//
// It does one thing at a time, taken in IDLE: INIT of a slot's requester (s_init), an
// acknowledgement (s_ack: RECEIVE), or a step (s_step). A step with s_step_sweep and
// s_step_turn is the model's `Queues::step` for the RC slots (the standalone bench's); the
// engine asks for the two apart, a sweep on its timers' clock and a turn (s_step_one) on the
// slot its round robin chose, which ends with nothing done when that slot has nothing to do:
//   1. the sweep, slot 0 first (`Queues::rc_tick`): a slot whose QP is in ERR and whose
//      requester has requests outstanding and has not failed is aborted from `una` with
//      wr_flush_err; any other RC slot gets a TICK, whose ERROR moves its QP to ERR (m_err);
//   2. the turn: the slots from `next` on, in slot order, wrapping; a slot runs its turn if
//      it may have something to do (a held failure, WQEs pending, or requests outstanding);
//      a turn that found nothing to do goes on to the next slot, as the model's round robin
//      skips a slot that is not ready. A turn (`RcSend::turn`):
//      a. POLL: a completion released by the requester: the table's entry, written as it is
//         when it succeeded and SIGNALED, with the requester's status and byte_len 0 when it
//         failed, not at all when it succeeded unsignaled;
//      b. a held failure, once nothing is outstanding: written, and the QP to ERR;
//      c. a QP in ERR: its next WQE flushed as without the transport (m_flush);
//      d. a WQE pending, room in the table and nothing held: a prepare pick that takes it from
//         the ring (m_pick_prep); its answer (s_res) is POSTed to the requester and kept in
//         the table, or held when it failed its checks (or the POST was refused: loc_len_err);
//         a failure held with nothing outstanding is written at once (b) and ends the turn;
//      e. SEND: the packet the requester names, as a packet pick of the WQE at ring index
//         `wr` (the requester's id); a pick that fails aborts the requester at its PSN with
//         the pick's status, and the QP goes to ERR.
//   The step's answer (m_step) says whether a turn ran, and on which slot.
//
// The outside (the scheduler; in co-simulation the bench) owns the rings and the QP states:
// `pending`, `err` and `runnable` are its, per slot; m_err asks it to move a QP to ERR, which
// `err` must show from the next cycle on; a prepare pick asks it to take the slot's next WQE
// from the ring and to answer with that WQE's ring index (s_res_index); m_flush asks it to
// take the next WQE and run it as a whole WQE on a QP in ERR (the data path writes its
// completion). Completions of the requester's WQEs leave on m_cqe, in posting order per slot.
//
// Only RC slots (`rc`) are this block's; the outside interleaves the others' turns. It does
// not check the completion ring's room: the outside starts a step only with room for one
// completion. No RDMA READ: a WQE the data path refuses is held like any failed check.
module wqe_reliable #(
    parameter  int QPS    = 4,    // RC send queue slots (the requester's QPs), a power of two, 2 or more
    parameter  int W      = 16,   // requests outstanding per slot, a power of two (model::wqe::RC_WRS)
    parameter  int TIME_W = 48,   // width of the clock and the requester's deadlines
    localparam int SW     = QPS > 1 ? $clog2(QPS) : 1,   // slot number width
    localparam int IW     = $clog2(W)                    // table index width
) (
    input  wire                         clk,
    input  wire                         rst,              // synchronous, active high
    // the window, the NIC's for every slot (model::rc::Reliable::max_inflight)
    input  wire  [23:0]                 cfg_max_inflight,
    input  wire  [TIME_W-1:0]           s_now,            // the clock, in ticks
    // the slots, as the outside keeps them
    input  wire  [QPS-1:0]              rc,               // holds an RC QP (its requester runs)
    input  wire  [QPS-1:0]              runnable,         // its QP in RTS or ERR
    input  wire  [QPS-1:0]              err,              // its QP in ERR
    input  wire  [QPS-1:0]              pending,          // WQEs posted, not taken
    // a requester starts afresh at a first PSN (the QP reaching RTS), with its QP's settings
    // (model::rc::Reliable::for_qp: the QP's own transport attributes, else the NIC's)
    input  wire                         s_init_valid,
    output logic                        s_init_ready,
    input  wire  [SW-1:0]               s_init_slot,
    input  wire  [23:0]                 s_init_psn,
    input  wire  [2:0]                  s_init_retry_cnt,
    input  wire  [2:0]                  s_init_rnr_retry,     // 7: forever
    input  wire  [TIME_W-1:0]           s_init_timeout_ticks, // the local ACK timeout; 0: none
    // an acknowledgement for a slot (an ACK or NAK frame's AETH)
    input  wire                         s_ack_valid,
    output logic                        s_ack_ready,
    input  wire  [SW-1:0]               s_ack_slot,
    input  wire  [23:0]                 s_ack_psn,
    input  wire  [7:0]                  s_ack_syndrome,
    input  wire  [TIME_W-1:0]           s_ack_rnr_ticks,  // the RNR delay of its timer code
    output logic                        ack_done,         // one cycle: the requester answered
    output logic [rc_pkg::RC_REQ_ANS_W-1:0] ack_ans,      // ... this (held until the next)
    // a step: the sweep (s_step_sweep), then a turn (s_step_turn) on the first slot from
    // `next` on that has something to do, or (s_step_one) on slot s_step_slot only
    input  wire                         s_step_valid,
    output logic                        s_step_ready,
    input  wire                         s_step_sweep,
    input  wire                         s_step_turn,
    input  wire                         s_step_one,
    input  wire  [SW-1:0]               s_step_slot,
    output logic                        m_step_valid,
    input  wire                         m_step_ready,
    output logic                        m_step_ran,       // a turn ran
    output logic [SW-1:0]               m_step_slot,      // ... on this slot
    // picks for the data path (the outside adds the ring's address and the QP's context)
    output logic                        m_pick_valid,
    input  wire                         m_pick_ready,
    output logic [SW-1:0]               m_pick_slot,
    output logic                        m_pick_prep,      // take the next WQE and prepare it
    output logic [31:0]                 m_pick_index,     // a packet: the WQE's ring index
    output logic [23:0]                 m_pick_packet,    // ... which packet of the message
    output logic [23:0]                 m_pick_psn,
    output logic                        m_pick_ack_req,
    // the pick's answer (wqe_dp's m_res_*; for a prepare, the ring index taken)
    input  wire                         s_res_valid,
    output logic                        s_res_ready,
    input  wire  [31:0]                 s_res_index,
    input  wire  [4:0]                  s_res_status,
    input  wire  [23:0]                 s_res_packets,
    input  wire                         s_res_signaled,
    input  wire  wqe_dp_pkg::cqe_t      s_res_cqe,
    // a slot's next WQE to flush (its QP is in ERR)
    output logic                        m_flush_valid,
    input  wire                         m_flush_ready,
    output logic [SW-1:0]               m_flush_slot,
    // completions
    output logic                        m_cqe_valid,
    input  wire                         m_cqe_ready,
    output wqe_dp_pkg::cqe_t            m_cqe,
    // a QP to move to ERR (one cycle; `err` shows it from the next)
    output logic                        m_err_valid,
    output logic [SW-1:0]               m_err_slot,
    // per slot: a failure held, or requests outstanding (with `pending`, what makes an RC
    // slot one whose turn may do something; the outside's round robin reads it)
    output logic [QPS-1:0]              live,
    output logic                        idle,             // in IDLE, nothing offered
    // the requester's state after its last answer, of slot `st_slot`
    output logic [SW-1:0]               st_slot,
    output logic [23:0]                 st_una,
    output logic [23:0]                 st_snd,
    output logic [23:0]                 st_nxt,
    output logic                        st_error,
    output logic [IW:0]                 st_outstanding
);

    if (QPS < 2 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
        $error("wqe_reliable: QPS must be a power of two, 2 or more, got %0d", QPS);
    end

    localparam int TW = $clog2(QPS * W);           // table entry number width
    localparam int AW = TW < 10 ? 10 : TW;         // the block RAM's (10 at least on ECP5)
    localparam int CQE_W = wqe_dp_pkg::CQE_BITS;   // (lint's WIDTH checks it is cqe_t's)

    // ---- the requester ------------------------------------------------------------------------
    // Each slot's settings, from its INIT on; the requester takes those of the QP an operation
    // names with the operation (LUT RAM read by `o_qp`, a register).
    logic [2:0]        retry_s [QPS];
    logic [2:0]        rnr_s [QPS];
    logic [TIME_W-1:0] timeout_s [QPS];
    always_ff @(posedge clk) begin
        if (s_init_valid && s_init_ready) begin
            retry_s[s_init_slot]   <= s_init_retry_cnt;
            rnr_s[s_init_slot]     <= s_init_rnr_retry;
            timeout_s[s_init_slot] <= s_init_timeout_ticks;
        end
    end

    logic                             o_valid;
    wire                              o_ready;
    logic [SW-1:0]                    o_qp;
    logic [rc_pkg::RC_REQ_OP_W-1:0]   o_op;
    logic [23:0]                      o_psn, o_packets;
    logic [31:0]                      o_wr;
    logic [7:0]                       o_syndrome;
    logic [TIME_W-1:0]                o_rnr;
    logic [rc_pkg::RC_STATUS_W-1:0]   o_status;

    wire                              a_valid;
    logic                             a_ready;
    wire  [SW-1:0]                    a_qp;
    wire  [rc_pkg::RC_REQ_ANS_W-1:0]  a_ans;
    wire  [23:0]                      a_psn, a_index, a_packets;
    wire  [31:0]                      a_wr;
    wire                              a_ack_req, a_resend;
    wire  [rc_pkg::RC_STATUS_W-1:0]   a_status;
    wire  [TIME_W-1:0]                a_until;
    wire  [23:0]                      r_una, r_snd, r_nxt;
    wire                              r_error;
    wire  [IW:0]                      r_outstanding;
    wire  [31:0]                      r_cnt [5];

    rc_requester #(
        .QPS   (QPS),
        .W     (W),
        .WR_W  (32),
        .TIME_W(TIME_W),
        .CNT_W (32)
    ) u_req (
        .clk              (clk),
        .rst              (rst),
        .cfg_retry_cnt    (retry_s[o_qp]),
        .cfg_rnr_retry    (rnr_s[o_qp]),
        .cfg_max_inflight (cfg_max_inflight),
        .cfg_timeout_ticks(timeout_s[o_qp]),
        .s_valid          (o_valid),
        .s_ready          (o_ready),
        .s_qp             (o_qp),
        .s_op             (o_op),
        .s_psn            (o_psn),
        .s_wr             (o_wr),
        .s_packets        (o_packets),
        .s_read           (1'b0),
        .s_syndrome       (o_syndrome),
        .s_rnr_ticks      (o_rnr),
        .s_status         (o_status),
        .s_now            (s_now),
        .m_valid          (a_valid),
        .m_ready          (a_ready),
        .m_qp             (a_qp),
        .m_ans            (a_ans),
        .m_psn            (a_psn),
        .m_wr             (a_wr),
        .m_index          (a_index),
        .m_packets        (a_packets),
        .m_ack_req        (a_ack_req),
        .m_resend         (a_resend),
        .m_status         (a_status),
        .m_until          (a_until),
        .st_una           (r_una),
        .st_snd           (r_snd),
        .st_nxt           (r_nxt),
        .st_error         (r_error),
        .st_outstanding   (r_outstanding),
        .cnt_resent       (r_cnt[0]),
        .cnt_timeouts     (r_cnt[1]),
        .cnt_seq_naks     (r_cnt[2]),
        .cnt_rnr_naks     (r_cnt[3]),
        .cnt_read_gaps    (r_cnt[4])
    );

    // The answer's fields this block does not use: a packet's count and resend flag, the RNR
    // delay's end, the counters.
    wire unused = &{1'b0, a_packets, a_resend, a_until, r_cnt[0], r_cnt[1], r_cnt[2],
                    r_cnt[3], r_cnt[4]};

    // ---- per slot: what the requester last showed, the table's head, a held failure ------------
    logic [23:0]    una_s [QPS];
    logic [IW:0]    outst_s [QPS];
    logic [QPS-1:0] out0_s, full_s;   // outst_s is 0, is W
    logic [QPS-1:0] rerr_s;
    logic [IW-1:0]  head_s [QPS];
    logic [QPS-1:0] held_s;
    wqe_dp_pkg::cqe_t held_cqe_s [QPS];

    // ---- the table: per slot, W entries of {SIGNALED, completion}, in posting order -----------
    logic              t_we;
    logic [AW-1:0]     t_waddr, t_raddr;   // t_raddr: the slot's head, from a POLL's release
    logic [CQE_W:0]    t_wdata, t_rdata;
    wqe_bram #(
        .WIDTH(CQE_W + 1),
        .AW   (AW)
    ) u_table (
        .clk    (clk),
        .wr_en  (t_we),
        .wr_addr(t_waddr),
        .wr_data(t_wdata),
        .rd_addr(t_raddr),
        .rd_data(t_rdata)
    );

    function automatic logic [AW-1:0] entry(input logic [SW-1:0] s, input logic [IW-1:0] e);
        entry = AW'({s, e});
    endfunction

    // ---- the sequence ---------------------------------------------------------------------------
    // IDLE: waiting. OP: an operation offered to the requester; ANS: its answer awaited, then on
    // to `ret`. SWEEP: slot `k` of the sweep. CAND: is slot `c` one to try. POLLED: the POLL's
    // answer. TABLE1-3: the table read for a completion. CQE: a completion offered. HELD:
    // after the POLL (b, c, d). RELEASE: a held failure written (b). FLUSH: a flush offered.
    // PICK: a pick offered; RES: its answer awaited. POSTED: the POST's answer. REL: after a
    // post (b). SENT: the SEND's answer. NEXT: the turn over, or on to the next slot. DONE: the
    // step's answer offered. SWEEP_W, CAND_W, REL_W: a cycle for the slot's flags (below) to
    // follow a new slot or a write.
    typedef enum logic [4:0] {
        IDLE, OP, ANS, SWEEP_W, SWEEP, SWEPT, CAND_W, CAND, POLLED, TABLE1, TABLE2, TABLE3, CQE,
        HELD, RELEASE, FLUSH, PICK, RES, POSTED, REL_W, REL, SENT, NEXT, DONE
    } st_t;
    st_t st, ret;

    logic [SW-1:0]    k;            // the sweep's slot
    logic [SW-1:0]    c;            // the turn's slot
    logic [SW-1:0]    next_q;       // where the next step's turn starts
    logic [SW:0]      tried;        // slots looked at in this step (one slot: from QPS - 1)
    logic             turn_q, one_q;// the step's turn, on slot_q only
    logic [SW-1:0]    slot_q;
    logic             did;          // the turn did something
    logic             pick_prep;    // the pick offered is a prepare
    logic             res_signaled; // the prepare's answer

    wqe_dp_pkg::cqe_t res_cqe;
    logic [rc_pkg::RC_REQ_ANS_W-1:0] ans_q;
    logic [31:0]      ans_wr;
    logic [23:0]      ans_psn, ans_index;
    logic             ans_ack_req;
    logic [rc_pkg::RC_STATUS_W-1:0] ans_status;
    logic             ack_op;       // the operation is an acknowledgement's

    // A completion that failed: its status, no bytes (model RcSend::pop). Its own byte count
    // and status are replaced, hence unused.
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic wqe_dp_pkg::cqe_t failed(input wqe_dp_pkg::cqe_t q, input logic [4:0] status);
        // Field by field in cqe_t's order (Yosys assigns no struct member in a function).
        failed = {q.wr_id, q.qpn, 32'd0, q.index, q.opcode, status};
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    // The slot looked at (a register: the sweep's `k`, then the turn's `c`), and its per-slot
    // values, registered: the decisions read these, so that a slot's multiplexers and compares
    // do not feed them in the same cycle (at 16 slots that chain ran at 94 MHz). They follow a
    // new slot, or a write, one cycle later: the states that change either pass through a _W
    // state first. Whether a slot's count is 0 or W is kept beside it, so that no compare
    // follows the multiplexer.
    logic [SW-1:0] cur;
    logic          f_rc, f_run, f_err, f_pending, f_held, f_out0, f_full, f_rerr;
    logic [23:0]   f_una;
    logic [IW-1:0] f_head;   // the oldest entry
    logic [IW-1:0] f_outst;  // entries in use, modulo W (a POST needs fewer than W)
    always_ff @(posedge clk) begin
        f_head    <= head_s[cur];
        f_outst   <= IW'(outst_s[cur]);
        f_rc      <= rc[cur];
        f_run     <= runnable[cur];
        f_err     <= err[cur];
        f_pending <= pending[cur];
        f_held    <= held_s[cur];
        f_out0    <= out0_s[cur];
        f_full    <= full_s[cur];
        f_rerr    <= rerr_s[cur];
        f_una     <= una_s[cur];
    end

    // May the slot have something to do: a superset of `RcSend::ready` (a slot outside it has
    // nothing to do: no request outstanding means nothing to poll or send).
    wire candidate = f_rc && f_run && (f_held || f_pending || !f_out0);

    assign s_init_ready = st == IDLE;
    assign s_ack_ready  = st == IDLE && !s_init_valid;
    assign s_step_ready = st == IDLE && !s_init_valid && !s_ack_valid;
    // The requester's m_ready reaches its swap and commit logic: a flip-flop of its own, high
    // exactly in ANS (st == ANS decoded here ran at 118.6 MHz at 16 slots).
    logic in_ans, in_t3;   // in_t3: high exactly in TABLE3, likewise
    assign a_ready      = in_ans;
    assign s_res_ready  = st == RES;
    assign m_step_valid = st == DONE;
    assign m_pick_valid = st == PICK;
    assign m_flush_valid = st == FLUSH;
    assign m_cqe_valid  = st == CQE;
    assign m_flush_slot = c;
    assign m_pick_slot  = c;
    assign m_pick_prep  = pick_prep;
    assign m_step_slot  = c;

    // The completion offered: a held failure's (as held), or the table's entry (its word holds
    // while the read address does: set in POLLED, it changes at the next completion only),
    // as it is or failed. Selected by flip-flops, so that no state decision reaches the 165
    // bits of a register (at 16 slots that load ran at 108 MHz).
    logic from_held, fail_q;
    assign m_cqe = from_held ? held_cqe_s[c]
                 : fail_q ? failed(t_rdata[CQE_W-1:0], ans_status) : t_rdata[CQE_W-1:0];

    always_ff @(posedge clk) begin
        m_err_valid <= 1'b0;
        ack_done    <= 1'b0;
        t_we        <= 1'b0;
        if (rst) begin
            st       <= IDLE;
            o_valid  <= 1'b0;
            in_ans   <= 1'b0;
            in_t3    <= 1'b0;
            next_q   <= '0;
            held_s   <= '0;
            ack_ans  <= rc_pkg::RC_REQ_ANS_NOTHING;
        end else begin
            case (st)
                IDLE: begin
                    // The operation's fields load whatever comes (they count only with
                    // o_valid), so that no request's valid gates their enables.
                    ack_op     <= 1'b0;
                    o_qp       <= s_init_valid ? s_init_slot : s_ack_slot;
                    o_op       <= s_init_valid ? rc_pkg::RC_REQ_OP_INIT : rc_pkg::RC_REQ_OP_RECEIVE;
                    o_psn      <= s_init_valid ? s_init_psn : s_ack_psn;
                    o_syndrome <= s_ack_syndrome;
                    o_rnr      <= s_ack_rnr_ticks;
                    if (s_init_valid) begin
                        o_valid <= 1'b1;
                        st      <= OP;
                        ret     <= IDLE;
                        held_s[s_init_slot] <= 1'b0;
                    end else if (s_ack_valid) begin
                        o_valid <= 1'b1;
                        ack_op  <= 1'b1;
                        st      <= OP;
                        ret     <= IDLE;
                    end else if (s_step_valid) begin
                        turn_q   <= s_step_turn;
                        one_q    <= s_step_one;
                        slot_q   <= s_step_slot;
                        k        <= '0;
                        if (s_step_sweep) begin
                            cur <= '0;
                            st  <= SWEEP_W;
                        end else if (s_step_turn) begin
                            c     <= s_step_one ? s_step_slot : next_q;
                            cur   <= s_step_one ? s_step_slot : next_q;
                            tried <= s_step_one ? (SW + 1)'(QPS - 1) : '0;
                            st    <= CAND_W;
                        end else begin
                            m_step_ran <= 1'b0;
                            st         <= DONE;
                        end
                    end
                end

                OP: if (o_ready) begin
                    o_valid <= 1'b0;
                    in_ans  <= 1'b1;
                    st      <= ANS;
                end

                ANS: if (a_valid) begin
                    in_ans     <= 1'b0;
                    ans_q      <= a_ans;
                    ans_wr     <= a_wr;
                    ans_psn    <= a_psn;
                    ans_index  <= a_index;
                    ans_ack_req <= a_ack_req;
                    ans_status <= a_status;
                    // A TICK or an acknowledgement that fails the requester moves its QP to ERR.
                    if (a_ans == rc_pkg::RC_REQ_ANS_ERROR) begin
                        m_err_valid <= 1'b1;
                        m_err_slot  <= a_qp;
                    end
                    if (ack_op) begin
                        ack_done <= 1'b1;
                        ack_ans  <= a_ans;
                    end
                    st <= ret;
                end

                // 1. The sweep: ABORT a slot in ERR with requests its requester still holds
                // as good; TICK any other RC slot.
                SWEEP_W: st <= SWEEP;
                SWEEP: begin
                    st <= SWEPT;
                    if (f_rc) begin
                        o_qp <= k;
                        if (!f_err) begin
                            o_op    <= rc_pkg::RC_REQ_OP_TICK;
                            o_valid <= 1'b1;
                            st      <= OP;
                            ret     <= SWEPT;
                        end else if (!f_rerr && !f_out0) begin
                            o_op     <= rc_pkg::RC_REQ_OP_ABORT;
                            o_psn    <= f_una;
                            o_status <= rc_pkg::RC_STATUS_WR_FLUSH_ERR;
                            o_valid  <= 1'b1;
                            st       <= OP;
                            ret      <= SWEPT;
                        end
                    end
                end

                SWEPT: begin
                    k <= k + SW'(1);
                    if (32'(k) == QPS - 1) begin
                        c          <= one_q ? slot_q : next_q;
                        cur        <= one_q ? slot_q : next_q;
                        tried      <= one_q ? (SW + 1)'(QPS - 1) : '0;
                        m_step_ran <= 1'b0;
                        st         <= turn_q ? CAND_W : DONE;
                    end else begin
                        cur <= k + SW'(1);
                        st  <= SWEEP_W;
                    end
                end

                // 2. The turn.
                CAND_W: st <= CAND;
                CAND: begin
                    if (32'(tried) == QPS) begin
                        m_step_ran <= 1'b0;
                        st         <= DONE;
                    end else if (candidate) begin
                        did     <= 1'b0;
                        o_qp    <= c;
                        o_op    <= rc_pkg::RC_REQ_OP_POLL;
                        o_valid <= 1'b1;
                        st      <= OP;
                        ret     <= POLLED;
                    end else begin
                        c     <= c + SW'(1);
                        cur   <= c + SW'(1);
                        tried <= tried + 1'b1;
                        st    <= CAND_W;
                    end
                end

                // a. A completion released: its entry comes out of the table three cycles on
                // (the address's register, the block RAM's two).
                POLLED: begin
                    t_raddr <= entry(c, f_head);
                    st      <= ans_q == rc_pkg::RC_REQ_ANS_COMPLETION ? TABLE1 : HELD;
                end
                TABLE1: st <= TABLE2;
                TABLE2: begin
                    in_t3 <= 1'b1;
                    st    <= TABLE3;
                end
                TABLE3: begin
                    in_t3     <= 1'b0;
                    did       <= 1'b1;
                    from_held <= 1'b0;
                    fail_q    <= ans_status != wqe_fmt_pkg::STATUS_SUCCESS;
                    // Unsignaled success: acknowledged, and nothing written.
                    st <= ans_status != wqe_fmt_pkg::STATUS_SUCCESS || t_rdata[CQE_W] ? CQE : NEXT;
                end

                // A completion ends the turn.
                CQE: if (m_cqe_ready) st <= NEXT;

                // b, c, d.
                HELD: begin
                    if (f_held && f_out0) begin
                        st <= RELEASE;
                    end else if (f_err) begin
                        // Nothing outstanding is left unpolled in ERR (the sweep aborted it).
                        st <= f_pending ? FLUSH : NEXT;
                    end else if (!f_held && !f_full && f_pending) begin
                        did       <= 1'b1;
                        pick_prep <= 1'b1;
                        st        <= PICK;
                    end else begin
                        o_qp    <= c;
                        o_op    <= rc_pkg::RC_REQ_OP_SEND;
                        o_valid <= 1'b1;
                        st      <= OP;
                        ret     <= SENT;
                    end
                end

                // b. A held failure written, once nothing is outstanding before it; its QP to
                // ERR.
                RELEASE: begin
                    held_s[c]   <= 1'b0;
                    from_held   <= 1'b1;
                    m_err_valid <= 1'b1;
                    m_err_slot  <= c;
                    did         <= 1'b1;
                    st          <= CQE;
                end

                FLUSH: if (m_flush_ready) begin
                    did <= 1'b1;
                    st  <= NEXT;
                end

                PICK: if (m_pick_ready) st <= RES;

                RES: if (s_res_valid) begin
                    res_signaled <= s_res_signaled;
                    res_cqe      <= s_res_cqe;
                    if (pick_prep) begin
                        if (s_res_status == wqe_fmt_pkg::STATUS_SUCCESS) begin
                            o_qp      <= c;
                            o_op      <= rc_pkg::RC_REQ_OP_POST;
                            o_wr      <= s_res_index;
                            o_packets <= s_res_packets;
                            o_valid   <= 1'b1;
                            st        <= OP;
                            ret       <= POSTED;
                        end else begin
                            held_s[c]     <= 1'b1;
                            held_cqe_s[c] <= s_res_cqe;
                            st            <= REL_W;
                        end
                    end else if (s_res_status == wqe_fmt_pkg::STATUS_SUCCESS) begin
                        st <= NEXT;
                    end else begin
                        // e. The packet could not be built: the requester fails at its PSN.
                        o_qp        <= c;
                        o_op        <= rc_pkg::RC_REQ_OP_ABORT;
                        o_psn       <= ans_psn;
                        o_status    <= s_res_status;
                        o_valid     <= 1'b1;
                        m_err_valid <= 1'b1;
                        m_err_slot  <= c;
                        st          <= OP;
                        ret         <= NEXT;
                    end
                end

                // d. The POST's answer: the entry kept, or the WQE held (a refusal: the message
                // would spread over half the PSN space).
                POSTED: begin
                    if (ans_q == rc_pkg::RC_REQ_ANS_POSTED) begin
                        t_we    <= 1'b1;
                        // The entry after the others, as they stood before the POST's answer
                        // (the flags' sample from the answer's cycle).
                        t_waddr <= entry(c, f_head + f_outst);
                        t_wdata <= {res_signaled, res_cqe};
                    end else begin
                        held_s[c]     <= 1'b1;
                        held_cqe_s[c] <= failed(res_cqe, wqe_fmt_pkg::STATUS_LOC_LEN_ERR);
                    end
                    st <= REL_W;
                end

                // b again, after a post; else e.
                REL_W: st <= REL;
                REL: begin
                    if (f_held && f_out0) begin
                        st <= RELEASE;
                    end else begin
                        o_qp    <= c;
                        o_op    <= rc_pkg::RC_REQ_OP_SEND;
                        o_valid <= 1'b1;
                        st      <= OP;
                        ret     <= SENT;
                    end
                end

                SENT: begin
                    if (ans_q == rc_pkg::RC_REQ_ANS_PACKET) begin
                        did       <= 1'b1;
                        pick_prep <= 1'b0;
                        st        <= PICK;
                    end else begin
                        st <= NEXT;
                    end
                end

                NEXT: begin
                    if (did) begin
                        next_q     <= c + SW'(1);
                        m_step_ran <= 1'b1;
                        st         <= DONE;
                    end else begin
                        c     <= c + SW'(1);
                        cur   <= c + SW'(1);
                        tried <= tried + 1'b1;
                        st    <= CAND_W;
                    end
                end

                DONE: if (m_step_ready) st <= IDLE;

                default: st <= IDLE;
            endcase
        end
    end

    // The per-slot registers, each written on a flip-flop's strobe and a slot compare, not on
    // the state's decode (which ran at 119.9 MHz into sixteen slots' enables): what the
    // requester shows of a slot with each answer (in ANS), the head moving on past a released
    // entry (in TABLE3), and the head cleared by the slot's INIT.
    always_ff @(posedge clk) begin
        if (rst) begin
            rerr_s <= '0;
            out0_s <= '1;
            full_s <= '0;
            for (int s = 0; s < QPS; s++) begin
                outst_s[s] <= '0;
                una_s[s]   <= '0;
                head_s[s]  <= '0;
            end
        end else begin
            if (in_ans && a_valid) begin
                una_s[a_qp]   <= r_una;
                outst_s[a_qp] <= r_outstanding;
                out0_s[a_qp]  <= r_outstanding == '0;
                full_s[a_qp]  <= r_outstanding == (IW + 1)'(W);
                rerr_s[a_qp]  <= r_error;
            end
            if (in_t3) begin
                head_s[c] <= head_s[c] + IW'(1);
            end
            if (s_init_valid && s_init_ready) begin
                head_s[s_init_slot] <= '0;
            end
        end
    end

    always_comb begin
        for (int s = 0; s < QPS; s++) begin
            live[s] = held_s[s] || !out0_s[s];
        end
    end
    assign idle = st == IDLE;

    // A packet pick: the requester's answer as it came (a prepare's fields are unused).
    assign m_pick_index   = ans_wr;
    assign m_pick_packet  = ans_index;
    assign m_pick_psn     = ans_psn;
    assign m_pick_ack_req = ans_ack_req;

    assign st_slot        = o_qp;
    assign st_una         = una_s[o_qp];
    assign st_snd         = r_snd;
    assign st_nxt         = r_nxt;
    assign st_error       = rerr_s[o_qp];
    assign st_outstanding = outst_s[o_qp];

endmodule

`endif  // ROCENIC_WQE_RELIABLE_SV
