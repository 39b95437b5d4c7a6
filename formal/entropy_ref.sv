// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal-only: the entropy unit's combinational form, one request in, its result out, written
// from the definitions (REFERENCE §1, model/src/entropy.rs) without any pipelining. The proof
// (formal/entropy_unit.sby) shows the pipeline computes exactly this under any stalls.
//
// The 24x24 QPN product is written as the sum of the four 18-bit-split partial products, as
// the pipeline forms it: proving the two multiplier structures equal is hard for any SAT
// solver, and that identity is plain arithmetic, covered by the co-simulation against the
// model (sim/tests/entropy.rs). Everything else here is written independently of the RTL.
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
    wire [47:0] qpn_prod = {12'd0, lqpn[17:0]} * {30'd0, rqpn[17:0]}
                         + (({42'd0, lqpn[23:18]} * {30'd0, rqpn[17:0]}) << 18)
                         + (({30'd0, lqpn[17:0]} * {42'd0, rqpn[23:18]}) << 18)
                         + (({42'd0, lqpn[23:18]} * {42'd0, rqpn[23:18]}) << 36);
    // linux flow_label(): v ^ v >> 20 ^ v >> 40, low 20 bits.
    wire [47:0] qpn_mix = qpn_prod ^ (qpn_prod >> 20) ^ (qpn_prod >> 40);
    wire [19:0] qpn_fl  = qpn_mix[19:0];

    // CM hashes of the ports.
    wire [31:0] linux_cm = {16'd0, src_port} * 32'd31 + {16'd0, dst_port};
    wire [31:0] v2_a     = {16'd0, dst_port} * {16'd0, src_port};
    wire [31:0] v2_b     = v2_a ^ (v2_a >> 16);
    wire [31:0] v2_c     = v2_b ^ (v2_b >> 8);

    // rfc-v1 folds.
    wire [15:0] fold_l = lqpn[15:0] ^ {8'd0, lqpn[23:16]};
    wire [15:0] fold_r = rqpn[15:0] ^ {8'd0, rqpn[23:16]};

    // rxe: hash_32(lqpn, 14) = (lqpn * 0x61C88647) >> 18 on 32 bits.
    wire [31:0] rxe_prod = {8'd0, lqpn} * 32'h61C8_8647;

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
            udp_sport = 16'hC000 | {2'b00, rxe_prod[31:18]};
        end
    end

endmodule

`resetall
