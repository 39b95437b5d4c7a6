// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// A behavioural model of the one ECP5 MULT18X18D configuration rtl/common/mul_reg.sv uses:
// unsigned 18x18, output register on CLK0/CE0/RST0 with a synchronous reset, no input or
// pipeline registers, no cascade. It follows Lattice's sysDSP user guide (TN1267) for that mode
// and refuses any other, so formal/mul_reg_ecp5.ys proves the instance's wiring (bit order,
// zero extension, clock enable) equal to the plain RTL. Yosys's own ECP5 library has the cell as
// a black box only, and nextpnr's timing for it comes from the Trellis database.
module MULT18X18D (
    A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17,
    B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16, B17,
    C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17,
    SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
    CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3,
    P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15, P16, P17, P18, P19,
        P20, P21, P22, P23, P24, P25, P26, P27, P28, P29, P30, P31, P32, P33, P34, P35
);
    parameter REG_INPUTA_CLK   = "NONE";  // the parameters the model knows; see the check below
    parameter REG_INPUTB_CLK   = "NONE";
    parameter REG_INPUTC_CLK   = "NONE";
    parameter REG_PIPELINE_CLK = "NONE";
    parameter REG_OUTPUT_CLK   = "NONE";
    parameter REG_OUTPUT_CE    = "CE0";
    parameter REG_OUTPUT_RST   = "RST0";
    parameter GSR              = "ENABLED";
    parameter RESETMODE        = "SYNC";
    parameter SOURCEB_MODE     = "B_SHIFT";
    parameter MULT_BYPASS      = "DISABLED";

    input wire A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17;
    input wire B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16, B17;
    input wire C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17;
    input wire SIGNEDA, SIGNEDB, SOURCEA, SOURCEB;
    input wire CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3;
    output wire P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15, P16, P17,
        P18, P19, P20, P21, P22, P23, P24, P25, P26, P27, P28, P29, P30, P31, P32, P33, P34,
        P35;

    if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE"
        || REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "CLK0" || REG_OUTPUT_CE != "CE0"
        || REG_OUTPUT_RST != "RST0" || RESETMODE != "SYNC" || MULT_BYPASS != "DISABLED")
    begin : g_unmodelled
        $error("MULT18X18D model: only the output-registered CLK0/CE0/RST0 mode is modelled");
    end

    wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
    wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
    logic [35:0] p_q;

    // SIGNEDA/SIGNEDB make an operand two's complement (bit 17 is its sign). The unsigned case
    // is spelled on its own so that the proof meets a multiplier of the same shape on both
    // sides (equivalence of differently built multipliers is hard for any SAT solver).
    wire signed [18:0] a_ext = {SIGNEDA & a[17], a};
    wire signed [18:0] b_ext = {SIGNEDB & b[17], b};
    wire signed [37:0] signed_product = a_ext * b_ext;
    wire [35:0] product = (SIGNEDA || SIGNEDB) ? signed_product[35:0] : {18'd0, a} * {18'd0, b};

    always_ff @(posedge CLK0) begin
        if (RST0) begin
            p_q <= 36'd0;
        end else if (CE0) begin
            p_q <= product;
        end
    end

    assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18,
            P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p_q;

    // The C port, cascade, SOURCE and the other clocks play no part in this mode.
    wire unused_ports = ^{C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1,
                          C0, SOURCEA, SOURCEB, CLK1, CLK2, CLK3, CE1, CE2, CE3, RST1, RST2, RST3};

endmodule

`resetall
