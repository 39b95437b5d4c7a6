// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal harness of rtl/rc/rc_responder.sv (formal/rc/rc_responder.sby), unbounded by
// k-induction. Assumed: the request stream obeys the valid/ready rules. Proved: the answer
// stream obeys them too, nothing comes out of reset, and every answer keeps the rules' shape
// against the request it answers (held here from its handshake):
//   - a QP in ERR answers nothing and its state stays;
//   - only an expected PSN executes, and only an executed packet moves the expected PSN
//     (by one, or by a READ's response count) and the MSN (by at most one);
//   - an acknowledgement and READ responses never go together; READ responses only for a READ;
//   - a move to ERR comes with a fatal NAK (syndrome 011, code 1 to 3) and sets ERR;
//   - the count of packets not yet acknowledged stays below the ACK interval;
//   - a sequence NAK is sent only for a PSN ahead, and only when no NAK was latched.
// The answers' values against the model are the co-simulation's (sim/tests/rc_responder.rs).
module rc_responder_fv (
    input wire        clk,
    input wire        rst,
    input wire        s_valid,
    input wire [23:0] s_epsn,
    input wire [23:0] s_msn,
    input wire        s_nak_sent,
    input wire [7:0]  s_unacked,
    input wire        s_error,
    input wire [7:0]  s_ack_every,
    input wire [4:0]  s_rnr_timer,
    input wire [23:0] s_psn,
    input wire        s_ack_req,
    input wire        s_last,
    input wire        s_read,
    input wire [23:0] s_read_psns,
    input wire        s_kept,
    input wire [2:0]  s_exec,
    input wire        m_ready
);

    wire        s_ready, m_valid, m_nak_sent, m_error, m_executed, m_ack, m_read, m_qp_error;
    wire        m_read_dropped;
    wire [23:0] m_epsn, m_msn, m_psn, m_aeth_msn;
    wire [7:0]  m_unacked, m_syndrome;
    wire [1:0]  m_class;

    rc_responder dut (
        .clk(clk),
        .rst(rst),
        .s_valid(s_valid),
        .s_ready(s_ready),
        .s_epsn(s_epsn),
        .s_msn(s_msn),
        .s_nak_sent(s_nak_sent),
        .s_unacked(s_unacked),
        .s_error(s_error),
        .s_ack_every(s_ack_every),
        .s_rnr_timer(s_rnr_timer),
        .s_psn(s_psn),
        .s_ack_req(s_ack_req),
        .s_last(s_last),
        .s_read(s_read),
        .s_read_psns(s_read_psns),
        .s_kept(s_kept),
        .s_exec(s_exec),
        .m_valid(m_valid),
        .m_ready(m_ready),
        .m_epsn(m_epsn),
        .m_msn(m_msn),
        .m_nak_sent(m_nak_sent),
        .m_unacked(m_unacked),
        .m_error(m_error),
        .m_class(m_class),
        .m_executed(m_executed),
        .m_ack(m_ack),
        .m_read(m_read),
        .m_psn(m_psn),
        .m_syndrome(m_syndrome),
        .m_aeth_msn(m_aeth_msn),
        .m_qp_error(m_qp_error),
        .m_read_dropped(m_read_dropped)
    );

    logic past_ok = 1'b0;
    always_ff @(posedge clk) past_ok <= 1'b1;
    always @* if (!past_ok) assume (rst);

    wire [125:0] req = {s_epsn, s_msn, s_nak_sent, s_unacked, s_error, s_ack_every, s_rnr_timer,
                        s_psn, s_ack_req, s_last, s_read, s_read_psns, s_kept, s_exec};
    wire [120:0] ans = {m_epsn, m_msn, m_nak_sent, m_unacked, m_error, m_class, m_executed,
                        m_ack, m_read, m_psn, m_syndrome, m_aeth_msn, m_qp_error,
                        m_read_dropped};
    stream_rules #(.W($bits(req)), .SOURCE(1)) u_req_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(s_valid), .ready(s_ready), .data(req)
    );
    stream_rules #(.W($bits(ans)), .SOURCE(0)) u_ans_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(m_valid), .ready(m_ready), .data(ans)
    );
    // A QP's state as the receive path keeps it: the count below its ACK interval.
    always @* assume (s_unacked < (s_ack_every == 8'd0 ? 8'd1 : s_ack_every));

    // The request the answer on offer answers, held from its handshake.
    logic [23:0] q_epsn, q_msn, q_psn, q_psns;
    logic [7:0]  q_every;
    logic        q_nak, q_error, q_read;
    always_ff @(posedge clk) begin
        if (s_valid && s_ready) begin
            {q_epsn, q_msn, q_psn, q_psns} <= {s_epsn, s_msn, s_psn, s_read_psns};
            {q_every, q_nak, q_error, q_read} <= {s_ack_every, s_nak_sent, s_error, s_read};
        end
    end
    wire [7:0]  every   = q_every == 8'd0 ? 8'd1 : q_every;
    wire [23:0] ahead   = q_psn - q_epsn;

    always @* begin
        if (past_ok && !rst && m_valid) begin
            if (q_error) begin
                assert (!m_executed && !m_ack && !m_read && m_error);
                assert (m_epsn == q_epsn && m_msn == q_msn);
            end
            if (m_executed) begin
                assert (m_class == rc_pkg::RC_CLASS_EXPECTED && ahead == 24'd0);
                assert (m_epsn == q_epsn + (q_read ? q_psns : 24'd1));
                assert (m_msn == q_msn || m_msn == q_msn + 24'd1);
            end else begin
                assert (m_epsn == q_epsn && m_msn == q_msn);
            end
            assert (!(m_ack && m_read));
            assert (!m_read || q_read);
            if (m_qp_error) begin
                assert (m_error && m_ack && m_syndrome[7:5] == 3'b011);
                assert (m_syndrome[4:0] >= 5'd1 && m_syndrome[4:0] <= 5'd3);
            end
            assert (m_unacked < every);
            if (m_ack && m_syndrome == rc_pkg::RC_SYN_NAK_SEQ) begin
                assert (m_class == rc_pkg::RC_CLASS_AHEAD && !q_nak && m_nak_sent);
            end
        end
    end

endmodule
