// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_ACK_SV
`define ROCENIC_WQE_ACK_SV
`include "rtl/wqe/wqe_frame_pkg.sv"
`include "rtl/wqe/wqe_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RC Acknowledge frame's descriptor, and its place among the data path's (docs/rc-responder.md,
// "ACK frames"). An acknowledgement (its QP's context and the AETH, from wqe_sched) becomes a frame
// descriptor as model::rc::emit_ack builds the frame: the QP's route, BTH opcode 0x11 to its
// destination QP with the PSN, no SE, no AckReq, and the AETH in the ImmDt's place (the same
// four bytes after the BTH: syndrome, then the MSN), no payload. The frame builder needs no
// payload beat for it, so it may go between any two of the data path's descriptors.
//
// No output register: a grant, one flip-flop per source, picks which held input drives the
// output until the frame builder takes it. Both sources hold their data while valid (the
// scheduler reads no context while its acknowledgement waits; the sender's descriptor is its
// held WQE), so the output is steady too. A copy of the 750-bit descriptor here cost as many
// flip-flops, enough that the whole engine no longer placed on the 25F (docs/wqe-engine.md).
// A grant is given only when none is held, so a descriptor goes every other cycle at most,
// while a frame takes at least eight. When both wait, the one not granted last goes: neither
// starves. m_desc_valid is the grants' OR, the readies a grant and m_desc_ready: no path
// from a ready to a valid.
module wqe_ack (
    input  wire                  clk,
    input  wire                  rst,            // synchronous, active high
    // acknowledgements: the QP's context, the BTH PSN and the AETH
    input  wire                  s_ack_valid,
    output logic                 s_ack_ready,
    input  wire wqe_pkg::qp_ctx_t s_ack_ctx,
    input  wire [23:0]           s_ack_psn,
    input  wire [7:0]            s_ack_syndrome,
    input  wire [23:0]           s_ack_msn,
    // the data path's descriptors
    input  wire                  s_desc_valid,
    output logic                 s_desc_ready,
    input  wire wqe_frame_pkg::desc_t s_desc,
    // to the frame builder
    output logic                 m_desc_valid,
    input  wire                  m_desc_ready,
    output wqe_frame_pkg::desc_t m_desc,
    output logic                 ack_taken       // one cycle per acknowledgement taken (FRAMES)
);

    localparam logic [7:0] RC_ACK = 8'h11;     // BTH opcode: RC Acknowledge

    logic ack_q;                                // the acknowledgement is granted the output
    logic desc_q;                               // the data path's descriptor is
    logic last_ack_q;                           // the last grant was an acknowledgement's

    wire take = m_desc_valid && m_desc_ready;

    assign m_desc_valid = ack_q || desc_q;
    assign s_ack_ready  = ack_q && m_desc_ready;
    assign s_desc_ready = desc_q && m_desc_ready;
    assign ack_taken    = s_ack_ready;

    wqe_frame_pkg::desc_t ack;
    always_comb begin
        ack             = '0;
        ack.vlan_en     = s_ack_ctx.vlan;
        ack.vid         = s_ack_ctx.vid;
        ack.pcp         = s_ack_ctx.pcp;
        ack.ipv6        = s_ack_ctx.ipv6;
        ack.src_ip      = s_ack_ctx.src_ip;
        ack.dst_ip      = s_ack_ctx.dst_ip;
        ack.src_mac     = s_ack_ctx.smac;
        ack.dst_mac     = s_ack_ctx.dmac;
        ack.tclass      = s_ack_ctx.tclass;
        ack.hop_limit   = s_ack_ctx.hop_limit;
        ack.flow_label  = s_ack_ctx.flow_label;
        ack.udp_sport   = s_ack_ctx.udp_sport;
        ack.opcode      = RC_ACK;
        ack.dest_qpn    = s_ack_ctx.dest_qpn;
        ack.psn         = s_ack_psn;
        ack.imm_en      = 1'b1;
        ack.imm         = {s_ack_syndrome, s_ack_msn};
        ack.payload_len = '0;
    end

    // The context's fields an acknowledgement does not carry.
    wire unused_ctx = ^{s_ack_ctx.qpn, s_ack_ctx.ud, s_ack_ctx.pd, s_ack_ctx.mtu,
                        s_ack_ctx.qkey, s_ack_ctx.raw};

    assign m_desc = ack_q ? ack : s_desc;

    always_ff @(posedge clk) begin
        if (rst) begin
            ack_q      <= 1'b0;
            desc_q     <= 1'b0;
            last_ack_q <= 1'b0;
        end else if (take) begin
            ack_q  <= 1'b0;
            desc_q <= 1'b0;
        end else if (!m_desc_valid) begin
            if (s_ack_valid && (!s_desc_valid || !last_ack_q)) begin
                ack_q      <= 1'b1;
                last_ack_q <= 1'b1;
            end else if (s_desc_valid) begin
                desc_q     <= 1'b1;
                last_ack_q <= 1'b0;
            end
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_ACK_SV
