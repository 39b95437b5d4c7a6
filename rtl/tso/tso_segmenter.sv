// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// TCP segmentation offload for Ethernet and IPoIB (REFERENCE §5): one send (a descriptor, its
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
// the segments whose last byte came on an earlier beat have gone out (each one exactly the
// model's segment for the announced send), that segment and the rest never do. Either way the
// status follows, and the next descriptor starts afresh. Nothing waits for a byte that the
// stream's tlast says will not come, so a bad send cannot hang the unit.
//
// Pipeline:
//   ingress  S_IDLE takes a descriptor; S_HDR stores the header beats into one of two header
//            slots (flip-flops); S_PARSE registers tso_parse's results; S_SUM adds the template's
//            constant checksum words, one beat of the template per cycle; S_PAY writes payload.
//   write    each S_PAY cycle is a pass: the bytes of the current beat that belong to the
//            current segment (a beat holding a segment boundary takes two passes) are rotated to
//            their place in the segment and written into one of two segment slots. A slot holds
//            a segment at its wire offsets (payload from byte hdr_len on), so read-out needs no
//            realignment. The slot is split into even and odd words (two RAMs), so a rotated
//            pass, which straddles two words, is one write per RAM. Stage W1 writes and feeds
//            the beat's checksum adder (tso_sum16), W2 accumulates; at a segment's end W2 folds
//            the TCP and IPv4 checksums and W3 marks the slot ready with its header fields.
//   egress   reads a ready slot one word per clock, puts the template bytes (with the segment's
//            fields) over the first hdr_len bytes, and releases the slot with its last word.
//            The next ready slot starts on the following clock, so back-to-back segments leave
//            no idle cycle.
// Double buffering: while one slot goes out the next segment fills the other, so its checksum
// is known before its header leaves. With a 64-bit path and MSS 1448 the writer needs about 182
// passes per segment (181 beats, one of them split) and the reader 190 beats, so the output is
// busy on nearly every cycle; at 512 bits the two are about equal (23-24), and the per-send
// header and checksum stages show (both measured in sim/tests/tso.rs).
//
// Back-pressure: s_desc_ready, s_data_ready, m_seg_valid and m_sts_valid come from the
// skid_buffer registers. The egress is a stall-all pipeline (read, then merge) that advances on
// the output skid buffer's registered s_ready, as in entropy_unit.
//
// Latency: a segment's header can only go once its payload, and so its checksum, is complete:
// its first beat follows its last payload pass through W1, W2, W3, the read and the skid buffer.
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
    // A segment sits at its wire offsets: up to MAX_HDR + MAX_MSS bytes per slot.
    localparam int SLOT_WORDS = (MAX_HDR + MAX_MSS + W - 1) / W;
    localparam int HALF  = (SLOT_WORDS + 2) / 2;         // words per slot in each bank (+1 spare)
    localparam int DEPTH = 2 * HALF;                     // bank RAM depth: two slots
    localparam int RAW   = $clog2(DEPTH);                // bank address width
    localparam int KW    = $clog2(SLOT_WORDS + 1);       // segment word counter width
    localparam int LEN_W = $clog2(MAX_TSO + 1);          // payload byte counter width
    localparam int SUMW  = 16 + $clog2(W / 2 + 1);       // one beat's checksum sum width

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

    // Bytes in the current beat.
    logic [LW:0] cnt;
    always_comb begin
        cnt = '0;
        for (int l = 0; l < W; l++) begin
            cnt = cnt + (LW + 1)'(i_keep[l]);
        end
    end

    // ------------------------------------------------------------------------------------------
    // Header slots. A send's template and its parsed offsets stay put until the egress has
    // released the last segment that uses them; the next send takes the other slot.
    logic [HB*8-1:0] hdr_q     [2];
    logic [15:0]     hs_len_q  [2];   // template length
    logic [7:0]      hs_ip_q   [2];   // IP offset
    logic [7:0]      hs_tcp_q  [2];   // TCP offset
    logic            hs_v4_q   [2];   // IPv4, else IPv6

    // Segment slots: busy from the commit of a segment until the egress releases it; ready
    // once its checksums are in. Per-slot header fields, written with ready.
    logic [1:0]  busy_q;
    logic [1:0]  ready_q;
    logic        sl_hs_q    [2];   // header slot
    logic [15:0] sl_len_q   [2];   // segment bytes on the wire
    logic [15:0] sl_iplen_q [2];   // IPv4 total length or IPv6 payload length
    logic [15:0] sl_id_q    [2];   // IPv4 identification
    logic [15:0] sl_ipcs_q  [2];   // IPv4 header checksum
    logic [31:0] sl_seq_q   [2];   // TCP sequence number
    logic [7:0]  sl_flags_q [2];   // TCP flags
    logic [15:0] sl_tcs_q   [2];   // TCP checksum

    // ------------------------------------------------------------------------------------------
    // Ingress state
    typedef enum logic [2:0] {
        S_IDLE,    // waiting for a descriptor and a free header slot
        S_HDR,     // storing header beats
        S_PARSE,   // registering the template checks
        S_SUM,     // template checksum words, one beat per cycle
        S_PAY,     // payload passes
        S_DRAIN,   // a bad send: dropping beats up to tlast
        S_STATUS   // offering the status
    } state_e;

    state_e            st_q;
    logic              hs_q;          // header slot of the current send
    logic [15:0]       h_len_q;       // template length
    logic [15:0]       mss_q;
    logic [LEN_W-1:0]  len_q;         // payload length (valid once the descriptor checks passed)
    logic              ipoib_q;
    logic [3:0]        err_q;
    logic [31:0]       nseg_q;        // segments committed for this send
    logic [HKW-1:0]    hk_q;          // template word being stored / summed
    logic [LW-1:0]     lo_q;          // first unprocessed lane of the current beat
    logic              ended_q;       // the stream's tlast has been consumed
    // template fields (current send)
    logic [7:0]        ip_off_q;
    logic [7:0]        tcp_off_q;
    logic              v4_q;
    logic [15:0]       ident_q;
    logic [7:0]        doff_q;
    logic [7:0]        flags_q;
    logic [31:0]       sip_q;         // IPv4 header words but length, ID, checksum
    logic [31:0]       stcp_q;        // pseudo-header addresses and protocol, TCP header words but
                                      // sequence, offset/flags and checksum
    // payload progress
    logic [15:0]       seg_left_q;    // bytes still to come in the current segment
    logic [15:0]       seg_len_q;     // payload bytes of the current segment
    logic [LEN_W-1:0]  tot_left_q;    // announced payload bytes still to come
    logic [15:0]       a_q;           // slot byte address of the next payload byte
    logic [15:0]       seg_idx_q;     // segment index (IPv4 ID offset)
    logic [31:0]       seq_cur_q;     // sequence number of the current segment
    logic              wsel_q;        // segment slot being written

    // ---- template checks
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
        .hdr      (hdr_q[hs_q]),
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

    // ---- template checksum words (S_SUM): which lanes of template word hk_q count
    wire [DATA_W-1:0] sum_word = hdr_q[hs_q][hk_q * DATA_W +: DATA_W];
    logic [W-1:0] ip_mask;
    logic [W-1:0] tcp_mask;
    always_comb begin
        for (int l = 0; l < W; l++) begin
            logic [15:0] a;
            logic [15:0] ri;
            logic [15:0] rt;
            logic        in_addr;
            a  = 16'(hk_q) * 16'(W) + 16'(l);
            ri = a - {8'd0, ip_off_q};
            rt = a - {8'd0, tcp_off_q};
            ip_mask[l] = v4_q && a >= {8'd0, ip_off_q} && a < {8'd0, tcp_off_q}
                         && !(ri == 16'd2 || ri == 16'd3 || ri == 16'd4 || ri == 16'd5
                              || ri == 16'd10 || ri == 16'd11);
            in_addr = v4_q ? (a >= {8'd0, ip_off_q} && ri >= 16'd12 && ri < 16'd20)
                           : (a >= {8'd0, ip_off_q} && ri >= 16'd8 && ri < 16'd40);
            tcp_mask[l] = in_addr
                          || (a >= {8'd0, tcp_off_q} && a < h_len_q
                              && !(rt == 16'd4 || rt == 16'd5 || rt == 16'd6 || rt == 16'd7
                                   || rt == 16'd12 || rt == 16'd13 || rt == 16'd16
                                   || rt == 16'd17));
        end
    end

    wire [SUMW-1:0] ip_word_sum;
    wire [SUMW-1:0] tcp_word_sum;
    tso_sum16 #(.BYTES(W)) u_ip_sum  (.data(sum_word), .mask(ip_mask),  .sum(ip_word_sum));
    tso_sum16 #(.BYTES(W)) u_tcp_sum (.data(sum_word), .mask(tcp_mask), .sum(tcp_word_sum));

    // Last template word: the one holding byte h_len - 1.
    wire [15:0]    h_last_word = (h_len_q - 16'd1) >> LW;

    // Header slot free: no committed segment still refers to it.
    wire hs_free = !(busy_q[0] && sl_hs_q[0] == !hs_q) && !(busy_q[1] && sl_hs_q[1] == !hs_q);

    // ---- one payload pass (S_PAY)
    wire [LW:0]  avail     = cnt - {1'b0, lo_q};
    wire         fits      = {{(16 - LW - 1){1'b0}}, avail} < seg_left_q;
    wire [LW:0]  n         = fits ? avail : seg_left_q[LW:0];
    wire [LEN_W-1:0] avail_l = LEN_W'(avail);
    wire         bad_short = i_last && avail_l < tot_left_q;
    wire         bad_long  = avail_l > tot_left_q || (avail_l == tot_left_q && !i_last);
    wire         seg_done  = !fits;   // n == seg_left: this pass ends the segment
    wire         last_seg  = tot_left_q == LEN_W'(seg_left_q);
    wire         pass      = st_q == S_PAY && tot_left_q != 0 && i_valid && !busy_q[wsel_q];
    // The empty send (payload length 0): one header-only segment once its slot is free.
    wire         empty_commit = st_q == S_PAY && tot_left_q == 0 && !busy_q[wsel_q];
    wire         commit    = empty_commit || (pass && seg_done && !bad_short && !bad_long);
    wire         drop      = pass && (bad_short || bad_long);   // bad_long implies seg_done

    // Rotation of the beat onto the slot's lanes, and the lanes written.
    wire [LW-1:0] rot = a_q[LW-1:0] - lo_q;
    wire [LW-1:0] a_lane = a_q[LW-1:0];
    logic [DATA_W-1:0] rot_data;
    logic [W-1:0]      in_mask;
    logic [W-1:0]      rot_mask;
    logic [W-1:0]      be0;        // lanes of word a_q / W
    logic [W-1:0]      be1;        // lanes of the next word
    always_comb begin
        for (int l = 0; l < W; l++) begin
            in_mask[l] = (LW + 1)'(l) >= {1'b0, lo_q} && (LW + 1)'(l) < {1'b0, lo_q} + n;
        end
        for (int l = 0; l < W; l++) begin
            rot_data[8*l +: 8] = i_data[8*(LW'(l) - rot) +: 8];
            rot_mask[l]        = in_mask[LW'(l) - rot];
            be0[l]             = rot_mask[l] && LW'(l) >= a_lane;
            be1[l]             = rot_mask[l] && LW'(l) < a_lane;
        end
    end

    // Word a_q / W goes to bank (its parity), the next word to the other bank.
    wire [15:0]    w0      = a_q >> LW;
    wire [RAW-1:0] slot_base = wsel_q ? RAW'(HALF) : RAW'(0);
    wire [RAW-1:0] addr_o  = slot_base + RAW'(w0 >> 1);
    wire [RAW-1:0] addr_e  = slot_base + RAW'((w0 + 16'd1) >> 1);
    wire [W-1:0]   be_e    = w0[0] ? be1 : be0;
    wire [W-1:0]   be_o    = w0[0] ? be0 : be1;

    // Per-segment header values, known at the commit.
    wire [15:0] c_plen   = seg_len_q;
    wire [15:0] c_seglen = h_len_q + c_plen;
    wire [15:0] c_iplen  = c_seglen - {8'd0, ip_off_q} - (v4_q ? 16'd0 : 16'd40);
    wire [15:0] c_tcplen = c_seglen - {8'd0, tcp_off_q};
    wire [15:0] c_id     = ident_q + seg_idx_q;
    wire        c_first  = seg_idx_q == 16'd0;
    wire        c_last   = empty_commit || last_seg;
    wire [7:0]  c_flags  = flags_q & ~(c_last ? 8'h00 : 8'h09) & ~(c_first ? 8'h00 : 8'h80);
    wire [31:0] c_ippart = sip_q + {16'd0, c_iplen} + {16'd0, c_id};
    wire [31:0] c_tcppart = stcp_q + {16'd0, c_tcplen} + {16'd0, seq_cur_q[31:16]}
                            + {16'd0, seq_cur_q[15:0]} + {16'd0, doff_q, c_flags};

    // ---- ingress handshakes
    always_comb begin
        d_ready = st_q == S_IDLE && hs_free;
        i_ready = 1'b0;
        case (st_q)
            S_HDR:   i_ready = !(16'(hk_q) * 16'(W) + 16'(cnt) >= h_len_q
                                 && {{(16 - LW - 1){1'b0}}, cnt}
                                    > h_len_q - 16'(hk_q) * 16'(W));
            S_PAY:   i_ready = pass && (bad_short || bad_long || n == avail
                                         || (seg_done && last_seg));
            S_DRAIN: i_ready = 1'b1;
            default: i_ready = 1'b0;
        endcase
    end

    wire sts_ready;

    always_ff @(posedge clk) begin
        if (rst) begin
            st_q    <= S_IDLE;
            hs_q    <= 1'b1;   // the first send takes slot 0
            wsel_q  <= 1'b0;
            ended_q <= 1'b0;
        end else begin
            case (st_q)
                S_IDLE: if (d_valid && d_ready) begin
                    hs_q     <= !hs_q;
                    h_len_q  <= d_hdr_len;
                    mss_q    <= d_mss;
                    len_q    <= LEN_W'(d_len);
                    ipoib_q  <= d_ipoib;
                    nseg_q   <= '0;
                    hk_q     <= '0;
                    ended_q  <= 1'b0;
                    if (d_mss == 16'd0) begin
                        err_q <= ERR_MSS_ZERO;
                        st_q  <= S_DRAIN;
                    end else if (d_hdr_len > 16'(MAX_HDR)) begin
                        err_q <= ERR_HDR_TOO_LONG;
                        st_q  <= S_DRAIN;
                    end else if (d_len > 32'(MAX_TSO)) begin
                        err_q <= ERR_LEN_TOO_LONG;
                        st_q  <= S_DRAIN;
                    end else begin
                        err_q <= ERR_NONE;
                        st_q  <= S_HDR;
                    end
                end
                S_HDR: if (i_valid) begin
                    if (16'(hk_q) * 16'(W) + 16'(cnt) >= h_len_q) begin
                        // The template ends in this beat; any bytes after it are payload and
                        // the beat stays for S_PAY.
                        lo_q    <= LW'(h_len_q - 16'(hk_q) * 16'(W));
                        ended_q <= i_ready && i_last;
                        hk_q    <= '0;
                        st_q    <= S_PARSE;
                    end else if (i_last) begin
                        err_q   <= ERR_SHORT;
                        st_q    <= S_STATUS;
                    end else begin
                        hk_q    <= hk_q + 1'b1;
                    end
                end
                S_PARSE: begin
                    ip_off_q  <= p_ip_off;
                    tcp_off_q <= p_tcp_off;
                    v4_q      <= p_v4;
                    ident_q   <= p_ident;
                    seq_cur_q <= p_seq;
                    doff_q    <= p_doff;
                    flags_q   <= p_flags;
                    sip_q     <= '0;
                    stcp_q    <= 32'd6;   // pseudo-header: zero byte and protocol TCP
                    if (p_err != ERR_NONE) begin
                        err_q <= p_err;
                        st_q  <= ended_q ? S_STATUS : S_DRAIN;
                    end else begin
                        st_q  <= S_SUM;
                    end
                end
                S_SUM: begin
                    sip_q  <= sip_q + 32'(ip_word_sum);
                    stcp_q <= stcp_q + 32'(tcp_word_sum);
                    hk_q   <= hk_q + 1'b1;
                    if (16'(hk_q) == h_last_word) begin
                        seg_left_q <= len_q < LEN_W'(mss_q) ? 16'(len_q) : mss_q;
                        seg_len_q  <= len_q < LEN_W'(mss_q) ? 16'(len_q) : mss_q;
                        tot_left_q <= len_q;
                        a_q        <= h_len_q;
                        seg_idx_q  <= '0;
                        if (len_q == 0 && !ended_q) begin
                            err_q <= ERR_LONG;
                            st_q  <= S_DRAIN;
                        end else if (len_q != 0 && ended_q) begin
                            err_q <= ERR_SHORT;
                            st_q  <= S_STATUS;
                        end else begin
                            st_q  <= S_PAY;
                        end
                    end
                end
                S_PAY: begin
                    if (empty_commit) begin
                        wsel_q <= !wsel_q;
                        nseg_q <= nseg_q + 1;
                        st_q   <= S_STATUS;
                    end else if (pass) begin
                        if (seg_done || bad_short) begin
                            if (bad_short || bad_long) begin
                                // The mismatch shows on this beat: drop this segment.
                                err_q <= bad_short ? ERR_SHORT : ERR_LONG;
                                st_q  <= i_last ? S_STATUS : S_DRAIN;
                            end else begin
                                wsel_q     <= !wsel_q;
                                nseg_q     <= nseg_q + 1;
                                seg_idx_q  <= seg_idx_q + 16'd1;
                                seq_cur_q  <= seq_cur_q + {16'd0, mss_q};
                                a_q        <= h_len_q;
                                tot_left_q <= tot_left_q - LEN_W'(n);
                                seg_left_q <= tot_left_q - LEN_W'(n) < LEN_W'(mss_q)
                                              ? 16'(tot_left_q - LEN_W'(n)) : mss_q;
                                seg_len_q  <= tot_left_q - LEN_W'(n) < LEN_W'(mss_q)
                                              ? 16'(tot_left_q - LEN_W'(n)) : mss_q;
                                lo_q       <= n == avail ? '0 : lo_q + LW'(n);
                                if (last_seg) begin
                                    st_q <= S_STATUS;
                                end
                            end
                        end else begin
                            // The beat ends inside the segment.
                            seg_left_q <= seg_left_q - 16'(n);
                            tot_left_q <= tot_left_q - LEN_W'(n);
                            a_q        <= a_q + 16'(n);
                            lo_q       <= '0;
                        end
                    end
                end
                S_DRAIN: if (i_valid && i_last) begin
                    st_q <= S_STATUS;
                end
                S_STATUS: if (sts_ready) begin
                    st_q <= S_IDLE;
                end
                default: st_q <= S_IDLE;
            endcase
        end
    end

    // Template bytes: stored as they arrive.
    always_ff @(posedge clk) begin
        if (st_q == S_HDR && i_valid && 32'(hk_q) < HW) begin
            hdr_q[hs_q][hk_q * DATA_W +: DATA_W] <= i_data;
        end
        if (st_q == S_PARSE) begin
            hs_len_q[hs_q] <= h_len_q;
            hs_ip_q[hs_q]  <= p_ip_off;
            hs_tcp_q[hs_q] <= p_tcp_off;
            hs_v4_q[hs_q]  <= p_v4;
        end
    end

    skid_buffer #(
        .WIDTH(36)
    ) u_sts_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(st_q == S_STATUS),
        .s_ready(sts_ready),
        .s_data ({err_q, nseg_q}),
        .m_valid(m_sts_valid),
        .m_ready(m_sts_ready),
        .m_data ({m_sts_error, m_sts_segments})
    );

    // ------------------------------------------------------------------------------------------
    // Write pipeline. W1: RAM write, beat checksum. W2: accumulate; at a segment end, fold.
    logic              w1_valid_q;
    logic [DATA_W-1:0] w1_data_q;
    logic [W-1:0]      w1_mask_q;
    logic              w1_end_q;      // the segment ends with this pass (commit or drop)
    logic              w1_commit_q;
    logic              w1_slot_q;
    logic [15:0]       w1_len_q;
    logic [15:0]       w1_iplen_q;
    logic [15:0]       w1_id_q;
    logic [31:0]       w1_seq_q;
    logic [7:0]        w1_flags_q;
    logic [31:0]       w1_ippart_q;
    logic [31:0]       w1_tcppart_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            w1_valid_q <= 1'b0;
        end else begin
            w1_valid_q <= pass || empty_commit;
        end
        w1_data_q    <= rot_data;
        w1_mask_q    <= pass ? rot_mask : '0;
        w1_end_q     <= commit || drop;
        w1_commit_q  <= commit;
        w1_slot_q    <= wsel_q;
        w1_len_q     <= c_seglen;
        w1_iplen_q   <= c_iplen;
        w1_id_q      <= c_id;
        w1_seq_q     <= seq_cur_q;
        w1_flags_q   <= c_flags;
        w1_ippart_q  <= c_ippart;
        w1_tcppart_q <= c_tcppart;
    end

    // The RAM write is registered inside tso_ram, so the pass's write lands at the W0 -> W1
    // edge; W1 only carries the same data on to the checksum adder.
    wire [DATA_W-1:0] rd_e;
    wire [DATA_W-1:0] rd_o;
    wire              adv;           // egress advances (output skid buffer's s_ready)
    logic [RAW-1:0]   rd_addr;

    tso_ram #(
        .BYTES(W),
        .DEPTH(DEPTH)
    ) u_bank_even (
        .clk  (clk),
        .we   (pass ? be_e : '0),
        .waddr(addr_e),
        .wdata(rot_data),
        .re   (adv),
        .raddr(rd_addr),
        .rdata(rd_e)
    );

    tso_ram #(
        .BYTES(W),
        .DEPTH(DEPTH)
    ) u_bank_odd (
        .clk  (clk),
        .we   (pass ? be_o : '0),
        .waddr(addr_o),
        .wdata(rot_data),
        .re   (adv),
        .raddr(rd_addr),
        .rdata(rd_o)
    );

    wire [SUMW-1:0] beat_sum;
    tso_sum16 #(.BYTES(W)) u_pay_sum (.data(w1_data_q), .mask(w1_mask_q), .sum(beat_sum));

    logic              w2_valid_q;
    logic [SUMW-1:0]   w2_sum_q;
    logic              w2_end_q;
    logic              w2_commit_q;
    logic              w2_slot_q;
    logic [15:0]       w2_len_q;
    logic [15:0]       w2_iplen_q;
    logic [15:0]       w2_id_q;
    logic [31:0]       w2_seq_q;
    logic [7:0]        w2_flags_q;
    logic [31:0]       w2_ippart_q;
    logic [31:0]       w2_tcppart_q;
    logic [31:0]       acc_q;        // payload sum of the segment so far (before this beat)

    always_ff @(posedge clk) begin
        if (rst) begin
            w2_valid_q <= 1'b0;
            acc_q      <= '0;
        end else begin
            w2_valid_q <= w1_valid_q;
            if (w2_valid_q) begin
                acc_q <= w2_end_q ? '0 : acc_q + 32'(w2_sum_q);
            end
        end
        w2_sum_q     <= beat_sum;
        w2_end_q     <= w1_end_q;
        w2_commit_q  <= w1_valid_q && w1_commit_q;
        w2_slot_q    <= w1_slot_q;
        w2_len_q     <= w1_len_q;
        w2_iplen_q   <= w1_iplen_q;
        w2_id_q      <= w1_id_q;
        w2_seq_q     <= w1_seq_q;
        w2_flags_q   <= w1_flags_q;
        w2_ippart_q  <= w1_ippart_q;
        w2_tcppart_q <= w1_tcppart_q;
    end

    // End-around-carry fold of a 32-bit sum: two rounds reach 16 bits (RFC 1071).
    function automatic logic [15:0] fold(input logic [31:0] s);
        logic [16:0] t;
        t = {1'b0, s[15:0]} + {1'b0, s[31:16]};
        t = {1'b0, t[15:0]} + {16'd0, t[16]};
        fold = t[15:0];
    endfunction

    wire [15:0] tcs  = ~fold(w2_tcppart_q + acc_q + 32'(w2_sum_q));
    wire [15:0] ipcs = ~fold(w2_ippart_q);

    // ------------------------------------------------------------------------------------------
    // Egress: R (read issue, template word) -> D (RAM word, merge) -> output skid buffer.
    logic              r_active_q;
    logic              rsel_q;        // slot being read
    logic [KW-1:0]     k_q;           // word of the segment
    logic [15:0]       left_q;        // bytes of the segment from word k_q on
    logic              c_hs_q;
    logic [15:0]       c_hlen_q;
    logic [7:0]        c_ip_q;
    logic [7:0]        c_tcp_q;
    logic              c_v4_q;
    logic [15:0]       c_iplen_q;
    logic [15:0]       c_id_q;
    logic [15:0]       c_ipcs_q;
    logic [31:0]       c_seq_q;
    logic [7:0]        c_flg_q;
    logic [15:0]       c_tcs_q;

    wire r_last = left_q <= 16'(W);

    // Loads the egress registers for slot s.
    task automatic load_segment(input logic s);
        c_hs_q    <= sl_hs_q[s];
        c_hlen_q  <= hs_len_q[sl_hs_q[s]];
        c_ip_q    <= hs_ip_q[sl_hs_q[s]];
        c_tcp_q   <= hs_tcp_q[sl_hs_q[s]];
        c_v4_q    <= hs_v4_q[sl_hs_q[s]];
        c_iplen_q <= sl_iplen_q[s];
        c_id_q    <= sl_id_q[s];
        c_ipcs_q  <= sl_ipcs_q[s];
        c_seq_q   <= sl_seq_q[s];
        c_flg_q   <= sl_flags_q[s];
        c_tcs_q   <= sl_tcs_q[s];
        left_q    <= sl_len_q[s];
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
            if (w2_valid_q && w2_commit_q) begin
                ready_q[w2_slot_q] <= 1'b1;
            end
            if (!r_active_q) begin
                if (ready_q[rsel_q]) begin
                    load_segment(rsel_q);
                    r_active_q <= 1'b1;
                end
            end else if (adv) begin
                if (r_last) begin
                    busy_q[rsel_q]  <= 1'b0;
                    ready_q[rsel_q] <= 1'b0;
                    rsel_q          <= !rsel_q;
                    if (ready_q[!rsel_q]) begin
                        load_segment(!rsel_q);
                    end else begin
                        r_active_q <= 1'b0;
                    end
                end else begin
                    k_q    <= k_q + 1'b1;
                    left_q <= left_q - 16'(W);
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (w2_valid_q && w2_commit_q) begin
            sl_len_q[w2_slot_q]   <= w2_len_q;
            sl_iplen_q[w2_slot_q] <= w2_iplen_q;
            sl_id_q[w2_slot_q]    <= w2_id_q;
            sl_ipcs_q[w2_slot_q]  <= ipcs;
            sl_seq_q[w2_slot_q]   <= w2_seq_q;
            sl_flags_q[w2_slot_q] <= w2_flags_q;
            sl_tcs_q[w2_slot_q]   <= tcs;
        end
    end

    // Both banks are read at word k_q / 2; the word's parity picks one.
    assign rd_addr = (rsel_q ? RAW'(HALF) : RAW'(0)) + RAW'(k_q >> 1);

    // Template word k_q with the segment's fields in place; lanes past the template are masked.
    wire [DATA_W-1:0] t_word = 32'(k_q) < HW ? hdr_q[c_hs_q][(32'(k_q) % HW) * DATA_W +: DATA_W]
                                             : '0;
    logic [DATA_W-1:0] t_patched;
    logic [W-1:0]      t_mask;
    logic [W-1:0]      r_keep;
    always_comb begin
        for (int l = 0; l < W; l++) begin
            logic [15:0] a;
            logic [15:0] ri;
            logic [15:0] rt;
            logic [7:0]  b;
            a  = 16'(k_q) * 16'(W) + 16'(l);
            ri = a - {8'd0, c_ip_q};
            rt = a - {8'd0, c_tcp_q};
            b  = t_word[8*l +: 8];
            if (c_v4_q) begin
                case (ri)
                    16'd2:  b = c_iplen_q[15:8];
                    16'd3:  b = c_iplen_q[7:0];
                    16'd4:  b = c_id_q[15:8];
                    16'd5:  b = c_id_q[7:0];
                    16'd10: b = c_ipcs_q[15:8];
                    16'd11: b = c_ipcs_q[7:0];
                    default: ;
                endcase
            end else begin
                case (ri)
                    16'd4:  b = c_iplen_q[15:8];
                    16'd5:  b = c_iplen_q[7:0];
                    default: ;
                endcase
            end
            case (rt)
                16'd4:  b = c_seq_q[31:24];
                16'd5:  b = c_seq_q[23:16];
                16'd6:  b = c_seq_q[15:8];
                16'd7:  b = c_seq_q[7:0];
                16'd13: b = c_flg_q;
                16'd16: b = c_tcs_q[15:8];
                16'd17: b = c_tcs_q[7:0];
                default: ;
            endcase
            t_patched[8*l +: 8] = b;
            t_mask[l]           = a < c_hlen_q;
            r_keep[l]           = !r_last || 16'(l) < left_q;
        end
    end

    logic              d_valid_q;
    logic [DATA_W-1:0] d_tword_q;
    logic [W-1:0]      d_tmask_q;
    logic [W-1:0]      d_keep_q;
    logic              d_last_q;
    logic              d_odd_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            d_valid_q <= 1'b0;
        end else if (adv) begin
            d_valid_q <= r_active_q;
        end
        if (adv) begin
            d_tword_q <= t_patched;
            d_tmask_q <= t_mask;
            d_keep_q  <= r_keep;
            d_last_q  <= r_last;
            d_odd_q   <= k_q[0];
        end
    end

    logic [DATA_W-1:0] d_data;
    always_comb begin
        for (int l = 0; l < W; l++) begin
            d_data[8*l +: 8] = d_tmask_q[l] ? d_tword_q[8*l +: 8]
                             : d_odd_q      ? rd_o[8*l +: 8] : rd_e[8*l +: 8];
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
