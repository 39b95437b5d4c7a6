// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_HASH_CORE_SV
`define ROCENIC_RSS_HASH_CORE_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The Toeplitz/XOR datapath that rss_hash and rss_pipeline share: two register stages on one
// clock enable, the result's last XOR level left combinational for the caller to register.
//
// Bit-exact with model/src/toeplitz.rs for a key of MAX_INPUT + 4 bytes and an input of in_len
// bytes (bytes of in_data past in_len are ignored):
//   in_xor 0: hash_bitserial(key, &data[..len]): for every input bit, MSB of byte 0 first, a set
//             bit XORs in the 32-bit key window that starts at that bit's position.
//   in_xor 1: hash_xor(&data[..len]): the input as 32-bit big-endian words, the last one
//             zero-padded, XORed together. The key is not used.
// Byte 0 of the key and of the input sits in the top byte of key/in_data. An in_len above
// MAX_INPUT acts as MAX_INPUT.
//
// Stages (each loads when en is high):
//   1  the request, with the bytes at or past in_len cleared
//   2  Toeplitz is linear: hash = XOR over input bits i of (bit i ? window(i) : 0). For each
//      32-bit input word and each hash bit, the XOR of that word's 32 AND terms (64 inputs,
//      three LUT4 levels) is registered: one 32-bit partial hash per word. The key is read here,
//      from `key`, for the request in stage 1 (s1_tag tells the caller which one that is).
//   out_hash: XOR of the partial hashes, or the XOR hash (combinational from stage 2).
module rss_hash_core #(
    parameter  int MAX_INPUT = 48,                     // Longest hash input in bytes
    parameter  int TAG_W     = 16,                     // Opaque tag carried with a request
    localparam int KEY_BYTES = MAX_INPUT + 4,          // Key length in bytes
    localparam int LEN_W     = $clog2(MAX_INPUT + 1)   // Width of in_len in bits
) (
    input  wire                   clk,
    input  wire                   rst,          // synchronous, active high
    input  wire                   en,           // every stage moves one step
    input  wire                   in_valid,
    input  wire [MAX_INPUT*8-1:0] in_data,      // byte 0 in bits [MAX_INPUT*8-1 -: 8]
    input  wire [LEN_W-1:0]       in_len,       // input length in bytes, 0..MAX_INPUT
    input  wire                   in_xor,       // 0 = Toeplitz with the key, 1 = XOR hash
    input  wire [TAG_W-1:0]       in_tag,
    output logic                  s1_valid,     // stage 1 holds a request...
    output logic [TAG_W-1:0]      s1_tag,       // ...with this tag: `key` must be its key
    // The key minus its last bit, which lies in no window (the last input bit's window ends one
    // bit before it).
    input  wire [KEY_BYTES*8-2:0] key,
    output logic                  out_valid,
    output logic [31:0]           out_hash,     // combinational from the stage 2 registers
    output logic [TAG_W-1:0]      out_tag
);

    if (MAX_INPUT < 1) begin : g_bad_max_input
        // No %m: Verilator 5.006 cannot print a scope name at elaboration time.
        $error("rss_hash_core: MAX_INPUT must be at least 1 byte, got %0d", MAX_INPUT);
    end

    localparam int DATA_BITS = MAX_INPUT * 8;
    localparam int KEY_BITS  = KEY_BYTES * 8;
    // The input as 32-bit words, the last one zero-padded; the Toeplitz sum is split per word.
    localparam int WORDS     = (MAX_INPUT + 3) / 4;
    localparam int PAD_BITS  = WORDS * 32;

    // ------------------------------------------------------------------------------------------
    // Stage 1: the request, registered, with the bytes past the length cleared.

    // len > c for a constant c, spelled as gates (a comparison operator would become a carry
    // chain on ECP5): from the LSB up, len[b:0] > c[b:0] is len[b] | (len[b-1:0] > c[b-1:0])
    // where c[b] is 0, and len[b] & (len[b-1:0] > c[b-1:0]) where c[b] is 1.
    function automatic logic len_above(input logic [LEN_W-1:0] len, input int c);
        len_above = 1'b0;
        for (int b = 0; b < LEN_W; b++) begin
            len_above = c[b] ? (len[b] & len_above) : (len[b] | len_above);
        end
    endfunction

    logic [DATA_BITS-1:0] len_mask;
    for (genvar p = 0; p < MAX_INPUT; p++) begin : g_len_mask
        assign len_mask[DATA_BITS-1-8*p -: 8] = {8{len_above(in_len, p)}};
    end

    logic [DATA_BITS-1:0] s1_data_q;
    logic                 s1_xor_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_valid <= 1'b0;
        end else if (en) begin
            s1_valid <= in_valid;
        end
    end

    always_ff @(posedge clk) begin
        if (en) begin
            s1_data_q <= in_data & len_mask;
            s1_xor_q  <= in_xor;
            s1_tag    <= in_tag;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 2: per-word partial Toeplitz sums and the XOR hash.

    // Data and key padded at the bottom to whole words; the padding is zero, so it adds nothing.
    // Bit position t (0 = MSB of byte 0) is data_pad[PAD_BITS-1-t] and key_pad[PAD_BITS+30-t]:
    // the last window, of input bit PAD_BITS-1, covers key bits PAD_BITS-1 .. PAD_BITS+30.
    logic [PAD_BITS-1:0]  data_pad;
    logic [PAD_BITS+30:0] key_pad;
    always_comb begin
        data_pad                            = '0;
        data_pad[PAD_BITS-1 -: DATA_BITS]   = s1_data_q;
        key_pad                             = '0;
        key_pad[PAD_BITS+30 -: KEY_BITS-1]  = key;
    end

    // Hash bit 31-j is the XOR over input bits t of bit(t) & key bit t+j. For word g, the 32
    // input bits t = 32g..32g+31 and the key bits t+j are two aligned 32-bit slices.
    logic [WORDS*32-1:0] part;
    for (genvar g = 0; g < WORDS; g++) begin : g_word
        for (genvar j = 0; j < 32; j++) begin : g_bit
            assign part[32*g+31-j] = ^(data_pad[PAD_BITS-1-32*g -: 32]
                                       & key_pad[PAD_BITS+30-32*g-j -: 32]);
        end
    end

    logic [31:0] xor_hash;
    always_comb begin
        xor_hash = '0;
        for (int g = 0; g < WORDS; g++) begin
            xor_hash = xor_hash ^ data_pad[PAD_BITS-1-32*g -: 32];
        end
    end

    logic                s2_xor_q;
    logic [WORDS*32-1:0] s2_part_q;
    logic [31:0]         s2_xor_hash_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
        end else if (en) begin
            out_valid <= s1_valid;
        end
    end

    always_ff @(posedge clk) begin
        if (en) begin
            s2_xor_q      <= s1_xor_q;
            out_tag       <= s1_tag;
            s2_part_q     <= part;
            s2_xor_hash_q <= xor_hash;
        end
    end

    // ------------------------------------------------------------------------------------------
    // The last level: XOR of the WORDS partial hashes, or the XOR hash.
    logic [31:0] toeplitz_hash;
    always_comb begin
        toeplitz_hash = '0;
        for (int g = 0; g < WORDS; g++) begin
            toeplitz_hash = toeplitz_hash ^ s2_part_q[32*g +: 32];
        end
    end

    assign out_hash = s2_xor_q ? s2_xor_hash_q : toeplitz_hash;

endmodule

`resetall

`endif  // ROCENIC_RSS_HASH_CORE_SV
