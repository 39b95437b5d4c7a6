// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_PARSE_SV
`define ROCENIC_WQE_PARSE_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/tso/tso_parse.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// WQE checks: reads a fetched WQE from its buffer word by word, decodes it, checks it as the
// model's model/src/wqe/check.rs does (docs/wqe.md, "Checks and statuses"), sends its data
// segments through the memory-region check, and hands a wqe_dp_pkg::wqe_t with the status to the sender.
//
// The WQE's segments are contiguous from word 0 (control, address vector, remote address, data
// segments or inline data), so the words are read in order, one per cycle, and each is taken
// for what its index holds. Every decode error and every wrong opcode, address vector or
// segment count gives the same status (loc_qp_op_err), so they are simply ORed; they are all
// known before the first data word, so a refused WQE pushes nothing downstream.
//
// Data segments go to the region check as they are read and into a small table here; once the
// verdict is known, a passing WQE's segments go out on m_sge, then the WQE on m_wqe. Inline
// words go out as they are read, which is safe: an inline WQE that gets this far passes (its
// only later check, the UD MTU or a raw frame's length, is decided from the control segment
// before its data).
//
// TSO (docs/wqe-dp.md, "TSO in the RTL engine"): the header template's words (after the address
// vector) are data words too: they go out on m_inl ahead of the payload (a gathered TSO WQE's
// only inline words) and into a 128-byte copy that a tso_parse checks once the WQE is read.
// They leave before the verdict, so a refused TSO WQE's words are in the FIFO: its
// inline_words says how many, and the planner drops them. A UD QP's template is IPoIB, a raw
// QP's Ethernet (tso_parse's ipoib), and a raw QP's segments are bounded as its frames are.
module wqe_parse
#(
    parameter int MAX_SGE = 16,  // data segments a WQE may have (model: SendEngine::max_sge)
    parameter int TSO     = 0    // 1: opcode 10 on a UD or raw QP is TSO (else an unknown opcode)
) (
    input  wire              clk,
    input  wire              rst,
    // from wqe_fetch
    input  wire              s_wqe_valid,
    output logic             s_wqe_ready,
    input  wire wqe_dp_pkg::pick_t       s_wqe_pick,
    input  wire [4:0]        s_wqe_status,
    input  wire [6:0]        s_wqe_blocks,
    input  wire              s_wqe_buf,
    output logic             rd_buf,
    output logic [6:0]       rd_word,
    input  wire [63:0]       rd_data,
    output logic             buf_free_valid,
    output logic             buf_free_id,
    // memory-region checks (in order)
    output logic             m_mr_valid,
    input  wire              m_mr_ready,
    output logic [31:0]      m_mr_lkey,
    output logic [31:0]      m_mr_pd,
    output logic [63:0]      m_mr_addr,
    output logic [31:0]      m_mr_len,
    input  wire              s_mr_valid,
    output logic             s_mr_ready,
    input  wire [4:0]        s_mr_status,
    // to the sender
    output logic             m_wqe_valid,
    input  wire              m_wqe_ready,
    output wqe_dp_pkg::wqe_t             m_wqe,
    output logic             m_sge_valid,
    input  wire              m_sge_ready,
    output wqe_dp_pkg::sge_t             m_sge,
    output logic             m_inl_valid,
    input  wire              m_inl_ready,
    output logic [63:0]      m_inl_data
);

    typedef enum logic [2:0] {S_IDLE, S_READ, S_WAIT, S_SGE, S_OUT} state_t;
    state_t state_q;

    wqe_dp_pkg::pick_t      pick_q;
    logic [4:0] fetch_status_q;
    logic [6:0] blocks_q;          // blocks in the buffer
    logic       buf_q;

    // A read issued two cycles ago delivers its word on rd_data now (rv2_q; the buffer is a
    // block RAM with its output register); it goes into a four-entry queue whose head is the
    // word being looked at (hv, hw). Reads are issued while
    // the queue will have room, so the buffer's read address depends on registers only and the
    // block RAM's output meets nothing but the queue's registers.
    //
    // What a word is (a data word, an SGE's second word, inline data; which header word) is
    // worked out when its read is issued and travels with it (rr_*, q*_q, h*): data words are
    // only read once the layout is known, and the head's kind then costs one multiplexer
    // rather than a compare of its index against the layout, which fans out to every take.
    localparam int HDR_WORDS = 12;  // header words: control, address vector, remote address
    logic        rv1_q, rv2_q;
    logic        rr_dat_q, rr_hi_q, rr_inl_q, rr2_dat_q, rr2_hi_q, rr2_inl_q;
    logic        rr_tpl_q, rr2_tpl_q;   // a TSO template word
    logic        qtpl_q [4];
    logic [HDR_WORDS-1:0] rr_sel_q, rr2_sel_q;
    logic [63:0] qw_q [4];
    logic        qdat_q [4];
    logic        qhi_q [4];
    logic        qinl_q [4];
    logic [HDR_WORDS-1:0] qsel_q [4];
    logic [1:0]  qrd_q, qwr_q;
    logic [2:0]  qn_q;             // words in the queue
    wire         hv    = qn_q != 3'd0;
    wire [63:0]  hw    = qw_q[qrd_q];
    wire         h_dat = qdat_q[qrd_q];   // a data word
    wire         h_hi  = qhi_q[qrd_q];    // an SGE's length and lkey word
    wire         h_inl = qinl_q[qrd_q];   // an inline data word
    wire [HDR_WORDS-1:0] h_sel = qsel_q[qrd_q];   // header word k: bit k
    wire         h_tpl = qtpl_q[qrd_q];   // a TSO template word
    logic [6:0] next_q;            // next word to read
    logic [6:0] nwords_q;          // words to read (4 until the control segment is known)
    logic       layout_q;          // nwords_q holds the WQE's real length
    logic [6:0] w_data_q;          // w_data, registered: read only for words past the first 4
    // The decode stage: a non-data word taken last cycle, decoded from this register (the
    // buffer's read port is too slow to decode from directly); dsel_q[k] says it is word k.
    logic        dv_q;
    logic [63:0] dw_q;
    logic [HDR_WORDS-1:0] dsel_q;
    // Fields of dw_q that must be zero, compared byte by byte as it is loaded (they feed one
    // error bit), and combined when it is decoded.
    logic [7:0]  dw_byte_nz_q;     // byte i of the word is not 0
    logic        dw_2320_nz_q;     // bits 23:20
    logic        dw_5549_nz_q;     // bits 55:49
    wire         dw_nz    = dw_byte_nz_q != 8'd0;
    wire         dw_hi_nz = dw_byte_nz_q[7:4] != 4'd0;
    logic        tci_nz_q;         // tci_q != 0

    // Control segment fields.
    logic [7:0]  opcode_q, flags_q, blocks_b_q, nsge_q;
    logic [31:0] index_q, imm_q;
    logic [15:0] inline_len_q;
    logic [7:0]  av_b_q;
    logic [63:0] wr_id_q;
    logic        dec_err_q;        // any decode or operation error seen so far
    logic        nopush_q;         // data words are not passed on (an error or a known failure)
    // Address vector, remote address.
    logic [23:0]  dqpn_q;
    logic [31:0]  qkey_q;
    logic [127:0] dgid_q;
    logic [47:0]  dmac_q;
    logic [15:0]  tci_q;
    logic [19:0]  fl_q;
    logic [7:0]   tclass_q, hop_q;
    logic         avflag_q;
    logic [63:0]  raddr_q;
    logic [31:0]  rkey_q;
    // Data.
    logic [63:0]  sge_addr_q;
    logic [4:0]   sges_q;          // SGEs pushed
    logic [7:0]   inl_q;           // inline words pushed
    logic [4:0]   mr_seen_q;       // region checks answered
    logic [4:0]   mr_status_q;     // the first failing one, else success
    logic [35:0]  total_q;
    logic [31:0]  len_add_q;           // a segment's length, added to total_q the next cycle
    logic         len_add_v_q;         // (not straight off the buffer's read port: timing)
    logic         len_add_p_q;         // len_add_v_q a cycle ago: total_q may still move
    wqe_dp_pkg::sge_t         sge_mem [MAX_SGE];   // the WQE's data segments, until the verdict
    logic [4:0]   sge_out_q;           // next one sent on m_sge
    logic         sge_pend_q;          // sge_out_q != sges_q (m_sge_valid from a register: it
                                       // writes the SGE FIFO's LUT RAM)
    logic         sge_last_q;          // sge_out_q + 1 == sges_q
    logic [4:0]   verdict_q;           // the verdict and the message length, held for m_wqe
    logic [31:0]  len_q;

    // FENCE and IP_CSUM are accepted and have no effect on a RoCE send; the reserved bits are
    // checked in the decode register; the pick's address and stride were fetch's. Named
    // unused_* so that lint knows.
    wire unused_flags = ^{flags_q[7:4], flags_q[0], av_b_q[7:1], pick_q.addr, pick_q.stride_log2};

    // Decoded control segment (valid once words 0 and 1 are in).
    // The opcode's classes are registered with it (they select the later words' decodes).
    logic known, is_write, has_imm;
    localparam logic [7:0] OP_TSO  = 8'd10;      // model::wqe::Opcode::Tso
    localparam int         MAX_HDR = 128;        // tso::Limits' defaults, as the segmenter's
    localparam int         MAX_TSO = 262144;
    wire  tso_op = TSO != 0 && opcode_q == OP_TSO;    // (word 0 is decoded before word 1)
    // TSO: control word 3's MSS and HDR_LEN, the template's words (the first 16: a longer one
    // is refused), and the template check's answer.
    logic [15:0] mss_q, hdr_len_q;
    logic [6:0]  w_pay_q;          // TSO: the first payload word (after the template's area)
    logic [6:0]  w_tpl_end_q;      // TSO: past the template words that go out
    logic        lay1_q, lay2_q;   // word 3 decoded one, two cycles ago
    logic [63:0] tpl_q [16];
    logic [4:0]  tcnt_q;           // template words taken
    logic        tso_start_q, tso_done_q;
    logic [3:0]  tso_err_q;
    logic        tso_op_err_q, tso_len_err_q;
    function automatic logic [2:0] op_class(input logic [7:0] op);   // known, write, imm
        op_class = {op <= wqe_fmt_pkg::OPCODE_SEND_IMM || (TSO != 0 && op == OP_TSO),
                    op == wqe_fmt_pkg::OPCODE_RDMA_WRITE || op == wqe_fmt_pkg::OPCODE_RDMA_WRITE_IMM,
                    op == wqe_fmt_pkg::OPCODE_RDMA_WRITE_IMM || op == wqe_fmt_pkg::OPCODE_SEND_IMM};
    endfunction
    wire known_d0 = dw_q[7:0] <= wqe_fmt_pkg::OPCODE_SEND_IMM || (TSO != 0 && dw_q[7:0] == OP_TSO);
    wire inline_en = flags_q[3];
    wire av_en     = av_b_q[0];
    // Word indices of the segments.
    wire [6:0] w_raddr = av_en ? 7'd10 : 7'd4;
    wire [6:0] w_data  = w_raddr + (is_write ? 7'd2 : 7'd0);

    // The layout is decided when word 3 is decoded, from registers that words 0 and 1 filled
    // at least two cycles before (the words are decoded in order, one a cycle at most), so it
    // is worked out ahead in two registered steps: the segments' end as word 1 is decoded (its
    // inline length and AV flag straight from the decode register), then the checks on it.
    // Bytes of segments: at most 96 + 255 * 16 or 96 + 65535.
    wire        av_en_d1  = dw_q[48];
    wire [6:0]  w_data_d1 = (av_en_d1 ? 7'd10 : 7'd4) + (is_write ? 7'd2 : 7'd0);
    // (18 bits: a TSO template's area, up to 65,536 bytes, is added as word 3 is decoded.)
    wire [17:0] seg_end_d1 = {11'b0, w_data_d1} * 18'd8
                           + (inline_en ? {2'b0, dw_q[47:32]} : {6'b0, nsge_q, 4'b0});
    logic [17:0] seg_end_q;
    logic        ctl_err_q;        // ctl_err, from the registered control segment
    logic [6:0]  seg_words_q;      // the words to read when it passes
    logic        inl_mtu_err_q;    // an inline UD WQE over the MTU

    // The control segment's checks, from each word as it is decoded (ctl0_err_q from word
    // 0, ctl1_err_q from word 1), and the segments' end against the blocks once both are in.
    logic ctl0_err_q, ctl1_err_q;
    wire [7:0] d0_op = dw_q[7:0], d0_blocks = dw_q[23:16], d0_nsge = dw_q[31:24];
    wire       d0_inline = dw_q[11];                               // FLAGS bit 3
    wire ctl0_err = !known_d0 || dw_q[15:13] != 3'b0                // FLAGS' reserved bits
                 || d0_blocks == 8'd0 || d0_blocks > 8'd16
                 || (pick_q.ctx.ud && !(d0_op == wqe_fmt_pkg::OPCODE_SEND || d0_op == wqe_fmt_pkg::OPCODE_SEND_IMM
                                        || (TSO != 0 && d0_op == OP_TSO)))
                 || (!pick_q.ctx.ud && !pick_q.ctx.raw && TSO != 0 && d0_op == OP_TSO)  // RC: no TSO
                 || (pick_q.ctx.raw && d0_op != wqe_fmt_pkg::OPCODE_SEND              // raw: SEND, TSO
                                    && !(TSO != 0 && d0_op == OP_TSO))
                 || (!d0_inline && d0_nsge > 8'(MAX_SGE));
    wire ctl1_err = dw_5549_nz_q                                       // AV byte's reserved bits
                 || (!has_imm && dw_byte_nz_q[3:0] != 4'd0)                 // IMM
                 || (inline_en && nsge_q != 8'd0)
                 || (!inline_en && dw_byte_nz_q[5:4] != 2'd0)               // INLINE_LEN
                 || (dw_q[48] != pick_q.ctx.ud);
    wire ctl_err = ctl0_err_q || ctl1_err_q || seg_end_q > {4'b0, blocks_b_q, 6'b0};

    // The decoded word: which part of the WQE it is.
    wire d_av     = av_en && dsel_q[9:4] != 6'b0;
    wire d_raddr  = is_write && (av_en ? dsel_q[10] : dsel_q[4]);
    wire d_rkey   = is_write && (av_en ? dsel_q[11] : dsel_q[5]);

    // Can the head word be taken this cycle?
    wire push_ok = !dec_err_q && !nopush_q;
    // A data word waits until the words before it are decoded (the verdict so far is known).
    wire take = hv && (!h_dat || !push_ok || (!dv_q &&
                 (h_hi ? m_mr_ready : (h_inl ? m_inl_ready : 1'b1))));

    // The pushes downstream are the handshakes themselves (the head is an SGE's second word or
    // inline data, passes, and the stage after takes it).
    wire sge_push = m_mr_valid && m_mr_ready;
    wire inl_push = m_inl_valid && m_inl_ready;

    // What the word read now is (see the queue above).
    // (TSO: the template's words are data words too, before the payload's at w_pay_q.)
    wire                 i_dat = next_q >= w_data_q;
    wire                 i_tpl = tso_op && next_q < w_pay_q;
    wire                 i_tpl_out = next_q < w_tpl_end_q;
    logic [HDR_WORDS-1:0] i_sel;
    always_comb begin
        for (int k = 0; k < HDR_WORDS; k++) begin
            i_sel[k] = next_q == 7'(k);
        end
    end

    assign s_wqe_ready  = state_q == S_IDLE;
    assign rd_buf       = buf_q;
    assign rd_word      = next_q;
    wire   issue        = state_q == S_READ && next_q < nwords_q
                       && qn_q + 3'(rv1_q) + 3'(rv2_q) <= 3'd3;
    // Every word read and decoded: on to the verdict.
    wire next_state_wait = !issue && !rv1_q && !rv2_q && !hv && !dv_q && next_q >= nwords_q
                        && (layout_q || nwords_q == 7'd0);

    assign m_sge_valid  = state_q == S_SGE && sge_pend_q;
    assign m_sge        = sge_mem[sge_out_q[$clog2(MAX_SGE)-1:0]];
    assign m_mr_valid   = hv && h_hi && push_ok && !dv_q;
    assign m_mr_lkey    = hw[63:32];
    assign m_mr_pd      = pick_q.ctx.pd;
    assign m_mr_addr    = sge_addr_q;
    assign m_mr_len     = hw[31:0];
    assign m_inl_valid  = hv && h_inl && push_ok && !dv_q;
    assign m_inl_data   = hw;
    assign s_mr_ready   = 1'b1;

    // The verdict, in the model's order: fetch, decode and operation, the regions (first
    // failure), the total, the UD MTU or the raw frame's length. The length checks are registered from total_q, so the
    // verdict waits a cycle after the last length is added (len_add_p_q).
    logic [12:0] mtu_bytes_q;        // the path MTU in bytes (a register: the pick's is fixed)
    // A raw QP's message is one whole frame: an Ethernet header (14 bytes) up to the port's
    // largest frame (4,218, model::wqe::check::MAX_RAW_FRAME); outside that, loc_len_err.
    function automatic logic raw_len_bad(input logic [35:0] n);
        raw_len_bad = n < 36'd14 || n > 36'd4218;
    endfunction
    wire [31:0] msg_len   = inline_en ? {16'b0, inline_len_q} : total_q[31:0];
    logic       total_err_q, mtu_err_q;
    // TSO, between the total and the MTU, in tso::Segmenter::with_len's order: an MSS of 0 or
    // a template over MAX_HDR, then a payload over MAX_TSO, then the template (tso_parse: not
    // IPoIB + IPv4/IPv6 + TCP, or an MSS too large); the MTU then takes the template and the
    // largest segment.
    wire [31:0] tso_seg   = {16'b0, mss_q} < msg_len ? {16'b0, mss_q} : msg_len;
    logic [4:0] verdict;
    always_comb begin
        if (fetch_status_q != wqe_fmt_pkg::STATUS_SUCCESS) begin
            verdict = fetch_status_q;
        end else if (dec_err_q) begin
            verdict = wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
        end else if (mr_status_q != wqe_fmt_pkg::STATUS_SUCCESS) begin
            verdict = mr_status_q;
        end else if (total_err_q) begin
            verdict = wqe_fmt_pkg::STATUS_LOC_LEN_ERR;
        end else if (tso_op && tso_op_err_q) begin
            verdict = wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
        end else if (tso_op && tso_len_err_q) begin
            verdict = wqe_fmt_pkg::STATUS_LOC_LEN_ERR;
        end else if (tso_op && tso_err_q != 4'd0) begin
            verdict = wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
        end else if (mtu_err_q) begin
            verdict = wqe_fmt_pkg::STATUS_LOC_LEN_ERR;
        end else begin
            verdict = wqe_fmt_pkg::STATUS_SUCCESS;
        end
    end

    // dgid bytes 8..23 of the AV arrive in words 5 and 6, byte 8 in word 5's low byte; the
    // frame wants the first octet in the top bits.
    function automatic logic [63:0] bswap64(input logic [63:0] w);
        for (int i = 0; i < 8; i++) begin
            bswap64[8*(7-i) +: 8] = w[8*i +: 8];
        end
    endfunction

    assign m_wqe_valid = state_q == S_OUT;
    always_comb begin
        m_wqe              = '0;
        m_wqe.slot         = pick_q.slot;
        m_wqe.ctx          = pick_q.ctx;
        m_wqe.wr_id        = wr_id_q;
        m_wqe.index        = index_q;
        m_wqe.opcode_raw   = opcode_q;
        m_wqe.opcode_known = known && blocks_q != 7'd0;
        m_wqe.status       = verdict_q;
        m_wqe.opcode       = opcode_q[1:0];
        m_wqe.signaled     = flags_q[1];
        m_wqe.solicited    = flags_q[2];
        m_wqe.inline_en    = inline_en;
        m_wqe.len          = len_q;
        m_wqe.imm          = imm_q;
        m_wqe.raddr        = raddr_q;
        m_wqe.rkey         = rkey_q;
        m_wqe.dqpn         = dqpn_q;
        m_wqe.qkey         = qkey_q;
        m_wqe.dgid         = dgid_q;
        m_wqe.dmac         = dmac_q;
        m_wqe.vlan         = avflag_q;
        m_wqe.vid          = tci_q[11:0];
        m_wqe.pcp          = tci_q[15:13];
        m_wqe.flow_label   = fl_q;
        m_wqe.tclass       = tclass_q;
        m_wqe.hop_limit    = hop_q;
        m_wqe.sges         = sges_q;
        m_wqe.inline_words = inl_q;
        m_wqe.tso          = tso_op;
        m_wqe.mss          = mss_q;
        m_wqe.hdr_len      = hdr_len_q;
        m_wqe.rcp          = pick_q.rcp;
    end

    // The template check (the segmenter's own, IPoIB): started as the WQE's words are all read
    // (its inputs hold still from then), answered six cycles on.
    logic [1023:0] tpl_bytes;
    always_comb begin
        for (int i = 0; i < 16; i++) begin
            tpl_bytes[64*i +: 64] = tpl_q[i];
        end
    end
    logic       tso_done;
    logic [3:0] tso_err;
    logic [7:0] tp_ip_off, tp_tcp_off, tp_doff, tp_flags;
    logic       tp_ipv4;
    logic [15:0] tp_ident;
    logic [31:0] tp_seq;
    if (TSO != 0) begin : g_tso
        tso_parse #(.HDR_BYTES(MAX_HDR), .MAX_MSS(9000)) u_tpl (
            .clk, .rst, .start(tso_start_q), .done(tso_done),
            .hdr(tpl_bytes), .hdr_len(hdr_len_q), .ipoib(!pick_q.ctx.raw), .mss(mss_q),
            .err(tso_err), .ip_off(tp_ip_off), .tcp_off(tp_tcp_off),
            .ipv4(tp_ipv4), .ident(tp_ident), .seq(tp_seq),
            .doff_byte(tp_doff), .flags(tp_flags)
        );
    end else begin : g_no_tso
        assign tso_done = 1'b0;
        assign tso_err  = 4'd0;
        assign {tp_ip_off, tp_tcp_off, tp_doff, tp_flags, tp_ipv4,
                tp_ident, tp_seq} = '0;
        wire unused_tpl = ^{tpl_bytes, tso_start_q};
    end
    wire unused_tso = ^{tpl_out[16:7], tp_ip_off, tp_tcp_off, tp_doff, tp_flags, tp_ipv4,
                        tp_ident, tp_seq};

    assign buf_free_valid = state_q == S_OUT && m_wqe_ready && blocks_q != 7'd0;
    assign buf_free_id    = buf_q;

    // The data-segment table (LUT RAM): written as each segment's second word is taken.
    always_ff @(posedge clk) begin
        if (state_q == S_READ && sge_push) begin
            sge_mem[sges_q[$clog2(MAX_SGE)-1:0]] <= {sge_addr_q, hw[31:0]};   // sge_t: addr, len
        end
    end

    // Registered each cycle from registers that hold still when they are read (see above).
    // TSO: the template's area (HDR_LEN padded to 16) joins the segments' end as word 3 is
    // decoded; the layout then waits two cycles more (lay2_q) for ctl_err_q and seg_words_q.
    wire [16:0] tpl_area = 17'(({1'b0, dw_q[31:16]} + 17'd15) & ~17'd15);
    wire [16:0] tpl_out  = 17'(({1'b0, dw_q[31:16]} + 17'd7) >> 3);
    always_ff @(posedge clk) begin
        lay1_q <= dsel_q[3];
        lay2_q <= lay1_q;
        if (dsel_q[3]) begin
            w_pay_q     <= w_data_q + 7'(tpl_area >> 3);
            w_tpl_end_q <= w_data_q + 7'(tpl_out);
        end
        if (state_q == S_READ && take && h_tpl && !tcnt_q[4]) begin
            tpl_q[tcnt_q[3:0]] <= hw;
        end
        w_data_q      <= w_data;
        if (dsel_q[0]) begin
            ctl0_err_q <= ctl0_err;
        end
        if (dsel_q[1]) begin
            seg_end_q  <= seg_end_d1;
            ctl1_err_q <= ctl1_err;
        end
        if (dsel_q[3] && tso_op) begin
            seg_end_q  <= seg_end_q + {1'b0, tpl_area};
        end
        ctl_err_q     <= ctl_err;
        seg_words_q   <= 7'((seg_end_q + 17'd7) >> 3);
        mtu_bytes_q     <= 13'd128 << pick_q.ctx.mtu;
        inl_mtu_err_q <= (pick_q.ctx.ud && inline_en && inline_len_q > {3'b0, mtu_bytes_q})
                      || (pick_q.ctx.raw && inline_en && raw_len_bad({20'b0, inline_len_q}));
        total_err_q   <= !inline_en && total_q > 36'h8000_0000;
        mtu_err_q     <= (pick_q.ctx.ud && (tso_op
                             ? {16'b0, hdr_len_q} + tso_seg > {19'b0, mtu_bytes_q}
                             : inline_en ? inline_len_q > {3'b0, mtu_bytes_q}
                                         : total_q[31:0] > {19'b0, mtu_bytes_q}))
                      || (pick_q.ctx.raw && raw_len_bad(tso_op ? {20'b0, hdr_len_q} + {4'b0, tso_seg}
                                                      : inline_en ? {20'b0, inline_len_q} : total_q));
        tso_op_err_q  <= mss_q == 16'd0 || hdr_len_q > 16'(MAX_HDR);
        tso_len_err_q <= msg_len > 32'(MAX_TSO);
        // The head word, decoded next cycle when it is a header word (see dw_q).
        dw_q          <= hw;
        for (int i = 0; i < 8; i++) begin
            dw_byte_nz_q[i] <= hw[8*i +: 8] != 8'd0;
        end
        dw_2320_nz_q  <= hw[23:20] != 4'd0;
        dw_5549_nz_q  <= hw[55:49] != 7'd0;
        dsel_q        <= hv && !h_dat ? h_sel : '0;   // a header word is always taken
    end

    always_ff @(posedge clk) begin
        if (s_mr_valid) begin
            mr_seen_q <= mr_seen_q + 5'd1;
            if (mr_status_q == wqe_fmt_pkg::STATUS_SUCCESS) begin
                mr_status_q <= s_mr_status;
            end
        end
        len_add_v_q <= 1'b0;
        len_add_p_q <= len_add_v_q;
        // Only a TSO WQE starts the check, since only it waits for the answer: a check
        // started for any other WQE answered six cycles on, into the next WQE's read, and
        // that WQE took the stale verdict for its own.
        tso_start_q <= state_q == S_READ && next_state_wait && tso_op;
        if (tso_done) begin
            tso_done_q <= 1'b1;
            tso_err_q  <= tso_err;
        end
        total_q     <= total_q + (len_add_v_q ? {4'b0, len_add_q} : 36'd0);
        // The decode stage (dsel_q is 0 outside S_READ: only then is a word taken).
        if (dsel_q[0]) begin
            {index_q, nsge_q, blocks_b_q, flags_q, opcode_q} <= dw_q;
            {known, is_write, has_imm} <= op_class(dw_q[7:0]);
        end
        if (dsel_q[1]) begin
            imm_q        <= dw_q[31:0];
            inline_len_q <= dw_q[47:32];
            av_b_q       <= dw_q[55:48];
            if (dw_byte_nz_q[7]) dec_err_q <= 1'b1;
        end
        if (dsel_q[2]) wr_id_q <= dw_q;
        // Word 3: MSS and HDR_LEN for TSO (HDR_LEN 0 is the decoder's TsoMismatch), else
        // reserved.
        if (dsel_q[3]) begin
            mss_q     <= dw_q[15:0];
            hdr_len_q <= dw_q[31:16];
            if (tso_op ? (dw_hi_nz || dw_byte_nz_q[3:2] == 2'b0) : dw_nz) dec_err_q <= 1'b1;
        end
        if (d_av) begin
            if (dsel_q[4]) begin
                dqpn_q <= dw_q[23:0];
                qkey_q <= dw_q[63:32];
                if (dw_byte_nz_q[3]) dec_err_q <= 1'b1;
            end
            if (dsel_q[5]) dgid_q[127:64] <= bswap64(dw_q);
            if (dsel_q[6]) dgid_q[63:0]   <= bswap64(dw_q);
            if (dsel_q[7]) begin
                dmac_q <= 48'(bswap64({dw_q[47:0], 16'b0}));
                tci_q  <= dw_q[63:48];
                tci_nz_q <= dw_q[63:48] != 16'd0;
            end
            if (dsel_q[8]) begin
                fl_q     <= dw_q[19:0];
                tclass_q <= dw_q[39:32];
                hop_q    <= dw_q[47:40];
                avflag_q <= dw_q[48];
                if (dw_2320_nz_q || dw_byte_nz_q[3] || dw_5549_nz_q || dw_byte_nz_q[7]
                    || tci_q[12] || (!dw_q[48] && tci_nz_q)) begin
                    dec_err_q <= 1'b1;
                end
            end
            if (dsel_q[9] && dw_nz) dec_err_q <= 1'b1;
        end
        if (d_raddr) begin
            raddr_q <= dw_q;
        end
        if (d_rkey) begin
            rkey_q <= dw_q[31:0];
            if (dw_hi_nz) dec_err_q <= 1'b1;
        end
        case (state_q)
            // Everything is loaded and cleared while idle, whether or not a WQE is offered:
            // nothing reads these registers here, and the load then hangs on the state
            // alone rather than on the handshake too (it reaches a thousand flip-flops).
            S_IDLE: begin
                pick_q         <= s_wqe_pick;
                fetch_status_q <= s_wqe_status;
                blocks_q       <= s_wqe_blocks;
                buf_q          <= s_wqe_buf;
                next_q         <= '0;
                nwords_q       <= s_wqe_blocks == 7'd0 ? 7'd0 : 7'd4;
                layout_q       <= 1'b0;
                rv1_q          <= 1'b0;
                rv2_q          <= 1'b0;
                qn_q           <= '0;
                qrd_q          <= '0;
                qwr_q          <= '0;
                dv_q           <= 1'b0;
                {opcode_q, flags_q, blocks_b_q, nsge_q, index_q} <= '0;
                {known, is_write, has_imm} <= op_class(8'd0);
                {imm_q, inline_len_q, av_b_q, wr_id_q}           <= '0;
                dec_err_q      <= 1'b0;
                nopush_q       <= 1'b0;
                // Not cleared: the address vector's and the remote address's registers
                // (382 flip-flops, which a clear would give a reset of their own). Only a UD
                // WQE's frames read the first (it must have an address vector, ctl1_err;
                // tci_q is checked as word 8 is decoded, after word 7 wrote it), only an RDMA
                // WRITE's the second, and a WQE that is sent has read all its words.
                sges_q         <= '0;
                inl_q          <= '0;
                mr_seen_q      <= '0;
                mr_status_q    <= wqe_fmt_pkg::STATUS_SUCCESS;
                total_q        <= '0;
                tcnt_q         <= '0;
                tso_done_q     <= 1'b0;
                {mss_q, hdr_len_q} <= '0;
                if (s_wqe_valid) begin
                    state_q <= S_READ;
                end
            end
            S_READ: begin
                if (issue) begin
                    next_q <= next_q + 7'd1;
                end
                rv1_q <= issue;
                rv2_q <= rv1_q;
                if (issue) begin
                    rr_dat_q <= i_dat;
                    rr_hi_q  <= !inline_en && i_dat && !i_tpl && next_q[0] != w_data_q[0];
                    rr_inl_q <= i_dat && (i_tpl ? i_tpl_out : inline_en);
                    rr_tpl_q <= i_dat && i_tpl;
                    rr_sel_q <= i_sel;
                end
                rr2_dat_q <= rr_dat_q;
                rr2_hi_q  <= rr_hi_q;
                rr2_inl_q <= rr_inl_q;
                rr2_tpl_q <= rr_tpl_q;
                rr2_sel_q <= rr_sel_q;
                // The queue: the arriving word in, the head out when taken.
                if (rv2_q) begin
                    qw_q[qwr_q]   <= rd_data;
                    qdat_q[qwr_q] <= rr2_dat_q;
                    qhi_q[qwr_q]  <= rr2_hi_q;
                    qinl_q[qwr_q] <= rr2_inl_q;
                    qtpl_q[qwr_q] <= rr2_tpl_q;
                    qsel_q[qwr_q] <= rr2_sel_q;
                    qwr_q         <= qwr_q + 2'd1;
                end
                if (take) begin
                    qrd_q <= qrd_q + 2'd1;
                end
                if (take && h_tpl) begin
                    tcnt_q <= tcnt_q + 5'(!tcnt_q[4]);
                end
                qn_q <= qn_q + 3'(rv2_q) - 3'(take);
                dv_q <= hv && !h_dat;
                // An SGE's address word is held for its second word, which takes it along;
                // it is simply reloaded while it waits at the head.
                if (hv && h_dat && !h_hi && !h_inl) begin
                    sge_addr_q <= hw;
                end
                len_add_q <= hw[31:0];
                if (inl_push) begin
                    inl_q <= inl_q + 8'd1;
                end
                if (sge_push) begin
                    sges_q      <= sges_q + 5'd1;
                    len_add_v_q <= 1'b1;
                end
                // Words 0 and 1 are decoded by the time word 3 is: size the read.
                if (!layout_q && (tso_op ? lay2_q : dsel_q[3])) begin
                    layout_q <= 1'b1;
                    // A fetch failure reads only the raw fields; an inline UD WQE over the
                    // MTU (a raw one outside a frame's length) fails before its data, so
                    // inline words go out only for a pass.
                    if (ctl_err_q || fetch_status_q != wqe_fmt_pkg::STATUS_SUCCESS
                        || (inl_mtu_err_q && !tso_op)) begin
                        if (ctl_err_q) dec_err_q <= 1'b1;
                        nopush_q  <= 1'b1;
                        nwords_q  <= 7'd4;
                    end else begin
                        nwords_q <= seg_words_q;
                    end
                end
                if (next_state_wait) begin
                    state_q <= S_WAIT;
                end
            end
            // The verdict is loaded on every cycle of the wait, so that only the state
            // waits for the last region check's answer.
            S_WAIT: begin
                sge_out_q  <= '0;
                sge_pend_q <= sges_q != 5'd0;
                sge_last_q <= sges_q == 5'd1;
                verdict_q <= verdict;
                len_q     <= msg_len;
                if (mr_seen_q == sges_q && !s_mr_valid && !len_add_v_q && !len_add_p_q
                    && (!tso_op || tso_done_q)) begin
                    state_q <= verdict == wqe_fmt_pkg::STATUS_SUCCESS ? S_SGE : S_OUT;
                end
            end
            S_SGE: begin
                if (m_sge_valid && m_sge_ready) begin
                    sge_out_q  <= sge_out_q + 5'd1;
                    sge_pend_q <= !sge_last_q;
                    sge_last_q <= sge_out_q + 5'd2 == sges_q;
                end
                if (!sge_pend_q || (m_sge_ready && sge_last_q)) begin
                    state_q <= S_OUT;
                end
            end
            S_OUT: if (m_wqe_ready) begin
                state_q <= S_IDLE;
            end
            default: state_q <= S_IDLE;
        endcase
        // Reset last: only these control registers take it, so it joins none of the datapath
        // registers' enables. Inside an `if (rst) else` every register's enable had the reset
        // in it: many distinct clock enables, more control sets than the slices pack (the
        // whole engine on the 25F stalled on that).
        if (rst) begin
            state_q   <= S_IDLE;
            rv1_q     <= 1'b0;
            rv2_q     <= 1'b0;
            qn_q      <= '0;
            qrd_q     <= '0;
            qwr_q     <= '0;
            len_add_v_q <= 1'b0;
            len_add_p_q <= 1'b0;
            tso_start_q <= 1'b0;
            tso_done_q  <= 1'b0;
        end
    end

endmodule

`endif  // ROCENIC_WQE_PARSE_SV
