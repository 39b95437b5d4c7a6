// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RC_TIMER_SV
`define ROCENIC_RC_TIMER_SV
`include "rtl/rc/rc_pkg.sv"
`include "rtl/common/mul_reg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RC timers in ticks (model::rc::Scale; docs/rc-requester.md, "Timers in ticks"): what the requester
// (rc_requester) takes as `cfg_timeout_ticks` and `s_rnr_ticks`, from the verbs attributes and
// codes that name them. One per NIC: the scale is the NIC's, and the RNR table is the same for
// every QP.
//
// A request is a 5-bit code, and which timer it names:
//   - the local ACK timeout of verbs `timeout` (s_rnr = 0): 4.096 us << timeout, so
//     `cfg_scale << timeout` ticks; timeout 0 is no timeout, 0 ticks;
//   - the RNR delay of an RNR NAK's timer code (s_rnr = 1): the code's delay in the table
//     (rc_pkg::RC_RNR_DELAY_10US, from the model), ceil(delay in ns * cfg_scale / 4096)
//     ticks, at least 1.
// The RNR delay is worked out in tens of microseconds, so that it fits one multiplier port:
// ns * scale / 4096 = tens_of_us * scale * 625 / 256. One request a cycle, each answered five
// cycles later, in order; the whole pipeline waits while an answer does.
module rc_timer #(
    parameter int TIME_W  = 48,   // width of a tick count (rc_requester's TIME_W)
    parameter int SCALE_W = 16    // width of the scale, 1..18, and TIME_W - 32 at most, so that
                                  // every timer stays below 2^(TIME_W-1) (rc_requester's compare)
) (
    input  wire                clk,
    input  wire                rst,           // synchronous, active high
    input  wire  [SCALE_W-1:0] cfg_scale,     // ticks per 4.096 us (model::rc::Scale), 1 or
                                              // more (0 would make every timeout none), held
    // a request
    input  wire                s_valid,
    output logic               s_ready,
    input  wire                s_rnr,         // 1: an RNR NAK's timer code; 0: verbs `timeout`
    input  wire  [4:0]         s_code,
    // its timer
    output logic               m_valid,
    input  wire                m_ready,
    output logic [TIME_W-1:0]  m_ticks
);

    localparam int TW = rc_pkg::RC_RNR_10US_W;   // a delay in tens of microseconds
    localparam int PW = TW + SCALE_W;            // that times the scale
    localparam int XW = PW + 10;                 // that times 625
    if (SCALE_W < 1 || SCALE_W > 18 || TW > 18 || SCALE_W + 32 > TIME_W || XW - 8 > TIME_W)
    begin : g_bad_width
        $error("rc_timer: SCALE_W must be 1..18 and at most TIME_W - 32");
    end

    // Every stage moves when the answer register is free or being read.
    wire adv = !m_valid || m_ready;
    assign s_ready = adv;

    // 1: the request.
    logic       v1, r1;
    logic [4:0] c1;
    // 2: the code's delay, and the ACK timeout.
    logic              v2, r2;
    logic [TW-1:0]     t2;
    logic [TIME_W-1:0] a2;
    // 3: the delay times the scale (the multiplier's register).
    logic              v3, r3;
    logic [PW-1:0]     p3;
    logic [TIME_W-1:0] a3;
    // 4 and 5: times 625 (512 + 64 + 32 + 16 + 1), with 255 to round the division up.
    logic              v4, r4, v5, r5;
    logic [XW-1:0]     x4a, x4b;
    logic [XW-9:0]     x5;   // the sum over 256: its low 8 bits are dropped as it is taken
    logic [TIME_W-1:0] a4, a5;

    always_ff @(posedge clk) begin
        if (adv) begin
            v1 <= s_valid;
            r1 <= s_rnr;
            c1 <= s_code;

            v2 <= v1;
            r2 <= r1;
            t2 <= rc_pkg::RC_RNR_DELAY_10US[c1 * TW +: TW];
            a2 <= c1 == 5'd0 ? '0 : TIME_W'(cfg_scale) << c1;

            v3 <= v2;
            r3 <= r2;
            a3 <= a2;

            v4  <= v3;
            r4  <= r3;
            a4  <= a3;
            x4a <= (XW'(p3) << 9) + (XW'(p3) << 6);
            x4b <= (XW'(p3) << 5) + (XW'(p3) << 4) + XW'(p3) + XW'(255);

            v5 <= v4;
            r5 <= r4;
            a5 <= a4;
            x5 <= (XW-8)'((x4a + x4b) >> 8);

            m_valid <= v5;
            m_ticks <= !r5 ? a5 : x5 == '0 ? TIME_W'(1) : TIME_W'(x5);
        end
        if (rst) begin
            v1 <= 1'b0; v2 <= 1'b0; v3 <= 1'b0; v4 <= 1'b0; v5 <= 1'b0;
            m_valid <= 1'b0;
        end
    end

    mul_reg #(.A_W(TW), .B_W(SCALE_W), .P_W(PW)) u_mul (
        .clk(clk), .ce(adv), .a(t2), .b(cfg_scale), .p_q(p3)
    );

endmodule

`endif  // ROCENIC_RC_TIMER_SV
