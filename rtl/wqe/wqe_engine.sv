// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_ENGINE_SV
`define ROCENIC_WQE_ENGINE_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_frame_pkg.sv"
`include "rtl/wqe/wqe_pkg.sv"
`include "rtl/wqe/wqe_regs_pkg.sv"
`include "rtl/wqe/wqe_ctrl.sv"
`include "rtl/wqe/wqe_dp.sv"
`include "rtl/common/skid_buffer.sv"
`include "rtl/wqe/wqe_mr.sv"
`include "rtl/wqe/wqe_ack.sv"
`include "rtl/wqe/wqe_frame.sv"
`include "rtl/wqe/wqe_icrc.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The WQE engine, send side (docs/wqe-engine.md): registers and doorbells in (AXI4-Lite), host memory
// through a tagged DMA read port and a DMA write port, RoCEv2 frames out (64-bit stream).
//
//   wqe_ctrl   registers, QP contexts, memory-region keys, doorbells, round-robin picks
//   wqe_dp     WQE fetch, checks, gather, the commit point, completions
//   wqe_mr     the memory-region table and the check of every gather entry
//   wqe_ack    RC acknowledgements (s_ack_*, the receive path's responder) as frame
//              descriptors among the data path's
//   wqe_frame  headers and payload of each packet
//   wqe_icrc   the ICRC and the 60-byte minimum
//
// This module wires them, with a register slice on the payload between the data path and the
// frame builder; each registers its own outputs, so no ready reaches a valid combinationally
// across them.
module wqe_engine #(
    parameter  int QPS     = 64,   // QP slots (send queues), a power of two, 4..256
    parameter  int MRS     = 64,   // memory-region table entries, a power of two
    parameter  int MAX_SGE = 16,   // data segments a WQE may have
    parameter  int TAG_W   = 4,    // DMA read tag width (tag 2^TAG_W - 1 is the WQE fetch's)
    parameter  int BUF_W   = 11,   // log2 of the packet buffer's 64-bit words
    parameter  int TSO     = 0,    // 1: TSO work requests (the data path's segmenter, CAPS.TSO)
    parameter  int RELIABLE = 0,   // 1: the reliable transport on RC QPs (CAPS2.RELIABLE,
                                   // docs/wqe-reliable.md, "In the engine")
    localparam int AW      = wqe_regs_pkg::WQE_ADDR_W,
    localparam int MW      = $clog2(MRS)
) (
    input  wire              clk,
    input  wire              rst,              // synchronous, active high
    // AXI4-Lite registers
    input  wire              s_axil_awvalid,
    output logic             s_axil_awready,
    input  wire [AW-1:0]     s_axil_awaddr,
    input  wire              s_axil_wvalid,
    output logic             s_axil_wready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    output logic             s_axil_bvalid,
    input  wire              s_axil_bready,
    output logic [1:0]       s_axil_bresp,
    input  wire              s_axil_arvalid,
    output logic             s_axil_arready,
    input  wire [AW-1:0]     s_axil_araddr,
    output logic             s_axil_rvalid,
    input  wire              s_axil_rready,
    output logic [31:0]      s_axil_rdata,
    output logic [1:0]       s_axil_rresp,
    // DMA reads (docs/wqe-dma.md, "DMA interface")
    output logic             m_rd_req_valid,
    input  wire              m_rd_req_ready,
    output logic [63:0]      m_rd_req_addr,
    output logic [12:0]      m_rd_req_len,
    output logic [TAG_W-1:0] m_rd_req_tag,
    input  wire              s_rd_rsp_valid,
    output logic             s_rd_rsp_ready,
    input  wire [63:0]       s_rd_rsp_data,
    input  wire [7:0]        s_rd_rsp_keep,
    input  wire              s_rd_rsp_last,
    input  wire [TAG_W-1:0]  s_rd_rsp_tag,
    input  wire              s_rd_rsp_err,
    // DMA writes
    output logic             m_wr_valid,
    input  wire              m_wr_ready,
    output logic [63:0]      m_wr_addr,
    output logic [63:0]      m_wr_data,
    output logic [7:0]       m_wr_keep,
    output logic             m_wr_last,
    output logic [1:0]       m_wr_tag,
    input  wire              s_wr_done_valid,
    output logic             s_wr_done_ready,
    input  wire [1:0]        s_wr_done_tag,
    input  wire              s_wr_done_err,
    // frames
    output logic             m_axis_tvalid,
    input  wire              m_axis_tready,
    output logic [63:0]      m_axis_tdata,
    output logic [7:0]       m_axis_tkeep,
    output logic             m_axis_tlast,
    // the full core's receive path (rx_path): the QP slots it reads, its moves to ERR, and the
    // memory-region writes its copy of the table takes (all unused by the engine alone)
    output logic [QPS-1:0]   sq_valid,         // slots holding a QP
    output logic [QPS-1:0]   sq_rcv,           // slots holding a QP in RTR or RTS
    output logic [QPS-1:0]   qp_err,           // slots holding a QP in ERR
    input  wire              rx_err_set_valid, // move rx_err_set_slot's QP to ERR
    input  wire  [7:0]       rx_err_set_slot,
    input  wire              s_ack_valid,      // an acknowledgement to send (docs/rc.md)
    output logic             s_ack_ready,
    input  wire [23:0]       s_ack_qpn,        // the local QP whose peer it answers
    input  wire [23:0]       s_ack_psn,        // the BTH PSN
    input  wire [7:0]        s_ack_syndrome,   // the AETH
    input  wire [23:0]       s_ack_msn,
    input  wire              s_rack_valid,     // an acknowledgement for a local requester
    output logic             s_rack_ready,     // (rx_path's m_rack_*; RELIABLE = 1)
    input  wire [23:0]       s_rack_qpn,       // the local QP (the BTH destination)
    input  wire [23:0]       s_rack_psn,
    input  wire [7:0]        s_rack_syndrome,
    output logic             mr_wr_valid,      // wqe_mr's write port, as this engine's copy takes it
    output logic [MW-1:0]    mr_wr_slot,
    output logic             mr_wr_clear,      // 1: free the slot; 0: write the fields below
    output logic [31:0]      mr_wr_lkey,
    output logic [31:0]      mr_wr_pd,
    output logic [3:0]       mr_wr_access,
    output logic [63:0]      mr_wr_base,
    output logic [63:0]      mr_wr_length
);

    // ---- control plane ----------------------------------------------------------------------
    logic                pick_valid, pick_ready;
    logic [7:0]          pick_slot;
    logic [31:0]         pick_index;
    logic [63:0]         pick_addr;
    logic [2:0]          pick_stride;
    wqe_pkg::qp_ctx_t    pick_ctx;
    wqe_dp_pkg::rcp_t    pick_rcp;
    logic                res_valid, res_ready, res_signaled, rcqe_valid, rcqe_ready;
    logic [4:0]          res_status;
    logic [23:0]         res_packets;
    wqe_dp_pkg::cqe_t    res_cqe, rcqe;
    logic                dp_idle, wqe_retire, cqe_written, frame_sent, cq_fault;
    logic                ack_valid, ack_ready, ack_sent;
    logic [23:0]         ack_psn, ack_msn;
    logic [7:0]          ack_syndrome;
    logic                err_set_valid, psn_take_valid;
    logic [7:0]          err_set_slot, psn_take_slot;
    logic [23:0]         psn_take_first;
    logic [47:0]         nic_mac;
    logic [31:0]         nic_ipv4;
    logic [127:0]        nic_ipv6;
    logic [1:0]          profile;
    logic                enable;
    logic [63:0]         cq_base;
    logic [4:0]          cq_log2;
    logic [31:0]         cq_producer;

    wqe_ctrl #(.QPS(QPS), .MRS(MRS), .MAX_SGE(MAX_SGE), .DATA_BYTES(8), .TSO(TSO),
               .RELIABLE(RELIABLE)) u_ctrl (
        .clk, .rst,
        .s_axil_awvalid, .s_axil_awready, .s_axil_awaddr, .s_axil_wvalid, .s_axil_wready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_bvalid, .s_axil_bready, .s_axil_bresp,
        .s_axil_arvalid, .s_axil_arready, .s_axil_araddr, .s_axil_rvalid, .s_axil_rready,
        .s_axil_rdata, .s_axil_rresp,
        .m_pick_valid(pick_valid), .m_pick_ready(pick_ready), .m_pick_slot(pick_slot),
        .m_pick_index(pick_index), .m_pick_addr(pick_addr), .m_pick_stride_log2(pick_stride),
        .m_pick_ctx(pick_ctx), .m_pick_rcp(pick_rcp),
        .s_res_valid(res_valid), .s_res_ready(res_ready), .s_res_status(res_status),
        .s_res_packets(res_packets), .s_res_signaled(res_signaled), .s_res_cqe(res_cqe),
        .m_cqe_valid(rcqe_valid), .m_cqe_ready(rcqe_ready), .m_cqe(rcqe),
        .s_rack_valid, .s_rack_ready, .s_rack_qpn, .s_rack_psn, .s_rack_syndrome,
        .s_ack_valid, .s_ack_ready, .s_ack_qpn, .s_ack_psn, .s_ack_syndrome, .s_ack_msn,
        .m_ack_valid(ack_valid), .m_ack_ready(ack_ready), .m_ack_psn(ack_psn),
        .m_ack_syndrome(ack_syndrome), .m_ack_msn(ack_msn),
        .dp_idle, .wqe_retire, .cqe_written, .frame_sent, .ack_sent, .cq_fault,
        .err_set_valid, .err_set_slot, .psn_take_valid, .psn_take_slot,
        .psn_take_count(24'd1), .psn_take_first, .qp_err,
        .sq_valid, .sq_rcv, .rx_err_set_valid, .rx_err_set_slot,
        .nic_mac, .nic_ipv4, .nic_ipv6, .profile, .enable,
        .cq_base, .cq_log2, .cq_producer,
        .mr_wr_valid, .mr_wr_slot, .mr_wr_clear, .mr_wr_lkey, .mr_wr_pd, .mr_wr_access,
        .mr_wr_base, .mr_wr_length
    );

    logic dp_idle_path;   // the data path's own idle (see the end)


    // The data path only runs what the control plane picks; ENABLE gates the picks there.
    wire unused_ctrl = ^{pick_index, enable};

    // ---- data path -------------------------------------------------------------------------
    wqe_dp_pkg::pick_t       pick;
    wqe_frame_pkg::desc_t desc;
    logic        mr_req_valid, mr_req_ready, mr_res_valid, mr_res_ready;
    logic [31:0] mr_req_lkey, mr_req_pd, mr_req_len;
    logic [63:0] mr_req_addr;
    logic [4:0]  mr_res_status;
    logic        desc_valid, desc_ready, pay_valid, pay_ready, pay_last;
    logic [63:0] pay_data;
    logic [7:0]  pay_keep;
    logic        dp_pay_valid, dp_pay_ready, dp_pay_last;
    logic [63:0] dp_pay_data;
    logic [7:0]  dp_pay_keep;

    // Both context structs list the same fields in the same order. A pick is a whole WQE
    // unless the transport asks for one packet or a prepare (rcp), which answers on m_res.
    assign pick = {pick_rcp, pick_slot, pick_addr, pick_stride, pick_ctx};

    logic [7:0] dp_res_slot;
    wire unused_dp_res = ^dp_res_slot;

    wqe_dp #(.QPS(QPS), .MAX_SGE(MAX_SGE), .TAG_W(TAG_W), .BUF_W(BUF_W), .TSO(TSO),
             .RC_PACKETS(RELIABLE)) u_dp (
        .clk, .rst,
        .s_pick_valid(pick_valid), .s_pick_ready(pick_ready), .s_pick(pick),
        .qp_err, .err_set_valid, .err_set_slot, .psn_take_valid, .psn_take_slot, .psn_take_first,
        .nic_mac, .nic_ipv4, .nic_ipv6, .profile, .cq_base, .cq_log2, .cq_producer,
        .cqe_written, .cq_fault, .wqe_retire, .frame_sent, .idle(dp_idle_path),
        .m_mr_valid(mr_req_valid), .m_mr_ready(mr_req_ready), .m_mr_lkey(mr_req_lkey),
        .m_mr_pd(mr_req_pd), .m_mr_addr(mr_req_addr), .m_mr_len(mr_req_len),
        .s_mr_valid(mr_res_valid), .s_mr_ready(mr_res_ready), .s_mr_status(mr_res_status),
        .m_rd_req_valid, .m_rd_req_ready, .m_rd_req_addr, .m_rd_req_len, .m_rd_req_tag,
        .s_rd_rsp_valid, .s_rd_rsp_ready, .s_rd_rsp_data, .s_rd_rsp_keep, .s_rd_rsp_last,
        .s_rd_rsp_tag, .s_rd_rsp_err,
        .m_wr_valid, .m_wr_ready, .m_wr_addr, .m_wr_data, .m_wr_keep, .m_wr_last, .m_wr_tag,
        .s_wr_done_valid, .s_wr_done_ready, .s_wr_done_tag, .s_wr_done_err,
        .m_desc_valid(desc_valid), .m_desc_ready(desc_ready), .m_desc(desc),
        .m_pay_tvalid(dp_pay_valid), .m_pay_tready(dp_pay_ready), .m_pay_tdata(dp_pay_data),
        .m_pay_tkeep(dp_pay_keep), .m_pay_tlast(dp_pay_last),
        .m_res_valid(res_valid), .m_res_ready(res_ready), .m_res_slot(dp_res_slot),
        .m_res_status(res_status), .m_res_packets(res_packets),
        .m_res_signaled(res_signaled), .m_res_cqe(res_cqe),
        .s_cqe_valid(rcqe_valid), .s_cqe_ready(rcqe_ready), .s_cqe(rcqe)
    );

    // The payload through a register slice: the data path's payload ready runs combinationally
    // back through its packer into its payload FIFO, a path that placed alone starts at an
    // untimed port; in the whole engine it started in the frame builder across the chip (the
    // 25F build's worst path, 78.9 MHz).
    skid_buffer #(
        .WIDTH(64 + 8 + 1)
    ) u_pay_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(dp_pay_valid),
        .s_ready(dp_pay_ready),
        .s_data ({dp_pay_data, dp_pay_keep, dp_pay_last}),
        .m_valid(pay_valid),
        .m_ready(pay_ready),
        .m_data ({pay_data, pay_keep, pay_last})
    );

    // ---- memory regions --------------------------------------------------------------------
    logic [7:0] mr_res_tag;
    wire unused_mr_tag = ^mr_res_tag;

    wqe_mr #(.MRS(MRS), .MR_IDX_LSB(8), .TAG_W(8)) u_mr (
        .clk, .rst,
        .wr_en(mr_wr_valid), .wr_slot(mr_wr_slot), .wr_valid(!mr_wr_clear),
        .wr_lkey(mr_wr_lkey), .wr_base(mr_wr_base), .wr_length(mr_wr_length),
        .wr_pd(mr_wr_pd), .wr_access(mr_wr_access),
        .s_req_valid(mr_req_valid), .s_req_ready(mr_req_ready), .s_req_lkey(mr_req_lkey),
        .s_req_pd(mr_req_pd), .s_req_addr(mr_req_addr), .s_req_len(mr_req_len),
        .s_req_access(4'd0), .s_req_tag(8'd0),
        .m_res_valid(mr_res_valid), .m_res_ready(mr_res_ready), .m_res_status(mr_res_status),
        .m_res_tag(mr_res_tag)
    );

    // ---- acknowledgements among the descriptors --------------------------------------------
    wqe_frame_pkg::desc_t fdesc;
    logic        fdesc_valid, fdesc_ready;

    wqe_ack u_ack (
        .clk, .rst,
        .s_ack_valid(ack_valid), .s_ack_ready(ack_ready), .s_ack_ctx(pick_ctx),
        .s_ack_psn(ack_psn), .s_ack_syndrome(ack_syndrome), .s_ack_msn(ack_msn),
        .s_desc_valid(desc_valid), .s_desc_ready(desc_ready), .s_desc(desc),
        .m_desc_valid(fdesc_valid), .m_desc_ready(fdesc_ready), .m_desc(fdesc),
        .ack_taken(ack_sent)
    );

    // ---- frames ----------------------------------------------------------------------------
    logic        f_valid, f_ready, f_last;
    logic [1:0]  f_user;
    logic [63:0] f_data;
    logic [7:0]  f_keep;

    wqe_frame #(.DATA_BYTES(8)) u_frame (
        .clk, .rst,
        .s_desc_valid(fdesc_valid), .s_desc_ready(fdesc_ready),
        .s_desc_vlan_en(fdesc.vlan_en), .s_desc_vid(fdesc.vid), .s_desc_pcp(fdesc.pcp),
        .s_desc_ipv6(fdesc.ipv6), .s_desc_src_ip(fdesc.src_ip), .s_desc_dst_ip(fdesc.dst_ip),
        .s_desc_src_mac(fdesc.src_mac), .s_desc_dst_mac(fdesc.dst_mac),
        .s_desc_tclass(fdesc.tclass), .s_desc_hop_limit(fdesc.hop_limit),
        .s_desc_flow_label(fdesc.flow_label), .s_desc_udp_sport(fdesc.udp_sport),
        .s_desc_opcode(fdesc.opcode), .s_desc_se(fdesc.se), .s_desc_dest_qpn(fdesc.dest_qpn),
        .s_desc_ack_req(fdesc.ack_req), .s_desc_psn(fdesc.psn),
        .s_desc_reth_en(fdesc.reth_en), .s_desc_va(fdesc.va), .s_desc_rkey(fdesc.rkey),
        .s_desc_dma_len(fdesc.dma_len), .s_desc_deth_en(fdesc.deth_en),
        .s_desc_qkey(fdesc.qkey), .s_desc_src_qpn(fdesc.src_qpn), .s_desc_imm_en(fdesc.imm_en),
        .s_desc_imm(fdesc.imm), .s_desc_payload_len(fdesc.payload_len), .s_desc_raw(fdesc.raw),
        .s_axis_tvalid(pay_valid), .s_axis_tready(pay_ready), .s_axis_tdata(pay_data),
        .s_axis_tkeep(pay_keep), .s_axis_tlast(pay_last),
        .m_axis_tvalid(f_valid), .m_axis_tready(f_ready), .m_axis_tdata(f_data),
        .m_axis_tkeep(f_keep), .m_axis_tlast(f_last), .m_axis_tuser(f_user)
    );

    wqe_icrc #(.DATA_BYTES(8)) u_icrc (
        .clk, .rst,
        .s_axis_tvalid(f_valid), .s_axis_tready(f_ready), .s_axis_tdata(f_data),
        .s_axis_tkeep(f_keep), .s_axis_tlast(f_last), .s_axis_tuser(f_user),
        .m_axis_tvalid, .m_axis_tready, .m_axis_tdata, .m_axis_tkeep, .m_axis_tlast
    );

    // Idle for the control plane (commands, STATUS.IDLE) also means no frame left in the frame
    // builder or the ICRC stage: frames whose descriptor the builder took through wqe_ack (the
    // data path's or an acknowledgement's) and whose last beat has not left.
    logic [7:0] frames_in_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            frames_in_q <= '0;
        end else begin
            frames_in_q <= frames_in_q + 8'(fdesc_valid && fdesc_ready)
                         - 8'(m_axis_tvalid && m_axis_tready && m_axis_tlast);
        end
    end
    assign dp_idle = dp_idle_path && frames_in_q == 8'd0;

endmodule

`endif  // ROCENIC_WQE_ENGINE_SV
