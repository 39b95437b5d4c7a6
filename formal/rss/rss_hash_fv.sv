// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal harness of rtl/rss/rss_hash.sv (formal/rss/rss_hash.sby).
//
// Assumed: both input streams (key, requests) obey the valid/ready rules. Proved:
//   protocol (task prove, unbounded by k-induction): the result stream obeys them, and
//     nothing comes out of reset;
//   equivalence (task equiv, unbounded by k-induction): the key is not taken while a request
//     waits in stage 1, and every result equals
//     formal/rss/toeplitz_words_ref.sv on its request (bytes past its length cleared), with the key
//     of the last key handshake at or before the request's acceptance (the RTL's documented
//     key rule), in order, none lost or invented (at most four inside). Results are checked
//     once a key has been loaded, or for the XOR hash, which uses none. `make formal-toeplitz`
//     proves that form, applied so, equal to formal/rss/toeplitz_bytes_ref.sv; rss_hash.sby says
//     why the proof is split there.
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

    // The unit's stage 1 and key registers. Yosys has no hierarchical references: rss_hash.sby
    // drives these from inside the flattened DUT (`connect`).
    wire                   dut_s1_valid;
    wire [MAX_INPUT*8-1:0] dut_s1_data;
    wire                   dut_s1_xor;
    wire [KEY_BYTES*8-2:0] dut_key;
    // For the induction only: what stage 1, stage 2 and the skid buffer hold.
    wire [15:0]            dut_s1_tag;
    wire                   dut_s2_valid;
    wire [31:0]            dut_res_hash;
    wire [15:0]            dut_res_tag;
    wire                   dut_skid_valid;
    wire [47:0]            dut_skid_data;

    // The key of the last key handshake, and whether there has been one since power-up.
    logic [KEY_BYTES*8-1:0] key_q;
    logic                   key_known_q;
    always_ff @(posedge clk) begin
        if (key_hs) key_q <= s_key;
        if (rst && !past_ok) key_known_q <= 1'b0;  // the key register keeps its value in reset
        else if (key_hs) key_known_q <= 1'b1;
    end

    // The last accepted request as stage 1 must hold it (bytes past the length cleared), with
    // the key it must be hashed with (the RTL's key rule), and whether its result is checked.
    wire [MAX_INPUT*8-1:0]  req_kept;
    logic [MAX_INPUT*8-1:0] last_kept_q;
    logic                   last_xor_q;
    logic [KEY_BYTES*8-1:0] last_key_q;
    logic                   last_checked_q;
    logic                   pend_q;   // the last accepted request has not left stage 1
    toeplitz_words_ref #(
        .MAX_INPUT(MAX_INPUT)
    ) u_trim (
        .key    ('0),
        .data   (s_req_data),
        .len    (s_req_len),
        .use_xor(1'b1),
        .hash   (),
        .kept   (req_kept)
    );
    // Stage 1 moves on when the unit accepts (s_req_ready); the assertions below would fail
    // if that were not when the DUT's stage 1 empties or takes the next request.
    wire s1_exit = pend_q && s_req_ready;
    always_ff @(posedge clk) begin
        if (s_hs) begin
            last_kept_q    <= req_kept;
            last_xor_q     <= s_req_xor;
            last_key_q     <= key_hs ? s_key : key_q;
            last_checked_q <= s_req_xor || key_hs || key_known_q;
        end
        if (rst) pend_q <= 1'b0;
        else     pend_q <= s_hs || (pend_q && !s1_exit);
    end

    // The hash the unit must deliver for the request leaving stage 1: the per-word form on the
    // DUT's own stage 1 and key registers. It is the RTL's stage 2 logic, so the solver meets no
    // regrouped XOR tree; toeplitz_words_ref = toeplitz_bytes_ref is the combinational half of
    // the proof (rss_hash.sby).
    wire [31:0] exit_hash;
    toeplitz_words_ref #(
        .MAX_INPUT(MAX_INPUT)
    ) u_ref (
        .key    ({dut_key, 1'b0}),
        .data   (dut_s1_data),
        .len    (LEN_W'(MAX_INPUT)),
        .use_xor(dut_s1_xor),
        .hash   (exit_hash),
        .kept   ()
    );

    // In flight, oldest first: tags from acceptance; hashes (and whether checked) from the exit
    // of stage 1, one fewer while a request waits there.
    logic [2:0]  count_q;
    logic [15:0] tag_q [4];
    logic [32:0] hash_q [4];
    wire  [2:0]  hcount = count_q - {2'd0, pend_q};   // hashes known: all but stage 1's
    always_ff @(posedge clk) begin
        if (rst) begin
            count_q  <= '0;
        end else begin
            for (int i = 0; i < 3; i++) begin
                if (m_hs) tag_q[i] <= tag_q[i + 1];
                if (m_hs) hash_q[i] <= hash_q[i + 1];
            end
            if (s_hs) tag_q[count_q - {2'd0, m_hs}] <= s_req_tag;
            if (s1_exit) hash_q[hcount - {2'd0, m_hs}] <= {last_checked_q, exit_hash};
            count_q  <= count_q + {2'd0, s_hs} - {2'd0, m_hs};
        end
    end

    // The key register holds the last key taken, also in reset.
    always @* if (past_ok && key_known_q) assert (dut_key == key_q[KEY_BYTES*8-1:1]);

    always @* begin
        if (past_ok && !rst) begin
            assert (count_q <= 3'd4);
            // Stage 1 holds exactly the last accepted request, and reads the right key.
            assert (dut_s1_valid == pend_q);
            if (pend_q) begin
                assert (dut_s1_data == last_kept_q);
                assert (dut_s1_xor == last_xor_q);
                // The key's last bit lies in no window; the unit does not store it.
                if (last_checked_q && !last_xor_q) begin
                    assert (dut_key == last_key_q[KEY_BYTES*8-1:1]);
                end
            end
            // Where each request in flight is, for the induction: the youngest in stage 1 while
            // pend_q, the one before it in stage 2, the oldest in the output register and the
            // skid register after it; each with its tag and hash.
            assert (!dut_skid_valid || m_res_valid);
            assert (count_q == {2'd0, pend_q} + {2'd0, dut_s2_valid} + {2'd0, dut_skid_valid}
                               + {2'd0, m_res_valid});
            if (pend_q) assert (dut_s1_tag == tag_q[count_q - 3'd1]);
            if (dut_skid_valid) begin
                assert (dut_skid_data[15:0] == tag_q[1]);
                if (hash_q[1][32]) assert (dut_skid_data[47:16] == hash_q[1][31:0]);
            end
            if (dut_s2_valid) begin
                assert (dut_res_tag == tag_q[hcount - 3'd1]);
                if (hash_q[hcount - 3'd1][32]) begin
                    assert (dut_res_hash == hash_q[hcount - 3'd1][31:0]);
                end
            end
            if (m_res_valid) begin
                assert (count_q != 3'd0);
                assert (hcount != 3'd0);
                assert (m_res_tag == tag_q[0]);
                if (hash_q[0][32]) assert (m_res_hash == hash_q[0][31:0]);
            end
        end
    end

`endif

endmodule

`resetall
