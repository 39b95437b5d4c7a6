// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_MUL_REG_SV
`define ROCENIC_MUL_REG_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// A registered unsigned product: p_q <= a * b (low P_W bits) on every clock with ce high.
//
// Why a module for one line of RTL: on ECP5 the multiplier's own output register must hold the
// product. Yosys maps `a * b` onto a MULT18X18D but never moves a following flip-flop into it,
// so the fabric register sits wherever the placer puts it and the path flip-flop -> DSP ->
// flip-flop pays two long routes around the DSP's 3.9 ns: 9.1 ns in the Colorlight i5 core, too
// slow for its 125 MHz RGMII clock. With the output register inside the DSP that path ends at
// the DSP, and the next one starts there.
//
// Define ROCENIC_ECP5 (the FPGA flow does, for every ECP5 build) to instantiate MULT18X18D;
// without it the product is plain RTL, which simulators and other FPGAs (iCE40's SB_MAC16
// absorbs the register by itself) map as they like. Both forms have the same cycle behaviour.
module mul_reg #(
    parameter int A_W = 18,         // width of a, 1..18 (one MULT18X18D port)
    parameter int B_W = 18,         // width of b, 1..18
    parameter int P_W = A_W + B_W   // low product bits kept, 1..A_W+B_W
) (
    input  wire            clk,
    input  wire            ce,      // load enable: the product register holds while low
    input  wire [A_W-1:0]  a,
    input  wire [B_W-1:0]  b,
    output logic [P_W-1:0] p_q
);

    if (A_W < 1 || A_W > 18 || B_W < 1 || B_W > 18 || P_W < 1 || P_W > A_W + B_W) begin : g_bad_width
        $error("mul_reg: A_W and B_W must be 1..18 and P_W 1..A_W+B_W, got %0d, %0d, %0d",
               A_W, B_W, P_W);
    end

`ifdef ROCENIC_ECP5
    wire [17:0] dsp_a = 18'(a);
    wire [17:0] dsp_b = 18'(b);
    wire [35:0] dsp_p;

    // Unsigned 18x18 with only the output register: clock, clock enable and (tied-off) reset
    // 0, no input or pipeline registers, no cascade, no global set/reset.
    MULT18X18D #(
        .REG_INPUTA_CLK  ("NONE"),
        .REG_INPUTB_CLK  ("NONE"),
        .REG_INPUTC_CLK  ("NONE"),
        .REG_PIPELINE_CLK("NONE"),
        .REG_OUTPUT_CLK  ("CLK0"),
        .REG_OUTPUT_CE   ("CE0"),
        .REG_OUTPUT_RST  ("RST0"),
        .GSR             ("DISABLED"),
        .RESETMODE       ("SYNC"),
        .SOURCEB_MODE    ("B_SHIFT"),
        .MULT_BYPASS     ("DISABLED")
    ) u_dsp (
        .A0(dsp_a[0]), .A1(dsp_a[1]), .A2(dsp_a[2]), .A3(dsp_a[3]), .A4(dsp_a[4]),
        .A5(dsp_a[5]), .A6(dsp_a[6]), .A7(dsp_a[7]), .A8(dsp_a[8]), .A9(dsp_a[9]),
        .A10(dsp_a[10]), .A11(dsp_a[11]), .A12(dsp_a[12]), .A13(dsp_a[13]),
        .A14(dsp_a[14]), .A15(dsp_a[15]), .A16(dsp_a[16]), .A17(dsp_a[17]),
        .B0(dsp_b[0]), .B1(dsp_b[1]), .B2(dsp_b[2]), .B3(dsp_b[3]), .B4(dsp_b[4]),
        .B5(dsp_b[5]), .B6(dsp_b[6]), .B7(dsp_b[7]), .B8(dsp_b[8]), .B9(dsp_b[9]),
        .B10(dsp_b[10]), .B11(dsp_b[11]), .B12(dsp_b[12]), .B13(dsp_b[13]),
        .B14(dsp_b[14]), .B15(dsp_b[15]), .B16(dsp_b[16]), .B17(dsp_b[17]),
        .C0(1'b0), .C1(1'b0), .C2(1'b0), .C3(1'b0), .C4(1'b0), .C5(1'b0),
        .C6(1'b0), .C7(1'b0), .C8(1'b0), .C9(1'b0), .C10(1'b0), .C11(1'b0),
        .C12(1'b0), .C13(1'b0), .C14(1'b0), .C15(1'b0), .C16(1'b0), .C17(1'b0),
        .SIGNEDA(1'b0), .SIGNEDB(1'b0), .SOURCEA(1'b0), .SOURCEB(1'b0),
        .CLK0(clk), .CLK1(1'b0), .CLK2(1'b0), .CLK3(1'b0),
        .CE0(ce), .CE1(1'b0), .CE2(1'b0), .CE3(1'b0),
        .RST0(1'b0), .RST1(1'b0), .RST2(1'b0), .RST3(1'b0),
        .P0(dsp_p[0]), .P1(dsp_p[1]), .P2(dsp_p[2]), .P3(dsp_p[3]), .P4(dsp_p[4]),
        .P5(dsp_p[5]), .P6(dsp_p[6]), .P7(dsp_p[7]), .P8(dsp_p[8]), .P9(dsp_p[9]),
        .P10(dsp_p[10]), .P11(dsp_p[11]), .P12(dsp_p[12]), .P13(dsp_p[13]),
        .P14(dsp_p[14]), .P15(dsp_p[15]), .P16(dsp_p[16]), .P17(dsp_p[17]),
        .P18(dsp_p[18]), .P19(dsp_p[19]), .P20(dsp_p[20]), .P21(dsp_p[21]),
        .P22(dsp_p[22]), .P23(dsp_p[23]), .P24(dsp_p[24]), .P25(dsp_p[25]),
        .P26(dsp_p[26]), .P27(dsp_p[27]), .P28(dsp_p[28]), .P29(dsp_p[29]),
        .P30(dsp_p[30]), .P31(dsp_p[31]), .P32(dsp_p[32]), .P33(dsp_p[33]),
        .P34(dsp_p[34]), .P35(dsp_p[35])
    );

    assign p_q = dsp_p[P_W-1:0];

    // The DSP's product bits above P_W, dropped on purpose.
    wire unused_high = ^{1'b0, dsp_p};
`else
    wire [A_W+B_W-1:0] product = {{B_W{1'b0}}, a} * {{A_W{1'b0}}, b};

    always_ff @(posedge clk) begin
        if (ce) begin
            p_q <= product[P_W-1:0];
        end
    end

    // The product bits above P_W, dropped on purpose (none when P_W = A_W + B_W).
    wire unused_high = ^{1'b0, product};
`endif

endmodule

`resetall

`endif  // ROCENIC_MUL_REG_SV
