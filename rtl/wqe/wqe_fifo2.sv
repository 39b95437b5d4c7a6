// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Two-entry valid/ready FIFO in flip-flops, for a block RAM's read port. An ECP5 block RAM's
// output comes late in the cycle (its read register is the RAM's own), so it may meet nothing
// but flip-flops: here each input bit goes straight to the D input of its two registers, which
// load by their enables alone, and the multiplexer is on the output side.
//
// s_ready and m_valid are flip-flops, as in skid_buffer, and one word per clock flows while the
// sink is ready; a word pushed in cycle c is on m_data in cycle c + 1.
module wqe_fifo2 #(
    parameter int WIDTH = 8   // bits of a word
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              s_valid,
    output logic             s_ready,
    input  wire [WIDTH-1:0]  s_data,
    output logic             m_valid,
    input  wire              m_ready,
    output logic [WIDTH-1:0] m_data
);

    logic [WIDTH-1:0] mem0_q, mem1_q;   // (two registers: an array would become LUT RAM)
    logic             wr_q, rd_q;   // the entry written next, and the one read
    logic [1:0]       n_q;          // words held

    wire push = s_valid && s_ready;
    wire pop  = m_valid && m_ready;
    wire [1:0] n_d = n_q + 2'(push) - 2'(pop);

    assign m_data = rd_q ? mem1_q : mem0_q;

    always_ff @(posedge clk) begin
        if (push && !wr_q) begin
            mem0_q <= s_data;
        end
        if (push && wr_q) begin
            mem1_q <= s_data;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_q    <= 1'b0;
            rd_q    <= 1'b0;
            n_q     <= '0;
            s_ready <= 1'b0;
            m_valid <= 1'b0;
        end else begin
            wr_q    <= wr_q ^ push;
            rd_q    <= rd_q ^ pop;
            n_q     <= n_d;
            s_ready <= n_d != 2'd2;
            m_valid <= n_d != 2'd0;
        end
    end

endmodule

`resetall
