// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_COLORLIGHT_5A75B_TOP_SV
`define ROCENIC_COLORLIGHT_5A75B_TOP_SV
`include "rtl/top/boards/ecp5_board.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Colorlight 5A-75B v7.0 (LFE5U-25F-6BG256C): the second NIC board, two gigabit PHYs. Core clock
// 125 MHz, the PHYs' RGMII clock, as on the Colorlight i5. The board has no serial port: the UART
// uses the two FPGA pins that reach the outside without a level shifter, the LED pad (TX) and the
// button pad (RX), with a 3.3 V USB serial adapter; so this top has no LED output.
//
// The PLL makes the core clock from the board's oscillator (25 MHz -> 125 MHz, VCO 625 MHz); the
// core (rtl/top/rocenic_core.sv) carries the entropy unit and the RSS hash (36-byte inputs, 40-byte
// key) behind the UART bridge at 115200 baud (docs/uart-bridge.md). Pins:
// constraints/colorlight_5a75b.lpf.
module colorlight_5a75b_top (
    input  wire clk25,     // the board's oscillator
    input  wire uart_rx,   // from the host (the button pad)
    output wire uart_tx    // to the host (the LED pad)
);

    wire activity;

    ecp5_board #(
        .CLKI_DIV (1),
        .CLKFB_DIV(5),
        .CLKOP_DIV(5),
        .CORE_HZ  (125_000_000)
    ) u_board (
        .osc     (clk25),
        .uart_rx (uart_rx),
        .uart_tx (uart_tx),
        .activity(activity)
    );

    wire unused_activity = activity;

endmodule

`resetall

`endif  // ROCENIC_COLORLIGHT_5A75B_TOP_SV
