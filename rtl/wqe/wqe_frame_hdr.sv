// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_FRAME_HDR_SV
`define ROCENIC_WQE_FRAME_HDR_SV
`include "rtl/wqe/wqe_frame_pkg.sv"
`include "rtl/wqe/wqe_frame_csum.sv"
`include "rtl/wqe/wqe_frame_layout.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The header side of the frame builder: takes a packet descriptor, computes its lengths and
// IPv4 checksum, lays its header out (wqe_frame_layout) and hands the header on as 8-byte beats,
// with what the aligner needs to know of the packet on the beat where the payload starts.
//
//   D   the descriptor register: s_ready is its empty flag (a flip-flop). The lengths take
//       two register stages after D loads, the checksum (wqe_frame_csum) five.
//   H   the laid-out header (HDR_WORDS words) and the packet's beat facts, loaded from D when
//       the checksum is done and H is free or being freed: while the previous header's beats
//       go out, the next one is being prepared, so headers follow each other without a gap.
//   out beat idx_q of H, 0 to the last (merge) beat, which holds the header's last hl mod 8
//       bytes in its low lanes; H is free once that beat is taken.
//
// The header is 2 mod 4 bytes long (Ethernet 14 or 18, the rest whole words), so the payload
// starts at lane 2 or 6 of the merge beat (m_s6), and the header has at least 6 whole beats.
// A raw descriptor (a raw-packet QP's frame) goes the same way, its lengths and checksum unused,
// and has one beat, the merge beat, with m_raw: the aligner sends its payload as it is.
module wqe_frame_hdr #(
    localparam int HDR_WORDS = wqe_frame_pkg::HDR_WORDS,   // header words held in H
    localparam int HDR_BEATS = wqe_frame_pkg::HDR_BEATS    // beats that can hold header bytes
) (
    input  wire         clk,
    input  wire         rst,      // synchronous, active high
    // descriptors
    input  wire         s_valid,
    output logic        s_ready,
    input  wqe_frame_pkg::desc_t s_desc,
    // header beats (m_ready must come from a flip-flop: it gates H's load)
    output logic        m_valid,
    input  wire         m_ready,
    output logic [63:0] m_data,   // lane i in bits [8i +: 8]
    output logic        m_merge,  // the header's last beat: payload follows in its high lanes
    output logic        m_s6,     // the merge beat holds 6 header bytes (else 2)
    output logic        m_pay,    // the packet has payload bytes
    output logic        m_tail,   // its last payload beat spills into one more output beat
    output logic        m_keep6,  // the packet's last output beat has 6 bytes (else 2)
    output logic        m_vlan,   // the frame has an 802.1Q tag
    output logic        m_raw     // a raw frame: one beat that carries no header (m_merge set),
                                  // the payload is the frame as it is
);

    // ------------------------------------------------------------------------------------------
    // D: the descriptor, and its lengths one and two cycles later.
    wqe_frame_pkg::desc_t d_q;
    logic        d_valid_q;
    logic        d_new_q;         // D loaded in the previous cycle: the checksum starts
    logic        cs_done_q;       // D's checksum is ready
    logic [15:0] udp_len_q;       // UDP header and payload, BTH to ICRC
    logic [15:0] ip_len_q;        // IPv4 total length or IPv6 payload length
    logic [4:0]  hl_words_q;      // header bytes = 4 * hl_words_q + 2
    logic        keep6_q;         // the last output beat has 6 bytes (else 2)
    logic        tail_q;
    logic        h_load;
    logic [15:0] csum;
    logic        cs_done;

    assign s_ready = !d_valid_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            d_valid_q <= 1'b0;
            d_new_q   <= 1'b0;
            cs_done_q <= 1'b0;
        end else begin
            d_new_q <= s_valid && s_ready;
            if (s_valid && s_ready) begin
                d_valid_q <= 1'b1;
            end else if (h_load) begin
                d_valid_q <= 1'b0;
            end
            // H may take D in the very cycle its checksum is done: the flag is for the next D.
            if (h_load) begin
                cs_done_q <= 1'b0;
            end else if (cs_done) begin
                cs_done_q <= 1'b1;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (s_valid && s_ready) begin
            d_q <= s_desc;
        end
    end

    // Payload and pad in words, the extension headers in words, their sum with UDP, BTH and
    // ICRC (6 words).
    wire [10:0] pay_words = d_q.payload_len[12:2];
    wire        pay_part  = d_q.payload_len[1:0] != 2'b00;
    wire [3:0]  ext_words = {1'b0, d_q.reth_en, d_q.deth_en, d_q.imm_en};   // 4, 2, 1 words
    wire [13:0] udp_words = 14'(pay_words) + 14'(ext_words) + 14'd6 + 14'(pay_part);
    // Header bytes = 4 * hl_words + 2: Ethernet 14 or 18, IPv4 20 or IPv6 40, UDP and BTH 20,
    // the extension headers.
    wire [4:0]  hl_words = 5'd13 + 5'(d_q.vlan_en) + (d_q.ipv6 ? 5'd5 : 5'd0) + 5'(ext_words);
    // The last payload beat's bytes with their pad: 4 (1..4 bytes) or 8 (5..8). It spills past
    // the merge beat's lanes when more than 8 - s: always for s = 6, for 8 bytes when s = 2.
    wire [2:0]  len8 = d_q.payload_len[2:0];
    wire        last_full = len8 == 3'd0 || len8 >= 3'd5;

    // Two register stages (D's fields hold until H loads, long after the checksum is done):
    // the UDP length's sum, then the IP length's.
    logic [13:0] udp_words_q;
    always_ff @(posedge clk) begin
        udp_words_q <= udp_words;
        udp_len_q   <= {udp_words_q, 2'b00};
        ip_len_q    <= {d_q.ipv6 ? udp_words_q : udp_words_q + 14'd5, 2'b00};
        hl_words_q  <= hl_words;
        // hl + payload + pad is 2 mod 4 (hl is, the payload and pad are whole words): the last
        // beat has 2 or 6 bytes. Bit 2 of the padded payload is bit 0 of its word count.
        keep6_q   <= hl_words[0] ^ d_q.payload_len[2] ^ pay_part;
        tail_q    <= d_q.payload_len != 13'd0 && (hl_words[0] || last_full) && !d_q.raw;
    end

    // ------------------------------------------------------------------------------------------
    // The IPv4 checksum over the header's words: 0x4500 | TOS, the total length, 0x0000 (ID),
    // 0x4000 (DF), TTL << 8 | 17, the addresses. The total length, 20 + the UDP length, is
    // 4 * (payload words + extension words + 6 + a partial payload word) + 20: its payload part
    // is one term and the rest joins the constants, so no sum waits for the length register.
    wire [15:0] cs_fixed = 16'h4500 + 16'h4000 + 16'h0011 + 16'd44
                      + {10'd0, 4'(ext_words) + 4'(pay_part), 2'b00};
    wire [127:0] cs_words = {
        {d_q.hop_limit, d_q.tclass}, {3'b000, pay_words, 2'b00},
        cs_fixed, 16'h0000,
        d_q.src_ip[31:16], d_q.src_ip[15:0],
        d_q.dst_ip[31:16], d_q.dst_ip[15:0]
    };

    wqe_frame_csum u_csum (
        .clk  (clk),
        .rst  (rst),
        .start(d_new_q),
        .words(cs_words),
        .done (cs_done),
        .csum (csum)
    );

    // ------------------------------------------------------------------------------------------
    // H: the header words and the packet's beat facts.
    logic [HDR_WORDS*32-1:0] layout;
    logic [HDR_WORDS*32-1:0] h_q;
    logic                    h_valid_q;
    logic [3:0]              f_q;         // index of the merge beat: hl / 8
    logic                    s6_q, pay_q, tail_h_q, vlan_q, raw_q;
    logic                    keep6_h_q;
    logic [3:0]              idx_q;       // the beat on offer
    logic                    idx_last_q;  // idx_q == f_q

    wqe_frame_layout u_layout (
        .d      (d_q),
        .udp_len(udp_len_q),
        .ip_len (ip_len_q),
        .ip_csum(csum),
        .words  (layout)
    );

    wire take    = m_valid && m_ready;
    wire release_h = take && idx_last_q;
    assign h_load = d_valid_q && (cs_done || cs_done_q) && (!h_valid_q || release_h);

    always_ff @(posedge clk) begin
        if (rst) begin
            h_valid_q  <= 1'b0;
            idx_q      <= '0;
            idx_last_q <= 1'b0;
        end else begin
            if (h_load) begin
                h_valid_q <= 1'b1;
            end else if (release_h) begin
                h_valid_q <= 1'b0;
            end
            // A header has at least 6 whole beats; a raw frame's is its one (merge) beat.
            if (h_load) begin
                idx_q      <= '0;
                idx_last_q <= d_q.raw;
            end else if (release_h) begin
                idx_q      <= '0;
                idx_last_q <= 1'b0;
            end else if (take) begin
                idx_q      <= idx_q + 4'd1;
                idx_last_q <= idx_q + 4'd1 == f_q;
            end
        end
    end

    // H's words and facts load whenever H is free or being freed, not only on h_load: while H is
    // free nothing reads them, and the last load before h_valid_q rises is h_load's. Their
    // enable then leaves out D's valid and the checksum's done, which reached all of H's
    // flip-flops (a worst path of the whole engine on the 25F).
    wire h_free = !h_valid_q || release_h;
    always_ff @(posedge clk) begin
        if (h_free) begin
            h_q      <= layout;
            f_q      <= hl_words_q[4:1];
            s6_q     <= hl_words_q[0];
            pay_q    <= d_q.payload_len != 13'd0;
            tail_h_q <= tail_q;
            keep6_h_q <= keep6_q;
            vlan_q   <= d_q.vlan_en && !d_q.raw;
            raw_q    <= d_q.raw;
        end
    end

    // Beat b is header bytes 8b..8b+7, i.e. bytes 8b+2.. of the words.
    logic [HDR_BEATS*64-1:0] beats;
    always_comb begin
        for (int b = 0; b < HDR_BEATS; b++) begin
            // Lane l is byte 8b + l + 2 of the words.
            for (int l = 0; l < 8; l++) begin
                if ((8 * b + l + 2) / 4 < HDR_WORDS) begin
                    beats[64*b + 8*l +: 8] =
                        h_q[32*((8*b + l + 2) / 4) + 24 - 8*((8*b + l + 2) % 4) +: 8];
                end else begin
                    beats[64*b + 8*l +: 8] = 8'h00;
                end
            end
        end
    end

    assign m_valid = h_valid_q;
    assign m_data  = beats[64*idx_q +: 64];
    assign m_merge = idx_last_q;
    assign m_s6    = s6_q;
    assign m_pay   = pay_q;
    assign m_tail  = tail_h_q;
    assign m_keep6 = keep6_h_q;
    assign m_vlan  = vlan_q;
    assign m_raw   = raw_q;

endmodule

`resetall

`endif  // ROCENIC_WQE_FRAME_HDR_SV
