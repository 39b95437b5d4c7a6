// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_TEMPLATE_SV
`define ROCENIC_TSO_TEMPLATE_SV
`include "rtl/tso/tso_parse.sv"
`include "rtl/tso/tso_sum16.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The header template side of the TSO segmenter (tso_segmenter.sv): the two header slots in
// flip-flops with their read ports, the template checks (tso_parse) and the fields they yield,
// the template's constant checksum words (S_SUM), and the per-send header constants (S_PREP1,
// S_PREP2) that the write pipeline adds to each segment's own fields.
//
// A part of its own because it is everything the segmenter knows about a send's header: the
// state machine (tso_ingress) says which slot and word a template beat goes to and when each
// step runs; the write pipeline (tso_writer) and the egress (tso_egress) read what is here.
// The registers without a reset hold during reset, as they did inside the state machine.
module tso_template #(
    parameter  int DATA_W  = 64,     // Data path width in bits (tso_segmenter's)
    parameter  int MAX_HDR = 128,    // Longest header template in bytes (tso_segmenter's)
    parameter  int MAX_MSS = 9000,   // Largest MSS in bytes (tso_segmenter's), for tso_parse
    localparam int W       = DATA_W / 8,               // Bytes per beat
    localparam int HW      = (MAX_HDR + W - 1) / W,    // Template words per header slot
    localparam int HKW     = $clog2(HW + 1),           // Template word counter width
    // A template word is picked in two clocks: of each group of four words by the word's low
    // two bits (and the header slot), then among the NC groups.
    localparam int NC      = (HW + 3) / 4
) (
    input  wire                 clk,
    input  wire                 rst,          // synchronous, active high
    // from the state machine (tso_ingress)
    input  wire                 st_hdr,       // in S_HDR
    input  wire                 st_parse,     // in S_PARSE
    input  wire                 st_sum,       // in S_SUM
    input  wire                 st_prep1,     // in S_PREP1
    input  wire                 st_prep2,     // in S_PREP2
    input  wire                 hs_q,         // header slot of the current send
    input  wire [2*HW-1:0]      hwe_q,        // one-hot: slot and word of the next template beat
    input  wire [HKW-1:0]       hk_q,         // template word being summed
    input  wire                 parse_go_q,   // first S_PARSE cycle
    input  wire [15:0]          h_len_q,      // template length
    input  wire [15:0]          mss_q,
    input  wire                 ipoib_q,
    // template beats (the data skid buffer)
    input  wire                 i_valid,
    input  wire [DATA_W-1:0]    i_data,
    // template checks (tso_parse)
    output wire                 parse_done,
    output wire [3:0]           p_err,
    output wire [15:0]          p_ident,      // IPv4 identification of the template
    output wire [31:0]          p_seq,        // TCP sequence number of the template
    // template fields (current send), loaded in S_PARSE
    output logic [7:0]          ip_off_q,
    output logic [7:0]          tcp_off_q,
    output logic                v4_q,
    output logic [7:0]          flags_q,
    // per-send header sums and constants
    output logic [31:0]         sip_q,        // IPv4 header words but length, ID, checksum
    output logic [31:0]         stcpk_q,      // a segment's TCP sum less payload, payload
                                              // length, sequence number and flags
    output logic [15:0]         kip_q,        // IP length field less the segment payload
    output logic [15:0]         hlm1_q,       // h_len - 1
    // the egress's read port: word 4c + rd_lo of slot rd_hs for each group c
    input  wire                 rd_hs,
    input  wire [1:0]           rd_lo,
    output wire [NC*DATA_W-1:0] rd_cand
);

    localparam int LW   = $clog2(W);                     // lane index width
    localparam int HB   = HW * W;                        // template bytes per header slot
    // Template byte addresses and their differences (wrapping is harmless: every difference
    // is only looked at where the address is past the base).
    localparam int AW   = (HKW + LW > 8 ? HKW + LW : 8) + 1;
    localparam int SUMW = 16 + $clog2(W / 2 + 1);        // one beat's checksum sum width

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
    // Header slots. A send's template stays put until the egress has released the last segment
    // that uses it; the next send takes the other slot.
    logic [HB*8-1:0] hdr_q [2];
    // Copies of hs_q for the two wide readers of the template, taken while it is stored, so
    // that no one flip-flop drives the slot choice of both (about 1000 loads, which cost more
    // routing than a clock has).
    logic            hs_par_q;      // for tso_parse (valid from the second S_HDR clock on)
    logic            hs_sum_q;      // for the template sum (valid in S_PARSE and after)

    always_ff @(posedge clk) begin
        if (st_hdr) begin
            hs_par_q <= hs_q;
        end
        if (st_parse) begin
            hs_sum_q <= hs_q;
        end
    end

    // Template bytes: stored as they arrive.
    always_ff @(posedge clk) begin
        for (int t = 0; t < 2; t++) begin
            for (int k = 0; k < HW; k++) begin
                if (i_valid && hwe_q[t*HW + k]) begin
                    hdr_q[t][k*DATA_W +: DATA_W] <= i_data;
                end
            end
        end
    end

    assign rd_cand = group_words(hdr_q[rd_hs], rd_lo);

    // ---- template checks
    logic [7:0]  p_ip_off;
    logic [7:0]  p_tcp_off;
    logic        p_v4;
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

    logic [7:0]  doff_q;
    logic [15:0] ktcp_q;        // TCP length less the segment payload
    logic [15:0] kdoff_q;       // ktcp_q plus the data offset byte's checksum word

    // ---- template checksum words (S_SUM): stage S0 picks template word hk_q (of each group of
    // four) and the lanes that count, stage A the word, masked, stage B adds, stage C
    // accumulates. The lanes come from the word's first address less the IP offset, the TCP
    // offset and the template length (sri_q, srt_q, srh_q), each compared with constants: no
    // subtraction on the way. The compares run a word ahead (the counters point at word
    // hk_q + 1 in S_SUM, at word 0 before it) into the lane flags below, which S0 combines.
    logic signed [AW:0] sri_q;
    logic signed [AW:0] srt_q;
    logic signed [AW:0] srh_q;

    // The template fields (while the checks run; the last S_PARSE clock leaves the results),
    // the sum's counters, and the per-send constants.
    always_ff @(posedge clk) begin
        if (!rst) begin
            if (st_parse) begin
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
                doff_q    <= p_doff;
                flags_q   <= p_flags;
            end
            if (st_sum) begin
                sri_q <= sri_q + (AW + 1)'(W);
                srt_q <= srt_q + (AW + 1)'(W);
                srh_q <= srh_q + (AW + 1)'(W);
            end
            if (st_prep1) begin
                // Lengths and offsets of the send.
                kip_q  <= h_len_q - {8'd0, ip_off_q} - (v4_q ? 16'd0 : 16'd40);
                ktcp_q <= h_len_q - {8'd0, tcp_off_q};
                hlm1_q <= h_len_q - 16'd1;
            end
            if (st_prep2) begin
                kdoff_q <= ktcp_q + {doff_q, 8'd0};
            end
        end
    end

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
    // With one candidate group (NC = 1, DATA_W = 512) the word index is constant and this
    // register goes unread; Yosys removes it.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [HKW-1:0]       s0_hk_q;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [W-1:0]         s0_ipm_q;
    logic [W-1:0]         s0_tcpm_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            s0_valid_q <= 1'b0;
        end else begin
            s0_valid_q <= st_sum;
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

    // Template checksum accumulation (stage C). The TCP part is complete by the first S_PAY
    // clock, so stcpk_q is by the first pass's W1.
    logic [31:0] stcp_q;   // pseudo-header addresses and protocol, TCP header words but
                           // sequence, offset/flags and checksum
    always_ff @(posedge clk) begin
        stcpk_q <= stcp_q + {16'd0, kdoff_q};
        if (st_parse) begin
            sip_q  <= '0;
            stcp_q <= 32'd6;   // pseudo-header: zero byte and protocol TCP
        end else if (sb_valid_q) begin
            sip_q  <= sip_q + 32'(sb_ip_q);
            stcp_q <= stcp_q + 32'(sb_tcp_q);
        end
    end

endmodule

`resetall

`endif  // ROCENIC_TSO_TEMPLATE_SV
