// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_SV
`define ROCENIC_RX_CHECK_SV
`include "rtl/rx/rx_check_pkg.sv"
`include "rtl/rx/rx_pkg.sv"
`include "rtl/rx/rx_check_space.sv"
`include "rtl/rx/rx_check_ram.sv"
`include "rtl/rx/rx_check_fields.sv"
`include "rtl/rx/rx_check_lanes.sv"
`include "rtl/rx/rx_check_sum.sv"
`include "rtl/rx/rx_check_crc.sv"
`include "rtl/rx/rx_check_verdict.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive path's front end: store and forward with the classification of
// model::rx::packet::classify, bit for bit (docs/rx.md, "rx_check (RTL)").
//
// In: Ethernet frames without FCS on s_axis (tkeep contiguous from lane 0, all ones but on the
// last beat, which holds a byte at least unless the frame is empty), with the RSS pipeline's
// verdict for each on s_meta_*, read with the frame's last beat: rss_pipeline drives its
// m_meta_* with tlast, so its outputs connect straight here.
// Each frame goes into the packet buffer (block RAM, BUF_BYTES) as it comes, one beat per
// address from where the previous frame ended, wrapping; a frame longer than MAX_FRAME is
// stored up to MAX_FRAME (rounded up to a beat) and discarded as malformed. When the buffer
// has no room, or holds 2^FRAMES_LOG2 frames, the input waits: nothing is dropped.
// Out: one descriptor per frame, in order, once its last beat is in (19 clocks later, at least):
//   m_desc_discard   1: not taken, m_desc_reason says why (rx_pkg::RX_DISCARD_*: malformed,
//                    icrc, unsupported); then only frame_len, the RSS verdict and the place
//                    mean anything
//   m_desc_roce      1: RoCEv2; 0: raw, delivered whole to a raw queue
//   m_desc_csum_ok   raw: IPv4/IPv6 with TCP or UDP and every checksum it carries checked good
//                    (the CQE's CSUM_OK); RoCEv2: 1 (its ICRC and IPv4 header checksum were)
//   m_desc_ack       an Acknowledge model::rc::parse_ack takes (discarded as unsupported;
//                    m_desc_imm holds its AETH)
//   m_desc_opcode, _dest_qpn, _psn, _ack_req                the BTH (RoCEv2)
//   m_desc_deth_valid: _qkey, _src_qp                       the DETH (UD)
//   m_desc_reth_valid: _va, _rkey, _dma_len                 the RETH (RDMA WRITE FIRST/ONLY)
//   m_desc_imm_valid: _imm                                  the ImmDt, as the wire has it
//   m_desc_payload_off, _payload_len   where the payload lies in the frame, pad left out; a
//                    raw frame's is all of it (0, frame length)
//   m_desc_ipv6, m_desc_l3_off         the IP version and where its header starts (14 or 18):
//                    a UD receive's 40-byte GRH area is the IPv6 header there, or 20 zero
//                    bytes and the IPv4 header's first 20
//   m_desc_frame_len the frame's length (MAX_FRAME + 1 for any longer frame)
//   m_desc_queue, _hash, _hash_type    the RSS verdict as it came
//   m_desc_addr, _beats                the frame's place: its first beat's buffer address,
//                    and the beats it holds from there, wrapping at the buffer's end
// Fields whose valid bit is clear are undefined. The descriptor comes straight from its FIFO's
// block RAM (late in the clock): the data path registers what it uses.
// Read port: rd_data is the beat at rd_addr (a beat address, frame byte n of a frame at addr
// being lane n % 8 of beat (addr + n / 8) mod buffer beats) two clocks after it.
// release_frame: one pulse per frame, every frame, discarded ones too, oldest first, once the
// data path has read what it needs of it; its beats are then free.
//
// Pipeline, a beat a clock without stalls past the input register:
//   A          the input register; the beat is written into the buffer; rx_check_fields takes
//              the header words it completes
//   B..D       rx_check_lanes: where the headers lie, and each lane's part in the checks
//   E, F       rx_check_sum: the IPv4 header and TCP/UDP checksum sums
//   F, H, CRC  rx_check_crc: the ICRC through wqe_icrc_crc, compared with the frame's
//   V1..V4     rx_check_verdict: the checks in the model's order, the descriptor FIFO
// s_axis_tready and m_desc_valid are flip-flops; nothing combinational runs from an output's
// ready to an input's ready or from an input's valid to an output's valid.
// A top of its own: the receive path will instantiate it (see rss_pipeline for the pragma).
/* verilator lint_off MULTITOP */
module rx_check
/* verilator lint_on MULTITOP */
#(
    parameter  int DATA_BYTES  = 8,                     // Bytes per beat: 8 (the header words'
                                                        // schedule counts on 8-byte beats)
    parameter  int BUF_BYTES   = 16384,                 // Packet buffer: a power of two, at
                                                        // least two frames of MAX_FRAME
    parameter  int MAX_FRAME   = rx_pkg::RX_MAX_FRAME,  // Longest frame taken (the model's)
    parameter  int FRAMES_LOG2 = 8,                     // log2 of the frames held at once
    parameter  int QUEUE_W     = 16,                    // RSS queue number width (rss_pipeline)
    localparam int W           = DATA_BYTES,
    localparam int DATA_W      = 8 * DATA_BYTES,
    localparam int ADDR_W      = $clog2(BUF_BYTES / DATA_BYTES),   // buffer address, in beats
    localparam int MAX_BEATS   = (MAX_FRAME + DATA_BYTES - 1) / DATA_BYTES,
    localparam int BEATS_W     = $clog2(MAX_BEATS + 1),            // a frame's beats, saturating
    localparam int LEN_W       = $clog2((MAX_BEATS + 1) * DATA_BYTES + 1),  // byte counts
    localparam int CODE_W      = rx_pkg::RX_DISCARD_W,
    localparam int HASH_TYPE_W = 5                                 // model::rss::HashType
) (
    input  wire                   clk,
    input  wire                   rst,              // synchronous, active high
    // frames in, the RSS verdict with the last beat
    input  wire                   s_axis_tvalid,
    output logic                  s_axis_tready,
    input  wire [DATA_W-1:0]      s_axis_tdata,     // byte lane i in bits [8i +: 8]
    input  wire [W-1:0]           s_axis_tkeep,
    input  wire                   s_axis_tlast,
    input  wire [QUEUE_W-1:0]     s_meta_queue,
    input  wire [31:0]            s_meta_hash,
    input  wire [HASH_TYPE_W-1:0] s_meta_hash_type,
    // one descriptor per frame
    output logic                  m_desc_valid,
    input  wire                   m_desc_ready,
    output logic                  m_desc_discard,
    output logic [CODE_W-1:0]     m_desc_reason,
    output logic                  m_desc_roce,
    output logic                  m_desc_csum_ok,
    output logic                  m_desc_ack,
    output logic [7:0]            m_desc_opcode,
    output logic [23:0]           m_desc_dest_qpn,
    output logic [23:0]           m_desc_psn,
    output logic                  m_desc_ack_req,
    output logic                  m_desc_deth_valid,
    output logic [31:0]           m_desc_qkey,
    output logic [23:0]           m_desc_src_qp,
    output logic                  m_desc_reth_valid,
    output logic [63:0]           m_desc_va,
    output logic [31:0]           m_desc_rkey,
    output logic [31:0]           m_desc_dma_len,
    output logic                  m_desc_imm_valid,
    output logic [31:0]           m_desc_imm,
    output logic [LEN_W-1:0]      m_desc_payload_off,
    output logic [LEN_W-1:0]      m_desc_payload_len,
    output logic                  m_desc_ipv6,
    output logic [4:0]            m_desc_l3_off,
    output logic [LEN_W-1:0]      m_desc_frame_len,
    output logic [QUEUE_W-1:0]    m_desc_queue,
    output logic [31:0]           m_desc_hash,
    output logic [HASH_TYPE_W-1:0] m_desc_hash_type,
    output logic [ADDR_W-1:0]     m_desc_addr,
    output logic [BEATS_W-1:0]    m_desc_beats,
    // the packet buffer's read port
    input  wire [ADDR_W-1:0]      rd_addr,
    output logic [DATA_W-1:0]     rd_data,          // two clocks after rd_addr
    // frames done with, oldest first
    input  wire                   release_frame
);

    if (DATA_BYTES != 8) begin : g_bad_width
        $error("rx_check: DATA_BYTES must be 8");
    end
    if ((BUF_BYTES & (BUF_BYTES - 1)) != 0 || BUF_BYTES < 2 * MAX_BEATS * DATA_BYTES)
    begin : g_bad_buffer
        $error("rx_check: BUF_BYTES must be a power of two holding two longest frames");
    end

    // Sums hold every word of the longest frame and the pseudo-header's (model::wire::checksum).
    localparam int ACC_W = 16 + $clog2(4 * MAX_BEATS + 2);

    // ------------------------------------------------------------------------------------------
    // A: the input register.
    logic              ready;
    logic [ADDR_W-1:0] head;
    logic [BEATS_W-1:0] in_beat_q;                // index of the next beat in its frame
    logic              in_first;                  // ...which is its first
    logic              in_store;                  // ...which goes into the buffer
    wire               accept   = s_axis_tvalid && ready;

    assign s_axis_tready = ready;

    logic                   a_valid, a_first, a_last, a_store;
    logic [DATA_W-1:0]      a_data;
    logic [W-1:0]           a_keep;
    logic [BEATS_W-1:0]     a_beat;
    logic [3:0]             a_bytes;          // bytes in the beat
    logic [ADDR_W-1:0]      a_addr, a_start, start_q;
    logic [QUEUE_W-1:0]     a_queue;
    logic [31:0]            a_hash;
    logic [HASH_TYPE_W-1:0] a_hash_type;

    always_ff @(posedge clk) begin
        if (rst) begin
            a_valid   <= 1'b0;
            in_beat_q <= '0;
            in_first  <= 1'b1;
            in_store  <= 1'b1;
        end else begin
            a_valid <= accept;
            if (accept) begin
                in_beat_q <= s_axis_tlast ? '0 : in_beat_q + BEATS_W'(in_store);
                in_first  <= s_axis_tlast;
                in_store  <= s_axis_tlast
                             || (BEATS_W + 1)'(in_beat_q) + 1'b1 < (BEATS_W + 1)'(MAX_BEATS);
            end
        end
    end

    function automatic logic [3:0] bytes_of(input logic [W-1:0] keep);
        bytes_of = '0;
        for (int i = 0; i < W; i++) begin
            bytes_of = bytes_of + 4'(keep[i]);
        end
    endfunction

    always_ff @(posedge clk) begin
        if (accept) begin
            a_data      <= s_axis_tdata;
            a_bytes     <= s_axis_tlast ? bytes_of(s_axis_tkeep) : 4'(W);
            a_keep      <= s_axis_tlast ? s_axis_tkeep : '1;
            a_last      <= s_axis_tlast;
            a_first     <= in_first;
            a_beat      <= in_beat_q;
            a_store     <= in_store;
            a_addr      <= head;
            a_start     <= in_first ? head : start_q;
            a_queue     <= s_meta_queue;
            a_hash      <= s_meta_hash;
            a_hash_type <= s_meta_hash_type;
            if (in_first) begin
                start_q <= head;
            end
        end
    end

    rx_check_space #(
        .ADDR_W     (ADDR_W),
        .FRAMES_LOG2(FRAMES_LOG2)
    ) u_space (
        .clk          (clk),
        .rst          (rst),
        .accept       (accept),
        .first        (in_first),
        .last         (s_axis_tlast),
        .store        (in_store),
        .s_ready      (ready),
        .head         (head),
        .desc_taken   (m_desc_valid && m_desc_ready),
        .release_frame(release_frame)
    );

    rx_check_ram #(
        .DATA_W(DATA_W),
        .ADDR_W(ADDR_W)
    ) u_ram (
        .clk    (clk),
        .wr_en  (a_valid && a_store),
        .wr_addr(a_addr),
        .wr_data(a_data),
        .rd_addr(rd_addr),
        .rd_data(rd_data)
    );

    rx_check_pkg::fields_t f;
    logic                  known_ip0, known_ip1, known_proto, known_ulen;

    rx_check_fields #(
        .BEAT_W(BEATS_W)
    ) u_fields (
        .clk        (clk),
        .rst        (rst),
        .in_valid   (accept),
        .in_beat    (in_beat_q),
        .a_valid    (a_valid),
        .a_first    (a_first),
        .a_beat     (a_beat),
        .a_data     (a_data),
        .f          (f),
        .known_ip0  (known_ip0),
        .known_ip1  (known_ip1),
        .known_proto(known_proto),
        .known_ulen (known_ulen)
    );

    // ------------------------------------------------------------------------------------------
    // B: the beat again, beside the words it completed; its frame's length if it is the last.
    logic                   b_valid, b_first, b_last;
    logic [DATA_W-1:0]      b_data;
    logic [W-1:0]           b_keep;
    logic [BEATS_W-1:0]     b_beat, b_beats;
    logic [LEN_W-1:0]       b_len;
    logic [ADDR_W-1:0]      b_start;
    logic [QUEUE_W-1:0]     b_queue;
    logic [31:0]            b_hash;
    logic [HASH_TYPE_W-1:0] b_hash_type;

    always_ff @(posedge clk) begin
        if (rst) begin
            b_valid <= 1'b0;
        end else begin
            b_valid <= a_valid;
        end
    end

    // The frame's length if this is its last beat: past MAX_FRAME once the beat index has
    // stopped at MAX_BEATS (the verdict finds it too long and says MAX_FRAME + 1).
    wire [LEN_W-1:0] a_len = LEN_W'({a_beat, 3'b000}) + LEN_W'(a_bytes);

    always_ff @(posedge clk) begin
        b_first     <= a_first;
        b_last      <= a_last;
        b_data      <= a_data;
        b_keep      <= a_keep;
        b_beat      <= a_beat;
        b_beats     <= a_store ? a_beat + 1'b1 : a_beat;
        b_len       <= a_len;
        b_start     <= a_start;
        b_queue     <= a_queue;
        b_hash      <= a_hash;
        b_hash_type <= a_hash_type;
    end

    // ------------------------------------------------------------------------------------------
    // B..E: the lanes; E, F: the sums; F..V: the ICRC.
    logic        e_valid, e_first, e_last, e_vlan, e_crc_valid, e_crc_last;
    logic [2:0]  e_crc_empty;
    logic [63:0] e_crc_data, e_hdr_data, e_l4_data;
    logic [31:0] e_stored;

    rx_check_lanes #(
        .BEAT_W(BEATS_W)
    ) u_lanes (
        .clk        (clk),
        .rst        (rst),
        .b_valid    (b_valid),
        .b_first    (b_first),
        .b_last     (b_last),
        .b_beat     (b_beat),
        .b_keep     (b_keep),
        .b_data     (b_data),
        .f          (f),
        .known_ip0  (known_ip0),
        .known_ip1  (known_ip1),
        .known_proto(known_proto),
        .known_ulen (known_ulen),
        .e_valid    (e_valid),
        .e_first    (e_first),
        .e_last     (e_last),
        .e_vlan   (e_vlan),
        .e_crc_valid(e_crc_valid),
        .e_crc_last (e_crc_last),
        .e_crc_empty(e_crc_empty),
        .e_crc_data (e_crc_data),
        .e_hdr_data (e_hdr_data),
        .e_l4_data  (e_l4_data),
        .e_stored   (e_stored)
    );

    logic [ACC_W-1:0] acc_hdr, acc_l4;

    rx_check_sum #(
        .ACC_W(ACC_W)
    ) u_sum (
        .clk       (clk),
        .rst       (rst),
        .e_valid   (e_valid),
        .e_first   (e_first),
        .e_hdr_data(e_hdr_data),
        .e_l4_data (e_l4_data),
        .acc_hdr   (acc_hdr),
        .acc_l4    (acc_l4)
    );

    logic             v_valid, v_icrc_ok;
    logic [ACC_W-1:0] v_acc_hdr, v_acc_l4;

    rx_check_crc #(
        .ACC_W(ACC_W)
    ) u_crc (
        .clk        (clk),
        .rst        (rst),
        .e_valid    (e_valid),
        .e_first    (e_first),
        .e_last     (e_last),
        .e_vlan   (e_vlan),
        .e_crc_valid(e_crc_valid),
        .e_crc_last (e_crc_last),
        .e_crc_empty(e_crc_empty),
        .e_crc_data (e_crc_data),
        .e_stored   (e_stored),
        .acc_hdr    (acc_hdr),
        .acc_l4     (acc_l4),
        .v_valid    (v_valid),
        .v_icrc_ok  (v_icrc_ok),
        .v_acc_hdr  (v_acc_hdr),
        .v_acc_l4   (v_acc_l4)
    );

    // ------------------------------------------------------------------------------------------
    // V: the verdict and the descriptors.
    rx_check_verdict #(
        .MAX_FRAME(MAX_FRAME),
        .LEN_W    (LEN_W),
        .QUEUE_W  (QUEUE_W),
        .ADDR_W   (ADDR_W),
        .BEATS_W  (BEATS_W),
        .ACC_W    (ACC_W),
        .FIFO_LOG2(FRAMES_LOG2)
    ) u_verdict (
        .clk          (clk),
        .rst          (rst),
        .w_valid      (b_valid && b_last),
        .w_fields     (f),
        .w_len        (b_len),
        .w_queue      (b_queue),
        .w_hash       (b_hash),
        .w_hash_type  (b_hash_type),
        .w_addr       (b_start),
        .w_beats      (b_beats),
        .v_valid      (v_valid),
        .v_icrc_ok    (v_icrc_ok),
        .v_acc_hdr    (v_acc_hdr),
        .v_acc_l4     (v_acc_l4),
        .m_valid      (m_desc_valid),
        .m_ready      (m_desc_ready),
        .m_discard    (m_desc_discard),
        .m_reason     (m_desc_reason),
        .m_roce       (m_desc_roce),
        .m_csum_ok    (m_desc_csum_ok),
        .m_ack        (m_desc_ack),
        .m_opcode     (m_desc_opcode),
        .m_dest_qpn   (m_desc_dest_qpn),
        .m_psn        (m_desc_psn),
        .m_ack_req    (m_desc_ack_req),
        .m_deth_valid (m_desc_deth_valid),
        .m_qkey       (m_desc_qkey),
        .m_src_qp     (m_desc_src_qp),
        .m_reth_valid (m_desc_reth_valid),
        .m_va         (m_desc_va),
        .m_rkey       (m_desc_rkey),
        .m_dma_len    (m_desc_dma_len),
        .m_imm_valid  (m_desc_imm_valid),
        .m_imm        (m_desc_imm),
        .m_payload_off(m_desc_payload_off),
        .m_payload_len(m_desc_payload_len),
        .m_ipv6       (m_desc_ipv6),
        .m_l3_off     (m_desc_l3_off),
        .m_frame_len  (m_desc_frame_len),
        .m_queue      (m_desc_queue),
        .m_hash       (m_desc_hash),
        .m_hash_type  (m_desc_hash_type),
        .m_addr       (m_desc_addr),
        .m_beats      (m_desc_beats)
    );

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_SV
