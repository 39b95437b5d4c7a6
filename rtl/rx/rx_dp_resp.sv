// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_DP_RESP_SV
`define ROCENIC_RX_DP_RESP_SV
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_pkg.sv"
`include "rtl/rc/rc_pkg.sv"
`include "rtl/rc/rc_responder.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_dp's RC responder at a frame's end (docs/rx-dp.md, "The RC responder"): what executing the
// packet found, as model::rx's `executed` maps the frame's discard or its completion's status,
// and the rules of rc_responder on the QP's responder state. The data path holds every input
// still from the frame's end on; it asks (`take`) two cycles later at the earliest and takes the
// answer the cycle after (`done`), so the block is always ready.
//
// Every input is copied into a register here, and the PSNs made relative to the expected one:
// the rules depend only on PSN differences modulo 2^24, so the block sees an expected PSN of 0
// and the packet's distance from it (one registered subtraction), and the expected PSN is added
// back to the PSNs that come out. Fed from the data path's registers directly, the rules' carry
// chain and comparisons in one cycle placed at 99.3 MHz; with the copies only, 107.6; so, 126.9.
module rx_dp_resp (
    input  wire                clk,
    input  wire                rst,         // synchronous, active high
    // the packet and its QP's state, held from the frame's end
    input  rx_ctrl_pkg::resp_t state,       // the context's responder state
    input  wire [23:0]         epsn,        // the context's expected PSN
    input  wire [23:0]         psn,         // the packet's BTH PSN...
    input  wire                ack_req,     // ...AckReq...
    input  wire                last,        // ...and whether it ends its message
    input  wire [7:0]          ack_every,   // CONTROL.ACK_EVERY
    input  wire [4:0]          rnr_timer,   // CONTROL.RNR_TIMER
    // what executing it found
    input  wire                disc,        // discarded, for this reason...
    input  wire [3:0]          why,
    input  wire [4:0]          status,      // ...else its completion's status (0: success, none)
    // one question, one answer
    input  wire                take,        // the rules take the held inputs...
    input  wire                done,        // ...and their answer is taken the cycle after
    output logic [23:0]        r_epsn,      // the expected PSN to write back
    output rx_ctrl_pkg::resp_t r_state,     // the state to write back
    output logic               r_ack,       // an acknowledgement: BTH PSN, AETH syndrome, MSN
    output logic [23:0]        r_psn,
    output logic [7:0]         r_syndrome,
    output logic [23:0]        r_msn,
    output logic               r_qp_error   // the QP goes to ERR
);

    // model::qp::Status codes.
    localparam logic [4:0] ST_SUCCESS = wqe_fmt_pkg::STATUS_SUCCESS;
    localparam logic [4:0] ST_LOC_LEN = wqe_fmt_pkg::STATUS_LOC_LEN_ERR;

    rx_ctrl_pkg::resp_t ri_state;
    logic [23:0] ri_base, ri_psn;
    logic        ri_ack_req, ri_last;
    logic [7:0]  ri_every;
    logic [4:0]  ri_rnr;
    logic [rc_pkg::RC_EXEC_W-1:0] ri_exec;
    always_ff @(posedge clk) begin
        ri_state   <= state;
        ri_base    <= epsn;
        ri_psn     <= psn - epsn;
        ri_ack_req <= ack_req;
        ri_last    <= last;
        ri_every   <= ack_every;
        ri_rnr     <= rnr_timer;
        // A PSN not executed: the rules ignore the verdict.
        if (!disc) begin
            ri_exec <= status == ST_LOC_LEN ? rc_pkg::RC_EXEC_INVALID_REQUEST
                     : status != ST_SUCCESS ? rc_pkg::RC_EXEC_OPERATIONAL_ERROR
                     : rc_pkg::RC_EXEC_DONE;
        end else begin
            case (why)
                rx_pkg::RX_DISCARD_PSN:      ri_exec <= rc_pkg::RC_EXEC_DONE;
                rx_pkg::RX_DISCARD_NO_WQE,
                rx_pkg::RX_DISCARD_CQ_FULL:  ri_exec <= rc_pkg::RC_EXEC_NO_RECEIVE_WQE;
                rx_pkg::RX_DISCARD_SEQUENCE,
                rx_pkg::RX_DISCARD_LENGTH:   ri_exec <= rc_pkg::RC_EXEC_INVALID_REQUEST;
                rx_pkg::RX_DISCARD_RKEY:     ri_exec <= rc_pkg::RC_EXEC_ACCESS_ERROR;
                default:                     ri_exec <= rc_pkg::RC_EXEC_OPERATIONAL_ERROR;
            endcase
        end
    end

    logic [23:0] rel_epsn, rel_psn, msn_n;
    logic        nak_n, error_n, r_valid, r_ready, r_executed, r_read, r_read_dropped;
    logic [7:0]  unacked_n;
    logic [rc_pkg::RC_CLASS_W-1:0] r_class;
    rc_responder #(.ACK_W(8)) u_rules (
        .clk, .rst,
        .s_valid(take), .s_ready(r_ready),
        .s_epsn(24'd0), .s_msn(ri_state.msn), .s_nak_sent(ri_state.nak_sent),
        .s_unacked(ri_state.unacked), .s_error(ri_state.error),
        .s_ack_every(ri_every), .s_rnr_timer(ri_rnr),
        .s_psn(ri_psn), .s_ack_req(ri_ack_req), .s_last(ri_last),
        .s_read(1'b0), .s_read_psns(24'd1), .s_kept(1'b0), .s_exec(ri_exec),
        .m_valid(r_valid), .m_ready(done),
        .m_epsn(rel_epsn), .m_msn(msn_n), .m_nak_sent(nak_n), .m_unacked(unacked_n),
        .m_error(error_n), .m_class(r_class), .m_executed(r_executed), .m_ack(r_ack),
        .m_read(r_read), .m_psn(rel_psn), .m_syndrome(r_syndrome), .m_aeth_msn(r_msn),
        .m_qp_error(r_qp_error), .m_read_dropped(r_read_dropped)
    );
    assign r_epsn  = rel_epsn + ri_base;
    assign r_psn   = rel_psn + ri_base;
    assign r_state = {msn_n, nak_n, unacked_n, error_n};   // rx_ctrl_pkg::resp_t's order

    // Always ready (see above); the class and `executed` agree with what the data path did (its
    // PSN check is the class), and no READ goes in.
    wire unused = ^{r_valid, r_ready, r_class, r_executed, r_read, r_read_dropped};

endmodule

`resetall

`endif  // ROCENIC_RX_DP_RESP_SV
