// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_SCHED_SV
`define ROCENIC_WQE_SCHED_SV
`include "rtl/wqe/wqe_pkg.sv"
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_rr.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The send queues' scheduler: each slot's send-ring indices and doorbell, the completion ring's
// indices and room, the round robin, and the pick stream (model/src/wqe/queues.rs, `Queues::step`;
// docs/wqe-ctrl.md, "Control plane (RTL)").
//
// Ring unit: one operation at a time on the per-slot indices (32-bit free-running producer and
// consumer in LUT RAM, a pending bit per slot in flip-flops):
//   doorbell     R_DB1 reads the slot, R_DB2 measures, R_DB3 compares, R_DB4 stores as
//                Doorbell::write: at or behind what the engine has, nothing; up to 2^RING_LOG2
//                ahead of the consumer, the producer moves; further, nothing and ring_req_error
//                (STATUS.DB_ERROR). A doorbell of a slot that holds no QP changes nothing.
//   CQ consumer  R_CQ1 measures, R_CQ2 decides as CompletionRing::write_consumer against the
//                producer of that cycle, R_CQ3 stores: in consumer..=producer it moves, at or
//                behind nothing, up to 2^31 - 1 past the producer nothing and ring_req_error.
//   take         R_TAKE1 reads the picked slot, R_TAKE2 takes its consumer as the pick's index and
//                counts on, R_TAKE3 stores the new consumer and whether WQEs are left.
//   ring_clr     (from a command) zeroes a slot's indices, in R_IDLE.
// ring_req_done is high in the storing cycle (R_DB4, R_CQ3): the result is in place from the edge
// that ends it, with which wqe_regs answers the write.
//
// Round robin (wqe_rr, three register stages, every cycle): the eligible slots are those valid, in
// RTS or ERR, with a WQE posted (pending); the candidate is the first eligible slot at or after
// `next`, in slot order, wrapping. A pick may start when there is a candidate, CONTROL.ENABLE is
// set, nothing holds the scheduler (`hold`: a command pending, CQ_FAULT), and the completion ring
// has room: used (producer - consumer) + outstanding picks < 2^CQ_LOG2, outstanding counting each
// pick from its start until its wqe_retire. Those conditions are registered with the eligible
// slots and `next` and delayed alike, so a pick reflects the state of one cycle, d. It starts in
// d + 4 if the pick stream and the ring unit are free (else a later sample decides); `next`
// becomes the slot after.
//
// Pick: from its start (d + 4) the slot's consumer is taken (R_TAKE1-3, the consumer moves at the
// end of d + 7) and its context words 0..4 are read (wqe_qp_table, one per cycle, each arriving
// two cycles later); the WQE's address is sq_base + (index mod 2^RING_LOG2) << (STRIDE_LOG2 + 6).
// m_pick_valid rises in cycle d + PICK_LAG and holds until m_pick_ready; the next pick starts
// in the cycle after that handshake at the earliest (one pick per 9 cycles at most). m_pick_* are
// flip-flops; m_pick_ready reaches no output in the same cycle.
//
// Acknowledgements (the receive path's RC responder, docs/rc-responder.md, "ACK frames"): s_ack_* is taken
// into a register. Its QP's context is read with the pick sequence (slot = QPN mod QPS), ahead
// of a pick that has not started, when nothing is being read or offered and no command is
// pending (the table is the command's then). Word 0 decides, as model::wqe::SendEngine::rc_route:
// the slot holds a QP of that QPN, RC (not UD, not raw), with its entropy fixed at RTR (a UDP
// source port is 0xC000 or above; cleared, it is 0). Then m_ack_valid rises with m_pick_ctx
// holding the route, in the cycle a pick would; else the acknowledgement is dropped, as the
// model drops one whose QP has no route. Neither ENABLE nor CQ_FAULT holds them: they are the
// receive side's, and the receive path waits for them.
//
// The reliable transport (docs/wqe-reliable.md, "In the engine"): a slot in rel_rc (an RC QP
// with the transport on) is eligible when it is runnable and has a WQE posted or is rel_live
// (a failure held, requests outstanding); when the round robin commits it, the slot's turn
// leaves on m_turn (one turn at a time) instead of a pick, and counts as outstanding until
// turn_done. The turn's own picks come back on s_rpick, before any new commit: a prepare or a
// flush takes the slot's next WQE as a pick does; a packet names its WQE's ring index. They run
// the pick sequence as any pick, m_pick_rcp saying what the data path is to do with them, and
// count as outstanding until their wqe_retire; the completion ring's room holds them back not,
// being part of a turn it admitted.
module wqe_sched #(
    parameter  int QPS = 64,                    // QP slots, a power of two, 4..256
    localparam int SW  = $clog2(QPS),           // slot index width
    localparam int CW  = wqe_pkg::CTX_WORD      // context RAM word
) (
    input  wire              clk,
    input  wire              rst,               // synchronous, active high
    // control
    input  wire              enable,            // CONTROL.ENABLE
    input  wire              hold,              // start no pick (command pending, CQ_FAULT)
    input  wire              ack_hold,          // start no acknowledgement (command pending)
    input  wire [QPS-1:0]    valid,             // slots holding a QP
    input  wire [QPS-1:0]    runnable,          // ... in RTS or ERR
    // acknowledgements to frame (the receive path's responder)
    input  wire              s_ack_valid,
    output logic             s_ack_ready,
    input  wire [23:0]       s_ack_qpn,         // the local QP
    input  wire [23:0]       s_ack_psn,
    input  wire [7:0]        s_ack_syndrome,
    input  wire [23:0]       s_ack_msn,
    output logic             m_ack_valid,       // with m_pick_ctx the QP's route
    input  wire              m_ack_ready,
    output logic [23:0]      m_ack_psn,
    output logic [7:0]       m_ack_syndrome,
    output logic [23:0]      m_ack_msn,
    // doorbell and CQ consumer writes (wqe_regs)
    input  wire              ring_req_valid,    // held until ring_req_done
    input  wire              ring_req_cq,       // 0: send doorbell of ring_req_slot, 1: CQ consumer
    input  wire [7:0]        ring_req_slot,     // < QPS
    input  wire [31:0]       ring_req_value,
    output logic             ring_req_done,
    output logic             ring_req_error,
    // a slot's send ring restarts at index 0 (wqe_qp_table; while no pick runs)
    input  wire              ring_clr,
    input  wire [SW-1:0]     ring_clr_slot,
    input  wire [4:0]        ring_clr_log2,
    // completion ring
    input  wire [4:0]        cq_log2,           // 2^cq_log2 entries, 0..16
    input  wire              cq_restart,        // indices to 0
    input  wire              cqe_written,       // the data path wrote a completion (producer + 1)
    input  wire              wqe_retire,        // a picked WQE is finished
    output logic [31:0]      cq_producer,
    output logic [31:0]      cq_consumer,
    // context reads (wqe_qp_table)
    output logic             rd_en,
    output logic [SW-1:0]    rd_slot,
    output logic [2:0]       rd_word,
    input  wire [CW-1:0]     rd_data,
    // picks
    output logic             m_pick_valid,
    input  wire              m_pick_ready,
    output logic [7:0]       m_pick_slot,
    output logic [31:0]      m_pick_index,
    output logic [63:0]      m_pick_addr,
    output logic [2:0]       m_pick_stride_log2,
    output wqe_pkg::qp_ctx_t m_pick_ctx,
    output wqe_dp_pkg::rcp_t m_pick_rcp,        // the transport's packet or prepare (en), else 0
    // the reliable transport (all 0 without it)
    input  wire  [QPS-1:0]   rel_rc,            // slots whose turns are the transport's
    input  wire  [QPS-1:0]   rel_live,          // ... with a failure held or requests outstanding
    output logic             m_turn_valid,
    input  wire              m_turn_ready,
    output logic [SW-1:0]    m_turn_slot,
    input  wire              turn_done,         // one cycle: the turn taken has ended
    input  wire              s_rpick_valid,     // a turn's pick
    output logic             s_rpick_ready,
    input  wire  [SW-1:0]    s_rpick_slot,
    input  wire              s_rpick_take,      // take the ring's next WQE (prepare, flush)
    input  wire  [31:0]      s_rpick_index,     // else the WQE's ring index (a packet)
    input  wire wqe_dp_pkg::rcp_t s_rpick_rcp,  // rcp.en 0: a flush, the whole WQE
    // status
    output logic [QPS-1:0]   pending,           // slots with WQEs posted and not taken
    output logic             quiet,             // no pick started, running or offered, none due
    output logic             none_outstanding,  // every pick has retired
    output logic             ack_waiting        // an acknowledgement taken, its read not begun
);

    if (QPS < 4 || QPS > 256 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
        $error("wqe_sched: QPS must be a power of two, 4..256, got %0d", QPS);
    end

    // Cycles from the sampled state (d) to m_pick_valid; fixed by the pick sequence below. No
    // logic reads it: it documents the timing, public for a Verilator harness.
    /* verilator lint_off UNUSEDPARAM */
    localparam int PICK_LAG /*verilator public*/ = 12;
    /* verilator lint_on UNUSEDPARAM */

    // ------------------------------------------------------------------------------------------
    // Per-slot send-ring state.
    (* ram_style = "distributed" *) logic [31:0] prod_mem [QPS];
    (* ram_style = "distributed" *) logic [31:0] cons_mem [QPS];
    (* ram_style = "distributed" *) logic [4:0]  log2_mem [QPS];
    logic [QPS-1:0] pending_q;

    typedef enum logic [3:0] {
        R_IDLE, R_DB1, R_DB2, R_DB3, R_DB4, R_CQ1, R_CQ2, R_CQ3, R_TAKE1, R_TAKE2, R_TAKE3
    } rstate_t;
    rstate_t        r_q;

    // Completion ring: indices, and used (producer - consumer, at most 2^16) and outstanding
    // picks kept as small counters so that the room test is short.
    logic [31:0]    cq_prod_q, cq_cons_q;
    logic [16:0]    used_q, outstanding_q;
    logic [17:0]    room_mask_q;        // bits at and above cq_log2: set means no room

    // Round robin.
    logic [SW-1:0]  next_q;
    logic [SW-1:0]  cand_q;
    logic           cand_ok;

    // Pick sequence.
    logic           busy_q;             // a pick is being read
    logic [2:0]     t_q;                // its cycle, from 0 (d + 2)
    logic [SW-1:0]  slot_q;
    logic [wqe_pkg::CTX_WORDS-1:0][CW-1:0] img_q;
    logic [19:0]    off_q;              // (index mod ring) << stride, in blocks

    // An acknowledgement waiting (its request register) and the one being read or offered.
    logic           a_full_q, a_read_q;
    logic [23:0]    a_qpn_q, a_psn_q, a_msn_q, r_qpn_q;
    logic [7:0]     a_syn_q;
    logic           a_ok_q;             // word 0 allows it

    wire ack_go = a_full_q && !busy_q && !m_pick_valid && !m_ack_valid && !ack_hold && !ring_clr;
    // A turn's pick before any new commit (the turn holds the transport until it has its answer).
    wire rp_go  = s_rpick_valid && !busy_q && !m_pick_valid && !m_ack_valid && r_q == R_IDLE
               && !ring_clr && !ack_go;
    logic turn_busy_q;
    wire  sched_ok    = cand_ok && !busy_q && !m_pick_valid && !m_ack_valid && r_q == R_IDLE
                     && !ring_clr && !ack_go && !rp_go;
    wire  is_turn     = rel_rc[cand_q];
    wire  commit_turn = sched_ok && is_turn && !turn_busy_q && !m_turn_valid;
    wire  commit_pick = sched_ok && !is_turn;
    wire  commit      = commit_turn || commit_pick;
    assign s_rpick_ready = rp_go;

    // ------------------------------------------------------------------------------------------
    // Round robin and the conditions for a pick: the eligible slots, `next` and the conditions
    // are registered together (the sample, cycle d), then the round robin's three stages; the
    // conditions are delayed alike.
    logic [QPS-1:0] req_q;
    logic [SW-1:0]  next_d_q;
    logic           any0_q, rr_any1, rr_any2, rr_found, ok0_q, ok1_q, ok2_q, ok3_q;

    wqe_rr #(
        .N(QPS)
    ) u_rr (
        .clk    (clk),
        .rst    (rst),
        .req    (req_q),
        .next   (next_d_q),
        .any1_q (rr_any1),
        .any2_q (rr_any2),
        .found_q(rr_found),
        .index_q(cand_q)
    );

    wire [17:0] in_use = {1'b0, used_q} + {1'b0, outstanding_q};
    wire        room   = (in_use & room_mask_q) == '0;

    always_ff @(posedge clk) begin
        if (rst) begin
            req_q  <= '0;
            any0_q <= 1'b0;
            ok0_q  <= 1'b0;
            ok1_q <= 1'b0;
            ok2_q <= 1'b0;
            ok3_q <= 1'b0;
        end else begin
            req_q  <= runnable & (pending_q | (rel_rc & rel_live));
            any0_q <= (runnable & (pending_q | (rel_rc & rel_live))) != '0;
            ok0_q  <= enable && !hold && room;
            ok1_q <= ok0_q;
            ok2_q <= ok1_q;
            ok3_q <= ok2_q;
        end
        next_d_q <= next_q;
    end
    assign cand_ok = rr_found && ok3_q;

    // ------------------------------------------------------------------------------------------
    // Ring unit.
    wire [SW-1:0] req_slot = ring_req_slot[SW-1:0];
    wire [SW-1:0] ram_slot = r_q == R_TAKE1 ? slot_q : req_slot;
    wire [31:0]   prod_rd  = prod_mem[ram_slot];
    wire [31:0]   cons_rd  = cons_mem[ram_slot];
    wire [4:0]    log2_rd  = log2_mem[req_slot];

    logic [31:0]  a_q, b_q;           // DB: producer, consumer; TAKE: producer, consumer
    logic [31:0]  ahead_q;            // value - consumer (DB and CQ)
    logic [31:0]  have_q;             // DB: producer - consumer
    logic [16:0]  lim_q;              // DB: 2^RING_LOG2
    logic [4:0]   l_q;
    logic         db_valid_q;

    // DB3 compares, DB4 decides (Ring::advance).
    logic db_stale_q, db_far_q;
    wire  db_move = db_valid_q && !db_stale_q && !db_far_q;
    // CQ2 decides, CQ3 stores (CompletionRing::write_consumer). used_q < 2^17, so past = ahead -
    // used lies in 1..2^31-1 exactly when ahead > used and (ahead < 2^31 or ahead - 2^31 < used).
    wire cq_hi0   = ahead_q[31:17] == '0;
    logic cq_move_q, cq_err_q;
    wire  cq_move = cq_hi0 && ahead_q[16:0] != '0 && ahead_q[16:0] <= used_q;
    wire  cq_err  = !(cq_hi0 && ahead_q[16:0] <= used_q)
                 && (!ahead_q[31] || (ahead_q[30:17] == '0 && ahead_q[16:0] < used_q));

    assign ring_req_done  = r_q == R_DB4 || r_q == R_CQ3;
    assign ring_req_error = (r_q == R_DB4 && db_valid_q && !db_stale_q && db_far_q)
                         || (r_q == R_CQ3 && cq_err_q);

    // The pending bits: a command's clear (its slot decoded here; the command runs alone), or
    // the one write of a doorbell (set) or a take (whether WQEs are left), its slot decoded into
    // pw_hot_q the cycle before.
    logic [QPS-1:0] pw_hot_q;
    logic           left_q;
    wire            pend_we  = (r_q == R_DB4 && db_move) || r_q == R_TAKE3;
    wire            pend_val = r_q == R_TAKE3 ? left_q : 1'b1;

    // LUT RAM write ports.
    logic          prod_we, cons_we;
    logic [SW-1:0] prod_wa, cons_wa;
    logic [31:0]   prod_wd, cons_wd;
    always_comb begin
        prod_we = 1'b0;
        prod_wa = ring_clr_slot;
        prod_wd = '0;
        cons_we = 1'b0;
        cons_wa = ring_clr_slot;
        cons_wd = '0;
        if (r_q == R_IDLE && ring_clr) begin
            prod_we = 1'b1;
            cons_we = 1'b1;
        end
        if (r_q == R_DB4 && db_move) begin
            prod_we = 1'b1;
            prod_wa = req_slot;
            prod_wd = ring_req_value;
        end
        if (r_q == R_TAKE3) begin
            cons_we = 1'b1;
            cons_wa = slot_q;
            cons_wd = b_q;
        end
    end

    always_ff @(posedge clk) begin
        if (prod_we) prod_mem[prod_wa] <= prod_wd;
        if (cons_we) cons_mem[cons_wa] <= cons_wd;
        if (r_q == R_IDLE && ring_clr) log2_mem[ring_clr_slot] <= ring_clr_log2;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            r_q           <= R_IDLE;
            pending_q     <= '0;
            cq_prod_q     <= '0;
            cq_cons_q     <= '0;
            used_q        <= '0;
            outstanding_q <= '0;
            next_q        <= '0;
            room_mask_q   <= '1;
        end else begin
            // At most 2^16 entries: CQ_LOG2 above 16 acts as 16.
            room_mask_q <= ~((18'd1 << (cq_log2 > 5'd16 ? 5'd16 : cq_log2)) - 18'd1);
            outstanding_q <= outstanding_q + 17'(commit) + 17'(rp_go) - 17'(wqe_retire)
                           - 17'(turn_done);
            if (commit) begin
                next_q <= cand_q + SW'(1);
            end
            // A turn's packet names its WQE (a take sets the index in R_TAKE2).
            if (rp_go && !s_rpick_take) begin
                m_pick_index <= s_rpick_index;
            end
            case (r_q)
                R_IDLE: begin
                    // A ring_clr (during a command, when nothing else comes) takes the cycle.
                    if (commit_pick || (rp_go && s_rpick_take)) begin
                        r_q <= R_TAKE1;
                    end else if (ring_req_valid && !ring_clr) begin
                        r_q <= ring_req_cq ? R_CQ1 : R_DB1;
                    end
                end
                R_DB1: begin
                    r_q        <= R_DB2;
                    a_q        <= prod_rd;
                    b_q        <= cons_rd;
                    l_q        <= log2_rd;
                    db_valid_q <= valid[req_slot];
                end
                R_DB2: begin
                    r_q     <= R_DB3;
                    ahead_q <= ring_req_value - b_q;
                    have_q  <= a_q - b_q;
                    lim_q   <= 17'd1 << l_q;
                end
                R_DB3: begin
                    r_q        <= R_DB4;
                    pw_hot_q   <= {{(QPS-1){1'b0}}, 1'b1} << req_slot;
                    db_stale_q <= ahead_q[31] || ahead_q <= have_q;
                    db_far_q   <= ahead_q > 32'(lim_q);
                end
                R_DB4: r_q <= R_IDLE;
                R_CQ1: begin
                    r_q     <= R_CQ2;
                    ahead_q <= ring_req_value - cq_cons_q;
                end
                R_CQ2: begin
                    r_q       <= R_CQ3;
                    cq_move_q <= cq_move;
                    cq_err_q  <= cq_err;
                end
                R_CQ3: r_q <= R_IDLE;
                R_TAKE1: begin
                    r_q <= R_TAKE2;
                    a_q <= prod_rd;
                    b_q <= cons_rd;
                end
                R_TAKE2: begin
                    r_q          <= R_TAKE3;
                    b_q          <= b_q + 32'd1;
                    m_pick_index <= b_q;
                    pw_hot_q     <= {{(QPS-1){1'b0}}, 1'b1} << slot_q;
                    // WQEs are left unless this was the last: producer - consumer is 1..2^16.
                    left_q       <= a_q[16:0] - b_q[16:0] != 17'd1;
                end
                R_TAKE3: r_q <= R_IDLE;
                default: r_q <= R_IDLE;
            endcase
            for (int s = 0; s < QPS; s++) begin
                if (ring_clr && 32'(ring_clr_slot) == s) begin
                    pending_q[s] <= 1'b0;
                end else if (pend_we && pw_hot_q[s]) begin
                    pending_q[s] <= pend_val;
                end
            end
            // Completion ring indices.
            if (cq_restart) begin
                cq_prod_q <= '0;
                cq_cons_q <= '0;
                used_q    <= '0;
            end else begin
                cq_prod_q <= cq_prod_q + 32'(cqe_written);
                used_q    <= used_q + 17'(cqe_written)
                           - (r_q == R_CQ3 && cq_move_q ? ahead_q[16:0] : 17'd0);
                if (r_q == R_CQ3 && cq_move_q) begin
                    cq_cons_q <= ring_req_value;
                end
            end
        end
    end

    assign pending          = pending_q;
    assign cq_producer      = cq_prod_q;
    assign cq_consumer      = cq_cons_q;
    assign none_outstanding = outstanding_q == '0;
    assign quiet            = !busy_q && !m_pick_valid && !m_ack_valid && !m_turn_valid
                           && !turn_busy_q && !(ok0_q && any0_q)
                           && !(ok1_q && rr_any1) && !(ok2_q && rr_any2) && !cand_ok;

    // ------------------------------------------------------------------------------------------
    // Pick sequence: t_q = 0..4 read words 0..4 (each arrives two cycles after); t_q = 3 masks
    // and shifts the index (taken by R_TAKE2 in t_q = 1), t_q = 4 adds the ring's base, t_q = 6
    // registers word 4 and offers the pick. The words shift in from the top (img_q[4]) and
    // down a place per word, so each bit of the RAM's read data goes to one flip-flop; word 0
    // is in img_q[4] in t_q = 3, word 1 in t_q = 4, all five in place from t_q = 7.
    wqe_pkg::qp_image_t img;
    // img_q[4] read as word 0 and as word 1: only their ring fields and ring base are used.
    /* verilator lint_off UNUSEDSIGNAL */
    wqe_pkg::qp_image_t top_as_w0, top_as_w1;
    /* verilator lint_on UNUSEDSIGNAL */
    assign img       = {img_q[4], img_q[3], img_q[2], img_q[1], img_q[0]};
    assign top_as_w0 = wqe_pkg::qp_image_t'(img_q[4]);
    assign top_as_w1 = wqe_pkg::qp_image_t'({img_q[4], {CW{1'b0}}});

    assign rd_en   = busy_q && t_q <= 3'd4;
    assign rd_slot = slot_q;
    assign rd_word = t_q;

    logic       cap_q, cap2_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            busy_q       <= 1'b0;
            cap_q        <= 1'b0;
            cap2_q       <= 1'b0;
            m_pick_valid <= 1'b0;
            m_ack_valid  <= 1'b0;
            a_full_q     <= 1'b0;
            a_read_q     <= 1'b0;
            m_turn_valid <= 1'b0;
            turn_busy_q  <= 1'b0;
        end else begin
            cap_q       <= rd_en;
            cap2_q      <= cap_q;
            if (commit_pick || ack_go || rp_go) begin
                busy_q   <= 1'b1;
                t_q      <= '0;
                slot_q   <= ack_go ? SW'(a_qpn_q) : rp_go ? s_rpick_slot : cand_q;
                a_read_q <= ack_go;
            end else if (busy_q) begin
                t_q <= t_q + 3'd1;
                if (t_q == 3'd6) begin
                    busy_q       <= 1'b0;
                    m_pick_valid <= !a_read_q;
                    m_ack_valid  <= a_read_q && a_ok_q;
                end
            end
            if (m_pick_valid && m_pick_ready) begin
                m_pick_valid <= 1'b0;
            end
            if (m_ack_valid && m_ack_ready) begin
                m_ack_valid <= 1'b0;
            end
            // A turn offered, then running until turn_done.
            if (commit_turn) begin
                m_turn_valid <= 1'b1;
                turn_busy_q  <= 1'b1;
            end else if (m_turn_valid && m_turn_ready) begin
                m_turn_valid <= 1'b0;
            end
            if (turn_done) begin
                turn_busy_q <= 1'b0;
            end
            // The request register: free once its read starts.
            if (ack_go) begin
                a_full_q <= 1'b0;
            end else if (s_ack_valid && s_ack_ready) begin
                a_full_q <= 1'b1;
            end
        end
    end

    assign s_ack_ready = !a_full_q;
    assign ack_waiting = a_full_q;

    always_ff @(posedge clk) begin
        if (s_ack_valid && s_ack_ready) begin
            a_qpn_q <= s_ack_qpn;
            a_psn_q <= s_ack_psn;
            a_syn_q <= s_ack_syndrome;
            a_msn_q <= s_ack_msn;
        end
        if (commit_turn) begin
            m_turn_slot <= cand_q;
        end
        // What the pick asks of the data path: a turn's packet or prepare, else the whole WQE.
        if (commit_pick || ack_go) begin
            m_pick_rcp <= '0;
        end else if (rp_go) begin
            m_pick_rcp <= s_rpick_rcp;
        end
        if (ack_go) begin
            r_qpn_q        <= a_qpn_q;
            m_ack_psn      <= a_psn_q;
            m_ack_syndrome <= a_syn_q;
            m_ack_msn      <= a_msn_q;
        end
        // Word 0 is in img_q[4] in t_q = 3 (the slot's valid bit steady: no command runs).
        if (busy_q && t_q == 3'd3) begin
            a_ok_q <= valid[slot_q] && top_as_w0.qpn == r_qpn_q && !top_as_w0.ud
                   && !top_as_w0.raw && top_as_w0.udp_sport[15];
        end
    end

    // The RAM's read data straight into flip-flops (it comes late in the clock).
    always_ff @(posedge clk) begin
        if (cap2_q) begin
            img_q[4] <= rd_data;
            for (int w = 0; w < 4; w++) begin
                img_q[w] <= img_q[w + 1];
            end
        end
    end

    // The index's slot in its ring (RING_LOG2 is at most 16).
    wire [15:0] index_in_ring = m_pick_index[15:0] & ~(16'hFFFF << top_as_w0.ring_log2);

    always_ff @(posedge clk) begin
        if (busy_q && t_q == 3'd3) begin
            off_q <= 20'(index_in_ring) << top_as_w0.stride_log2;
        end
        if (busy_q && t_q == 3'd4) begin
            m_pick_addr <= {top_as_w1.sq_base + 58'(off_q), 6'd0};
        end
    end

    assign m_pick_slot        = 8'(slot_q);
    assign m_pick_stride_log2 = img.stride_log2;
    always_comb begin
        m_pick_ctx            = '0;
        m_pick_ctx.qpn        = img.qpn;
        m_pick_ctx.ud         = img.ud;
        m_pick_ctx.pd         = img.pd;
        m_pick_ctx.mtu        = img.mtu;
        m_pick_ctx.dest_qpn   = img.dest_qpn;
        m_pick_ctx.qkey       = img.qkey;
        m_pick_ctx.ipv6       = img.ipv6;
        m_pick_ctx.vlan       = img.vlan;
        m_pick_ctx.vid        = img.vid;
        m_pick_ctx.pcp        = img.pcp;
        m_pick_ctx.tclass     = img.tclass;
        m_pick_ctx.hop_limit  = img.hop_limit;
        m_pick_ctx.flow_label = img.flow_label;
        m_pick_ctx.udp_sport  = img.udp_sport;
        m_pick_ctx.dmac       = img.dmac;
        m_pick_ctx.smac       = img.smac;
        m_pick_ctx.src_ip     = img.src_ip;
        m_pick_ctx.dst_ip     = img.dst_ip;
        m_pick_ctx.raw        = img.raw;
    end

    // Context fields only commands use, spare bits, the ring fields (read from img_q[4] as
    // they arrive), and the index's bits above a ring.
    // The request slot's bits above a slot index (wqe_regs sends slots below QPS only).
    wire unused_img = ^{img.spare0, img.spare1, img.first_psn, img.app_fl, img.ring_log2,
                        img.sq_base, m_pick_index[31:16], ring_req_slot};

endmodule

`resetall

`endif  // ROCENIC_WQE_SCHED_SV
