// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_COLORLIGHT_I5_TOP_SV
`define ROCENIC_COLORLIGHT_I5_TOP_SV
`include "rtl/top/boards/ecp5_board.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Colorlight i5 (LFE5U-25F-6BG381C, v7.0 module on its extension board): the NIC board. Core clock
// 125 MHz, the RGMII clock of its two gigabit PHYs; the UART is the extension board's USB serial
// (CH552).
//
// The PLL makes the core clock from the board's oscillator (25 MHz -> 125 MHz, VCO 625 MHz); the
// core (rtl/top/rocenic_core.sv) carries the entropy unit and the RSS hash (36-byte inputs, 40-byte
// key) behind the UART bridge at 115200 baud (docs/uart-bridge.md). Pins:
// constraints/colorlight_i5.lpf.
module colorlight_i5_top (
    input  wire clk25,     // the board's oscillator
    input  wire uart_rx,   // from the host
    output wire uart_tx,   // to the host
    output wire led        // toggles with bridge activity
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

    assign led = !activity;

endmodule

`resetall

`endif  // ROCENIC_COLORLIGHT_I5_TOP_SV
