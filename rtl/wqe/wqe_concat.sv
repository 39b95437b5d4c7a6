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
    logic [3:0]   cnt_n_q;         // ~cnt_q: the shifter's own copy (see below)
    logic         tail_q;          // the packet's last beat is still in the accumulator

    wire out_free = !m_axis_tvalid || m_axis_tready;
    assign s_ready = out_free && !tail_q;
    wire take = s_valid && s_ready;

    // The shift amount drives some two hundred multiplexers: it has a register of its own,
    // kept inverted so that synthesis does not merge it with cnt_q, which decides.
    wire [3:0]   cnt_sh = ~cnt_n_q;
    wire [183:0] merged = {64'b0, acc_q} | ({120'b0, s_data} << {cnt_sh, 3'b0});
    wire [4:0]   total  = {1'b0, cnt_q} + {1'b0, s_bytes};

    // n lanes from lane 0, as a table (a shift and a subtraction map to carry chains).
    function automatic logic [7:0] keep_of(input logic [4:0] n);
        case (n)
            5'd0: keep_of = 8'h00;
            5'd1: keep_of = 8'h01;
            5'd2: keep_of = 8'h03;
            5'd3: keep_of = 8'h07;
            5'd4: keep_of = 8'h0F;
            5'd5: keep_of = 8'h1F;
            5'd6: keep_of = 8'h3F;
            5'd7: keep_of = 8'h7F;
            default: keep_of = 8'hFF;
        endcase
    endfunction

    // The output beat's fields are loaded whenever the output register is free, whatever
    // goes in it: they only count with m_axis_tvalid, and their load then waits for nothing
    // but the output's handshake.
    always_ff @(posedge clk) begin
        if (out_free) begin
            m_axis_tdata <= tail_q ? acc_q[63:0] : merged[63:0];
            m_axis_tkeep <= keep_of(tail_q ? {1'b0, cnt_q} : total);
            m_axis_tlast <= tail_q || (s_last && total <= 5'd8);
        end
    end

    logic [3:0] cnt_d;
    always_comb begin
        cnt_d = cnt_q;
        if (tail_q && out_free) begin
            cnt_d = '0;
        end else if (take) begin
            cnt_d = total >= 5'd8 ? 4'(total - 5'd8) : (s_last ? 4'd0 : total[3:0]);
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            m_axis_tvalid <= 1'b0;
            cnt_q         <= '0;
            cnt_n_q       <= '1;
            tail_q        <= 1'b0;
            acc_q         <= '0;
        end else begin
            cnt_q   <= cnt_d;
            cnt_n_q <= ~cnt_d;
            if (m_axis_tvalid && m_axis_tready) begin
                m_axis_tvalid <= 1'b0;
            end
            if (tail_q && out_free) begin
                m_axis_tvalid <= 1'b1;
                acc_q         <= '0;
                tail_q        <= 1'b0;
            end else if (take) begin
                if (total >= 5'd8 || s_last) begin
                    m_axis_tvalid <= 1'b1;
                    acc_q         <= merged[183:64] & {120{!(s_last && total <= 5'd8)}};
                    tail_q        <= s_last && total > 5'd8;
                end else begin
                    acc_q <= merged[119:0];
                end
            end
        end
    end


endmodule
