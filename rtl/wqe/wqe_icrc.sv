// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_ICRC_SV
`define ROCENIC_WQE_ICRC_SV
`include "rtl/wqe/wqe_icrc_crc.sv"
`include "rtl/common/skid_buffer.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The last stage of the send engine's frame path: appends the ICRC to each RoCEv2 frame and pads
// it with zeros to 60 bytes, bit-exact with model::wire::icrc_append (docs/reference.md §3,
// docs/wqe-icrc.md "ICRC stage").
//
// In: a frame as the engine built it, Ethernet (one optional 802.1Q tag) | IPv4 (IHL 5) or IPv6
// | UDP | BTH | extension headers | payload | pad, everything but the ICRC and the padding. The
// IP version is the first nibble of the IP header; s_axis_tuser on the first beat says where
// that starts (1: byte 18, after a tag; 0: byte 14). tkeep is contiguous from lane 0, all ones
// but on the last beat, which carries at least one byte.
// Out: the same bytes, the ICRC (little-endian) right after them, then zeros up to 60 bytes when
// the frame is shorter; tkeep contiguous from lane 0. A raw frame (s_axis_tuser[1] on its first
// beat: a raw-packet QP's, whole as the host built it) gets no ICRC, only the zeros to 60 bytes.
//
// Datapath, a stall-all pipeline that moves on adv:
//   A    the input register, with the beat's index in its frame (saturating), the tag bit, and
//        each lane's masking flags, a table of index and tag looked up as the beat comes in
//   B    the CRC's view of the beat: lanes before the IP header zeroed, the ICRC's variant fields
//        set to ones (IPv4 TOS, TTL, checksum; IPv6 traffic class, flow label, hop limit; UDP
//        checksum; BTH byte 4), lanes past a last beat's bytes zeroed. Only the IP version is
//        read from the data (in the beat that holds it), so this is a few LUTs per lane. Also
//        the last beat's end as a one-hot lane and as k, and its output length from its own
//        start: max(bytes + 4, 60 - start).
//   C..E wqe_icrc_crc (2 + log2(DATA_BYTES) stages), which carries the beat along
//   out  the last beat takes the ICRC over its empty lanes; what does not fit, and any padding,
//        goes out in extra beats, during which the pipeline holds (the only stall of the input)
//   skid the output register slice
// So one beat per clock goes in and out while m_axis keeps up, and a frame costs one clock more
// only when its ICRC or padding needs an extra beat.
//
// s_axis_tready is the skid buffer's registered ready and the extra-beat flag, both flip-flops:
// no combinational path from m_axis_tready.
// A top of its own: the send engine will instantiate it (see rss_pipeline for the lint pragma).
/* verilator lint_off MULTITOP */
module wqe_icrc
/* verilator lint_on MULTITOP */
#(
    parameter  int DATA_BYTES = 8,    // Bytes per beat: a power of two, 8 (64-bit) or more
    localparam int DATA_W     = DATA_BYTES * 8
) (
    input  wire                   clk,
    input  wire                   rst,             // synchronous, active high
    // frames without ICRC
    input  wire                   s_axis_tvalid,
    output logic                  s_axis_tready,
    input  wire [DATA_W-1:0]      s_axis_tdata,    // byte lane i in bits [8i +: 8]
    input  wire [DATA_BYTES-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tlast,
    input  wire [1:0]             s_axis_tuser,    // first beat: [0] 802.1Q tag (IP at byte 18),
                                                   // [1] a raw frame: padding only, no ICRC
    // frames with ICRC and padding
    output logic                  m_axis_tvalid,
    input  wire                   m_axis_tready,
    output logic [DATA_W-1:0]     m_axis_tdata,
    output logic [DATA_BYTES-1:0] m_axis_tkeep,
    output logic                  m_axis_tlast
);

    localparam int W         = DATA_BYTES;
    localparam int KW        = $clog2(W);
    localparam int MIN_FRAME = 60;                   // Ethernet's 64 bytes less the FCS
    // Beat indexes count up to the first beat past every masked byte (the BTH's byte 4 of a
    // tagged IPv6 frame is byte 70) and past the 60-byte minimum, then saturate.
    localparam int IDX_MAX   = (80 + W - 1) / W;
    localparam int IDX_W     = $clog2(IDX_MAX + 1);
    localparam int REM_W     = 8;                    // output bytes from a last beat's start
    localparam int SIDE_W    = DATA_W + W + REM_W;   // data, ICRC lane (one-hot), length

    if (W < 8 || (W & (W - 1)) != 0) begin : g_bad_width
        $error("wqe_icrc: DATA_BYTES must be a power of two, 8 or more");
    end

    // The pipeline moves when the output slice can take a beat and no extra beat is due.
    logic skid_ready;
    logic xtra_q;
    wire  adv = skid_ready && !xtra_q;

    assign s_axis_tready = adv;

    // ------------------------------------------------------------------------------------------
    // What the CRC does with a byte, by its position p in a frame whose IP header starts at l3
    // (called with constants only: each lane's flags are a table of the beat index and the tag,
    // looked up as the beat comes in, so that no position arithmetic is left in hardware).
    localparam int L_ZERO  = 0;   // before the IP header
    localparam int L_AT_L3 = 1;   // the IP header's first byte: version; IPv6 traffic class, high
    localparam int L_V4    = 2;   // IPv4: TOS, TTL, header checksum; UDP checksum; BTH byte 4
    localparam int L_V6    = 3;   // IPv6: traffic class and flow label (1-3), hop limit; UDP; BTH
    localparam int LF      = 4;

    function automatic logic [LF-1:0] lane_at(input int p, input int l3);
        lane_at          = '0;
        lane_at[L_ZERO]  = p < l3;
        lane_at[L_AT_L3] = p == l3;
        case (p - l3)
            1, 8, 10, 11, 26, 27, 32: lane_at[L_V4] = 1'b1;
            default: ;
        endcase
        case (p - l3)
            1, 2, 3, 7, 46, 47, 52: lane_at[L_V6] = 1'b1;
            default: ;
        endcase
    endfunction

    // Output bytes from the start of a last beat at `start` whose last byte is lane i: the ICRC
    // after it, at least up to the minimum frame.
    function automatic logic [REM_W-1:0] rem_at(input int start, input int i);
        rem_at = REM_W'((start + i + 1 + 4 < MIN_FRAME) ? MIN_FRAME - start : i + 1 + 4);
    endfunction

    // The same for a raw frame, which gets no ICRC: its bytes, at least up to the minimum.
    function automatic logic [REM_W-1:0] rem_raw_at(input int start, input int i);
        rem_raw_at = REM_W'((start + i + 1 < MIN_FRAME) ? MIN_FRAME - start : i + 1);
    endfunction

    // Every choice below is among one-hot cases, each output bit an OR of the cases where a
    // constant table has a one (a balanced OR tree, where a chain of ifs would be as deep as
    // there are lanes). The cases: (beat index b, tag t) at 2b + t for the lane flags; (beat
    // index b, last lane i) at b * W + i for the output length; the last lane for k (empty
    // lanes).
    localparam int CASES = IDX_MAX + 1;

    function automatic logic [2*CASES-1:0] flag_table(input int i, input int f);
        for (int c = 0; c < 2 * CASES; c++) begin
            flag_table[c] = |(lane_at((c / 2) * W + i, c % 2 == 1 ? 18 : 14) & (LF'(1) << f));
        end
    endfunction

    function automatic logic [CASES*W-1:0] rem_table(input int k, input bit raw);
        for (int c = 0; c < CASES * W; c++) begin
            rem_table[c] = |((raw ? rem_raw_at((c / W) * W, c % W) : rem_at((c / W) * W, c % W))
                             & (REM_W'(1) << k));
        end
    endfunction

    function automatic logic [W-1:0] empty_table(input int k);
        for (int i = 0; i < W; i++) begin
            empty_table[i] = |(KW'(W - 1 - i) & (KW'(1) << k));
        end
    endfunction

    // ------------------------------------------------------------------------------------------
    // A: the input register, the frame's position, the lanes' flags.
    logic                 a_valid_q, a_first_q, a_last_q, a_vlan_q, a_raw_q;
    logic [DATA_W-1:0]    a_data_q;
    logic [W-1:0]         a_keep_q;
    logic [IDX_W-1:0]     a_idx_q;
    logic [W-1:0][LF-1:0] a_lanes_q;
    logic [IDX_W-1:0]     next_idx_q;   // index of the next beat accepted
    logic [2*CASES-1:0]   in_case;      // its (index, tag) case
    logic [W-1:0][LF-1:0] in_lanes;

    wire                  in_first = next_idx_q == '0;
    wire                  in_vlan  = in_first ? s_axis_tuser[0] : a_vlan_q;   // one per frame
    wire                  in_raw   = in_first ? s_axis_tuser[1] : a_raw_q;

    for (genvar c = 0; c < 2 * CASES; c++) begin : g_case
        assign in_case[c] = next_idx_q == IDX_W'(c / 2) && in_vlan == (c % 2 == 1);
    end

    for (genvar i = 0; i < W; i++) begin : g_lane
        for (genvar f = 0; f < LF; f++) begin : g_flag
            localparam logic [2*CASES-1:0] TABLE = flag_table(i, f);
            assign in_lanes[i][f] = |(in_case & TABLE);
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            a_valid_q  <= 1'b0;
            next_idx_q <= '0;
        end else if (adv) begin
            a_valid_q <= s_axis_tvalid;
            if (s_axis_tvalid) begin
                if (s_axis_tlast) begin
                    next_idx_q <= '0;
                end else if (next_idx_q != IDX_W'(IDX_MAX)) begin
                    next_idx_q <= next_idx_q + 1'b1;
                end
            end
        end
    end

    // Data registers load on every advance, bubbles too (valid says what they hold), so that
    // their enable is the advance alone; only the frame's tag bit must skip bubbles.
    always_ff @(posedge clk) begin
        if (adv) begin
            a_data_q  <= s_axis_tdata;
            a_keep_q  <= s_axis_tkeep;
            a_last_q  <= s_axis_tlast;
            a_first_q <= in_first;
            a_idx_q   <= next_idx_q;
            a_lanes_q <= in_lanes;
            if (s_axis_tvalid) begin
                a_vlan_q <= in_vlan;
                a_raw_q  <= in_raw;
            end
        end
    end


    // ------------------------------------------------------------------------------------------
    // B: the masked beat, and the last beat's length facts.
    logic              v6_q;         // the current frame is IPv6 (from its IP header's beat)
    logic              b_v6;
    logic [DATA_W-1:0] b_crc;        // what the CRC reads
    logic [DATA_W-1:0] b_data;       // what goes out: the beat, lanes past its bytes zeroed
    logic [W-1:0]      b_end;        // one-hot: lane i is the last beat's last byte
    logic [KW-1:0]     b_empty;      // lanes after it
    logic [REM_W-1:0]  b_rem;        // output bytes from this beat's start (last beat)

    // The version nibble is in the beat that holds the IP header's first byte, in one lane.
    logic [W-1:0] at_l3, nib6;

    for (genvar i = 0; i < W; i++) begin : g_version
        assign at_l3[i] = a_lanes_q[i][L_AT_L3];
        assign nib6[i]  = a_data_q[8*i+4 +: 4] == 4'd6;
    end

    assign b_v6 = |at_l3 ? |(at_l3 & nib6) : v6_q;

    always_comb begin
        logic [7:0] ones;
        for (int i = 0; i < W; i++) begin
            if (b_v6) begin
                ones = a_lanes_q[i][L_V6] ? 8'hFF : {4'h0, {4{a_lanes_q[i][L_AT_L3]}}};
            end else begin
                ones = {8{a_lanes_q[i][L_V4]}};
            end
            b_data[8*i +: 8] = a_keep_q[i] ? a_data_q[8*i +: 8] : 8'h00;
            b_crc[8*i +: 8]  = (a_keep_q[i] && !a_lanes_q[i][L_ZERO]) ? (a_data_q[8*i +: 8] | ones)
                                                                   : 8'h00;
        end
    end

    // tkeep is contiguous: the last byte is where it steps down.
    logic [CASES*W-1:0] end_case;

    assign b_end = a_keep_q & ~{1'b0, a_keep_q[W-1:1]};

    for (genvar c = 0; c < CASES * W; c++) begin : g_end_case
        assign end_case[c] = b_end[c % W] && a_idx_q == IDX_W'(c / W);
    end

    // A raw frame's length has its own table, and its end no ICRC lane (b_side_end zero).
    for (genvar k = 0; k < REM_W; k++) begin : g_rem
        localparam logic [CASES*W-1:0] TABLE     = rem_table(k, 1'b0);
        localparam logic [CASES*W-1:0] TABLE_RAW = rem_table(k, 1'b1);
        assign b_rem[k] = |(end_case & (a_raw_q ? TABLE_RAW : TABLE));
    end
    wire [W-1:0] b_side_end = a_raw_q ? '0 : b_end;

    for (genvar k = 0; k < KW; k++) begin : g_empty
        localparam logic [W-1:0] TABLE = empty_table(k);
        assign b_empty[k] = |(b_end & TABLE);
    end

    logic              b_valid_q, b_first_q, b_last_q, b_vlan_q;
    logic [DATA_W-1:0] b_crc_q, b_data_q;
    logic [W-1:0]      b_end_q;
    logic [KW-1:0]     b_empty_q;
    logic [REM_W-1:0]  b_rem_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            b_valid_q <= 1'b0;
        end else if (adv) begin
            b_valid_q <= a_valid_q;
        end
    end

    always_ff @(posedge clk) begin
        if (adv) begin
            if (a_valid_q) begin
                v6_q <= b_v6;
            end
            b_first_q <= a_first_q;
            b_last_q  <= a_last_q;
            b_vlan_q  <= a_vlan_q;
            b_crc_q   <= b_crc;
            b_data_q  <= b_data;
            b_end_q   <= b_side_end;
            b_empty_q <= b_empty;
            b_rem_q   <= b_rem;
        end
    end


    // ------------------------------------------------------------------------------------------
    // C..E: the CRC, with the beat alongside.
    logic              e_valid, e_last;
    logic [31:0]       e_icrc;
    logic [DATA_W-1:0] e_data;
    logic [W-1:0]      e_end;
    logic [REM_W-1:0]  e_rem;

    wqe_icrc_crc #(
        .DATA_BYTES(W),
        .SIDE_W    (SIDE_W)
    ) u_crc (
        .clk      (clk),
        .rst      (rst),
        .adv      (adv),
        .in_valid (b_valid_q),
        .in_first (b_first_q),
        .in_last  (b_last_q),
        .in_vlan  (b_vlan_q),
        .in_data  (b_crc_q),
        .in_empty (b_empty_q),
        .in_side  ({b_rem_q, b_end_q, b_data_q}),
        .out_valid(e_valid),
        .out_last (e_last),
        .out_icrc (e_icrc),
        .out_side ({e_rem, e_end, e_data})
    );

    // ------------------------------------------------------------------------------------------
    // Out: the ICRC placed after the last byte, over two beats' lanes (byte j of the ICRC at
    // lane i + 1 + j when lane i holds the last byte): an AND-OR of four candidates per lane.
    logic [2*DATA_W-1:0] placed;

    always_comb begin
        placed = '0;
        for (int i = 0; i < W; i++) begin
            for (int j = 0; j < 4; j++) begin
                if (e_end[i]) begin
                    placed[8*(i+1+j) +: 8] = placed[8*(i+1+j) +: 8] | e_icrc[8*j +: 8];
                end
            end
        end
    end

    // Extra beats: the second half of `placed`, then zeros, xrem_q bytes in all.
    logic [DATA_W-1:0] xtail_q;
    logic [REM_W-1:0]  xrem_q;

    function automatic logic [W-1:0] keep_of(input logic [REM_W-1:0] n);
        for (int i = 0; i < W; i++) begin
            keep_of[i] = REM_W'(i) < n;
        end
    endfunction

    logic              o_valid, o_last;
    logic [DATA_W-1:0] o_data;
    logic [W-1:0]      o_keep;

    always_comb begin
        if (xtra_q) begin
            o_valid = 1'b1;
            o_data  = xtail_q;
            o_keep  = keep_of(xrem_q);
            o_last  = xrem_q <= REM_W'(W);
        end else begin
            o_valid = e_valid;
            o_data  = e_last ? (e_data | placed[DATA_W-1:0]) : e_data;
            o_keep  = e_last ? keep_of(e_rem) : '1;
            o_last  = e_last && e_rem <= REM_W'(W);
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            xtra_q <= 1'b0;
        end else if (skid_ready) begin
            if (xtra_q) begin
                xtra_q <= xrem_q > REM_W'(W);
            end else if (e_valid && e_last) begin
                xtra_q <= e_rem > REM_W'(W);
            end
        end
    end

    always_ff @(posedge clk) begin
        if (skid_ready) begin
            if (xtra_q) begin
                xtail_q <= '0;
                xrem_q  <= xrem_q - REM_W'(W);
            end else begin
                xtail_q <= placed[2*DATA_W-1:DATA_W];
                xrem_q  <= e_rem - REM_W'(W);
            end
        end
    end

    skid_buffer #(
        .WIDTH(DATA_W + W + 1)
    ) u_out (
        .clk    (clk),
        .rst    (rst),
        .s_valid(o_valid),
        .s_ready(skid_ready),
        .s_data ({o_last, o_keep, o_data}),
        .m_valid(m_axis_tvalid),
        .m_ready(m_axis_tready),
        .m_data ({m_axis_tlast, m_axis_tkeep, m_axis_tdata})
    );

endmodule

`resetall

`endif  // ROCENIC_WQE_ICRC_SV
