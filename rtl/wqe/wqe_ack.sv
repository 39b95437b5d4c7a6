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

// The RC Acknowledge frame's descriptor, and its place among the data path's (docs/rc.md, "ACK
// frames"). An acknowledgement (its QP's context and the AETH, from wqe_sched) becomes a frame
// descriptor as model::rc::emit_ack builds the frame: the QP's route, BTH opcode 0x11 to its
// destination QP with the PSN, no SE, no AckReq, and the AETH in the ImmDt's place (the same
// four bytes after the BTH: syndrome, then the MSN), no payload. The frame builder needs no
// payload beat for it, so it may go between any two of the data path's descriptors.
//
// One output register, loaded when empty: a descriptor every other cycle at most, while a
// frame takes at least eight. When both wait, the one not taken last goes: neither starves.
// The readies depend on the valids and the register only.
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

    logic last_ack_q;                           // the register last took an acknowledgement

    wire take_ack  = s_ack_valid && !m_desc_valid && (!s_desc_valid || !last_ack_q);
    wire take_desc = s_desc_valid && !m_desc_valid && !take_ack;

    assign s_ack_ready  = take_ack;
    assign s_desc_ready = take_desc;
    assign ack_taken    = take_ack;

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

    always_ff @(posedge clk) begin
        if (rst) begin
            m_desc_valid <= 1'b0;
            last_ack_q   <= 1'b0;
        end else begin
            if (m_desc_valid && m_desc_ready) begin
                m_desc_valid <= 1'b0;
            end
            if (take_ack || take_desc) begin
                m_desc_valid <= 1'b1;
                last_ack_q   <= take_ack;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (take_ack) begin
            m_desc <= ack;
        end else if (take_desc) begin
            m_desc <= s_desc;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_ACK_SV
