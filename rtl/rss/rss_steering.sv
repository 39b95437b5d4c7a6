// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_STEERING_SV
`define ROCENIC_RSS_STEERING_SV
`include "rtl/rss/rss_types_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Steering: the first enabled rule whose value/mask matches the packet's key (model::rss::steer).
//
// A fixed-latency pipeline that never stalls; LATENCY = 2:
//   1  one match bit per rule: enable & ((key ^ value) & mask) == 0, registered
//   2  priority encoder (lowest index wins): hit, rule index and the rule's action
// `in_pass` travels alongside unchanged, so the caller needs no delay line of its own.
module rss_steering
#(
    parameter  int NUM_RULES = 16,                        // Steering rules
    parameter  int PASS_W    = 1,                         // Width of the pass-through data
    localparam int RULE_W    = NUM_RULES > 1 ? $clog2(NUM_RULES) : 1  // Rule index width
) (
    input  wire                    clk,
    input  wire                    rst,          // synchronous, active high
    input  rss_types_pkg::rule_t [NUM_RULES-1:0]  rules,        // live rules (rss_regs)
    input  wire                    in_valid,
    input  rss_types_pkg::steer_key_t             in_key,
    input  wire [PASS_W-1:0]       in_pass,
    output logic                   out_valid,
    output logic                   out_hit,      // a rule matched
    output logic [RULE_W-1:0]      out_rule,     // the first that did
    output logic                   out_to_queue, // its action (0 when no rule matched: context 0)
    output logic [15:0]            out_target,
    output logic [PASS_W-1:0]      out_pass
);


    // Cycles from in_valid to out_valid; public for the Verilator harness.
    /* verilator lint_off UNUSEDPARAM */
    localparam int LATENCY /*verilator public*/ = 2;
    /* verilator lint_on UNUSEDPARAM */

    if (NUM_RULES < 1 || NUM_RULES > 256) begin : g_bad_rules
        $error("rss_steering: NUM_RULES must be 1..256 (COMMIT.INDEX has 8 bits)");
    end

    // ------------------------------------------------------------------------------------------
    // Stage 1: match bits.
    logic [NUM_RULES-1:0] match_d, match_q;
    logic                 s1_valid_q;
    logic [PASS_W-1:0]    s1_pass_q;

    // Each rule's action, {to_queue, target}.
    logic [NUM_RULES-1:0][16:0] action;

    for (genvar r = 0; r < NUM_RULES; r++) begin : g_match
        // A named copy: Yosys does not read a member of an indexed array element.
        rss_types_pkg::rule_t rule;
        assign rule       = rules[r];
        assign match_d[r] = rule.enable && ((in_key ^ rule.value) & rule.mask) == '0;
        assign action[r]  = {rule.to_queue, rule.target};
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_valid_q <= 1'b0;
            out_valid  <= 1'b0;
        end else begin
            s1_valid_q <= in_valid;
            out_valid  <= s1_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        match_q   <= match_d;
        s1_pass_q <= in_pass;
    end

    // ------------------------------------------------------------------------------------------
    // Stage 2: the first match. The rules are read again here for the action: a commit never
    // happens with packets in the pipeline (rss_regs waits for it to drain), so both reads see
    // the same rules.
    always_ff @(posedge clk) begin
        out_hit      <= 1'b0;
        out_rule     <= '0;
        out_to_queue <= 1'b0;
        out_target   <= 16'h0;
        for (int r = NUM_RULES - 1; r >= 0; r--) begin
            if (match_q[r]) begin
                out_hit      <= 1'b1;
                out_rule     <= RULE_W'(r);
                out_to_queue <= action[r][16];
                out_target   <= action[r][15:0];
            end
        end
        out_pass <= s1_pass_q;
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_STEERING_SV
