// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ENTROPY_UNIT_SV
`define ROCENIC_ENTROPY_UNIT_SV
`include "rtl/entropy/entropy_pkg.sv"
`include "rtl/common/mul_reg.sv"
`include "rtl/common/skid_buffer.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// RoCEv2 entropy: the 20-bit IPv6 flow label and the UDP source port of a QP
// (docs/reference.md §1).
//
// Bit-exact with `Profile::compute` in model/src/entropy.rs for 24-bit QPNs (lqpn and rqpn
// zero-extended to 32 bits):
//   s_req_mode 0 (QP): Request::Qp { lqpn, rqpn, flow_label: s_req_fl, qp_type }
//   s_req_mode 1 (CM): Request::Cm { src_port, dst_port, flowinfo: s_req_fl, lqpn, rqpn }
//   s_req_profile: 0 linux, 1 rfc-v2, 2 rfc-v1, 3 rxe; s_req_qp_type: 0 RC, 1 UD (rfc-v1 only).
//
// Timing: LATENCY = 5. A request accepted in clock cycle c (s_req_valid && s_req_ready high at
// the rising edge that ends cycle c) has its result on m_res_* in cycle c + 5 when m_res_ready
// has been high; one request per clock is accepted while the sink keeps up.
//
// Pipeline (every stage register loads on the one clock enable `adv`):
//   1  request registered (DSP inputs come from flip-flops, not from the caller's logic)
//   2  partial products, each at most QPN_SPLIT x QPN_SPLIT so that each one is one multiplier
//      block (ECP5 MULT18X18D with 18, iCE40 SB_MAC16 with 16); cheap terms (linux CM hash,
//      rfc-v1 folds and compares, "flow label present" tests)
//   3  middle partial-product sum, rxe high-part sum, rfc-v2 XOR fold, CM flow label choice
//   4  48-bit QPN product, rxe port, fallback decision
//   5  (output register of the skid buffer) XOR fold of the product, final choice, port fold
//
// Back-pressure: a stall-all pipeline in front of a skid buffer. `adv` is the skid buffer's
// registered s_ready; when it is low every stage holds, and when it is high every stage moves
// one step and stage 4 is offered to the skid buffer, which is guaranteed to take it. So
// s_req_ready is a flip-flop, m_res_valid is a flip-flop, and nothing is lost or duplicated.
//
// Multipliers: eight products (four for the QPN product, three for rxe's hash_32, one for
// rfc-v2's CM ports), each registered by mul_reg. QPN_SPLIT is where the 24-bit QPNs are cut
// into a low and a high part; it changes only how the products are shaped, never a result.
// 18 (default) makes the largest 18x18 (ECP5); 16 makes every one at most 16x16, so that on
// the iCE40UP5K all eight fit its eight SB_MAC16 blocks instead of LUTs.
module entropy_unit #(
    parameter int QPN_SPLIT = 18  // Bit at which the QPNs are split for the products, 16..18
) (
    input  wire        clk,
    input  wire        rst,            // synchronous, active high
    // request stream
    input  wire        s_req_valid,
    output wire        s_req_ready,
    input  wire        s_req_mode,     // 0 = QP, 1 = CM
    input  wire [1:0]  s_req_profile,  // 0 linux, 1 rfc-v2, 2 rfc-v1, 3 rxe
    input  wire        s_req_qp_type,  // 0 RC, 1 UD (rfc-v1 only)
    input  wire [23:0] s_req_lqpn,
    input  wire [23:0] s_req_rqpn,
    input  wire [31:0] s_req_fl,       // QP: address-vector flow label; CM: sin6_flowinfo; 0 = none
    input  wire [15:0] s_req_src_port, // CM only
    input  wire [15:0] s_req_dst_port, // CM only
    // result stream
    output wire        m_res_valid,
    input  wire        m_res_ready,
    output wire [19:0] m_res_flow_label,
    output wire [15:0] m_res_udp_sport
);

    // Cycles from acceptance of a request to its result (see the header); fixed by construction.
    // No logic reads it: it documents the pipeline and is public so a Verilator harness can
    // read it, hence the one-line waiver.
    /* verilator lint_off UNUSEDPARAM */
    localparam int LATENCY /*verilator public*/ = 5;
    /* verilator lint_on UNUSEDPARAM */

    if (QPN_SPLIT < 16 || QPN_SPLIT > 18) begin : g_bad_split
        // No %m: Verilator 5.006 cannot print a scope name at elaboration time.
        $error("entropy_unit: QPN_SPLIT must be 16, 17 or 18, got %0d", QPN_SPLIT);
    end

    // Widths of the QPN parts, and of the rxe terms that are needed modulo 2^(32 - S) only
    // (result bits 31:S; see stage 2).
    localparam int S  = QPN_SPLIT;
    localparam int HI = 24 - S;
    localparam int RW = 32 - S;

    // Profile codes on s_req_profile, and the UD multicast QPN, which rfc-v1 never XORs into a
    // port (rtl/entropy/entropy_pkg.sv, generated from model::entropy).
    localparam logic [1:0] PROFILE_LINUX = entropy_pkg::ENTROPY_PROFILE_LINUX;
    localparam logic [1:0] PROFILE_RXE   = entropy_pkg::ENTROPY_PROFILE_RXE;
    localparam logic [23:0] MULTICAST_QPN = entropy_pkg::ENTROPY_MULTICAST_QPN;
    // Request kinds and QP types as the model encodes them.
    localparam logic MODE_CM    = entropy_pkg::ENTROPY_MODE_CM;
    localparam logic QP_TYPE_UD = entropy_pkg::ENTROPY_QP_TYPE_UD;
    // Every port is 0xC000 | 14 bits: the base sets exactly the top two.
    localparam logic [15:0] SPORT_BASE = entropy_pkg::ENTROPY_UDP_SPORT_BASE;
    // The kernel's hash_32 multiplier 0x61C88647, split at bit S like the QPN. Only the low RW
    // bits of the cross products reach result bits 31:S, so the low constant is cut to RW bits
    // there (with S = 18: 0x0647 of 0x08647; with S = 16 RW = S and nothing is cut).
    localparam logic [31:0] RXE_MUL       = entropy_pkg::ENTROPY_GOLDEN_RATIO_32;
    localparam logic [S-1:0]  RXE_MUL_LO    = RXE_MUL[S-1:0];
    localparam logic [RW-1:0] RXE_MUL_LO_RW = RXE_MUL[RW-1:0];
    localparam logic [RW-1:0] RXE_MUL_HI    = RXE_MUL[31:S];

    // One clock enable for the whole pipeline: the skid buffer's registered s_ready.
    wire adv;

    // ------------------------------------------------------------------------------------------
    // Stage 1: the request, registered.
    logic        s1_valid_q;
    logic        s1_mode_q;
    logic [1:0]  s1_profile_q;
    logic        s1_qp_type_q;
    logic [23:0] s1_lqpn_q;
    logic [23:0] s1_rqpn_q;
    logic [31:0] s1_fl_q;
    logic [15:0] s1_src_port_q;
    logic [15:0] s1_dst_port_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_valid_q <= 1'b0;
        end else if (adv) begin
            s1_valid_q <= s_req_valid;
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            s1_mode_q     <= s_req_mode;
            s1_profile_q  <= s_req_profile;
            s1_qp_type_q  <= s_req_qp_type;
            s1_lqpn_q     <= s_req_lqpn;
            s1_rqpn_q     <= s_req_rqpn;
            s1_fl_q       <= s_req_fl;
            s1_src_port_q <= s_req_src_port;
            s1_dst_port_q <= s_req_dst_port;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 2: products and cheap terms.
    //
    // lqpn = a_hi * 2^S + a_lo and rqpn = b_hi * 2^S + b_lo, so
    // lqpn * rqpn = a_lo*b_lo + 2^S (a_lo*b_hi + a_hi*b_lo) + 2^2S a_hi*b_hi,
    // four products that each fit one S x S multiplier.
    wire [S-1:0]  a_lo = s1_lqpn_q[S-1:0];
    wire [HI-1:0] a_hi = s1_lqpn_q[23:S];
    wire [S-1:0]  b_lo = s1_rqpn_q[S-1:0];
    wire [HI-1:0] b_hi = s1_rqpn_q[23:S];

    // Each product is registered into stage 2 by `mul_reg`, so that on ECP5 the register is the
    // DSP's own output register (see rtl/common/mul_reg.sv); the s2_* names follow the stage.
    logic [2*S-1:0]  s2_pp_ll_q;
    logic [23:0]     s2_pp_lh_q;
    logic [23:0]     s2_pp_hl_q;
    logic [2*HI-1:0] s2_pp_hh_q;
    logic [2*S-1:0]  s2_rxe_ll_full_q;
    logic [RW-1:0]   s2_rxe_lh_q;
    logic [RW-1:0]   s2_rxe_hl_q;
    logic [31:0]     s2_v2_prod_q;

    mul_reg #(.A_W(S),  .B_W(S))  u_pp_ll (.clk, .ce(adv), .a(a_lo), .b(b_lo), .p_q(s2_pp_ll_q));
    mul_reg #(.A_W(S),  .B_W(HI)) u_pp_lh (.clk, .ce(adv), .a(a_lo), .b(b_hi), .p_q(s2_pp_lh_q));
    mul_reg #(.A_W(HI), .B_W(S))  u_pp_hl (.clk, .ce(adv), .a(a_hi), .b(b_lo), .p_q(s2_pp_hl_q));
    mul_reg #(.A_W(HI), .B_W(HI)) u_pp_hh (.clk, .ce(adv), .a(a_hi), .b(b_hi), .p_q(s2_pp_hh_q));

    // rxe: lqpn * 0x61C88647 mod 2^32 = a_lo*MUL_LO + 2^S (a_lo*MUL_HI + a_hi*MUL_LO) mod 2^32
    // (the a_hi*MUL_HI term lies wholly above bit 31), so its bits 31:S are
    // (a_lo*MUL_LO)[31:S] + (a_lo*MUL_HI)[RW-1:0] + (a_hi*MUL_LO)[RW-1:0] mod 2^RW, and the
    // port's 14 bits are the top 14 of those. The two cross products are taken RW bits wide
    // on purpose: they are needed modulo 2^RW only (with S = 18, 14x14 and 6x14).
    mul_reg #(.A_W(S), .B_W(S)) u_rxe_ll (
        .clk, .ce(adv), .a(a_lo), .b(RXE_MUL_LO), .p_q(s2_rxe_ll_full_q)
    );
    mul_reg #(.A_W(RW), .B_W(RW), .P_W(RW)) u_rxe_lh (
        .clk, .ce(adv), .a(a_lo[RW-1:0]), .b(RXE_MUL_HI), .p_q(s2_rxe_lh_q)
    );
    mul_reg #(.A_W(HI), .B_W(RW), .P_W(RW)) u_rxe_hl (
        .clk, .ce(adv), .a(a_hi), .b(RXE_MUL_LO_RW), .p_q(s2_rxe_hl_q)
    );

    // rfc-v2 CM: the unsigned 32-bit product of the CM ports.
    mul_reg #(.A_W(16), .B_W(16)) u_v2_prod (
        .clk, .ce(adv), .a(s1_dst_port_q), .b(s1_src_port_q), .p_q(s2_v2_prod_q)
    );
    wire [RW-1:0] s2_rxe_ll_q = s2_rxe_ll_full_q[31:S];

    // linux CM: (src_port * 31 + dst_port) & 0xFFFFF, as a shift and two adds; the arithmetic
    // is taken modulo 2^20 throughout, which commutes with the final mask.
    wire [19:0] linux_cm_fl = {s1_src_port_q[14:0], 5'd0} - {4'd0, s1_src_port_q}
                              + {4'd0, s1_dst_port_q};

    // rfc-v1: fold(qpn) = (qpn & 0xFFFF) ^ ((qpn >> 16) & 0xFF). Only the low 14 bits of the
    // port are kept from here on: the top two are always set by the final OR with 0xC000.
    wire [13:0] v1_fold_l = s1_lqpn_q[13:0] ^ {6'd0, s1_lqpn_q[23:16]};
    wire [13:0] v1_fold_r = s1_rqpn_q[13:0] ^ {6'd0, s1_rqpn_q[23:16]};
    wire        v1_qpns_differ = s1_lqpn_q != s1_rqpn_q;
    // RC always mixes in the remote QPN when it differs; UD not for the multicast QPN.
    wire        v1_mix = v1_qpns_differ
                      && (s1_qp_type_q != QP_TYPE_UD || s1_rqpn_q != MULTICAST_QPN);
    logic [13:0] v1_sport;
    always_comb begin
        if (s1_mode_q == MODE_CM) begin
            v1_sport = s1_dst_port_q[13:0] ^ s1_src_port_q[13:0];
        end else if (v1_mix) begin
            v1_sport = v1_fold_l ^ v1_fold_r;
        end else begin
            v1_sport = v1_fold_l;
        end
    end

    // Whether the application supplied a flow label: the QP path tests the whole 32-bit value
    // (fl = 0x100000 does not fall back), the CM masks sin6_flowinfo to 20 bits first.
    wire s1_app_fl_set = s1_mode_q == MODE_CM ? (s1_fl_q[19:0] != 20'd0) : (s1_fl_q != 32'd0);

    logic        s2_valid_q;
    logic        s2_cm_q;
    logic        s2_derived_q;   // linux or rfc-v2: port derived from the flow label
    logic        s2_linux_q;
    logic        s2_rxe_q;
    logic        s2_app_fl_set_q;
    logic [19:0] s2_app_fl_q;
    logic [19:0] s2_linux_cm_fl_q;
    logic [13:0] s2_v1_sport_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            s2_valid_q <= 1'b0;
        end else if (adv) begin
            s2_valid_q <= s1_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            s2_cm_q          <= s1_mode_q == MODE_CM;
            s2_derived_q     <= !s1_profile_q[1];
            s2_linux_q       <= s1_profile_q == PROFILE_LINUX;
            s2_rxe_q         <= s1_profile_q == PROFILE_RXE;
            s2_app_fl_set_q  <= s1_app_fl_set;
            s2_app_fl_q      <= s1_fl_q[19:0];
            s2_linux_cm_fl_q <= linux_cm_fl;
            s2_v1_sport_q    <= v1_sport;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 3: partial sums and the CM flow label.

    // rfc-v2 CM: hash ^= hash >> 16; hash ^= hash >> 8; & 0xFFFFF.
    wire [31:0] v2_h1 = s2_v2_prod_q ^ {16'd0, s2_v2_prod_q[31:16]};
    wire [31:0] v2_h2 = v2_h1 ^ {8'd0, v2_h1[31:8]};
    wire [19:0] v2_cm_fl = v2_h2[19:0];

    // The flow label before any QPN fallback: the application's when it set one, else (CM, linux
    // or rfc-v2) the CM hash of the ports. rfc-v1 and rxe pass fl & 0xFFFFF through unchanged.
    wire [19:0] pre_fl = (s2_derived_q && s2_cm_q && !s2_app_fl_set_q)
                       ? (s2_linux_q ? s2_linux_cm_fl_q : v2_cm_fl)
                       : s2_app_fl_q;

    logic        s3_valid_q;
    logic        s3_cm_q;
    logic        s3_derived_q;
    logic        s3_rxe_q;
    logic        s3_app_fl_set_q;
    logic [19:0] s3_pre_fl_q;
    logic [2*S-1:0]  s3_pp_ll_q;
    logic [24:0]     s3_pp_mid_q;
    logic [2*HI-1:0] s3_pp_hh_q;
    logic [RW-1:0]   s3_rxe_ll_q;
    logic [RW-1:0]   s3_rxe_mid_q;
    logic [13:0] s3_v1_sport_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            s3_valid_q <= 1'b0;
        end else if (adv) begin
            s3_valid_q <= s2_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            s3_cm_q         <= s2_cm_q;
            s3_derived_q    <= s2_derived_q;
            s3_rxe_q        <= s2_rxe_q;
            s3_app_fl_set_q <= s2_app_fl_set_q;
            s3_pre_fl_q     <= pre_fl;
            s3_pp_ll_q      <= s2_pp_ll_q;
            s3_pp_mid_q     <= {1'b0, s2_pp_lh_q} + {1'b0, s2_pp_hl_q};
            s3_pp_hh_q      <= s2_pp_hh_q;
            s3_rxe_ll_q     <= s2_rxe_ll_q;
            s3_rxe_mid_q    <= s2_rxe_lh_q + s2_rxe_hl_q;
            s3_v1_sport_q   <= s2_v1_sport_q;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 4: the full QPN product and the fallback decision.

    // a_lo*b_lo fills bits 2S-1:0 and a_hi*b_hi bits 47:2S, so they concatenate without an
    // add; one 48-bit add (a 48-S-bit carry chain from bit S up) brings in the middle terms.
    wire [47:0] qpn_prod = {s3_pp_hh_q, s3_pp_ll_q} + (48'(s3_pp_mid_q) << S);

    // rxe's bits 31:S (see stage 2); the port keeps bits 31:18, the top 14.
    wire [RW-1:0] rxe_hi = s3_rxe_ll_q + s3_rxe_mid_q;

    // linux and rfc-v2 fall back to the QPN product when the application set no flow label (QP)
    // or when the CM flow label came out 0 (CM).
    wire use_qpn_fl = s3_derived_q && (s3_cm_q ? (s3_pre_fl_q == 20'd0) : !s3_app_fl_set_q);

    logic        s4_valid_q;
    logic        s4_derived_q;
    logic        s4_use_qpn_fl_q;
    logic [19:0] s4_pre_fl_q;
    logic [47:0] s4_qpn_prod_q;
    logic [13:0] s4_other_sport_q;  // rfc-v1 or rxe port, low 14 bits

    always_ff @(posedge clk) begin
        if (rst) begin
            s4_valid_q <= 1'b0;
        end else if (adv) begin
            s4_valid_q <= s3_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            s4_derived_q     <= s3_derived_q;
            s4_use_qpn_fl_q  <= use_qpn_fl;
            s4_pre_fl_q      <= s3_pre_fl_q;
            s4_qpn_prod_q    <= qpn_prod;
            s4_other_sport_q <= s3_rxe_q ? rxe_hi[RW-1 -: 14] : s3_v1_sport_q;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 5 logic, registered by the skid buffer's output register.

    // linux flow_label(): v ^= v >> 20; v ^= v >> 40; & 0xFFFFF. For a 48-bit v the low 20 bits
    // of the result are v[19:0] ^ v[39:20] ^ v[47:40].
    wire [19:0] qpn_fl = s4_qpn_prod_q[19:0] ^ s4_qpn_prod_q[39:20]
                       ^ {12'd0, s4_qpn_prod_q[47:40]};
    wire [19:0] res_fl = s4_use_qpn_fl_q ? qpn_fl : s4_pre_fl_q;
    // linux udp_sport(): fold the top 6 of the 20 bits into the low 14, set 0xC000.
    wire [13:0] res_sport_lo = s4_derived_q ? (res_fl[13:0] ^ {8'd0, res_fl[19:14]})
                                            : s4_other_sport_q;

    skid_buffer #(
        .WIDTH(36)
    ) u_out (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s4_valid_q),
        .s_ready(adv),
        .s_data ({res_fl, SPORT_BASE[15:14], res_sport_lo}),
        .m_valid(m_res_valid),
        .m_ready(m_res_ready),
        .m_data ({m_res_flow_label, m_res_udp_sport})
    );

    assign s_req_ready = adv;

    // Bits the formulas never look at: the rxe low product's bits outside 31:S, the rxe sum's
    // bits below 18 (with S < 18) and the rfc-v2 hash above the flow label. Whole signals are
    // listed where the unused part depends on S. Named unused_* so lint knows they are dropped
    // on purpose.
    wire unused_bits = ^{s2_rxe_ll_full_q, rxe_hi, v2_h2[31:20]};

endmodule

`resetall

`endif  // ROCENIC_ENTROPY_UNIT_SV
