// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_UART_TX_SV
`define ROCENIC_UART_TX_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// UART transmitter, 8N1, LSB first, from a valid/ready byte stream.
//
// s_ready is a flip-flop: high while the transmitter is idle. A byte taken in cycle c starts
// its start bit in cycle c + 1; the line then carries 10 bit times (start, 8 data, stop), after
// which s_ready rises again. Back-to-back bytes therefore leave one clock between stop bit and
// the next start bit, well inside any receiver's tolerance.
module uart_tx #(
    parameter int CLKS_PER_BIT = 1085  // Clock cycles per bit: f_clk / baud, at least 2
) (
    input  wire       clk,
    input  wire       rst,      // synchronous, active high
    // byte stream
    input  wire       s_valid,
    output wire       s_ready,
    input  wire [7:0] s_data,
    output wire       tx        // the line, idle high; a flip-flop
);

    if (CLKS_PER_BIT < 2) begin : g_bad_clks
        $error("uart_tx: CLKS_PER_BIT must be at least 2, got %0d", CLKS_PER_BIT);
    end

    localparam int CNT_W = $clog2(CLKS_PER_BIT + 1);
    localparam logic [CNT_W-1:0] FULL_BIT = CNT_W'(CLKS_PER_BIT - 1);

    logic             busy_q;
    logic [CNT_W-1:0] cnt_q;
    logic [3:0]       bits_left_q;  // bits still to send after the current one
    logic [8:0]       shift_q;      // data bits then the stop bit, LSB next
    logic             tx_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            busy_q      <= 1'b0;
            tx_q        <= 1'b1;
            cnt_q       <= '0;
            bits_left_q <= '0;
        end else if (!busy_q) begin
            if (s_valid) begin
                busy_q      <= 1'b1;
                tx_q        <= 1'b0;  // start bit
                cnt_q       <= FULL_BIT;
                bits_left_q <= 4'd9;
            end
        end else if (cnt_q != '0) begin
            cnt_q <= cnt_q - 1'b1;
        end else if (bits_left_q != 4'd0) begin
            tx_q        <= shift_q[0];
            cnt_q       <= FULL_BIT;
            bits_left_q <= bits_left_q - 1'b1;
        end else begin
            busy_q <= 1'b0;  // the stop bit has had its full time; the line stays high
        end
    end

    always_ff @(posedge clk) begin
        if (!busy_q && s_valid) begin
            shift_q <= {1'b1, s_data};
        end else if (busy_q && cnt_q == '0 && bits_left_q != 4'd0) begin
            shift_q <= {1'b1, shift_q[8:1]};
        end
    end

    assign s_ready = !busy_q;
    assign tx      = tx_q;

endmodule

`resetall

`endif  // ROCENIC_UART_TX_SV
