// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_QP_TABLE_SV
`define ROCENIC_WQE_QP_TABLE_SV
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/wqe/wqe_pkg.sv"
`include "rtl/wqe/wqe_regs_pkg.sv"
`include "rtl/wqe/wqe_ctx_ram.sv"
`include "rtl/entropy/entropy_unit.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The QP context table: QPS slots, each a context in block RAM (wqe_ctx_ram, the layout
// wqe_pkg::qp_image_t), a state and a valid bit in flip-flops, and the next PSN in LUT RAM; the
// QP commands that change them; the data path's ERR and PSN ports. docs/wqe-ctrl.md, "Control plane
// (RTL)", gives the semantics; model::qp is the reference (QpContext, QpState).
//
// Commands (cmd_start with the command's fields; wqe_ctrl starts one only while the scheduler
// and the data path are idle, so nothing else reads or writes the table meanwhile):
//   QP_WRITE    the staged context into the slot, state RESET, next PSN the staged PSN, entropy
//               cleared, the send ring's indices to 0 (ring_clr). Refused: slot >= QPS, a
//               STRIDE_LOG2 above 4, a RING_LOG2 above 16, an MTU code outside 1..5 (a raw
//               QP, RAW: an MTU code other than 0, or UD).
//   QP_MODIFY   the verbs transition table of model/src/qp/state.rs. Entering RTR (only legal
//               from INIT) fixes an RC QP's flow label and UDP source port with the entropy unit
//               (QP mode, `profile`, lqpn = its QPN, rqpn = its destination QPN, fl = its
//               application flow label, RC), and clears a UD QP's. RESET clears them, rewinds the
//               next PSN to the staged one and the ring's indices to 0 (QpContext::modify; the
//               indices as Doorbell::new after a reset). Refused: slot >= QPS or not valid, a
//               state code that is not a QP state, an illegal transition.
//   QP_DESTROY  the slot is no longer valid. Refused: slot >= QPS or not valid.
// A refused command changes nothing. cmd_done pulses when it is over, with cmd_error.
//
// Data path: err_set moves a slot to ERR from any state (QpContext::set_error), visible from
// the next cycle. psn_take hands out psn_take_count consecutive PSNs of a slot: the first is on
// psn_take_first in the next cycle, and a take in that cycle sees the advanced PSN (mod 2^24).
// A slot >= QPS on either port is ignored.
//
// Pick reads (rd_*): the scheduler reads a slot's words 0..4; rd_data holds word rd_word of
// rd_slot two cycles after rd_en (the block RAM's read data is registered once more, right at
// the RAM: it comes late in the clock and goes to several places).
module wqe_qp_table #(
    parameter  int QPS = 64,                      // QP slots, a power of two, 4..256
    localparam int SW  = $clog2(QPS),             // slot index width
    localparam int CW  = wqe_pkg::CTX_WORD        // context RAM word
) (
    input  wire              clk,
    input  wire              rst,                 // synchronous, active high
    // commands
    input  wire              cmd_start,           // one cycle
    input  wire [3:0]        cmd_op,              // QP_WRITE, QP_MODIFY or QP_DESTROY
    input  wire [7:0]        cmd_slot,
    input  wire [2:0]        cmd_state,           // QP_MODIFY's target
    input  wqe_pkg::qp_image_t staged,            // QP_WRITE's context (held while running)
    input  wire [1:0]        profile,             // entropy profile (CONTROL.PROFILE)
    output logic             cmd_done,            // one cycle...
    output logic             cmd_error,           // ...with this
    // send ring reset, to the scheduler (one cycle)
    output logic             ring_clr,
    output logic [SW-1:0]    ring_clr_slot,
    output logic [4:0]       ring_clr_log2,
    // context reads (the scheduler's picks)
    input  wire              rd_en,
    input  wire [SW-1:0]     rd_slot,
    input  wire [2:0]        rd_word,
    output logic [CW-1:0]    rd_data,
    // per slot
    output logic [QPS-1:0]   valid,               // holds a QP
    output logic [QPS-1:0]   runnable,            // valid, in RTS or ERR
    output logic [QPS-1:0]   rcv,                 // valid, in RTR or RTS (the receive side's)
    output logic [QPS-1:0]   qp_err,              // valid, in ERR
    // data path
    input  wire              err_set_valid,
    input  wire [7:0]        err_set_slot,
    input  wire              psn_take_valid,
    input  wire [7:0]        psn_take_slot,
    input  wire [23:0]       psn_take_count,
    output logic [23:0]      psn_take_first
);

    if (QPS < 4 || QPS > 256 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
        $error("wqe_qp_table: QPS must be a power of two, 4..256, got %0d", QPS);
    end

    localparam logic [2:0] ST_RESET = wqe_fmt_pkg::QP_STATE_RESET;
    localparam logic [2:0] ST_INIT  = wqe_fmt_pkg::QP_STATE_INIT;
    localparam logic [2:0] ST_RTR   = wqe_fmt_pkg::QP_STATE_RTR;
    localparam logic [2:0] ST_RTS   = wqe_fmt_pkg::QP_STATE_RTS;
    localparam logic [2:0] ST_ERR   = wqe_fmt_pkg::QP_STATE_ERR;
    localparam int         WORDS    = wqe_pkg::CTX_WORDS;
    localparam int         COLS     = wqe_pkg::CTX_COLS;
    // A command looks its slot up in rows of LR slots (QPS >= 4: at least one bit above a row).
    localparam int         LB       = SW > 3 ? 3 : SW - 1;
    localparam int         LR       = 2 ** LB;

    // Whether verbs allows a modify from `from` to `to` (QpState::can_modify_to): RESET from
    // anywhere; INIT from RESET and INIT; RTR from INIT; RTS from RTR and RTS; ERR from all but
    // RESET. Codes that are no state are refused.
    function automatic logic can_modify(input logic [2:0] from, input logic [2:0] to);
        case (to)
            ST_RESET: can_modify = 1'b1;
            ST_INIT:  can_modify = from == ST_RESET || from == ST_INIT;
            ST_RTR:   can_modify = from == ST_INIT;
            ST_RTS:   can_modify = from == ST_RTR || from == ST_RTS;
            ST_ERR:   can_modify = from != ST_RESET;
            default:  can_modify = 1'b0;
        endcase
    endfunction

    // ------------------------------------------------------------------------------------------
    // State and valid bits.
    logic [QPS-1:0][2:0] state_q;
    logic [QPS-1:0] valid_q;

    for (genvar s = 0; s < QPS; s++) begin : g_slot
        assign runnable[s] = valid_q[s] && (state_q[s] == ST_RTS || state_q[s] == ST_ERR);
        assign qp_err[s]   = valid_q[s] && state_q[s] == ST_ERR;
        assign rcv[s]      = valid_q[s] && (state_q[s] == ST_RTR || state_q[s] == ST_RTS);
    end
    assign valid = valid_q;

    // ------------------------------------------------------------------------------------------
    // The command sequencer.
    typedef enum logic [3:0] {
        C_IDLE,    // waiting for cmd_start
        C_LOOK,    // the slot's valid bit and state
        C_CHECK,   // the checks; QP_DESTROY ends here
        C_WRITE,   // QP_WRITE: words 0..WORDS-1
        C_READ,    // QP_MODIFY: word 0 read...
        C_WAIT,    // ...leaves the RAM...
        C_HOLD,    // ...arrives, and is registered
        C_APPLY,   // the new state, and what goes with it
        C_ENT_REQ, // RC to RTR: the request to the entropy unit...
        C_ENT_RES  // ...and its result
    } cstate_t;
    cstate_t             c_q;
    logic [3:0]          c_op_q;
    logic [SW-1:0]       c_slot_q;
    logic                c_slot_ok_q;
    logic                c_valid_q;  // the slot's valid bit and state, looked up in two steps:
    logic [2:0]          c_from_q;   // the row of LR slots that holds it, then the slot
    logic [LR-1:0]       c_row_valid_q;
    logic [LR-1:0][2:0]  c_row_state_q;
    logic [2:0]          c_to_q;
    logic [2:0]          c_word_q;
    wqe_pkg::qp_image_t  w0_q;      // word 0 of the slot (its other words unused)
    logic                sw_q, vw_q; // write the slot's state (sv_q), valid bit (vv_q)
    logic [2:0]          sv_q;
    logic                vv_q;

    // The context RAM's ports.
    logic [COLS-1:0]     ram_we;
    logic [SW+2:0]       ram_waddr;
    logic [CW-1:0]       ram_wdata;
    logic                ram_re;
    logic [SW+2:0]       ram_raddr;

    // The next-PSN LUT RAM's write port: a command, else a take.
    logic                psn_cmd_we;
    logic [23:0]         psn_cmd_value;

    // Entropy unit.
    logic                ent_req_ready;
    logic                ent_res_valid;
    logic [19:0]         ent_res_fl;
    logic [15:0]         ent_res_sport;

    // A raw-packet QP has no path MTU: it is written with MTU 0 and is not UD.
    wire                shape_ok    = staged.stride_log2 <= 3'd4 && staged.ring_log2 <= 5'd16
                                   && (staged.raw ? staged.mtu == 3'd0 && !staged.ud
                                                  : staged.mtu >= 3'd1 && staged.mtu <= 3'd5);
    wire                last_word   = 32'(c_word_q) == WORDS - 1;

    // QP_WRITE's words: the staged context, followed outside C_WRITE and shifted down a word
    // per write in it, so that the RAM's write data is always the low word (a shift register
    // along the context rather than a multiplexer of all its words onto the RAM's port). The
    // staging registers hold still from the command's start, two cycles before C_WRITE; the
    // choice is the state register's alone (it reaches every bit).
    logic [CW*WORDS-1:0] c_shift_q;
    always_ff @(posedge clk) begin
        c_shift_q <= c_q == C_WRITE ? c_shift_q >> CW : staged;
    end

    always_comb begin
        ram_we        = '0;
        ram_waddr     = {c_slot_q, c_word_q};
        ram_wdata     = c_shift_q[CW-1:0];
        psn_cmd_we    = 1'b0;
        psn_cmd_value = staged.first_psn;
        case (c_q)
            C_WRITE: begin
                ram_we = '1;
                psn_cmd_we = last_word;
            end
            C_APPLY: begin
                // RESET and a UD or raw QP's RTR clear the entropy cell; RC to RTR writes it below.
                ram_we[0]     = c_to_q == ST_RESET || c_to_q == ST_RTR;
                ram_waddr     = {c_slot_q, 3'd0};
                ram_wdata     = '0;
                psn_cmd_we    = c_to_q == ST_RESET;
                psn_cmd_value = w0_q.first_psn;
            end
            C_ENT_RES: begin
                ram_we[0] = ent_res_valid;
                ram_waddr = {c_slot_q, 3'd0};
                ram_wdata = '0;
                ram_wdata[wqe_pkg::ENTROPY_W-1:0] = {ent_res_fl, ent_res_sport};
            end
            default: ;
        endcase
        // The scheduler reads only while no command runs.
        ram_re    = c_q == C_READ || (c_q == C_IDLE && rd_en);
        ram_raddr = c_q == C_READ ? {c_slot_q, 3'd0} : {rd_slot, rd_word};
    end

    logic [CW-1:0] ram_rdata;

    wqe_ctx_ram #(
        .COLS (COLS),
        .DEPTH(8 * QPS)
    ) u_ram (
        .clk  (clk),
        .we   (ram_we),
        .waddr(ram_waddr),
        .wdata(ram_wdata),
        .re   (ram_re),
        .raddr(ram_raddr),
        .rdata(ram_rdata)
    );

    always_ff @(posedge clk) begin
        rd_data <= ram_rdata;
    end

    entropy_unit u_entropy (
        .clk             (clk),
        .rst             (rst),
        .s_req_valid     (c_q == C_ENT_REQ),
        .s_req_ready     (ent_req_ready),
        .s_req_mode      (1'b0),          // QP
        .s_req_profile   (profile),
        .s_req_qp_type   (1'b0),          // RC
        .s_req_lqpn      (w0_q.qpn),
        .s_req_rqpn      (w0_q.dest_qpn),
        .s_req_fl        (32'(w0_q.app_fl)),
        .s_req_src_port  (16'd0),
        .s_req_dst_port  (16'd0),
        .m_res_valid     (ent_res_valid),
        .m_res_ready     (1'b1),
        .m_res_flow_label(ent_res_fl),
        .m_res_udp_sport (ent_res_sport)
    );

    // The slots' state and valid bits, each written by its own decode: the data path's move to
    // ERR (no command runs while the data path works), or a command's write the cycle after it
    // is decided (with its cmd_done, before BUSY clears), from the slot decoded at the start.
    logic [QPS-1:0] c_hot_q;
    for (genvar s = 0; s < QPS; s++) begin : g_state
        wire err_here = err_set_valid && 32'(err_set_slot) == s;
        always_ff @(posedge clk) begin
            if (rst) begin
                state_q[s] <= ST_RESET;
                valid_q[s] <= 1'b0;
            end else begin
                if (sw_q && c_hot_q[s]) begin
                    state_q[s] <= sv_q;
                end else if (err_here) begin
                    state_q[s] <= ST_ERR;
                end
                if (vw_q && c_hot_q[s]) begin
                    valid_q[s] <= vv_q;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            c_q       <= C_IDLE;
            cmd_done  <= 1'b0;
            cmd_error <= 1'b0;
            ring_clr  <= 1'b0;
            sw_q      <= 1'b0;
            vw_q      <= 1'b0;
        end else begin
            cmd_done <= 1'b0;
            ring_clr <= 1'b0;
            sw_q     <= 1'b0;
            vw_q     <= 1'b0;
            case (c_q)
                C_IDLE: begin
                    if (cmd_start) begin
                        c_q         <= C_LOOK;
                        c_op_q      <= cmd_op;
                        c_slot_q    <= cmd_slot[SW-1:0];
                        c_slot_ok_q <= 32'(cmd_slot) < QPS;
                        c_hot_q     <= {{(QPS-1){1'b0}}, 1'b1} << cmd_slot[SW-1:0];
                        c_row_valid_q <= valid_q[LR * cmd_slot[SW-1:LB] +: LR];
                        c_row_state_q <= state_q[LR * cmd_slot[SW-1:LB] +: LR];
                        c_to_q      <= cmd_state;
                        c_word_q    <= '0;
                    end
                end
                C_LOOK: begin
                    c_q       <= C_CHECK;
                    c_valid_q <= c_row_valid_q[c_slot_q[LB-1:0]];
                    c_from_q  <= c_row_state_q[c_slot_q[LB-1:0]];
                end
                C_CHECK: begin
                    c_q <= C_IDLE;
                    cmd_done  <= 1'b1;
                    cmd_error <= 1'b1;
                    case (c_op_q)
                        wqe_regs_pkg::WQE_OP_QP_WRITE: begin
                            if (c_slot_ok_q && shape_ok) begin
                                c_q      <= C_WRITE;
                                cmd_done <= 1'b0;
                            end
                        end
                        wqe_regs_pkg::WQE_OP_QP_MODIFY: begin
                            if (c_slot_ok_q && c_valid_q && can_modify(c_from_q, c_to_q)) begin
                                c_q      <= C_READ;
                                cmd_done <= 1'b0;
                            end
                        end
                        wqe_regs_pkg::WQE_OP_QP_DESTROY: begin
                            if (c_slot_ok_q && c_valid_q) begin
                                vw_q <= 1'b1;
                                vv_q <= 1'b0;
                                cmd_error         <= 1'b0;
                            end
                        end
                        default: ;
                    endcase
                end
                C_WRITE: begin
                    c_word_q <= c_word_q + 3'd1;
                    if (last_word) begin
                        c_q                <= C_IDLE;
                        vw_q               <= 1'b1;
                        vv_q               <= 1'b1;
                        sw_q               <= 1'b1;
                        sv_q               <= ST_RESET;
                        ring_clr           <= 1'b1;
                        ring_clr_slot      <= c_slot_q;
                        ring_clr_log2      <= staged.ring_log2;
                        cmd_done           <= 1'b1;
                        cmd_error          <= 1'b0;
                    end
                end
                C_READ: c_q <= C_WAIT;
                C_WAIT: c_q <= C_HOLD;
                C_HOLD: begin
                    c_q  <= C_APPLY;
                    w0_q <= wqe_pkg::qp_image_t'({{(CW*(WORDS-1)){1'b0}}, rd_data});
                end
                C_APPLY: begin
                    // Only RC has entropy: UD computes it per WQE, a raw QP sends none.
                    if (c_to_q == ST_RTR && !w0_q.ud && !w0_q.raw) begin
                        c_q <= C_ENT_REQ;
                    end else begin
                        c_q                <= C_IDLE;
                        sw_q               <= 1'b1;
                        sv_q               <= c_to_q;
                        ring_clr           <= c_to_q == ST_RESET;
                        ring_clr_slot      <= c_slot_q;
                        ring_clr_log2      <= w0_q.ring_log2;
                        cmd_done           <= 1'b1;
                        cmd_error          <= 1'b0;
                    end
                end
                C_ENT_REQ: begin
                    if (ent_req_ready) begin
                        c_q <= C_ENT_RES;
                    end
                end
                C_ENT_RES: begin
                    if (ent_res_valid) begin
                        c_q               <= C_IDLE;
                        sw_q              <= 1'b1;
                        sv_q              <= ST_RTR;
                        cmd_done          <= 1'b1;
                        cmd_error         <= 1'b0;
                    end
                end
                default: c_q <= C_IDLE;
            endcase
        end
    end

    // ------------------------------------------------------------------------------------------
    // Next PSN per slot, LUT RAM: read asynchronously by a take, written by the take or a command.
    (* ram_style = "distributed" *) logic [23:0] psn_mem [QPS];
    wire [SW-1:0] take_slot = psn_take_slot[SW-1:0];
    wire          take_ok   = psn_take_valid && 32'(psn_take_slot) < QPS;
    wire [23:0]   psn_now   = psn_mem[take_slot];

    always_ff @(posedge clk) begin
        if (psn_cmd_we) begin
            psn_mem[c_slot_q] <= psn_cmd_value;
        end else if (take_ok) begin
            psn_mem[take_slot] <= psn_now + psn_take_count;
        end
        if (take_ok) begin
            psn_take_first <= psn_now;
        end
    end

    // The words of a slot past word 0 as held by w0_q (only word 0 is read into it).
    wire unused_w0 = ^{w0_q.spare0, w0_q.spare1, w0_q.dst_ip, w0_q.src_ip, w0_q.smac, w0_q.dmac,
                       w0_q.hop_limit, w0_q.tclass, w0_q.pcp, w0_q.vid, w0_q.vlan, w0_q.ipv6,
                       w0_q.qkey, w0_q.pd, w0_q.sq_base, w0_q.stride_log2, w0_q.mtu,
                       w0_q.flow_label, w0_q.udp_sport, staged.spare0, staged.spare1,
                       staged.flow_label, staged.udp_sport};

endmodule

`resetall

`endif  // ROCENIC_WQE_QP_TABLE_SV
