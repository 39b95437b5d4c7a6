// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ECP5_PLL_SV
`define ROCENIC_ECP5_PLL_SV
// For lint, Verilator takes the PLL cell's ports from lint/ecp5 (a black box); Yosys and
// nextpnr take the cell from their own ECP5 library.
`ifdef VERILATOR
`include "lint/ecp5/EHXPLLL.sv"
`endif
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One ECP5 EHXPLLL output: f_out = f_in * CLKFB_DIV / CLKI_DIV, with the VCO at f_out *
// CLKOP_DIV (feedback from CLKOP). Divider values per board come from ecppll (shipped with the
// YoWASP nextpnr-ecp5 package: `yowasp-ecppll -i 25 -o 125`); nextpnr derives the output
// clock's constraint from the input's FREQUENCY in the board's .lpf.
module ecp5_pll #(
    parameter int CLKI_DIV     = 1,  // Input divider
    parameter int CLKFB_DIV    = 5,  // Feedback divider
    parameter int CLKOP_DIV    = 5,  // Output divider (VCO / f_out)
    parameter int CLKOP_CPHASE = 2   // Output phase in VCO cycles (ecppll's choice)
) (
    input  wire clkin,
    output wire clkout,
    output wire locked
);

    EHXPLLL #(
        .PLLRST_ENA      ("DISABLED"),
        .INTFB_WAKE      ("DISABLED"),
        .STDBY_ENABLE    ("DISABLED"),
        .DPHASE_SOURCE   ("DISABLED"),
        .OUTDIVIDER_MUXA ("DIVA"),
        .OUTDIVIDER_MUXB ("DIVB"),
        .OUTDIVIDER_MUXC ("DIVC"),
        .OUTDIVIDER_MUXD ("DIVD"),
        .CLKI_DIV        (CLKI_DIV),
        .CLKOP_ENABLE    ("ENABLED"),
        .CLKOP_DIV       (CLKOP_DIV),
        .CLKOP_CPHASE    (CLKOP_CPHASE),
        .CLKOP_FPHASE    (0),
        .FEEDBK_PATH     ("CLKOP"),
        .CLKFB_DIV       (CLKFB_DIV)
    ) u_pll (
        .RST         (1'b0),
        .STDBY       (1'b0),
        .CLKI        (clkin),
        .CLKOP       (clkout),
        .CLKFB       (clkout),
        // The internal feedback output is left open: feedback comes from CLKOP.
        /* verilator lint_off PINCONNECTEMPTY */
        .CLKINTFB    (),
        /* verilator lint_on PINCONNECTEMPTY */
        .PHASESEL0   (1'b0),
        .PHASESEL1   (1'b0),
        .PHASEDIR    (1'b1),
        .PHASESTEP   (1'b1),
        .PHASELOADREG(1'b1),
        .PLLWAKESYNC (1'b0),
        .ENCLKOP     (1'b0),
        .LOCK        (locked)
    );

endmodule

`resetall

`endif  // ROCENIC_ECP5_PLL_SV
