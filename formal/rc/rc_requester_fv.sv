// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal harness of rtl/rc/rc_requester.sv (formal/rc/rc_requester.sby), a bounded check of
// any operations in any order with any fields, for one QP (QPS = 1) or two (QPS = 2: any
// operation on either, so the clearing after reset and the swaps of QPs through the RAM are in
// it), on a table of 4 requests (so that operations, which take the requests outstanding plus
// eight cycles, fit many to the bound), 4-bit ids and counters and a 16-bit clock (the rules
// do not depend on the widths; the solver's time does). Assumed: the
// operation stream obeys the valid/ready rules. Proved: the answer stream obeys them too,
// nothing comes out of reset, and:
//   - one answer per operation: never more answers than operations, never more than two
//     operations unanswered (one in the block, one answer waiting), and a new operation taken
//     only when the last one has been answered or its answer waits;
//   - every answer is one its operation can give (a POST: posted, full, span or refused; an
//     acknowledgement: stale, progress, go back, RNR wait or error; ...);
//   - a packet's index lies inside its request, and an ERROR leaves the QP in ERR with a
//     transport status;
//   - no more requests outstanding than the table holds, and ERR is never left but by an
//     operation (INIT, or one that loads another QP's state); the answer names the QP its
//     operation named.
// The answers' values against the model are the co-simulation's (sim/tests/rc_requester.rs).
module rc_requester_fv #(
    parameter int QPS = 1   // QPs of the block: 1 or 2
) (
    input wire        clk,
    input wire        rst,
    input wire [2:0]  cfg_retry_cnt,
    input wire [2:0]  cfg_rnr_retry,
    input wire [23:0] cfg_max_inflight,
    input wire [15:0] cfg_timeout_ticks,
    input wire        s_valid,
    input wire        s_qp_any,   // the operation's QP, with two
    input wire [3:0]  s_op,
    input wire [23:0] s_psn,
    input wire [3:0]  s_wr,
    input wire [23:0] s_packets,
    input wire        s_read,
    input wire [7:0]  s_syndrome,
    input wire [15:0] s_rnr_ticks,
    input wire [4:0]  s_status,
    input wire [15:0] s_now,
    input wire        m_ready
);

    wire        s_ready, m_valid, m_ack_req, m_resend, st_error, m_qp;
    wire        s_qp = QPS > 1 ? s_qp_any : 1'b0;
    wire [3:0]  m_ans;
    wire [23:0] m_psn, m_index, m_packets, st_una, st_snd, st_nxt;
    wire [3:0]  m_wr;
    wire [4:0]  m_status;
    wire [15:0] m_until;
    wire [2:0]  st_outstanding;
    wire [3:0]  cnt_resent, cnt_timeouts, cnt_seq_naks, cnt_rnr_naks, cnt_read_gaps;

    rc_requester #(.QPS(QPS), .W(4), .WR_W(4), .TIME_W(16), .CNT_W(4)) dut (
        .clk(clk),
        .rst(rst),
        .cfg_retry_cnt(cfg_retry_cnt),
        .cfg_rnr_retry(cfg_rnr_retry),
        .cfg_max_inflight(cfg_max_inflight),
        .cfg_timeout_ticks(cfg_timeout_ticks),
        .s_valid(s_valid),
        .s_ready(s_ready),
        .s_qp(s_qp),
        .s_op(s_op),
        .s_psn(s_psn),
        .s_wr(s_wr),
        .s_packets(s_packets),
        .s_read(s_read),
        .s_syndrome(s_syndrome),
        .s_rnr_ticks(s_rnr_ticks),
        .s_status(s_status),
        .s_now(s_now),
        .m_valid(m_valid),
        .m_ready(m_ready),
        .m_qp(m_qp),
        .m_ans(m_ans),
        .m_psn(m_psn),
        .m_wr(m_wr),
        .m_index(m_index),
        .m_packets(m_packets),
        .m_ack_req(m_ack_req),
        .m_resend(m_resend),
        .m_status(m_status),
        .m_until(m_until),
        .st_una(st_una),
        .st_snd(st_snd),
        .st_nxt(st_nxt),
        .st_error(st_error),
        .st_outstanding(st_outstanding),
        .cnt_resent(cnt_resent),
        .cnt_timeouts(cnt_timeouts),
        .cnt_seq_naks(cnt_seq_naks),
        .cnt_rnr_naks(cnt_rnr_naks),
        .cnt_read_gaps(cnt_read_gaps)
    );

    logic past_ok = 1'b0;
    always_ff @(posedge clk) past_ok <= 1'b1;
    always @* if (!past_ok) assume (rst);

    // The settings hold (from INIT on; here from the start).
    always_ff @(posedge clk) begin
        if (past_ok) begin
            assume (cfg_retry_cnt == $past(cfg_retry_cnt));
            assume (cfg_rnr_retry == $past(cfg_rnr_retry));
            assume (cfg_max_inflight == $past(cfg_max_inflight));
            assume (cfg_timeout_ticks == $past(cfg_timeout_ticks));
        end
    end

    wire [102:0] op = {s_qp, s_op, s_psn, s_wr, s_packets, s_read, s_syndrome, s_rnr_ticks,
                       s_status, s_now};
    wire [103:0] ans = {m_qp, m_ans, m_psn, m_wr, m_index, m_packets, m_ack_req, m_resend, m_status,
                        m_until};
    stream_rules #(.W($bits(op)), .SOURCE(1)) u_op_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(s_valid), .ready(s_ready), .data(op)
    );
    stream_rules #(.W($bits(ans)), .SOURCE(0)) u_ans_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(m_valid), .ready(m_ready), .data(ans)
    );

    // The operations not yet answered, oldest first (two at most, asserted below).
    wire       take = s_valid && s_ready;
    wire       done = m_valid && m_ready;
    logic [1:0] pend;
    logic [3:0] q_op [2];
    logic       q_qp [2];
    always_ff @(posedge clk) begin
        if (rst) begin
            pend <= '0;
        end else begin
            pend <= pend + {1'b0, take} - {1'b0, done};
            if (done) begin
                q_op[0] <= q_op[1];
                q_qp[0] <= q_qp[1];
            end
            if (take) begin
                q_op[pend - {1'b0, done}] <= s_op;
                q_qp[pend - {1'b0, done}] <= s_qp;
            end
        end
    end

    // What the operation on offer may answer.
    logic allowed;
    always @* begin
        case (q_op[0])
            rc_pkg::RC_REQ_OP_POST:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_POSTED || m_ans == rc_pkg::RC_REQ_ANS_FULL
                       || m_ans == rc_pkg::RC_REQ_ANS_SPAN || m_ans == rc_pkg::RC_REQ_ANS_REFUSED;
            rc_pkg::RC_REQ_OP_SEND:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_PACKET || m_ans == rc_pkg::RC_REQ_ANS_NOTHING;
            rc_pkg::RC_REQ_OP_RECEIVE, rc_pkg::RC_REQ_OP_READ_ACCEPT, rc_pkg::RC_REQ_OP_READ_GAP:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_STALE || m_ans == rc_pkg::RC_REQ_ANS_PROGRESS
                       || m_ans == rc_pkg::RC_REQ_ANS_GO_BACK
                       || m_ans == rc_pkg::RC_REQ_ANS_RNR_WAIT
                       || m_ans == rc_pkg::RC_REQ_ANS_ERROR;
            rc_pkg::RC_REQ_OP_READ_MATCH:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_EXPECTED
                       || m_ans == rc_pkg::RC_REQ_ANS_OUT_OF_SEQUENCE
                       || m_ans == rc_pkg::RC_REQ_ANS_STALE;
            rc_pkg::RC_REQ_OP_TICK:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_NOTHING || m_ans == rc_pkg::RC_REQ_ANS_TIMEOUT
                       || m_ans == rc_pkg::RC_REQ_ANS_RNR_RESUME
                       || m_ans == rc_pkg::RC_REQ_ANS_ERROR;
            rc_pkg::RC_REQ_OP_POLL:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_NOTHING
                       || m_ans == rc_pkg::RC_REQ_ANS_COMPLETION;
            default:
                allowed = m_ans == rc_pkg::RC_REQ_ANS_NOTHING;
        endcase
    end

    always @* begin
        if (past_ok && !rst) begin
            assert (pend <= 2'd2);
            assert (!m_valid || pend != 2'd0);
            assert (!s_ready || pend == 2'd0 || (pend == 2'd1 && m_valid));
            assert (st_outstanding <= 3'd4);
            if (m_valid) begin
                assert (allowed);
                assert (m_qp == q_qp[0]);
                if (m_ans == rc_pkg::RC_REQ_ANS_PACKET) begin
                    assert (m_index < m_packets);
                end
                if (m_ans == rc_pkg::RC_REQ_ANS_ERROR) begin
                    assert (st_error);
                    assert (m_status == rc_pkg::RC_STATUS_RETRY_EXC_ERR
                         || m_status == rc_pkg::RC_STATUS_RNR_RETRY_EXC_ERR
                         || m_status == rc_pkg::RC_STATUS_REM_INV_REQ_ERR
                         || m_status == rc_pkg::RC_STATUS_REM_ACCESS_ERR
                         || m_status == rc_pkg::RC_STATUS_REM_OP_ERR
                         || m_status == rc_pkg::RC_STATUS_BAD_RESP_ERR);
                end
            end
        end
    end

    // ERR is left only by INIT (or a QP's state loaded), with an operation in the block.
    logic init_taken = 1'b0;
    always_ff @(posedge clk) init_taken <= take && s_op == rc_pkg::RC_REQ_OP_INIT;
    always_ff @(posedge clk) begin
        if (past_ok && !rst && !$past(rst) && $past(st_error) && !st_error) begin
            assert (init_taken || pend != 2'd0);
        end
    end

endmodule
