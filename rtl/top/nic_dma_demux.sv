// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_NIC_DMA_DEMUX_SV
`define ROCENIC_NIC_DMA_DEMUX_SV
`include "rtl/common/skid_buffer.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One valid/ready stream to one of two, beat by beat, by a select bit that travels with the
// beat (`s_sel`: a DMA response's tag bit that names its source).
//
// The input passes a skid buffer and each output has its own, so every valid and ready here
// comes from a flip-flop. A beat waits at the input until its output's buffer has room: an
// output held back holds the beats behind its own once its two-beat buffer is full (the one
// stream cannot pass them), which is why each source must take the responses to what it asked
// for without waiting on the other source (docs/top.md).
module nic_dma_demux #(
    parameter int WIDTH = 8  // bits of a beat's payload (everything but valid and the select)
) (
    input  wire                 clk,
    input  wire                 rst,      // synchronous, active high
    input  wire                 s_valid,
    output logic                s_ready,
    input  wire  [WIDTH-1:0]    s_data,
    input  wire                 s_sel,    // the output the beat goes to
    // output i's payload at [WIDTH*i +: WIDTH]
    output logic [1:0]          m_valid,
    input  wire  [1:0]          m_ready,
    output logic [2*WIDTH-1:0]  m_data
);

    logic             in_valid, in_ready, in_sel;
    logic [WIDTH-1:0] in_data;
    logic [1:0]       out_ready;

    skid_buffer #(.WIDTH(WIDTH + 1)) u_in (
        .clk, .rst,
        .s_valid, .s_ready, .s_data({s_sel, s_data}),
        .m_valid(in_valid), .m_ready(in_ready), .m_data({in_sel, in_data})
    );

    // out_ready is a skid buffer's registered s_ready: no combinational path back to m_ready.
    assign in_ready = out_ready[in_sel];

    for (genvar i = 0; i < 2; i++) begin : g_out
        skid_buffer #(.WIDTH(WIDTH)) u_out (
            .clk, .rst,
            .s_valid(in_valid && in_sel == 1'(i)), .s_ready(out_ready[i]), .s_data(in_data),
            .m_valid(m_valid[i]), .m_ready(m_ready[i]), .m_data(m_data[WIDTH*i +: WIDTH])
        );
    end

endmodule

`resetall

`endif  // ROCENIC_NIC_DMA_DEMUX_SV
