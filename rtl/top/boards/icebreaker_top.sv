// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ICEBREAKER_TOP_SV
`define ROCENIC_ICEBREAKER_TOP_SV
`include "rtl/top/power_on_reset.sv"
`include "rtl/top/rocenic_core.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// iCEBreaker (iCE40UP5K-SG48): the small board, with the entropy unit and a reduced RSS hash
// behind the UART bridge (8 registers per request). The core runs straight from the 12 MHz
// oscillator. The entropy unit splits its QPN products at 16 bits (QPN_SPLIT 16), so all eight
// of them are SB_MAC16 blocks (the device has eight; at 18 bits they would need 11 and the rest
// of the products would go to LUTs). That leaves room for the one-per-clock Toeplitz/XOR unit
// at 12-byte inputs with its 16-byte key: the IPv4 address pair and TCP/UDP ports, the inputs
// `rocenic rss --engine serial:` can hash on this board; longer ones (IPv6) are refused. UART
// at 115200 baud on the FT2232H's second channel. Pins: constraints/icebreaker.pcf.
module icebreaker_top (
    input  wire clk12,     // the board's oscillator
    input  wire uart_rx,   // from the host
    output wire uart_tx,   // to the host
    output wire led_n      // red LED, low = on: toggles with bridge activity
);

    wire rst;
    wire activity;

    power_on_reset u_por (
        .clk  (clk12),
        .ready(1'b1),
        .rst  (rst)
    );

    rocenic_core #(
        .CLKS_PER_BIT (104),
        .RSS_MAX_INPUT(12),
        .QPN_SPLIT    (16),
        .MAX_WORDS    (8)
    ) u_core (
        .clk     (clk12),
        .rst     (rst),
        .uart_rx (uart_rx),
        .uart_tx (uart_tx),
        .activity(activity)
    );

    assign led_n = !activity;

endmodule

`resetall

`endif  // ROCENIC_ICEBREAKER_TOP_SV
