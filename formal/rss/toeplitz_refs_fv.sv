// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The combinational half of the rss_hash equivalence (`make formal-toeplitz`, fpga.mk):
// `differ` is low for every key, data, length and hash kind exactly when the per-word form,
// applied as formal/rss/rss_hash_fv.sv applies it (to the request with the bytes past its length
// cleared by one instance, hashed at full length by another), equals the per-byte reference.
// Proved by Yosys's `sat` after ABC's SAT sweeping has merged the equal internal points of the
// two XOR groupings (the running sum after each word); plain SAT on this miter never finishes.
module toeplitz_refs_fv #(
    parameter  int MAX_INPUT = 12,             // Input bytes
    localparam int KEY_BYTES = MAX_INPUT + 4,
    localparam int LEN_W     = $clog2(MAX_INPUT + 1)
) (
    input  wire [KEY_BYTES*8-1:0] key,
    input  wire [MAX_INPUT*8-1:0] data,
    input  wire [LEN_W-1:0]       len,         // any value: above MAX_INPUT acts as MAX_INPUT
    input  wire                   use_xor,
    output wire                   differ
);

    wire [31:0]            by_bytes;
    wire [31:0]            by_words;
    wire [MAX_INPUT*8-1:0] kept;

    toeplitz_bytes_ref #(
        .MAX_INPUT(MAX_INPUT)
    ) u_bytes (
        .key    (key),
        .data   (data),
        .len    (len),
        .use_xor(use_xor),
        .hash   (by_bytes)
    );

    // The same two instances as in formal/rss/rss_hash_fv.sv, with the same constant inputs; the
    // harness has only the key bits the unit stores, so the last one is 0 here too.
    toeplitz_words_ref #(
        .MAX_INPUT(MAX_INPUT)
    ) u_trim (
        .key    ('0),
        .data   (data),
        .len    (len),
        .use_xor(1'b1),
        .hash   (),
        .kept   (kept)
    );
    toeplitz_words_ref #(
        .MAX_INPUT(MAX_INPUT)
    ) u_words (
        .key    ({key[KEY_BYTES*8-1:1], 1'b0}),
        .data   (kept),
        .len    (LEN_W'(MAX_INPUT)),
        .use_xor(use_xor),
        .hash   (by_words),
        .kept   ()
    );

    assign differ = by_bytes != by_words;

endmodule

`resetall
