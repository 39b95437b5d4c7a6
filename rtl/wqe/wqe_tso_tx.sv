// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_TSO_TX_SV
`define ROCENIC_WQE_TSO_TX_SV
`include "rtl/common/stream_fifo.sv"
`include "rtl/common/skid_buffer.sv"
`include "rtl/tso/tso_segmenter.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The data path's TSO split and merge (docs/wqe-dp.md, "TSO in the RTL engine"): between the
// sender's byte stream (wqe_concat) and the frame builder. Each stream in comes with a record,
// in order: a plain packet passes as it is; a TSO send (header template, then payload) goes
// through tso_segmenter, and its segments come out in its place, so the frame builder meets
// the payloads in the order of its descriptors.
//
// Keep flags: one per segment of a TSO send, in order, from the sender (1: send it; 0: drop it,
// a segment whose DMA read faulted, or one after it). The sender pushes a segment's flag before
// the segment's first byte enters here, so the flag is always in before the segment leaves the
// segmenter (which holds a segment until its last byte is in). A send ends when the segmenter's
// status has come and as many segments as it counts have passed; the next send's segments wait.
//
// Input side: a record is registered (R_REC), its order bit queued for the output (R_ORD), a
// TSO send's descriptor handed to the segmenter (R_DESC), then the stream's beats routed up to
// tlast (R_DATA). Output side: the next order bit says whether to take a packet from the
// pass-through FIFO or the segments (and the status) of one send. Every valid and ready it
// drives comes from a flip-flop or a FIFO's registers; the output is a skid buffer.
module wqe_tso_tx
#(
    parameter int MAX_HDR  = 128,     // longest header template, bytes (verbs max_tso_header)
    parameter int MAX_TSO  = 262144,  // longest payload of one send, bytes (verbs max_tso)
    parameter int MAX_MSS  = 9000,    // largest MSS, bytes
    parameter int PASS_LOG2 = 4       // log2 of the pass-through FIFO's beats
) (
    input  wire         clk,
    input  wire         rst,
    // one record per stream, in stream order
    input  wire         s_rec_valid,
    output logic        s_rec_ready,
    input  wire         s_rec_tso,       // 1: a TSO send, 0: one plain packet
    input  wire [15:0]  s_rec_hdr_len,   // TSO: template bytes
    input  wire [15:0]  s_rec_mss,       // TSO: payload bytes per segment
    input  wire [31:0]  s_rec_len,       // TSO: payload bytes
    input  wire         s_rec_ipoib,     // TSO: 1 IPoIB (UD), 0 Ethernet (raw QP)
    // one keep flag per TSO segment, in order
    input  wire         s_keep_valid,
    output logic        s_keep_ready,
    input  wire         s_keep,
    // the streams (tkeep contiguous from lane 0, only a last beat partial)
    input  wire         s_axis_tvalid,
    output logic        s_axis_tready,
    input  wire [63:0]  s_axis_tdata,
    input  wire [7:0]   s_axis_tkeep,
    input  wire         s_axis_tlast,
    // packets and segments, in record order
    output logic        m_axis_tvalid,
    input  wire         m_axis_tready,
    output logic [63:0] m_axis_tdata,
    output logic [7:0]  m_axis_tkeep,
    output logic        m_axis_tlast,
    output logic        busy             // a stream in or out, or a record waiting
);

    // ---- input side ------------------------------------------------------------------------
    typedef enum logic [1:0] {R_REC, R_ORD, R_DESC, R_DATA} rstate_t;
    rstate_t     rs_q;
    logic        tso_q, ipoib_q;
    logic [15:0] hdr_len_q, mss_q;
    logic [31:0] len_q;

    logic ord_s_ready, ord_m_valid, ord_m_ready, ord_m_tso;
    logic desc_ready, data_ready, pass_s_ready;

    assign s_rec_ready = rs_q == R_REC;
    wire   in_data     = rs_q == R_DATA;
    assign s_axis_tready = in_data && (tso_q ? data_ready : pass_s_ready);
    wire   in_take     = s_axis_tvalid && s_axis_tready;

    always_ff @(posedge clk) begin
        if (rs_q == R_REC) begin
            {tso_q, hdr_len_q, mss_q, len_q, ipoib_q}
                <= {s_rec_tso, s_rec_hdr_len, s_rec_mss, s_rec_len, s_rec_ipoib};
        end
        if (rst) begin
            rs_q <= R_REC;
        end else begin
            case (rs_q)
                R_REC:  if (s_rec_valid) rs_q <= R_ORD;
                R_ORD:  if (ord_s_ready) rs_q <= tso_q ? R_DESC : R_DATA;
                R_DESC: if (desc_ready) rs_q <= R_DATA;
                R_DATA: if (in_take && s_axis_tlast) rs_q <= R_REC;
                default: rs_q <= R_REC;
            endcase
        end
    end

    // Which source the output takes each stream from, in record order.
    stream_fifo #(.WIDTH(1), .DEPTH_LOG2(2)) u_ord (
        .clk, .rst,
        .s_valid(rs_q == R_ORD), .s_ready(ord_s_ready), .s_data(tso_q),
        .m_valid(ord_m_valid), .m_ready(ord_m_ready), .m_data(ord_m_tso)
    );

    logic        pass_valid, pass_ready, pass_last;
    logic [63:0] pass_data;
    logic [7:0]  pass_keep;
    stream_fifo #(.WIDTH(64 + 8 + 1), .DEPTH_LOG2(PASS_LOG2)) u_pass (
        .clk, .rst,
        .s_valid(in_data && !tso_q && s_axis_tvalid), .s_ready(pass_s_ready),
        .s_data({s_axis_tdata, s_axis_tkeep, s_axis_tlast}),
        .m_valid(pass_valid), .m_ready(pass_ready), .m_data({pass_data, pass_keep, pass_last})
    );

    logic        seg_valid, seg_ready, seg_last;
    logic [63:0] seg_data;
    logic [7:0]  seg_keep;
    logic        sts_valid, sts_ready;
    logic [3:0]  sts_error;
    logic [31:0] sts_segments;

    // The segmenter's data input through a register slice: its own input skid buffer's data
    // enables are its worst path (docs/tso.md), so its valid comes from a flip-flop here rather
    // than through this side's routing.
    logic        sd_valid, sd_ready, sd_last;
    logic [63:0] sd_data;
    logic [7:0]  sd_keep;
    skid_buffer #(.WIDTH(64 + 8 + 1)) u_seg_in (
        .clk, .rst,
        .s_valid(in_data && tso_q && s_axis_tvalid), .s_ready(data_ready),
        .s_data({s_axis_tdata, s_axis_tkeep, s_axis_tlast}),
        .m_valid(sd_valid), .m_ready(sd_ready), .m_data({sd_data, sd_keep, sd_last})
    );

    tso_segmenter #(
        .DATA_W(64), .MAX_HDR(MAX_HDR), .MAX_TSO(MAX_TSO), .MAX_MSS(MAX_MSS)
    ) u_seg (
        .clk, .rst,
        .s_desc_valid(rs_q == R_DESC), .s_desc_ready(desc_ready),
        .s_desc_hdr_len(hdr_len_q), .s_desc_mss(mss_q), .s_desc_len(len_q),
        .s_desc_ipoib(ipoib_q),
        .s_axis_tvalid(sd_valid), .s_axis_tready(sd_ready),
        .s_axis_tdata(sd_data), .s_axis_tkeep(sd_keep), .s_axis_tlast(sd_last),
        .m_axis_tvalid(seg_valid), .m_axis_tready(seg_ready), .m_axis_tdata(seg_data),
        .m_axis_tkeep(seg_keep), .m_axis_tlast(seg_last),
        .m_sts_valid(sts_valid), .m_sts_ready(sts_ready), .m_sts_error(sts_error),
        .m_sts_segments(sts_segments)
    );
    // The sender's checks refuse every send the segmenter would: a status's error code is
    // never set here, and the count alone ends a send.
    wire unused_sts = ^sts_error;

    // ---- output side -----------------------------------------------------------------------
    logic keep_valid, keep_ready, keep_head;
    stream_fifo #(.WIDTH(1), .DEPTH_LOG2(3)) u_keep (
        .clk, .rst, .s_valid(s_keep_valid), .s_ready(s_keep_ready), .s_data(s_keep),
        .m_valid(keep_valid), .m_ready(keep_ready), .m_data(keep_head)
    );

    typedef enum logic [1:0] {O_NEXT, O_PASS, O_SEG} ostate_t;
    ostate_t     os_q;
    logic        sts_have_q;      // the send's status is in
    logic [31:0] segs_q;          // segments taken so far
    logic [31:0] left_q;          // segments still to take, once the status is in
    logic        left_zero_q;     // left_q == 0

    logic out_ready;              // the output skid buffer's s_ready (a flip-flop)
    // The send's segments are all out: the segmenter may already offer the next send's (the
    // input side runs ahead), which must wait for their own turn. The segmenter offers a send's
    // status before it takes the next send's descriptor, and that send's first segment follows
    // its template's checks and the write pipeline, many clocks later; the status is taken
    // here as soon as it is offered (no segment moves in that clock), so by then the count is
    // in. Everything that stops the segments is a flip-flop.
    wire  seg_done = sts_have_q && left_zero_q;
    wire  seg_go   = os_q == O_SEG && !seg_done && !(sts_valid && !sts_have_q);
    assign ord_m_ready = os_q == O_NEXT;
    assign pass_ready  = os_q == O_PASS && out_ready;
    assign seg_ready   = seg_go && keep_valid && (!keep_head || out_ready);
    assign sts_ready   = os_q == O_SEG && !sts_have_q;
    wire   seg_end     = seg_valid && seg_ready && seg_last;
    assign keep_ready  = seg_end;

    wire        o_valid = (os_q == O_PASS && pass_valid)
                       || (seg_go && seg_valid && keep_valid && keep_head);
    wire [72:0] o_data  = os_q == O_PASS ? {pass_data, pass_keep, pass_last}
                                         : {seg_data, seg_keep, seg_last};

    always_ff @(posedge clk) begin
        if (rst) begin
            os_q       <= O_NEXT;
            sts_have_q <= 1'b0;
            segs_q     <= '0;
        end else begin
            case (os_q)
                O_NEXT: if (ord_m_valid) begin
                    os_q       <= ord_m_tso ? O_SEG : O_PASS;
                    sts_have_q <= 1'b0;
                    segs_q     <= '0;
                end
                O_PASS: if (pass_valid && pass_ready && pass_last) os_q <= O_NEXT;
                O_SEG: begin
                    if (sts_valid && sts_ready) begin
                        sts_have_q <= 1'b1;
                    end
                    if (seg_end) begin
                        segs_q <= segs_q + 32'd1;
                    end
                    if (seg_done) begin
                        os_q <= O_NEXT;
                    end
                end
                default: os_q <= O_NEXT;
            endcase
        end
        // No segment moves in the clock the status is taken (seg_go), so the count left is
        // the status's less those taken.
        if (sts_valid && sts_ready) begin
            left_q      <= sts_segments - segs_q;
            left_zero_q <= sts_segments == segs_q;
        end else if (seg_end) begin
            left_q      <= left_q - 32'd1;
            left_zero_q <= left_q == 32'd1;
        end
    end

    skid_buffer #(.WIDTH(73)) u_out (
        .clk, .rst,
        .s_valid(o_valid), .s_ready(out_ready), .s_data(o_data),
        .m_valid(m_axis_tvalid), .m_ready(m_axis_tready),
        .m_data({m_axis_tdata, m_axis_tkeep, m_axis_tlast})
    );

    assign busy = rs_q != R_REC || os_q != O_NEXT || ord_m_valid || m_axis_tvalid;

endmodule

`endif  // ROCENIC_WQE_TSO_TX_SV
