// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_HASH_SV
`define ROCENIC_RSS_HASH_SV
`include "rtl/rss/rss_hash_core.sv"
`include "rtl/common/skid_buffer.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// RSS hash unit: one Toeplitz or XOR hash per clock (docs/reference.md §2).
//
// Bit-exact with model/src/toeplitz.rs for a key of MAX_INPUT + 4 bytes and an input of s_req_len
// bytes (bytes of s_req_data past s_req_len are ignored):
//   s_req_xor 0: hash_bitserial(key, &data[..len]): for every input bit, MSB of byte 0 first, a
//                set bit XORs in the 32-bit key window that starts at that bit's position.
//   s_req_xor 1: hash_xor(&data[..len]): the input as 32-bit big-endian words, the last one
//                zero-padded, XORed together. The key is not used.
// Byte 0 of the key and of the input sits in the top byte of s_key and s_req_data. An s_req_len
// above MAX_INPUT acts as MAX_INPUT.
//
// Timing: LATENCY = 3. A request accepted in clock cycle c (s_req_valid && s_req_ready high at
// the rising edge that ends cycle c) has its result on m_res_* in cycle c + 3 when m_res_ready
// has been high; one request per clock is accepted while the sink keeps up.
//
// Pipeline (every stage register loads on the one clock enable `adv`; stages 1 and 2 are
// rss_hash_core, which rss_pipeline shares):
//   1  request registered, bytes at or past s_req_len cleared on the way in
//   2  Toeplitz is linear: hash = XOR over input bits i of (bit i ? window(i) : 0). For each
//      32-bit input word and each hash bit, the XOR of that word's 32 AND terms (64 inputs,
//      three LUT4 levels) is registered: one 32-bit partial hash per word, WORDS = 9 of them for
//      MAX_INPUT = 36, 12 for 48. The XOR hash of the words is registered alongside.
//   3  (output register of the skid buffer) XOR of the WORDS partial hashes, XOR/Toeplitz choice
//
// Key update: the key register is written by the s_key handshake and read only by the stage 1 ->
// stage 2 logic, so a request takes its key as it leaves stage 1. A request accepted in the
// same cycle as a key handshake, or later, is hashed with the new key; a request accepted in an
// earlier cycle with the key that was current when it was accepted. No request ever sees a mix.
// To keep that exact, s_key_ready is low while stage 1 holds a request that is not moving on at
// this clock (s_key_ready = adv || !s1_valid_q: one gate on two flip-flops, no path from any
// input); while the sink keeps up the key is taken at once. The key register has no reset: it
// keeps its value through rst (a key written during reset is kept), and is undefined until the
// first write after power-up.
//
// Back-pressure: a stall-all pipeline in front of a skid buffer. `adv` is the skid buffer's
// registered s_ready; when it is low every stage holds, and when it is high every stage moves
// one step and stage 2 is offered to the skid buffer, which is guaranteed to take it. So
// s_req_ready is a flip-flop, m_res_valid is a flip-flop, and nothing is lost or duplicated.
module rss_hash #(
    parameter  int MAX_INPUT = 48,            // Longest hash input in bytes (key length - 4)
    localparam int KEY_BYTES = MAX_INPUT + 4, // Key length in bytes
    localparam int LEN_W     = $clog2(MAX_INPUT + 1)  // Width of s_req_len in bits
) (
    input  wire                   clk,
    input  wire                   rst,          // synchronous, active high
    // key: byte 0 (first key byte, MSB-first bit order) in bits [KEY_BYTES*8-1 -: 8]
    input  wire                   s_key_valid,
    output wire                   s_key_ready,
    input  wire [KEY_BYTES*8-1:0] s_key,
    // request stream
    input  wire                   s_req_valid,
    output wire                   s_req_ready,
    input  wire [MAX_INPUT*8-1:0] s_req_data,   // byte 0 in bits [MAX_INPUT*8-1 -: 8]
    input  wire [LEN_W-1:0]       s_req_len,    // input length in bytes, 0..MAX_INPUT
    input  wire                   s_req_xor,    // 0 = Toeplitz with the key, 1 = XOR hash
    input  wire [15:0]            s_req_tag,    // opaque, returned with the result
    // result stream
    output wire                   m_res_valid,
    input  wire                   m_res_ready,
    output wire [31:0]            m_res_hash,
    output wire [15:0]            m_res_tag
);

    if (MAX_INPUT < 1) begin : g_bad_max_input
        // No %m: Verilator 5.006 cannot print a scope name at elaboration time.
        $error("rss_hash: MAX_INPUT must be at least 1 byte, got %0d", MAX_INPUT);
    end

    // Cycles from acceptance of a request to its result (see the header); fixed by construction.
    // No logic reads it: it documents the pipeline and is public so a Verilator harness can
    // read it, hence the one-line waiver.
    /* verilator lint_off UNUSEDPARAM */
    localparam int LATENCY /*verilator public*/ = 3;
    /* verilator lint_on UNUSEDPARAM */

    localparam int KEY_BITS = KEY_BYTES * 8;

    // One clock enable for the whole pipeline: the skid buffer's registered s_ready.
    wire adv;

    // ------------------------------------------------------------------------------------------
    // Key register. Each bit feeds the AND gates of up to 32 windows directly from a flip-flop.
    // The last key bit lies in no window, so it is not stored.
    logic [KEY_BITS-2:0] key_q;
    logic                s1_valid;

    assign s_key_ready = adv || !s1_valid;

    always_ff @(posedge clk) begin
        if (s_key_valid && s_key_ready) begin
            key_q <= s_key[KEY_BITS-1:1];
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stages 1 and 2, and the last XOR level.
    logic        s2_valid;
    logic [31:0] res_hash;
    logic [15:0] res_tag;

    rss_hash_core #(
        .MAX_INPUT(MAX_INPUT),
        .TAG_W    (16)
    ) u_core (
        .clk      (clk),
        .rst      (rst),
        .en       (adv),
        .in_valid (s_req_valid),
        .in_data  (s_req_data),
        .in_len   (s_req_len),
        .in_xor   (s_req_xor),
        .in_tag   (s_req_tag),
        .s1_valid (s1_valid),
        /* verilator lint_off PINCONNECTEMPTY */
        .s1_tag   (),
        /* verilator lint_on PINCONNECTEMPTY */
        .key      (key_q),
        .out_valid(s2_valid),
        .out_hash (res_hash),
        .out_tag  (res_tag)
    );

    // ------------------------------------------------------------------------------------------
    // Stage 3: the skid buffer's output register.
    skid_buffer #(
        .WIDTH(48)
    ) u_out (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s2_valid),
        .s_ready(adv),
        .s_data ({res_hash, res_tag}),
        .m_valid(m_res_valid),
        .m_ready(m_res_ready),
        .m_data ({m_res_hash, m_res_tag})
    );

    assign s_req_ready = adv;

    // The key's last bit, which no window reaches (see the key register). Named unused_* so
    // lint knows it is dropped on purpose.
    wire unused_key_bit = s_key[0];

endmodule

`resetall

`endif  // ROCENIC_RSS_HASH_SV
