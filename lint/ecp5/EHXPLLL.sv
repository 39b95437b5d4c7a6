// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded: ecp5_pll.sv includes it for Verilator, and the ECP5 board lists find it with -y.
`ifndef ROCENIC_EHXPLLL_SV
`define ROCENIC_EHXPLLL_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The ports and parameters of the ECP5 EHXPLLL that rtl/top/boards/ecp5_pll.sv instantiates, only
// for the lint of the ECP5 board lists (make lint-rtl reads it with them). It is a black box:
// no clock is made here. Yosys and nextpnr take the cell from their own ECP5 library, and the
// boards' clocks are proven by nextpnr's timing report, so this file never reaches a bitstream.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNDRIVEN */
module EHXPLLL #(
    parameter string PLLRST_ENA      = "DISABLED",  // PLL reset input in use
    parameter string INTFB_WAKE      = "DISABLED",  // internal feedback during wake-up
    parameter string STDBY_ENABLE    = "DISABLED",  // standby input in use
    parameter string DPHASE_SOURCE   = "DISABLED",  // dynamic phase control in use
    parameter string OUTDIVIDER_MUXA = "DIVA",      // source of CLKOP
    parameter string OUTDIVIDER_MUXB = "DIVB",      // source of CLKOS
    parameter string OUTDIVIDER_MUXC = "DIVC",      // source of CLKOS2
    parameter string OUTDIVIDER_MUXD = "DIVD",      // source of CLKOS3
    parameter int    CLKI_DIV        = 1,           // input divider
    parameter string CLKOP_ENABLE    = "ENABLED",   // CLKOP output in use
    parameter int    CLKOP_DIV       = 8,           // CLKOP output divider
    parameter int    CLKOP_CPHASE    = 0,           // CLKOP coarse phase, VCO cycles
    parameter int    CLKOP_FPHASE    = 0,           // CLKOP fine phase, eighths of a VCO cycle
    parameter string FEEDBK_PATH     = "CLKOP",     // feedback source
    parameter int    CLKFB_DIV       = 1            // feedback divider
) (
    input  wire RST,
    input  wire STDBY,
    input  wire CLKI,
    output wire CLKOP,
    input  wire CLKFB,
    output wire CLKINTFB,
    input  wire PHASESEL0,
    input  wire PHASESEL1,
    input  wire PHASEDIR,
    input  wire PHASESTEP,
    input  wire PHASELOADREG,
    input  wire PLLWAKESYNC,
    input  wire ENCLKOP,
    output wire LOCK
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on UNUSEDSIGNAL */

`resetall

`endif  // ROCENIC_EHXPLLL_SV
