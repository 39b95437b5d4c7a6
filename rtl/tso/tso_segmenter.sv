// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_SEGMENTER_SV
`define ROCENIC_TSO_SEGMENTER_SV
`include "rtl/common/skid_buffer.sv"
`include "rtl/tso/tso_ingress.sv"
`include "rtl/tso/tso_template.sv"
`include "rtl/tso/tso_pass.sv"
`include "rtl/tso/tso_writer.sv"
`include "rtl/tso/tso_egress.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// TCP segmentation offload for Ethernet and IPoIB (docs/reference.md §5): one send (a
// descriptor, its header template, its payload) in, MSS-sized segments with correct headers
// out. Byte-exact
// with Segmenter::write_segment in model/src/tso.rs: segment i of n is the template with the
// IPv4 total length, identification ID0 + i and a fresh header checksum (or the IPv6 payload
// length), TCP sequence seq0 + i*MSS, FIN and PSH kept only on the last segment and CWR only on
// the first, and the TCP checksum over pseudo-header, header and segment payload.
//
// Streams (all valid/ready; lane 0 = bits [7:0] is the first byte; tkeep is contiguous from lane
// 0 and only a last beat may be partial):
//   s_desc_*   one descriptor per send: header length, MSS, payload length, link type.
//   s_axis_*   per send, the header bytes then the payload bytes, packed (the whole oversized
//              frame as the host hands it), starting at a beat boundary, tlast on its last beat.
//   m_axis_*   the segments, each a packet starting at a beat boundary, tlast on its last beat.
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
// Parts (one file each; this module only wires them and holds the four skid buffers):
//   tso_ingress   the state machine: S_IDLE takes a descriptor; S_HDR stores the header beats
//                 into one of two header slots; S_PARSE waits for the template checks; S_SUM
//                 runs the template's checksum words; S_PREP1-3 set the send up; S_PAY lets the
//                 payload passes run; S_DRAIN and S_STATUS end the send.
//   tso_template  the header slots (flip-flops) and their read ports, tso_parse, and the
//                 template's constant checksum words, one beat of the template per cycle through
//                 four stages (pick, mask, add, accumulate).
//   tso_pass      each S_PAY cycle is a pass: the bytes of the current beat that belong to the
//                 current segment (a beat holding a segment boundary takes two passes) are
//                 rotated to their place in the segment.
//   tso_writer    writes a pass into one of the segment slots (at wire offsets, so read-out
//                 needs no realignment; even and odd words in two RAMs, so a rotated pass is one
//                 write per RAM) and runs the checksums through W1-W4, then marks the slot ready.
//   tso_egress    reads a ready slot one word per clock: R issues the read and finds which
//                 template lanes carry a per-segment field, P patches the template word, D merges
//                 it over the RAM word; the slot is released with its last read. The next ready
//                 slot starts on the following clock, so back-to-back segments leave no idle
//                 cycle.
//
// Segment slots (SLOTS, 2 or 4, written and read in turn): while one slot goes out the next
// segment fills another, so its checksum is known before its header leaves. With a 64-bit path
// and MSS 1448 the writer needs about 182 passes per segment (181 beats, one of them split) and
// the reader 190 beats, so two slots keep the output busy on nearly every cycle. At 512 bits the
// two are about equal (23.5 passes, 24 beats): with two slots the write pipeline's latency and
// the next send's header stages showed (90% of cycles carried a beat); with four the writer
// banks a lead over a send and every cycle does (both measured in sim/tests/tso.rs).
//
// Timing (125 MHz on ECP5 at 64 bits): every clock does a bounded amount of logic. The payload
// passes never count bytes: full beats are assumed (only a stream's last beat may be partial)
// and a segment's extent is kept as a beat count and the lanes of its first and last byte,
// which move by MSS mod W from one segment to the next. Whether the segment after this one is
// the last, and its beat count, are known a segment ahead; the header fields, sums and folds
// of a segment are computed in the write pipeline's stages after its commit.
//
// Back-pressure: s_desc_ready, s_axis_tready, m_axis_tvalid and m_sts_valid come from the
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
    parameter  int MAX_MSS = 9000,     // Largest MSS in bytes; sizes the segment slots
    // Segment slots, 2 or 4 (block RAM grows with them). Two keep the output busy where the
    // writer is well ahead of the reader (64 bits at MSS 1448: 182 passes a segment against
    // 190 beats); where the two are about equal (512 bits: 23.5 against 24) four let the writer
    // bank a lead, so that neither the write pipeline's latency nor a send's header stages
    // reach the wire.
    parameter  int SLOTS   = 2,
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
    input  wire              s_axis_tvalid,
    output wire              s_axis_tready,
    input  wire [DATA_W-1:0] s_axis_tdata,
    input  wire [W-1:0]      s_axis_tkeep,
    input  wire              s_axis_tlast,
    // segments
    output wire              m_axis_tvalid,
    input  wire              m_axis_tready,
    output wire [DATA_W-1:0] m_axis_tdata,
    output wire [W-1:0]      m_axis_tkeep,
    output wire              m_axis_tlast,
    // status, one per descriptor
    output wire              m_sts_valid,
    input  wire              m_sts_ready,
    output wire [3:0]        m_sts_error,     // 0 ok, else ERR_* (tso_ingress)
    output wire [31:0]       m_sts_segments   // segments sent for this descriptor
);

    if (DATA_W < 16 || (DATA_W & (DATA_W - 1)) != 0) begin : g_bad_width
        $error("tso_segmenter: DATA_W must be a power of two of at least 16, got %0d", DATA_W);
    end
    if (MAX_HDR < 4 || MAX_HDR > 255 || MAX_MSS < 1 || MAX_TSO < 1) begin : g_bad_limits
        $error("tso_segmenter: MAX_HDR must be 4..255, MAX_MSS and MAX_TSO at least 1");
    end

    // The widths of the signals between the parts; each part derives its own from the
    // parameters with these formulas, and a difference shows as a port width warning in lint.
    localparam int HW    = (MAX_HDR + W - 1) / W;        // template words per header slot
    localparam int HKW   = $clog2(HW + 1);               // template word counter width
    localparam int NC    = (HW + 3) / 4;                 // groups of four template words
    localparam int SLOT_WORDS = (MAX_HDR + MAX_MSS + W - 1) / W;   // words per segment slot
    localparam int KW    = $clog2(SLOT_WORDS + 1);       // segment word counter width
    localparam int LEN_W = $clog2(MAX_TSO + 1);          // payload byte counter width
    localparam int SB    = $clog2(SLOTS);                // segment slot index width

    if (SLOTS != 2 && SLOTS != 4) begin : g_bad_slots
        $error("tso_segmenter: SLOTS must be 2 or 4, got %0d", SLOTS);
    end

    // ------------------------------------------------------------------------------------------
    // Input skid buffers: the ingress peeks at their registered outputs.
    wire              d_valid;
    wire              d_ready;
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
    wire              i_ready;
    wire [DATA_W-1:0] i_data;
    wire [W-1:0]      i_keep;
    wire              i_last;

    skid_buffer #(
        .WIDTH(DATA_W + W + 1)
    ) u_data_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_axis_tvalid),
        .s_ready(s_axis_tready),
        .s_data ({s_axis_tdata, s_axis_tkeep, s_axis_tlast}),
        .m_valid(i_valid),
        .m_ready(i_ready),
        .m_data ({i_data, i_keep, i_last})
    );

    // ------------------------------------------------------------------------------------------
    // The parts. Each signal keeps the name of the register or wire it is in its part.
    // state machine (tso_ingress)
    wire              sts_valid;
    wire              sts_ready;
    wire [3:0]        sts_error;
    wire [31:0]       sts_segments;
    wire              st_hdr;
    wire              st_parse;
    wire              st_sum;
    wire              st_prep1;
    wire              st_prep2;
    wire              st_prep3;
    wire              st_pay;
    wire              hs_q;
    wire [2*HW-1:0]   hwe_q;
    wire [HKW-1:0]    hk_q;
    wire              parse_go_q;
    wire [15:0]       h_len_q;
    wire [15:0]       mss_q;
    wire [LEN_W-1:0]  len_q;
    wire              ipoib_q;
    wire              pay_q;
    wire              pe_q;
    wire              wfree_q;
    wire [SB-1:0]     wsel_q;
    // template (tso_template)
    wire              parse_done;
    wire [3:0]        p_err;
    wire [15:0]       p_ident;
    wire [31:0]       p_seq;
    wire [7:0]        ip_off_q;
    wire [7:0]        tcp_off_q;
    wire              v4_q;
    wire [7:0]        flags_q;
    wire [31:0]       sip_q;
    wire [31:0]       stcpk_q;
    wire [15:0]       kip_q;
    wire [15:0]       hlm1_q;
    wire [NC*DATA_W-1:0] rd_cand;
    // payload passes (tso_pass)
    wire              pass;
    wire              empty_commit;
    wire              commit;
    wire              drop;
    wire              commit_any;
    wire              consume;
    wire              bad_short;
    wire              uses_up_n;
    wire              end_q;
    wire              last_q;
    wire              first_q;
    wire              empty_q;
    wire [15:0]       tl_q;
    wire [31:0]       seq_cur_q;
    wire [15:0]       id_cur_q;
    wire [DATA_W-1:0] rot_data;
    wire [W-1:0]      rot_mask;
    wire [W-1:0]      ae_q;
    wire [KW-1:0]     w0_q;
    // write pipeline (tso_writer)
    wire [DATA_W-1:0] rd_e;
    wire [DATA_W-1:0] rd_o;
    wire              w4_commit_q;
    wire [SB-1:0]     w4_slot_q;
    wire [KW-1:0]     w4_nw_q;
    wire [W-1:0]      w4_lkeep_q;
    wire [15:0]       w4_iplen_q;
    wire [15:0]       w4_id_q;
    wire [15:0]       w4_ipcs_q;
    wire [31:0]       w4_seq_q;
    wire [7:0]        w4_flags_q;
    wire [15:0]       w4_tcs;
    // egress (tso_egress)
    wire              adv;           // egress advances (output skid buffer's s_ready)
    wire [SLOTS-1:0]  busy_q;
    wire [SLOTS-1:0]  sl_hs;
    wire [SB-1:0]     rsel_q;
    wire              release_n;
    wire              c_hs_q;
    wire [KW-1:0]     k_q;
    wire              d_valid_q;
    wire [DATA_W-1:0] d_data;
    wire [W-1:0]      d_keep_q;
    wire              d_last_q;

    tso_ingress #(
        .DATA_W (DATA_W),
        .MAX_HDR(MAX_HDR),
        .MAX_TSO(MAX_TSO),
        .SLOTS  (SLOTS)
    ) u_ingress (
        .clk, .rst,
        .d_valid, .d_ready, .d_hdr_len, .d_mss, .d_len, .d_ipoib,
        .i_valid, .i_ready, .i_keep, .i_last,
        .sts_valid, .sts_ready, .sts_error, .sts_segments,
        .st_hdr, .st_parse, .st_sum, .st_prep1, .st_prep2, .st_prep3, .st_pay,
        .hs_q, .hwe_q, .hk_q, .parse_go_q, .h_len_q, .mss_q, .len_q, .ipoib_q,
        .pay_q, .pe_q, .wfree_q, .wsel_q,
        .parse_done, .p_err,
        .commit, .drop, .commit_any, .consume, .bad_short, .uses_up_n, .end_q, .last_q, .empty_q,
        .busy_q, .sl_hs, .rsel_q, .release_n
    );

    tso_template #(
        .DATA_W (DATA_W),
        .MAX_HDR(MAX_HDR),
        .MAX_MSS(MAX_MSS)
    ) u_template (
        .clk, .rst,
        .st_hdr, .st_parse, .st_sum, .st_prep1, .st_prep2,
        .hs_q, .hwe_q, .hk_q, .parse_go_q, .h_len_q, .mss_q, .ipoib_q,
        .i_valid, .i_data,
        .parse_done, .p_err, .p_ident, .p_seq,
        .ip_off_q, .tcp_off_q, .v4_q, .flags_q,
        .sip_q, .stcpk_q, .kip_q, .hlm1_q,
        .rd_hs(c_hs_q), .rd_lo(k_q[1:0]), .rd_cand
    );

    tso_pass #(
        .DATA_W (DATA_W),
        .MAX_HDR(MAX_HDR),
        .MAX_TSO(MAX_TSO),
        .MAX_MSS(MAX_MSS)
    ) u_pass (
        .clk, .rst,
        .st_parse, .st_prep1, .st_prep2, .st_prep3, .st_pay,
        .h_len_q, .mss_q, .len_q, .pay_q, .pe_q, .wfree_q,
        .p_ident, .p_seq,
        .i_valid, .i_data, .i_keep, .i_last,
        .pass, .empty_commit, .commit, .drop, .commit_any, .consume, .bad_short, .uses_up_n,
        .end_q, .last_q, .first_q, .empty_q, .tl_q, .seq_cur_q, .id_cur_q,
        .rot_data, .rot_mask, .ae_q, .w0_q
    );

    tso_writer #(
        .DATA_W (DATA_W),
        .MAX_HDR(MAX_HDR),
        .MAX_MSS(MAX_MSS),
        .SLOTS  (SLOTS)
    ) u_writer (
        .clk, .rst,
        .pass, .empty_commit, .commit, .drop, .rot_data, .rot_mask, .ae_q, .w0_q, .wsel_q,
        .first_q, .last_q, .tl_q, .mss_q, .seq_cur_q, .id_cur_q,
        .flags_q, .hlm1_q, .kip_q, .sip_q, .stcpk_q,
        .adv, .rsel_q, .k_q, .rd_e, .rd_o,
        .w4_commit_q, .w4_slot_q, .w4_nw_q, .w4_lkeep_q, .w4_iplen_q, .w4_id_q, .w4_ipcs_q,
        .w4_seq_q, .w4_flags_q, .w4_tcs
    );

    tso_egress #(
        .DATA_W (DATA_W),
        .MAX_HDR(MAX_HDR),
        .MAX_MSS(MAX_MSS),
        .SLOTS  (SLOTS)
    ) u_egress (
        .clk, .rst, .adv,
        .commit, .wsel_q, .hs_q,
        .st_prep1, .h_len_q, .ip_off_q, .tcp_off_q, .v4_q,
        .w4_commit_q, .w4_slot_q, .w4_nw_q, .w4_lkeep_q, .w4_iplen_q, .w4_id_q, .w4_ipcs_q,
        .w4_seq_q, .w4_flags_q, .w4_tcs,
        .busy_q, .sl_hs, .rsel_q, .release_n,
        .c_hs_q, .rd_cand,
        .k_q, .rd_e, .rd_o,
        .d_valid_q, .d_data, .d_keep_q, .d_last_q
    );

    // ------------------------------------------------------------------------------------------
    // Output skid buffers.
    skid_buffer #(
        .WIDTH(36)
    ) u_sts_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(sts_valid),
        .s_ready(sts_ready),
        .s_data ({sts_error, sts_segments}),
        .m_valid(m_sts_valid),
        .m_ready(m_sts_ready),
        .m_data ({m_sts_error, m_sts_segments})
    );

    skid_buffer #(
        .WIDTH(DATA_W + W + 1)
    ) u_seg_skid (
        .clk    (clk),
        .rst    (rst),
        .s_valid(d_valid_q),
        .s_ready(adv),
        .s_data ({d_data, d_keep_q, d_last_q}),
        .m_valid(m_axis_tvalid),
        .m_ready(m_axis_tready),
        .m_data ({m_axis_tdata, m_axis_tkeep, m_axis_tlast})
    );

endmodule

`resetall

`endif  // ROCENIC_TSO_SEGMENTER_SV
