// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_DP_SV
`define ROCENIC_WQE_DP_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_frame_pkg.sv"
`include "rtl/wqe/wqe_fetch.sv"
`include "rtl/wqe/wqe_parse.sv"
`include "rtl/common/stream_fifo.sv"
`include "rtl/wqe/wqe_bram_fifo.sv"
`include "rtl/wqe/wqe_gather.sv"
`include "rtl/wqe/wqe_rdbuf.sv"
`include "rtl/entropy/entropy_unit.sv"
`include "rtl/wqe/wqe_emit.sv"
`include "rtl/wqe/wqe_concat.sv"
`include "rtl/wqe/wqe_tso_tx.sv"
`include "rtl/wqe/wqe_cq.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The WQE engine's data path (docs/wqe-dp.md, "Data path"): picks in; WQE fetch (wqe_fetch),
// checks (wqe_parse, with the memory-region check outside on m_mr/s_mr), gather planning and
// DMA (wqe_gather, wqe_rdbuf), the commit point and sender (wqe_emit, wqe_concat), UD entropy
// (entropy_unit) and completions (wqe_cq). Frame descriptors and their payload leave on
// m_desc/m_pay for the frame builder; the control plane supplies picks, PSNs and the QPs'
// error state.
//
// DMA reads: fetch and gather share the read port; fetch has tag 2^TAG_W - 1, the pieces the
// others. A response beat goes to fetch or to the packet buffer by its tag.
//
// TSO = 1 adds TSO work requests (opcode 10 on UD QPs; docs/wqe-dp.md, "TSO in the RTL engine"):
// the checks, the planner and the sender handle them, and wqe_tso_tx (the segmenter, split and
// merge) sits between wqe_concat and m_pay, with a FIFO of descriptors beside it so the sender
// can run a segment or two ahead of the frame builder. TSO = 0 refuses opcode 10 as unknown.
module wqe_dp
#(
    parameter int QPS     = 64,  // QP slots
    parameter int MAX_SGE = 16,  // data segments a WQE may have
    parameter int TAG_W   = 4,   // DMA read tag width
    parameter int BUF_W   = 11,  // log2 of the packet buffer's 64-bit words (2^11 = 16 KiB)
    parameter int TSO     = 0,   // 1: TSO work requests through the segmenter
    parameter int RC_PACKETS = 0 // 1: a pick may ask for one packet of an RC WQE (pick_t.rcp)
) (
    input  wire                  clk,
    input  wire                  rst,
    // control plane
    input  wire                  s_pick_valid,
    output logic                 s_pick_ready,
    input  wire wqe_dp_pkg::pick_t           s_pick,
    input  wire [QPS-1:0]        qp_err,
    output logic                 err_set_valid,
    output logic [7:0]           err_set_slot,
    output logic                 psn_take_valid,
    output logic [7:0]           psn_take_slot,
    input  wire [23:0]           psn_take_first,
    input  wire [47:0]           nic_mac,
    input  wire [31:0]           nic_ipv4,
    input  wire [127:0]          nic_ipv6,
    input  wire [1:0]            profile,
    input  wire [63:0]           cq_base,
    input  wire [4:0]            cq_log2,
    input  wire [31:0]           cq_producer,
    output logic                 cqe_written,
    output logic                 cq_fault,
    output logic                 wqe_retire,
    output logic                 frame_sent,
    output logic                 idle,            // no WQE in flight, no completion write out
    // memory-region checks, in order
    output logic                 m_mr_valid,
    input  wire                  m_mr_ready,
    output logic [31:0]          m_mr_lkey,
    output logic [31:0]          m_mr_pd,
    output logic [63:0]          m_mr_addr,
    output logic [31:0]          m_mr_len,
    input  wire                  s_mr_valid,
    output logic                 s_mr_ready,
    input  wire [4:0]            s_mr_status,
    // DMA reads
    output logic                 m_rd_req_valid,
    input  wire                  m_rd_req_ready,
    output logic [63:0]          m_rd_req_addr,
    output logic [12:0]          m_rd_req_len,
    output logic [TAG_W-1:0]     m_rd_req_tag,
    input  wire                  s_rd_rsp_valid,
    output logic                 s_rd_rsp_ready,
    input  wire [63:0]           s_rd_rsp_data,
    input  wire [7:0]            s_rd_rsp_keep,
    input  wire                  s_rd_rsp_last,
    input  wire [TAG_W-1:0]      s_rd_rsp_tag,
    input  wire                  s_rd_rsp_err,
    // DMA writes (completions)
    output logic                 m_wr_valid,
    input  wire                  m_wr_ready,
    output logic [63:0]          m_wr_addr,
    output logic [63:0]          m_wr_data,
    output logic [7:0]           m_wr_keep,
    output logic                 m_wr_last,
    output logic [1:0]           m_wr_tag,
    input  wire                  s_wr_done_valid,
    output logic                 s_wr_done_ready,
    input  wire [1:0]            s_wr_done_tag,
    input  wire                  s_wr_done_err,
    // to the frame builder
    output logic                 m_desc_valid,
    input  wire                  m_desc_ready,
    output wqe_frame_pkg::desc_t          m_desc,
    output logic                 m_pay_tvalid,
    input  wire                  m_pay_tready,
    output logic [63:0]          m_pay_tdata,
    output logic [7:0]           m_pay_tkeep,
    output logic                 m_pay_tlast,
    // a requester's pick (rcp.en, RC_PACKETS = 1): its outcome instead of a completion, in
    // pick order; a prepare pick's (rcp.prep) with the message's packets, its SIGNALED flag
    // and the completion due when it ends (its status the checks')
    output logic                 m_res_valid,
    input  wire                  m_res_ready,
    output logic [7:0]           m_res_slot,
    output logic [4:0]           m_res_status,
    output logic [23:0]          m_res_packets,
    output logic                 m_res_signaled,
    output wqe_dp_pkg::cqe_t     m_res_cqe,
    // completions from elsewhere (the reliable transport's, as the peer acknowledges), written
    // between the data path's own
    input  wire                  s_cqe_valid,
    output logic                 s_cqe_ready,
    input  wire wqe_dp_pkg::cqe_t s_cqe
);

    localparam int TAGS      = 2 ** TAG_W - 1;
    localparam int FETCH_TAG = TAGS;

    // ---- fetch ----------------------------------------------------------------------------
    logic              f_req_valid, f_req_ready;
    logic [63:0]       f_req_addr;
    logic [12:0]       f_req_len;
    logic [TAG_W-1:0]  f_req_tag;
    logic              f_rsp_ready;
    logic              fw_valid, fw_ready, fw_buf;
    wqe_dp_pkg::pick_t             fw_pick;
    logic [4:0]        fw_status;
    logic [6:0]        fw_blocks;
    logic              rd_buf, buf_free_valid, buf_free_id;
    logic [6:0]        rd_word;
    logic [63:0]       wqe_word;

    wire rsp_fetch = s_rd_rsp_tag == TAG_W'(FETCH_TAG);

    wqe_fetch #(.TAG_W(TAG_W), .TAG(FETCH_TAG)) u_fetch (
        .clk, .rst,
        .s_pick_valid, .s_pick_ready, .s_pick,
        .m_rd_req_valid(f_req_valid), .m_rd_req_ready(f_req_ready),
        .m_rd_req_addr(f_req_addr), .m_rd_req_len(f_req_len), .m_rd_req_tag(f_req_tag),
        .s_rd_valid(s_rd_rsp_valid && rsp_fetch), .s_rd_ready(f_rsp_ready),
        .s_rd_data(s_rd_rsp_data), .s_rd_last(s_rd_rsp_last), .s_rd_err(s_rd_rsp_err),
        .m_wqe_valid(fw_valid), .m_wqe_ready(fw_ready), .m_wqe_pick(fw_pick),
        .m_wqe_status(fw_status), .m_wqe_bytes64(fw_blocks), .m_wqe_buf(fw_buf),
        .rd_buf, .rd_word, .rd_data(wqe_word),
        .buf_free_valid, .buf_free_id
    );

    // ---- checks ---------------------------------------------------------------------------
    logic  pw_valid, pw_ready;
    wqe_dp_pkg::wqe_t  pw;
    logic  ps_valid, ps_ready, pi_valid, pi_ready;
    wqe_dp_pkg::sge_t  ps;
    logic [63:0] pi;

    wqe_parse #(.MAX_SGE(MAX_SGE), .TSO(TSO)) u_parse (
        .clk, .rst,
        .s_wqe_valid(fw_valid), .s_wqe_ready(fw_ready), .s_wqe_pick(fw_pick),
        .s_wqe_status(fw_status), .s_wqe_blocks(fw_blocks), .s_wqe_buf(fw_buf),
        .rd_buf, .rd_word, .rd_data(wqe_word), .buf_free_valid, .buf_free_id,
        .m_mr_valid, .m_mr_ready, .m_mr_lkey, .m_mr_pd, .m_mr_addr, .m_mr_len,
        .s_mr_valid, .s_mr_ready, .s_mr_status,
        .m_wqe_valid(pw_valid), .m_wqe_ready(pw_ready), .m_wqe(pw),
        .m_sge_valid(ps_valid), .m_sge_ready(ps_ready), .m_sge(ps),
        .m_inl_valid(pi_valid), .m_inl_ready(pi_ready), .m_inl_data(pi)
    );

    // Data segments and inline words wait for the planner: two WQEs' worth or more (the inline
    // words' FIFO is a block RAM of 1,024).
    logic  gs_valid, gs_ready, gi_valid, gi_ready;
    wqe_dp_pkg::sge_t  gs;
    logic [63:0] gi;
    stream_fifo #(.WIDTH($bits(ps)), .DEPTH_LOG2(5)) u_sge_fifo (
        .clk, .rst, .s_valid(ps_valid), .s_ready(ps_ready), .s_data(ps),
        .m_valid(gs_valid), .m_ready(gs_ready), .m_data(gs)
    );
    wqe_bram_fifo #(.WIDTH(64), .AW(10)) u_inl_fifo (
        .clk, .rst, .s_valid(pi_valid), .s_ready(pi_ready), .s_data(pi),
        .m_valid(gi_valid), .m_ready(gi_ready), .m_data(gi)
    );

    // ---- gather ---------------------------------------------------------------------------
    logic              gc_valid, gc_ready, gp_valid, gp_ready, gpc_valid, gpc_ready;
    wqe_dp_pkg::wqe_t              gc;
    logic [23:0]       gc_packets;
    logic [12:0]       gp_len;
    logic [TAGS-1:0]   gp_tags;
    logic [4:0]        gp_pieces;
    logic [TAG_W-1:0]  gpc_tag;
    logic [BUF_W-1:0]  gpc_base;
    logic [12:0]       gpc_len;
    logic              gpc_end;
    logic              ent_req_valid, ent_req_ready;
    logic [23:0]       ent_lqpn, ent_rqpn;
    logic [19:0]       ent_fl;
    logic              g_req_valid, g_req_ready;
    logic [63:0]       g_req_addr;
    logic [12:0]       g_req_len;
    logic [TAG_W-1:0]  g_req_tag;
    logic [TAGS-1:0]   tag_busy, tag_done, tag_err;
    logic              alloc_valid;
    logic [TAG_W-1:0]  alloc_tag;
    logic [BUF_W-1:0]  alloc_base;
    logic              inl_wr_valid, inl_wr_ready, inl_wr_done;
    logic [BUF_W-1:0]  inl_wr_addr;
    logic [63:0]       inl_wr_data;
    logic [TAG_W-1:0]  inl_wr_tag;
    logic [BUF_W:0]    free_ptr;

    wqe_gather #(.TAG_W(TAG_W), .BUF_W(BUF_W), .TSO(TSO), .RC_PACKETS(RC_PACKETS)) u_gather (
        .clk, .rst,
        .s_wqe_valid(pw_valid), .s_wqe_ready(pw_ready), .s_wqe(pw),
        .s_sge_valid(gs_valid), .s_sge_ready(gs_ready), .s_sge(gs),
        .s_inl_valid(gi_valid), .s_inl_ready(gi_ready), .s_inl_data(gi),
        .m_commit_valid(gc_valid), .m_commit_ready(gc_ready), .m_commit(gc),
        .m_commit_packets(gc_packets),
        .m_pkt_valid(gp_valid), .m_pkt_ready(gp_ready), .m_pkt_len(gp_len),
        .m_pkt_tags(gp_tags), .m_pkt_pieces(gp_pieces),
        .m_piece_valid(gpc_valid), .m_piece_ready(gpc_ready), .m_piece_tag(gpc_tag),
        .m_piece_base(gpc_base), .m_piece_len(gpc_len), .m_piece_end(gpc_end),
        .m_ent_valid(ent_req_valid), .m_ent_ready(ent_req_ready),
        .m_ent_lqpn(ent_lqpn), .m_ent_rqpn(ent_rqpn), .m_ent_fl(ent_fl),
        .m_rd_req_valid(g_req_valid), .m_rd_req_ready(g_req_ready),
        .m_rd_req_addr(g_req_addr), .m_rd_req_len(g_req_len), .m_rd_req_tag(g_req_tag),
        .tag_busy, .tag_alloc_valid(alloc_valid), .tag_alloc_tag(alloc_tag),
        .tag_alloc_base(alloc_base),
        .inl_wr_valid, .inl_wr_addr, .inl_wr_data, .inl_wr_done, .inl_wr_tag, .inl_wr_ready,
        .free_ptr
    );

    // Read requests: fetch first (a WQE unblocks everything behind it), then the planner.
    // The choice goes into an output register, loaded (whatever is offered) whenever that is
    // empty or taken: the request's many bits then load by one gate; the readies back to
    // fetch and the planner depend on the port's ready, but no ready reaches a valid.
    wire rq_load = !m_rd_req_valid || m_rd_req_ready;
    assign f_req_ready = rq_load && f_req_valid;
    assign g_req_ready = rq_load && !f_req_valid;
    always_ff @(posedge clk) begin
        if (rst) begin
            m_rd_req_valid <= 1'b0;
        end else if (rq_load) begin
            m_rd_req_valid <= f_req_valid || g_req_valid;
        end
        if (rq_load) begin
            {m_rd_req_addr, m_rd_req_len, m_rd_req_tag} <= f_req_valid
                ? {f_req_addr, f_req_len, f_req_tag} : {g_req_addr, g_req_len, g_req_tag};
        end
    end

    // Responses: fetch's tag to fetch, the rest to the packet buffer (which always takes them).
    assign s_rd_rsp_ready = rsp_fetch ? f_rsp_ready : 1'b1;
    wire unused_keep = ^s_rd_rsp_keep;

    logic [BUF_W-1:0] buf_rd_addr;
    logic [63:0]      buf_rd_data;
    logic             free_valid;
    logic [TAG_W-1:0] free_tag;

    wqe_rdbuf #(.TAG_W(TAG_W), .BUF_W(BUF_W)) u_rdbuf (
        .clk, .rst,
        .alloc_valid, .alloc_tag, .alloc_base,
        .s_rsp_valid(s_rd_rsp_valid && !rsp_fetch), .s_rsp_data(s_rd_rsp_data),
        .s_rsp_tag(s_rd_rsp_tag), .s_rsp_last(s_rd_rsp_last), .s_rsp_err(s_rd_rsp_err),
        .inl_valid(inl_wr_valid), .inl_ready(inl_wr_ready), .inl_addr(inl_wr_addr),
        .inl_data(inl_wr_data), .inl_done(inl_wr_done), .inl_tag(inl_wr_tag),
        .busy(tag_busy), .done(tag_done), .err(tag_err),
        .free_valid, .free_tag,
        .rd_addr(buf_rd_addr), .rd_data(buf_rd_data)
    );

    // Commit, packet and piece records wait for the sender, so the planner runs ahead.
    logic            ec_valid, ec_ready, ep_valid, ep_ready, epc_valid, epc_ready;
    wqe_dp_pkg::wqe_t            ec;
    logic [23:0]     ec_packets;
    logic [12:0]     ep_len;
    logic [TAGS-1:0] ep_tags;
    logic [4:0]      ep_pieces;
    logic [TAG_W-1:0] epc_tag;
    logic [BUF_W-1:0] epc_base;
    logic [12:0]     epc_len;
    logic            epc_end;

    // The commit queue's head is the sender's WQE, read in place (wqe_emit): its 1,226 bits are
    // addressed and loaded in eight slices, each with its own pointers (COPIES).
    stream_fifo #(.WIDTH($bits(gc) + 24), .DEPTH_LOG2(2), .COPIES(8)) u_commit_fifo (
        .clk, .rst, .s_valid(gc_valid), .s_ready(gc_ready), .s_data({gc, gc_packets}),
        .m_valid(ec_valid), .m_ready(ec_ready), .m_data({ec, ec_packets})
    );
    stream_fifo #(.WIDTH(13 + TAGS + 5), .DEPTH_LOG2(4)) u_pkt_fifo (
        .clk, .rst, .s_valid(gp_valid), .s_ready(gp_ready), .s_data({gp_len, gp_tags, gp_pieces}),
        .m_valid(ep_valid), .m_ready(ep_ready), .m_data({ep_len, ep_tags, ep_pieces})
    );
    stream_fifo #(.WIDTH(TAG_W + BUF_W + 13 + 1), .DEPTH_LOG2(5)) u_piece_fifo (
        .clk, .rst, .s_valid(gpc_valid), .s_ready(gpc_ready),
        .s_data({gpc_tag, gpc_base, gpc_len, gpc_end}),
        .m_valid(epc_valid), .m_ready(epc_ready), .m_data({epc_tag, epc_base, epc_len, epc_end})
    );

    // ---- the control plane's settings, registered here ------------------------------------
    // The NIC's addresses and the entropy profile are the control plane's registers, across
    // the chip in the whole engine; behind them are the sender's address multiplexer and the
    // frame builder's header register. A copy here takes that route out of those paths; a
    // register write reaches the sender a cycle later, well inside the write's own latency.
    logic [47:0]  nic_mac_q;
    logic [31:0]  nic_ipv4_q;
    logic [127:0] nic_ipv6_q;
    logic [1:0]   profile_q;
    always_ff @(posedge clk) begin
        nic_mac_q  <= nic_mac;
        nic_ipv4_q <= nic_ipv4;
        nic_ipv6_q <= nic_ipv6;
        profile_q  <= profile;
    end

    // ---- UD entropy -----------------------------------------------------------------------
    logic        ent_valid, ent_ready;
    logic [19:0] ent_flow_label;
    logic [15:0] ent_udp_sport;

    entropy_unit u_entropy (
        .clk, .rst,
        .s_req_valid(ent_req_valid), .s_req_ready(ent_req_ready),
        .s_req_mode(1'b0), .s_req_profile(profile_q), .s_req_qp_type(1'b1),
        .s_req_lqpn(ent_lqpn), .s_req_rqpn(ent_rqpn), .s_req_fl({12'b0, ent_fl}),
        .s_req_src_port(16'd0), .s_req_dst_port(16'd0),
        .m_res_valid(ent_valid), .m_res_ready(ent_ready),
        .m_res_flow_label(ent_flow_label), .m_res_udp_sport(ent_udp_sport)
    );

    // ---- sender ---------------------------------------------------------------------------
    logic        cq_valid, cq_ready;
    wqe_dp_pkg::cqe_t        cq;
    logic        pr_valid, pr_ready, pr_last, pay_busy, concat_busy;
    logic [63:0] pr_data;
    logic [3:0]  pr_bytes;
    logic        rec_valid, rec_ready, rec_tso, rec_ipoib, keep_valid, keep_ready, keep;
    logic [15:0] rec_hdr_len, rec_mss;
    logic [31:0] rec_len;
    logic        e_desc_valid, e_desc_ready;
    wqe_frame_pkg::desc_t e_desc;

    wqe_emit #(.QPS(QPS), .TAG_W(TAG_W), .BUF_W(BUF_W), .TSO(TSO), .RC_PACKETS(RC_PACKETS)) u_emit (
        .clk, .rst,
        .s_commit_valid(ec_valid), .s_commit_ready(ec_ready), .s_commit(ec),
        .s_commit_packets(ec_packets),
        .s_pkt_valid(ep_valid), .s_pkt_ready(ep_ready), .s_pkt_len(ep_len),
        .s_pkt_tags(ep_tags), .s_pkt_pieces(ep_pieces),
        .s_piece_valid(epc_valid), .s_piece_ready(epc_ready), .s_piece_tag(epc_tag),
        .s_piece_base(epc_base), .s_piece_len(epc_len), .s_piece_end(epc_end),
        .s_ent_valid(ent_valid), .s_ent_ready(ent_ready),
        .s_ent_flow_label(ent_flow_label), .s_ent_udp_sport(ent_udp_sport),
        .tag_done, .tag_err, .free_valid, .free_tag, .free_ptr,
        .rd_addr(buf_rd_addr), .rd_data(buf_rd_data),
        .qp_err, .err_set_valid, .err_set_slot, .psn_take_valid, .psn_take_slot, .psn_take_first,
        .nic_mac(nic_mac_q), .nic_ipv4(nic_ipv4_q), .nic_ipv6(nic_ipv6_q), .wqe_retire,
        .frame_sent,
        .m_desc_valid(e_desc_valid), .m_desc_ready(e_desc_ready), .m_desc(e_desc),
        .m_pay_valid(pr_valid), .m_pay_ready(pr_ready), .m_pay_data(pr_data),
        .m_pay_bytes(pr_bytes), .m_pay_last(pr_last), .pay_busy,
        .m_rec_valid(rec_valid), .m_rec_ready(rec_ready), .m_rec_tso(rec_tso), .m_rec_ipoib(rec_ipoib),
        .m_rec_hdr_len(rec_hdr_len), .m_rec_mss(rec_mss), .m_rec_len(rec_len),
        .m_keep_valid(keep_valid), .m_keep_ready(keep_ready), .m_keep(keep),
        .m_cqe_valid(cq_valid), .m_cqe_ready(cq_ready), .m_cqe(cq),
        .m_res_valid, .m_res_ready, .m_res_slot, .m_res_status, .m_res_packets, .m_res_signaled
    );
    // The sender's completion register holds the WQE's completion while it answers on m_res.
    assign m_res_cqe = cq;

    logic        c_tvalid, c_tready, c_tlast;
    logic [63:0] c_tdata;
    logic [7:0]  c_tkeep;
    wqe_concat u_concat (
        .clk, .rst,
        .s_valid(pr_valid), .s_ready(pr_ready), .s_data(pr_data), .s_bytes(pr_bytes),
        .s_last(pr_last),
        .m_axis_tvalid(c_tvalid), .m_axis_tready(c_tready), .m_axis_tdata(c_tdata),
        .m_axis_tkeep(c_tkeep), .m_axis_tlast(c_tlast), .busy(concat_busy)
    );

    logic tso_busy;
    if (TSO != 0) begin : g_tso
        // Records wait here while the streams before them drain.
        logic        tr_valid, tr_ready, tr_tso, tr_ipoib;
        logic [15:0] tr_hdr_len, tr_mss;
        logic [31:0] tr_len;
        stream_fifo #(.WIDTH(1 + 1 + 16 + 16 + 32), .DEPTH_LOG2(2)) u_rec_fifo (
            .clk, .rst, .s_valid(rec_valid), .s_ready(rec_ready),
            .s_data({rec_tso, rec_ipoib, rec_hdr_len, rec_mss, rec_len}),
            .m_valid(tr_valid), .m_ready(tr_ready),
            .m_data({tr_tso, tr_ipoib, tr_hdr_len, tr_mss, tr_len})
        );
        wqe_tso_tx u_tso_tx (
            .clk, .rst,
            .s_rec_valid(tr_valid), .s_rec_ready(tr_ready), .s_rec_tso(tr_tso),
            .s_rec_hdr_len(tr_hdr_len), .s_rec_mss(tr_mss), .s_rec_len(tr_len),
            .s_rec_ipoib(tr_ipoib),
            .s_keep_valid(keep_valid), .s_keep_ready(keep_ready), .s_keep(keep),
            .s_axis_tvalid(c_tvalid), .s_axis_tready(c_tready), .s_axis_tdata(c_tdata),
            .s_axis_tkeep(c_tkeep), .s_axis_tlast(c_tlast),
            .m_axis_tvalid(m_pay_tvalid), .m_axis_tready(m_pay_tready),
            .m_axis_tdata(m_pay_tdata), .m_axis_tkeep(m_pay_tkeep), .m_axis_tlast(m_pay_tlast),
            .busy(tso_busy)
        );
        // A TSO send's descriptors run ahead of its payloads: a segment leaves the segmenter
        // once its last byte is in, and wqe_concat passes that byte on only in a whole beat
        // (or the stream's last), so at an MSS of 1 the sender must be eight segments ahead.
        // Seventeen descriptors wait here (at three, an MSS of 1 or 2 deadlocked).
        stream_fifo #(.WIDTH($bits(e_desc)), .DEPTH_LOG2(4)) u_desc_fifo (
            .clk, .rst, .s_valid(e_desc_valid), .s_ready(e_desc_ready), .s_data(e_desc),
            .m_valid(m_desc_valid), .m_ready(m_desc_ready), .m_data(m_desc)
        );
    end else begin : g_no_tso
        assign m_pay_tvalid = c_tvalid;
        assign c_tready     = m_pay_tready;
        assign m_pay_tdata  = c_tdata;
        assign m_pay_tkeep  = c_tkeep;
        assign m_pay_tlast  = c_tlast;
        assign m_desc_valid = e_desc_valid;
        assign e_desc_ready = m_desc_ready;
        assign m_desc       = e_desc;
        assign rec_ready    = 1'b0;
        assign keep_ready   = 1'b0;
        assign tso_busy     = 1'b0;
        wire unused_rec = ^{rec_valid, rec_tso, rec_ipoib, rec_hdr_len, rec_mss, rec_len, keep_valid, keep};
    end

    // The sender's completions first, then those from elsewhere (the sender's come one per WQE
    // it finishes, so the others wait a WQE at most).
    logic             w_ready;
    wire              ext = s_cqe_valid && !cq_valid;
    assign cq_ready    = w_ready && !ext;
    assign s_cqe_ready = w_ready && ext;

    logic cq_busy;
    wqe_cq #(.TAG_W(2)) u_cq (
        .clk, .rst,
        .s_cqe_valid(cq_valid || s_cqe_valid), .s_cqe_ready(w_ready),
        .s_cqe(ext ? s_cqe : cq),
        .cq_base, .cq_log2, .cq_producer, .cqe_written, .cq_fault,
        .m_wr_valid, .m_wr_ready, .m_wr_addr, .m_wr_data, .m_wr_keep, .m_wr_last, .m_wr_tag,
        .s_done_valid(s_wr_done_valid), .s_done_ready(s_wr_done_ready),
        .s_done_tag(s_wr_done_tag), .s_done_err(s_wr_done_err),
        .busy(cq_busy)
    );

    // WQEs in flight: picks taken and not yet retired.
    logic [7:0] inflight_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            inflight_q <= '0;
        end else begin
            inflight_q <= inflight_q + 8'(s_pick_valid && s_pick_ready) - 8'(wqe_retire);
        end
    end
    assign idle = inflight_q == 8'd0 && !cq_busy && !pay_busy && !concat_busy && !m_pay_tvalid
               && !tso_busy && !m_desc_valid;

endmodule

`endif  // ROCENIC_WQE_DP_SV
