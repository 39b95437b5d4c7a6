// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// iCEBreaker (iCE40UP5K-SG48): the small board, with the entropy unit alone behind the UART
// bridge (8 registers per request). The core runs straight from the 12 MHz oscillator. The
// entropy unit's products need 11 SB_MAC16 where the device has 8, so here they are built from
// LUTs (about 2800); with them, even a 4-byte RSS hash (about 700 LUTs more, plus its key and
// data registers) overflows the 5280 cells, so the RSS hash is left out until the entropy unit
// has a DSP-lean variant. UART at 115200 baud on the FT2232H's second channel. Pins:
// constraints/icebreaker.pcf.
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
        .RSS_MAX_INPUT(0),
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
