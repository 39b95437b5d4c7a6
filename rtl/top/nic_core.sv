// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_NIC_CORE_SV
`define ROCENIC_NIC_CORE_SV
`include "rtl/top/nic_regs_pkg.sv"
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rx/rx_regs_pkg.sv"
`include "rtl/wqe/wqe_regs_pkg.sv"
`include "rtl/top/nic_axil.sv"
`include "rtl/top/nic_dma.sv"
`include "rtl/wqe/wqe_engine.sv"
`include "rtl/rss/rss_pipeline.sv"
`include "rtl/rx/rx_path.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The full core (docs/top.md): the WQE engine, the RSS pipeline and the receive path behind one
// AXI4-Lite register port (nic_axil, a window per block: nic_regs_pkg) and one DMA port
// (nic_dma: source 0 the engine, source 1 the receive path), the MAC's two 64-bit streams at
// the edge.
//
//   tx   the engine's frames (RoCEv2, UD QPs' TSO segments, and raw QPs' frames as the host
//        built them), straight to the MAC. TSO is inside the engine's data path (docs/wqe-dp.md,
//        "TSO in the RTL engine"), so this stays one stream.
//   rx   the MAC's frames through rss_pipeline, which hashes and steers them and gives its
//        verdict with each last beat, into rx_path, port to port.
//
// The receive path shares the engine's control plane: the engine's QP slots (sq_valid, sq_rcv,
// qp_err) are what rx_path reads of a QP's state, its moves to ERR (err_set) go into the
// engine's table through wqe_err_merge (behind the engine's own, none lost), and its copy of
// the memory-region table takes the engine's region writes in the same clock as the engine's.
//
// DMA responses: the two sources share the host's response stream (nic_dma), so each must take
// the answers to what it asked without waiting on the other. The engine does (docs/wqe-dma.md); the
// receive path has one read outstanding at a time and holds its ready low only while an entry
// it read waits for its own region check (rx_dp_fetch), a few cycles that depend on nothing of
// the engine's, and always takes write completions.
//
// Every block registers its outputs (and nic_axil and nic_dma every valid and ready), so no
// ready reaches a valid combinationally through this module.
module nic_core #(
    parameter  int QPS        = 64,     // QP slots (send queues; the receive contexts' too)
    parameter  int MRS        = 64,     // memory-region table entries (both copies)
    parameter  int MAX_SGE    = 16,     // data segments a send WQE may have
    parameter  int BUF_W      = 11,     // log2 of the engine's packet buffer's 64-bit words
    parameter  int TSO        = 1,      // 1: the engine segments UD QPs' TSO WQEs (CAPS.TSO)
    parameter  int WQS        = 64,     // receive work queues
    parameter  int RX_BUF     = 16384,  // rx_check's packet buffer, bytes
    parameter  int RULES      = 16,     // RSS steering rules (model::nic::DEFAULT_RULES)
    parameter  int CONTEXTS   = 4,      // RSS contexts (model::nic::DEFAULT_CONTEXTS)
    parameter  int TABLE_LOG2 = 7,      // log2 of the largest indirection table (model: 128)
    parameter  int RELIABLE   = 0,      // 1: the reliable transport on RC QPs (docs/rc.md): the
                                        // engine's requesters (CAPS2.RELIABLE) and the receive
                                        // path's Acknowledge frames to them (CONTROL.REQUESTER)
    localparam int AW         = nic_regs_pkg::NIC_ADDR_W,
    localparam int RD_TAG_W   = 4,      // each source's DMA read tags (the engine's)
    localparam int WR_TAG_W   = 2       // each source's DMA write tags
) (
    input  wire                clk,
    input  wire                rst,              // synchronous, active high
    // registers (docs/nic-registers.md)
    input  wire                s_axil_awvalid,
    output logic               s_axil_awready,
    input  wire [AW-1:0]       s_axil_awaddr,
    input  wire                s_axil_wvalid,
    output logic               s_axil_wready,
    input  wire [31:0]         s_axil_wdata,
    input  wire [3:0]          s_axil_wstrb,
    output logic               s_axil_bvalid,
    input  wire                s_axil_bready,
    output logic [1:0]         s_axil_bresp,
    input  wire                s_axil_arvalid,
    output logic               s_axil_arready,
    input  wire [AW-1:0]       s_axil_araddr,
    output logic               s_axil_rvalid,
    input  wire                s_axil_rready,
    output logic [31:0]        s_axil_rdata,
    output logic [1:0]         s_axil_rresp,
    // host memory (docs/wqe-dma.md, "DMA interface"), tags {source, the source's tag}
    output logic               m_rd_req_valid,
    input  wire                m_rd_req_ready,
    output logic [63:0]        m_rd_req_addr,
    output logic [12:0]        m_rd_req_len,
    output logic [RD_TAG_W:0]  m_rd_req_tag,
    input  wire                s_rd_rsp_valid,
    output logic               s_rd_rsp_ready,
    input  wire [63:0]         s_rd_rsp_data,
    input  wire [7:0]          s_rd_rsp_keep,
    input  wire                s_rd_rsp_last,
    input  wire [RD_TAG_W:0]   s_rd_rsp_tag,
    input  wire                s_rd_rsp_err,
    output logic               m_wr_valid,
    input  wire                m_wr_ready,
    output logic [63:0]        m_wr_addr,
    output logic [63:0]        m_wr_data,
    output logic [7:0]         m_wr_keep,
    output logic               m_wr_last,
    output logic [WR_TAG_W:0]  m_wr_tag,
    input  wire                s_wr_done_valid,
    output logic               s_wr_done_ready,
    input  wire [WR_TAG_W:0]   s_wr_done_tag,
    input  wire                s_wr_done_err,
    // the MAC's transmit side: Ethernet frames without FCS, byte lane i in bits [8i +: 8]
    output logic               m_tx_tvalid,
    input  wire                m_tx_tready,
    output logic [63:0]        m_tx_tdata,
    output logic [7:0]         m_tx_tkeep,
    output logic               m_tx_tlast,
    // the MAC's receive side, the same format
    input  wire                s_rx_tvalid,
    output logic               s_rx_tready,
    input  wire [63:0]         s_rx_tdata,
    input  wire [7:0]          s_rx_tkeep,
    input  wire                s_rx_tlast,
    // what the receive data path finished, in order (rx_dp's; for benches and counters)
    output logic               rx_frame_done,
    output logic               rx_flush_step,
    output logic               rx_flush_hit
);

    localparam int N   = nic_regs_pkg::NIC_WINDOWS;
    localparam int MW  = $clog2(MRS);
    localparam int WQE = nic_regs_pkg::NIC_WQE;
    localparam int RSS = nic_regs_pkg::NIC_RSS;
    localparam int RX  = nic_regs_pkg::NIC_RX;

    // ---- registers: one window per block ---------------------------------------------------------
    logic [N-1:0]    b_awvalid, b_awready, b_wvalid, b_wready, b_bvalid, b_bready;
    logic [N-1:0]    b_arvalid, b_arready, b_rvalid, b_rready;
    logic [AW-1:0]   b_awaddr, b_araddr;
    logic [31:0]     b_wdata;
    logic [3:0]      b_wstrb;
    logic [N*2-1:0]  b_bresp, b_rresp;
    logic [N*32-1:0] b_rdata;

    nic_axil u_axil (
        .clk, .rst,
        .s_axil_awvalid, .s_axil_awready, .s_axil_awaddr, .s_axil_wvalid, .s_axil_wready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_bvalid, .s_axil_bready, .s_axil_bresp,
        .s_axil_arvalid, .s_axil_arready, .s_axil_araddr, .s_axil_rvalid, .s_axil_rready,
        .s_axil_rdata, .s_axil_rresp,
        .m_axil_awvalid(b_awvalid), .m_axil_awready(b_awready), .m_axil_awaddr(b_awaddr),
        .m_axil_wvalid(b_wvalid), .m_axil_wready(b_wready), .m_axil_wdata(b_wdata),
        .m_axil_wstrb(b_wstrb), .m_axil_bvalid(b_bvalid), .m_axil_bready(b_bready),
        .m_axil_bresp(b_bresp), .m_axil_arvalid(b_arvalid), .m_axil_arready(b_arready),
        .m_axil_araddr(b_araddr), .m_axil_rvalid(b_rvalid), .m_axil_rready(b_rready),
        .m_axil_rdata(b_rdata), .m_axil_rresp(b_rresp)
    );

    // The address bits above each block's own map are the window's: nic_axil decoded them.
    wire unused_addr = ^{b_awaddr[AW-1:wqe_regs_pkg::WQE_ADDR_W],
                         b_araddr[AW-1:wqe_regs_pkg::WQE_ADDR_W]};

    // ---- DMA: the engine is source 0, the receive path source 1 ----------------------------------
    logic                s0_rq_valid, s0_rq_ready, s1_rq_valid, s1_rq_ready;
    logic [63:0]         s0_rq_addr, s1_rq_addr;
    logic [12:0]         s0_rq_len, s1_rq_len;
    logic [RD_TAG_W-1:0] s0_rq_tag, s1_rq_tag;
    logic                s0_rs_valid, s0_rs_ready, s0_rs_last, s0_rs_err;
    logic                s1_rs_valid, s1_rs_ready, s1_rs_last, s1_rs_err;
    logic [63:0]         s0_rs_data, s1_rs_data;
    logic [7:0]          s0_rs_keep, s1_rs_keep;
    logic [RD_TAG_W-1:0] s0_rs_tag, s1_rs_tag;
    logic                s0_w_valid, s0_w_ready, s0_w_last, s1_w_valid, s1_w_ready, s1_w_last;
    logic [63:0]         s0_w_addr, s0_w_data, s1_w_addr, s1_w_data;
    logic [7:0]          s0_w_keep, s1_w_keep;
    logic [WR_TAG_W-1:0] s0_w_tag, s1_w_tag;
    logic                s0_wd_valid, s0_wd_ready, s0_wd_err, s1_wd_valid, s1_wd_ready, s1_wd_err;
    logic [WR_TAG_W-1:0] s0_wd_tag, s1_wd_tag;

    nic_dma #(.DATA_BYTES(8), .RD_TAG_W(RD_TAG_W), .WR_TAG_W(WR_TAG_W)) u_dma (
        .clk, .rst,
        .s0_rd_req_valid(s0_rq_valid), .s0_rd_req_ready(s0_rq_ready),
        .s0_rd_req_addr(s0_rq_addr), .s0_rd_req_len(s0_rq_len), .s0_rd_req_tag(s0_rq_tag),
        .m0_rd_rsp_valid(s0_rs_valid), .m0_rd_rsp_ready(s0_rs_ready),
        .m0_rd_rsp_data(s0_rs_data), .m0_rd_rsp_keep(s0_rs_keep), .m0_rd_rsp_last(s0_rs_last),
        .m0_rd_rsp_tag(s0_rs_tag), .m0_rd_rsp_err(s0_rs_err),
        .s0_wr_valid(s0_w_valid), .s0_wr_ready(s0_w_ready), .s0_wr_addr(s0_w_addr),
        .s0_wr_data(s0_w_data), .s0_wr_keep(s0_w_keep), .s0_wr_last(s0_w_last),
        .s0_wr_tag(s0_w_tag),
        .m0_wr_done_valid(s0_wd_valid), .m0_wr_done_ready(s0_wd_ready),
        .m0_wr_done_tag(s0_wd_tag), .m0_wr_done_err(s0_wd_err),
        .s1_rd_req_valid(s1_rq_valid), .s1_rd_req_ready(s1_rq_ready),
        .s1_rd_req_addr(s1_rq_addr), .s1_rd_req_len(s1_rq_len), .s1_rd_req_tag(s1_rq_tag),
        .m1_rd_rsp_valid(s1_rs_valid), .m1_rd_rsp_ready(s1_rs_ready),
        .m1_rd_rsp_data(s1_rs_data), .m1_rd_rsp_keep(s1_rs_keep), .m1_rd_rsp_last(s1_rs_last),
        .m1_rd_rsp_tag(s1_rs_tag), .m1_rd_rsp_err(s1_rs_err),
        .s1_wr_valid(s1_w_valid), .s1_wr_ready(s1_w_ready), .s1_wr_addr(s1_w_addr),
        .s1_wr_data(s1_w_data), .s1_wr_keep(s1_w_keep), .s1_wr_last(s1_w_last),
        .s1_wr_tag(s1_w_tag),
        .m1_wr_done_valid(s1_wd_valid), .m1_wr_done_ready(s1_wd_ready),
        .m1_wr_done_tag(s1_wd_tag), .m1_wr_done_err(s1_wd_err),
        .m_rd_req_valid, .m_rd_req_ready, .m_rd_req_addr, .m_rd_req_len, .m_rd_req_tag,
        .s_rd_rsp_valid, .s_rd_rsp_ready, .s_rd_rsp_data, .s_rd_rsp_keep, .s_rd_rsp_last,
        .s_rd_rsp_tag, .s_rd_rsp_err,
        .m_wr_valid, .m_wr_ready, .m_wr_addr, .m_wr_data, .m_wr_keep, .m_wr_last, .m_wr_tag,
        .s_wr_done_valid, .s_wr_done_ready, .s_wr_done_tag, .s_wr_done_err
    );

    // ---- the send side -----------------------------------------------------------------------------
    // The receive path's RC acknowledgements go out as the engine's frames (its scheduler reads
    // the QP's route; docs/rc-responder.md, "ACK frames"). The receive path holds a frame's end while its
    // acknowledgement waits, so none is lost.
    logic           ack_valid, ack_ready;
    logic [23:0]    ack_qpn, ack_psn, ack_msn;
    logic [7:0]     ack_syndrome;
    logic [QPS-1:0] sq_valid, sq_rcv, qp_err;
    logic           rx_err_valid;
    logic [7:0]     rx_err_slot;
    logic           mr_wr_valid, mr_wr_clear;
    logic [MW-1:0]  mr_wr_slot;
    logic [31:0]    mr_wr_lkey, mr_wr_pd;
    logic [3:0]     mr_wr_access;
    logic [63:0]    mr_wr_base, mr_wr_length;

    // Acknowledges that come in, for the send side's requesters. Without RELIABLE, rx_path is
    // built without REQUESTER (Acknowledge frames stay unsupported discards) and the engine
    // would take and drop any. The engine finds a requester by QPN alone (the MSN is the
    // responder's count; the requester's PSNs say what completed).
    logic        rack_valid, rack_ready;
    logic [23:0] rack_qpn, rack_psn, rack_msn;
    logic [7:0]  rack_syndrome;
    wire unused_rack = ^rack_msn;

    wqe_engine #(
        .QPS(QPS), .MRS(MRS), .MAX_SGE(MAX_SGE), .TAG_W(RD_TAG_W), .BUF_W(BUF_W),
        .TSO(TSO), .RELIABLE(RELIABLE)
    ) u_wqe (
        .clk, .rst,
        .s_axil_awvalid(b_awvalid[WQE]), .s_axil_awready(b_awready[WQE]),
        .s_axil_awaddr(b_awaddr[wqe_regs_pkg::WQE_ADDR_W-1:0]),
        .s_axil_wvalid(b_wvalid[WQE]), .s_axil_wready(b_wready[WQE]),
        .s_axil_wdata(b_wdata), .s_axil_wstrb(b_wstrb),
        .s_axil_bvalid(b_bvalid[WQE]), .s_axil_bready(b_bready[WQE]),
        .s_axil_bresp(b_bresp[2*WQE +: 2]),
        .s_axil_arvalid(b_arvalid[WQE]), .s_axil_arready(b_arready[WQE]),
        .s_axil_araddr(b_araddr[wqe_regs_pkg::WQE_ADDR_W-1:0]),
        .s_axil_rvalid(b_rvalid[WQE]), .s_axil_rready(b_rready[WQE]),
        .s_axil_rdata(b_rdata[32*WQE +: 32]), .s_axil_rresp(b_rresp[2*WQE +: 2]),
        .m_rd_req_valid(s0_rq_valid), .m_rd_req_ready(s0_rq_ready),
        .m_rd_req_addr(s0_rq_addr), .m_rd_req_len(s0_rq_len), .m_rd_req_tag(s0_rq_tag),
        .s_rd_rsp_valid(s0_rs_valid), .s_rd_rsp_ready(s0_rs_ready),
        .s_rd_rsp_data(s0_rs_data), .s_rd_rsp_keep(s0_rs_keep), .s_rd_rsp_last(s0_rs_last),
        .s_rd_rsp_tag(s0_rs_tag), .s_rd_rsp_err(s0_rs_err),
        .m_wr_valid(s0_w_valid), .m_wr_ready(s0_w_ready), .m_wr_addr(s0_w_addr),
        .m_wr_data(s0_w_data), .m_wr_keep(s0_w_keep), .m_wr_last(s0_w_last),
        .m_wr_tag(s0_w_tag),
        .s_wr_done_valid(s0_wd_valid), .s_wr_done_ready(s0_wd_ready),
        .s_wr_done_tag(s0_wd_tag), .s_wr_done_err(s0_wd_err),
        .m_axis_tvalid(m_tx_tvalid), .m_axis_tready(m_tx_tready), .m_axis_tdata(m_tx_tdata),
        .m_axis_tkeep(m_tx_tkeep), .m_axis_tlast(m_tx_tlast),
        .sq_valid, .sq_rcv, .qp_err,
        .rx_err_set_valid(rx_err_valid), .rx_err_set_slot(rx_err_slot),
        .s_ack_valid(ack_valid), .s_ack_ready(ack_ready), .s_ack_qpn(ack_qpn),
        .s_ack_psn(ack_psn), .s_ack_syndrome(ack_syndrome), .s_ack_msn(ack_msn),
        .s_rack_valid(rack_valid), .s_rack_ready(rack_ready), .s_rack_qpn(rack_qpn),
        .s_rack_psn(rack_psn), .s_rack_syndrome(rack_syndrome),
        .mr_wr_valid, .mr_wr_slot, .mr_wr_clear, .mr_wr_lkey, .mr_wr_pd, .mr_wr_access,
        .mr_wr_base, .mr_wr_length
    );

    // ---- the receive side: RSS, then the receive path --------------------------------------------
    localparam int RULE_W = RULES > 1 ? $clog2(RULES) : 1;
    logic        r_valid, r_ready, r_last, r_user, r_rule_hit;
    logic [63:0] r_data;
    logic [7:0]  r_keep;
    logic [rss_regs_pkg::RSS_FLAGS_W-1:0] r_flags;
    logic [31:0] r_hash;
    logic [4:0]  r_hash_type;
    logic [RULE_W-1:0] r_rule;
    logic [15:0] r_queue;

    // The link layer is Ethernet (tuser 0); the verdict's flags and rule are not the receive
    // path's (it reads the queue, the hash and its type).
    wire unused_rss = ^{r_user, r_rule_hit, r_rule, r_flags};

    rss_pipeline #(
        .DATA_BYTES(8), .NUM_RULES(RULES), .NUM_CONTEXTS(CONTEXTS), .TABLE_LOG2(TABLE_LOG2),
        .QUEUE_W(16)
    ) u_rss (
        .clk, .rst,
        .s_axis_tvalid(s_rx_tvalid), .s_axis_tready(s_rx_tready), .s_axis_tdata(s_rx_tdata),
        .s_axis_tkeep(s_rx_tkeep), .s_axis_tlast(s_rx_tlast), .s_axis_tuser(1'b0),
        .m_axis_tvalid(r_valid), .m_axis_tready(r_ready), .m_axis_tdata(r_data),
        .m_axis_tkeep(r_keep), .m_axis_tlast(r_last), .m_axis_tuser(r_user),
        .m_meta_flags(r_flags), .m_meta_hash(r_hash), .m_meta_hash_type(r_hash_type),
        .m_meta_rule_hit(r_rule_hit), .m_meta_rule(r_rule), .m_meta_queue(r_queue),
        .s_axil_awvalid(b_awvalid[RSS]), .s_axil_awready(b_awready[RSS]),
        .s_axil_awaddr(b_awaddr[11:0]),
        .s_axil_wvalid(b_wvalid[RSS]), .s_axil_wready(b_wready[RSS]),
        .s_axil_wdata(b_wdata), .s_axil_wstrb(b_wstrb),
        .s_axil_bvalid(b_bvalid[RSS]), .s_axil_bready(b_bready[RSS]),
        .s_axil_bresp(b_bresp[2*RSS +: 2]),
        .s_axil_arvalid(b_arvalid[RSS]), .s_axil_arready(b_arready[RSS]),
        .s_axil_araddr(b_araddr[11:0]),
        .s_axil_rvalid(b_rvalid[RSS]), .s_axil_rready(b_rready[RSS]),
        .s_axil_rdata(b_rdata[32*RSS +: 32]), .s_axil_rresp(b_rresp[2*RSS +: 2])
    );

    // The receive path with the RC responder (CONTROL.RESPONDER, off after reset).
    rx_path #(
        .WQS(WQS), .QPS(QPS), .MRS(MRS), .MR_IDX_LSB(8), .TAG_W(RD_TAG_W), .BUF_BYTES(RX_BUF),
        .RESPONDER(1), .REQUESTER(RELIABLE != 0)
    ) u_rx (
        .clk, .rst,
        .s_axis_tvalid(r_valid), .s_axis_tready(r_ready), .s_axis_tdata(r_data),
        .s_axis_tkeep(r_keep), .s_axis_tlast(r_last),
        .s_meta_queue(r_queue), .s_meta_hash(r_hash), .s_meta_hash_type(r_hash_type),
        .s_axil_awvalid(b_awvalid[RX]), .s_axil_awready(b_awready[RX]),
        .s_axil_awaddr(b_awaddr[rx_regs_pkg::RX_ADDR_W-1:0]),
        .s_axil_wvalid(b_wvalid[RX]), .s_axil_wready(b_wready[RX]),
        .s_axil_wdata(b_wdata), .s_axil_wstrb(b_wstrb),
        .s_axil_bvalid(b_bvalid[RX]), .s_axil_bready(b_bready[RX]),
        .s_axil_bresp(b_bresp[2*RX +: 2]),
        .s_axil_arvalid(b_arvalid[RX]), .s_axil_arready(b_arready[RX]),
        .s_axil_araddr(b_araddr[rx_regs_pkg::RX_ADDR_W-1:0]),
        .s_axil_rvalid(b_rvalid[RX]), .s_axil_rready(b_rready[RX]),
        .s_axil_rdata(b_rdata[32*RX +: 32]), .s_axil_rresp(b_rresp[2*RX +: 2]),
        .mr_wr_en(mr_wr_valid), .mr_wr_slot, .mr_wr_valid(!mr_wr_clear), .mr_wr_lkey,
        .mr_wr_base, .mr_wr_length, .mr_wr_pd, .mr_wr_access,
        .sq_valid, .sq_rcv, .qp_err,
        .err_set_valid(rx_err_valid), .err_set_slot(rx_err_slot),
        .m_rd_req_valid(s1_rq_valid), .m_rd_req_ready(s1_rq_ready),
        .m_rd_req_addr(s1_rq_addr), .m_rd_req_len(s1_rq_len), .m_rd_req_tag(s1_rq_tag),
        .s_rd_rsp_valid(s1_rs_valid), .s_rd_rsp_ready(s1_rs_ready),
        .s_rd_rsp_data(s1_rs_data), .s_rd_rsp_keep(s1_rs_keep), .s_rd_rsp_last(s1_rs_last),
        .s_rd_rsp_tag(s1_rs_tag), .s_rd_rsp_err(s1_rs_err),
        .m_wr_valid(s1_w_valid), .m_wr_ready(s1_w_ready), .m_wr_addr(s1_w_addr),
        .m_wr_data(s1_w_data), .m_wr_keep(s1_w_keep), .m_wr_last(s1_w_last),
        .m_wr_tag(s1_w_tag),
        .s_wr_done_valid(s1_wd_valid), .s_wr_done_ready(s1_wd_ready),
        .s_wr_done_tag(s1_wd_tag), .s_wr_done_err(s1_wd_err),
        .m_ack_valid(ack_valid), .m_ack_ready(ack_ready), .m_ack_qpn(ack_qpn),
        .m_ack_psn(ack_psn), .m_ack_syndrome(ack_syndrome), .m_ack_msn(ack_msn),
        .m_rack_valid(rack_valid), .m_rack_ready(rack_ready), .m_rack_qpn(rack_qpn),
        .m_rack_psn(rack_psn), .m_rack_syndrome(rack_syndrome), .m_rack_msn(rack_msn),
        .frame_done(rx_frame_done), .flush_step(rx_flush_step), .flush_hit(rx_flush_hit)
    );

endmodule

`resetall

`endif  // ROCENIC_NIC_CORE_SV
