// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal-only: the Toeplitz and XOR hashes of rtl/rss/rss_hash.sv, combinationally and grouped
// per input byte instead of per 32-bit word. For byte p, the 8 windows of its bits are the key
// bits 8p .. 8p+38; the hash is the XOR over bytes of each byte's 8 AND-XOR terms. Written from
// docs/reference.md §2 independently of the RTL's grouping; the bit-serial definition itself is
// checked in simulation (sim/tests/rss_hash.rs), since its form is too slow for the solvers.
module toeplitz_bytes_ref #(
    parameter  int MAX_INPUT = 12,             // Input bytes
    localparam int KEY_BYTES = MAX_INPUT + 4,  // Key bytes
    localparam int LEN_W     = $clog2(MAX_INPUT + 1)
) (
    input  wire [KEY_BYTES*8-1:0] key,         // byte 0 in the top byte
    input  wire [MAX_INPUT*8-1:0] data,        // byte 0 in the top byte
    input  wire [LEN_W-1:0]       len,         // bytes at or past len count as 0
    input  wire                   use_xor,
    output logic [31:0]           hash
);

    localparam int WORDS = (MAX_INPUT + 3) / 4;

    logic [7:0]  b;
    logic [31:0] window;
    logic [31:0] toeplitz;
    logic [31:0] xor_words;
    logic [WORDS*32-1:0] padded;

    always_comb begin
        toeplitz = '0;
        padded   = '0;
        for (int p = 0; p < MAX_INPUT; p++) begin
            b = (p < int'(len)) ? data[MAX_INPUT*8-1-8*p -: 8] : 8'd0;
            padded[WORDS*32-1-8*p -: 8] = b;
            for (int i = 0; i < 8; i++) begin
                // Input bit 8p+i (MSB first) selects the key window starting at key bit 8p+i.
                window = key[KEY_BYTES*8-1-(8*p+i) -: 32];
                if (b[7-i]) toeplitz = toeplitz ^ window;
            end
        end
        xor_words = '0;
        for (int w = 0; w < WORDS; w++) begin
            xor_words = xor_words ^ padded[WORDS*32-1-32*w -: 32];
        end
        hash = use_xor ? xor_words : toeplitz;
    end

endmodule

`resetall
