// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal harness of rtl/rss/rss_hash.sv (formal/rss_hash.sby).
//
// Assumed: both input streams (key, requests) obey the valid/ready rules. Proved:
//   protocol (task prove, unbounded by k-induction): the result stream obeys them, nothing
//     comes out of reset, and the key is not taken while a request waits in stage 1;
//   equivalence (task bmc, bounded): every result equals formal/toeplitz_bytes_ref.sv on its
//     request, with the key of the last key handshake at or before the request's acceptance
//     (the RTL's documented key rule), in order, none lost or invented (at most four inside).
//     Results are checked once a key has been loaded, or for the XOR hash, which uses none.
module rss_hash_fv #(
    parameter  int MAX_INPUT = 12,             // Input bytes (the proof's size)
    localparam int KEY_BYTES = MAX_INPUT + 4,
    localparam int LEN_W     = $clog2(MAX_INPUT + 1)
) (
    input wire                   clk,
    input wire                   rst,
    input wire                   s_key_valid,
    input wire [KEY_BYTES*8-1:0] s_key,
    input wire                   s_req_valid,
    input wire [MAX_INPUT*8-1:0] s_req_data,
    input wire [LEN_W-1:0]       s_req_len,
    input wire                   s_req_xor,
    input wire [15:0]            s_req_tag,
    input wire                   m_res_ready
);

    wire        s_key_ready;
    wire        s_req_ready;
    wire        m_res_valid;
    wire [31:0] m_res_hash;
    wire [15:0] m_res_tag;

    rss_hash #(
        .MAX_INPUT(MAX_INPUT)
    ) dut (
        .clk        (clk),
        .rst        (rst),
        .s_key_valid(s_key_valid),
        .s_key_ready(s_key_ready),
        .s_key      (s_key),
        .s_req_valid(s_req_valid),
        .s_req_ready(s_req_ready),
        .s_req_data (s_req_data),
        .s_req_len  (s_req_len),
        .s_req_xor  (s_req_xor),
        .s_req_tag  (s_req_tag),
        .m_res_valid(m_res_valid),
        .m_res_ready(m_res_ready),
        .m_res_hash (m_res_hash),
        .m_res_tag  (m_res_tag)
    );

    logic past_ok = 1'b0;
    always_ff @(posedge clk) past_ok <= 1'b1;
    always @* if (!past_ok) assume (rst);
    // Lengths beyond MAX_INPUT act as MAX_INPUT in the RTL; the reference takes them as given.
    always @* assume (int'(s_req_len) <= MAX_INPUT);

    // The sources keep the stream rules; the result stream is held to them.
    stream_rules #(
        .W($bits({s_req_data, s_req_len, s_req_xor, s_req_tag})), .SOURCE(1)
    ) u_req_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(s_req_valid), .ready(s_req_ready),
        .data({s_req_data, s_req_len, s_req_xor, s_req_tag})
    );
    stream_rules #(.W($bits(s_key)), .SOURCE(1)) u_key_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(s_key_valid), .ready(s_key_ready),
        .data(s_key)
    );
    stream_rules #(.W($bits({m_res_hash, m_res_tag})), .SOURCE(0)) u_res_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(m_res_valid), .ready(m_res_ready),
        .data({m_res_hash, m_res_tag})
    );

`ifdef EQUIV
    wire key_hs = s_key_valid && s_key_ready;
    wire s_hs   = s_req_valid && s_req_ready;
    wire m_hs   = m_res_valid && m_res_ready;

    logic [KEY_BYTES*8-1:0] key_q;
    logic                   key_known_q;
    always_ff @(posedge clk) begin
        if (key_hs) key_q <= s_key;
        if (rst && !past_ok) key_known_q <= 1'b0;  // the key register keeps its value in reset
        else if (key_hs) key_known_q <= 1'b1;
    end

    wire [31:0] ref_hash;
    toeplitz_bytes_ref #(
        .MAX_INPUT(MAX_INPUT)
    ) u_ref (
        .key    (key_hs ? s_key : key_q),
        .data   (s_req_data),
        .len    (s_req_len),
        .use_xor(s_req_xor),
        .hash   (ref_hash)
    );

    // Expected: hash, tag, and whether it is checked.
    logic [2:0]  count_q;
    logic [48:0] exp_q [4];
    always_ff @(posedge clk) begin
        if (rst) begin
            count_q <= '0;
        end else begin
            for (int i = 0; i < 3; i++) begin
                if (m_hs) exp_q[i] <= exp_q[i + 1];
            end
            if (s_hs) begin
                exp_q[count_q - {2'd0, m_hs}] <= {s_req_xor || key_hs || key_known_q,
                                                  ref_hash, s_req_tag};
            end
            count_q <= count_q + {2'd0, s_hs} - {2'd0, m_hs};
        end
    end

    always @* begin
        if (past_ok && !rst) begin
            assert (count_q <= 3'd4);
            if (m_res_valid) begin
                assert (count_q != 3'd0);
                assert (m_res_tag == exp_q[0][15:0]);
                if (exp_q[0][48]) assert (m_res_hash == exp_q[0][47:16]);
            end
        end
    end
`endif

endmodule

`resetall
