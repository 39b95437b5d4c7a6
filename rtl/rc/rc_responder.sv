// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RC_RESPONDER_SV
`define ROCENIC_RC_RESPONDER_SV
`include "rtl/rc/rc_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The responder's rules for one RC request packet (model::rc::Responder::request and ::read;
// docs/rc-responder.md). It holds no QP state: the receive path reads a QP's
// responder state from its receive context, hands it in with the packet and what executing the
// packet would find (the checks the receive path makes before writing anything), and writes
// back the state that comes out; the packet's data is written only when `m_executed` says so.
// One packet a cycle, the answer registered.
//
// The state: the expected PSN, the MSN, whether a NAK was sent since the expected PSN last
// arrived (further packets ahead are then not answered), the packets executed since the last
// ACK, and whether the QP's receive side is in ERR (everything after is dropped unanswered).
//
// A request: its PSN, AckReq, whether it is a message's last packet. A READ request takes
// `s_read_psns` PSNs (its responses, at least one); a duplicate READ is executed again when
// `s_kept` says that a READ the receive path keeps holds it (model::rc::Responder::kept),
// else it is dropped unanswered (`m_read_dropped`).
//
// The answer: the PSN's class; whether to execute; an acknowledgement to send (`m_ack`: BTH
// PSN `m_psn`, AETH syndrome `m_syndrome` and MSN `m_msn`), or READ responses to send
// (`m_read`: from PSN `m_psn`, the AETHs' MSN `m_msn`), or nothing; and whether the QP went to
// ERR (a NAK other than a sequence error or RNR).
module rc_responder #(
    parameter int ACK_W = 8   // width of `ack_every` and of the count of packets not yet acknowledged
) (
    input  wire              clk,
    input  wire              rst,           // synchronous, active high
    // a request and its QP's state
    input  wire              s_valid,
    output logic             s_ready,
    input  wire  [23:0]      s_epsn,        // state: the expected PSN
    input  wire  [23:0]      s_msn,         //        the MSN
    input  wire              s_nak_sent,    //        a NAK sent, the expected PSN not back yet
    input  wire  [ACK_W-1:0] s_unacked,     //        packets executed since the last ACK
    input  wire              s_error,       //        the receive side is in ERR
    input  wire  [ACK_W-1:0] s_ack_every,   // settings: ACK at least every this many (0 as 1)
    input  wire  [4:0]       s_rnr_timer,   //           the RNR NAK's timer code
    input  wire  [23:0]      s_psn,         // the packet: its BTH PSN
    input  wire              s_ack_req,     //             AckReq
    input  wire              s_last,        //             a LAST or ONLY opcode
    input  wire              s_read,        //             an RDMA READ request
    input  wire  [23:0]      s_read_psns,   //             its response count (READ)
    input  wire              s_kept,        //             a kept READ holds it (READ duplicate)
    input  wire  [rc_pkg::RC_EXEC_W-1:0] s_exec,   // what executing it finds
    // the answer and the state to write back
    output logic             m_valid,
    input  wire              m_ready,
    output logic [23:0]      m_epsn,
    output logic [23:0]      m_msn,
    output logic             m_nak_sent,
    output logic [ACK_W-1:0] m_unacked,
    output logic             m_error,
    output logic [rc_pkg::RC_CLASS_W-1:0] m_class,
    output logic             m_executed,
    output logic             m_ack,
    output logic             m_read,
    output logic [23:0]      m_psn,
    output logic [7:0]       m_syndrome,
    output logic [23:0]      m_aeth_msn,
    output logic             m_qp_error,
    output logic             m_read_dropped
);

    // The output register takes a new answer whenever it is empty or being taken.
    assign s_ready = !m_valid || m_ready;
    wire take = s_valid && s_ready;

    // Where the PSN lies: ahead by less than half the space is a gap, the rest behind.
    wire [23:0] ahead = s_psn - s_epsn;
    logic [rc_pkg::RC_CLASS_W-1:0] cls;
    always_comb begin
        if (ahead == 24'd0) begin
            cls = rc_pkg::RC_CLASS_EXPECTED;
        end else if (ahead < rc_pkg::RC_PSN_HALF) begin
            cls = rc_pkg::RC_CLASS_AHEAD;
        end else begin
            cls = rc_pkg::RC_CLASS_DUPLICATE;
        end
    end

    wire [ACK_W-1:0] every   = s_ack_every == '0 ? ACK_W'(1) : s_ack_every;
    wire [ACK_W-1:0] counted = s_unacked + ACK_W'(1);
    wire [23:0]      msn_up  = s_msn + 24'd1;

    // The NAK a failed execution sends (none for DONE); a READ finds no receive WQE only as an
    // operational fault.
    logic       fatal;
    logic [7:0] fatal_syn;
    logic [rc_pkg::RC_EXEC_W-1:0] ex;   // the verdict, a READ spread over half the space refused
    always_comb begin
        ex = s_exec;
        if (s_read && cls == rc_pkg::RC_CLASS_EXPECTED && s_read_psns >= rc_pkg::RC_PSN_HALF) begin
            ex = rc_pkg::RC_EXEC_INVALID_REQUEST;
        end
        fatal     = 1'b1;
        fatal_syn = rc_pkg::RC_SYN_NAK_OPERATIONAL;
        case (ex)
            rc_pkg::RC_EXEC_DONE:            fatal = 1'b0;
            rc_pkg::RC_EXEC_INVALID_REQUEST: fatal_syn = rc_pkg::RC_SYN_NAK_INVALID;
            rc_pkg::RC_EXEC_ACCESS_ERROR:    fatal_syn = rc_pkg::RC_SYN_NAK_ACCESS;
            default: ;   // NO_RECEIVE_WQE (a READ's), OPERATIONAL_ERROR
        endcase
    end

    // The rules, in model::rc::Responder's order.
    logic [23:0]      n_epsn, n_msn, r_psn, r_msn;
    logic             n_nak, n_error, r_exec, r_ack, r_read, r_qp_err, r_drop;
    logic [ACK_W-1:0] n_unacked;
    logic [7:0]       r_syn;
    always_comb begin
        n_epsn    = s_epsn;
        n_msn     = s_msn;
        n_nak     = s_nak_sent;
        n_unacked = s_unacked;
        n_error   = s_error;
        r_exec    = 1'b0;
        r_ack     = 1'b0;
        r_read    = 1'b0;
        r_qp_err  = 1'b0;
        r_drop    = 1'b0;
        r_psn     = s_epsn;
        r_syn     = rc_pkg::RC_SYN_ACK;
        r_msn     = s_msn;
        if (s_error) begin
            // Dropped unanswered.
        end else if (cls == rc_pkg::RC_CLASS_AHEAD) begin
            // One NAK per gap, carrying the expected PSN.
            if (!s_nak_sent) begin
                n_nak = 1'b1;
                r_ack = 1'b1;
                r_syn = rc_pkg::RC_SYN_NAK_SEQ;
            end
        end else if (s_read) begin
            if (cls == rc_pkg::RC_CLASS_DUPLICATE && !s_kept) begin
                r_drop = 1'b1;
            end else begin
                if (cls == rc_pkg::RC_CLASS_EXPECTED) begin
                    n_nak = 1'b0;
                end
                if (fatal) begin
                    // At the expected PSN, or a kept duplicate's own.
                    r_ack    = 1'b1;
                    r_psn    = cls == rc_pkg::RC_CLASS_EXPECTED ? s_epsn : s_psn;
                    r_syn    = fatal_syn;
                    r_qp_err = 1'b1;
                    n_error  = 1'b1;
                end else begin
                    r_read = 1'b1;
                    r_psn  = s_psn;
                    if (cls == rc_pkg::RC_CLASS_EXPECTED) begin
                        // Its last response acknowledges everything before it.
                        r_exec    = 1'b1;
                        n_epsn    = s_epsn + s_read_psns;
                        n_msn     = msn_up;
                        r_msn     = msn_up;
                        n_unacked = '0;
                    end
                end
            end
        end else if (cls == rc_pkg::RC_CLASS_DUPLICATE) begin
            // Acknowledged again, up to the PSN before the expected one.
            r_ack     = 1'b1;
            r_psn     = s_epsn - 24'd1;
            n_unacked = '0;
        end else begin
            n_nak = 1'b0;
            if (!fatal) begin
                r_exec    = 1'b1;
                n_epsn    = s_epsn + 24'd1;
                n_msn     = s_last ? msn_up : s_msn;
                r_msn     = n_msn;
                n_unacked = counted;
                if (s_ack_req || counted >= every) begin
                    r_ack     = 1'b1;
                    r_psn     = s_psn;
                    n_unacked = '0;
                end
            end else if (ex == rc_pkg::RC_EXEC_NO_RECEIVE_WQE) begin
                // The PSN is not consumed; the requester sends it again after the delay.
                n_nak = 1'b1;
                r_ack = 1'b1;
                r_syn = rc_pkg::RC_SYN_RNR | {3'b0, s_rnr_timer};
            end else begin
                r_ack    = 1'b1;
                r_syn    = fatal_syn;
                r_qp_err = 1'b1;
                n_error  = 1'b1;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            m_valid <= 1'b0;
        end else if (s_ready) begin
            m_valid <= s_valid;
        end
        // The answer's fields load only with a request: they hold while it waits.
        if (take) begin
            m_epsn         <= n_epsn;
            m_msn          <= n_msn;
            m_nak_sent     <= n_nak;
            m_unacked      <= n_unacked;
            m_error        <= n_error;
            m_class        <= cls;
            m_executed     <= r_exec;
            m_ack          <= r_ack;
            m_read         <= r_read;
            m_psn          <= r_psn;
            m_syndrome     <= r_syn;
            m_aeth_msn     <= r_msn;
            m_qp_error     <= r_qp_err;
            m_read_dropped <= r_drop;
        end
    end

endmodule

`endif  // ROCENIC_RC_RESPONDER_SV
