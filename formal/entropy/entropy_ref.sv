// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal-only: the entropy unit's combinational form, one request in, its result out, written
// from the definitions (docs/reference.md §1, model/src/entropy.rs) without any pipelining.
// The proof (formal/entropy/entropy_unit.sby) shows the pipeline computes exactly this under any stalls.
//
// Every product is a formal/common/mul_abstract.sv with the operands the pipeline multiplies: the 24x24
// QPN product as four 18-bit-split partial products, the rxe hash_32 product as three, and the
// rfc-v2 port product, and their sums grouped as the pipeline groups them. The products are
// one stand-in function there (mul_abstract.sv says why), so the proof covers how the
// pipeline routes, registers, adds, folds and chooses; the arithmetic identities behind the
// splits and the grouping stay with the co-simulation against the model (sim/tests/entropy.rs).
// Everything else here is written independently of the RTL.
module entropy_ref (
    input  wire        mode,       // 0 QP, 1 CM
    input  wire [1:0]  profile,    // 0 linux, 1 rfc-v2, 2 rfc-v1, 3 rxe
    input  wire        qp_type,    // 0 RC, 1 UD
    input  wire [23:0] lqpn,
    input  wire [23:0] rqpn,
    input  wire [31:0] fl,
    input  wire [15:0] src_port,
    input  wire [15:0] dst_port,
    output logic [19:0] flow_label,
    output logic [15:0] udp_sport
);

    // lqpn * rqpn via 18-bit halves (see the header).
    wire [35:0] pp_ll;
    wire [23:0] pp_lh;
    wire [23:0] pp_hl;
    wire [11:0] pp_hh;
    mul_abstract #(.A_W(18), .B_W(18)) u_ll (.a(lqpn[17:0]),  .b(rqpn[17:0]),  .p(pp_ll));
    mul_abstract #(.A_W(18), .B_W(6))  u_lh (.a(lqpn[17:0]),  .b(rqpn[23:18]), .p(pp_lh));
    mul_abstract #(.A_W(6),  .B_W(18)) u_hl (.a(lqpn[23:18]), .b(rqpn[17:0]),  .p(pp_hl));
    mul_abstract #(.A_W(6),  .B_W(6))  u_hh (.a(lqpn[23:18]), .b(rqpn[23:18]), .p(pp_hh));
    // The sum grouped as the pipeline groups it, the two middle terms first: regrouping a sum is
    // arithmetic again, as hard for a solver as the products themselves.
    wire [24:0] pp_mid   = {1'b0, pp_lh} + {1'b0, pp_hl};
    wire [47:0] qpn_prod = {pp_hh, pp_ll} + {5'd0, pp_mid, 18'd0};
    // linux flow_label(): v ^ v >> 20 ^ v >> 40, low 20 bits.
    wire [47:0] qpn_mix = qpn_prod ^ (qpn_prod >> 20) ^ (qpn_prod >> 40);
    wire [19:0] qpn_fl  = qpn_mix[19:0];

    // CM hashes of the ports.
    // src_port * 31 + dst_port, the multiplication spelled src * 32 - src: a solver cannot
    // match a multiplier against the pipeline's shift and subtract in reasonable time.
    wire [31:0] linux_cm = {11'd0, src_port, 5'd0} - {16'd0, src_port} + {16'd0, dst_port};
    wire [31:0] v2_a;
    mul_abstract #(.A_W(16), .B_W(16)) u_v2 (.a(dst_port), .b(src_port), .p(v2_a));
    wire [31:0] v2_b     = v2_a ^ (v2_a >> 16);
    wire [31:0] v2_c     = v2_b ^ (v2_b >> 8);

    // rfc-v1 folds.
    wire [15:0] fold_l = lqpn[15:0] ^ {8'd0, lqpn[23:16]};
    wire [15:0] fold_r = rqpn[15:0] ^ {8'd0, rqpn[23:16]};

    // rxe: hash_32(lqpn, 14) = (lqpn * 0x61C88647) >> 18 on 32 bits. With lqpn = a_hi 2^18 +
    // a_lo and the constant = 0x1872 2^18 + 0x08647, bits 31:18 of the product are those of
    // a_lo * 0x08647, plus the low 14 bits of a_lo * 0x1872 and of a_hi * 0x08647 (a_hi * 0x1872
    // lies wholly above bit 31), modulo 2^14.
    wire [35:0] rxe_ll;
    wire [13:0] rxe_lh;
    wire [13:0] rxe_hl;
    mul_abstract #(.A_W(18), .B_W(18)) u_rxe_ll (.a(lqpn[17:0]), .b(18'h0_8647), .p(rxe_ll));
    mul_abstract #(.A_W(14), .B_W(14), .P_W(14)) u_rxe_lh (.a(lqpn[13:0]), .b(14'h1872), .p(rxe_lh));
    mul_abstract #(.A_W(6), .B_W(14), .P_W(14)) u_rxe_hl (.a(lqpn[23:18]), .b(14'h0647), .p(rxe_hl));
    wire [13:0] rxe_hash = rxe_ll[31:18] + (rxe_lh + rxe_hl);  // grouped as in the pipeline

    logic [19:0] pre;
    logic [15:0] v1;
    always_comb begin
        flow_label = fl[19:0];
        udp_sport  = 16'hC000;
        pre        = 20'd0;
        v1         = 16'd0;
        if (profile[1] == 1'b0) begin
            // linux and rfc-v2: the application's label, else the CM hash, else the QPNs'.
            if (!mode) begin
                flow_label = (fl != 32'd0) ? fl[19:0] : qpn_fl;
            end else begin
                if (fl[19:0] != 20'd0) begin
                    pre = fl[19:0];
                end else if (profile == 2'd0) begin
                    pre = linux_cm[19:0];
                end else begin
                    pre = v2_c[19:0];
                end
                flow_label = (pre != 20'd0) ? pre : qpn_fl;
            end
            udp_sport = 16'hC000 | ({2'b00, flow_label[13:0]} ^ {10'd0, flow_label[19:14]});
        end else if (profile == 2'd2) begin
            if (mode) begin
                v1 = dst_port ^ src_port;
            end else if (lqpn != rqpn && (!qp_type || rqpn != 24'hFF_FFFF)) begin
                v1 = fold_l ^ fold_r;
            end else begin
                v1 = fold_l;
            end
            udp_sport = 16'hC000 | v1;
        end else begin
            udp_sport = 16'hC000 | {2'b00, rxe_hash};
        end
    end

endmodule

`resetall
