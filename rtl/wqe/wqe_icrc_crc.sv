// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_ICRC_CRC_SV
`define ROCENIC_WQE_ICRC_CRC_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The CRC half of wqe_icrc: the ICRC of each frame from its beats, DATA_BYTES bytes a clock,
// with a sideband carried alongside so that the frame's last beat and its ICRC come out together.
//
// The beats come in already masked (wqe_icrc does it): the bytes before the IP header are zero,
// the ICRC's variant fields are all ones, and the lanes after a last beat's bytes are zero. What
// that leaves to fix is where the CRC starts and where it ends, and both are done without a
// per-lane choice inside the loop (docs/reference.md §3; docs/wqe-icrc.md, "ICRC stage"):
//
//   start  A zero byte moves the CRC register by a fixed invertible step, so a frame whose L2
//          header is zeroed hashes as if it began at the IP header, provided the register
//          starts at PREFIX stepped back over 14 (or 18, tagged) zero bytes. That start is a
//          constant per case, so its image after the first beat is one too, and it joins the
//          first beat's data term before the loop.
//   end    A last beat of n bytes is hashed as a whole beat whose k = DATA_BYTES - n high lanes
//          are zero, which leaves the register k zero-byte steps too far. The steps are undone
//          after the loop, in one stage per bit of k (k bytes back = the product of the stages
//          for 1, 2, 4, ... bytes whose bit is set), each a fixed 32x32 XOR matrix or a pass.
//
// So the recurrence never sees a lane count: per beat it is
//   state' = (first ? 0 : A * state) ^ T * beat ^ (first ? A * start : 0)
// where T is the beat's linear image under DATA_BYTES bytes of CRC steps and A the same steps
// from the register. A equals T restricted to the beat's first 32 bits (the register acts as
// if XORed into the first 32 bits of input), so one table of rows serves both. Pipeline:
//
//   C  T * beat, one partial per 64-bit chunk (each output bit an XOR of about 32 bits), with
//      the first beat's start term folded into chunk 0
//   D  the register: each bit the XOR of about 16 register bits (none on a first beat) and
//      the chunk partials, the only loop
//   E  log2(DATA_BYTES) stages that step the last beat's register back over its empty lanes,
//      then the final inversion at the output
//
// All matrices are computed at elaboration from the polynomial (constant functions below), so
// synthesis sees each output bit as one XOR over a constant selection of inputs.
//
// A stall-all pipeline: every register moves on adv and nothing else, so an input on adv comes
// out LATENCY advances later whatever the bubbles in between.
module wqe_icrc_crc #(
    parameter  int DATA_BYTES = 8,                    // Bytes per beat: a power of two, 8 or more
    parameter  int SIDE_W     = 1,                    // Sideband bits carried with each beat
    localparam int N          = DATA_BYTES * 8,
    localparam int KW         = $clog2(DATA_BYTES),   // width of the empty-lane count k
    localparam int CHUNKS     = DATA_BYTES / 8,       // 64-bit chunks of the data term
    localparam int LATENCY    = 2 + KW                // C, D and the E stages
) (
    input  wire               clk,
    input  wire               rst,        // synchronous, active high
    input  wire               adv,        // the pipeline moves
    // beats in
    input  wire               in_valid,
    input  wire               in_first,   // first beat of a frame
    input  wire               in_last,    // last beat of a frame
    input  wire               in_vlan,    // the frame's IP header starts at byte 18, else 14
    input  wire  [N-1:0]      in_data,    // masked beat, byte lane i in bits [8i +: 8]
    input  wire  [KW-1:0]     in_empty,   // last beat: lanes without frame bytes (k)
    input  wire  [SIDE_W-1:0] in_side,
    // the same beats LATENCY advances later, the ICRC with the last
    output logic              out_valid,
    output logic              out_last,
    output logic [31:0]       out_icrc,   // the ICRC (as the CRC reads it: byte 0 in [7:0])
    output logic [SIDE_W-1:0] out_side
);

    if (DATA_BYTES < 8 || (DATA_BYTES & (DATA_BYTES - 1)) != 0) begin : g_bad_width
        $error("wqe_icrc_crc: DATA_BYTES must be a power of two, 8 or more");
    end

    localparam logic [31:0] POLY   = 32'hEDB8_8320;   // CRC-32 (IEEE 802.3), reflected
    localparam logic [31:0] PREFIX = 32'hDEBB_20E3;   // register after 8 bytes of 0xFF (§3)

    // The register after `bits` steps with zero input bits, or before them (back): a step
    // shifts right and adds POLY when the bit shifted out was one, and POLY's top bit tells
    // afterwards whether it did, so each step can be undone.
    function automatic logic [31:0] steps(input logic [31:0] s, input int bits, input bit back);
        steps = s;
        for (int i = 0; i < bits; i++) begin
            if (back) begin
                steps = steps[31] ? {steps[30:0] ^ POLY[30:0], 1'b1} : {steps[30:0], 1'b0};
            end else begin
                steps = steps[0] ? ({1'b0, steps[31:1]} ^ POLY) : {1'b0, steps[31:1]};
            end
        end
    endfunction

    // Row o of T: which input bits of a beat reach register bit o. Input bit i (byte i/8, bit
    // i%8: the CRC's own order) enters as POLY and then takes N-1-i zero steps.
    function automatic logic [N-1:0] beat_row(input logic [4:0] o);
        logic [31:0] c;
        c = POLY;
        for (int i = N - 1; i >= 0; i--) begin
            beat_row[i] = c[o];
            c = steps(c, 1, 1'b0);
        end
    endfunction

    // The columns of `bits` steps back (column m: the image of register bit m).
    function automatic logic [32*32-1:0] back_cols(input int bits);
        for (int m = 0; m < 32; m++) begin
            back_cols[32*m +: 32] = steps(32'd1 << m, bits, 1'b1);
        end
    endfunction

    function automatic logic [31:0] row_of(input logic [32*32-1:0] cols, input int o);
        for (int m = 0; m < 32; m++) begin
            row_of[m] = cols[32*m + o];
        end
    endfunction

    // A * start for each start: the register after the first beat's zero L2 bytes is PREFIX.
    localparam logic [31:0] FIRST_14 = steps(steps(PREFIX, 8 * 14, 1'b1), N, 1'b0);
    localparam logic [31:0] FIRST_18 = steps(steps(PREFIX, 8 * 18, 1'b1), N, 1'b0);

    // ------------------------------------------------------------------------------------------
    // C: the data term; D: the register.
    logic [CHUNKS-1:0][31:0] c_part_d;
    logic [CHUNKS-1:0][31:0] c_part_q;
    logic          c_first_q;
    logic [KW-1:0] c_empty_q;
    logic [31:0]   c_sum;           // the chunks' partials together
    logic [31:0]   state_q;
    logic [31:0]   state_d;

    always_comb begin
        c_sum = '0;
        for (int c = 0; c < CHUNKS; c++) begin
            c_sum = c_sum ^ c_part_q[c];
        end
    end

    for (genvar o = 0; o < 32; o++) begin : g_row
        localparam logic [N-1:0] ROW = beat_row(5'(o));
        for (genvar c = 0; c < CHUNKS; c++) begin : g_chunk
            if (c == 0) begin : g_start
                wire start = in_first && (in_vlan ? FIRST_18[o] : FIRST_14[o]);
                assign c_part_d[c][o] = ^(in_data[64*c +: 64] & ROW[64*c +: 64]) ^ start;
            end else begin : g_rest
                assign c_part_d[c][o] = ^(in_data[64*c +: 64] & ROW[64*c +: 64]);
            end
        end
        // A * state from the rows' first 32 bits.
        assign state_d[o] = (!c_first_q && ^(state_q & ROW[31:0])) ^ c_sum[o];
    end

    // ------------------------------------------------------------------------------------------
    // E: k bytes back, one stage per bit of k; stage j reads e_in[j] and its bit j of k.
    logic [KW-1:0][31:0]   e_in;
    logic [KW-1:0][KW-1:0] e_empty_q;
    logic [KW-1:0][31:0]   e_back;
    logic [KW-1:0][31:0]   e_q;

    for (genvar j = 0; j < KW; j++) begin : g_back
        localparam logic [32*32-1:0] COLS = back_cols(8 << j);
        if (j == 0) begin : g_reg
            assign e_in[j] = state_q;
        end else begin : g_prev
            assign e_in[j] = e_q[j-1];
        end
        for (genvar o = 0; o < 32; o++) begin : g_bit
            localparam logic [31:0] ROW = row_of(COLS, o);
            assign e_back[j][o] = ^(e_in[j] & ROW);
        end
    end

    // ------------------------------------------------------------------------------------------
    // Registers: the CRC path, and valid / last / sideband in step with it.
    logic [LATENCY-1:0]             v_q;
    logic [LATENCY-1:0]             last_q;
    logic [LATENCY-1:0][SIDE_W-1:0] side_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            for (int s = 0; s < LATENCY; s++) begin
                v_q[s] <= 1'b0;
            end
        end else if (adv) begin
            v_q[0] <= in_valid;
            for (int s = 1; s < LATENCY; s++) begin
                v_q[s] <= v_q[s-1];
            end
        end
    end

    // Data registers carry no reset and load on every advance, bubbles too: each only matters
    // while its valid is set, and the enable stays the advance alone.
    always_ff @(posedge clk) begin
        if (adv) begin
            last_q[0] <= in_last;
            side_q[0] <= in_side;
            for (int s = 1; s < LATENCY; s++) begin
                last_q[s] <= last_q[s-1];
                side_q[s] <= side_q[s-1];
            end
            c_part_q  <= c_part_d;
            c_first_q <= in_first;
            c_empty_q <= in_empty;
            // The register holds across bubbles; after a last beat it holds that frame's value
            // until the next first beat, and E reads it on that same advance.
            if (v_q[0]) begin
                state_q <= state_d;
            end
            e_empty_q[0] <= c_empty_q;
            for (int j = 0; j < KW; j++) begin
                e_q[j] <= e_empty_q[j][j] ? e_back[j] : e_in[j];
            end
            for (int j = 1; j < KW; j++) begin
                e_empty_q[j] <= e_empty_q[j-1];
            end
        end
    end

    assign out_valid = v_q[LATENCY-1];
    assign out_last  = last_q[LATENCY-1];
    assign out_side  = side_q[LATENCY-1];
    assign out_icrc  = ~e_q[KW-1];

endmodule

`resetall

`endif  // ROCENIC_WQE_ICRC_CRC_SV
