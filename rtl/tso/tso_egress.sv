// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_EGRESS_SV
`define ROCENIC_TSO_EGRESS_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The egress of the TSO segmenter (tso_segmenter.sv): the segment slots' state, and the read-out
// of a ready slot one word per clock with the segment's header fields patched into the template.
//
// A slot is busy from the commit of its segment until its last word is read, and ready once its
// checksums are in (tso_writer's W4, which hands over the segment's fields, stored here per
// slot). The read-out is a stall-all pipeline that advances on adv (the output skid buffer's
// registered s_ready), as in entropy_unit: R issues the RAM read and finds which template lanes
// carry a per-segment field, P patches the template word, D merges it over the RAM word; the
// slot is released with its last read, and the next ready slot starts on the following clock,
// so back-to-back segments leave no idle cycle.
//
// A part of its own because it only reads: the slots' contents come from tso_writer, the
// template from tso_template; the state machine (tso_ingress) sees which slots are busy.
module tso_egress #(
    parameter  int DATA_W  = 64,     // Data path width in bits (tso_segmenter's)
    parameter  int MAX_HDR = 128,    // Longest header template in bytes (tso_segmenter's)
    parameter  int MAX_MSS = 9000,   // Largest MSS in bytes (tso_segmenter's); sizes the slots
    parameter  int SLOTS   = 2,      // Segment slots, 2 or 4 (tso_segmenter's)
    localparam int SB      = $clog2(SLOTS),                 // Segment slot index width
    localparam int W       = DATA_W / 8,                    // Bytes per beat
    localparam int HW      = (MAX_HDR + W - 1) / W,         // Template words per header slot
    // Template words come from tso_template in groups of four, one candidate per group.
    localparam int NC      = (HW + 3) / 4,
    // A segment sits at its wire offsets: up to MAX_HDR + MAX_MSS bytes per slot.
    localparam int SLOT_WORDS = (MAX_HDR + MAX_MSS + W - 1) / W,
    localparam int KW      = $clog2(SLOT_WORDS + 1)         // segment word counter width
) (
    input  wire                 clk,
    input  wire                 rst,          // synchronous, active high
    input  wire                 adv,          // the pipeline advances (output skid's s_ready)
    // commits (tso_pass) into the slot being written (tso_ingress)
    input  wire                 commit,
    input  wire [SB-1:0]        wsel_q,
    input  wire                 hs_q,         // header slot of the current send
    // the current send's read-out values, stored per header slot in S_PREP1
    input  wire                 st_prep1,
    input  wire [15:0]          h_len_q,
    input  wire [7:0]           ip_off_q,
    input  wire [7:0]           tcp_off_q,
    input  wire                 v4_q,
    // W4 of the write pipeline (tso_writer): a committed segment's fields
    input  wire                 w4_commit_q,
    input  wire [SB-1:0]        w4_slot_q,
    input  wire [KW-1:0]        w4_nw_q,
    input  wire [W-1:0]         w4_lkeep_q,
    input  wire [15:0]          w4_iplen_q,
    input  wire [15:0]          w4_id_q,
    input  wire [15:0]          w4_ipcs_q,
    input  wire [31:0]          w4_seq_q,
    input  wire [7:0]           w4_flags_q,
    input  wire [15:0]          w4_tcs,
    // slot state for the state machine
    output logic [SLOTS-1:0]    busy_q,
    output wire  [SLOTS-1:0]    sl_hs,        // header slot of each segment slot
    output logic [SB-1:0]       rsel_q,       // slot being read
    output wire                 release_n,    // the slot rsel_q is released this clock
    // the template's read port (tso_template): slot and word of each group
    output logic                c_hs_q,
    input  wire [NC*DATA_W-1:0] rd_cand,
    // the segment RAMs' read port (tso_writer): word k_q of slot rsel_q
    output logic [KW-1:0]       k_q,          // word of the segment
    input  wire [DATA_W-1:0]    rd_e,
    input  wire [DATA_W-1:0]    rd_o,
    // to the output skid buffer
    output logic                d_valid_q,
    output logic [DATA_W-1:0]   d_data,
    output logic [W-1:0]        d_keep_q,
    output logic                d_last_q
);

    localparam int NF = 7;                               // patched 16-bit header fields

    // Per header slot, the read-out values of its send (offsets made negative).
    logic [15:0]     hs_ipn_q   [2];          // minus the IP offset
    logic [15:0]     hs_tcpn_q  [2];          // minus the TCP offset
    logic [15:0]     hs_lenn_q  [2];          // minus the template length
    logic            hs_v4_q    [2];          // IPv4, else IPv6

    always_ff @(posedge clk) begin
        if (st_prep1) begin
            hs_ipn_q[hs_q]  <= -{8'd0, ip_off_q};
            hs_tcpn_q[hs_q] <= -{8'd0, tcp_off_q};
            hs_lenn_q[hs_q] <= -h_len_q;
            hs_v4_q[hs_q]   <= v4_q;
        end
    end

    // Segment slots: busy from the commit of a segment until the egress releases it; ready
    // once its checksums are in. Per-slot header fields, written with ready.
    logic [SLOTS-1:0] ready_q;
    logic [SLOTS-1:0] sl_hs_q;          // header slot
    logic [KW-1:0] sl_nw_q    [SLOTS];  // words on the wire, less one
    logic [W-1:0]  sl_lkeep_q [SLOTS];  // lanes of the last word
    logic [15:0]   sl_iplen_q [SLOTS];  // IPv4 total length or IPv6 payload length
    logic [15:0]   sl_id_q    [SLOTS];  // IPv4 identification
    logic [15:0]   sl_ipcs_q  [SLOTS];  // IPv4 header checksum
    logic [31:0]   sl_seq_q   [SLOTS];  // TCP sequence number
    logic [7:0]    sl_flags_q [SLOTS];  // TCP flags
    logic [15:0]   sl_tcs_q   [SLOTS];  // TCP checksum
    logic          r_active_q;
    logic          r_last_q;         // reading the slot's last word

    assign sl_hs     = sl_hs_q;
    assign release_n = r_active_q && adv && r_last_q;

    always_ff @(posedge clk) begin
        if (w4_commit_q) begin
            sl_nw_q[w4_slot_q]    <= w4_nw_q;
            sl_lkeep_q[w4_slot_q] <= w4_lkeep_q;
            sl_iplen_q[w4_slot_q] <= w4_iplen_q;
            sl_id_q[w4_slot_q]    <= w4_id_q;
            sl_ipcs_q[w4_slot_q]  <= w4_ipcs_q;
            sl_seq_q[w4_slot_q]   <= w4_seq_q;
            sl_flags_q[w4_slot_q] <= w4_flags_q;
            sl_tcs_q[w4_slot_q]   <= w4_tcs;
        end
    end

    // ------------------------------------------------------------------------------------------
    // R (read issue, field lanes) -> P (template word patched, RAM word) -> D (merge) -> output
    // skid buffer.
    logic [KW-1:0]     kl_q;          // words after k_q
    logic [W-1:0]      c_lkeep_q;
    // Word k_q's first byte less the IP offset, the TCP offset and the template length.
    logic signed [15:0] c_ri_q;
    logic signed [15:0] c_rt_q;
    logic signed [15:0] c_rh_q;
    logic              c_v4_q;
    logic [15:0]       c_iplen_q;
    logic [15:0]       c_id_q;
    logic [15:0]       c_ipcs_q;
    logic [31:0]       c_seq_q;
    logic [7:0]        c_flg_q;
    logic [15:0]       c_tcs_q;

    // Loads the egress registers for slot s.
    task automatic load_segment(input logic [SB-1:0] s);
        c_hs_q    <= sl_hs_q[s];
        c_lkeep_q <= sl_lkeep_q[s];
        c_ri_q    <= hs_ipn_q[sl_hs_q[s]];
        c_rt_q    <= hs_tcpn_q[sl_hs_q[s]];
        c_rh_q    <= hs_lenn_q[sl_hs_q[s]];
        c_v4_q    <= hs_v4_q[sl_hs_q[s]];
        c_iplen_q <= sl_iplen_q[s];
        c_id_q    <= sl_id_q[s];
        c_ipcs_q  <= sl_ipcs_q[s];
        c_seq_q   <= sl_seq_q[s];
        c_flg_q   <= sl_flags_q[s];
        c_tcs_q   <= sl_tcs_q[s];
        kl_q      <= sl_nw_q[s];
        r_last_q  <= sl_nw_q[s] == '0;
        k_q       <= '0;
    endtask

    always_ff @(posedge clk) begin
        if (rst) begin
            r_active_q <= 1'b0;
            rsel_q     <= '0;
            busy_q     <= '0;
            ready_q    <= '0;
        end else begin
            if (commit) begin
                // The header slot is recorded with busy, so that hs_free never sees a stale one.
                busy_q[wsel_q]  <= 1'b1;
                sl_hs_q[wsel_q] <= hs_q;
            end
            if (w4_commit_q) begin
                ready_q[w4_slot_q] <= 1'b1;
            end
            if (!r_active_q) begin
                if (ready_q[rsel_q]) begin
                    load_segment(rsel_q);
                    r_active_q <= 1'b1;
                end
            end else if (adv) begin
                if (r_last_q) begin
                    busy_q[rsel_q]  <= 1'b0;
                    ready_q[rsel_q] <= 1'b0;
                    rsel_q          <= rsel_q + 1'b1;
                    if (ready_q[rsel_q + 1'b1]) begin
                        load_segment(rsel_q + 1'b1);
                    end else begin
                        r_active_q <= 1'b0;
                    end
                end else begin
                    k_q      <= k_q + 1'b1;
                    c_ri_q   <= c_ri_q + 16'(W);
                    c_rt_q   <= c_rt_q + 16'(W);
                    c_rh_q   <= c_rh_q + 16'(W);
                    kl_q     <= kl_q - 1'b1;
                    r_last_q <= kl_q == KW'(1);
                end
            end
        end
    end

    // Stage R: template word k_q (its group's candidates, rd_cand), its template lanes, and
    // which field (if any) each 16-bit lane pair carries (fields sit at even offsets), one-hot so
    // that P is an AND-OR: 0 none, 1 IP length, 2 identification, 3 IPv4 checksum, 4 and 5
    // sequence number halves, 6 offset and flags, 7 TCP checksum.
    logic [W-1:0]     t_mask;
    logic [8*W/2-1:0] t_sel;    // one-hot per lane pair: 0 the template, else that field
    always_comb begin
        for (int l = 0; l < W; l++) begin
            t_mask[l] = c_rh_q < $signed(16'(-l));
        end
        for (int m = 0; m < W / 2; m++) begin
            logic [7:1] hit;   // one-hot: the fields sit at distinct offsets
            hit[1] = c_v4_q ? c_ri_q == 16'(2 - 2 * m) : c_ri_q == 16'(4 - 2 * m);
            hit[2] = c_v4_q && c_ri_q == 16'(4 - 2 * m);
            hit[3] = c_v4_q && c_ri_q == 16'(10 - 2 * m);
            hit[4] = c_rt_q == 16'(4 - 2 * m);
            hit[5] = c_rt_q == 16'(6 - 2 * m);
            hit[6] = c_rt_q == 16'(12 - 2 * m);
            hit[7] = c_rt_q == 16'(16 - 2 * m);
            t_sel[8*m +: 8] = {hit, ~|hit};
        end
    end

    logic              p_valid_q;
    logic [NC*DATA_W-1:0] p_cand_q;   // template word k_q of each group of four
    // With one candidate group (NC = 1, DATA_W = 512) only bit 0 is read (d_odd_q).
    /* verilator lint_off UNUSEDSIGNAL */
    logic [KW-1:0]     p_k_q;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [8*W/2-1:0]  p_sel_q;
    logic [W-1:0]      p_tmask_q;
    logic [W-1:0]      p_keep_q;
    logic              p_last_q;
    logic [NF*16-1:0]  p_fval_q;   // the segment's field values, 16 bits each

    always_ff @(posedge clk) begin
        if (rst) begin
            p_valid_q <= 1'b0;
        end else if (adv) begin
            p_valid_q <= r_active_q;
        end
        if (adv) begin
            p_cand_q    <= rd_cand;
            p_k_q       <= k_q;
            p_sel_q     <= t_sel;
            p_tmask_q   <= t_mask;
            p_keep_q    <= r_last_q ? c_lkeep_q : '1;
            p_last_q    <= r_last_q;
            p_fval_q    <= {c_tcs_q, 8'd0, c_flg_q, c_seq_q[15:0], c_seq_q[31:16], c_ipcs_q,
                            c_id_q, c_iplen_q};
        end
    end

    // Stage P: the template word with the segment's fields in place (big-endian: the high byte
    // at the even lane). The data offset byte next to the flags stays the template's.
    // The template word (any word past the template slot: its lanes are not template lanes).
    wire [DATA_W-1:0] p_tword = p_cand_q[(32'(p_k_q) >> 2) % NC * DATA_W +: DATA_W];
    logic [DATA_W-1:0] p_patched;
    always_comb begin
        for (int m = 0; m < W / 2; m++) begin
            logic [7:0]  sel;
            logic [15:0] v;
            sel = p_sel_q[8*m +: 8];
            // Field f's value in lane order (low byte of the slice = even lane = high byte).
            v = {16{sel[0]}} & p_tword[16*m +: 16];
            for (int f = 1; f <= NF; f++) begin
                logic [15:0] x;
                x = p_fval_q[16*(f-1) +: 16];
                if (f == 6) begin
                    v = v | ({16{sel[f]}} & {x[7:0], p_tword[16*m +: 8]});
                end else begin
                    v = v | ({16{sel[f]}} & {x[7:0], x[15:8]});
                end
            end
            p_patched[16*m +: 16] = v;
        end
    end

    logic [DATA_W-1:0] d_tword_q;
    // The RAM words straight into flip-flops: a block RAM's read data comes late in the clock
    // (no output register), so the parity choice waits for stage D.
    logic [DATA_W-1:0] d_re_q;
    logic [DATA_W-1:0] d_ro_q;
    logic              d_odd_q;
    logic [W-1:0]      d_tmask_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            d_valid_q <= 1'b0;
        end else if (adv) begin
            d_valid_q <= p_valid_q;
        end
        if (adv) begin
            d_tword_q <= p_patched;
            d_re_q    <= rd_e;
            d_ro_q    <= rd_o;
            d_odd_q   <= p_k_q[0];
            d_tmask_q <= p_tmask_q;
            d_keep_q  <= p_keep_q;
            d_last_q  <= p_last_q;
        end
    end

    always_comb begin
        for (int l = 0; l < W; l++) begin
            d_data[8*l +: 8] = d_tmask_q[l] ? d_tword_q[8*l +: 8]
                             : d_odd_q      ? d_ro_q[8*l +: 8] : d_re_q[8*l +: 8];
        end
    end

endmodule

`resetall

`endif  // ROCENIC_TSO_EGRESS_SV
