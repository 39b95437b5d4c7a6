// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_RAM_SV
`define ROCENIC_RX_RAM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive path's table store: simple dual-port block RAM of COLS columns of 36 bits, a write
// enable per column, and a read port registered twice: a read with re set presents mem[raddr] on
// rdata two clock edges later (rdata follows every cycle, so a read without a following one
// stays on rdata). Reading an address in the clock it is written returns either word: the tables
// never do, so the memories carry no_rw_check.
//
// Why not wqe_ctx_ram, the send side's (one register): block RAM read data leaves an ECP5 EBR
// about 5.8 ns after the clock unless the EBR's own output register holds it, and Yosys never
// moves a following flip-flop into it; with six EBRs the fabric register after each did not
// reliably fit in the 2.2 ns left at 125 MHz (it was placed up to 19 rows away). So, as
// mul_reg does for the DSP, define ROCENIC_ECP5 (the FPGA flow does, for every ECP5 build) to
// instantiate DP16KD in its 36-bit pseudo dual-port form (the form Yosys maps PDPW16KD to) with
// its output registers; without it, or past 512 words, the RAM is plain RTL with the same cycle
// behaviour. The ECP5 form follows Lattice's EBR documentation: port A writes (CEA the write
// enable, ADA3:0 the byte enables, ADA13:5 the word), port B reads (CEB the read enable, ADB13:5
// the word) the low 18 bits onto DOA and the high 18 onto DOB, through the output registers
// (REGMODE OUTREG, OCE high: they load every cycle).
module rx_ram #(
    parameter  int COLS  = 3,            // 36-bit columns per word
    parameter  int DEPTH = 256,          // words, a power of two, at least 2
    localparam int AW    = $clog2(DEPTH) // address width
) (
    input  wire                 clk,
    // write port
    input  wire [COLS-1:0]      we,
    input  wire [AW-1:0]        waddr,
    input  wire [36*COLS-1:0]   wdata,
    // read port
    input  wire                 re,
    input  wire [AW-1:0]        raddr,
    output logic [36*COLS-1:0]  rdata
);

    if (DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
        $error("rx_ram: DEPTH must be a power of two, at least 2, got %0d", DEPTH);
    end

`ifdef ROCENIC_ECP5
    localparam bit EBR = DEPTH <= 512;
`else
    localparam bit EBR = 1'b0;
`endif

    for (genvar c = 0; c < COLS; c++) begin : g_col
        wire [35:0] di = wdata[36*c +: 36];
        wire [35:0] dout;
        assign rdata[36*c +: 36] = dout;
        if (EBR) begin : g_ebr
            wire [8:0] wa = 9'(waddr);
            wire [8:0] ra = 9'(raddr);
            DP16KD #(
                .DATA_WIDTH_A       (36),
                .DATA_WIDTH_B       (36),
                .REGMODE_A          ("OUTREG"),
                .REGMODE_B          ("OUTREG"),
                .RESETMODE          ("SYNC"),
                .ASYNC_RESET_RELEASE("SYNC"),
                .CSDECODE_A         ("0b000"),
                .CSDECODE_B         ("0b000"),
                .WRITEMODE_A        ("NORMAL"),
                .WRITEMODE_B        ("NORMAL"),
                .GSR                ("DISABLED")
            ) u_ebr (
                .CLKA(clk), .CEA(we[c]), .OCEA(1'b1), .WEA(1'b1), .RSTA(1'b0),
                .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
                .ADA0(1'b1), .ADA1(1'b1), .ADA2(1'b1), .ADA3(1'b1), .ADA4(1'b0),
                .ADA5(wa[0]), .ADA6(wa[1]), .ADA7(wa[2]), .ADA8(wa[3]), .ADA9(wa[4]),
                .ADA10(wa[5]), .ADA11(wa[6]), .ADA12(wa[7]), .ADA13(wa[8]),
                .DIA0(di[0]), .DIA1(di[1]), .DIA2(di[2]), .DIA3(di[3]), .DIA4(di[4]),
                .DIA5(di[5]), .DIA6(di[6]), .DIA7(di[7]), .DIA8(di[8]), .DIA9(di[9]),
                .DIA10(di[10]), .DIA11(di[11]), .DIA12(di[12]), .DIA13(di[13]),
                .DIA14(di[14]), .DIA15(di[15]), .DIA16(di[16]), .DIA17(di[17]),
                .DIB0(di[18]), .DIB1(di[19]), .DIB2(di[20]), .DIB3(di[21]), .DIB4(di[22]),
                .DIB5(di[23]), .DIB6(di[24]), .DIB7(di[25]), .DIB8(di[26]), .DIB9(di[27]),
                .DIB10(di[28]), .DIB11(di[29]), .DIB12(di[30]), .DIB13(di[31]),
                .DIB14(di[32]), .DIB15(di[33]), .DIB16(di[34]), .DIB17(di[35]),
                .CLKB(clk), .CEB(re), .OCEB(1'b1), .WEB(1'b0), .RSTB(1'b0),
                .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),
                .ADB0(1'b0), .ADB1(1'b0), .ADB2(1'b0), .ADB3(1'b0), .ADB4(1'b0),
                .ADB5(ra[0]), .ADB6(ra[1]), .ADB7(ra[2]), .ADB8(ra[3]), .ADB9(ra[4]),
                .ADB10(ra[5]), .ADB11(ra[6]), .ADB12(ra[7]), .ADB13(ra[8]),
                .DOA0(dout[0]), .DOA1(dout[1]), .DOA2(dout[2]), .DOA3(dout[3]),
                .DOA4(dout[4]), .DOA5(dout[5]), .DOA6(dout[6]), .DOA7(dout[7]),
                .DOA8(dout[8]), .DOA9(dout[9]), .DOA10(dout[10]), .DOA11(dout[11]),
                .DOA12(dout[12]), .DOA13(dout[13]), .DOA14(dout[14]), .DOA15(dout[15]),
                .DOA16(dout[16]), .DOA17(dout[17]),
                .DOB0(dout[18]), .DOB1(dout[19]), .DOB2(dout[20]), .DOB3(dout[21]),
                .DOB4(dout[22]), .DOB5(dout[23]), .DOB6(dout[24]), .DOB7(dout[25]),
                .DOB8(dout[26]), .DOB9(dout[27]), .DOB10(dout[28]), .DOB11(dout[29]),
                .DOB12(dout[30]), .DOB13(dout[31]), .DOB14(dout[32]), .DOB15(dout[33]),
                .DOB16(dout[34]), .DOB17(dout[35])
            );
        end else begin : g_rtl
            (* no_rw_check *) logic [35:0] mem [DEPTH];
            logic [35:0] r1_q, r2_q;
            always_ff @(posedge clk) begin
                if (we[c]) begin
                    mem[waddr] <= di;
                end
                if (re) begin
                    r1_q <= mem[raddr];
                end
                r2_q <= r1_q;
            end
            assign dout = r2_q;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RX_RAM_SV
