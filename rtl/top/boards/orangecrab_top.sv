// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ORANGECRAB_TOP_SV
`define ROCENIC_ORANGECRAB_TOP_SV
`include "rtl/top/boards/ecp5_board.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// OrangeCrab r0.2 (LFE5U-25F-8MG285C). Core clock 124.8 MHz (48 MHz * 13 / 5: the PLL cannot make
// 125 MHz itself from 48 MHz); the UART is on the Feather header's RX (GPIO 0) and TX (GPIO 1)
// pins, for a 3.3 V USB serial adapter.
//
// The PLL makes the core clock from the board's oscillator (48 MHz -> 124.8 MHz, VCO 624 MHz);
// the core (rtl/top/rocenic_core.sv) carries the entropy unit and the RSS hash (36-byte inputs,
// 40-byte key) behind the UART bridge at 115200 baud (docs/uart-bridge.md). Pins:
// constraints/orangecrab.lpf.
module orangecrab_top (
    input  wire clk48,     // the board's oscillator
    input  wire uart_rx,   // from the host
    output wire uart_tx,   // to the host
    output wire led        // toggles with bridge activity
);

    wire activity;

    ecp5_board #(
        .CLKI_DIV (5),
        .CLKFB_DIV(13),
        .CLKOP_DIV(5),
        .CORE_HZ  (124_800_000)
    ) u_board (
        .osc     (clk48),
        .uart_rx (uart_rx),
        .uart_tx (uart_tx),
        .activity(activity)
    );

    assign led = !activity;

endmodule

`resetall

`endif  // ROCENIC_ORANGECRAB_TOP_SV
