// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ECP5_BOARD_SV
`define ROCENIC_ECP5_BOARD_SV
`include "rtl/top/boards/ecp5_pll.sv"
`include "rtl/top/power_on_reset.sv"
`include "rtl/top/rocenic_core.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// What every ECP5 board top shares: the PLL from the board's oscillator to the core clock, the
// power-on reset, and the core (rtl/top/rocenic_core.sv: the entropy unit and the RSS
// hash with 36-byte inputs behind the UART bridge at 115200 baud, docs/uart-bridge.md). A board
// top only names its pins and picks the PLL divisors for its oscillator.
module ecp5_board #(
    parameter int CLKI_DIV  = 1,   // PLL input divider: f_core = f_osc * CLKFB_DIV / CLKI_DIV
    parameter int CLKFB_DIV = 4,   // PLL feedback divider
    parameter int CLKOP_DIV = 6,   // PLL output divider: VCO = f_core * CLKOP_DIV, 400..800 MHz
    parameter int CORE_HZ   = 100_000_000  // the resulting core clock, for the UART's bit time
) (
    input  wire  osc,              // the board's oscillator
    input  wire  uart_rx,          // from the host
    output wire  uart_tx,          // to the host
    output wire  activity          // toggles with bridge activity
);

    wire clk;
    wire locked;
    wire rst;

    // 115200 baud, rounded to the nearest whole clock count (868 at 100 MHz, 1085 at 125 MHz).
    localparam int CLKS_PER_BIT = (CORE_HZ + 57_600) / 115_200;

    ecp5_pll #(
        .CLKI_DIV    (CLKI_DIV),
        .CLKFB_DIV   (CLKFB_DIV),
        .CLKOP_DIV   (CLKOP_DIV),
        .CLKOP_CPHASE(2)
    ) u_pll (
        .clkin (osc),
        .clkout(clk),
        .locked(locked)
    );

    power_on_reset u_por (
        .clk  (clk),
        .ready(locked),
        .rst  (rst)
    );

    rocenic_core #(
        .CLKS_PER_BIT (CLKS_PER_BIT),
        .RSS_MAX_INPUT(36)
    ) u_core (
        .clk     (clk),
        .rst     (rst),
        .uart_rx (uart_rx),
        .uart_tx (uart_tx),
        .activity(activity)
    );

endmodule

`resetall

`endif  // ROCENIC_ECP5_BOARD_SV
