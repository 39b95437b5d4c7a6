// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Joins the pieces of a packet's payload into one packed stream: each input word carries 1 to
// 8 bytes from lane 0 (a piece starts on a word of the packet buffer, so all but a piece's
// last word are full), and the output carries them back to back, 8 bytes a beat, tkeep
// contiguous, tlast on the packet's last byte.
//
// Up to 15 bytes wait in an accumulator. When a packet's last word leaves more than 8 bytes,
// the second beat goes out the next cycle and the input waits for it.
module wqe_concat (
    input  wire        clk,
    input  wire        rst,
    input  wire        s_valid,
    output logic       s_ready,
    input  wire [63:0] s_data,
    input  wire [3:0]  s_bytes,    // 1..8
    input  wire        s_last,     // the packet's last word
    output logic       m_axis_tvalid,
    input  wire        m_axis_tready,
    output logic [63:0] m_axis_tdata,
    output logic [7:0] m_axis_tkeep,
    output logic       m_axis_tlast
);

    logic [119:0] acc_q;           // bytes waiting, from lane 0
    logic [3:0]   cnt_q;           // how many (0..15)
    logic         tail_q;          // the packet's last beat is still in the accumulator

    wire out_free = !m_axis_tvalid || m_axis_tready;
    assign s_ready = out_free && !tail_q;
    wire take = s_valid && s_ready;

    wire [183:0] merged = {64'b0, acc_q} | ({120'b0, s_data} << {cnt_q, 3'b0});
    wire [4:0]   total  = {1'b0, cnt_q} + {1'b0, s_bytes};

    function automatic logic [7:0] keep_of(input logic [4:0] n);
        keep_of = n >= 5'd8 ? 8'hFF : 8'((9'd1 << n) - 9'd1);
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            m_axis_tvalid <= 1'b0;
            cnt_q         <= '0;
            tail_q        <= 1'b0;
            acc_q         <= '0;
        end else begin
            if (m_axis_tvalid && m_axis_tready) begin
                m_axis_tvalid <= 1'b0;
            end
            if (tail_q && out_free) begin
                m_axis_tvalid <= 1'b1;
                m_axis_tdata  <= acc_q[63:0];
                m_axis_tkeep  <= keep_of({1'b0, cnt_q});
                m_axis_tlast  <= 1'b1;
                acc_q         <= '0;
                cnt_q         <= '0;
                tail_q        <= 1'b0;
            end else if (take) begin
                if (total >= 5'd8 || s_last) begin
                    m_axis_tvalid <= 1'b1;
                    m_axis_tdata  <= merged[63:0];
                    m_axis_tkeep  <= keep_of(total);
                    m_axis_tlast  <= s_last && total <= 5'd8;
                    acc_q         <= merged[183:64] & {120{!(s_last && total <= 5'd8)}};
                    cnt_q         <= total >= 5'd8 ? 4'(total - 5'd8) : 4'd0;
                    tail_q        <= s_last && total > 5'd8;
                end else begin
                    acc_q <= merged[119:0];
                    cnt_q <= total[3:0];
                end
            end
        end
    end


endmodule
