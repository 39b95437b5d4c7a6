// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_EMIT_SV
`define ROCENIC_WQE_EMIT_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/wqe/wqe_frame_pkg.sv"
`include "rtl/common/stream_fifo.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The sender, and the engine's commit point: WQEs are decided here, in order, as the model's
// engine decides them (docs/wqe.md, "Checks and statuses"):
//   - the QP is in ERR (qp_err, as it is now, after every earlier WQE): flush: its planned
//     packets are dropped once their reads are back, and it completes with wr_flush_err;
//   - a WQE that failed its checks completes with that status and moves the QP to ERR;
//   - otherwise each packet waits until all its pieces are in the packet buffer; a piece whose
//     read faulted drops that packet and the rest (general_err, QP to ERR); else the packet
//     takes the QP's next PSN (a raw QP's frame none), its descriptor goes to the frame builder
//     and its payload follows through wqe_concat. A signaled WQE then completes with success.
// Every decision reads qp_err after the previous WQE's, so a fault late in one WQE flushes the
// next WQE of that QP even if it was planned already.
//
// TSO (docs/wqe-dp.md, "TSO in the RTL engine"): a packet is a segment, with its own PSN and
// descriptor (UD SEND_ONLY); the template and the pieces go out as one stream (tlast after the
// last piece), which wqe_tso_tx cuts again. Each stream is announced on m_rec (one per plain
// packet with a payload, one per TSO send) and each segment gets a keep flag on m_keep before
// its bytes. A read that faults after the stream has begun does not cut it: the rest of the
// send streams as it is (no PSN, no descriptor) with keep flags of 0, so the segmenter always
// sees whole sends; before that, the WQE's packets are dropped as any other's.
//
// A requester's packet (rcp.en, docs/wqe-dp.md, "The requester's packets") is decided by the
// requester, not here: the QP's error bit is not read, no PSN is taken, no completion is written
// and the QP is not moved to ERR. Its one packet goes out with the pick's PSN and AckReq and the
// opcode its place in the message gives (rcp_first, rcp_last), and the outcome, success or the
// status of a refusal or a faulted read, is answered on m_res. A prepare pick (rcp.prep) sends
// nothing: m_res answers with the checks' status, the message's packet count, the signaled bit
// and, in m_cqe, the completion the requester writes when the WQE ends (its length on success).
module wqe_emit
#(
    parameter int QPS   = 64,   // QP slots
    parameter int TAG_W = 4,    // DMA tag width
    parameter int BUF_W = 11,   // log2 of the packet buffer's words
    parameter int TSO   = 0,    // 1: records and keep flags for wqe_tso_tx (else never valid)
    parameter int RC_PACKETS = 0 // 1: a commit with rcp.en is a requester's packet (else rcp is ignored)
) (
    input  wire                  clk,
    input  wire                  rst,
    // from wqe_gather
    input  wire                  s_commit_valid,
    output logic                 s_commit_ready,
    input  wire wqe_dp_pkg::wqe_t            s_commit,
    input  wire [23:0]           s_commit_packets,
    input  wire                  s_pkt_valid,
    output logic                 s_pkt_ready,
    input  wire [12:0]           s_pkt_len,
    input  wire [2**TAG_W-2:0]   s_pkt_tags,
    input  wire [4:0]            s_pkt_pieces,
    input  wire                  s_piece_valid,
    output logic                 s_piece_ready,
    input  wire [TAG_W-1:0]      s_piece_tag,
    input  wire [BUF_W-1:0]      s_piece_base,
    input  wire [12:0]           s_piece_len,
    input  wire                  s_piece_end,      // TSO: the piece ends the stream
    // UD entropy, in WQE order
    input  wire                  s_ent_valid,
    output logic                 s_ent_ready,
    input  wire [19:0]           s_ent_flow_label,
    input  wire [15:0]           s_ent_udp_sport,
    // the packet buffer
    input  wire [2**TAG_W-2:0]   tag_done,
    input  wire [2**TAG_W-2:0]   tag_err,
    output logic                 free_valid,
    output logic [TAG_W-1:0]     free_tag,
    output logic [BUF_W:0]       free_ptr,
    output logic [BUF_W-1:0]     rd_addr,
    input  wire [63:0]           rd_data,
    // the control plane
    input  wire [QPS-1:0]        qp_err,
    output logic                 err_set_valid,
    output logic [7:0]           err_set_slot,
    output logic                 psn_take_valid,
    output logic [7:0]           psn_take_slot,
    input  wire [23:0]           psn_take_first,   // the cycle after psn_take_valid
    input  wire [47:0]           nic_mac,
    input  wire [31:0]           nic_ipv4,
    input  wire [127:0]          nic_ipv6,
    output logic                 wqe_retire,       // a WQE is finished (one cycle)
    output logic                 frame_sent,       // a packet's last word was read (one cycle)
    // to the frame builder
    output logic                 m_desc_valid,
    input  wire                  m_desc_ready,
    output wqe_frame_pkg::desc_t          m_desc,
    output logic                 m_pay_valid,
    input  wire                  m_pay_ready,
    output logic [63:0]          m_pay_data,
    output logic [3:0]           m_pay_bytes,
    output logic                 m_pay_last,
    output logic                 pay_busy,         // payload words read and not yet taken
    // to wqe_tso_tx: one record per stream, one keep flag per TSO segment
    output logic                 m_rec_valid,
    input  wire                  m_rec_ready,
    output logic                 m_rec_tso,
    output logic                 m_rec_ipoib,      // TSO: 1 an IPoIB template (UD), 0 Ethernet (raw)
    output logic [15:0]          m_rec_hdr_len,
    output logic [15:0]          m_rec_mss,
    output logic [31:0]          m_rec_len,
    output logic                 m_keep_valid,
    input  wire                  m_keep_ready,
    output logic                 m_keep,
    // completions
    output logic                 m_cqe_valid,
    input  wire                  m_cqe_ready,
    output wqe_dp_pkg::cqe_t                 m_cqe,
    // a requester's packet: its outcome, in pick order
    output logic                 m_res_valid,
    input  wire                  m_res_ready,
    output logic [7:0]           m_res_slot,
    output logic [4:0]           m_res_status,
    output logic [23:0]          m_res_packets,    // a prepare pick's: the message's packets
    output logic                 m_res_signaled    // ... and its SIGNALED flag (m_cqe: its completion)
);

    typedef enum logic [3:0] {
        S_IDLE, S_QPERR, S_DECIDE, S_ENT, S_PKT, S_PKT2, S_PSN, S_DESC, S_PIECE, S_STREAM, S_DROP, S_NEXT, S_END, S_CQE,
        S_TX, S_RES
    } state_t;
    state_t state_q;

    // The WQE is read where it stands, at the commit queue's head (that FIFO's output register
    // holds still until it is popped, in S_END), not copied into a register of its own: the
    // copy was 1,146 flip-flops more loaded by one enable. (The queue holds one record fewer
    // for it: the tests pass; the bench's cycle figures were not measured again.)
    wqe_dp_pkg::wqe_t        w_q;
    assign w_q = s_commit;
    logic [23:0] left_q;            // packets not yet taken
    logic        last_q;            // left_q == 1: this packet is the message's last
    logic        none_q;            // left_q == 0
    logic        first_q;           // this packet is the message's first
    logic        drop_q;            // the WQE's packets are dropped (flush or fault)
    logic [4:0]  status_q;          // its completion status
    logic        cqe_due_q;
    logic [19:0] ent_fl_q;
    logic [15:0] ent_port_q;
    logic [12:0] pkt_len_q;
    logic [4:0]  pieces_q;          // pieces of this packet still to stream or drop
    logic        pieces_nz_q;       // pieces_q != 0
    logic        pieces_one_q;      // pieces_q == 1
    logic [23:0] psn_q;
    logic        qp_err_q;          // the QP's error bit, read in S_QPERR
    // streaming one piece
    logic [BUF_W-1:0] rd_q;         // next word to read
    logic [9:0]  words_left_q;      // words of the piece not yet read
    logic        left_one_q;        // words_left_q == 1: the next word read is the piece's last
    logic [3:0]  tail_bytes_q;      // bytes in the piece's last word
    logic        piece_last_q;      // this piece is the packet's last
    logic [3:0]  credits_q;         // words the payload FIFO can still be sent (see below)
    logic        can_read_q;        // credits_q != 0
    // TSO
    logic        tso_run_q;         // this TSO send's stream has begun (its record is out)
    logic        ghost_q;           // this packet streams without PSN or descriptor (a fault)
    logic        rec_pend_q;        // a record to hand on before the packet's stream
    logic        keep_pend_q;       // a keep flag to hand on before it

    // Fields the earlier stages used.
    wire unused_w = ^{w_q.inline_words, w_q.sges, w_q.flow_label, w_q.inline_en, w_q.rcp.index};

    // A requester's packet is its message's first or last as the planner found; a WQE's
    // packets are counted here.
    wire rcp     = RC_PACKETS != 0 && w_q.rcp.en;
    wire prep    = rcp && w_q.rcp.prep;
    wire ud      = w_q.ctx.ud;
    wire first   = rcp ? w_q.rcp_first : first_q;
    wire last    = rcp ? w_q.rcp_last : last_q;
    wire is_write = {6'b0, w_q.opcode} == wqe_fmt_pkg::OPCODE_RDMA_WRITE || {6'b0, w_q.opcode} == wqe_fmt_pkg::OPCODE_RDMA_WRITE_IMM;
    wire has_imm  = {6'b0, w_q.opcode} == wqe_fmt_pkg::OPCODE_RDMA_WRITE_IMM || {6'b0, w_q.opcode} == wqe_fmt_pkg::OPCODE_SEND_IMM;
    wire ud_ok    = w_q.ctx.ud && w_q.status == wqe_fmt_pkg::STATUS_SUCCESS;

    // BTH opcode (model/src/wqe/packets.rs).
    logic [7:0] bth_op;
    always_comb begin
        if (ud) begin
            bth_op = has_imm ? 8'h65 : 8'h64;
        end else if (first && last) begin
            bth_op = is_write ? (has_imm ? 8'h0B : 8'h0A) : (has_imm ? 8'h05 : 8'h04);
        end else if (first) begin
            bth_op = is_write ? 8'h06 : 8'h00;
        end else if (!last) begin
            bth_op = is_write ? 8'h07 : 8'h01;
        end else begin
            bth_op = is_write ? (has_imm ? 8'h09 : 8'h08) : (has_imm ? 8'h03 : 8'h02);
        end
    end

    // The route: RC from its context, UD from the WQE's address vector and the NIC.
    wire ud_v4 = w_q.dgid[127:32] == {80'b0, 16'hFFFF};
    always_comb begin
        m_desc = '0;
        if (ud) begin
            m_desc.vlan_en    = w_q.vlan;
            m_desc.vid        = w_q.vid;
            m_desc.pcp        = w_q.pcp;
            m_desc.ipv6       = !ud_v4;
            m_desc.src_ip     = ud_v4 ? {96'b0, nic_ipv4} : nic_ipv6;
            m_desc.dst_ip     = ud_v4 ? {96'b0, w_q.dgid[31:0]} : w_q.dgid;
            m_desc.src_mac    = nic_mac;
            m_desc.dst_mac    = w_q.dmac;
            m_desc.tclass     = w_q.tclass;
            m_desc.hop_limit  = w_q.hop_limit;
            m_desc.flow_label = ent_fl_q;
            m_desc.udp_sport  = ent_port_q;
            m_desc.dest_qpn   = w_q.dqpn;
        end else begin
            m_desc.vlan_en    = w_q.ctx.vlan;
            m_desc.vid        = w_q.ctx.vid;
            m_desc.pcp        = w_q.ctx.pcp;
            m_desc.ipv6       = w_q.ctx.ipv6;
            m_desc.src_ip     = w_q.ctx.src_ip;
            m_desc.dst_ip     = w_q.ctx.dst_ip;
            m_desc.src_mac    = w_q.ctx.smac;
            m_desc.dst_mac    = w_q.ctx.dmac;
            m_desc.tclass     = w_q.ctx.tclass;
            m_desc.hop_limit  = w_q.ctx.hop_limit;
            m_desc.flow_label = w_q.ctx.flow_label;
            m_desc.udp_sport  = w_q.ctx.udp_sport;
            m_desc.dest_qpn   = w_q.ctx.dest_qpn;
        end
        m_desc.opcode      = bth_op;
        m_desc.se          = last && w_q.solicited && {6'b0, w_q.opcode} != wqe_fmt_pkg::OPCODE_RDMA_WRITE;
        m_desc.ack_req     = rcp ? w_q.rcp.ack_req : last && !ud;
        m_desc.psn         = psn_q;
        m_desc.reth_en     = first && is_write && !ud;
        m_desc.va          = w_q.raddr;
        m_desc.rkey        = w_q.rkey;
        m_desc.dma_len     = w_q.len;
        m_desc.deth_en     = ud;
        m_desc.qkey        = w_q.qkey[31] ? w_q.ctx.qkey : w_q.qkey;
        m_desc.src_qpn     = w_q.ctx.qpn;
        m_desc.imm_en      = last && has_imm;
        m_desc.imm         = w_q.imm;
        m_desc.payload_len = pkt_len_q;
        m_desc.raw         = w_q.ctx.raw;   // the payload is the whole frame: no headers
    end

    // Popped as the WQE ends (S_END): nothing reads it after that but the completion, which is
    // registered then. The pop hangs on the state alone, not on the completion writer's ready.
    assign s_commit_ready = state_q == S_END;
    assign s_ent_ready    = state_q == S_ENT;
    assign s_pkt_ready    = state_q == S_NEXT;
    assign m_desc_valid   = state_q == S_DESC;
    assign m_rec_valid    = (state_q == S_PSN || state_q == S_TX) && rec_pend_q;
    assign m_rec_tso      = w_q.tso;
    assign m_rec_ipoib    = !w_q.ctx.raw;
    assign m_rec_hdr_len  = w_q.hdr_len;
    assign m_rec_mss      = w_q.mss;
    assign m_rec_len      = w_q.len;
    assign m_keep_valid   = (state_q == S_PSN || state_q == S_TX) && keep_pend_q;
    assign m_keep         = !ghost_q;
    wire   tx_done        = (!rec_pend_q || m_rec_ready) && (!keep_pend_q || m_keep_ready);
    // Whether a packet's pieces are all in (and whether one faulted) is registered in S_PKT and
    // acted on in S_PKT2: the tag compare fans out to the whole commit decision.
    logic pkt_in_q, pkt_fault_q;
    // A raw QP's frame takes no PSN (its S_PSN just passes).
    assign psn_take_valid = state_q == S_PKT2 && pkt_in_q && !drop_q && !pkt_fault_q
                         && !w_q.ctx.raw && !rcp;
    assign psn_take_slot  = w_q.slot;
    assign m_cqe_valid    = state_q == S_CQE;
    assign m_res_valid    = state_q == S_RES;
    assign m_res_status   = status_q;
    assign m_res_packets  = left_q;     // a prepare pick's count (it plans no packet)
    // The completion, registered in S_END from the WQE before it is popped (165 bits).
    always_ff @(posedge clk) begin
        if (state_q == S_END) begin
            m_cqe          <= '0;
            m_cqe.wr_id    <= w_q.wr_id;
            m_cqe.qpn      <= w_q.ctx.qpn;
            m_cqe.byte_len <= status_q == wqe_fmt_pkg::STATUS_SUCCESS ? w_q.len : 32'd0;
            m_cqe.index    <= w_q.index;
            m_cqe.opcode   <= w_q.opcode_known ? w_q.opcode_raw : 8'hFF;
            m_cqe.status   <= status_q;
            m_res_slot     <= w_q.slot;
            m_res_signaled <= w_q.signaled;
        end
    end

    // Piece streaming: the piece's words are read in order, one per cycle, into flip-flops
    // straight off the packet buffer's read port (a block RAM, whose data come late in the
    // cycle), then into a small FIFO that wqe_concat reads. A word is read only while the FIFO
    // has room for it and every word before it (credits_q), so nothing is read twice.
    localparam int PAY_DEPTH_LOG2 = 3;
    localparam logic [3:0] PAY_CREDITS = 4'(2 ** PAY_DEPTH_LOG2);
    wire   rd_issue = state_q == S_STREAM && can_read_q;
    assign rd_addr  = rd_q;
    // A word read is in the block RAM's read register (stage 1), then its output register, on
    // rd_data (stage 2), then in data3_q.
    logic        rv1_q, last1_q, rv2_q, last2_q, rv3_q, last3_q;
    logic [3:0]  bytes1_q, bytes2_q, bytes3_q;
    logic [63:0] data3_q;
    // A word taken from the FIFO returns its credit a cycle later (pay_take_q), which keeps
    // wqe_concat's ready off the read's issue.
    logic        pay_take_q;
    wire [3:0]   credits_d = credits_q - 4'(rd_issue) + 4'(pay_take_q);
    logic        unused_pay_ready;                 // always: the credits keep room
    always_ff @(posedge clk) begin
        if (rst) begin
            rv1_q     <= 1'b0;
            rv2_q     <= 1'b0;
            rv3_q     <= 1'b0;
            credits_q  <= PAY_CREDITS;
            can_read_q <= 1'b1;
            pay_take_q <= 1'b0;
        end else begin
            rv1_q      <= rd_issue;
            rv2_q      <= rv1_q;
            rv3_q      <= rv2_q;
            credits_q  <= credits_d;
            pay_take_q <= m_pay_valid && m_pay_ready;
            can_read_q <= credits_d != 4'd0;
        end
        bytes1_q <= left_one_q ? tail_bytes_q : 4'd8;
        last1_q  <= left_one_q && piece_last_q;
        bytes2_q <= bytes1_q;
        last2_q  <= last1_q;
        data3_q  <= rd_data;
        bytes3_q <= bytes2_q;
        last3_q  <= last2_q;
    end
    stream_fifo #(.WIDTH(64 + 4 + 1), .DEPTH_LOG2(PAY_DEPTH_LOG2)) u_pay_fifo (
        .clk, .rst,
        .s_valid(rv3_q), .s_ready(unused_pay_ready), .s_data({data3_q, bytes3_q, last3_q}),
        .m_valid(m_pay_valid), .m_ready(m_pay_ready), .m_data({m_pay_data, m_pay_bytes, m_pay_last})
    );
    assign pay_busy = credits_q != PAY_CREDITS;

    // A piece is freed once its last word is read (the read port has it then), or at once when
    // dropped (its read is back: S_PKT waited for it). The release is registered (free_valid,
    // free_tag, free_ptr): it reaches every tag's state in the packet buffer and the planner's
    // room, and a tag or words freed a cycle later are only ever late in the safe direction.
    assign s_piece_ready = (rd_issue && left_one_q)
                        || (state_q == S_DROP && pieces_nz_q);
    wire   piece_free    = s_piece_valid && s_piece_ready;
    wire [9:0] piece_words = 10'((s_piece_len + 13'd7) >> 3);

    always_ff @(posedge clk) begin
        err_set_valid <= 1'b0;
        frame_sent    <= 1'b0;
        wqe_retire    <= 1'b0;
        free_valid    <= piece_free;
        free_tag      <= s_piece_tag;
        if (piece_free) begin
            free_ptr <= free_ptr + (BUF_W + 1)'(piece_words);
        end
        case (state_q)
            S_IDLE: if (s_commit_valid) begin
                tso_run_q <= 1'b0;
                left_q  <= s_commit_packets;
                last_q  <= s_commit_packets == 24'd1;
                none_q  <= s_commit_packets == 24'd0;
                first_q <= 1'b1;
                state_q <= S_QPERR;
            end
            // Decided against the QP's state after every earlier WQE: its error bit is
            // read from the registered WQE's slot (a wide multiplexer) into a register,
            // and decided on the next cycle.
            S_QPERR: begin
                qp_err_q <= qp_err[w_q.slot[$clog2(QPS)-1:0]];
                state_q  <= S_DECIDE;
            end
            S_DECIDE: begin
                if (qp_err_q && !rcp) begin
                    drop_q    <= 1'b1;
                    status_q  <= wqe_fmt_pkg::STATUS_WR_FLUSH_ERR;
                    cqe_due_q <= 1'b1;
                end else if (w_q.status != wqe_fmt_pkg::STATUS_SUCCESS) begin
                    drop_q        <= 1'b1;
                    status_q      <= w_q.status;
                    cqe_due_q     <= 1'b1;
                    err_set_valid <= !rcp;
                    err_set_slot  <= w_q.slot;
                end else begin
                    drop_q    <= 1'b0;
                    status_q  <= wqe_fmt_pkg::STATUS_SUCCESS;
                    cqe_due_q <= w_q.signaled;
                end
                state_q <= ud_ok ? S_ENT : (none_q || prep ? S_END : S_PKT);
            end
            S_ENT: if (s_ent_valid) begin
                ent_fl_q   <= s_ent_flow_label;
                ent_port_q <= s_ent_udp_sport;
                state_q    <= S_PKT;
            end
            S_PKT: if (s_pkt_valid) begin
                pkt_in_q    <= (tag_done & s_pkt_tags) == s_pkt_tags;
                pkt_fault_q <= (tag_err & s_pkt_tags) != '0;
                pieces_q    <= s_pkt_pieces;
                pieces_nz_q <= s_pkt_pieces != 5'd0;
                pieces_one_q <= s_pkt_pieces == 5'd1;
                pkt_len_q   <= s_pkt_len;
                state_q     <= S_PKT2;
            end
            S_PKT2: begin
                ghost_q     <= 1'b0;
                rec_pend_q  <= TSO != 0 && (w_q.tso ? !tso_run_q : pieces_nz_q);
                keep_pend_q <= TSO != 0 && w_q.tso;
                if (!pkt_in_q) begin
                    state_q <= S_PKT;                      // look again
                end else if (drop_q && !tso_run_q) begin
                    state_q <= S_DROP;
                end else if (drop_q) begin
                    ghost_q     <= 1'b1;                   // the send's rest after a fault
                    rec_pend_q  <= 1'b0;
                    state_q     <= S_TX;
                end else if (pkt_fault_q) begin
                    drop_q        <= 1'b1;
                    status_q      <= wqe_fmt_pkg::STATUS_GENERAL_ERR;
                    cqe_due_q     <= 1'b1;
                    err_set_valid <= !rcp;
                    err_set_slot  <= w_q.slot;
                    ghost_q       <= tso_run_q;
                    rec_pend_q    <= 1'b0;
                    state_q       <= tso_run_q ? S_TX : S_DROP;
                end else begin
                    tso_run_q <= w_q.tso;
                    state_q   <= S_PSN;
                end
            end
            // The record and keep flag go out here or in S_TX, before the descriptor.
            S_PSN: begin
                psn_q   <= rcp ? w_q.rcp.psn : psn_take_first;
                if (m_rec_valid && m_rec_ready) rec_pend_q <= 1'b0;
                if (m_keep_valid && m_keep_ready) keep_pend_q <= 1'b0;
                state_q <= tx_done ? S_DESC : S_TX;
            end
            S_TX: begin
                if (m_rec_valid && m_rec_ready) rec_pend_q <= 1'b0;
                if (m_keep_valid && m_keep_ready) keep_pend_q <= 1'b0;
                if (tx_done) begin
                    state_q <= !ghost_q ? S_DESC : pieces_nz_q ? S_PIECE : S_NEXT;
                end
            end
            S_DESC: if (m_desc_ready) begin
                if (!pieces_nz_q) begin
                    frame_sent <= 1'b1;
                    state_q    <= S_NEXT;
                end else begin
                    state_q <= S_PIECE;
                end
            end
            S_PIECE: if (s_piece_valid) begin
                rd_q         <= s_piece_base;
                words_left_q <= piece_words;
                left_one_q   <= piece_words == 10'd1;
                tail_bytes_q <= 4'(((s_piece_len - 13'd1) & 13'd7) + 13'd1);
                // A TSO send's stream ends with the piece that ends its payload (an inline
                // one's last packet may have no piece).
                piece_last_q <= w_q.tso ? s_piece_end : pieces_one_q;
                state_q      <= S_STREAM;
            end
            S_STREAM: begin
                if (rd_issue) begin
                    rd_q         <= rd_q + 1'b1;
                    words_left_q <= words_left_q - 10'd1;
                    left_one_q   <= words_left_q == 10'd2;
                end
                if (rd_issue && left_one_q) begin
                    pieces_q     <= pieces_q - 5'd1;
                    pieces_nz_q  <= !pieces_one_q;
                    pieces_one_q <= pieces_q == 5'd2;
                    if (pieces_one_q) begin
                        frame_sent <= !ghost_q;
                        state_q    <= S_NEXT;
                    end else begin
                        state_q <= S_PIECE;
                    end
                end
            end
            S_DROP: begin
                if (s_piece_valid && s_piece_ready) begin
                    pieces_q     <= pieces_q - 5'd1;
                    pieces_nz_q  <= !pieces_one_q;
                    pieces_one_q <= pieces_q == 5'd2;
                end
                if (!pieces_nz_q || (s_piece_valid && pieces_one_q)) begin
                    state_q <= S_NEXT;
                end
            end
            S_NEXT: begin
                first_q <= 1'b0;
                left_q  <= left_q - 24'd1;
                last_q  <= left_q == 24'd2;
                state_q <= last_q ? S_END : S_PKT;
            end
            // A requester's packet answers on m_res instead of a completion.
            S_END: begin
                if (rcp) begin
                    state_q <= S_RES;
                end else if (cqe_due_q) begin
                    state_q <= S_CQE;
                end else begin
                    wqe_retire <= 1'b1;
                    state_q    <= S_IDLE;
                end
            end
            S_CQE: if (m_cqe_ready) begin
                wqe_retire <= 1'b1;
                state_q    <= S_IDLE;
            end
            S_RES: if (m_res_ready) begin
                wqe_retire <= 1'b1;
                state_q    <= S_IDLE;
            end
            default: state_q <= S_IDLE;
        endcase
        // Reset last: only these control registers take it, so it is in none of the
        // datapath registers' enables (as in wqe_parse: fewer control sets to pack).
        if (rst) begin
            state_q       <= S_IDLE;
            free_valid    <= 1'b0;
            free_ptr      <= '0;
            err_set_valid <= 1'b0;
            frame_sent    <= 1'b0;
            wqe_retire    <= 1'b0;
            rec_pend_q    <= 1'b0;
            keep_pend_q   <= 1'b0;
            ghost_q       <= 1'b0;
        end
    end

endmodule

`endif  // ROCENIC_WQE_EMIT_SV
