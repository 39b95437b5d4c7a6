// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_GATHER_SV
`define ROCENIC_WQE_GATHER_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Gather planner: cuts each checked WQE's message into packets of the path MTU (a raw QP's: one
// packet) and each packet into pieces, one per data segment it touches (or one of inline data),
// at most 4,096 bytes each, and starts every piece's DMA read into the packet buffer
// (wqe_rdbuf) under a tag of its own.
//
// For each WQE it first hands the sender (wqe_emit) a commit record, then one packet record per
// packet as the packet is planned, so a message longer than the buffer streams through it. A
// WQE that failed its checks gets a commit record and nothing else. For a UD WQE that passed it
// asks the entropy unit for the packet's UDP port and flow label; the answers come back in WQE
// order and wqe_emit takes them in the same order.
//
// Buffer space is taken in whole pieces, in order, as a ring: a piece starts on a word, so a
// piece of n bytes takes ceil(n / 8) words; wqe_emit returns them in the same order.
//
// TSO (docs/wqe-dp.md, "TSO in the RTL engine"): a packet is a segment. The message is cut at the
// MSS instead of the path MTU, the count ceil(len / MSS) comes from a serial divider (a bit a
// cycle), and the header template (inline words from wqe_parse) is the first packet's first
// piece; a packet record's length is then the segment's frame payload, template included. An
// inline TSO payload is cut at the first word boundary at or past each segment's end (a piece
// must start on a word of the inline FIFO), so a packet's pieces may hold a little of the
// next segments, or nothing; the segmenter cuts the stream itself, and each piece says whether
// it ends the stream (m_piece_end). A refused WQE's inline words (a TSO template goes out
// before the verdict) are dropped here.
//
// A requester's packet (s_wqe.rcp.en, docs/wqe-dp.md, "The requester's packets"): of an RC WQE
// that passed, only packet rcp.index is planned. The planner skips index x MTU bytes over whole
// data segments (or inline words) in S_SKIP, plans that one packet, then drops what is left of
// the WQE's segments and inline words in S_DRAIN, so the FIFOs stay in step with the WQEs. An
// index past the message's last packet, or a pick that is not an RC send, gets loc_qp_op_err
// (the model's rc_packet) and no packet. The commit record says whether the packet is the
// message's first and last (rcp_first, rcp_last): the sender frames its opcode from them.
// A prepare pick (rcp.prep, the model's rc_prepare) is refused alike when it is not an RC
// send; otherwise its commit record carries the message's packet count and no packet is
// planned: the WQE's segments and inline words are all drained.
// Only a build with RC_PACKETS = 1 has this (it costs the data path some 770 LUT4s).
module wqe_gather
#(
    parameter int TAG_W  = 4,    // DMA tag width; tags 0 .. 2^TAG_W - 2 are the pieces'
    parameter int BUF_W  = 11,   // log2 of the packet buffer's 64-bit words
    parameter int TSO    = 0,    // 1: TSO WQEs (wqe_dp_pkg::wqe_t.tso) are planned as segments
    parameter int RC_PACKETS = 0 // 1: a WQE with rcp.en is one requester's packet (else rcp is ignored)
) (
    input  wire                  clk,
    input  wire                  rst,
    // from wqe_parse
    input  wire                  s_wqe_valid,
    output logic                 s_wqe_ready,
    input  wire wqe_dp_pkg::wqe_t            s_wqe,
    input  wire                  s_sge_valid,
    output logic                 s_sge_ready,
    input  wire wqe_dp_pkg::sge_t            s_sge,
    input  wire                  s_inl_valid,
    output logic                 s_inl_ready,
    input  wire [63:0]           s_inl_data,
    // to wqe_emit: the WQE (with its packet count), then its packets
    output logic                 m_commit_valid,
    input  wire                  m_commit_ready,
    output wqe_dp_pkg::wqe_t                 m_commit,
    output logic [23:0]          m_commit_packets,
    output logic                 m_pkt_valid,
    input  wire                  m_pkt_ready,
    output logic [12:0]          m_pkt_len,
    output logic [2**TAG_W-2:0]  m_pkt_tags,       // the tags of its pieces
    output logic [4:0]           m_pkt_pieces,
    output logic                 m_piece_valid,
    input  wire                  m_piece_ready,
    output logic [TAG_W-1:0]     m_piece_tag,
    output logic [BUF_W-1:0]     m_piece_base,
    output logic [12:0]          m_piece_len,
    output logic                 m_piece_end,      // TSO: the piece ends the send's stream
    // entropy requests for UD WQEs (QP mode, UD)
    output logic                 m_ent_valid,
    input  wire                  m_ent_ready,
    output logic [23:0]          m_ent_lqpn,
    output logic [23:0]          m_ent_rqpn,
    output logic [19:0]          m_ent_fl,
    // DMA read requests
    output logic                 m_rd_req_valid,
    input  wire                  m_rd_req_ready,
    output logic [63:0]          m_rd_req_addr,
    output logic [12:0]          m_rd_req_len,
    output logic [TAG_W-1:0]     m_rd_req_tag,
    // the packet buffer: tag allocation, inline writes, space
    input  wire [2**TAG_W-2:0]   tag_busy,         // from wqe_rdbuf
    output logic                 tag_alloc_valid,
    output logic [TAG_W-1:0]     tag_alloc_tag,
    output logic [BUF_W-1:0]     tag_alloc_base,
    output logic                 inl_wr_valid,
    output logic [BUF_W-1:0]     inl_wr_addr,
    output logic [63:0]          inl_wr_data,
    output logic                 inl_wr_done,      // the piece's last word: mark its tag done
    output logic [TAG_W-1:0]     inl_wr_tag,
    input  wire                  inl_wr_ready,     // the buffer's write port is free this cycle
    input  wire [BUF_W:0]        free_ptr          // wqe_emit's ring pointer (words returned)
);

    localparam int TAGS = 2 ** TAG_W - 1;
    localparam bit RCP  = RC_PACKETS != 0;

    typedef enum logic [3:0] {
        S_IDLE, S_COUNT, S_COMMIT, S_ENT, S_PKT, S_PIECE, S_ALLOC, S_REQ, S_COPY, S_PIECE_OUT, S_PKT_OUT,
        S_DRAIN, S_RCP, S_SKIP
    } state_t;
    state_t state_q;

    wqe_dp_pkg::wqe_t        w_q;
    logic [12:0] mtu_q;
    logic [31:0] left_q;           // message bytes not yet planned
    // The packet count's parts, taken with the WQE: ceil(len / mtu) is the whole MTUs in the
    // length plus one for a remainder (the same as ((len - 1) >> log2 mtu) + 1 for len > 0).
    logic [31:0] len_mtus_q;       // len >> log2(mtu)
    logic        len_rem_q;        // len has a remainder past them
    logic        len_zero_q;
    // The bits below the MTU ((128 << code) - 1), as a table rather than a subtraction.
    function automatic logic [31:0] mtu_mask(input logic [2:0] code);
        case (code)
            3'd0: mtu_mask = 32'h007F;
            3'd1: mtu_mask = 32'h00FF;
            3'd2: mtu_mask = 32'h01FF;
            3'd3: mtu_mask = 32'h03FF;
            3'd4: mtu_mask = 32'h07FF;
            3'd5: mtu_mask = 32'h0FFF;
            3'd6: mtu_mask = 32'h1FFF;
            default: mtu_mask = 32'h3FFF;
        endcase
    endfunction
    // UD and RC alike: ceil(len / mtu), one for an empty message; a refused WQE has none. A
    // message is at most 2^31 bytes, so 2^23 packets of 256.
    wire [23:0] packet_count = w_q.status != wqe_fmt_pkg::STATUS_SUCCESS ? 24'd0
                             : len_zero_q ? 24'd1
                             : 24'(len_mtus_q + 32'(len_rem_q));
    logic [23:0] packets_q;
    // TSO: the WQE passed and is TSO; its template piece is still to plan; the payload bytes
    // not yet in a segment; the segment being planned. The divider works out
    // ceil(len / MSS) = (len - 1) / MSS + 1 (len <= MAX_TSO, so 18 dividend bits).
    logic        tso_q, tmpl_q;
    logic [31:0] tso_left_q;
    logic [12:0] seg_q;
    logic [17:0] div_n_q;
    logic [15:0] div_r_q;
    logic [17:0] div_quo_q;
    logic [4:0]  div_i_q;
    logic [7:0]  drain_q;          // the WQE's inline words still in their FIFO
    logic [4:0]  sdrain_q;         // its data segments still in theirs (a refused WQE pushed none)
    // Whether each count is 0 or 1, kept beside it: the FIFOs' readies hang on them, and the
    // compares there were the data path's worst path (sdrain_q != 0 into the segment FIFO's
    // read pointer, 110.1 MHz).
    logic        drain_nz_q, drain_one_q, sd_nz_q, sd_one_q;
    // A requester's packet: planning it (rcp_q), and the message bytes before it still to skip.
    logic        rcp_q;
    logic [31:0] skip_q;
    // Skipping runs off registers: skip_q != 0, and the head segment's bytes against skip_q,
    // compared a cycle after either moved (skip_cur_q). The compare and the zero test fanned
    // out to the planner's enables: 108.2 MHz for the data path alone, 130.6 without them.
    logic        skip_nz_q, skip_le_q, skip_cur_q;
    // The index against the packet count, compared as the count is taken: the compare decided
    // S_RCP's status write (114.3 MHz with it there).
    logic        rcp_past_q;
    // The index plus one, added as the WQE is taken: the sum and the compare with the count in
    // one cycle were a worst path (118.5 MHz at seed 2).
    logic [23:0] rcp_next_q;
    wire unused_rcp = ^{w_q.rcp.psn, w_q.rcp.ack_req};
    wire rcp_go = RCP && rcp_q;    // planning a requester's packet
    wire sd_left = RCP && sd_nz_q;
    logic [31:0] tso_bound_q;      // (k + 1) * MSS for segment k: where it ends
    logic        piece_end_q;
    // An inline TSO packet's piece: up to the word boundary at or past its segment's end (the
    // last packet: the rest). Every earlier piece ended on a word, so this one starts on one.
    wire  [31:0] inl_r8    = (tso_bound_q + 32'd7) & ~32'd7;
    wire  [31:0] inl_av    = inl_r8 - (w_q.len - left_q);
    wire  [31:0] inl_piece = packets_q == 24'd1 || inl_av >= left_q ? left_q : inl_av;
    wire  [16:0] div_sh = {div_r_q, div_n_q[17]};
    wire         div_ge = div_sh >= {1'b0, w_q.mss};
    logic        packets_zero_q;   // no packet to plan: packets_q == 0, or a prepare pick
    logic [12:0] pkt_len_q, pkt_rem_q;
    logic [TAGS-1:0] pkt_tags_q;
    logic [4:0]  pkt_pieces_q;
    // The head data segment: where its unplanned bytes start and how many there are. Sizing a
    // piece (S_PIECE) and allocating it (S_ALLOC) take a cycle each, for the clock.
    logic        sge_loaded_q;
    logic [63:0] sge_addr_q;
    logic [31:0] sge_rem_q;
    logic        ends_sge_q;       // the piece takes the rest of the head segment
    logic [10:0] piece_words_q;
    logic [BUF_W:0] alloc_q;       // words handed out (ring pointer)
    logic [TAG_W-1:0] tag_q;
    logic [BUF_W-1:0] base_q;
    logic [12:0] piece_len_q;
    logic [9:0]  copy_left_q;      // inline words left to copy for this piece
    logic        copy_last_q;      // copy_left_q == 1
    logic [BUF_W-1:0] copy_addr_q;

    // The lowest free tag.
    logic [TAG_W-1:0] free_tag;
    logic             tag_free;
    always_comb begin
        free_tag = '0;
        tag_free = 1'b0;
        for (int t = TAGS - 1; t >= 0; t--) begin
            if (!tag_busy[t]) begin
                free_tag = TAG_W'(t);
                tag_free = 1'b1;
            end
        end
    end

    // The piece the head segment (or the inline data) gives this packet: the rest of the
    // packet, or the rest of the segment when that is shorter. A raw frame (up to 4,218 bytes,
    // one packet) is the only packet longer than a DMA read may be: its pieces stop at 4,096.
    // A TSO send's first piece is its template.
    wire        pkt_over   = pkt_rem_q[12] && pkt_rem_q[11:0] != 12'd0;
    wire [12:0] pkt_lim    = pkt_over ? 13'd4096 : pkt_rem_q;
    wire        rem_short  = !w_q.inline_en && sge_rem_q[31:13] == '0 && sge_rem_q[12:0] < pkt_lim;
    wire [12:0] piece_len  = tmpl_q ? w_q.hdr_len[12:0] : rem_short ? sge_rem_q[12:0] : pkt_lim;
    // Its words, worked out for both choices beside the compare rather than after it.
    wire [10:0] sge_words  = 11'(({1'b0, sge_rem_q[12:0]} + 14'd7) >> 3);
    wire [10:0] pkt_words  = 11'(({1'b0, pkt_lim} + 14'd7) >> 3);
    wire [10:0] tpl_words  = 11'(({1'b0, w_q.hdr_len[12:0]} + 14'd7) >> 3);
    // Room and a free tag are registered (they fan out to the whole allocation); S_ALLOC waits a
    // cycle for them to reflect the piece sized in S_PIECE. Both are only ever stale in the safe
    // direction then: the emitter frees words and tags, it never takes them.
    // The words in use are registered too, a cycle before room_q: an allocation is always
    // three cycles or more before the next one is sized (S_REQ or S_COPY, S_PIECE_OUT,
    // S_PIECE), so both have caught up with it by the time S_ALLOC reads room_q.
    logic [BUF_W:0] used_q;
    logic          room_q, tag_free_q, settle_q;
    logic [TAG_W-1:0] free_tag_q;
    always_ff @(posedge clk) begin
        used_q     <= alloc_q - free_ptr;
        room_q     <= {1'b0, used_q} + {{(BUF_W - 10){1'b0}}, piece_words_q} <= (BUF_W + 2)'(2 ** BUF_W);
        tag_free_q <= tag_free;
        free_tag_q <= free_tag;
    end
    wire           can_plan = settle_q && room_q && tag_free_q;

    assign s_wqe_ready      = state_q == S_IDLE;
    assign m_commit_valid   = state_q == S_COMMIT;
    assign m_commit         = w_q;
    assign m_commit_packets = packets_q;
    assign m_ent_valid      = state_q == S_ENT;
    assign m_ent_lqpn       = w_q.ctx.qpn;
    assign m_ent_rqpn       = w_q.dqpn;
    assign m_ent_fl         = w_q.flow_label;
    assign m_rd_req_valid   = state_q == S_REQ;
    assign m_rd_req_addr    = sge_addr_q;
    assign m_rd_req_len     = piece_len_q;
    assign m_rd_req_tag     = tag_q;
    assign m_piece_valid    = state_q == S_PIECE_OUT;
    assign m_piece_tag      = tag_q;
    assign m_piece_base     = base_q;
    assign m_piece_len      = piece_len_q;
    assign m_piece_end      = piece_end_q;
    assign m_pkt_valid      = state_q == S_PKT_OUT;
    assign m_pkt_len        = pkt_len_q;
    assign m_pkt_tags       = pkt_tags_q;
    assign m_pkt_pieces     = pkt_pieces_q;
    assign tag_alloc_valid  = state_q == S_ALLOC && can_plan;
    assign tag_alloc_tag    = free_tag_q;
    assign tag_alloc_base   = alloc_q[BUF_W-1:0];
    assign inl_wr_valid     = state_q == S_COPY && s_inl_valid;
    assign inl_wr_addr      = copy_addr_q;
    assign inl_wr_data      = s_inl_data;
    assign inl_wr_done      = copy_last_q;
    assign inl_wr_tag       = tag_q;
    assign s_inl_ready      = (state_q == S_COPY && inl_wr_ready)
                           || (state_q == S_DRAIN && drain_nz_q)
                           || (RCP && state_q == S_SKIP && w_q.inline_en && skip_nz_q);
    // The head segment is taken when it is loaded; a new one when the last piece used it up.
    assign s_sge_ready      = ((state_q == S_PIECE && !tmpl_q)
                            || (RCP && state_q == S_SKIP && skip_nz_q))
                           && !w_q.inline_en && !sge_loaded_q
                           || (state_q == S_DRAIN && sd_left);
    wire   inl_take = s_inl_valid && s_inl_ready;
    wire   sge_take = s_sge_valid && s_sge_ready;

    always_ff @(posedge clk) begin
        skip_le_q <= sge_rem_q <= skip_q;
        if (rst) begin
            state_q <= S_IDLE;
            alloc_q <= '0;
            sge_loaded_q <= 1'b0;
        end else begin
            // What is left of the WQE in the two FIFOs, counted down as it is taken.
            if (inl_take) begin
                drain_q     <= drain_q - 8'd1;
                drain_nz_q  <= !drain_one_q;
                drain_one_q <= drain_q == 8'd2;
            end
            if (sge_take) begin
                sdrain_q <= sdrain_q - 5'd1;
                sd_nz_q  <= !sd_one_q;
                sd_one_q <= sdrain_q == 5'd2;
            end
            case (state_q)
                // A raw QP's message is one packet, a whole frame of at most 4,218 bytes
                // (wqe_parse checked it): its "MTU" is 8,191, its mask code 6's (8,192).
                S_IDLE: if (s_wqe_valid) begin
                    w_q        <= s_wqe;
                    // TSO cuts at the MSS (UD or raw). An MSS of 8,192 or more cuts at 8,191:
                    // a passing WQE with such an MSS is one segment (the UD MTU or a raw
                    // frame's 4,218 bytes bounds it).
                    tso_q      <= TSO != 0 && s_wqe.tso && s_wqe.status == wqe_fmt_pkg::STATUS_SUCCESS;
                    tmpl_q     <= TSO != 0 && s_wqe.tso && s_wqe.status == wqe_fmt_pkg::STATUS_SUCCESS;
                    tso_left_q <= s_wqe.len;
                    tso_bound_q <= {16'b0, s_wqe.mss};
                    div_n_q    <= 18'(s_wqe.len - 32'd1);
                    div_r_q    <= '0;
                    div_i_q    <= 5'd18;
                    mtu_q      <= TSO != 0 && s_wqe.tso
                                ? (s_wqe.mss[15:13] != 3'd0 ? 13'd8191 : s_wqe.mss[12:0])
                                : s_wqe.ctx.raw ? 13'd8191 : 13'd128 << s_wqe.ctx.mtu;
                    left_q     <= s_wqe.len;
                    len_mtus_q <= s_wqe.ctx.raw ? 32'd0 : (s_wqe.len >> 7) >> s_wqe.ctx.mtu;
                    len_rem_q  <= (s_wqe.len & (s_wqe.ctx.raw ? mtu_mask(3'd6)
                                                              : mtu_mask(s_wqe.ctx.mtu))) != 32'd0;
                    len_zero_q <= s_wqe.len == 32'd0;
                    sdrain_q   <= RCP && s_wqe.status == wqe_fmt_pkg::STATUS_SUCCESS ? s_wqe.sges : 5'd0;
                    sd_nz_q    <= RCP && s_wqe.status == wqe_fmt_pkg::STATUS_SUCCESS && s_wqe.sges != 5'd0;
                    sd_one_q   <= RCP && s_wqe.status == wqe_fmt_pkg::STATUS_SUCCESS && s_wqe.sges == 5'd1;
                    rcp_q      <= 1'b0;
                    rcp_next_q <= s_wqe.rcp.index + 24'd1;
                    state_q    <= S_COUNT;
                end
                S_COUNT: begin
                    drain_q     <= w_q.inline_words;
                    drain_nz_q  <= w_q.inline_words != 8'd0;
                    drain_one_q <= w_q.inline_words == 8'd1;
                    if (tso_q && div_i_q != 5'd0) begin
                        div_r_q   <= div_ge ? 16'(div_sh - {1'b0, w_q.mss}) : div_r_q[15:0] << 1 | 16'(div_n_q[17]);
                        div_quo_q <= {div_quo_q[16:0], div_ge};
                        div_n_q   <= div_n_q << 1;
                        div_i_q   <= div_i_q - 5'd1;
                    end else begin
                        packets_q <= !tso_q ? packet_count
                                   : len_zero_q ? 24'd1 : 24'(div_quo_q) + 24'd1;
                        packets_zero_q <= !tso_q && packet_count == 24'd0;
                        rcp_past_q     <= w_q.rcp.index >= packet_count;
                        state_q   <= RCP && w_q.rcp.en ? S_RCP : S_COMMIT;
                    end
                end
                // A requester's packet: one of the message's packets (a WQE refused already
                // keeps its status and has none). The bytes before it: index x MTU.
                S_RCP: if (RCP) begin
                    w_q.rcp_first <= w_q.rcp.index == 24'd0;
                    w_q.rcp_last  <= rcp_next_q == packets_q;
                    skip_q        <= (32'(w_q.rcp.index) << 7) << w_q.ctx.mtu;
                    skip_nz_q     <= w_q.rcp.index != 24'd0;
                    skip_cur_q    <= 1'b0;
                    if (!packets_zero_q) begin
                        if (w_q.ctx.ud || w_q.ctx.raw || tso_q || (!w_q.rcp.prep && rcp_past_q)) begin
                            w_q.status     <= wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
                            packets_q      <= 24'd0;
                            packets_zero_q <= 1'b1;
                        end else if (w_q.rcp.prep) begin
                            // The count goes out with the commit; nothing is planned.
                            packets_zero_q <= 1'b1;
                        end else begin
                            packets_q <= 24'd1;
                            rcp_q     <= 1'b1;
                        end
                    end
                    state_q <= S_COMMIT;
                end
                S_COMMIT: if (m_commit_ready) begin
                    state_q <= packets_zero_q ? (drain_nz_q || sd_left ? S_DRAIN : S_IDLE)
                                              : rcp_go ? S_SKIP : (w_q.ctx.ud ? S_ENT : S_PKT);
                    // A requester's packet starts past the bytes it skips (the same value on
                    // every cycle of the wait).
                    if (rcp_go) begin
                        left_q <= w_q.len - skip_q;
                    end
                end
                // Whole data segments (or inline words) before the packet are dropped, and the
                // segment it starts in is advanced to it (an MTU is whole words, so inline
                // data is skipped a word at a time).
                S_SKIP: if (RCP) begin
                    skip_cur_q <= 1'b1;
                    if (!skip_nz_q) begin
                        state_q <= S_PKT;
                    end else if (w_q.inline_en) begin
                        if (inl_take) begin
                            skip_q    <= skip_q - 32'd8;
                            skip_nz_q <= skip_q != 32'd8;
                        end
                    end else if (!sge_loaded_q) begin
                        if (s_sge_valid) begin
                            sge_addr_q   <= s_sge.addr;
                            sge_rem_q    <= s_sge.len;
                            sge_loaded_q <= 1'b1;
                            skip_cur_q   <= 1'b0;
                        end
                    end else if (!skip_cur_q) begin
                        // skip_le_q catches up with the segment just loaded or skipped.
                    end else if (skip_le_q) begin
                        skip_q       <= skip_q - sge_rem_q;
                        sge_loaded_q <= 1'b0;
                        skip_nz_q    <= sge_rem_q != skip_q;
                        skip_cur_q   <= 1'b0;
                    end else begin
                        sge_addr_q <= sge_addr_q + {32'b0, skip_q};
                        sge_rem_q  <= sge_rem_q - skip_q;
                        skip_q     <= 32'd0;
                        skip_nz_q  <= 1'b0;
                    end
                end
                // What is left of the WQE in the FIFOs: a refused WQE's inline words, or what
                // follows a requester's packet.
                S_DRAIN: begin
                    if ((!drain_nz_q || (drain_one_q && inl_take))
                        && (!sd_left || (sd_one_q && sge_take))) begin
                        state_q <= S_IDLE;
                    end
                end
                S_ENT: if (m_ent_ready) begin
                    state_q <= S_PKT;
                end
                S_PKT: begin
                    if (tso_q) begin
                        // The frame's payload: the template and the segment; an inline payload
                        // is all in the first packet (left_q is 0 after it).
                        seg_q        <= tso_left_q < {19'b0, mtu_q} ? tso_left_q[12:0] : mtu_q;
                        pkt_len_q    <= w_q.hdr_len[12:0]
                                      + (tso_left_q < {19'b0, mtu_q} ? tso_left_q[12:0] : mtu_q);
                        pkt_rem_q    <= w_q.inline_en ? inl_piece[12:0]
                                      : left_q < {19'b0, mtu_q} ? left_q[12:0] : mtu_q;
                    end else begin
                        pkt_len_q    <= left_q < {19'b0, mtu_q} ? left_q[12:0] : mtu_q;
                        pkt_rem_q    <= left_q < {19'b0, mtu_q} ? left_q[12:0] : mtu_q;
                    end
                    pkt_tags_q   <= '0;
                    pkt_pieces_q <= '0;
                    state_q      <= !tmpl_q && (tso_q && w_q.inline_en ? inl_piece == 32'd0
                                                                       : left_q == 32'd0)
                                  ? S_PKT_OUT : S_PIECE;
                end
                S_PIECE: begin
                    if (!w_q.inline_en && !tmpl_q && !sge_loaded_q) begin
                        if (s_sge_valid) begin
                            sge_addr_q   <= s_sge.addr;
                            sge_rem_q    <= s_sge.len;
                            sge_loaded_q <= 1'b1;
                        end
                    end else begin
                        piece_len_q   <= piece_len;
                        piece_words_q <= tmpl_q ? tpl_words : rem_short ? sge_words : pkt_words;
                        ends_sge_q    <= !w_q.inline_en && sge_rem_q[31:13] == '0
                                      && sge_rem_q[12:0] <= pkt_lim;
                        settle_q      <= 1'b0;
                        piece_end_q   <= tso_q && (tmpl_q ? w_q.len == 32'd0
                                                          : left_q == {19'b0, piece_len});
                        state_q       <= S_ALLOC;
                    end
                end
                S_ALLOC: if (!settle_q) begin
                    settle_q <= 1'b1;
                end else if (can_plan) begin
                    tag_q       <= free_tag_q;
                    base_q      <= alloc_q[BUF_W-1:0];
                    alloc_q     <= alloc_q + (BUF_W + 1)'(piece_words_q);
                    pkt_tags_q[free_tag_q] <= 1'b1;
                    pkt_pieces_q <= pkt_pieces_q + 5'd1;
                    copy_left_q <= piece_words_q[9:0];
                    copy_last_q <= piece_words_q[9:0] == 10'd1;
                    copy_addr_q <= alloc_q[BUF_W-1:0];
                    state_q     <= w_q.inline_en || tmpl_q ? S_COPY : S_REQ;
                end
                S_REQ: if (m_rd_req_ready) begin
                    sge_addr_q   <= sge_addr_q + {51'b0, piece_len_q};
                    sge_rem_q    <= sge_rem_q - {19'b0, piece_len_q};
                    if (ends_sge_q) begin
                        sge_loaded_q <= 1'b0;
                    end
                    state_q <= S_PIECE_OUT;
                end
                S_COPY: if (s_inl_valid && s_inl_ready) begin
                    copy_left_q <= copy_left_q - 10'd1;
                    copy_last_q <= copy_left_q == 10'd2;
                    copy_addr_q <= copy_addr_q + 1'b1;
                    if (copy_last_q) begin
                        state_q <= S_PIECE_OUT;
                    end
                end
                S_PIECE_OUT: if (m_piece_ready) begin
                    if (tmpl_q) begin
                        // The template is no part of the payload's count.
                        tmpl_q  <= 1'b0;
                        state_q <= pkt_rem_q == 13'd0 ? S_PKT_OUT : S_PIECE;
                    end else begin
                        pkt_rem_q <= pkt_rem_q - piece_len_q;
                        left_q    <= left_q - {19'b0, piece_len_q};
                        state_q   <= pkt_rem_q == piece_len_q ? S_PKT_OUT : S_PIECE;
                    end
                end
                S_PKT_OUT: if (m_pkt_ready) begin
                    tso_left_q <= tso_left_q - {19'b0, seg_q};
                    tso_bound_q <= tso_bound_q + {16'b0, w_q.mss};
                    packets_q <= packets_q - 24'd1;
                    if (packets_q != 24'd1) begin
                        state_q <= S_PKT;
                    end else if (rcp_go) begin
                        // The packet's segment may go on past it: unloaded, and the rest dropped.
                        sge_loaded_q <= 1'b0;
                        state_q      <= drain_nz_q || sd_left ? S_DRAIN : S_IDLE;
                    end else begin
                        state_q <= S_IDLE;
                    end
                end
                default: state_q <= S_IDLE;
            endcase
        end
    end

endmodule

`endif  // ROCENIC_WQE_GATHER_SV
