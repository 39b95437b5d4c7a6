// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ULX3S_TOP_SV
`define ROCENIC_ULX3S_TOP_SV
`include "rtl/top/boards/ecp5_board.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// ULX3S (LFE5U-85F-6BG381C). Core clock 100 MHz: at 125 MHz the core placed at 120.6 MHz on
// this larger device (the 25F boards make 125); the UART is the on-board FT231X.
//
// The PLL makes the core clock from the board's oscillator (25 MHz -> 100 MHz, VCO 600 MHz); the
// core (rtl/top/rocenic_core.sv) carries the entropy unit and the RSS hash (36-byte inputs, 40-byte
// key) behind the UART bridge at 115200 baud (docs/uart-bridge.md). Pins: constraints/ulx3s.lpf.
module ulx3s_top (
    input  wire clk25,     // the board's oscillator
    input  wire uart_rx,   // from the host
    output wire uart_tx,   // to the host
    output wire led        // toggles with bridge activity
);

    wire activity;

    ecp5_board #(
        .CLKI_DIV (1),
        .CLKFB_DIV(4),
        .CLKOP_DIV(6),
        .CORE_HZ  (100_000_000)
    ) u_board (
        .osc     (clk25),
        .uart_rx (uart_rx),
        .uart_tx (uart_tx),
        .activity(activity)
    );

    assign led = activity;

endmodule

`resetall

`endif  // ROCENIC_ULX3S_TOP_SV
