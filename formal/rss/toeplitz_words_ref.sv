// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal-only: the Toeplitz and XOR hashes grouped per 32-bit input word, the way
// rtl/rss/rss_hash_core.sv groups them: for word g and hash bit 31-j, the XOR of the word's 32
// AND terms with the key bits 32g+j .. 32g+j+31; the hash is the XOR of the word partials.
//
// Why a second reference: no solver here shows two differently grouped XOR trees equal once
// they sit in different clock cycles of a pipeline. So the proof is cut in two
// (formal/rss/rss_hash.sby): combinationally, with ABC's SAT sweeping, this form equals the per-byte
// one (formal/rss/toeplitz_bytes_ref.sv); sequentially, the unit's results equal this form applied
// to its own stage 1 and key registers, where it is the RTL's logic gate for gate.
module toeplitz_words_ref #(
    parameter  int MAX_INPUT = 12,             // Input bytes
    localparam int KEY_BYTES = MAX_INPUT + 4,  // Key bytes
    localparam int LEN_W     = $clog2(MAX_INPUT + 1)
) (
    input  wire [KEY_BYTES*8-1:0] key,         // byte 0 in the top byte
    input  wire [MAX_INPUT*8-1:0] data,        // byte 0 in the top byte
    input  wire [LEN_W-1:0]       len,         // bytes at or past len count as 0
    input  wire                   use_xor,
    output logic [31:0]           hash,
    output logic [MAX_INPUT*8-1:0] kept        // data with the bytes at or past len cleared
);

    localparam int WORDS = (MAX_INPUT + 3) / 4;

    // Data and key padded at the bottom to whole words (zeros add nothing). The key's last bit
    // lies in no window (the last input bit's window ends one bit before it), so it is dropped.
    logic [WORDS*32-1:0]    padded;
    logic [WORDS*32+30:0]   key_pad;
    logic [WORDS*32-1:0]    part;
    logic [31:0]            toeplitz;
    logic [31:0]            xor_words;

    always_comb begin
        padded = '0;
        for (int p = 0; p < MAX_INPUT; p++) begin
            padded[WORDS*32-1-8*p -: 8] = (p < int'(len)) ? data[MAX_INPUT*8-1-8*p -: 8] : 8'd0;
        end
        kept = padded[WORDS*32-1 -: MAX_INPUT*8];
        key_pad = '0;
        key_pad[WORDS*32+30 -: KEY_BYTES*8-1] = key[KEY_BYTES*8-1:1];
        for (int g = 0; g < WORDS; g++) begin
            for (int j = 0; j < 32; j++) begin
                // Input bits t = 32g .. 32g+31 (MSB first) against key bits t+j.
                part[32*g+31-j] = ^(padded[WORDS*32-1-32*g -: 32]
                                    & key_pad[WORDS*32+30-32*g-j -: 32]);
            end
        end
        toeplitz  = '0;
        xor_words = '0;
        for (int g = 0; g < WORDS; g++) begin
            toeplitz  = toeplitz ^ part[32*g +: 32];
            xor_words = xor_words ^ padded[WORDS*32-1-32*g -: 32];
        end
        hash = use_xor ? xor_words : toeplitz;
    end

endmodule

`resetall
