// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_DESC_SV
`define ROCENIC_RX_CHECK_DESC_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's descriptor FIFO: wide entries in block RAM, read on every clock at the head, so
// that nothing wide waits on an enable. m_data is the RAM's read register, and m_valid says it
// holds the head: after a pop the next entry comes one clock later, so a descriptor leaves
// every other clock at most (a frame takes many more). A write is never refused: rx_check
// holds at most 2^DEPTH_LOG2 frames from their first beat to their release, each with at most
// one entry here.
module rx_check_desc #(
    parameter int WIDTH      = 8,   // Entry width in bits
    parameter int DEPTH_LOG2 = 6    // log2 of the entries
) (
    input  wire              clk,
    input  wire              rst,       // synchronous, active high
    input  wire              s_valid,
    input  wire [WIDTH-1:0]  s_data,
    output logic             m_valid,
    input  wire              m_ready,
    output logic [WIDTH-1:0] m_data
);

    // The head is read while the tail is written: they meet only when the FIFO is empty, and
    // then m_valid says the read is not the head yet, whichever beat it returns.
    (* no_rw_check *) logic [WIDTH-1:0] mem [2 ** DEPTH_LOG2];
    logic [DEPTH_LOG2:0] wr_q, rd_q;

    wire pop = m_valid && m_ready;

    always_ff @(posedge clk) begin
        if (s_valid) begin
            mem[wr_q[DEPTH_LOG2-1:0]] <= s_data;
        end
        m_data <= mem[rd_q[DEPTH_LOG2-1:0]];
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_q    <= '0;
            rd_q    <= '0;
            m_valid <= 1'b0;
        end else begin
            wr_q    <= wr_q + (DEPTH_LOG2 + 1)'(s_valid);
            rd_q    <= rd_q + (DEPTH_LOG2 + 1)'(pop);
            // The read this clock is of the head if it was written a clock ago and stays.
            m_valid <= !pop && wr_q != rd_q;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_DESC_SV
