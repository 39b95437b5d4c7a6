// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_INGRESS_SV
`define ROCENIC_TSO_INGRESS_SV
`include "rtl/tso/tso_status_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The ingress state machine of the TSO segmenter (tso_segmenter.sv): one send at a time from
// its descriptor to its status. S_IDLE takes a descriptor (and checks its limits); S_HDR steers
// the header beats into one of the two header slots (tso_template); S_PARSE waits for the
// template checks; S_SUM runs the template's checksum words; S_PREP1-S_PREP3 let the send's
// set-up registers fill (tso_template, tso_pass); S_PAY lets the payload passes run (tso_pass)
// and takes the segment slots in turn; S_DRAIN drops a bad send's beats up to tlast; S_STATUS
// offers the status.
//
// A part of its own because it holds the send's control (which step, which slot, which error)
// and the stream handshakes, and nothing of the data path. Its ready flags come from
// flip-flops: s_axis_tready in S_PAY is formed from the next values of the slot state and the
// segment's end, so that the skid buffer's data enables do not wait for a pass.
module tso_ingress #(
    parameter  int DATA_W  = 64,       // Data path width in bits (tso_segmenter's)
    parameter  int MAX_HDR = 128,      // Longest header template in bytes (tso_segmenter's)
    parameter  int MAX_TSO = 262144,   // Longest payload of one send in bytes (tso_segmenter's)
    parameter  int SLOTS   = 2,        // Segment slots, 2 or 4 (tso_segmenter's)
    localparam int SB      = $clog2(SLOTS),                 // Segment slot index width
    localparam int W       = DATA_W / 8,                    // Bytes per beat
    localparam int HW      = (MAX_HDR + W - 1) / W,         // Template words per header slot
    localparam int HKW     = $clog2(HW + 1),                // Template word counter width
    localparam int LEN_W   = $clog2(MAX_TSO + 1)            // Payload byte counter width
) (
    input  wire              clk,
    input  wire              rst,          // synchronous, active high
    // descriptors (the descriptor skid buffer)
    input  wire              d_valid,
    output logic             d_ready,
    input  wire [15:0]       d_hdr_len,
    input  wire [15:0]       d_mss,
    input  wire [31:0]       d_len,
    input  wire              d_ipoib,
    // send data (the data skid buffer; tso_template and tso_pass take the bytes)
    input  wire              i_valid,
    output logic             i_ready,
    input  wire [W-1:0]      i_keep,
    input  wire              i_last,
    // status (the status skid buffer)
    output wire              sts_valid,
    input  wire              sts_ready,
    output wire [3:0]        sts_error,    // 0 ok, else ERR_* below
    output wire [31:0]       sts_segments, // segments sent for this descriptor
    // the state, for the data path
    output wire              st_hdr,       // in S_HDR
    output wire              st_parse,     // in S_PARSE
    output wire              st_sum,       // in S_SUM
    output wire              st_prep1,     // in S_PREP1
    output wire              st_prep2,     // in S_PREP2
    output wire              st_prep3,     // in S_PREP3
    output wire              st_pay,       // in S_PAY
    // the send
    output logic             hs_q,         // header slot of the current send
    output logic [2*HW-1:0]  hwe_q,        // one-hot: header slot and word of the next
                                           // template beat
    output logic [HKW-1:0]   hk_q,         // template word being stored / summed
    output logic             parse_go_q,   // first S_PARSE cycle
    output logic [15:0]      h_len_q,      // template length
    output logic [15:0]      mss_q,
    output logic [LEN_W-1:0] len_q,        // payload length (valid once the descriptor
                                           // checks passed)
    output logic             ipoib_q,
    output logic             pay_q,        // S_PAY with payload: passes may run
    output logic             pe_q,         // S_PAY without payload: the header-only segment
    output logic             wfree_q,      // !busy_q[wsel_q] (exact while pay_q or pe_q)
    output logic [SB-1:0]    wsel_q,       // segment slot being written
    // template checks (tso_template)
    input  wire              parse_done,
    input  wire [3:0]        p_err,
    // payload passes (tso_pass)
    input  wire              commit,
    input  wire              drop,
    input  wire              commit_any,
    input  wire              consume,
    input  wire              bad_short,
    input  wire              uses_up_n,
    input  wire              end_q,
    input  wire              last_q,
    input  wire              empty_q,
    // segment slots (tso_egress)
    input  wire [SLOTS-1:0]  busy_q,
    input  wire [SLOTS-1:0]  sl_hs,        // header slot of each segment slot
    input  wire [SB-1:0]     rsel_q,       // slot being read
    input  wire              release_n     // slot rsel_q is released this clock
);

    // Status codes (m_sts_error): model::tso::Status, via the generated tso_status_pkg.
    localparam logic [3:0] ERR_NONE         = tso_status_pkg::TSO_ERR_NONE;
    localparam logic [3:0] ERR_MSS_ZERO     = tso_status_pkg::TSO_ERR_MSS_ZERO;
    localparam logic [3:0] ERR_HDR_TOO_LONG = tso_status_pkg::TSO_ERR_HDR_TOO_LONG;
    localparam logic [3:0] ERR_LEN_TOO_LONG = tso_status_pkg::TSO_ERR_LEN_TOO_LONG;
    localparam logic [3:0] ERR_SHORT        = tso_status_pkg::TSO_ERR_SHORT;
    localparam logic [3:0] ERR_LONG         = tso_status_pkg::TSO_ERR_LONG;

    localparam int LW = $clog2(W);                       // lane index width

    typedef enum logic [3:0] {
        S_IDLE,    // waiting for a descriptor and a free header slot
        S_HDR,     // storing header beats
        S_PARSE,   // waiting for the template checks
        S_SUM,     // template checksum words, one beat per cycle
        S_PREP1,   // send set-up, three cycles (the last sums drain meanwhile)
        S_PREP2,
        S_PREP3,
        S_PAY,     // payload passes
        S_DRAIN,   // a bad send: dropping beats up to tlast
        S_STATUS   // offering the status
    } state_e;

    state_e            st_q;
    logic [3:0]        err_q;
    logic [31:0]       nseg_q;        // segments ended for this send (commit_any)
    logic              undo_q;        // the last of them was dropped
    logic [HKW-1:0]    hk_last_q;     // last template word
    logic [15:0]       hdr_left_q;    // template bytes from beat hk_q on
    logic              hdr_lt_q;      // hdr_left_q < W: payload may follow in this beat
    logic              hdr_le_q;      // hdr_left_q <= W: the template may end in this beat
    logic              hdr_z_q;       // hdr_left_q == 0
    logic              ended_q;       // the stream holds no byte after the template
    logic              held_q;        // the template's last beat is still in the skid buffer
    logic              hshort_q;      // that beat ended the stream before the template's end
    logic              hpart_q;       // a template beat before it was partial (not the last)
    logic              rdy_pay_q;     // in S_PAY: the slot is free and a pass would use the beat up
    logic              hdr_rdy_q;     // S_HDR && !hdr_lt_q
    logic              drain_q;       // S_DRAIN
    logic              hs_free_q;     // hs_free, a clock late (see there)

    assign st_hdr   = st_q == S_HDR;
    assign st_parse = st_q == S_PARSE;
    assign st_sum   = st_q == S_SUM;
    assign st_prep1 = st_q == S_PREP1;
    assign st_prep2 = st_q == S_PREP2;
    assign st_prep3 = st_q == S_PREP3;
    assign st_pay   = st_q == S_PAY;

    // Header slot free: no committed segment still refers to it. Used a clock late: only
    // commits of the current send (slot hs_q) set busy, so it cannot fall while S_IDLE waits, and
    // hs_q flips only as S_IDLE is left for at least three clocks.
    wire hs_free = !(|(busy_q & (hs_q ? ~sl_hs : sl_hs)));

    // ---- template beats (S_HDR): hdr_left_q bytes of the template are still to come. Only a
    // last beat may be partial, so a keep bit tells whether the beat reaches a given byte. A
    // beat that may hold payload after the template is not taken here (whatever its keep bits,
    // so that s_axis_tready does not wait for them): S_PAY or S_DRAIN takes it.
    wire [LW-1:0] hl_lane  = hdr_left_q[LW-1:0];
    wire          hdr_end  = hdr_z_q || (hdr_le_q && i_keep[hl_lane - LW'(1)]);
    wire          hdr_more = hdr_lt_q && i_keep[hl_lane];   // payload in this beat

    // The next values of busy_q and wsel_q (for rdy_pay_q and wfree_q, see tso_pass's
    // uses_up_n). Slots are written and read in turn, so the next slot is the index plus one.
    wire [SB-1:0]    wsel_n = commit_any ? wsel_q + 1'b1 : wsel_q;
    wire [SLOTS-1:0] busy_n;
    for (genvar x = 0; x < SLOTS; x++) begin : g_busy_n
        assign busy_n[x] = (commit_any && wsel_q == SB'(x))
                           || (busy_q[x] && !(release_n && rsel_q == SB'(x)));
    end

    // ---- ingress handshakes
    always_comb begin
        d_ready = st_q == S_IDLE && hs_free_q;
        // S_HDR, S_DRAIN, S_PAY: one gate from flip-flops, as the skid buffer's data enables
        // follow.
        i_ready = hdr_rdy_q || drain_q || (pay_q && rdy_pay_q);
    end

    assign sts_valid    = st_q == S_STATUS;
    assign sts_error    = err_q;
    assign sts_segments = nseg_q - 32'(undo_q);

    always_ff @(posedge clk) begin
        if (rst) begin
            st_q       <= S_IDLE;
            hs_q       <= 1'b1;   // the first send takes slot 0
            pay_q      <= 1'b0;
            pe_q       <= 1'b0;
            rdy_pay_q  <= 1'b0;
            wfree_q    <= 1'b0;
            hdr_rdy_q  <= 1'b0;
            drain_q    <= 1'b0;
            hs_free_q  <= 1'b0;
            hwe_q      <= '0;
            wsel_q     <= '0;
            ended_q    <= 1'b0;
            parse_go_q <= 1'b0;
        end else begin
            parse_go_q <= 1'b0;
            hs_free_q  <= hs_free;
            rdy_pay_q  <= !busy_n[wsel_n] && uses_up_n;
            wfree_q    <= !busy_n[wsel_n];
            case (st_q)
                S_IDLE: begin
                    // The descriptor's fields are taken on every S_IDLE clock, the accepted
                    // one's last, so that their enables wait for no handshake.
                    h_len_q    <= d_hdr_len;
                    hdr_left_q <= d_hdr_len;
                    hdr_lt_q   <= d_hdr_len < 16'(W);
                    hdr_le_q   <= d_hdr_len <= 16'(W);
                    hdr_z_q    <= d_hdr_len == 16'd0;
                    mss_q      <= d_mss;
                    len_q      <= LEN_W'(d_len);
                    ipoib_q    <= d_ipoib;
                    nseg_q     <= '0;
                    undo_q     <= 1'b0;
                    hk_q       <= '0;
                    ended_q    <= 1'b0;
                    hpart_q    <= 1'b0;
                    err_q      <= d_mss == 16'd0              ? ERR_MSS_ZERO
                                : d_hdr_len > 16'(MAX_HDR)   ? ERR_HDR_TOO_LONG
                                : d_len > 32'(MAX_TSO)       ? ERR_LEN_TOO_LONG
                                :                              ERR_NONE;
                    if (d_valid && d_ready) begin
                        hs_q  <= !hs_q;
                        hwe_q <= hs_q ? (2 * HW)'(1) : (2 * HW)'(1) << HW;
                        if (d_mss == 16'd0 || d_hdr_len > 16'(MAX_HDR)
                            || d_len > 32'(MAX_TSO)) begin
                            st_q    <= S_DRAIN;
                            drain_q <= 1'b1;
                        end else begin
                            hdr_rdy_q <= d_hdr_len >= 16'(W);
                            st_q      <= S_HDR;
                        end
                    end
                end
                S_HDR: if (i_valid) begin
                    if (hdr_le_q) begin
                        // The template ends in this beat (unless it is a short last beat, which
                        // S_PARSE reports: the state does not wait for the keep bits); any
                        // bytes after it are payload and the beat stays for S_PAY.
                        ended_q    <= !hdr_more && i_last;
                        hshort_q   <= !hdr_end;
                        held_q     <= hdr_lt_q;
                        hwe_q      <= '0;
                        hdr_rdy_q  <= 1'b0;
                        hk_q       <= '0;
                        parse_go_q <= 1'b1;
                        st_q       <= S_PARSE;
                    end else if (i_last) begin
                        err_q     <= ERR_SHORT;
                        hwe_q     <= '0;
                        hdr_rdy_q <= 1'b0;
                        st_q      <= hdr_lt_q ? S_DRAIN : S_STATUS;
                        drain_q   <= hdr_lt_q;
                    end else begin
                        hpart_q    <= hpart_q || !(&i_keep);
                        hwe_q      <= hwe_q << 1;
                        hk_q       <= hk_q + 1'b1;
                        hdr_left_q <= hdr_left_q - 16'(W);
                        hdr_lt_q   <= hdr_left_q < 16'(2 * W);
                        hdr_rdy_q  <= hdr_left_q >= 16'(2 * W);
                        hdr_le_q   <= hdr_left_q <= 16'(2 * W);
                        hdr_z_q    <= hdr_left_q == 16'(W);
                    end
                end
                S_PARSE: begin
                    hk_last_q <= HKW'((h_len_q - 16'd1) >> LW);
                    if (parse_done) begin
                        // The stream ended or broke off inside the template: that comes first.
                        // Either way the data goes to tlast (which the template's last beat
                        // may have been).
                        if (hshort_q || hpart_q || p_err != ERR_NONE) begin
                            err_q   <= hshort_q || hpart_q ? ERR_SHORT : p_err;
                            st_q    <= ended_q && !held_q ? S_STATUS : S_DRAIN;
                            drain_q <= !(ended_q && !held_q);
                        end else begin
                            st_q  <= S_SUM;
                        end
                    end
                end
                S_SUM: begin
                    hk_q <= hk_q + 1'b1;
                    if (hk_q == hk_last_q) begin
                        st_q <= S_PREP1;
                    end
                end
                S_PREP1: st_q <= S_PREP2;
                S_PREP2: st_q <= S_PREP3;
                S_PREP3: begin
                    if (empty_q && !ended_q) begin
                        err_q   <= ERR_LONG;
                        st_q    <= S_DRAIN;
                        drain_q <= 1'b1;
                    end else if (!empty_q && ended_q) begin
                        err_q   <= ERR_SHORT;
                        st_q    <= held_q ? S_DRAIN : S_STATUS;
                        drain_q <= held_q;
                    end else begin
                        pay_q <= !empty_q;
                        pe_q  <= empty_q;
                        st_q  <= S_PAY;
                    end
                end
                S_PAY: begin
                    if (drop) begin
                        // The mismatch shows on this beat: drop this segment.
                        err_q   <= bad_short ? ERR_SHORT : ERR_LONG;
                        undo_q  <= end_q;
                        pay_q   <= 1'b0;
                        st_q    <= i_last && consume ? S_STATUS : S_DRAIN;
                        drain_q <= !(i_last && consume);
                    end else if (commit && last_q) begin
                        // The empty send's template beat may still wait.
                        pay_q   <= 1'b0;
                        pe_q    <= 1'b0;
                        st_q    <= empty_q && held_q ? S_DRAIN : S_STATUS;
                        drain_q <= empty_q && held_q;
                    end
                    if (commit) begin
                        wsel_q <= wsel_q + 1'b1;
                    end
                    // Counted without waiting for the beat's mismatch test; a dropped segment is
                    // taken back in the status.
                    if (commit_any) begin
                        nseg_q <= nseg_q + 1;
                    end
                end
                S_DRAIN: if (i_valid && i_last) begin
                    st_q    <= S_STATUS;
                    drain_q <= 1'b0;
                end
                S_STATUS: if (sts_ready) begin
                    st_q <= S_IDLE;
                end
                default: st_q <= S_IDLE;
            endcase
        end
    end

endmodule

`resetall

`endif  // ROCENIC_TSO_INGRESS_SV
