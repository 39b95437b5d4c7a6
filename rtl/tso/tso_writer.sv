// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_TSO_WRITER_SV
`define ROCENIC_TSO_WRITER_SV
`include "rtl/tso/tso_ram.sv"
`include "rtl/tso/tso_sum16.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The write pipeline of the TSO segmenter (tso_segmenter.sv) and the segment slots it writes.
//
// SLOTS segment slots, each holding a segment at its wire offsets (payload from byte hdr_len on),
// so that read-out needs no realignment. A slot is split into even and odd words (two RAMs), so
// a rotated pass (tso_pass), which straddles two words, is one write per RAM. Stages:
//   W1  the pass's write registered (data, lane enables, addresses: the block RAMs are spread
//       wide, and their pins get the whole clock for the wiring); the beat's checksum adder;
//       the segment's header fields from its payload length, sequence number and ID.
//   W2  the payload sum accumulates; the header sums.
//   W3  payload plus header sum; the IPv4 header sum.
//   W4  the TCP sum; the IPv4 and TCP checksums are folded, and the egress (tso_egress) stores
//       the segment's fields and marks the slot ready.
//
// A part of its own because it is the data path from a pass to a finished segment; the egress
// reads the slots through the read port here, by slot and word.
module tso_writer #(
    parameter  int DATA_W  = 64,     // Data path width in bits (tso_segmenter's)
    parameter  int MAX_HDR = 128,    // Longest header template in bytes (tso_segmenter's)
    parameter  int MAX_MSS = 9000,   // Largest MSS in bytes (tso_segmenter's); sizes the slots
    parameter  int SLOTS   = 2,      // Segment slots, 2 or 4 (tso_segmenter's)
    localparam int SB      = $clog2(SLOTS),                 // Segment slot index width
    localparam int W       = DATA_W / 8,                    // Bytes per beat
    // A segment sits at its wire offsets: up to MAX_HDR + MAX_MSS bytes per slot.
    localparam int SLOT_WORDS = (MAX_HDR + MAX_MSS + W - 1) / W,
    localparam int KW      = $clog2(SLOT_WORDS + 1)         // segment word counter width
) (
    input  wire              clk,
    input  wire              rst,          // synchronous, active high
    // the pass (tso_pass) and the state machine's slot choice (tso_ingress)
    input  wire              pass,
    input  wire              empty_commit,
    input  wire              commit,
    input  wire              drop,
    input  wire [DATA_W-1:0] rot_data,     // the beat at slot lanes
    input  wire [W-1:0]      rot_mask,     // the slot lanes written
    input  wire [W-1:0]      ae_q,         // slot lanes that go to the even bank
    input  wire [KW-1:0]     w0_q,         // slot word of the pass's first byte
    input  wire [SB-1:0]     wsel_q,       // segment slot being written
    // the segment's own header values (tso_pass)
    input  wire              first_q,
    input  wire              last_q,
    input  wire [15:0]       tl_q,         // the last segment's payload
    input  wire [15:0]       mss_q,
    input  wire [31:0]       seq_cur_q,
    input  wire [15:0]       id_cur_q,
    // the send's header constants (tso_template)
    input  wire [7:0]        flags_q,
    input  wire [15:0]       hlm1_q,
    input  wire [15:0]       kip_q,
    input  wire [31:0]       sip_q,
    input  wire [31:0]       stcpk_q,
    // read port (tso_egress): word k_q of slot rsel_q, read data one clock after adv
    input  wire              adv,
    input  wire [SB-1:0]     rsel_q,
    // Bit 0 (the word's bank) is the egress's to use: both banks are read at k_q / 2.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [KW-1:0]     k_q,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [DATA_W-1:0] rd_e,         // the even bank's word
    output wire [DATA_W-1:0] rd_o,         // the odd bank's word
    // W4: a committed segment's fields, for the egress
    output logic             w4_commit_q,
    output logic [SB-1:0]    w4_slot_q,
    output logic [KW-1:0]    w4_nw_q,      // words on the wire, less one
    output logic [W-1:0]     w4_lkeep_q,   // lanes of the last word
    output logic [15:0]      w4_iplen_q,
    output logic [15:0]      w4_id_q,
    output logic [15:0]      w4_ipcs_q,
    output logic [31:0]      w4_seq_q,
    output logic [7:0]       w4_flags_q,
    output wire  [15:0]      w4_tcs        // TCP checksum
);

    localparam int LW    = $clog2(W);                    // lane index width
    localparam int HALF  = (SLOT_WORDS + 2) / 2;         // words per slot in each bank (+1 spare)
    localparam int DEPTH = SLOTS * HALF;                 // bank RAM depth: every slot
    localparam int RAW   = $clog2(DEPTH);                // bank address width
    localparam int SUMW  = 16 + $clog2(W / 2 + 1);       // one beat's checksum sum width

    // Lanes at or below lane n.
    function automatic logic [W-1:0] lanes_le(input logic [LW-1:0] n);
        for (int l = 0; l < W; l++) begin
            lanes_le[l] = LW'(l) <= n;
        end
    endfunction

    // End-around-carry fold of a 32-bit sum (RFC 1071) in one adder delay: the sum of the halves
    // and that sum plus one are formed side by side, and the first one's carry picks.
    function automatic logic [15:0] fold(input logic [31:0] s);
        logic [16:0] t0;
        logic [15:0] t1;
        t0   = {1'b0, s[15:0]} + {1'b0, s[31:16]};
        t1   = s[15:0] + s[31:16] + 16'd1;
        fold = t0[16] ? t1 : t0[15:0];
    endfunction

    // Word w0_q goes to bank (its parity), the next word to the other bank.
    // Slot s starts at word s * HALF of each bank.
    function automatic logic [RAW-1:0] base_of(input logic [SB-1:0] s);
        base_of = '0;
        for (int x = 1; x < SLOTS; x++) begin
            if (s == SB'(x)) base_of = RAW'(x * HALF);
        end
    endfunction

    wire [RAW-1:0] slot_base = base_of(wsel_q);
    wire [RAW-1:0] addr_o    = slot_base + RAW'(w0_q[KW-1:1]);
    wire [RAW-1:0] addr_e    = slot_base + RAW'(w0_q[KW-1:1]) + RAW'(w0_q[0]);

    // ------------------------------------------------------------------------------------------
    // W0: the pass. W1: RAM write; beat checksum; the segment's header fields from its payload
    // length, sequence number and identification. W2: accumulate; header sums. W3: payload plus
    // header sum; IPv4 checksum. W4: TCP checksum; the slot is ready.
    logic              w1_valid_q;
    logic [DATA_W-1:0] w1_data_q;     // the lanes written this pass, zeros elsewhere
    logic [W-1:0]      w1_we_e_q;     // RAM lane write enables and addresses of the pass
    logic [W-1:0]      w1_we_o_q;
    logic [RAW-1:0]    w1_wa_e_q;
    logic [RAW-1:0]    w1_wa_o_q;
    logic              w1_end_q;      // the segment ends with this pass (commit or drop)
    logic              w1_commit_q;
    logic [SB-1:0]     w1_slot_q;
    logic [15:0]       w1_plen_q;     // payload bytes of the segment
    logic [31:0]       w1_seq_q;
    logic [15:0]       w1_id_q;
    logic              w1_first_q;
    logic              w1_last_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            w1_valid_q <= 1'b0;
            w1_we_e_q  <= '0;
            w1_we_o_q  <= '0;
        end else begin
            w1_valid_q <= pass || empty_commit;
            // A bad beat's segment is written too, but never committed.
            w1_we_e_q  <= {W{pass}} & rot_mask & ae_q;
            w1_we_o_q  <= {W{pass}} & rot_mask & ~ae_q;
        end
        w1_wa_e_q <= addr_e;
        w1_wa_o_q <= addr_o;
        for (int l = 0; l < W; l++) begin
            w1_data_q[8*l +: 8] <= pass && rot_mask[l] ? rot_data[8*l +: 8] : 8'd0;
        end
        w1_end_q    <= commit || drop;
        w1_commit_q <= commit;
        w1_slot_q   <= wsel_q;
        w1_plen_q   <= last_q ? tl_q : mss_q;
        w1_seq_q    <= seq_cur_q;
        w1_id_q     <= id_cur_q;
        w1_first_q  <= first_q;
        w1_last_q   <= last_q;
    end

    // The RAM write is registered inside tso_ram, so the pass's write lands at the W1 -> W2
    // edge, long before the slot is ready (W4) and read. W1 also feeds the checksum adder.
    logic [RAW-1:0]   rd_addr;

    tso_ram #(
        .BYTES(W),
        .DEPTH(DEPTH)
    ) u_bank_even (
        .clk  (clk),
        .we   (w1_we_e_q),
        .waddr(w1_wa_e_q),
        .wdata(w1_data_q),
        .re   (adv),
        .raddr(rd_addr),
        .rdata(rd_e)
    );

    tso_ram #(
        .BYTES(W),
        .DEPTH(DEPTH)
    ) u_bank_odd (
        .clk  (clk),
        .we   (w1_we_o_q),
        .waddr(w1_wa_o_q),
        .wdata(w1_data_q),
        .re   (adv),
        .raddr(rd_addr),
        .rdata(rd_o)
    );

    // Both banks are read at word k_q / 2; the word's parity picks one.
    assign rd_addr = base_of(rsel_q) + RAW'(k_q[KW-1:1]);

    wire [SUMW-1:0] beat_sum;
    tso_sum16 #(.BYTES(W)) u_pay_sum (.data(w1_data_q), .sum(beat_sum));

    wire [7:0] w1_flags = flags_q & ~(w1_last_q ? 8'h00 : 8'h09) & ~(w1_first_q ? 8'h00 : 8'h80);

    logic              w2_valid_q;
    logic [SUMW-1:0]   w2_sum_q;
    logic              w2_end_q;
    logic              w2_commit_q;
    logic [SB-1:0]     w2_slot_q;
    logic [15:0]       w2_lm1_q;      // segment bytes on the wire, less one
    logic [15:0]       w2_iplen_q;
    logic [31:0]       w2_ipx_q;      // IPv4 sum but the length
    logic [31:0]       w2_tx_q;       // TCP sum but sequence number and flags
    logic [17:0]       w2_sqf_q;      // sequence halves and flags
    logic [15:0]       w2_id_q;
    logic [31:0]       w2_seq_q;
    logic [7:0]        w2_flags_q;
    logic [31:0]       acc_q;        // payload sum of the segment so far (before this beat)

    always_ff @(posedge clk) begin
        if (rst) begin
            w2_valid_q <= 1'b0;
        end else begin
            w2_valid_q <= w1_valid_q;
        end
        w2_sum_q    <= beat_sum;
        w2_end_q    <= w1_end_q;
        w2_commit_q <= w1_valid_q && w1_commit_q;
        w2_slot_q   <= w1_slot_q;
        w2_lm1_q    <= hlm1_q + w1_plen_q;
        w2_iplen_q  <= kip_q + w1_plen_q;
        w2_ipx_q    <= sip_q + {16'd0, w1_id_q};
        w2_tx_q     <= stcpk_q + {16'd0, w1_plen_q};
        w2_sqf_q    <= {2'b00, w1_seq_q[31:16]} + {2'b00, w1_seq_q[15:0]} + {10'd0, w1_flags};
        w2_id_q     <= w1_id_q;
        w2_seq_q    <= w1_seq_q;
        w2_flags_q  <= w1_flags;
    end

    logic              w3_commit_q;
    logic [SB-1:0]     w3_slot_q;
    logic [31:0]       w3_ptot_q;    // payload sum of the segment
    logic [31:0]       w3_ip_q;      // IPv4 header sum
    logic [31:0]       w3_th_q;      // TCP sum but payload
    logic [KW-1:0]     w3_nw_q;
    logic [W-1:0]      w3_lkeep_q;
    logic [15:0]       w3_iplen_q;
    logic [15:0]       w3_id_q;
    logic [31:0]       w3_seq_q;
    logic [7:0]        w3_flags_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            acc_q       <= '0;
            w3_commit_q <= 1'b0;
        end else begin
            if (w2_valid_q) begin
                acc_q <= w2_end_q ? '0 : acc_q + 32'(w2_sum_q);
            end
            w3_commit_q <= w2_valid_q && w2_commit_q;
        end
        w3_slot_q  <= w2_slot_q;
        w3_ptot_q  <= acc_q + 32'(w2_sum_q);
        w3_ip_q    <= w2_ipx_q + {16'd0, w2_iplen_q};
        w3_th_q    <= w2_tx_q + {14'd0, w2_sqf_q};
        w3_nw_q    <= KW'(w2_lm1_q >> LW);
        w3_lkeep_q <= lanes_le(w2_lm1_q[LW-1:0]);
        w3_iplen_q <= w2_iplen_q;
        w3_id_q    <= w2_id_q;
        w3_seq_q   <= w2_seq_q;
        w3_flags_q <= w2_flags_q;
    end

    logic [31:0]       w4_tsum_q;    // TCP sum

    always_ff @(posedge clk) begin
        if (rst) begin
            w4_commit_q <= 1'b0;
        end else begin
            w4_commit_q <= w3_commit_q;
        end
        w4_slot_q  <= w3_slot_q;
        w4_tsum_q  <= w3_ptot_q + w3_th_q;
        w4_ipcs_q  <= ~fold(w3_ip_q);
        w4_nw_q    <= w3_nw_q;
        w4_lkeep_q <= w3_lkeep_q;
        w4_iplen_q <= w3_iplen_q;
        w4_id_q    <= w3_id_q;
        w4_seq_q   <= w3_seq_q;
        w4_flags_q <= w3_flags_q;
    end

    assign w4_tcs = ~fold(w4_tsum_q);

endmodule

`resetall

`endif  // ROCENIC_TSO_WRITER_SV
