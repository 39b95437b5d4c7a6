// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_DP_SV
`define ROCENIC_RX_DP_SV
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_pkg.sv"
`include "rtl/rx/rx_dp_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/rx/rx_dp_fetch.sv"
`include "rtl/rx/rx_dp_scatter.sv"
`include "rtl/rx/rx_dp_emit.sv"
`include "rtl/rx/rx_dp_checks.sv"
`include "rtl/rx/rx_dp_resp.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive data path (docs/rx-dp.md): rx_check's descriptors one at a time,
// through model::rx::RecvEngine::receive's checks in its order, and flush steps
// (RecvEngine::flush) when no descriptor waits.
//
//   the receive context (rx_ctrl) and the QP's state (the send side's slot bits): no_qp,
//   qp_state, transport; UD: qkey, length; RC: psn, sequence, length; RDMA WRITE: the R_Key
//   (rkey) and the RETH's length; the queue (rx_ctrl): no_wq, wq_state, no_wqe, cq_full
//   a WQE taken, read and its entries checked (rx_dp_fetch), the bytes written
//   (rx_dp_scatter, rx_dp_emit; UD: the GRH area first), the context written back (RC), the
//   completion written and pushed, ERR where the model moves the QP (err_set, then waiting for
//   the send side's qp_err to show it) or the queue (wq_err)
//   the frame released to rx_check, and counted: accepted, or discard_valid with its code
//
// Every operation waits for the one before it (a frame is not pipelined with the next), and
// each DMA write for its completion, so that the bytes in host memory after a refused write are
// the model's. After each frame or flush step the data path waits SETTLE cycles before the
// next, so every take, push, ERR and write-back it gave is visible in rx_ctrl by then (its
// contract: docs/rx.md, "Data-path interface").
//
// frame_done and flush_step say, one cycle each, that a frame or a flush step was finished, in
// the order they were: a bench replays the model in that order.
//
// With CONTROL.RESPONDER (and RESPONDER built in), an RC request packet that reaches the PSN
// check goes through the reliable transport's responder (rc_responder; model::rx::RecvEngine
// with set_reliable): only the expected PSN is executed, as before; at the frame's end its PSN,
// AckReq and what executing it found (its discard or its completion's status) go to the rules
// with the QP's responder state from the context, and the context is written back once, with
// the responder's expected PSN and state. An ACK or NAK the rules ask for leaves on m_ack_*
// before the frame is done (a full output holds the path); a fatal NAK moves the QP to ERR.
// RDMA READ requests stay unsupported here (rx_check discards them).
//
// With CONTROL.REQUESTER (and REQUESTER built in), an Acknowledge frame that rx_check found
// well formed (s_desc_ack; model::rc::parse_ack) leaves on m_rack_* for the send side's
// requester, held until taken, and is counted by ack_taken instead of as a discard.
module rx_dp #(
    parameter  int WQS     = 64,   // work queues (rx_ctrl's), a power of two
    parameter  int QPS     = 64,   // receive-context slots (rx_ctrl's and the send side's)
    parameter  int ADDR_W  = 11,   // packet-buffer beat address width (rx_check's)
    parameter  int BEATS_W = 10,   // rx_check's descriptor beat count width
    parameter  int LEN_W   = 13,   // rx_check's byte count width
    parameter  int QUEUE_W = 16,   // RSS queue number width
    parameter  int TAG_W   = 4,    // DMA read tag width
    parameter  bit RESPONDER = 1,  // the RC responder is built in (CONTROL.RESPONDER turns it on)
    parameter  bit REQUESTER = 0,  // Acknowledge frames may leave on m_rack_* (CONTROL.REQUESTER)
    localparam int SW      = $clog2(QPS)
) (
    input  wire                clk,
    input  wire                rst,               // synchronous, active high
    // descriptors from rx_check
    input  wire                s_desc_valid,
    output logic               s_desc_ready,
    input  wire                s_desc_discard,
    input  wire [3:0]          s_desc_reason,
    input  wire                s_desc_roce,
    input  wire                s_desc_csum_ok,
    input  wire                s_desc_ack,        // a well-formed Acknowledge (AETH in _imm)
    input  wire [7:0]          s_desc_opcode,
    input  wire [23:0]         s_desc_dest_qpn,
    input  wire [23:0]         s_desc_psn,
    input  wire                s_desc_ack_req,
    input  wire                s_desc_deth_valid,
    input  wire [31:0]         s_desc_qkey,
    input  wire [23:0]         s_desc_src_qp,
    input  wire                s_desc_reth_valid,
    input  wire [63:0]         s_desc_va,
    input  wire [31:0]         s_desc_rkey,
    input  wire [31:0]         s_desc_dma_len,
    input  wire                s_desc_imm_valid,
    input  wire [31:0]         s_desc_imm,
    input  wire [LEN_W-1:0]    s_desc_payload_off,
    input  wire [LEN_W-1:0]    s_desc_payload_len,
    input  wire                s_desc_ipv6,
    input  wire [4:0]          s_desc_l3_off,
    input  wire [LEN_W-1:0]    s_desc_frame_len,
    input  wire [QUEUE_W-1:0]  s_desc_queue,
    input  wire [31:0]         s_desc_hash,
    input  wire [4:0]          s_desc_hash_type,
    input  wire [ADDR_W-1:0]   s_desc_addr,
    input  wire [BEATS_W-1:0]  s_desc_beats,
    output logic [ADDR_W-1:0]  rd_addr,
    input  wire [63:0]         rd_data,
    output logic               release_frame,
    // rx_ctrl's data-path interface
    input  wire                enable,
    input  wire                requester,         // CONTROL.REQUESTER
    input  wire                responder,         // CONTROL.RESPONDER...
    input  wire [7:0]          ack_every,         // ...ACK_EVERY...
    input  wire [4:0]          rnr_timer,         // ...and RNR_TIMER
    input  wire                cmd_pending,
    output logic               dp_idle,
    output logic               ctx_rd_valid,
    output logic [7:0]         ctx_rd_slot,
    input  wire                ctx_rd_done,
    input  rx_ctrl_pkg::ctx_t  ctx_rd,
    output logic               ctx_wr_valid,
    output logic [7:0]         ctx_wr_slot,
    output rx_ctrl_pkg::rcv_t  ctx_wr,
    output logic               q_rd_valid,
    output logic [7:0]         q_rd_wq,
    input  wire                q_rd_done,
    input  rx_ctrl_pkg::wq_view_t q_rd,
    output logic               take_valid,
    output logic [7:0]         take_wq,
    output logic               push_valid,
    output logic [7:0]         push_wq,
    output logic               wq_err_valid,
    output logic [7:0]         wq_err_wq,
    output logic               flush_req,
    input  wire                flush_done,
    input  wire                flush_found,
    input  wire [7:0]          flush_wq,
    input  wire                flush_ip,         // the WQE is a SEND's in progress...
    input  wire [23:0]         flush_qpn,        // ...of this QP...
    input  wire [63:0]         flush_wr_id,      // ...and work request
    output logic               accepted,
    output logic               ack_taken,         // an Acknowledge left on m_rack_* (ACKS)
    output logic               discard_valid,
    output logic [3:0]         discard_reason,
    output logic               cq_fault,
    // the send side's QP slots
    input  wire [QPS-1:0]      sq_valid,          // holding a QP
    input  wire [QPS-1:0]      sq_rcv,            // holding a QP in RTR or RTS
    input  wire [QPS-1:0]      qp_err,            // holding a QP in ERR
    output logic               err_set_valid,     // move err_set_slot's QP to ERR
    output logic [7:0]         err_set_slot,
    // region checks (wqe_mr)
    output logic               m_mr_valid,
    input  wire                m_mr_ready,
    output logic [31:0]        m_mr_lkey,
    output logic [31:0]        m_mr_pd,
    output logic [63:0]        m_mr_addr,
    output logic [31:0]        m_mr_len,
    output logic [3:0]         m_mr_access,
    input  wire                s_mr_valid,
    output logic               s_mr_ready,
    input  wire [4:0]          s_mr_status,
    // DMA reads and writes (docs/wqe-dma.md, "DMA interface")
    output logic               m_rd_req_valid,
    input  wire                m_rd_req_ready,
    output logic [63:0]        m_rd_req_addr,
    output logic [12:0]        m_rd_req_len,
    output logic [TAG_W-1:0]   m_rd_req_tag,
    input  wire                s_rd_rsp_valid,
    output logic               s_rd_rsp_ready,
    input  wire [63:0]         s_rd_rsp_data,
    input  wire [7:0]          s_rd_rsp_keep,
    input  wire                s_rd_rsp_last,
    input  wire [TAG_W-1:0]    s_rd_rsp_tag,
    input  wire                s_rd_rsp_err,
    output logic               m_wr_valid,
    input  wire                m_wr_ready,
    output logic [63:0]        m_wr_addr,
    output logic [63:0]        m_wr_data,
    output logic [7:0]         m_wr_keep,
    output logic               m_wr_last,
    output logic [1:0]         m_wr_tag,
    input  wire                s_wr_done_valid,
    output logic               s_wr_done_ready,
    input  wire [1:0]          s_wr_done_tag,
    input  wire                s_wr_done_err,
    // the responder's acknowledgements, for the send side to frame
    output logic               m_ack_valid,
    input  wire                m_ack_ready,
    output logic [23:0]        m_ack_qpn,         // the local QP: its peer is the requester
    output logic [23:0]        m_ack_psn,         // the BTH PSN
    output logic [7:0]         m_ack_syndrome,    // the AETH: syndrome...
    output logic [23:0]        m_ack_msn,         // ...and MSN
    // Acknowledges that came in, for the send side's requester
    output logic               m_rack_valid,
    input  wire                m_rack_ready,
    output logic [23:0]        m_rack_qpn,        // the BTH's destination: the local QP
    output logic [23:0]        m_rack_psn,        // the BTH PSN
    output logic [7:0]         m_rack_syndrome,   // the AETH: syndrome...
    output logic [23:0]        m_rack_msn,        // ...and MSN
    // what was done, in order
    output logic               frame_done,        // one cycle per descriptor finished
    output logic               flush_step,        // one cycle per flush step finished...
    output logic               flush_hit          // ...and whether it flushed a WQE
);

    if (QPS < 4 || QPS > 256 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
        $error("rx_dp: QPS must be a power of two, 4..256, got %0d", QPS);
    end

    // model::qp::Status codes (generated), rx_dp_emit's sources, rx_dp_fetch's operations.
    localparam logic [4:0] ST_SUCCESS   = wqe_fmt_pkg::STATUS_SUCCESS;
    localparam logic [4:0] ST_LOC_LEN   = wqe_fmt_pkg::STATUS_LOC_LEN_ERR;
    localparam logic [4:0] ST_LOC_QP_OP = wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
    localparam logic [4:0] ST_FLUSH     = wqe_fmt_pkg::STATUS_WR_FLUSH_ERR;
    localparam logic [4:0] ST_GENERAL   = wqe_fmt_pkg::STATUS_GENERAL_ERR;
    localparam logic [1:0] SRC_FRAME    = rx_dp_pkg::SRC_FRAME;
    localparam logic [1:0] SRC_ZERO     = rx_dp_pkg::SRC_ZERO;
    localparam logic [1:0] SRC_CQE      = rx_dp_pkg::SRC_CQE;
    localparam logic [1:0] OP_WQE       = rx_dp_pkg::OP_WQE;
    localparam logic [1:0] OP_HDR       = rx_dp_pkg::OP_HDR;
    localparam logic [1:0] OP_RKEY      = rx_dp_pkg::OP_RKEY;
    // Cycles after a frame's or a flush step's last operation before the next starts.
    localparam int SETTLE = 5;

    typedef enum logic [5:0] {
        M_IDLE, M_DESC0, M_DESC, M_CTX, M_CHK0, M_CHK1, M_CHK, M_RC, M_Q, M_RKEY, M_WSUM, M_WSUM2, M_WLEN, M_WPAY, M_WB, M_TAKE,
        M_FETCH, M_FRES, M_CAP, M_PIECE0, M_PIECE, M_PIECE_W, M_AFTER, M_FAIL, M_CQE, M_CQE_W, M_PUSH,
        M_ERRWAIT, M_FIN, M_SETTLE, M_FL_WAIT, M_FL_HDR, M_RSP0, M_RSP1, M_RSP2, M_ACK, M_RACK
    } mstate_t;
    // One-hot: Yosys keeps the states packed, and every state's decode then takes two levels of
    // LUT4 in front of each register it loads.
    (* fsm_encoding = "one-hot" *) mstate_t m_q;

    // Why a queue is read.
    typedef enum logic [1:0] {QW_TAKE, QW_MID, QW_WIMM, QW_FLUSH} qwhy_t;
    qwhy_t qwhy_q;

    // What the bytes are: the plan of pieces (below).
    typedef enum logic [1:0] {P_UD4, P_UD6, P_PAY, P_RAW} plan_t;
    plan_t plan_q;

    // ---- the descriptor, taken into these registers whenever they are free -------------------
    // They are free from the frame's end (M_FIN) until the next descriptor comes, so rx_check's
    // ready is a flip-flop, and the choice in M_IDLE (a frame or a flush step) reads a register
    // instead of the far side's valid.
    logic               d_discard, d_roce, d_csum_ok, d_imm_valid, d_ipv6, d_ack;
    logic [3:0]         d_reason;
    logic [7:0]         d_opcode;
    logic [23:0]        d_dest_qpn, d_psn, d_src_qp;
    logic               d_ack_req;
    logic [31:0]        d_qkey, d_rkey, d_dma_len, d_imm, d_hash;
    logic [63:0]        d_va;
    logic [12:0]        d_payload_off, d_payload_len, d_frame_len;
    logic [4:0]         d_l3_off, d_hash_type;
    logic [QUEUE_W-1:0] d_queue;
    logic [ADDR_W-1:0]  d_addr;

    logic d_full_q;               // the registers hold a descriptor not finished yet
    assign s_desc_ready = !d_full_q;
    wire load_desc = s_desc_valid && !d_full_q;
    // Work starts only while enabled and no command waits: a frame when a descriptor is held, a
    // flush step when none is. CONTROL.ENABLE is a register bit that software moves, so a copy a
    // clock late serves (in the whole path rx_ctrl's registers lie across the chip from here);
    // cmd_pending is not copied: a command starts from the cycle after it rises.
    logic enable_q;
    // The responder's switch likewise (a frame latches it when it starts; rx_dp_resp copies
    // the settings).
    logic resp_on_q, req_on_q;
    always_ff @(posedge clk) begin
        enable_q  <= !rst && enable;
        resp_on_q <= !rst && RESPONDER && responder;
        req_on_q  <= !rst && REQUESTER && requester;
    end
    wire go          = m_q == M_IDLE && enable_q && !cmd_pending;
    wire take_desc   = go && d_full_q;
    wire start_flush = go && !d_full_q;

    // ---- working state ------------------------------------------------------------------------
    rx_ctrl_pkg::ctx_t        ctx_q;
    rx_ctrl_pkg::wq_view_t    qv_q;
    logic [SW-1:0] slot_q;
    logic [7:0]  w_q;             // the queue the frame completes in
    logic        ud_q, write_q, first_q, last_q, full_q, imm_q;
    logic [12:0] mtu_q;
    logic [3:0]  why_q;           // the discard code
    logic        disc_q;          // the frame is discarded (why_q)
    logic        rack_q;          // the frame is an Acknowledge handed to the requester
    // It leaves from the descriptor's registers, which hold it until M_FIN; valid is the
    // state's own flip-flop.
    assign m_rack_valid    = m_q == M_RACK;
    assign m_rack_qpn      = d_dest_qpn;
    assign m_rack_psn      = d_psn;
    assign m_rack_syndrome = d_imm[31:24];
    assign m_rack_msn      = d_imm[23:0];
    logic        has_cqe_q;       // a completion is written
    logic        qp_fail_q, wq_fail_q;  // what a failed WQE moves to ERR
    logic [4:0]  st_q;            // the completion's status
    logic [31:0] blen_q;          // its BYTE_LEN
    logic        wimm_q;          // its opcode is RECV_RDMA_WITH_IMM
    logic [63:0] wrid_q;          // its WR_ID
    rx_ctrl_pkg::rcv_t        rcv_q;           // ...with this
    logic [63:0] wva_q;           // RDMA WRITE: VA, length, bytes before this packet
    logic [31:0] wlen_q, wdone_q;
    logic [1:0]  pc_q;            // the next piece
    logic        wait_err_q;      // wait for the send side's ERR of slot_q
    logic [2:0]  settle_q;
    logic        is_flush_q;
    logic        fl_ip_q;         // the flush step completes a SEND's WQE in progress...
    logic [23:0] fl_qpn_q;        // ...of this QP (its completion names it)
    logic        lost_q;          // the completion write was refused
    logic        rel_q;           // the responder is on for this frame
    logic        rsp_q;           // an RC request under the responder: it answers at the end...
    logic        rsp_done_q;      // ...and has
    logic        wb_pend_q;       // ctx_wr holds the write-back the responder's step sends
    logic        errset_q;        // this frame moved its QP to ERR already

    // ---- the parts ------------------------------------------------------------------------------
    logic        f_start, f_done;
    logic [1:0]  f_op;
    logic [63:0] f_addr;
    logic [4:0]  f_status;
    logic [63:0] f_wr_id;
    logic [5:0]  f_nsge;
    logic [37:0] f_capacity;
    logic [5:0]  ent_rd_idx;
    logic [63:0] ent_rd_addr;
    logic [31:0] ent_rd_len;

    rx_dp_fetch #(.TAG_W(TAG_W)) u_fetch (
        .clk, .rst,
        .start(f_start), .op(f_op), .addr(f_addr), .stride_log2(qv_q.stride_log2),
        .pd(f_op == OP_RKEY ? ctx_q.pd : qv_q.pd), .rkey(d_rkey), .rlen(d_dma_len),
        .done(f_done), .status(f_status), .wr_id(f_wr_id), .nsge(f_nsge),
        .capacity(f_capacity),
        .ent_rd_idx, .ent_rd_addr, .ent_rd_len,
        .m_mr_valid, .m_mr_ready, .m_mr_lkey, .m_mr_pd, .m_mr_addr, .m_mr_len, .m_mr_access,
        .s_mr_valid, .s_mr_ready, .s_mr_status,
        .m_rd_req_valid, .m_rd_req_ready, .m_rd_req_addr, .m_rd_req_len, .m_rd_req_tag,
        .s_rd_rsp_valid, .s_rd_rsp_ready, .s_rd_rsp_data, .s_rd_rsp_keep, .s_rd_rsp_last,
        .s_rd_rsp_tag, .s_rd_rsp_err
    );

    logic        sc_start, sc_walk, sc_done, sc_err;
    logic [37:0] sc_moff;
    logic [63:0] sc_addr;
    logic [1:0]  sc_src;
    logic [12:0] sc_off, sc_len;
    logic [255:0] cqe;
    logic        w_start, w_done, w_err, w_busy;
    logic [63:0] w_addr;
    logic [12:0] w_len;
    logic [1:0]  w_src;
    logic [ADDR_W-1:0] w_beat;
    logic [2:0]  w_shift;
    logic [255:0] w_cqe;

    rx_dp_scatter #(.ADDR_W(ADDR_W)) u_scatter (
        .clk, .rst,
        .start(sc_start), .walk(sc_walk), .moff(sc_moff), .addr(sc_addr), .src(sc_src),
        .base(d_addr), .src_off(sc_off), .len(sc_len), .cqe,
        .done(sc_done), .err(sc_err),
        .ent_rd_idx, .ent_rd_addr, .ent_rd_len,
        .w_start, .w_addr, .w_len, .w_src, .w_beat, .w_shift, .w_cqe, .w_done, .w_err
    );

    rx_dp_emit #(.ADDR_W(ADDR_W)) u_emit (
        .clk, .rst,
        .start(w_start), .addr(w_addr), .len(w_len), .src(w_src), .beat(w_beat),
        .shift(w_shift), .cqe(w_cqe), .busy(w_busy), .done(w_done), .err(w_err),
        .rd_addr, .rd_data,
        .m_wr_valid, .m_wr_ready, .m_wr_addr, .m_wr_data, .m_wr_keep, .m_wr_last, .m_wr_tag,
        .s_wr_done_valid, .s_wr_done_ready, .s_wr_done_tag, .s_wr_done_err
    );

    // ---- the responder (rx_dp_resp): asked at M_RSP1, its answer taken at M_RSP2 ------------
    logic [23:0] r_epsn, r_psn, r_msn;
    logic [7:0]  r_syndrome;
    logic        r_ack, r_qp_error;
    rx_ctrl_pkg::resp_t r_state;
    if (RESPONDER) begin : g_resp
        rx_dp_resp u_resp (
            .clk, .rst,
            .state(ctx_q.rcv.resp), .epsn(ctx_q.rcv.epsn), .psn(d_psn), .ack_req(d_ack_req),
            .last(last_q), .ack_every, .rnr_timer, .disc(disc_q), .why(why_q), .status(st_q),
            .take(m_q == M_RSP1), .done(m_q == M_RSP2),
            .r_epsn, .r_state, .r_ack, .r_psn, .r_syndrome, .r_msn, .r_qp_error
        );
    end else begin : g_no_resp
        assign {r_epsn, r_psn, r_msn, r_syndrome, r_ack, r_qp_error} = '0;
        assign r_state = '0;
        wire unused_resp = ^{responder, ack_every, rnr_timer, m_ack_ready, d_ack_req};
    end

    // ---- the completion, little-endian (docs/rx.md, "Receive completion") -------------------
    logic [23:0] c_qpn, c_src_qp;
    logic [31:0] c_imm, c_hash;
    logic [3:0]  c_flags;
    always_comb begin
        c_qpn    = fl_ip_q ? fl_qpn_q : is_flush_q || !d_roce ? qv_q.qpn : d_dest_qpn;
        c_imm    = !is_flush_q && d_imm_valid ? d_imm : 32'd0;
        c_hash   = !is_flush_q && d_hash_type != 5'd0 ? d_hash : 32'd0;
        c_src_qp = !is_flush_q && d_roce && ud_q ? d_src_qp : 24'd0;
        // IMM, GRH, CSUM_OK, HASHED
        c_flags  = is_flush_q ? 4'd0
                 : {d_hash_type != 5'd0, d_roce || d_csum_ok, d_roce && ud_q,
                    d_roce && d_imm_valid};
        cqe = {7'd0, qv_q.cqe_phase, 4'd0, c_flags, 3'd0, st_q, wimm_q ? 8'h81 : 8'h80,
               8'd0, c_src_qp, c_hash, c_imm, blen_q, 8'd0, c_qpn, wrid_q};
    end

    // ---- checks, combinational from registered state ----------------------------------------
    wire [SW-1:0] d_slot    = SW'(d_dest_qpn);
    wire          d_ud      = d_opcode[7:5] == 3'b011;
    // RC opcodes 0x00..0x0B: SEND FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM, then the same
    // six of RDMA WRITE.
    wire [3:0]    rc_op     = d_opcode[3:0];
    wire          d_write   = rc_op >= 4'h6;
    wire [3:0]    rc_k      = d_write ? rc_op - 4'h6 : rc_op;   // 0 FIRST .. 5 ONLY_IMM
    wire          d_first   = rc_k == 4'd0;
    wire          d_middle  = rc_k == 4'd1;
    wire          d_last    = rc_k != 4'd0 && rc_k != 4'd1;     // LAST, ONLY: the message ends
    wire          d_starts  = d_first || rc_k >= 4'd4;          // FIRST or ONLY
    wire [12:0]   mtu_bytes = 13'd256 << (ctx_rd.mtu - 3'd1);

    // rx_ctrl's answers, a clock late: in the whole path its tables lie across the chip from
    // here. The answers themselves are held until the next request, so only the strobes are
    // registered, and the queue's checks are flags registered from the held view.
    logic ctx_done_q, q_done_q, fl_done_q, fl_found_q;
    logic [7:0] fl_wq_q;
    logic qf_mid_bad_q, qf_no_wq_q, qf_state_q, qf_no_wqe_q, qf_full_q;
    always_ff @(posedge clk) begin
        ctx_done_q   <= !rst && ctx_rd_done;
        q_done_q     <= !rst && q_rd_done;
        fl_done_q    <= !rst && flush_done;
        fl_found_q   <= flush_found;
        fl_wq_q      <= flush_wq;
        qf_mid_bad_q <= !(q_rd.valid && q_rd.room);
        qf_no_wq_q   <= !q_rd.valid || (plan_q == P_RAW && !q_rd.raw);
        qf_state_q   <= q_rd.state != rx_ctrl_pkg::WQ_READY;
        qf_no_wqe_q  <= !q_rd.pending;
        qf_full_q    <= !q_rd.room;
    end

    // The queue a frame's WQE comes from: its own or shared one, or for RSS the verdict's.
    wire [QUEUE_W-1:0] want_q = ctx_q.kind == 2'd2 ? d_queue : QUEUE_W'(ctx_q.wq);
    wire               want_ok = 32'(want_q) < WQS;

    // The RDMA WRITE's bytes up to the end of this packet, and the bytes the WQE must hold,
    // registered every clock: their inputs settle cycles before they are compared.
    logic [32:0] wend_q;
    logic [37:0] need_q;
    wire  [31:0] wend = wend_q[31:0];
    wire         wlen_bad = wend_q[32] || wend > wlen_q || (last_q && wend != wlen_q);
    logic        wbad_q, short_q, dlen_zero_q, f_fail_q, f_unread_q, dq_ok_q, err_seen_q;
    logic        sqv_q, sqr_q;
    always_ff @(posedge clk) begin
        dq_ok_q     <= 32'(d_queue) < WQS;
        // The send side shows the slot's ERR (or holds no QP there): a slot's bit picked from
        // QPS, registered before the state machine looks at it.
        err_seen_q  <= qp_err[slot_q] || !sq_valid[slot_q];
        // The slot's other two bits likewise, for the checks (slot_q is set long before them):
        // in the whole path the send side's bits come from the ports, across the chip.
        sqv_q       <= sq_valid[slot_q];
        sqr_q       <= sq_rcv[slot_q];
        f_fail_q    <= f_status != ST_SUCCESS;
        f_unread_q  <= f_status == ST_GENERAL || f_status == ST_LOC_QP_OP;
        dlen_zero_q <= d_dma_len == 32'd0;
        wend_q  <= 33'(wdone_q) + 33'(d_payload_len);
        need_q  <= need;
        wbad_q  <= wlen_bad;
        // The WQE's entries hold less than the bytes (capacity settles before the fetch ends).
        short_q <= need_q > f_capacity;
    end

    // The context's checks, in the model's order, in two registered steps from the registered
    // context (M_CHK0, M_CHK1): a flag per check, then the first that fails.
    logic       f_want_ok, chk_fail_q;
    logic [3:0] chk_code_q;
    rx_dp_checks u_checks (
        .clk, .ctx(ctx_q), .sq_valid(sqv_q), .sq_rcv(sqr_q), .dest_qpn(d_dest_qpn), .psn(d_psn),
        .qkey(d_qkey), .payload_len(d_payload_len), .ud(ud_q), .write(write_q), .first(first_q),
        .full(full_q), .mtu(mtu_q), .want_ok, .responder(rel_q),
        .want_ok_q(f_want_ok), .fail(chk_fail_q), .code(chk_code_q)
    );

    // The pieces of the bytes of a frame (source, first byte, length, offset in the buffers).
    logic [1:0]  pz_src;
    logic [12:0] pz_off, pz_len;
    logic [37:0] pz_m;
    always_comb begin
        pz_src = SRC_FRAME;
        pz_off = d_payload_off;
        pz_len = d_payload_len;
        pz_m   = plan_q == P_PAY ? 38'(wdone_q) : 38'd40;
        case (pc_q)
            2'd0: begin
                pz_src = SRC_ZERO;
                pz_len = plan_q == P_UD4 ? 13'd20 : 13'd0;
                pz_m   = '0;
            end
            2'd1: begin
                pz_off = 13'(d_l3_off);
                pz_len = plan_q == P_UD4 ? 13'd20 : plan_q == P_UD6 ? 13'd40 : 13'd0;
                pz_m   = plan_q == P_UD4 ? 38'd20 : 38'd0;
            end
            default: if (plan_q == P_RAW) begin
                pz_off = '0;
                pz_len = d_frame_len;
                pz_m   = '0;
            end
        endcase
    end
    logic [1:0]  pz_src_q;
    logic [12:0] pz_off_q, pz_len_q;
    logic [37:0] pz_m_q;
    logic        pz_zero_q;
    always_ff @(posedge clk) begin
        pz_src_q  <= pz_src;
        pz_off_q  <= pz_off;
        pz_len_q  <= pz_len;
        pz_m_q    <= pz_m;
        pz_zero_q <= pz_len == 13'd0;
    end
    // Bytes the WQE must hold: the GRH area and payload (UD), the bytes before and this
    // packet's (RC SEND), the frame (raw).
    wire [37:0] need = plan_q == P_RAW ? 38'(d_frame_len)
                     : plan_q == P_PAY ? 38'(wdone_q) + 38'(d_payload_len)
                     : 38'd40 + 38'(d_payload_len);

    always_ff @(posedge clk) begin
        if (rst) begin
            d_full_q <= 1'b0;
        end else if (load_desc) begin
            d_full_q <= 1'b1;
        end else if (m_q == M_FIN && !is_flush_q && !(rsp_q && !rsp_done_q)) begin
            d_full_q <= 1'b0;
        end
        if (load_desc) begin
            d_discard     <= s_desc_discard;
            d_reason      <= s_desc_reason;
            d_roce        <= s_desc_roce;
            d_csum_ok     <= s_desc_csum_ok;
            d_ack         <= s_desc_ack;
            d_opcode      <= s_desc_opcode;
            d_dest_qpn    <= s_desc_dest_qpn;
            d_psn         <= s_desc_psn;
            d_ack_req     <= s_desc_ack_req;
            d_qkey        <= s_desc_qkey;
            d_src_qp      <= s_desc_src_qp;
            d_va          <= s_desc_va;
            d_rkey        <= s_desc_rkey;
            d_dma_len     <= s_desc_dma_len;
            d_imm_valid   <= s_desc_imm_valid;
            d_imm         <= s_desc_imm;
            d_payload_off <= 13'(s_desc_payload_off);
            d_payload_len <= 13'(s_desc_payload_len);
            d_ipv6        <= s_desc_ipv6;
            d_l3_off      <= s_desc_l3_off;
            d_frame_len   <= 13'(s_desc_frame_len);
            d_queue       <= s_desc_queue;
            d_hash        <= s_desc_hash;
            d_hash_type   <= s_desc_hash_type;
            d_addr        <= s_desc_addr;
        end
    end

    always_ff @(posedge clk) begin
        // The one-cycle strobes: low unless a state below raises them (and in reset).
        ctx_rd_valid  <= 1'b0;
        ctx_wr_valid  <= 1'b0;
        q_rd_valid    <= 1'b0;
        take_valid    <= 1'b0;
        push_valid    <= 1'b0;
        wq_err_valid  <= 1'b0;
        flush_req     <= 1'b0;
        accepted      <= 1'b0;
        ack_taken     <= 1'b0;
        discard_valid <= 1'b0;
        cq_fault      <= 1'b0;
        err_set_valid <= 1'b0;
        release_frame <= 1'b0;
        frame_done    <= 1'b0;
        flush_step    <= 1'b0;
        f_start       <= 1'b0;
        sc_start      <= 1'b0;
        if (rst) begin
            m_q           <= M_IDLE;
            flush_hit     <= 1'b0;
            dp_idle       <= 1'b1;
            m_ack_valid   <= 1'b0;
        end else begin
            dp_idle       <= m_q == M_IDLE && !go;
            case (m_q)
                M_IDLE: begin
                    disc_q     <= 1'b0;
                    rack_q     <= 1'b0;
                    has_cqe_q  <= 1'b0;
                    qp_fail_q  <= 1'b0;
                    wq_fail_q  <= 1'b0;
                    wimm_q     <= 1'b0;
                    write_q    <= 1'b0;
                    wait_err_q <= 1'b0;
                    st_q       <= ST_SUCCESS;
                    pc_q       <= '0;
                    wdone_q    <= '0;
                    is_flush_q <= 1'b0;
                    fl_ip_q    <= 1'b0;
                    rsp_q      <= 1'b0;
                    rsp_done_q <= 1'b0;
                    wb_pend_q  <= 1'b0;
                    errset_q   <= 1'b0;
                    rel_q      <= resp_on_q;
                    if (take_desc) begin
                        m_q           <= M_DESC0;
                    end else if (start_flush) begin
                        is_flush_q <= 1'b1;
                        flush_req  <= 1'b1;
                        m_q        <= M_FL_WAIT;
                    end
                end

                // ---- the frame's verdict and its QP --------------------------------------
                M_DESC0: m_q <= M_DESC;   // flags of the descriptor's fields, registered
                M_DESC: begin
                    imm_q <= d_imm_valid;
                    if (d_ack && req_on_q) begin
                        rack_q <= 1'b1;
                        m_q    <= M_RACK;
                    end else if (d_discard) begin
                        disc_q <= 1'b1;
                        why_q  <= d_reason;
                        m_q    <= M_FIN;
                    end else if (!d_roce) begin
                        // Raw: the queue the RSS pipeline chose, if it is a raw one.
                        plan_q <= P_RAW;
                        ud_q   <= 1'b0;
                        w_q    <= 8'(d_queue);
                        if (!dq_ok_q) begin
                            disc_q <= 1'b1;
                            why_q  <= rx_pkg::RX_DISCARD_NO_WQ;
                            m_q    <= M_FIN;
                        end else begin
                            q_rd_valid <= 1'b1;
                            q_rd_wq    <= 8'(d_queue);
                            qwhy_q     <= QW_TAKE;
                            m_q        <= M_Q;
                        end
                    end else begin
                        slot_q       <= d_slot;
                        ctx_rd_valid <= 1'b1;
                        ctx_rd_slot  <= 8'(d_slot);
                        m_q          <= M_CTX;
                    end
                end
                M_CTX: if (ctx_done_q) begin
                    ctx_q   <= ctx_rd;
                    mtu_q   <= mtu_bytes;
                    ud_q    <= d_ud;
                    write_q <= d_write;
                    first_q <= d_starts;
                    last_q  <= d_last;
                    full_q  <= d_first || d_middle;
                    rcv_q   <= ctx_rd.rcv;
                    m_q     <= M_CHK0;
                end
                M_CHK0: m_q <= M_CHK1;   // the checks' flags...
                M_CHK1: m_q <= M_CHK;    // ...and their verdict, registered
                M_CHK: begin
                    // A failed WQE: QP to ERR for its own or a shared queue, the queue to ERR
                    // for its own or an RSS queue.
                    qp_fail_q <= ctx_q.kind != 2'd2;
                    wq_fail_q <= ctx_q.kind != 2'd1;
                    plan_q    <= d_ipv6 ? P_UD6 : P_UD4;
                    w_q       <= 8'(want_q);
                    // Past the QP's own checks (to the PSN), an RC packet is the responder's.
                    rsp_q     <= rel_q && !ud_q
                              && (!chk_fail_q || chk_code_q == rx_pkg::RX_DISCARD_PSN
                                  || chk_code_q == rx_pkg::RX_DISCARD_SEQUENCE
                                  || chk_code_q == rx_pkg::RX_DISCARD_LENGTH);
                    if (chk_fail_q) begin
                        disc_q <= 1'b1;
                        why_q  <= chk_code_q;
                        m_q    <= M_FIN;
                    end else if (ud_q) begin
                        q_rd_valid <= 1'b1;
                        q_rd_wq    <= 8'(want_q);
                        qwhy_q     <= QW_TAKE;
                        m_q        <= M_Q;
                    end else begin
                        m_q <= M_RC;
                    end
                end
                M_RC: begin
                    plan_q         <= P_PAY;
                    rcv_q.epsn     <= ctx_q.rcv.epsn + 24'd1;
                    if (write_q) begin
                        if (first_q) begin
                            wva_q   <= d_va;
                            wlen_q  <= d_dma_len;
                            wdone_q <= '0;
                            if (!dlen_zero_q) begin
                                f_start <= 1'b1;
                                f_op    <= OP_RKEY;
                                f_addr  <= d_va;
                                m_q     <= M_RKEY;
                            end else begin
                                m_q <= M_WSUM;
                            end
                        end else begin
                            wva_q   <= ctx_q.rcv.msg_addr;
                            wlen_q  <= ctx_q.rcv.msg_arg[31:0];
                            wdone_q <= ctx_q.rcv.msg_done;
                            m_q     <= M_WSUM;
                        end
                    end else if (ctx_q.rcv.msg == rx_ctrl_pkg::MSG_SEND) begin
                        // A SEND in progress: its WQE again, from its queue.
                        w_q     <= ctx_q.rcv.msg_wq;
                        wdone_q <= ctx_q.rcv.msg_done;
                        wrid_q  <= ctx_q.rcv.msg_arg;
                        q_rd_valid <= 1'b1;
                        q_rd_wq    <= ctx_q.rcv.msg_wq;
                        qwhy_q     <= QW_MID;
                        m_q        <= M_Q;
                    end else if (ctx_q.kind == 2'd2 || !f_want_ok) begin
                        disc_q <= 1'b1;
                        why_q  <= rx_pkg::RX_DISCARD_NO_WQ;
                        m_q    <= M_FIN;
                    end else begin
                        w_q        <= 8'(want_q);
                        q_rd_valid <= 1'b1;
                        q_rd_wq    <= 8'(want_q);
                        qwhy_q     <= QW_TAKE;
                        m_q        <= M_Q;
                    end
                end

                // ---- RDMA WRITE -------------------------------------------------------------
                M_RKEY: if (f_done) begin
                    if (f_status != ST_SUCCESS) begin
                        disc_q <= 1'b1;
                        why_q  <= rx_pkg::RX_DISCARD_RKEY;
                        m_q    <= M_FIN;
                    end else begin
                        m_q <= M_WSUM;
                    end
                end
                M_WSUM:  m_q <= M_WSUM2;  // wend_q follows the bytes before...
                M_WSUM2: m_q <= M_WLEN;   // ...and wbad_q follows wend_q
                M_WLEN: begin
                    if (wbad_q) begin
                        disc_q <= 1'b1;
                        why_q  <= rx_pkg::RX_DISCARD_LENGTH;
                        m_q    <= M_FIN;
                    end else if (imm_q) begin
                        // With immediate data the queue must take the WQE before any byte
                        // lands.
                        if (ctx_q.kind == 2'd2 || !f_want_ok) begin
                            disc_q <= 1'b1;
                            why_q  <= rx_pkg::RX_DISCARD_NO_WQ;
                            m_q    <= M_FIN;
                        end else begin
                            w_q        <= 8'(want_q);
                            q_rd_valid <= 1'b1;
                            q_rd_wq    <= 8'(want_q);
                            qwhy_q     <= QW_WIMM;
                            m_q        <= M_Q;
                        end
                    end else begin
                        m_q <= M_WPAY;
                    end
                end
                M_WPAY: begin
                    if (d_payload_len == 13'd0) begin
                        m_q <= M_WB;
                    end else if (!sc_start) begin
                        sc_start <= 1'b1;
                        sc_walk  <= 1'b0;
                        sc_addr  <= wva_q + 64'(wdone_q);
                        sc_src   <= SRC_FRAME;
                        sc_off   <= d_payload_off;
                        sc_len   <= d_payload_len;
                        m_q      <= M_PIECE_W;
                    end
                end
                M_WB: begin
                    // RDMA WRITE: the context moves on (under the responder at its step); then
                    // with immediate data the WQE.
                    ctx_wr_valid   <= !rsp_q;
                    wb_pend_q      <= 1'b1;
                    ctx_wr_slot    <= 8'(slot_q);
                    ctx_wr         <= rcv_q;
                    ctx_wr.msg     <= last_q ? rx_ctrl_pkg::MSG_NONE : rx_ctrl_pkg::MSG_WRITE;
                    ctx_wr.msg_wq  <= '0;
                    ctx_wr.msg_addr <= wva_q;
                    ctx_wr.msg_arg <= 64'(wlen_q);
                    ctx_wr.msg_done <= wend;
                    if (imm_q) begin
                        wimm_q <= 1'b1;
                        blen_q <= wlen_q;
                        m_q    <= M_TAKE;
                    end else begin
                        m_q <= M_FIN;
                    end
                end

                // ---- the queue -------------------------------------------------------------
                M_Q: if (q_done_q) begin
                    qv_q <= q_rd;
                    case (qwhy_q)
                        QW_MID: begin
                            // Any packet may complete the WQE (its last, or one that
                            // fails): each needs room for the completion.
                            if (qf_mid_bad_q) begin
                                disc_q <= 1'b1;
                                why_q  <= rx_pkg::RX_DISCARD_CQ_FULL;
                                m_q    <= M_FIN;
                            end else begin
                                f_start <= 1'b1;
                                f_op    <= OP_WQE;
                                f_addr  <= rcv_q.msg_addr;
                                m_q     <= M_FETCH;
                            end
                        end
                        QW_FLUSH: begin
                            if (fl_ip_q) begin
                                // A SEND's WQE in progress: taken long ago, its WR_ID known.
                                has_cqe_q <= 1'b1;
                                st_q      <= ST_FLUSH;
                                blen_q    <= '0;
                                m_q       <= M_CQE;
                            end else begin
                                m_q <= M_TAKE;
                            end
                        end
                        default: begin
                            if (qf_no_wq_q) begin
                                disc_q <= 1'b1;
                                why_q  <= rx_pkg::RX_DISCARD_NO_WQ;
                                m_q    <= M_FIN;
                            end else if (qf_state_q) begin
                                disc_q <= 1'b1;
                                why_q  <= rx_pkg::RX_DISCARD_WQ_STATE;
                                m_q    <= M_FIN;
                            end else if (qf_no_wqe_q) begin
                                disc_q <= 1'b1;
                                why_q  <= rx_pkg::RX_DISCARD_NO_WQE;
                                m_q    <= M_FIN;
                            end else if (qf_full_q) begin
                                disc_q <= 1'b1;
                                why_q  <= rx_pkg::RX_DISCARD_CQ_FULL;
                                m_q    <= M_FIN;
                            end else if (qwhy_q == QW_WIMM) begin
                                m_q <= M_WPAY;
                            end else begin
                                m_q <= M_TAKE;
                            end
                        end
                    endcase
                end
                M_TAKE: begin
                    take_valid <= 1'b1;
                    take_wq    <= w_q;
                    has_cqe_q  <= 1'b1;
                    f_start    <= 1'b1;
                    f_op       <= is_flush_q ? OP_HDR : OP_WQE;
                    f_addr     <= qv_q.wqe_addr;
                    m_q        <= is_flush_q ? M_FL_HDR : M_FETCH;
                end
                M_FETCH: if (f_done) begin
                    if (qwhy_q != QW_MID) begin
                        wrid_q <= f_wr_id;
                    end
                    m_q <= M_FRES;
                end
                M_FRES: begin
                    // The status's flags are registered (the fetch holds it while idle).
                    if (wimm_q) begin
                        // The buffers are not used: only a WQE that cannot be read fails.
                        st_q <= f_unread_q ? f_status : ST_SUCCESS;
                        m_q  <= M_AFTER;
                    end else if (f_fail_q) begin
                        st_q <= f_status;
                        m_q  <= M_AFTER;
                    end else begin
                        m_q <= M_CAP;
                    end
                end
                M_CAP: begin
                    if (short_q) begin
                        st_q <= ST_LOC_LEN;
                        m_q  <= M_AFTER;
                    end else begin
                        m_q <= M_PIECE0;
                    end
                end
                M_PIECE0: m_q <= M_PIECE;   // the piece pc_q names, registered
                M_PIECE: begin
                    if (pc_q == 2'd3) begin
                        m_q <= M_AFTER;
                    end else if (pz_zero_q) begin
                        pc_q <= pc_q + 2'd1;
                        m_q  <= M_PIECE0;
                    end else begin
                        sc_start <= 1'b1;
                        sc_walk  <= 1'b1;
                        sc_moff  <= pz_m_q;
                        sc_src   <= pz_src_q;
                        sc_off   <= pz_off_q;
                        sc_len   <= pz_len_q;
                        pc_q     <= pc_q + 2'd1;
                        m_q      <= M_PIECE_W;
                    end
                end
                M_PIECE_W: if (sc_done) begin
                    if (write_q && !has_cqe_q) begin
                        // An RDMA WRITE's payload: refused, the frame is a fault and nothing
                        // moves.
                        if (sc_err) begin
                            disc_q <= 1'b1;
                            why_q  <= rx_pkg::RX_DISCARD_FAULT;
                            m_q    <= M_FIN;
                        end else begin
                            m_q <= M_WB;
                        end
                    end else if (sc_err) begin
                        st_q <= ST_GENERAL;
                        m_q  <= M_AFTER;
                    end else begin
                        m_q <= M_PIECE0;
                    end
                end
                M_AFTER: begin
                    // BYTE_LEN, the RC context, ERR, then the completion.
                    case (plan_q)
                        P_RAW:   blen_q <= 32'(d_frame_len);
                        P_PAY:   if (!wimm_q) blen_q <= wdone_q + 32'(d_payload_len);
                        default: blen_q <= 32'd40 + 32'(d_payload_len);
                    endcase
                    if (plan_q == P_PAY && !wimm_q) begin
                        ctx_wr_valid    <= !rsp_q;
                        wb_pend_q       <= 1'b1;
                        ctx_wr_slot     <= 8'(slot_q);
                        ctx_wr          <= rcv_q;
                        ctx_wr.msg      <= st_q == ST_SUCCESS && !last_q ? rx_ctrl_pkg::MSG_SEND : rx_ctrl_pkg::MSG_NONE;
                        ctx_wr.msg_wq   <= w_q;
                        ctx_wr.msg_addr <= qwhy_q == QW_MID ? rcv_q.msg_addr : qv_q.wqe_addr;
                        ctx_wr.msg_arg  <= qwhy_q == QW_MID ? rcv_q.msg_arg : f_wr_id;
                        ctx_wr.msg_done <= wdone_q + 32'(d_payload_len);
                    end
                    if (plan_q == P_PAY && !wimm_q && st_q == ST_SUCCESS && !last_q) begin
                        m_q <= M_FIN;
                    end else begin
                        has_cqe_q <= 1'b1;
                        m_q       <= M_FAIL;
                    end
                end
                M_FAIL: begin
                    if (st_q != ST_SUCCESS) begin
                        if (d_roce && qp_fail_q) begin
                            err_set_valid <= 1'b1;
                            err_set_slot  <= 8'(slot_q);
                            wait_err_q    <= 1'b1;
                            errset_q      <= 1'b1;
                        end
                        if (!d_roce || wq_fail_q) begin
                            wq_err_valid <= 1'b1;
                            wq_err_wq    <= w_q;
                        end
                    end
                    m_q <= M_CQE;
                end
                M_CQE: begin
                    sc_start <= 1'b1;
                    sc_walk  <= 1'b0;
                    sc_addr  <= qv_q.cqe_addr;
                    sc_src   <= SRC_CQE;
                    sc_len   <= 13'd32;
                    m_q      <= M_CQE_W;
                end
                M_CQE_W: if (sc_done) begin
                    push_valid <= 1'b1;
                    push_wq    <= w_q;
                    lost_q     <= sc_err;
                    if (sc_err) begin
                        cq_fault <= 1'b1;
                        if (!is_flush_q) begin
                            disc_q <= 1'b1;
                            why_q  <= rx_pkg::RX_DISCARD_FAULT;
                        end
                    end
                    m_q <= M_PUSH;
                end
                M_PUSH: begin
                    if (lost_q) begin
                        // A lost completion stops the queue (wq_err a cycle after the push).
                        wq_err_valid <= 1'b1;
                        wq_err_wq    <= w_q;
                    end
                    m_q <= M_ERRWAIT;
                end
                M_ERRWAIT: if (!wait_err_q || err_seen_q) begin
                    m_q <= M_FIN;
                end
                M_FIN: if (rsp_q && !rsp_done_q) begin
                    m_q <= M_RSP0;
                end else begin
                    if (is_flush_q) begin
                        flush_step <= 1'b1;
                        flush_hit  <= has_cqe_q;
                    end else begin
                        release_frame  <= 1'b1;
                        frame_done     <= 1'b1;
                        accepted       <= !disc_q && !rack_q;
                        ack_taken      <= rack_q;
                        discard_valid  <= disc_q;
                        discard_reason <= why_q;
                    end
                    settle_q <= 3'(SETTLE);
                    m_q      <= M_SETTLE;
                end
                M_SETTLE: begin
                    settle_q <= settle_q - 3'd1;
                    if (settle_q == 3'd0) begin
                        m_q <= M_IDLE;
                    end
                end

                // ---- the responder (an RC request under it, at the frame's end) --------------
                M_RSP0: m_q <= M_RSP1;   // what execution found, registered there
                M_RSP1: m_q <= M_RSP2;   // the rules take it, their answer registered
                M_RSP2: begin
                    // One write-back: what the packet's execution left (or the context as read),
                    // with the responder's expected PSN and state.
                    ctx_wr_valid <= 1'b1;
                    ctx_wr_slot  <= 8'(slot_q);
                    if (!wb_pend_q) begin
                        ctx_wr <= ctx_q.rcv;
                    end
                    ctx_wr.epsn  <= r_epsn;
                    ctx_wr.resp  <= r_state;
                    m_ack_valid    <= r_ack;
                    m_ack_qpn      <= d_dest_qpn;
                    m_ack_psn      <= r_psn;
                    m_ack_syndrome <= r_syndrome;
                    m_ack_msn      <= r_msn;
                    if (r_qp_error && !errset_q) begin
                        err_set_valid <= 1'b1;
                        err_set_slot  <= 8'(slot_q);
                        wait_err_q    <= 1'b1;
                    end
                    rsp_done_q <= 1'b1;
                    m_q        <= M_ACK;
                end
                M_ACK: if (!m_ack_valid || m_ack_ready) begin
                    m_ack_valid <= 1'b0;
                    m_q         <= M_ERRWAIT;
                end

                // ---- an Acknowledge for the requester, held until taken ---------------------
                M_RACK: if (m_rack_ready) begin
                    m_q <= M_FIN;
                end

                // ---- flush steps --------------------------------------------------------------
                M_FL_WAIT: if (fl_done_q) begin
                    if (fl_found_q) begin
                        w_q        <= fl_wq_q;
                        fl_ip_q    <= flush_ip;
                        fl_qpn_q   <= flush_qpn;
                        wrid_q     <= flush_wr_id;
                        q_rd_valid <= 1'b1;
                        q_rd_wq    <= fl_wq_q;
                        qwhy_q     <= QW_FLUSH;
                        m_q        <= M_Q;
                    end else begin
                        m_q <= M_FIN;
                    end
                end
                M_FL_HDR: if (f_done) begin
                    wrid_q <= f_wr_id;
                    st_q   <= ST_FLUSH;
                    blen_q <= '0;
                    m_q    <= M_CQE;
                end
                default: m_q <= M_IDLE;
            endcase
        end
    end

    wire unused = ^{s_desc_deth_valid, s_desc_reth_valid, s_desc_beats, f_nsge, w_busy,
                    d_opcode[4], ctx_q.valid, ctx_q.qpn, ctx_q.ud, ctx_q.mtu, qv_q.valid,
                    qv_q.state, qv_q.pending, qv_q.room, qv_q.raw, qv_q.consumer,
                    qv_q.cq_producer};

endmodule

`endif  // ROCENIC_RX_DP_SV
