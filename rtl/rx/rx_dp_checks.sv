// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_DP_CHECKS_SV
`define ROCENIC_RX_DP_CHECKS_SV
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_dp's checks of a RoCEv2 frame against its receive context and its QP, in
// model::rx::RecvEngine's order (docs/rx-dp.md, "One frame"), in two registered steps from the
// data path's registers: a flag per check, then the first that fails (`fail`, and its discard
// code). The data path reads the verdict two cycles after its inputs settle (M_CHK0, M_CHK1).
module rx_dp_checks (
    input  wire               clk,
    input  rx_ctrl_pkg::ctx_t ctx,          // the receive context as read
    input  wire               sq_valid,     // the send side's slot holds a QP...
    input  wire               sq_rcv,       // ...in RTR or RTS
    input  wire [23:0]        dest_qpn,     // the BTH's
    input  wire [23:0]        psn,
    input  wire [31:0]        qkey,         // the DETH's
    input  wire [12:0]        payload_len,
    input  wire               ud,           // a UD opcode
    input  wire               write,        // RC: an RDMA WRITE opcode...
    input  wire               first,        // ...starting a message (FIRST, ONLY)...
    input  wire               full,         // ...or one that must carry a whole MTU (FIRST, MIDDLE)
    input  wire [12:0]        mtu,          // the path MTU in bytes
    input  wire               want_ok,      // the queue a UD frame names exists
    input  wire               responder,    // the RC responder is on: its ERR stops execution
    output logic              want_ok_q,    // want_ok, registered
    output logic              fail,         // a check failed...
    output logic [3:0]        code          // ...this one (rx_pkg::RX_DISCARD_*)
);

    logic f_noqp, f_qpst, f_trans, f_qkey, f_long, f_short, f_psn, f_seq;
    always_ff @(posedge clk) begin
        f_noqp    <= !ctx.valid || ctx.qpn != dest_qpn || !sq_valid;
        f_qpst    <= !sq_rcv;
        f_trans   <= ud != ctx.ud;
        f_qkey    <= qkey != ctx.qkey;
        f_long    <= payload_len > mtu;
        f_short   <= full && payload_len != mtu;
        f_psn     <= psn != ctx.rcv.epsn || (responder && ctx.rcv.resp.error);
        f_seq     <= first ? ctx.rcv.msg != rx_ctrl_pkg::MSG_NONE
                   : ctx.rcv.msg != (write ? rx_ctrl_pkg::MSG_WRITE : rx_ctrl_pkg::MSG_SEND);
        want_ok_q <= want_ok;
        fail      <= 1'b1;
        if (f_noqp) begin
            code <= rx_pkg::RX_DISCARD_NO_QP;
        end else if (f_qpst) begin
            code <= rx_pkg::RX_DISCARD_QP_STATE;
        end else if (f_trans) begin
            code <= rx_pkg::RX_DISCARD_TRANSPORT;
        end else if (ud && f_qkey) begin
            code <= rx_pkg::RX_DISCARD_QKEY;
        end else if (ud && f_long) begin
            code <= rx_pkg::RX_DISCARD_LENGTH;
        end else if (ud && !want_ok_q) begin
            code <= rx_pkg::RX_DISCARD_NO_WQ;
        end else if (!ud && f_psn) begin
            code <= rx_pkg::RX_DISCARD_PSN;
        end else if (!ud && f_seq) begin
            code <= rx_pkg::RX_DISCARD_SEQUENCE;
        end else if (!ud && (f_long || f_short)) begin
            code <= rx_pkg::RX_DISCARD_LENGTH;
        end else begin
            fail <= 1'b0;
            code <= rx_pkg::RX_DISCARD_NO_QP;
        end
    end

    // The context fields the checks do not read.
    wire unused = ^{ctx.kind, ctx.wq, ctx.mtu, ctx.pd, ctx.rcv.msg_wq, ctx.rcv.msg_addr,
                    ctx.rcv.msg_arg, ctx.rcv.msg_done, ctx.rcv.resp.msn, ctx.rcv.resp.nak_sent,
                    ctx.rcv.resp.unacked};

endmodule

`resetall

`endif  // ROCENIC_RX_DP_CHECKS_SV
