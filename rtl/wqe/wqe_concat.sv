// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_CONCAT_SV
`define ROCENIC_WQE_CONCAT_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Joins the pieces of a packet's payload into one packed stream: each input word carries 1 to
// 8 bytes from lane 0 (a piece starts on a word of the packet buffer, so all but a piece's
// last word are full), and the output carries them back to back, 8 bytes a beat, tkeep
// contiguous, tlast on the packet's last byte.
//
// Two stages. The first counts: it takes a word, works out from the bytes waiting where the
// word goes and what it completes, and registers that with it. The second moves the bytes: up
// to 7 wait in an accumulator, and the word is shifted in behind them by the registered count,
// so the 120 multiplexers of the byte path are steered by flip-flops, not by an addition. When
// a packet's last word leaves more than 8 bytes, the second beat goes out the next cycle.
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
    output logic       m_axis_tlast,
    output logic       busy        // a word is inside (not yet in an output beat)
);

    // n lanes from lane 0 (n <= 8), as a table (a shift and a subtraction map to carry chains).
    function automatic logic [7:0] keep_of(input logic [3:0] n);
        case (n)
            4'd0: keep_of = 8'h00;
            4'd1: keep_of = 8'h01;
            4'd2: keep_of = 8'h03;
            4'd3: keep_of = 8'h07;
            4'd4: keep_of = 8'h0F;
            4'd5: keep_of = 8'h1F;
            4'd6: keep_of = 8'h3F;
            4'd7: keep_of = 8'h7F;
            default: keep_of = 8'hFF;
        endcase
    endfunction

    // ---- stage 1: the count --------------------------------------------------------------
    logic [2:0]  cnt_q;            // bytes waiting once every word taken is merged (0..7)
    logic        d_valid_q;        // a word for stage 2, and what it does:
    logic [63:0] d_data_q;
    logic [2:0]  d_sh_q;           //   the bytes waiting before it (where it goes)
    logic        d_emit_q;         //   it completes an output beat
    logic        d_fits_q;         //   the packet ends in that beat
    logic        d_tail_q;         //   the packet ends in a second beat
    logic [7:0]  d_keep_q, d_tail_keep_q;

    logic        tail_q;           // stage 2: a packet's second last beat waits in acc_q
    logic [7:0]  tail_keep_q;
    logic [55:0] acc_q;            // stage 2: the bytes waiting, from lane 0

    wire out_free = !m_axis_tvalid || m_axis_tready;
    wire consume  = d_valid_q && out_free && !tail_q;          // stage 2 takes the word
    assign s_ready = !d_valid_q || consume;
    wire take     = s_valid && s_ready;
    assign busy   = d_valid_q || tail_q;

    // What a word of s_bytes does after cnt_q bytes, as a table of the 7 bits (an addition and
    // compares would put a carry chain before every decision): total = cnt_q + s_bytes, and
    // {total >= 8, total <= 8, the bytes waiting after it (total, less a beat when full),
    // keep_of(min(total, 8)), keep_of(total - 8)}.
    localparam int ROW = 2 + 3 + 8 + 8;
    function automatic logic [128*ROW-1:0] size_table();
        for (int c = 0; c < 8; c++) begin
            for (int b = 0; b < 16; b++) begin
                size_table[(c * 16 + b) * ROW +: ROW] = {c + b >= 8, c + b <= 8, 3'(c + b),
                    keep_of(c + b >= 8 ? 4'd8 : 4'(c + b)), keep_of(4'(c + b - 8))};
            end
        end
    endfunction
    localparam logic [128*ROW-1:0] SIZE = size_table();
    wire [ROW-1:0] size = SIZE[{cnt_q, s_bytes} * ROW +: ROW];
    wire       full  = size[ROW-1];
    wire       le8   = size[ROW-2];
    wire [2:0] left  = size[ROW-3 -: 3];
    wire [7:0] keep  = size[15:8];
    wire [7:0] tkeep = size[7:0];

    // The word's fields are loaded whenever stage 1 is free, offered or not: they count only
    // with d_valid_q.
    always_ff @(posedge clk) begin
        if (s_ready) begin
            d_data_q      <= s_data;
            d_sh_q        <= cnt_q;
            d_emit_q      <= full || s_last;
            d_fits_q      <= s_last && le8;
            d_tail_q      <= s_last && !le8;
            d_keep_q      <= keep;
            d_tail_keep_q <= tkeep;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            cnt_q     <= '0;
            d_valid_q <= 1'b0;
        end else begin
            d_valid_q <= take || (d_valid_q && !consume);
            if (take) begin
                cnt_q <= s_last ? 3'd0 : left;
            end
        end
    end

    // ---- stage 2: the bytes --------------------------------------------------------------
    wire [119:0] merged = {64'b0, acc_q} | ({56'b0, d_data_q} << {d_sh_q, 3'b0});

    // The output beat's fields are loaded whenever the output register is free, whatever
    // goes in it: they only count with m_axis_tvalid.
    always_ff @(posedge clk) begin
        if (out_free) begin
            m_axis_tdata <= tail_q ? {8'b0, acc_q} : merged[63:0];
            m_axis_tkeep <= tail_q ? tail_keep_q : d_keep_q;
            m_axis_tlast <= tail_q || d_fits_q;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            m_axis_tvalid <= 1'b0;
            tail_q        <= 1'b0;
            acc_q         <= '0;
        end else begin
            if (m_axis_tvalid && m_axis_tready) begin
                m_axis_tvalid <= 1'b0;
            end
            if (tail_q && out_free) begin
                m_axis_tvalid <= 1'b1;
                acc_q         <= '0;
                tail_q        <= 1'b0;
            end else if (consume) begin
                if (d_emit_q) begin
                    m_axis_tvalid <= 1'b1;
                    acc_q         <= d_fits_q ? 56'd0 : merged[119:64];
                    tail_q        <= d_tail_q;
                    tail_keep_q   <= d_tail_keep_q;
                end else begin
                    acc_q <= merged[55:0];
                end
            end
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_CONCAT_SV
