// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_BRAM_SV
`define ROCENIC_WQE_BRAM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simple dual-port block RAM with its output register: a write port, and a read port whose
// word comes out two cycles after its address (the read register, then the output register).
//
// An ECP5 block RAM's read data leave its read register late in the cycle (some 5.8 ns of the
// 8 at 125 MHz), so they can reach nothing but a flip-flop, and not always one far away; its
// own output register (REGMODE OUTREG) has them out in under 1 ns. Yosys maps only the read
// register, so under ROCENIC_ECP5 the blocks are instantiated here with REGMODE_B OUTREG and
// wired as Yosys wires them (brams_map_16kd.v): 2^AW words of 18 >> (AW - 10) bits a block,
// the word address in the top AW address bits, the 18-bit mode's byte enables (both, for the
// write) in address bits 1:0; enough blocks side by side for WIDTH. Elsewhere the same
// behaviour is plain RTL.
//
// A read of the word written at the same edge gives undefined data on the block RAM (the RTL
// gives the old word): users must not use such a read.
module wqe_bram #(
    parameter int WIDTH = 64,   // bits of a word
    parameter int AW    = 11    // address bits: 2^AW words; 10 to 14 on ECP5 (18, 9, 4, 2, 1 bits a block)
) (
    input  wire              clk,
    input  wire              wr_en,
    input  wire [AW-1:0]     wr_addr,
    input  wire [WIDTH-1:0]  wr_data,
    input  wire [AW-1:0]     rd_addr,
    output logic [WIDTH-1:0] rd_data    // mem[rd_addr] of two cycles before
);

`ifdef ROCENIC_ECP5
    if (AW < 10 || AW > 14) begin : g_bad_depth
        $error("wqe_bram: AW must be 10 to 14 on ECP5");
    end
    localparam int BW     = AW == 11 ? 9 : (18 >> (AW - 10));   // bits a block holds
    localparam int BLOCKS = (WIDTH + BW - 1) / BW;
    localparam int PAD    = BLOCKS * BW - WIDTH;

    localparam logic [13:0] BE = AW == 10 ? 14'b11 : 14'b0;   // write both bytes of 18 bits
    wire [13:0] ada = (14'(wr_addr) << (14 - AW)) | BE;
    wire [13:0] adb = 14'(rd_addr) << (14 - AW);
    wire [BLOCKS*BW-1:0] wd = {{PAD{1'b0}}, wr_data};
    wire [BLOCKS*BW-1:0] rd;
    assign rd_data = rd[WIDTH-1:0];
    if (PAD > 0) begin : g_pad
        wire unused_pad = ^rd[BLOCKS*BW-1:WIDTH];
    end

    for (genvar b = 0; b < BLOCKS; b++) begin : g_block
        wire [17:0] dia = 18'(wd[b*BW +: BW]);
        wire [17:0] dob;
        assign rd[b*BW +: BW] = dob[BW-1:0];
        if (BW < 18) begin : g_unused
            wire unused_dob = ^dob[17:BW];
        end
        /* verilator lint_off PINCONNECTEMPTY */
        DP16KD #(
            .DATA_WIDTH_A(BW), .DATA_WIDTH_B(BW),
            .REGMODE_A("NOREG"), .REGMODE_B("OUTREG"),
            .RESETMODE("SYNC"), .ASYNC_RESET_RELEASE("SYNC"),
            .CSDECODE_A("0b000"), .CSDECODE_B("0b000"),
            .WRITEMODE_A("NORMAL"), .WRITEMODE_B("NORMAL"),
            .GSR("DISABLED")
        ) u_ram (
            .CLKA(clk), .CEA(1'b1), .OCEA(1'b1), .WEA(wr_en), .RSTA(1'b0),
            .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
            .ADA0(ada[0]), .ADA1(ada[1]), .ADA2(ada[2]), .ADA3(ada[3]), .ADA4(ada[4]),
            .ADA5(ada[5]), .ADA6(ada[6]), .ADA7(ada[7]), .ADA8(ada[8]), .ADA9(ada[9]),
            .ADA10(ada[10]), .ADA11(ada[11]), .ADA12(ada[12]), .ADA13(ada[13]),
            .DIA0(dia[0]), .DIA1(dia[1]), .DIA2(dia[2]), .DIA3(dia[3]), .DIA4(dia[4]),
            .DIA5(dia[5]), .DIA6(dia[6]), .DIA7(dia[7]), .DIA8(dia[8]), .DIA9(dia[9]),
            .DIA10(dia[10]), .DIA11(dia[11]), .DIA12(dia[12]), .DIA13(dia[13]),
            .DIA14(dia[14]), .DIA15(dia[15]), .DIA16(dia[16]), .DIA17(dia[17]),
            .DOA0(), .DOA1(), .DOA2(), .DOA3(), .DOA4(), .DOA5(), .DOA6(), .DOA7(), .DOA8(),
            .DOA9(), .DOA10(), .DOA11(), .DOA12(), .DOA13(), .DOA14(), .DOA15(), .DOA16(),
            .DOA17(),
            .CLKB(clk), .CEB(1'b1), .OCEB(1'b1), .WEB(1'b0), .RSTB(1'b0),
            .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),
            .ADB0(adb[0]), .ADB1(adb[1]), .ADB2(adb[2]), .ADB3(adb[3]), .ADB4(adb[4]),
            .ADB5(adb[5]), .ADB6(adb[6]), .ADB7(adb[7]), .ADB8(adb[8]), .ADB9(adb[9]),
            .ADB10(adb[10]), .ADB11(adb[11]), .ADB12(adb[12]), .ADB13(adb[13]),
            .DIB0(1'b0), .DIB1(1'b0), .DIB2(1'b0), .DIB3(1'b0), .DIB4(1'b0), .DIB5(1'b0),
            .DIB6(1'b0), .DIB7(1'b0), .DIB8(1'b0), .DIB9(1'b0), .DIB10(1'b0), .DIB11(1'b0),
            .DIB12(1'b0), .DIB13(1'b0), .DIB14(1'b0), .DIB15(1'b0), .DIB16(1'b0), .DIB17(1'b0),
            .DOB0(dob[0]), .DOB1(dob[1]), .DOB2(dob[2]), .DOB3(dob[3]), .DOB4(dob[4]),
            .DOB5(dob[5]), .DOB6(dob[6]), .DOB7(dob[7]), .DOB8(dob[8]), .DOB9(dob[9]),
            .DOB10(dob[10]), .DOB11(dob[11]), .DOB12(dob[12]), .DOB13(dob[13]),
            .DOB14(dob[14]), .DOB15(dob[15]), .DOB16(dob[16]), .DOB17(dob[17])
        );
        /* verilator lint_on PINCONNECTEMPTY */
    end
`else
    (* no_rw_check *) logic [WIDTH-1:0] mem [2 ** AW];
    logic [WIDTH-1:0] rd1_q;
    always_ff @(posedge clk) begin
        if (wr_en) begin
            mem[wr_addr] <= wr_data;
        end
        rd1_q   <= mem[rd_addr];
        rd_data <= rd1_q;
    end
`endif

endmodule

`resetall

`endif  // ROCENIC_WQE_BRAM_SV
