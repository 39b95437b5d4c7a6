// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_NIC_DMA_MUX_SV
`define ROCENIC_NIC_DMA_MUX_SV
`include "rtl/common/skid_buffer.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Two valid/ready streams of packets into one, round robin by packet: a packet (the beats up to
// and including one with `last`) is never interleaved with the other input's, and when both
// inputs wait at a packet boundary the one not served last goes first, so neither starves. A
// one-beat packet (`last` on every beat) makes it a plain round robin of beats. The output says
// which input each beat came from (`m_src`).
//
// Each input passes a skid buffer, so its ready comes from a flip-flop; the output is a register
// loaded whenever it is empty or being taken, so its valid comes from a flip-flop too. Nothing
// is lost or duplicated: a beat leaves its skid buffer in the cycle it is loaded here.
module nic_dma_mux #(
    parameter int WIDTH = 8  // bits of a beat's payload (all fields but valid and last)
) (
    input  wire                 clk,
    input  wire                 rst,      // synchronous, active high
    // input i's payload at [WIDTH*i +: WIDTH]
    input  wire  [1:0]          s_valid,
    output logic [1:0]          s_ready,
    input  wire  [2*WIDTH-1:0]  s_data,
    input  wire  [1:0]          s_last,
    output logic                m_valid,
    input  wire                 m_ready,
    output logic [WIDTH-1:0]    m_data,
    output logic                m_last,
    output logic                m_src     // the input the beat came from
);

    logic [1:0]         in_valid, in_ready, in_last;
    logic [2*WIDTH-1:0] in_data;   // input i's at [WIDTH*i +: WIDTH]

    for (genvar i = 0; i < 2; i++) begin : g_in
        skid_buffer #(.WIDTH(WIDTH + 1)) u_skid (
            .clk, .rst,
            .s_valid(s_valid[i]), .s_ready(s_ready[i]), .s_data({s_last[i], s_data[WIDTH*i +: WIDTH]}),
            .m_valid(in_valid[i]), .m_ready(in_ready[i]),
            .m_data({in_last[i], in_data[WIDTH*i +: WIDTH]})
        );
    end

    logic out_valid_q;
    logic locked_q;   // inside a packet: only its input may go on
    logic owner_q;    // the input whose packet is under way
    logic served_q;   // the input whose packet ended last (the other goes first on a tie)

    // The input that may go this cycle.
    logic pick, pick_valid, take;
    always_comb begin
        if (locked_q) begin
            pick = owner_q;
        end else if (in_valid[0] && in_valid[1]) begin
            pick = !served_q;
        end else begin
            pick = in_valid[1];
        end
        pick_valid = in_valid[pick];
        take       = pick_valid && (!out_valid_q || m_ready);
        in_ready   = {take && pick, take && !pick};
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid_q <= 1'b0;
            locked_q    <= 1'b0;
            owner_q     <= 1'b0;
            served_q    <= 1'b1;
        end else if (take) begin
            out_valid_q <= 1'b1;
            locked_q    <= !in_last[pick];
            owner_q     <= pick;
            if (in_last[pick]) served_q <= pick;
        end else if (m_ready) begin
            out_valid_q <= 1'b0;
        end
    end

    // Payload registers carry no reset: they only matter while m_valid is set.
    always_ff @(posedge clk) begin
        if (take) begin
            m_data <= pick ? in_data[WIDTH +: WIDTH] : in_data[0 +: WIDTH];
            m_last <= in_last[pick];
            m_src  <= pick;
        end
    end

    assign m_valid = out_valid_q;

endmodule

`resetall

`endif  // ROCENIC_NIC_DMA_MUX_SV
