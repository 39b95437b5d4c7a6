// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_FRAME_ALIGN_SV
`define ROCENIC_WQE_FRAME_ALIGN_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The frame builder's output side: header beats (wqe_frame_hdr) as they are, then the payload
// moved up by the header's length mod 8, with its pad, one output beat per clock.
//
// The header is 2 mod 4 bytes long, so its last (merge) beat holds s = 2 or 6 header bytes
// and the payload starts in lane s there. Each later output beat takes the last s bytes of the
// previous payload beat (lanes 8 - s..7, kept in prev_q) and the first 8 - s of the next one.
// The payload beats come masked by their tkeep, so the lanes past the payload are zeros: they
// make the pad (0 to 3 bytes) and the output's unused lanes. When the last payload beat has
// more bytes than its output beat can take, one more output beat (the tail) carries the rest.
//
// A raw frame (h_raw) has a merge beat without header bytes: each output beat is one payload
// beat as it is (the header side says no tail), so the frame leaves at the payload's pace.
//
// Phases: !pay_q, a header beat from h_* (the merge beat takes payload beat 0 as well);
// pay_q, the beats after the merge beat, each taking one payload beat while cons_q, then the
// tail if m_tail said so. The payload's tlast ends the input; the header side says how many
// bytes the last output beat has (h_keep6) and whether there is a tail (h_tail).
//
// All decisions come from flip-flops (this module's and the valid/ready registers around it):
// o_ready is the output register slice's registered s_ready.
module wqe_frame_align (
    input  wire         clk,
    input  wire         rst,       // synchronous, active high
    // header beats
    input  wire         h_valid,
    output logic        h_ready,
    input  wire [63:0]  h_data,
    input  wire         h_merge,
    input  wire         h_s6,
    input  wire         h_pay,
    input  wire         h_tail,
    input  wire         h_keep6,
    input  wire         h_vlan,
    input  wire         h_raw,     // a raw frame: this merge beat has no header bytes
    // payload beats
    input  wire         i_valid,
    output logic        i_ready,
    input  wire [63:0]  i_data,
    input  wire [7:0]   i_keep,
    input  wire         i_last,
    // frame beats
    output logic        o_valid,
    input  wire         o_ready,
    output logic [63:0] o_data,
    output logic [7:0]  o_keep,
    output logic        o_last,
    output logic        o_user,    // the frame has an 802.1Q tag, on every beat
    output logic        o_raw      // a raw frame (no ICRC), on every beat
);

    logic        pay_q;     // past the merge beat
    logic        cons_q;    // the beat takes a payload beat (else it is the tail)
    logic        s6_q, tail_q, keep6_q, vlan_q, raw_q;
    logic [47:0] prev_q;    // lanes 2..7 of the last payload beat taken

    wire need_in = pay_q ? cons_q : h_merge && h_pay;
    wire have    = pay_q || h_valid;
    wire s6      = pay_q ? s6_q : h_s6;
    wire tail    = pay_q ? tail_q : h_tail;
    wire keep6   = pay_q ? keep6_q : h_keep6;
    wire raw     = pay_q ? raw_q : h_raw;      // with h_merge: payload beats pass as they are

    assign o_valid = have && (!need_in || i_valid);
    assign h_ready = !pay_q && o_ready && (!need_in || i_valid);
    assign i_ready = have && need_in && o_ready;
    wire   adv     = o_valid && o_ready;

    // The packet's last beat: the merge beat of a packet without payload, or the beat taking the
    // last payload beat when there is no tail, or the tail.
    assign o_last = (pay_q || h_merge) && (!need_in || i_last && !tail);
    assign o_keep = raw ? i_keep : !o_last ? 8'hFF : keep6 ? 8'h3F : 8'h03;
    assign o_user = pay_q ? vlan_q : h_vlan;
    assign o_raw  = raw;

    logic [63:0] cur;       // the payload beat taken, zeros past its bytes (or none taken)
    always_comb begin
        for (int l = 0; l < 8; l++) begin
            cur[8*l +: 8] = need_in && i_keep[l] ? i_data[8*l +: 8] : 8'h00;
        end
    end

    // Lane l < s: the header's (header beats) or the previous payload beat's lane l + 8 - s;
    // lane l >= s: the current payload beat's lane l - s (or the header's, before the merge).
    wire [63:0] prev = {prev_q, 16'h0000};
    always_comb begin
        for (int l = 0; l < 8; l++) begin
            if (raw && (pay_q || h_merge)) begin
                o_data[8*l +: 8] = cur[8*l +: 8];
            end else if (!pay_q && (!h_merge || l < (s6 ? 6 : 2))) begin
                o_data[8*l +: 8] = h_data[8*l +: 8];
            end else if (s6) begin
                o_data[8*l +: 8] = l < 6 ? prev[8*(l + 2) +: 8] : cur[8*(l - 6) +: 8];
            end else begin
                o_data[8*l +: 8] = l < 2 ? prev[8*(l + 6) +: 8] : cur[8*(l - 2) +: 8];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            pay_q  <= 1'b0;
            cons_q <= 1'b0;
        end else if (adv) begin
            if (o_last) begin
                pay_q <= 1'b0;
            end else if (!pay_q && h_merge) begin
                pay_q  <= 1'b1;
                cons_q <= !i_last;
            end else if (pay_q) begin
                cons_q <= cons_q && !i_last;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (adv && !pay_q) begin
            s6_q    <= h_s6;
            tail_q  <= h_tail;
            keep6_q <= h_keep6;
            vlan_q  <= h_vlan;
            raw_q   <= h_raw;
        end
        if (adv && need_in) begin
            prev_q <= cur[63:16];
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_FRAME_ALIGN_SV
