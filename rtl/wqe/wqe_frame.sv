// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_FRAME_SV
`define ROCENIC_WQE_FRAME_SV
`include "rtl/wqe/wqe_frame_pkg.sv"
`include "rtl/common/skid_buffer.sv"
`include "rtl/wqe/wqe_frame_hdr.sv"
`include "rtl/wqe/wqe_frame_align.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The send engine's frame builder: one packet descriptor and its payload in, the packet's
// frame out without its ICRC: Ethernet (802.1Q tag when asked), IPv4 (with its header
// checksum) or IPv6, UDP, BTH, RETH / DETH / ImmDt as enabled, the payload, and zeros to a
// multiple of 4 (the BTH's PadCnt). Byte for byte model::wqe::frame's emit_headers, the payload
// and pad_payload; the ICRC and the 60-byte minimum are the next stage's (wqe_icrc), which
// takes this output as it is. docs/wqe-frame.md, "Frame builder".
//
// Streams (valid/ready; lane i = bits [8i +: 8] is the earlier byte):
//   s_desc_*   one descriptor per packet (wqe_frame_pkg::desc_t, flat here). PadCnt is derived
//              from payload_len, so it cannot disagree.
//   s_axis_*   per packet, exactly payload_len bytes packed from lane 0, tkeep contiguous from
//              lane 0 and full but on the last beat, tlast on the last; no beat when
//              payload_len is 0. The payload's tlast, not the descriptor, ends a packet's
//              input, so a stream that disagrees with its descriptor makes a wrong frame but
//              does not put the two inputs out of step.
//   m_axis_*   the frames: tkeep contiguous from lane 0, full but on tlast; tuser[0] = the
//              frame has an 802.1Q tag (the ICRC stage's cue for where the IP header starts),
//              tuser[1] = a raw frame (the ICRC stage appends no ICRC), held on every beat.
//
// A raw descriptor (s_desc_raw, a raw-packet QP's frame) adds nothing: the payload, 14 to 4,218
// bytes, goes out as it is, one beat per payload beat; the ICRC stage pads it to 60 bytes.
//
// Parts (one file each):
//   wqe_frame_hdr     descriptor register, lengths, IPv4 checksum (wqe_frame_csum), the header
//                     laid out (wqe_frame_layout) and sent as 8-byte beats, the next packet's
//                     prepared while the current one goes out
//   wqe_frame_align   header beats, then the payload moved up by 2 or 6 lanes behind them
//   skid_buffer       on the payload input, between the two parts, and on the output
//
// Throughput: one output beat per clock while the payload comes one beat per clock and
// m_axis_tready stays high; a frame takes exactly ceil((header + payload + pad) / 8) beats,
// the next frame's header following its last beat without a gap. A 4 KiB payload behind a
// 58-byte header: 520 beats in 520 clocks (sim/tests/wqe_frame.rs measures it).
//
// Back-pressure: s_desc_ready, s_axis_tready and m_axis_tvalid are flip-flops; nothing
// combinational runs from m_axis_tready to either ready.
//
// 64-bit data path only (DATA_BYTES = 8): the header's 2-mod-4 length, which leaves the payload
// only two lane offsets, is what keeps the aligner small; a wider path would need more offsets.
// A top of its own: the send engine will instantiate it (see rss_pipeline for the lint pragma).
/* verilator lint_off MULTITOP */
module wqe_frame
/* verilator lint_on MULTITOP */
#(
    parameter  int DATA_BYTES = 8,    // Bytes per beat: 8 (64-bit) only
    localparam int DATA_W     = DATA_BYTES * 8
) (
    input  wire                   clk,
    input  wire                   rst,                 // synchronous, active high
    // packet descriptors
    input  wire                   s_desc_valid,
    output logic                  s_desc_ready,
    input  wire                   s_desc_vlan_en,
    input  wire [11:0]            s_desc_vid,
    input  wire [2:0]             s_desc_pcp,
    input  wire                   s_desc_ipv6,
    input  wire [127:0]           s_desc_src_ip,       // IPv4 in [31:0]; first octet on top
    input  wire [127:0]           s_desc_dst_ip,
    input  wire [47:0]            s_desc_src_mac,      // first octet in [47:40]
    input  wire [47:0]            s_desc_dst_mac,
    input  wire [7:0]             s_desc_tclass,
    input  wire [7:0]             s_desc_hop_limit,
    input  wire [19:0]            s_desc_flow_label,
    input  wire [15:0]            s_desc_udp_sport,
    input  wire [7:0]             s_desc_opcode,
    input  wire                   s_desc_se,
    input  wire [23:0]            s_desc_dest_qpn,
    input  wire                   s_desc_ack_req,
    input  wire [23:0]            s_desc_psn,
    input  wire                   s_desc_reth_en,
    input  wire [63:0]            s_desc_va,
    input  wire [31:0]            s_desc_rkey,
    input  wire [31:0]            s_desc_dma_len,
    input  wire                   s_desc_deth_en,
    input  wire [31:0]            s_desc_qkey,
    input  wire [23:0]            s_desc_src_qpn,
    input  wire                   s_desc_imm_en,
    input  wire [31:0]            s_desc_imm,
    input  wire [12:0]            s_desc_payload_len,  // 0..4096 (raw: 14..4218)
    input  wire                   s_desc_raw,          // the payload is the whole frame
    // payload
    input  wire                   s_axis_tvalid,
    output logic                  s_axis_tready,
    input  wire [DATA_W-1:0]      s_axis_tdata,
    input  wire [DATA_BYTES-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tlast,
    // frames without ICRC
    output logic                  m_axis_tvalid,
    input  wire                   m_axis_tready,
    output logic [DATA_W-1:0]     m_axis_tdata,
    output logic [DATA_BYTES-1:0] m_axis_tkeep,
    output logic                  m_axis_tlast,
    output logic [1:0]            m_axis_tuser         // 0: 802.1Q tag (IP header at byte 18);
                                                       // 1: a raw frame (no ICRC)
);

    if (DATA_BYTES != 8) begin : g_bad_width
        $error("wqe_frame: DATA_BYTES must be 8, got %0d", DATA_BYTES);
    end

    wqe_frame_pkg::desc_t desc;
    always_comb begin
        desc.vlan_en     = s_desc_vlan_en;
        desc.vid         = s_desc_vid;
        desc.pcp         = s_desc_pcp;
        desc.ipv6        = s_desc_ipv6;
        desc.src_ip      = s_desc_src_ip;
        desc.dst_ip      = s_desc_dst_ip;
        desc.src_mac     = s_desc_src_mac;
        desc.dst_mac     = s_desc_dst_mac;
        desc.tclass      = s_desc_tclass;
        desc.hop_limit   = s_desc_hop_limit;
        desc.flow_label  = s_desc_flow_label;
        desc.udp_sport   = s_desc_udp_sport;
        desc.opcode      = s_desc_opcode;
        desc.se          = s_desc_se;
        desc.dest_qpn    = s_desc_dest_qpn;
        desc.ack_req     = s_desc_ack_req;
        desc.psn         = s_desc_psn;
        desc.reth_en     = s_desc_reth_en;
        desc.va          = s_desc_va;
        desc.rkey        = s_desc_rkey;
        desc.dma_len     = s_desc_dma_len;
        desc.deth_en     = s_desc_deth_en;
        desc.qkey        = s_desc_qkey;
        desc.src_qpn     = s_desc_src_qpn;
        desc.imm_en      = s_desc_imm_en;
        desc.imm         = s_desc_imm;
        desc.payload_len = s_desc_payload_len;
        desc.raw         = s_desc_raw;
    end

    // ------------------------------------------------------------------------------------------
    // Payload input register slice.
    wire              i_valid;
    wire              i_ready;
    wire [DATA_W-1:0] i_data;
    wire [7:0]        i_keep;
    wire              i_last;

    skid_buffer #(
        .WIDTH(DATA_W + DATA_BYTES + 1)
    ) u_in_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_axis_tvalid),
        .s_ready(s_axis_tready),
        .s_data ({s_axis_tdata, s_axis_tkeep, s_axis_tlast}),
        .m_valid(i_valid),
        .m_ready(i_ready),
        .m_data ({i_data, i_keep, i_last})
    );

    // ------------------------------------------------------------------------------------------
    // Header beats, through a register slice so that the header side sees a registered ready.
    localparam int HB_W = 64 + 7;
    wire        hg_valid, hg_ready;
    wire [63:0] hg_data;
    wire        hg_merge, hg_s6, hg_pay, hg_tail, hg_keep6, hg_vlan, hg_raw;

    wqe_frame_hdr u_hdr (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_desc_valid),
        .s_ready(s_desc_ready),
        .s_desc (desc),
        .m_valid(hg_valid),
        .m_ready(hg_ready),
        .m_data (hg_data),
        .m_merge(hg_merge),
        .m_s6   (hg_s6),
        .m_pay  (hg_pay),
        .m_tail (hg_tail),
        .m_keep6(hg_keep6),
        .m_vlan (hg_vlan),
        .m_raw  (hg_raw)
    );

    wire        h_valid, h_ready;
    wire [63:0] h_data;
    wire        h_merge, h_s6, h_pay, h_tail, h_keep6, h_vlan, h_raw;

    skid_buffer #(
        .WIDTH(HB_W)
    ) u_hdr_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(hg_valid),
        .s_ready(hg_ready),
        .s_data ({hg_data, hg_merge, hg_s6, hg_pay, hg_tail, hg_keep6, hg_vlan, hg_raw}),
        .m_valid(h_valid),
        .m_ready(h_ready),
        .m_data ({h_data, h_merge, h_s6, h_pay, h_tail, h_keep6, h_vlan, h_raw})
    );

    // ------------------------------------------------------------------------------------------
    // Alignment, then the output register slice.
    wire              o_valid, o_ready;
    wire [DATA_W-1:0] o_data;
    wire [7:0]        o_keep;
    wire              o_last, o_user, o_raw;

    wqe_frame_align u_align (
        .clk    (clk),
        .rst    (rst),
        .h_valid(h_valid),
        .h_ready(h_ready),
        .h_data (h_data),
        .h_merge(h_merge),
        .h_s6   (h_s6),
        .h_pay  (h_pay),
        .h_tail (h_tail),
        .h_keep6(h_keep6),
        .h_vlan (h_vlan),
        .h_raw  (h_raw),
        .i_valid(i_valid),
        .i_ready(i_ready),
        .i_data (i_data),
        .i_keep (i_keep),
        .i_last (i_last),
        .o_valid(o_valid),
        .o_ready(o_ready),
        .o_data (o_data),
        .o_keep (o_keep),
        .o_last (o_last),
        .o_user (o_user),
        .o_raw  (o_raw)
    );

    skid_buffer #(
        .WIDTH(DATA_W + DATA_BYTES + 3)
    ) u_out_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(o_valid),
        .s_ready(o_ready),
        .s_data ({o_data, o_keep, o_last, o_raw, o_user}),
        .m_valid(m_axis_tvalid),
        .m_ready(m_axis_tready),
        .m_data ({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser})
    );

endmodule

`resetall

`endif  // ROCENIC_WQE_FRAME_SV
