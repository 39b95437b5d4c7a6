// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_PASS_SV
`define ROCENIC_TSO_PASS_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The payload passes of the TSO segmenter (tso_segmenter.sv): where the bytes of each payload
// beat go in the segment slot, where a segment ends, and whether the beat is good.
//
// Each S_PAY clock with a beat and a free slot is a pass: the bytes of the current beat that
// belong to the current segment (a beat holding a segment boundary takes two passes) are
// rotated to their place in the segment; tso_writer registers and writes them. Nothing here
// counts bytes: full beats are assumed (only a stream's last beat may be partial) and a
// segment's extent is kept as a beat count and the lanes of its first and last byte, which move
// by MSS mod W from one segment to the next; whether the segment after this one is the last,
// and its beat count, are known a segment ahead. S_PREP1-S_PREP3 set the send up.
//
// A part of its own because it is the segmenter's payload arithmetic; the state machine
// (tso_ingress) only sees what a pass did (commit, drop, consume). The registers hold during
// reset, as they did inside the state machine.
module tso_pass #(
    parameter  int DATA_W  = 64,       // Data path width in bits (tso_segmenter's)
    parameter  int MAX_HDR = 128,      // Longest header template in bytes (tso_segmenter's)
    parameter  int MAX_TSO = 262144,   // Longest payload of one send in bytes (tso_segmenter's)
    parameter  int MAX_MSS = 9000,     // Largest MSS in bytes (tso_segmenter's)
    localparam int W       = DATA_W / 8,                       // Bytes per beat
    localparam int LEN_W   = $clog2(MAX_TSO + 1),              // payload byte counter width
    // A segment sits at its wire offsets: up to MAX_HDR + MAX_MSS bytes per slot.
    localparam int SLOT_WORDS = (MAX_HDR + MAX_MSS + W - 1) / W,
    localparam int KW      = $clog2(SLOT_WORDS + 1)            // segment word counter width
) (
    input  wire              clk,
    input  wire              rst,          // synchronous, active high
    // from the state machine (tso_ingress)
    input  wire              st_parse,     // in S_PARSE
    input  wire              st_prep1,     // in S_PREP1
    input  wire              st_prep2,     // in S_PREP2
    input  wire              st_prep3,     // in S_PREP3
    input  wire              st_pay,       // in S_PAY
    input  wire [15:0]       h_len_q,      // template length
    input  wire [15:0]       mss_q,
    input  wire [LEN_W-1:0]  len_q,        // payload length
    input  wire              pay_q,        // S_PAY with payload: passes may run
    input  wire              pe_q,         // S_PAY without payload: the header-only segment
    input  wire              wfree_q,      // the segment slot being written is free
    // the template's sequence number and identification (tso_parse)
    input  wire [15:0]       p_ident,
    input  wire [31:0]       p_seq,
    // payload beats (the data skid buffer)
    input  wire              i_valid,
    input  wire [DATA_W-1:0] i_data,
    input  wire [W-1:0]      i_keep,
    input  wire              i_last,
    // what the pass does
    output wire              pass,         // a pass runs this clock
    output wire              empty_commit, // the empty send's header-only segment goes
    output wire              commit,       // a good segment ends with this pass
    output wire              drop,         // the beat is bad: its segment is dropped
    output wire              commit_any,   // a segment ends, good or not
    output wire              consume,      // the beat is used up
    output wire              bad_short,    // on a bad beat: SHORT, else LONG
    output logic             uses_up_n,    // uses_up, next clock (for s_axis_tready)
    // the current segment
    output logic             end_q,        // the segment ends in the current beat
    output logic             last_q,       // the send's last segment
    output logic             first_q,      // segment 0
    output logic             empty_q,      // payload length 0
    output logic [15:0]      tl_q,         // len - i * MSS (mod 2^16): the last one's payload
    output logic [31:0]      seq_cur_q,    // sequence number of the current segment
    output logic [15:0]      id_cur_q,     // IPv4 identification of the current segment
    // the pass's write: bytes and lanes at slot lanes, word and bank split
    output logic [DATA_W-1:0] rot_data,
    output wire  [W-1:0]      rot_mask,
    output logic [W-1:0]      ae_q,        // slot lanes that go to the even bank this pass
    output logic [KW-1:0]     w0_q         // slot word of the pass's first byte
);

    localparam int LW = $clog2(W);                       // lane index width
    localparam int RW = LEN_W + 2;                       // signed payload left after a segment
    localparam int BW = $clog2((MAX_MSS - 1) / W + 2);   // beats of one segment, less one

    // Lanes at or above lane n.
    function automatic logic [W-1:0] lanes_ge(input logic [LW-1:0] n);
        for (int l = 0; l < W; l++) begin
            lanes_ge[l] = LW'(l) >= n;
        end
    endfunction

    // Lanes at or below lane n.
    function automatic logic [W-1:0] lanes_le(input logic [LW-1:0] n);
        for (int l = 0; l < W; l++) begin
            lanes_le[l] = LW'(l) <= n;
        end
    endfunction

    // Beat lanes m as slot lanes: lane l of the slot takes beat lane l - r.
    function automatic logic [W-1:0] rot_lanes(input logic [W-1:0] m, input logic [LW-1:0] r);
        for (int l = 0; l < W; l++) begin
            rot_lanes[l] = m[LW'(l) - r];
        end
    endfunction

    // per-send constants (S_PREP)
    logic [15:0]       mm_q;          // MSS - 1
    logic [LEN_W:0]    lp_q;          // lane-relative position of the announced last byte
    logic [RW-1:0]     rm1_q;         // len - MSS
    logic [BW-1:0]     b0_q;          // beats of a full segment after its first, no lane carry
    logic [BW-1:0]     b1_q;          // the same with the carry
    logic              b0z_q;         // b0_q == 0
    logic              b0one_q;       // b0_q == 1
    logic [LW-1:0]     mm_low_q;      // (MSS - 1) mod W
    logic [LW-1:0]     lend_q;        // lane of the announced last byte
    logic [W-1:0]      lend_mask_q;   // lanes up to it
    // payload progress: the current segment
    logic [W-1:0]      lo_rot_q;      // lanes at or above the pass's first lane, rotated to
                                      // slot lanes
    logic [LW-1:0]     e_q;           // lane of the segment's last byte (in its last beat)
    logic [W-1:0]      e_rot_q;       // lanes up to it, rotated to slot lanes
    logic              e_top_q;       // e_q == W - 1: the segment's last beat ends with it
    logic [BW-1:0]     blft_q;        // beats of the segment after the current one (not last)
    logic              blft1_q;       // blft_q == 1
    logic [RW-1:0]     r_nxt_q;       // len - (i + 2) * MSS for segment i: next one last if <= 0
    logic              nl_q;          // r_nxt_q <= 0: the next segment is the last
    logic [LW-1:0]     rot_q;         // beat lane to slot lane rotation of the segment
    logic              winc_q;        // the pass ends past its first word
    logic [LEN_W-1:0]  tb_q;          // beats after the current one up to the announced last
    logic              tend_q;        // tb_q == 0
    logic [W-1:0]      kmask_q;       // tkeep of a good beat (non-last unless tend_q):
                                      // tend_q ? lend_mask_q : all lanes
    logic              tb1_q;         // tb_q == 1
    logic [W-1:0]      hl_ae_q;       // ae_q of a segment's first pass

    // ---- one payload pass (S_PAY). A beat holds the announced last byte if tend_q; it is bad
    // if the stream ends elsewhere, or there with a byte too few or too many, or if a beat
    // before it is partial (the passes assume full beats).
    wire         has_lend  = i_keep[lend_q];
    // Only looked at on a bad beat: before the announced last byte's beat, the stream ended
    // (tlast) or broke off (a partial beat); on it, a byte is missing at the end.
    assign       bad_short = !tend_q || (i_last && !has_lend);
    // Short, long (tend_q && (!i_last || a keep bit past lend_q)) or partial, as one compare
    // of tlast and the keep bits with registered values.
    wire         bad       = i_last != tend_q || i_keep != kmask_q;
    assign       pass      = pay_q && i_valid && wfree_q;
    // The empty send (payload length 0): one header-only segment once its slot is free.
    assign       empty_commit = pe_q && wfree_q;
    assign       commit    = empty_commit || (pass && end_q && !bad);
    assign       drop      = pass && bad;
    // The beat is used up unless a segment ends inside it and the next one starts there (also
    // on a mismatch, so that s_axis_tready does not wait for the keep bits: S_DRAIN takes it).
    wire         uses_up   = !end_q || e_top_q || last_q;
    assign       consume   = pass && uses_up;

    // The next segment, from the current one's last lane: it starts one lane on, and a full
    // segment ends MSS - 1 lanes further.
    wire [LW-1:0] nx_lo     = e_q + LW'(1);
    wire [LW:0]   nx_sum    = {1'b0, nx_lo} + {1'b0, mm_low_q};
    wire [LW-1:0] nx_e      = nx_sum[LW-1:0];
    wire          nx_carry  = nx_sum[LW];
    wire          nx_last   = nl_q;
    wire          nx_tend   = consume ? tb1_q : tend_q;

    // Rotation of the beat onto the slot's lanes, and the lanes written (the masks are kept
    // rotated, so that the write enables are two gates from flip-flops).
    always_comb begin
        for (int l = 0; l < W; l++) begin
            rot_data[8*l +: 8] = i_data[8*(LW'(l) - rot_q) +: 8];
        end
    end
    assign rot_mask = lo_rot_q & (end_q ? e_rot_q : '1);

    // Send set-up values that S_PREP registers.
    wire [LW-1:0] lo0      = h_len_q[LW-1:0];
    wire [LW:0]   sum0     = {1'b0, lo0} + {1'b0, mm_low_q};
    wire          last0    = rm1_q[RW-1] || rm1_q == '0;
    wire [LW-1:0] e0       = last0 ? lend_q : sum0[LW-1:0];

    // s_axis_tready in S_PAY (pay_q && !busy_q[wsel_q] && uses_up) comes from a flip-flop: its
    // next value is formed from the next values of busy_q, wsel_q and the segment's end, so that
    // the skid buffer's data enables do not wait for this clock's pass. A bad beat is taken for
    // good here: after it pay_q is low, which masks the flag.
    always_comb begin
        if (st_prep3) begin
            uses_up_n = last0 || sum0[LW] || !b0z_q || e0 == LW'(W - 1);
        end else if (pass && end_q) begin
            uses_up_n = nx_last || nx_carry || !b0z_q || nx_e == LW'(W - 1);
        end else if (pass) begin
            uses_up_n = last_q || !blft1_q || e_top_q;
        end else begin
            uses_up_n = uses_up;
        end
    end
    assign commit_any = (pass && end_q) || empty_commit;

    always_ff @(posedge clk) begin
        if (!rst) begin
            if (st_parse) begin
                id_cur_q  <= p_ident;
                seq_cur_q <= p_seq;
            end
            if (st_prep1) begin
                mm_q    <= mss_q - 16'd1;
                lp_q    <= {1'b0, len_q} + (LEN_W + 1)'(lo0) - (LEN_W + 1)'(1);
                rm1_q   <= RW'(len_q) - RW'(mss_q);
                empty_q <= len_q == '0;
            end
            if (st_prep2) begin
                // Beat counts and lanes.
                b0_q        <= BW'(mm_q >> LW);
                b1_q        <= BW'(mm_q >> LW) + BW'(1);
                b0z_q       <= (mm_q >> LW) == 16'd0;
                b0one_q     <= (mm_q >> LW) == 16'd1;
                nl_q        <= $signed(rm1_q) <= $signed(RW'(mss_q));
                mm_low_q    <= mm_q[LW-1:0];
                tb_q        <= LEN_W'(lp_q >> LW);
                tend_q      <= (lp_q >> LW) == '0;
                kmask_q     <= (lp_q >> LW) == '0 ? lanes_le(lp_q[LW-1:0]) : '1;
                tb1_q       <= (lp_q >> LW) == (LEN_W + 1)'(1);
                lend_q      <= lp_q[LW-1:0];
                lend_mask_q <= lanes_le(lp_q[LW-1:0]);
                hl_ae_q     <= h_len_q[LW] ? ~lanes_ge(lo0) : lanes_ge(lo0);
                r_nxt_q     <= rm1_q - RW'(mss_q);
                tl_q        <= 16'(len_q);
            end
            if (st_prep3) begin
                // Segment 0 starts at lane lo0.
                first_q   <= 1'b1;
                last_q    <= last0;
                lo_rot_q  <= lanes_ge(lo0);
                e_q       <= e0;
                e_rot_q   <= lanes_le(e0);
                e_top_q   <= e0 == LW'(W - 1);
                end_q     <= last0 ? tend_q : !sum0[LW] && b0z_q;
                blft_q    <= sum0[LW] ? b1_q : b0_q;
                blft1_q   <= sum0[LW] ? b0z_q : b0one_q;
                rot_q     <= '0;
                ae_q      <= hl_ae_q;
                w0_q      <= KW'(h_len_q >> LW);
                winc_q    <= 1'b1;
            end
            if (st_pay) begin
                // The segment state moves on whether or not the segment is good: after a
                // drop the send is over, and the next one sets it up afresh.
                if (pass && end_q) begin
                    // The next segment.
                    first_q   <= 1'b0;
                    seq_cur_q <= seq_cur_q + {16'd0, mss_q};
                    id_cur_q  <= id_cur_q + 16'd1;
                    tl_q      <= tl_q - mss_q;
                    last_q    <= nx_last;
                    r_nxt_q   <= r_nxt_q - RW'(mss_q);
                    nl_q      <= $signed(r_nxt_q) <= $signed(RW'(mss_q));
                    lo_rot_q  <= rot_lanes(lanes_ge(nx_lo), lo0 - nx_lo);
                    e_q       <= nx_last ? lend_q : nx_e;
                    e_rot_q   <= rot_lanes(nx_last ? lend_mask_q : lanes_le(nx_e),
                                           lo0 - nx_lo);
                    e_top_q   <= nx_e == LW'(W - 1);
                    end_q     <= nx_last ? nx_tend : !nx_carry && b0z_q;
                    blft_q    <= nx_carry ? b1_q : b0_q;
                    blft1_q   <= nx_carry ? b0z_q : b0one_q;
                    rot_q     <= lo0 - nx_lo;
                    ae_q      <= hl_ae_q;
                    w0_q      <= KW'(h_len_q >> LW);
                    winc_q    <= lo0 >= nx_lo;
                end else if (pass) begin
                    // The segment goes on past this beat.
                    lo_rot_q  <= '1;
                    ae_q      <= w0_q[0] ^ winc_q ? ~lanes_ge(rot_q) : lanes_ge(rot_q);
                    w0_q      <= w0_q + KW'(winc_q);
                    winc_q    <= 1'b1;
                    blft_q    <= blft_q - BW'(1);
                    blft1_q   <= blft_q == BW'(2);
                    end_q     <= last_q ? tb1_q : blft1_q;
                end
                if (consume) begin
                    tb_q    <= tb_q - LEN_W'(1);
                    tend_q  <= tb1_q;
                    kmask_q <= tb1_q ? lend_mask_q : '1;
                    tb1_q   <= tb_q == LEN_W'(2);
                end
            end
        end
    end

endmodule

`resetall

`endif  // ROCENIC_TSO_PASS_SV
