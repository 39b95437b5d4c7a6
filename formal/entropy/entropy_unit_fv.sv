// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal harness of rtl/entropy/entropy_unit.sv (formal/entropy/entropy_unit.sby).
//
// Assumed: the request source obeys the valid/ready rules. Proved:
//   protocol (task prove, unbounded by k-induction): the result stream obeys them too (no
//     valid drop without a handshake, stable data while stalled), nothing comes out of reset;
//   equivalence (task bmc, bounded): every result equals formal/entropy/entropy_ref.sv applied to its
//     request, in order, none lost or invented, under any pattern of gaps and stalls. A shadow
//     FIFO here holds the expected results of the requests inside the unit (at most six: five
//     stages and the skid register).
module entropy_unit_fv (
    input wire        clk,
    input wire        rst,
    input wire        s_req_valid,
    input wire        s_req_mode,
    input wire [1:0]  s_req_profile,
    input wire        s_req_qp_type,
    input wire [23:0] s_req_lqpn,
    input wire [23:0] s_req_rqpn,
    input wire [31:0] s_req_fl,
    input wire [15:0] s_req_src_port,
    input wire [15:0] s_req_dst_port,
    input wire        m_res_ready
);

    wire        s_req_ready;
    wire        m_res_valid;
    wire [19:0] m_res_flow_label;
    wire [15:0] m_res_udp_sport;

    entropy_unit dut (
        .clk             (clk),
        .rst             (rst),
        .s_req_valid     (s_req_valid),
        .s_req_ready     (s_req_ready),
        .s_req_mode      (s_req_mode),
        .s_req_profile   (s_req_profile),
        .s_req_qp_type   (s_req_qp_type),
        .s_req_lqpn      (s_req_lqpn),
        .s_req_rqpn      (s_req_rqpn),
        .s_req_fl        (s_req_fl),
        .s_req_src_port  (s_req_src_port),
        .s_req_dst_port  (s_req_dst_port),
        .m_res_valid     (m_res_valid),
        .m_res_ready     (m_res_ready),
        .m_res_flow_label(m_res_flow_label),
        .m_res_udp_sport (m_res_udp_sport)
    );

    logic past_ok = 1'b0;
    always_ff @(posedge clk) past_ok <= 1'b1;
    always @* if (!past_ok) assume (rst);

    wire [89:0] req = {s_req_mode, s_req_profile, s_req_qp_type, s_req_lqpn, s_req_rqpn,
                       s_req_fl, s_req_src_port, s_req_dst_port};
    // The request source keeps the stream rules; the result stream is held to them.
    stream_rules #(.W($bits(req)), .SOURCE(1)) u_req_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(s_req_valid), .ready(s_req_ready),
        .data(req)
    );
    stream_rules #(.W($bits({m_res_flow_label, m_res_udp_sport})), .SOURCE(0)) u_res_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(m_res_valid), .ready(m_res_ready),
        .data({m_res_flow_label, m_res_udp_sport})
    );

`ifdef EQUIV
    wire [19:0] ref_fl;
    wire [15:0] ref_sport;
    entropy_ref u_ref (
        .mode      (s_req_mode),
        .profile   (s_req_profile),
        .qp_type   (s_req_qp_type),
        .lqpn      (s_req_lqpn),
        .rqpn      (s_req_rqpn),
        .fl        (s_req_fl),
        .src_port  (s_req_src_port),
        .dst_port  (s_req_dst_port),
        .flow_label(ref_fl),
        .udp_sport (ref_sport)
    );

    wire s_hs = s_req_valid && s_req_ready;
    wire m_hs = m_res_valid && m_res_ready;
    logic [3:0]  count_q;
    logic [35:0] exp_q [8];
    always_ff @(posedge clk) begin
        if (rst) begin
            count_q <= '0;
        end else begin
            for (int i = 0; i < 7; i++) begin
                if (m_hs) exp_q[i] <= exp_q[i + 1];
            end
            if (s_hs) exp_q[count_q - {3'd0, m_hs}] <= {ref_fl, ref_sport};
            count_q <= count_q + {3'd0, s_hs} - {3'd0, m_hs};
        end
    end

    always @* begin
        if (past_ok && !rst) begin
            assert (count_q <= 4'd6);
            if (m_res_valid) begin
                assert (count_q != 4'd0);
                assert ({m_res_flow_label, m_res_udp_sport} == exp_q[0]);
            end
        end
    end
`endif

endmodule

`resetall
