// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// TCP segmentation offload for Ethernet and IPoIB (docs/reference.md §5): one send (a descriptor, its
// header template, its payload) in, MSS-sized segments with correct headers out. Byte-exact
// with Segmenter::write_segment in model/src/tso.rs: segment i of n is the template with the
// IPv4 total length, identification ID0 + i and a fresh header checksum (or the IPv6 payload
// length), TCP sequence seq0 + i*MSS, FIN and PSH kept only on the last segment and CWR only on
// the first, and the TCP checksum over pseudo-header, header and segment payload.
//
// Streams (all valid/ready; lane 0 = bits [7:0] is the first byte; tkeep is contiguous from lane
// 0 and only a last beat may be partial):
//   s_desc_*   one descriptor per send: header length, MSS, payload length, link type.
//   s_data_*   per send, the header bytes then the payload bytes, packed (the whole oversized
//              frame as the host hands it), starting at a beat boundary, tlast on its last beat.
//   m_seg_*    the segments, each a packet starting at a beat boundary, tlast on its last beat.
//   m_sts_*    one status per descriptor, in order: error code and segments sent.
//
// Errors: MSS_ZERO, HDR_TOO_LONG (over MAX_HDR), LEN_TOO_LONG (over MAX_TSO) from the descriptor;
// NOT_TCP, MALFORMED, MSS_TOO_LARGE from the template (tso_parse, same checks and order as the
// model); SHORT and LONG when the data stream ends before or after the announced length. A bad
// descriptor or template sends nothing: its data is drained up to tlast. A length mismatch is
// seen on the beat that holds the stream's last byte (SHORT) or the announced last byte (LONG);
// a partial beat that is not the stream's last counts as the stream's end there (SHORT, or LONG
// from the announced last byte's beat on; in the template, SHORT before the template checks);
// the segments whose last byte came on an earlier beat have gone out (each one exactly the
// model's segment for the announced send), that segment and the rest never do. Either way the
// status follows, and the next descriptor starts afresh. Nothing waits for a byte that the
// stream's tlast says will not come, so a bad send cannot hang the unit.
//
// Pipeline:
//   ingress  S_IDLE takes a descriptor; S_HDR stores the header beats into one of two header
//            slots (flip-flops); S_PARSE waits for tso_parse's register stages; S_SUM adds the
//            template's constant checksum words, one beat of the template per cycle through
//            four stages (pick, mask, add, accumulate); S_PREP sets up the send's counters;
//            S_PAY writes payload.
//   write    each S_PAY cycle is a pass: the bytes of the current beat that belong to the
//            current segment (a beat holding a segment boundary takes two passes) are rotated to
//            their place in the segment and written into one of two segment slots. A slot holds
//            a segment at its wire offsets (payload from byte hdr_len on), so read-out needs no
//            realignment. The slot is split into even and odd words (two RAMs), so a rotated
//            pass, which straddles two words, is one write per RAM. Stage W1 holds the pass's
//            write (data, lane enables, addresses) for the RAMs and feeds the beat's
//            checksum adder (tso_sum16), W2 accumulates; the per-segment header sums run
//            alongside, and W3 and W4 add and fold the checksums and mark the slot ready.
//   egress   reads a ready slot one word per clock: R issues the read and finds which template
//            lanes carry a per-segment field, P patches the template word, D merges it over the
//            RAM word; the slot is released with its last read. The next ready slot starts on
//            the following clock, so back-to-back segments leave no idle cycle.
// Double buffering: while one slot goes out the next segment fills the other, so its checksum
// is known before its header leaves. With a 64-bit path and MSS 1448 the writer needs about 182
// passes per segment (181 beats, one of them split) and the reader 190 beats, so the output is
// busy on nearly every cycle; at 512 bits the two are about equal (23-24), and the per-send
// header and checksum stages show (both measured in sim/tests/tso.rs).
//
// Timing (125 MHz on ECP5 at 64 bits): every clock does a bounded amount of logic. The payload
// passes never count bytes: full beats are assumed (only a stream's last beat may be partial)
// and a segment's extent is kept as a beat count and the lanes of its first and last byte,
// which move by MSS mod W from one segment to the next. Whether the segment after this one is
// the last, and its beat count, are known a segment ahead; the header fields, sums and folds
// of a segment are computed in the write pipeline's stages after its commit.
//
// Back-pressure: s_desc_ready, s_data_ready, m_seg_valid and m_sts_valid come from the
// skid_buffer registers. The egress is a stall-all pipeline (R, P, D) that advances on the
// output skid buffer's registered s_ready, as in entropy_unit.
//
// Latency: a segment's header can only go once its payload, and so its checksum, is complete:
// its first beat follows its last payload pass through W1-W4, the slot's ready flag, R, P, D
// and the skid buffer.
// A top of its own: rtl/ is a library of pipelines, and linting all of it at once finds
// several tops (the board tops in rtl/top/boards/ pick theirs).
/* verilator lint_off MULTITOP */
module tso_segmenter #(
/* verilator lint_on MULTITOP */
    parameter  int DATA_W  = 64,       // Data path width in bits: a power of two, 16 or more
    parameter  int MAX_HDR = 128,      // Longest header template in bytes (verbs max_tso_header)
    parameter  int MAX_TSO = 262144,   // Longest payload of one send in bytes (verbs max_tso)
    parameter  int MAX_MSS = 9000,     // Largest MSS in bytes; sizes the two segment slots
    localparam int W       = DATA_W / 8  // Bytes per beat
) (
    input  wire              clk,
    input  wire              rst,             // synchronous, active high
    // descriptors
    input  wire              s_desc_valid,
    output wire              s_desc_ready,
    input  wire [15:0]       s_desc_hdr_len,  // header template bytes
    input  wire [15:0]       s_desc_mss,      // payload bytes per segment
    input  wire [31:0]       s_desc_len,      // payload bytes of the send
    input  wire              s_desc_ipoib,    // 1: IPoIB link header, 0: Ethernet II
    // send data: header then payload
    input  wire              s_data_valid,
    output wire              s_data_ready,
    input  wire [DATA_W-1:0] s_data_tdata,
    input  wire [W-1:0]      s_data_tkeep,
    input  wire              s_data_tlast,
    // segments
    output wire              m_seg_valid,
    input  wire              m_seg_ready,
    output wire [DATA_W-1:0] m_seg_tdata,
    output wire [W-1:0]      m_seg_tkeep,
    output wire              m_seg_tlast,
    // status, one per descriptor
    output wire              m_sts_valid,
    input  wire              m_sts_ready,
    output wire [3:0]        m_sts_error,     // 0 ok, else ERR_* below
    output wire [31:0]       m_sts_segments   // segments sent for this descriptor
);

    if (DATA_W < 16 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_width
        $error("tso_segmenter: DATA_W must be a power of two of at least 16, got %0d", DATA_W);
    end
    if (MAX_HDR < 4 || MAX_HDR > 255 || MAX_MSS < 1 || MAX_TSO < 1) begin : g_bad_limits
        $error("tso_segmenter: MAX_HDR must be 4..255, MAX_MSS and MAX_TSO at least 1");
    end

    // Status codes (m_sts_error); sim/src/tso.rs maps them onto model::tso::Error.
    localparam logic [3:0] ERR_NONE         = 4'd0;
    localparam logic [3:0] ERR_MSS_ZERO     = 4'd1;
    localparam logic [3:0] ERR_HDR_TOO_LONG = 4'd3;
    localparam logic [3:0] ERR_LEN_TOO_LONG = 4'd4;
    localparam logic [3:0] ERR_SHORT        = 4'd7;
    localparam logic [3:0] ERR_LONG         = 4'd8;

    localparam int LW    = $clog2(W);                    // lane index width
    localparam int HW    = (MAX_HDR + W - 1) / W;        // template words per header slot
    localparam int HB    = HW * W;                       // template bytes per header slot
    localparam int HKW   = $clog2(HW + 1);               // template word counter width
    // Template byte addresses and their differences (wrapping is harmless: every difference
    // is only looked at where the address is past the base).
    localparam int AW    = (HKW + LW > 8 ? HKW + LW : 8) + 1;
    // A segment sits at its wire offsets: up to MAX_HDR + MAX_MSS bytes per slot.
    localparam int SLOT_WORDS = (MAX_HDR + MAX_MSS + W - 1) / W;
    localparam int HALF  = (SLOT_WORDS + 2) / 2;         // words per slot in each bank (+1 spare)
    localparam int DEPTH = 2 * HALF;                     // bank RAM depth: two slots
    localparam int RAW   = $clog2(DEPTH);                // bank address width
    localparam int KW    = $clog2(SLOT_WORDS + 1);       // segment word counter width
    localparam int LEN_W = $clog2(MAX_TSO + 1);          // payload byte counter width
    localparam int RW    = LEN_W + 2;                    // signed payload left after a segment
    localparam int BW    = $clog2((MAX_MSS - 1) / W + 2); // beats of one segment, less one
    localparam int SUMW  = 16 + $clog2(W / 2 + 1);       // one beat's checksum sum width
    localparam int NF    = 7;                            // patched 16-bit header fields
    // A template word is picked in two clocks: of each group of four words by the word's low
    // two bits (and the header slot), then among the NC groups.
    localparam int NC    = (HW + 3) / 4;

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

    // End-around-carry fold of a 32-bit sum (RFC 1071) in one adder delay: the sum of the halves
    // and that sum plus one are formed side by side, and the first one's carry picks.
    function automatic logic [15:0] fold(input logic [31:0] s);
        logic [16:0] t0;
        logic [15:0] t1;
        t0   = {1'b0, s[15:0]} + {1'b0, s[31:16]};
        t1   = s[15:0] + s[31:16] + 16'd1;
        fold = t0[16] ? t1 : t0[15:0];
    endfunction

    // Word 4c + lo of template t for each group c (zero past the template slot).
    function automatic logic [NC*DATA_W-1:0] group_words(input logic [HB*8-1:0] t,
                                                         input logic [1:0] lo);
        for (int c = 0; c < NC; c++) begin
            group_words[c*DATA_W +: DATA_W] = '0;
            for (int i = 0; i < 4; i++) begin
                if (4 * c + i < HW && lo == 2'(i)) begin
                    group_words[c*DATA_W +: DATA_W] = t[(4*c + i)*DATA_W +: DATA_W];
                end
            end
        end
    endfunction

    // ------------------------------------------------------------------------------------------
    // Input skid buffers: the ingress peeks at their registered outputs.
    wire              d_valid;
    logic             d_ready;
    wire [15:0]       d_hdr_len;
    wire [15:0]       d_mss;
    wire [31:0]       d_len;
    wire              d_ipoib;

    skid_buffer #(
        .WIDTH(65)
    ) u_desc_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_desc_valid),
        .s_ready(s_desc_ready),
        .s_data ({s_desc_hdr_len, s_desc_mss, s_desc_len, s_desc_ipoib}),
        .m_valid(d_valid),
        .m_ready(d_ready),
        .m_data ({d_hdr_len, d_mss, d_len, d_ipoib})
    );

    wire              i_valid;
    logic             i_ready;
    wire [DATA_W-1:0] i_data;
    wire [W-1:0]      i_keep;
    wire              i_last;

    skid_buffer #(
        .WIDTH(DATA_W + W + 1)
    ) u_data_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_data_valid),
        .s_ready(s_data_ready),
        .s_data ({s_data_tdata, s_data_tkeep, s_data_tlast}),
        .m_valid(i_valid),
        .m_ready(i_ready),
        .m_data ({i_data, i_keep, i_last})
    );

    // ------------------------------------------------------------------------------------------
    // Header slots. A send's template and its per-send read-out values stay put until the
    // egress has released the last segment that uses them; the next send takes the other slot.
    logic [HB*8-1:0] hdr_q     [2];
    logic [15:0]     hs_ipn_q   [2];          // minus the IP offset
    logic [15:0]     hs_tcpn_q  [2];          // minus the TCP offset
    logic [15:0]     hs_lenn_q  [2];          // minus the template length
    logic            hs_v4_q    [2];          // IPv4, else IPv6

    // Segment slots: busy from the commit of a segment until the egress releases it; ready
    // once its checksums are in. Per-slot header fields, written with ready.
    logic [1:0]    busy_q;
    logic [1:0]    ready_q;
    logic          sl_hs_q    [2];   // header slot
    logic [KW-1:0] sl_nw_q    [2];   // words on the wire, less one
    logic [W-1:0]  sl_lkeep_q [2];   // lanes of the last word
    logic [15:0]   sl_iplen_q [2];   // IPv4 total length or IPv6 payload length
    logic [15:0]   sl_id_q    [2];   // IPv4 identification
    logic [15:0]   sl_ipcs_q  [2];   // IPv4 header checksum
    logic [31:0]   sl_seq_q   [2];   // TCP sequence number
    logic [7:0]    sl_flags_q [2];   // TCP flags
    logic [15:0]   sl_tcs_q   [2];   // TCP checksum
    // The egress's slot state (used by the ingress for s_data_ready).
    logic          r_active_q;
    logic          rsel_q;           // slot being read
    logic          r_last_q;         // reading the slot's last word
    wire           adv;              // egress advances (output skid buffer's s_ready)

    // ------------------------------------------------------------------------------------------
    // Ingress state
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
    logic              hs_q;          // header slot of the current send
    // Copies of hs_q for the two wide readers of the template, taken while it is stored, so
    // that no one flip-flop drives the slot choice of both (about 1000 loads, which cost more
    // routing than a clock has).
    logic              hs_par_q;      // for tso_parse (valid from the second S_HDR clock on)
    logic              hs_sum_q;      // for the template sum (valid in S_PARSE and after)
    logic [15:0]       h_len_q;       // template length
    logic [15:0]       mss_q;
    logic [LEN_W-1:0]  len_q;         // payload length (valid once the descriptor checks passed)
    logic              ipoib_q;
    logic [3:0]        err_q;
    logic [31:0]       nseg_q;        // segments ended for this send (commit_any)
    logic              undo_q;        // the last of them was dropped
    logic [HKW-1:0]    hk_q;          // template word being stored / summed
    logic [HKW-1:0]    hk_last_q;     // last template word
    logic [15:0]       hdr_left_q;    // template bytes from beat hk_q on
    logic              hdr_lt_q;      // hdr_left_q < W: payload may follow in this beat
    logic              hdr_le_q;      // hdr_left_q <= W: the template may end in this beat
    logic              hdr_z_q;       // hdr_left_q == 0
    logic              ended_q;       // the stream holds no byte after the template
    logic              held_q;        // the template's last beat is still in the skid buffer
    logic              hshort_q;      // that beat ended the stream before the template's end
    logic              hpart_q;       // a template beat before it was partial (not the last)
    logic              parse_go_q;    // first S_PARSE cycle
    // template fields (current send)
    logic [7:0]        ip_off_q;
    logic [7:0]        tcp_off_q;
    logic              v4_q;
    logic [7:0]        doff_q;
    logic [7:0]        flags_q;
    logic [31:0]       sip_q;         // IPv4 header words but length, ID, checksum
    logic [31:0]       stcp_q;        // pseudo-header addresses and protocol, TCP header words but
                                      // sequence, offset/flags and checksum
    // per-send constants (S_PREP)
    logic [15:0]       kip_q;         // IP length field less the segment payload
    logic [15:0]       ktcp_q;        // TCP length less the segment payload
    logic [15:0]       kdoff_q;       // ktcp_q plus the data offset byte's checksum word
    logic [31:0]       stcpk_q;       // stcp_q + kdoff_q: a segment's TCP sum less payload,
                                      // payload length, sequence number and flags
    logic [15:0]       hlm1_q;        // h_len - 1
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
    logic              empty_q;       // payload length 0
    // payload progress: the current segment
    logic [W-1:0]      lo_rot_q;      // lanes at or above the pass's first lane, rotated to
                                      // slot lanes
    logic [LW-1:0]     e_q;           // lane of the segment's last byte (in its last beat)
    logic [W-1:0]      e_rot_q;       // lanes up to it, rotated to slot lanes
    logic              e_top_q;       // e_q == W - 1: the segment's last beat ends with it
    logic              end_q;         // the segment ends in the current beat
    logic [BW-1:0]     blft_q;        // beats of the segment after the current one (not last)
    logic              blft1_q;       // blft_q == 1
    logic              last_q;        // the send's last segment
    logic [RW-1:0]     r_nxt_q;       // len - (i + 2) * MSS for segment i: next one last if <= 0
    logic              nl_q;          // r_nxt_q <= 0: the next segment is the last
    logic [15:0]       tl_q;          // len - i * MSS (mod 2^16): the last segment's payload
    logic [LW-1:0]     rot_q;         // beat lane to slot lane rotation of the segment
    logic [W-1:0]      ae_q;          // slot lanes that go to the even bank this pass
    logic [KW-1:0]     w0_q;          // slot word of the pass's first byte
    logic              winc_q;        // the pass ends past its first word
    logic [LEN_W-1:0]  tb_q;          // beats after the current one up to the announced last
    logic              tend_q;        // tb_q == 0
    logic [W-1:0]      kmask_q;       // tkeep of a good beat (non-last unless tend_q):
                                      // tend_q ? lend_mask_q : all lanes
    logic              tb1_q;         // tb_q == 1
    logic              first_q;       // segment 0
    logic [31:0]       seq_cur_q;     // sequence number of the current segment
    logic [15:0]       id_cur_q;      // IPv4 identification of the current segment
    logic              wsel_q;        // segment slot being written
    logic              pay_q;         // S_PAY with payload: passes may run
    logic              pe_q;          // S_PAY without payload: the header-only segment
    logic              rdy_pay_q;     // in S_PAY: the slot is free and a pass would use the beat up
    logic              wfree_q;       // !busy_q[wsel_q] (exact while pay_q or pe_q)
    logic              hdr_rdy_q;     // S_HDR && !hdr_lt_q
    logic              drain_q;       // S_DRAIN
    logic [W-1:0]      hl_ae_q;       // ae_q of a segment's first pass
    logic              hs_free_q;     // hs_free, a clock late (see there)
    logic [2*HW-1:0]   hwe_q;         // one-hot: header slot and word of the next template beat

    // ---- template checks
    logic        parse_done;
    logic [3:0]  p_err;
    logic [7:0]  p_ip_off;
    logic [7:0]  p_tcp_off;
    logic        p_v4;
    logic [15:0] p_ident;
    logic [31:0] p_seq;
    logic [7:0]  p_doff;
    logic [7:0]  p_flags;

    tso_parse #(
        .HDR_BYTES(HB),
        .MAX_MSS  (MAX_MSS)
    ) u_parse (
        .clk      (clk),
        .rst      (rst),
        .start    (parse_go_q),
        .done     (parse_done),
        .hdr      (hdr_q[hs_par_q]),
        .hdr_len  (h_len_q),
        .ipoib    (ipoib_q),
        .mss      (mss_q),
        .err      (p_err),
        .ip_off   (p_ip_off),
        .tcp_off  (p_tcp_off),
        .ipv4     (p_v4),
        .ident    (p_ident),
        .seq      (p_seq),
        .doff_byte(p_doff),
        .flags    (p_flags)
    );

    // ---- template checksum words (S_SUM): stage S0 picks template word hk_q (of each group of
    // four) and the lanes that count, stage A the word, masked, stage B adds, stage C
    // accumulates. The lanes come from the word's first address less the IP offset, the TCP
    // offset and the template length (sri_q, srt_q, srh_q), each compared with constants: no
    // subtraction on the way. The compares run a word ahead (the counters point at word
    // hk_q + 1 in S_SUM, at word 0 before it) into the lane flags below, which S0 combines.
    logic signed [AW:0] sri_q;
    logic signed [AW:0] srt_q;
    logic signed [AW:0] srh_q;
    logic [W-1:0] f_ip_in_q;    // at or past the IP header
    logic [W-1:0] f_tcp_in_q;   // at or past the TCP header
    logic [W-1:0] f_in_hdr_q;   // before the template's end
    logic [W-1:0] f_addr_q;     // an address of the pseudo-header
    logic [W-1:0] f_ip_ex_q;    // IPv4 length, identification or checksum
    logic [W-1:0] f_tcp_ex_q;   // TCP sequence number, offset and flags, or checksum
    always_ff @(posedge clk) begin
        for (int l = 0; l < W; l++) begin
            f_ip_in_q[l]  <= sri_q >= $signed((AW + 1)'(-l));
            f_tcp_in_q[l] <= srt_q >= $signed((AW + 1)'(-l));
            f_in_hdr_q[l] <= srh_q < $signed((AW + 1)'(-l));
            f_addr_q[l]   <= v4_q ? sri_q >= $signed((AW + 1)'(12 - l))
                                    && sri_q < $signed((AW + 1)'(20 - l))
                                  : sri_q >= $signed((AW + 1)'(8 - l))
                                    && sri_q < $signed((AW + 1)'(40 - l));
            f_ip_ex_q[l]  <= sri_q == (AW + 1)'(2 - l) || sri_q == (AW + 1)'(3 - l)
                             || sri_q == (AW + 1)'(4 - l) || sri_q == (AW + 1)'(5 - l)
                             || sri_q == (AW + 1)'(10 - l) || sri_q == (AW + 1)'(11 - l);
            f_tcp_ex_q[l] <= srt_q == (AW + 1)'(4 - l) || srt_q == (AW + 1)'(5 - l)
                             || srt_q == (AW + 1)'(6 - l) || srt_q == (AW + 1)'(7 - l)
                             || srt_q == (AW + 1)'(12 - l) || srt_q == (AW + 1)'(13 - l)
                             || srt_q == (AW + 1)'(16 - l) || srt_q == (AW + 1)'(17 - l);
        end
    end
    wire [W-1:0] ip_mask  = {W{v4_q}} & f_ip_in_q & ~f_tcp_in_q & ~f_ip_ex_q;
    wire [W-1:0] tcp_mask = f_addr_q | (f_tcp_in_q & f_in_hdr_q & ~f_tcp_ex_q);

    logic                 s0_valid_q;
    logic [NC*DATA_W-1:0] s0_cand_q;    // template word hk_q of each group of four
    logic [HKW-1:0]       s0_hk_q;
    logic [W-1:0]         s0_ipm_q;
    logic [W-1:0]         s0_tcpm_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            s0_valid_q <= 1'b0;
        end else begin
            s0_valid_q <= st_q == S_SUM;
        end
        s0_cand_q <= group_words(hdr_q[hs_sum_q], hk_q[1:0]);
        s0_hk_q   <= hk_q;
        s0_ipm_q  <= ip_mask;
        s0_tcpm_q <= tcp_mask;
    end

    // Stage A: the word, masked here so that stage B is adders only.
    wire [DATA_W-1:0]  s0_word = s0_cand_q[(32'(s0_hk_q) >> 2) % NC * DATA_W +: DATA_W];
    logic              sa_valid_q;
    logic [DATA_W-1:0] sa_ipw_q;      // the word's IPv4 header lanes, zeros elsewhere
    logic [DATA_W-1:0] sa_tcpw_q;     // its TCP sum lanes
    always_ff @(posedge clk) begin
        if (rst) begin
            sa_valid_q <= 1'b0;
        end else begin
            sa_valid_q <= s0_valid_q;
        end
        for (int l = 0; l < W; l++) begin
            sa_ipw_q[8*l +: 8]  <= s0_ipm_q[l] ? s0_word[8*l +: 8] : 8'd0;
            sa_tcpw_q[8*l +: 8] <= s0_tcpm_q[l] ? s0_word[8*l +: 8] : 8'd0;
        end
    end

    wire [SUMW-1:0] ip_word_sum;
    wire [SUMW-1:0] tcp_word_sum;
    tso_sum16 #(.BYTES(W)) u_ip_sum  (.data(sa_ipw_q),  .sum(ip_word_sum));
    tso_sum16 #(.BYTES(W)) u_tcp_sum (.data(sa_tcpw_q), .sum(tcp_word_sum));

    logic            sb_valid_q;
    logic [SUMW-1:0] sb_ip_q;
    logic [SUMW-1:0] sb_tcp_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            sb_valid_q <= 1'b0;
        end else begin
            sb_valid_q <= sa_valid_q;
        end
        sb_ip_q  <= ip_word_sum;
        sb_tcp_q <= tcp_word_sum;
    end

    // Header slot free: no committed segment still refers to it. Used a clock late: only
    // commits of the current send (slot hs_q) set busy, so it cannot fall while S_IDLE waits, and
    // hs_q flips only as S_IDLE is left for at least three clocks.
    wire hs_free = !(busy_q[0] && sl_hs_q[0] == !hs_q) && !(busy_q[1] && sl_hs_q[1] == !hs_q);

    // ---- template beats (S_HDR): hdr_left_q bytes of the template are still to come. Only a
    // last beat may be partial, so a keep bit tells whether the beat reaches a given byte. A
    // beat that may hold payload after the template is not taken here (whatever its keep bits,
    // so that s_data_ready does not wait for them): S_PAY or S_DRAIN takes it.
    wire [LW-1:0] hl_lane  = hdr_left_q[LW-1:0];
    wire          hdr_end  = hdr_z_q || (hdr_le_q && i_keep[hl_lane - LW'(1)]);
    wire          hdr_more = hdr_lt_q && i_keep[hl_lane];   // payload in this beat

    // ---- one payload pass (S_PAY). A beat holds the announced last byte if tend_q; it is bad
    // if the stream ends elsewhere, or there with a byte too few or too many, or if a beat
    // before it is partial (the passes assume full beats).
    wire         has_lend  = i_keep[lend_q];
    // Only looked at on a bad beat: before the announced last byte's beat, the stream ended
    // (tlast) or broke off (a partial beat); on it, a byte is missing at the end.
    wire         bad_short = !tend_q || (i_last && !has_lend);
    // Short, long (tend_q && (!i_last || a keep bit past lend_q)) or partial, as one compare
    // of tlast and the keep bits with registered values.
    wire         bad       = i_last != tend_q || i_keep != kmask_q;
    wire         pass      = pay_q && i_valid && wfree_q;
    // The empty send (payload length 0): one header-only segment once its slot is free.
    wire         empty_commit = pe_q && wfree_q;
    wire         commit    = empty_commit || (pass && end_q && !bad);
    wire         drop      = pass && bad;
    // The beat is used up unless a segment ends inside it and the next one starts there (also
    // on a mismatch, so that s_data_ready does not wait for the keep bits: S_DRAIN takes it).
    wire         uses_up   = !end_q || e_top_q || last_q;
    wire         consume   = pass && uses_up;

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
    logic [DATA_W-1:0] rot_data;
    always_comb begin
        for (int l = 0; l < W; l++) begin
            rot_data[8*l +: 8] = i_data[8*(LW'(l) - rot_q) +: 8];
        end
    end
    wire [W-1:0] rot_mask = lo_rot_q & (end_q ? e_rot_q : '1);

    // Word w0_q goes to bank (its parity), the next word to the other bank. The write itself
    // is registered (stage W1, below): the block RAMs are spread wide, and their address and
    // data pins get the whole clock for the wiring.
    wire [RAW-1:0] slot_base = wsel_q ? RAW'(HALF) : RAW'(0);
    wire [RAW-1:0] addr_o    = slot_base + RAW'(w0_q >> 1);
    wire [RAW-1:0] addr_e    = slot_base + RAW'(w0_q >> 1) + RAW'(w0_q[0]);

    // s_data_ready in S_PAY (pay_q && !busy_q[wsel_q] && uses_up) comes from a flip-flop: its
    // next value is formed from the next values of busy_q, wsel_q and the segment's end, so that
    // the skid buffer's data enables do not wait for this clock's pass. A bad beat is taken for
    // good here: after it pay_q is low, which masks the flag.
    logic uses_up_n;
    always_comb begin
        if (st_q == S_PREP3) begin
            uses_up_n = last0 || sum0[LW] || !b0z_q || e0 == LW'(W - 1);
        end else if (pass && end_q) begin
            uses_up_n = nx_last || nx_carry || !b0z_q || nx_e == LW'(W - 1);
        end else if (pass) begin
            uses_up_n = last_q || !blft1_q || e_top_q;
        end else begin
            uses_up_n = uses_up;
        end
    end
    wire       commit_any = (pass && end_q) || empty_commit;
    wire       release_n  = r_active_q && adv && r_last_q;
    wire       wsel_n     = commit_any ? !wsel_q : wsel_q;
    wire [1:0] busy_n;
    for (genvar x = 0; x < 2; x++) begin : g_busy_n
        assign busy_n[x] = (commit_any && wsel_q == 1'(x))
                           || (busy_q[x] && !(release_n && rsel_q == 1'(x)));
    end

    // ---- ingress handshakes
    always_comb begin
        d_ready = st_q == S_IDLE && hs_free_q;
        // S_HDR, S_DRAIN, S_PAY: one gate from flip-flops, as the skid buffer's data enables
        // follow.
        i_ready = hdr_rdy_q || drain_q || (pay_q && rdy_pay_q);
    end

    wire sts_ready;

    // Send set-up values that S_PREP registers.
    wire [LW-1:0] lo0      = h_len_q[LW-1:0];
    wire [LW:0]   sum0     = {1'b0, lo0} + {1'b0, mm_low_q};
    wire          last0    = rm1_q[RW-1] || rm1_q == '0;
    wire [LW-1:0] e0       = last0 ? lend_q : sum0[LW-1:0];

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
            wsel_q     <= 1'b0;
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
                    // Word 0 until the flags have taken it, then word 1 (see S_SUM).
                    sri_q     <= -$signed((AW + 1)'(p_ip_off))
                                 + (parse_done ? (AW + 1)'(W) : '0);
                    srt_q     <= -$signed((AW + 1)'(p_tcp_off))
                                 + (parse_done ? (AW + 1)'(W) : '0);
                    srh_q     <= -$signed((AW + 1)'(h_len_q))
                                 + (parse_done ? (AW + 1)'(W) : '0);
                    ip_off_q  <= p_ip_off;
                    tcp_off_q <= p_tcp_off;
                    v4_q      <= p_v4;
                    id_cur_q  <= p_ident;
                    seq_cur_q <= p_seq;
                    doff_q    <= p_doff;
                    flags_q   <= p_flags;
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
                    hk_q  <= hk_q + 1'b1;
                    sri_q <= sri_q + (AW + 1)'(W);
                    srt_q <= srt_q + (AW + 1)'(W);
                    srh_q <= srh_q + (AW + 1)'(W);
                    if (hk_q == hk_last_q) begin
                        st_q <= S_PREP1;
                    end
                end
                S_PREP1: begin
                    // Lengths and offsets of the send.
                    kip_q   <= h_len_q - {8'd0, ip_off_q} - (v4_q ? 16'd0 : 16'd40);
                    ktcp_q  <= h_len_q - {8'd0, tcp_off_q};
                    hlm1_q  <= h_len_q - 16'd1;
                    mm_q    <= mss_q - 16'd1;
                    lp_q    <= {1'b0, len_q} + (LEN_W + 1)'(lo0) - (LEN_W + 1)'(1);
                    rm1_q   <= RW'(len_q) - RW'(mss_q);
                    empty_q <= len_q == '0;
                    st_q    <= S_PREP2;
                end
                S_PREP2: begin
                    // Beat counts and lanes.
                    kdoff_q     <= ktcp_q + {doff_q, 8'd0};
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
                    st_q        <= S_PREP3;
                end
                S_PREP3: begin
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
                        wsel_q <= !wsel_q;
                    end
                    // Counted without waiting for the beat's mismatch test; a dropped segment is
                    // taken back in the status.
                    if (commit_any) begin
                        nseg_q <= nseg_q + 1;
                    end
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

    always_ff @(posedge clk) begin
        if (st_q == S_HDR) begin
            hs_par_q <= hs_q;
        end
        if (st_q == S_PARSE) begin
            hs_sum_q <= hs_q;
        end
    end

    // Template checksum accumulation (stage C). The TCP part is complete by the first S_PAY
    // clock, so stcpk_q is by the first pass's W1.
    always_ff @(posedge clk) begin
        stcpk_q <= stcp_q + {16'd0, kdoff_q};
        if (st_q == S_PARSE) begin
            sip_q  <= '0;
            stcp_q <= 32'd6;   // pseudo-header: zero byte and protocol TCP
        end else if (sb_valid_q) begin
            sip_q  <= sip_q + 32'(sb_ip_q);
            stcp_q <= stcp_q + 32'(sb_tcp_q);
        end
    end

    // Template bytes: stored as they arrive; the read-out values once the template is known.
    always_ff @(posedge clk) begin
        for (int t = 0; t < 2; t++) begin
            for (int k = 0; k < HW; k++) begin
                if (i_valid && hwe_q[t*HW + k]) begin
                    hdr_q[t][k*DATA_W +: DATA_W] <= i_data;
                end
            end
        end
        if (st_q == S_PREP1) begin
            hs_ipn_q[hs_q]  <= -{8'd0, ip_off_q};
            hs_tcpn_q[hs_q] <= -{8'd0, tcp_off_q};
            hs_lenn_q[hs_q] <= -h_len_q;
            hs_v4_q[hs_q]   <= v4_q;
        end
    end

    skid_buffer #(
        .WIDTH(36)
    ) u_sts_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(st_q == S_STATUS),
        .s_ready(sts_ready),
        .s_data ({err_q, nseg_q - 32'(undo_q)}),
        .m_valid(m_sts_valid),
        .m_ready(m_sts_ready),
        .m_data ({m_sts_error, m_sts_segments})
    );

    // ------------------------------------------------------------------------------------------
    // Write pipeline. W0: the pass. W1: RAM write; beat checksum; the segment's header fields
    // from its payload length, sequence number and identification. W2: accumulate; header sums.
    // W3: payload plus header sum; IPv4 checksum. W4: TCP checksum; the slot is ready.
    logic              w1_valid_q;
    logic [DATA_W-1:0] w1_data_q;     // the lanes written this pass, zeros elsewhere
    logic [W-1:0]      w1_we_e_q;     // RAM lane write enables and addresses of the pass
    logic [W-1:0]      w1_we_o_q;
    logic [RAW-1:0]    w1_wa_e_q;
    logic [RAW-1:0]    w1_wa_o_q;
    logic              w1_end_q;      // the segment ends with this pass (commit or drop)
    logic              w1_commit_q;
    logic              w1_slot_q;
    logic [15:0]       w1_plen_q;     // payload bytes of the segment
    logic [31:0]       w1_seq_q;
    logic [15:0]       w1_id_q;
    logic              w1_first_q;
    logic              w1_last_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            w1_valid_q <= 1'b0;
            w1_we_e_q  <= '0;
            w1_we_o_q  <= '0;
        end else begin
            w1_valid_q <= pass || empty_commit;
            // A bad beat's segment is written too, but never committed.
            w1_we_e_q  <= {W{pass}} & rot_mask & ae_q;
            w1_we_o_q  <= {W{pass}} & rot_mask & ~ae_q;
        end
        w1_wa_e_q <= addr_e;
        w1_wa_o_q <= addr_o;
        for (int l = 0; l < W; l++) begin
            w1_data_q[8*l +: 8] <= pass && rot_mask[l] ? rot_data[8*l +: 8] : 8'd0;
        end
        w1_end_q    <= commit || drop;
        w1_commit_q <= commit;
        w1_slot_q   <= wsel_q;
        w1_plen_q   <= last_q ? tl_q : mss_q;
        w1_seq_q    <= seq_cur_q;
        w1_id_q     <= id_cur_q;
        w1_first_q  <= first_q;
        w1_last_q   <= last_q;
    end

    // The RAM write is registered inside tso_ram, so the pass's write lands at the W1 -> W2
    // edge, long before the slot is ready (W4) and read. W1 also feeds the checksum adder.
    wire [DATA_W-1:0] rd_e;
    wire [DATA_W-1:0] rd_o;
    logic [RAW-1:0]   rd_addr;

    tso_ram #(
        .BYTES(W),
        .DEPTH(DEPTH)
    ) u_bank_even (
        .clk  (clk),
        .we   (w1_we_e_q),
        .waddr(w1_wa_e_q),
        .wdata(w1_data_q),
        .re   (adv),
        .raddr(rd_addr),
        .rdata(rd_e)
    );

    tso_ram #(
        .BYTES(W),
        .DEPTH(DEPTH)
    ) u_bank_odd (
        .clk  (clk),
        .we   (w1_we_o_q),
        .waddr(w1_wa_o_q),
        .wdata(w1_data_q),
        .re   (adv),
        .raddr(rd_addr),
        .rdata(rd_o)
    );

    wire [SUMW-1:0] beat_sum;
    tso_sum16 #(.BYTES(W)) u_pay_sum (.data(w1_data_q), .sum(beat_sum));

    wire [7:0] w1_flags = flags_q & ~(w1_last_q ? 8'h00 : 8'h09) & ~(w1_first_q ? 8'h00 : 8'h80);

    logic              w2_valid_q;
    logic [SUMW-1:0]   w2_sum_q;
    logic              w2_end_q;
    logic              w2_commit_q;
    logic              w2_slot_q;
    logic [15:0]       w2_lm1_q;      // segment bytes on the wire, less one
    logic [15:0]       w2_iplen_q;
    logic [31:0]       w2_ipx_q;      // IPv4 sum but the length
    logic [31:0]       w2_tx_q;       // TCP sum but sequence number and flags
    logic [17:0]       w2_sqf_q;      // sequence halves and flags
    logic [15:0]       w2_id_q;
    logic [31:0]       w2_seq_q;
    logic [7:0]        w2_flags_q;
    logic [31:0]       acc_q;        // payload sum of the segment so far (before this beat)

    always_ff @(posedge clk) begin
        if (rst) begin
            w2_valid_q <= 1'b0;
        end else begin
            w2_valid_q <= w1_valid_q;
        end
        w2_sum_q    <= beat_sum;
        w2_end_q    <= w1_end_q;
        w2_commit_q <= w1_valid_q && w1_commit_q;
        w2_slot_q   <= w1_slot_q;
        w2_lm1_q    <= hlm1_q + w1_plen_q;
        w2_iplen_q  <= kip_q + w1_plen_q;
        w2_ipx_q    <= sip_q + {16'd0, w1_id_q};
        w2_tx_q     <= stcpk_q + {16'd0, w1_plen_q};
        w2_sqf_q    <= {2'b00, w1_seq_q[31:16]} + {2'b00, w1_seq_q[15:0]} + {10'd0, w1_flags};
        w2_id_q     <= w1_id_q;
        w2_seq_q    <= w1_seq_q;
        w2_flags_q  <= w1_flags;
    end

    logic              w3_commit_q;
    logic              w3_slot_q;
    logic [31:0]       w3_ptot_q;    // payload sum of the segment
    logic [31:0]       w3_ip_q;      // IPv4 header sum
    logic [31:0]       w3_th_q;      // TCP sum but payload
    logic [KW-1:0]     w3_nw_q;
    logic [W-1:0]      w3_lkeep_q;
    logic [15:0]       w3_iplen_q;
    logic [15:0]       w3_id_q;
    logic [31:0]       w3_seq_q;
    logic [7:0]        w3_flags_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            acc_q       <= '0;
            w3_commit_q <= 1'b0;
        end else begin
            if (w2_valid_q) begin
                acc_q <= w2_end_q ? '0 : acc_q + 32'(w2_sum_q);
            end
            w3_commit_q <= w2_valid_q && w2_commit_q;
        end
        w3_slot_q  <= w2_slot_q;
        w3_ptot_q  <= acc_q + 32'(w2_sum_q);
        w3_ip_q    <= w2_ipx_q + {16'd0, w2_iplen_q};
        w3_th_q    <= w2_tx_q + {14'd0, w2_sqf_q};
        w3_nw_q    <= KW'(w2_lm1_q >> LW);
        w3_lkeep_q <= lanes_le(w2_lm1_q[LW-1:0]);
        w3_iplen_q <= w2_iplen_q;
        w3_id_q    <= w2_id_q;
        w3_seq_q   <= w2_seq_q;
        w3_flags_q <= w2_flags_q;
    end

    logic              w4_commit_q;
    logic              w4_slot_q;
    logic [31:0]       w4_tsum_q;    // TCP sum
    logic [15:0]       w4_ipcs_q;
    logic [KW-1:0]     w4_nw_q;
    logic [W-1:0]      w4_lkeep_q;
    logic [15:0]       w4_iplen_q;
    logic [15:0]       w4_id_q;
    logic [31:0]       w4_seq_q;
    logic [7:0]        w4_flags_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            w4_commit_q <= 1'b0;
        end else begin
            w4_commit_q <= w3_commit_q;
        end
        w4_slot_q  <= w3_slot_q;
        w4_tsum_q  <= w3_ptot_q + w3_th_q;
        w4_ipcs_q  <= ~fold(w3_ip_q);
        w4_nw_q    <= w3_nw_q;
        w4_lkeep_q <= w3_lkeep_q;
        w4_iplen_q <= w3_iplen_q;
        w4_id_q    <= w3_id_q;
        w4_seq_q   <= w3_seq_q;
        w4_flags_q <= w3_flags_q;
    end

    always_ff @(posedge clk) begin
        if (w4_commit_q) begin
            sl_nw_q[w4_slot_q]    <= w4_nw_q;
            sl_lkeep_q[w4_slot_q] <= w4_lkeep_q;
            sl_iplen_q[w4_slot_q] <= w4_iplen_q;
            sl_id_q[w4_slot_q]    <= w4_id_q;
            sl_ipcs_q[w4_slot_q]  <= w4_ipcs_q;
            sl_seq_q[w4_slot_q]   <= w4_seq_q;
            sl_flags_q[w4_slot_q] <= w4_flags_q;
            sl_tcs_q[w4_slot_q]   <= ~fold(w4_tsum_q);
        end
    end

    // ------------------------------------------------------------------------------------------
    // Egress: R (read issue, field lanes) -> P (template word patched, RAM word) -> D (merge)
    // -> output skid buffer.
    logic [KW-1:0]     k_q;           // word of the segment
    logic [KW-1:0]     kl_q;          // words after k_q
    logic              c_hs_q;
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
    task automatic load_segment(input logic s);
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
            rsel_q     <= 1'b0;
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
                    rsel_q          <= !rsel_q;
                    if (ready_q[!rsel_q]) begin
                        load_segment(!rsel_q);
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

    // Both banks are read at word k_q / 2; the word's parity picks one.
    assign rd_addr = (rsel_q ? RAW'(HALF) : RAW'(0)) + RAW'(k_q >> 1);

    // Stage R: template word k_q (its group's candidates), its template lanes, and which field
    // (if any) each 16-bit lane pair carries (fields sit at even offsets), one-hot so that P is
    // an AND-OR: 0 none, 1 IP length, 2 identification, 3 IPv4 checksum, 4 and 5 sequence number
    // halves, 6 offset and flags, 7 TCP checksum.
    wire [NC*DATA_W-1:0] t_cand = group_words(hdr_q[c_hs_q], k_q[1:0]);
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
    logic [KW-1:0]     p_k_q;
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
            p_cand_q    <= t_cand;
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

    logic              d_valid_q;
    logic [DATA_W-1:0] d_tword_q;
    // The RAM words straight into flip-flops: a block RAM's read data comes late in the clock
    // (no output register), so the parity choice waits for stage D.
    logic [DATA_W-1:0] d_re_q;
    logic [DATA_W-1:0] d_ro_q;
    logic              d_odd_q;
    logic [W-1:0]      d_tmask_q;
    logic [W-1:0]      d_keep_q;
    logic              d_last_q;

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

    logic [DATA_W-1:0] d_data;
    always_comb begin
        for (int l = 0; l < W; l++) begin
            d_data[8*l +: 8] = d_tmask_q[l] ? d_tword_q[8*l +: 8]
                             : d_odd_q      ? d_ro_q[8*l +: 8] : d_re_q[8*l +: 8];
        end
    end

    skid_buffer #(
        .WIDTH(DATA_W + W + 1)
    ) u_seg_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(d_valid_q),
        .s_ready(adv),
        .s_data ({d_data, d_keep_q, d_last_q}),
        .m_valid(m_seg_valid),
        .m_ready(m_seg_ready),
        .m_data ({m_seg_tdata, m_seg_tkeep, m_seg_tlast})
    );

endmodule

`resetall
