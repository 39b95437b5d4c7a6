// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_PATH_SV
`define ROCENIC_RX_PATH_SV
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_pkg.sv"
`include "rtl/rx/rx_regs_pkg.sv"
`include "rtl/rx/rx_check.sv"
`include "rtl/rx/rx_dp.sv"
`include "rtl/rx/rx_ctrl.sv"
`include "rtl/wqe/wqe_mr.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive path (docs/rx.md, "rx_path (RTL)"): frames with the RSS pipeline's verdict in,
// receive WQEs read and payload, completions written through two DMA ports, registers on
// AXI4-Lite.
//
//   rx_check  store and forward, the classification, the packet buffer
//   rx_dp     the receive engine's checks, WQE fetch, scatter, RDMA WRITE, completions, flushes
//   rx_ctrl   registers, work queues and their ring indices, receive contexts, the flush pick
//   wqe_mr    a copy of the send side's memory-region table: its write port is the send side's
//             (wqe_ctrl's mr_wr_*), so both hold the same regions from the same clock
//
// The QP's state stays with the send side: sq_valid, sq_rcv (RTR or RTS) and qp_err are its
// slot bits, err_set moves a slot to ERR there (wqe_ctrl's err_set port). Every part registers
// its outputs, so no ready reaches a valid combinationally across them.
module rx_path #(
    parameter  int WQS        = 64,     // work queues, a power of two, 4..256
    parameter  int QPS        = 64,     // QP slots (the send side's), a power of two, 4..256
    parameter  int MRS        = 64,     // memory-region table entries (the send side's)
    parameter  int MR_IDX_LSB = 8,      // lowest lkey bit of the region's slot (the send side's)
    parameter  int TAG_W      = 4,      // DMA read tag width
    parameter  int BUF_BYTES  = 16384,  // rx_check's packet buffer
    parameter  bit RESPONDER  = 1,      // the RC responder is built in (CONTROL.RESPONDER)
    parameter  bit REQUESTER  = 0,      // Acknowledge frames may leave on m_rack_*
                                        // (CONTROL.REQUESTER)
    localparam int AW         = rx_regs_pkg::RX_ADDR_W,
    localparam int MW         = $clog2(MRS),
    localparam int QUEUE_W    = 16,
    localparam int ADDR_W     = $clog2(BUF_BYTES / 8),
    localparam int MAX_BEATS  = (rx_pkg::RX_MAX_FRAME + 7) / 8,
    localparam int BEATS_W    = $clog2(MAX_BEATS + 1),
    localparam int LEN_W      = $clog2((MAX_BEATS + 1) * 8 + 1)
) (
    input  wire               clk,
    input  wire               rst,              // synchronous, active high
    // frames in, the RSS verdict with the last beat (rx_check's)
    input  wire               s_axis_tvalid,
    output logic              s_axis_tready,
    input  wire [63:0]        s_axis_tdata,
    input  wire [7:0]         s_axis_tkeep,
    input  wire               s_axis_tlast,
    input  wire [QUEUE_W-1:0] s_meta_queue,
    input  wire [31:0]        s_meta_hash,
    input  wire [4:0]         s_meta_hash_type,
    // AXI4-Lite registers (rx_ctrl's map, docs/rx-registers.md)
    input  wire               s_axil_awvalid,
    output logic              s_axil_awready,
    input  wire [AW-1:0]      s_axil_awaddr,
    input  wire               s_axil_wvalid,
    output logic              s_axil_wready,
    input  wire [31:0]        s_axil_wdata,
    input  wire [3:0]         s_axil_wstrb,
    output logic              s_axil_bvalid,
    input  wire               s_axil_bready,
    output logic [1:0]        s_axil_bresp,
    input  wire               s_axil_arvalid,
    output logic              s_axil_arready,
    input  wire [AW-1:0]      s_axil_araddr,
    output logic              s_axil_rvalid,
    input  wire               s_axil_rready,
    output logic [31:0]       s_axil_rdata,
    output logic [1:0]        s_axil_rresp,
    // memory-region writes (wqe_mr's)
    input  wire               mr_wr_en,
    input  wire [MW-1:0]      mr_wr_slot,
    input  wire               mr_wr_valid,      // 1: store the region; 0: free the slot
    input  wire [31:0]        mr_wr_lkey,
    input  wire [63:0]        mr_wr_base,
    input  wire [63:0]        mr_wr_length,
    input  wire [31:0]        mr_wr_pd,
    input  wire [3:0]         mr_wr_access,
    // the send side's QP slots
    input  wire [QPS-1:0]     sq_valid,         // holding a QP
    input  wire [QPS-1:0]     sq_rcv,           // holding a QP in RTR or RTS
    input  wire [QPS-1:0]     qp_err,           // holding a QP in ERR
    output logic              err_set_valid,    // move err_set_slot's QP to ERR
    output logic [7:0]        err_set_slot,
    // DMA reads (docs/wqe-dma.md, "DMA interface")
    output logic              m_rd_req_valid,
    input  wire               m_rd_req_ready,
    output logic [63:0]       m_rd_req_addr,
    output logic [12:0]       m_rd_req_len,
    output logic [TAG_W-1:0]  m_rd_req_tag,
    input  wire               s_rd_rsp_valid,
    output logic              s_rd_rsp_ready,
    input  wire [63:0]        s_rd_rsp_data,
    input  wire [7:0]         s_rd_rsp_keep,
    input  wire               s_rd_rsp_last,
    input  wire [TAG_W-1:0]   s_rd_rsp_tag,
    input  wire               s_rd_rsp_err,
    // DMA writes
    output logic              m_wr_valid,
    input  wire               m_wr_ready,
    output logic [63:0]       m_wr_addr,
    output logic [63:0]       m_wr_data,
    output logic [7:0]        m_wr_keep,
    output logic              m_wr_last,
    output logic [1:0]        m_wr_tag,
    input  wire               s_wr_done_valid,
    output logic              s_wr_done_ready,
    input  wire [1:0]         s_wr_done_tag,
    input  wire               s_wr_done_err,
    // the RC responder's acknowledgements, for the send side to frame (rx_dp's)
    output logic              m_ack_valid,
    input  wire               m_ack_ready,
    output logic [23:0]       m_ack_qpn,
    output logic [23:0]       m_ack_psn,
    output logic [7:0]        m_ack_syndrome,
    output logic [23:0]       m_ack_msn,
    // Acknowledge frames that came in, for the send side's requester (rx_dp's)
    output logic              m_rack_valid,
    input  wire               m_rack_ready,
    output logic [23:0]       m_rack_qpn,
    output logic [23:0]       m_rack_psn,
    output logic [7:0]        m_rack_syndrome,
    output logic [23:0]       m_rack_msn,
    // what the data path finished, in order (rx_dp's)
    output logic              frame_done,
    output logic              flush_step,
    output logic              flush_hit
);

    // ---- the front end -------------------------------------------------------------------------
    logic                     desc_valid, desc_ready, d_discard, d_roce, d_csum_ok, d_ack;
    logic [3:0]               d_reason;
    logic [7:0]               d_opcode;
    logic [23:0]              d_dest_qpn, d_psn, d_src_qp;
    logic                     d_ack_req;
    logic                     d_deth_valid, d_reth_valid, d_imm_valid, d_ipv6;
    logic [31:0]              d_qkey, d_rkey, d_dma_len, d_imm, d_hash;
    logic [63:0]              d_va;
    logic [LEN_W-1:0]         d_payload_off, d_payload_len, d_frame_len;
    logic [4:0]               d_l3_off, d_hash_type;
    logic [QUEUE_W-1:0]       d_queue;
    logic [ADDR_W-1:0]        d_addr, rd_addr;
    logic [BEATS_W-1:0]       d_beats;
    logic [63:0]              rd_data;
    logic                     release_frame;

    rx_check #(.BUF_BYTES(BUF_BYTES), .QUEUE_W(QUEUE_W)) u_check (
        .clk, .rst,
        .s_axis_tvalid, .s_axis_tready, .s_axis_tdata, .s_axis_tkeep, .s_axis_tlast,
        .s_meta_queue, .s_meta_hash, .s_meta_hash_type,
        .m_desc_valid(desc_valid), .m_desc_ready(desc_ready), .m_desc_discard(d_discard),
        .m_desc_reason(d_reason), .m_desc_roce(d_roce), .m_desc_csum_ok(d_csum_ok),
        .m_desc_ack(d_ack),
        .m_desc_opcode(d_opcode), .m_desc_dest_qpn(d_dest_qpn), .m_desc_psn(d_psn),
        .m_desc_ack_req(d_ack_req),
        .m_desc_deth_valid(d_deth_valid), .m_desc_qkey(d_qkey), .m_desc_src_qp(d_src_qp),
        .m_desc_reth_valid(d_reth_valid), .m_desc_va(d_va), .m_desc_rkey(d_rkey),
        .m_desc_dma_len(d_dma_len), .m_desc_imm_valid(d_imm_valid), .m_desc_imm(d_imm),
        .m_desc_payload_off(d_payload_off), .m_desc_payload_len(d_payload_len),
        .m_desc_ipv6(d_ipv6), .m_desc_l3_off(d_l3_off), .m_desc_frame_len(d_frame_len),
        .m_desc_queue(d_queue), .m_desc_hash(d_hash), .m_desc_hash_type(d_hash_type),
        .m_desc_addr(d_addr), .m_desc_beats(d_beats),
        .rd_addr, .rd_data, .release_frame
    );

    // ---- the data path ---------------------------------------------------------------------------
    logic                  enable, cmd_pending, dp_idle, responder, requester, ack_taken;
    logic [7:0]            ack_every;
    logic [4:0]            rnr_timer;
    logic                  ctx_rd_valid, ctx_rd_done, ctx_wr_valid, q_rd_valid, q_rd_done;
    logic [7:0]            ctx_rd_slot, ctx_wr_slot, q_rd_wq;
    rx_ctrl_pkg::ctx_t     ctx_rd;
    rx_ctrl_pkg::rcv_t     ctx_wr;
    rx_ctrl_pkg::wq_view_t q_rd;
    logic                  take_valid, push_valid, wq_err_valid, flush_req, flush_done;
    logic                  flush_found, accepted, discard_valid, cq_fault;
    logic [7:0]            take_wq, push_wq, wq_err_wq, flush_wq;
    logic                  flush_ip;
    logic [23:0]           flush_qpn;
    logic [63:0]           flush_wr_id;
    logic [3:0]            discard_reason;
    logic                  mr_req_valid, mr_req_ready, mr_res_valid, mr_res_ready;
    logic [31:0]           mr_req_lkey, mr_req_pd, mr_req_len;
    logic [63:0]           mr_req_addr;
    logic [3:0]            mr_req_access;
    logic [4:0]            mr_res_status;

    rx_dp #(
        .WQS(WQS), .QPS(QPS), .ADDR_W(ADDR_W), .BEATS_W(BEATS_W), .LEN_W(LEN_W),
        .QUEUE_W(QUEUE_W), .TAG_W(TAG_W), .RESPONDER(RESPONDER), .REQUESTER(REQUESTER)
    ) u_dp (
        .clk, .rst,
        .s_desc_valid(desc_valid), .s_desc_ready(desc_ready), .s_desc_discard(d_discard),
        .s_desc_reason(d_reason), .s_desc_roce(d_roce), .s_desc_csum_ok(d_csum_ok),
        .s_desc_ack(d_ack),
        .s_desc_opcode(d_opcode), .s_desc_dest_qpn(d_dest_qpn), .s_desc_psn(d_psn),
        .s_desc_ack_req(d_ack_req),
        .s_desc_deth_valid(d_deth_valid), .s_desc_qkey(d_qkey), .s_desc_src_qp(d_src_qp),
        .s_desc_reth_valid(d_reth_valid), .s_desc_va(d_va), .s_desc_rkey(d_rkey),
        .s_desc_dma_len(d_dma_len), .s_desc_imm_valid(d_imm_valid), .s_desc_imm(d_imm),
        .s_desc_payload_off(d_payload_off), .s_desc_payload_len(d_payload_len),
        .s_desc_ipv6(d_ipv6), .s_desc_l3_off(d_l3_off), .s_desc_frame_len(d_frame_len),
        .s_desc_queue(d_queue), .s_desc_hash(d_hash), .s_desc_hash_type(d_hash_type),
        .s_desc_addr(d_addr), .s_desc_beats(d_beats),
        .rd_addr, .rd_data, .release_frame,
        .enable, .requester, .responder, .ack_every, .rnr_timer, .cmd_pending, .dp_idle,
        .ctx_rd_valid, .ctx_rd_slot, .ctx_rd_done, .ctx_rd, .ctx_wr_valid, .ctx_wr_slot, .ctx_wr,
        .q_rd_valid, .q_rd_wq, .q_rd_done, .q_rd, .take_valid, .take_wq, .push_valid, .push_wq,
        .wq_err_valid, .wq_err_wq, .flush_req, .flush_done, .flush_found, .flush_wq,
        .flush_ip, .flush_qpn, .flush_wr_id,
        .accepted, .ack_taken, .discard_valid, .discard_reason, .cq_fault,
        .sq_valid, .sq_rcv, .qp_err, .err_set_valid, .err_set_slot,
        .m_mr_valid(mr_req_valid), .m_mr_ready(mr_req_ready), .m_mr_lkey(mr_req_lkey),
        .m_mr_pd(mr_req_pd), .m_mr_addr(mr_req_addr), .m_mr_len(mr_req_len),
        .m_mr_access(mr_req_access), .s_mr_valid(mr_res_valid), .s_mr_ready(mr_res_ready),
        .s_mr_status(mr_res_status),
        .m_rd_req_valid, .m_rd_req_ready, .m_rd_req_addr, .m_rd_req_len, .m_rd_req_tag,
        .s_rd_rsp_valid, .s_rd_rsp_ready, .s_rd_rsp_data, .s_rd_rsp_keep, .s_rd_rsp_last,
        .s_rd_rsp_tag, .s_rd_rsp_err,
        .m_wr_valid, .m_wr_ready, .m_wr_addr, .m_wr_data, .m_wr_keep, .m_wr_last, .m_wr_tag,
        .s_wr_done_valid, .s_wr_done_ready, .s_wr_done_tag, .s_wr_done_err,
        .m_ack_valid, .m_ack_ready, .m_ack_qpn, .m_ack_psn, .m_ack_syndrome, .m_ack_msn,
        .m_rack_valid, .m_rack_ready, .m_rack_qpn, .m_rack_psn, .m_rack_syndrome, .m_rack_msn,
        .frame_done, .flush_step, .flush_hit
    );

    // ---- the control plane -----------------------------------------------------------------------
    rx_ctrl #(.WQS(WQS), .QPS(QPS), .RESPONDER(RESPONDER), .REQUESTER(REQUESTER)) u_ctrl (
        .clk, .rst,
        .s_axil_awvalid, .s_axil_awready, .s_axil_awaddr, .s_axil_wvalid, .s_axil_wready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_bvalid, .s_axil_bready, .s_axil_bresp,
        .s_axil_arvalid, .s_axil_arready, .s_axil_araddr, .s_axil_rvalid, .s_axil_rready,
        .s_axil_rdata, .s_axil_rresp,
        .enable, .requester, .responder, .ack_every, .rnr_timer, .cmd_pending, .dp_idle,
        .frame_in_path(fip_q), .sq_valid, .qp_err,
        .ctx_rd_valid, .ctx_rd_slot, .ctx_rd_done, .ctx_rd, .ctx_wr_valid, .ctx_wr_slot, .ctx_wr,
        .q_rd_valid, .q_rd_wq, .q_rd_done, .q_rd, .take_valid, .take_wq, .push_valid, .push_wq,
        .wq_err_valid, .wq_err_wq, .flush_req, .flush_done, .flush_found, .flush_wq,
        .flush_ip, .flush_qpn, .flush_wr_id,
        .accepted, .ack_taken, .discard_valid, .discard_reason, .cq_fault
    );

    // ---- frames in the path, for STATUS.IDLE -----------------------------------------------------
    // From the cycle after a frame's first beat is taken until the data path has finished it
    // (frame_done): rx_check makes one descriptor of every frame, and the data path finishes
    // them in order. rx_check holds at most 2^8 frames, its input register one more.
    logic       in_frame_q, fip_q;
    logic [9:0] frames_q;
    wire        first_beat = s_axis_tvalid && s_axis_tready && !in_frame_q;
    wire  [9:0] frames_d   = frames_q + 10'(first_beat) - 10'(frame_done);
    always_ff @(posedge clk) begin
        if (rst) begin
            in_frame_q <= 1'b0;
            frames_q   <= '0;
            fip_q      <= 1'b0;
        end else begin
            if (s_axis_tvalid && s_axis_tready) begin
                in_frame_q <= !s_axis_tlast;
            end
            frames_q <= frames_d;
            fip_q    <= frames_d != 10'd0;
        end
    end

    // ---- the region check ------------------------------------------------------------------------
    logic [0:0] mr_res_tag;
    wire unused_mr_tag = ^mr_res_tag;

    wqe_mr #(.MRS(MRS), .MR_IDX_LSB(MR_IDX_LSB), .TAG_W(1)) u_mr (
        .clk, .rst,
        .wr_en(mr_wr_en), .wr_slot(mr_wr_slot), .wr_valid(mr_wr_valid), .wr_lkey(mr_wr_lkey),
        .wr_base(mr_wr_base), .wr_length(mr_wr_length), .wr_pd(mr_wr_pd),
        .wr_access(mr_wr_access),
        .s_req_valid(mr_req_valid), .s_req_ready(mr_req_ready), .s_req_lkey(mr_req_lkey),
        .s_req_pd(mr_req_pd), .s_req_addr(mr_req_addr), .s_req_len(mr_req_len),
        .s_req_access(mr_req_access), .s_req_tag(1'b0),
        .m_res_valid(mr_res_valid), .m_res_ready(mr_res_ready), .m_res_status(mr_res_status),
        .m_res_tag(mr_res_tag)
    );

endmodule

`endif  // ROCENIC_RX_PATH_SV
