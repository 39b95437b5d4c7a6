// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_VERDICT_SV
`define ROCENIC_RX_CHECK_VERDICT_SV
`include "rtl/rx/rx_check_pkg.sv"
`include "rtl/rx/rx_pkg.sv"
`include "rtl/common/wire_pkg.sv"
`include "rtl/rx/rx_check_desc.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's verdict: model::rx::packet::classify from a frame's captured headers, length,
// ICRC result and checksum sums, and the descriptor that carries it to the data path
// (docs/rx.md, "rx_check (RTL)").
//
// A frame's headers are captured by the clock after its last beat (the snapshot, written then
// into a small memory), its ICRC result and checksum sums come from rx_check_crc some clocks
// later, frames in order; the snapshot waits in the memory for its result. Up to one frame ends
// a clock and each result comes a fixed number of clocks after its frame's end (fewer than 16),
// so 16 entries never overflow.
//   V1  the snapshot and the result; the length checks, the IP fields, the folds' first half
//   V2  the checks in the model's order, the payload's place, the extension headers
//   out the descriptor FIFO (rx_check_desc, block RAM), which rx_check's frame count keeps
//       from overflowing: every descriptor in it is a frame the buffer holds
// The checks, in order (model::wire::RoceFrame::parse, then classify, then raw_csum_ok):
//   longer than MAX_FRAME; Ethernet (14 bytes, 18 tagged); IPv4 (version, IHL, lengths), not
//   UDP: raw, a fragment: malformed; IPv6 (version, payload length), an extension header:
//   malformed, not UDP: raw; neither: raw. UDP under 8 bytes, not port 4791: raw, its length
//   not the IP's, no room for BTH and ICRC: malformed. Then ICRC, IPv4 header checksum:
//   icrc; P_Key, TVer: malformed; opcode: unsupported; RETH/DETH/ImmDt and the pad within the
//   packet: malformed.
module rx_check_verdict #(
    parameter  int MAX_FRAME = rx_pkg::RX_MAX_FRAME,  // Longest frame taken, in bytes
    parameter  int LEN_W     = 13,   // Width of byte counts: holds a beat past MAX_FRAME
    parameter  int QUEUE_W   = 16,   // Width of the RSS pipeline's queue number
    parameter  int ADDR_W    = 11,   // Width of a buffer address (in beats)
    parameter  int BEATS_W   = 10,   // Width of a frame's beat count in the buffer
    parameter  int ACC_W     = 28,   // Width of the checksum sums
    parameter  int FIFO_LOG2 = 6,    // log2 of the descriptor FIFO's RAM entries
    localparam int CODE_W    = rx_pkg::RX_DISCARD_W
) (
    input  wire                   clk,
    input  wire                   rst,           // synchronous, active high
    // a frame's end: its headers, length (past MAX_FRAME for any longer), RSS verdict, place
    input  wire                   w_valid,
    input  rx_check_pkg::fields_t w_fields,
    input  wire [LEN_W-1:0]       w_len,
    input  wire [QUEUE_W-1:0]     w_queue,
    input  wire [31:0]            w_hash,
    input  wire [4:0]             w_hash_type,
    input  wire [ADDR_W-1:0]      w_addr,
    input  wire [BEATS_W-1:0]     w_beats,
    // its ICRC result and checksum sums (rx_check_crc), in order
    input  wire                   v_valid,
    input  wire                   v_icrc_ok,
    input  wire [ACC_W-1:0]       v_acc_hdr,
    input  wire [ACC_W-1:0]       v_acc_l4,
    // descriptors (rx_check's output; see there)
    output logic                  m_valid,
    input  wire                   m_ready,
    output logic                  m_discard,
    output logic [CODE_W-1:0]     m_reason,
    output logic                  m_roce,
    output logic                  m_csum_ok,
    output logic                  m_ack,        // an Acknowledge model::rc::parse_ack takes
                                                // (discarded as unsupported); m_imm its AETH
    output logic [7:0]            m_opcode,
    output logic [23:0]           m_dest_qpn,
    output logic [23:0]           m_psn,
    output logic                  m_ack_req,    // the BTH's AckReq bit
    output logic                  m_deth_valid,
    output logic [31:0]           m_qkey,
    output logic [23:0]           m_src_qp,
    output logic                  m_reth_valid,
    output logic [63:0]           m_va,
    output logic [31:0]           m_rkey,
    output logic [31:0]           m_dma_len,
    output logic                  m_imm_valid,
    output logic [31:0]           m_imm,
    output logic [LEN_W-1:0]      m_payload_off,
    output logic [LEN_W-1:0]      m_payload_len,
    output logic                  m_ipv6,
    output logic [4:0]            m_l3_off,
    output logic [LEN_W-1:0]      m_frame_len,
    output logic [QUEUE_W-1:0]    m_queue,
    output logic [31:0]           m_hash,
    output logic [4:0]            m_hash_type,
    output logic [ADDR_W-1:0]     m_addr,
    output logic [BEATS_W-1:0]    m_beats
);

    localparam logic [CODE_W-1:0] MALFORMED   = rx_pkg::RX_DISCARD_MALFORMED;
    localparam logic [CODE_W-1:0] ICRC        = rx_pkg::RX_DISCARD_ICRC;
    localparam logic [CODE_W-1:0] UNSUPPORTED = rx_pkg::RX_DISCARD_UNSUPPORTED;
    localparam logic [7:0]        TCP         = wire_pkg::WIRE_IPPROTO_TCP;
    localparam logic [7:0]        UDP         = wire_pkg::WIRE_IPPROTO_UDP;
    localparam logic [255:0]      SYND_OK     = rx_pkg::RX_AETH_SYNDROME_OK;
    localparam int                SW          = 19;   // signed lengths: 16-bit fields, + 40

    // ------------------------------------------------------------------------------------------
    // The snapshots waiting for their results, in two memories: what the checks read (at V1),
    // and what only the descriptor carries (read at V3). A frame's entries live from the clock
    // after its last beat left rx_check_lanes' B to its V3, 15 clocks; a frame ends a clock at
    // most, so 16 entries are never overwritten early.
    typedef struct packed {
        logic [LEN_W-1:0] len;
        logic [LEN_W:0]   avail;        // bytes from the IP header on (signed)...
        logic [LEN_W:0]   avail40;      // ...and after an IPv6 header
        logic             vlan, ipv4, ipv6;
        logic [7:0]       ver_ihl;      // IP word 0's first byte
        logic [15:0]      total;        // IPv4 total length
        logic [31:0]      ip1;
        logic [7:0]       ip_proto;
        logic [15:0]      dport;
        logic [31:0]      udp;          // UDP length and checksum
        logic [31:0]      bth0;
        logic [3:0]       tcp_doff;
    } check_t;

    typedef struct packed {
        logic [7:0]         opcode;
        logic [23:0]        dest_qpn;
        logic [23:0]        psn;
        logic               ack_req;
        logic [159:0]       ext;
        logic               ipv6, vlan;
        logic [LEN_W-1:0]   len;
        logic [QUEUE_W-1:0] rss_queue;
        logic [31:0]        hash;
        logic [4:0]         hash_type;
        logic [ADDR_W-1:0]  addr;
        logic [BEATS_W-1:0] beats;
    } keep_t;

    // Their widths (Yosys takes no $bits of a type).
    localparam int CHECK_W = 3 * LEN_W + 2 + 3 + 8 + 16 + 32 + 8 + 16 + 32 + 32 + 4;
    localparam int KEEP_W  = 8 + 24 + 24 + 1 + 160 + 2 + LEN_W + QUEUE_W + 32 + 5 + ADDR_W + BEATS_W;

`ifndef SYNTHESIS
    if (CHECK_W != $bits(check_t) || KEEP_W != $bits(keep_t)) begin : g_bad_widths
        $error("rx_check_verdict: CHECK_W or KEEP_W is not the width of its type");
    end
`endif

    logic [CHECK_W-1:0] pend_check [16];
    logic [KEEP_W-1:0]  pend_keep [16];
    logic [3:0]                wp_q, rp_check_q, rp_keep_q;
    logic                      v1_valid, v2_valid, v3_valid;

    // The lengths from the IP header, worked out on the way in so that the checks compare.
    wire [LEN_W:0] w_avail   = (LEN_W + 1)'(w_len) - (w_fields.vlan ? (LEN_W + 1)'(18)
                                                                   : (LEN_W + 1)'(14));
    wire [LEN_W:0] w_avail40 = (LEN_W + 1)'(w_len) - (w_fields.vlan ? (LEN_W + 1)'(58)
                                                                   : (LEN_W + 1)'(54));

    always_ff @(posedge clk) begin
        if (w_valid) begin
            pend_check[wp_q] <= {w_len, w_avail, w_avail40, w_fields.vlan, w_fields.ipv4,
                                 w_fields.ipv6,
                                 w_fields.ip0[31:24], w_fields.ip0[15:0], w_fields.ip1,
                                 w_fields.ip_proto, w_fields.l4_0[15:0], w_fields.l4_1,
                                 w_fields.bth0, w_fields.bth1[31:28]};
            pend_keep[wp_q]  <= {w_fields.bth0[31:24], w_fields.bth1[23:0], w_fields.bth2[23:0],
                                 w_fields.bth2[31], w_fields.ext, w_fields.ipv6, w_fields.vlan,
                                 w_len, w_queue, w_hash, w_hash_type, w_addr, w_beats};
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wp_q       <= '0;
            rp_check_q <= '0;
            rp_keep_q  <= '0;
        end else begin
            wp_q       <= wp_q + 4'(w_valid);
            rp_check_q <= rp_check_q + 4'(v_valid);
            rp_keep_q  <= rp_keep_q + 4'(v3_valid);
        end
    end

    // One's complement folds of a sum: the first half (17 bits), then the second (16).
    function automatic logic [16:0] fold1(input logic [ACC_W+1:0] v);
        fold1 = {1'b0, v[15:0]} + 17'(v[ACC_W+1:16]);
    endfunction

    function automatic logic [15:0] fold2(input logic [16:0] v);
        fold2 = v[15:0] + 16'(v[16]);
    endfunction

    // ------------------------------------------------------------------------------------------
    // V1: the frame's snapshot and result, registered.
    check_t           c, c_d;
    logic             v1_icrc_ok;
    logic [ACC_W-1:0] v1_acc_hdr, v1_acc_l4;

    assign c_d = pend_check[rp_check_q];

    always_ff @(posedge clk) begin
        c          <= c_d;
        v1_icrc_ok <= v_icrc_ok;
        v1_acc_hdr <= v_acc_hdr;
        // the pseudo-header's protocol joins the TCP/UDP sum here, a stage before its fold
        v1_acc_l4  <= v_acc_l4 + ACC_W'(8'(c_d.ipv4 ? c_d.ip_proto : c_d.ip1[15:8]));
    end

    // ------------------------------------------------------------------------------------------
    // V2: lengths and fields. Lengths are signed: a field may claim less than a header.
    localparam logic [255:0] OP_TAKEN = rx_pkg::RX_OPCODE_TAKEN;
    localparam logic [255:0] OP_RETH  = rx_pkg::RX_OPCODE_RETH;
    localparam logic [255:0] OP_DETH  = rx_pkg::RX_OPCODE_DETH;
    localparam logic [255:0] OP_IMMDT = rx_pkg::RX_OPCODE_IMMDT;

    typedef struct packed {
        logic              too_long;       // longer than MAX_FRAME
        logic              malformed_l2;   // too long, or shorter than its Ethernet header
        logic              ipv4, ipv6, vlan;
        logic              bad_ip;         // the IP header does not check (new_checked)
        logic              frag;           // IPv4 MF or fragment offset
        logic [7:0]        proto;          // IPv4 protocol, IPv6 next header
        logic [SW-1:0]     ub;             // from the UDP (TCP) header to the IP end, signed
        logic [6:0]        udp_rel;        // the UDP header's offset in the IP header
        logic              port;           // UDP destination port 4791
        logic              csum_set;       // a UDP checksum other than 0
        logic              pkey_tver_ok;
        logic [15:0]       ulen;
        logic [3:0]        doff;
        logic [7:0]        opcode;
        logic              reth, deth, imm;
        logic [5:0]        hdrs;           // UDP, BTH, the extension headers and the ICRC...
        logic [5:0]        hdrs_pad;       // ...and the pad: what the UDP datagram must hold
        logic [16:0]       l4_len;         // the pseudo-header's length
        logic              icrc_ok;
        logic [16:0]       hdr_fold;       // the IPv4 header sum, folded once
        logic [16:0]       l4_part;        // the TCP/UDP sum and the protocol, folded once
    } v2_t;

    v2_t v2_d, v2;

    always_comb begin
        logic signed [SW-1:0] avail, avail40, hl, total, plen, ub;
        avail   = SW'($signed(c.avail));
        avail40 = SW'($signed(c.avail40));
        hl      = SW'({c.ver_ihl[3:0], 2'b00});
        total   = SW'(c.total);
        plen    = SW'(c.ip1[31:16]);
        ub      = c.ipv4 ? total - hl : plen;

        v2_d.too_long     = c.len > LEN_W'(MAX_FRAME);
        v2_d.malformed_l2 = c.len > LEN_W'(MAX_FRAME) || c.len < LEN_W'(14)
                            || (c.vlan && c.len < LEN_W'(18));
        v2_d.ipv4   = c.ipv4;
        v2_d.ipv6   = c.ipv6;
        v2_d.vlan = c.vlan;
        if (c.ipv4) begin
            v2_d.bad_ip = avail < SW'(20) || c.ver_ihl[7:4] != 4'd4 || c.ver_ihl[3:0] < 4'd5
                          || avail < hl || total < hl || avail < total;
        end else begin
            v2_d.bad_ip = avail < SW'(40) || c.ver_ihl[7:4] != 4'd6 || avail40 < plen;
        end
        v2_d.frag         = c.ip1[13] || c.ip1[12:0] != '0;
        v2_d.proto        = c.ipv4 ? c.ip_proto : c.ip1[15:8];
        v2_d.ub           = ub;
        v2_d.udp_rel      = c.ipv4 ? {1'b0, c.ver_ihl[3:0], 2'b00} : 7'd40;
        v2_d.port         = c.dport == wire_pkg::WIRE_ROCEV2_PORT;
        v2_d.csum_set     = c.udp[15:0] != '0;
        v2_d.pkey_tver_ok = c.bth0[15:0] == rx_pkg::RX_PKEY && c.bth0[19:16] == 4'd0;
        v2_d.ulen         = c.udp[31:16];
        v2_d.doff         = c.tcp_doff;
        v2_d.opcode       = c.bth0[31:24];
        v2_d.reth         = OP_RETH[c.bth0[31:24]];
        v2_d.deth         = OP_DETH[c.bth0[31:24]];
        v2_d.imm          = OP_IMMDT[c.bth0[31:24]];
        v2_d.hdrs         = 6'd24 + {v2_d.reth, v2_d.deth, v2_d.imm, 2'b00};  // + 16, 8, 4
        v2_d.hdrs_pad     = v2_d.hdrs + {4'd0, c.bth0[21:20]};
        // TCP's segment is the IP payload; UDP's datagram is what its length field says.
        v2_d.l4_len       = (v2_d.proto == TCP) ? 17'(ub) : {1'b0, c.udp[31:16]};
        v2_d.icrc_ok      = v1_icrc_ok;
        v2_d.hdr_fold     = fold1((ACC_W + 2)'(v1_acc_hdr));
        v2_d.l4_part      = fold1((ACC_W + 2)'(v1_acc_l4));
    end

    always_ff @(posedge clk) begin
        v2 <= v2_d;
    end

    // ------------------------------------------------------------------------------------------
    // V3: the checks in the model's order, but for the checksums; the folds' first halves.
    typedef struct packed {
        logic              too_long;
        logic              malformed;      // RoceFrame::parse fails
        logic              raw;            // ...or says it is not RoCEv2
        logic              raw_ip;         // an IP frame, unfragmented if IPv4
        logic              ipv4;
        logic              icrc_ok;
        logic              l4_shape;       // a whole TCP header, or a whole UDP datagram
                                           // with a checksum
        logic              post;           // classify finds something after the ICRC...
        logic [CODE_W-1:0] post_code;      // ...this
        logic              reth, deth, imm;
        logic [LEN_W-1:0]  off, len;       // the payload's place, for RoCEv2
        logic [16:0]       hdr_fold, l4_fold;
        logic              ack_shape;      // an Acknowledge's opcode, P_Key, TVer, no pad, and
                                           // exactly an AETH after the BTH
    } v3_t;

    v3_t v3_d, v3;

    always_comb begin
        logic                 ip, tcp_ok, udp_ok;
        logic signed [SW-1:0] ub;
        logic [17:0]          l4_sum;
        ub        = $signed(v2.ub);
        ip        = v2.ipv4 || v2.ipv6;
        v3_d.reth = v2.reth;
        v3_d.deth = v2.deth;
        v3_d.imm  = v2.imm;
        // RoceFrame::parse
        v3_d.raw = 1'b0;
        if (v2.malformed_l2 || (ip && v2.bad_ip)) begin
            v3_d.malformed = 1'b1;
        end else if (!ip || v2.proto != UDP) begin
            // not UDP: raw, unless an IPv6 extension header stands before it
            v3_d.malformed = v2.ipv6 && (v2.proto == wire_pkg::WIRE_IPPROTO_HOP_BY_HOP
                                         || v2.proto == wire_pkg::WIRE_IPPROTO_IPV6_ROUTE
                                         || v2.proto == wire_pkg::WIRE_IPPROTO_IPV6_FRAG
                                         || v2.proto == wire_pkg::WIRE_IPPROTO_IPV6_OPTS);
            v3_d.raw       = !v3_d.malformed;
        end else if (v2.ipv4 && v2.frag) begin
            v3_d.malformed = 1'b1;
        end else if (ub < SW'(8)) begin
            v3_d.malformed = 1'b1;
        end else if (!v2.port) begin
            v3_d.malformed = 1'b0;
            v3_d.raw       = 1'b1;
        end else begin
            v3_d.malformed = SW'(v2.ulen) != ub || ub < SW'(24);
        end
        // classify after the ICRC: the extension headers and the pad within the packet
        v3_d.post      = 1'b1;
        v3_d.post_code = MALFORMED;
        if (!v2.pkey_tver_ok) begin
            v3_d.post_code = MALFORMED;
        end else if (!OP_TAKEN[v2.opcode]) begin
            v3_d.post_code = UNSUPPORTED;
        end else if (ub < SW'(v2.hdrs_pad)) begin
            v3_d.post_code = MALFORMED;
        end else begin
            v3_d.post = 1'b0;
        end
        // raw_csum_ok but for the sums
        tcp_ok = v2.proto == TCP && ub >= SW'(20) && v2.doff >= 4'd5
                 && ub >= SW'({v2.doff, 2'b00});
        udp_ok = v2.proto == UDP && ub >= SW'(8) && v2.ulen >= 16'd8 && ub >= SW'(v2.ulen)
                 && v2.csum_set;
        v3_d.too_long = v2.too_long;
        v3_d.raw_ip   = ip && !(v2.ipv4 && v2.frag);
        v3_d.ipv4     = v2.ipv4;
        v3_d.icrc_ok  = v2.icrc_ok;
        v3_d.l4_shape = tcp_ok || udp_ok;
        // the payload after UDP (8), BTH (12) and the extension headers: hdrs less the ICRC
        v3_d.off      = LEN_W'(v2.vlan ? 18 : 14) + LEN_W'(v2.udp_rel)
                        + LEN_W'(6'(v2.hdrs - 6'd4));
        v3_d.len      = LEN_W'(ub - SW'(v2.hdrs_pad));
        v3_d.hdr_fold = v2.hdr_fold;
        // hdrs_pad is 24 (UDP, BTH, ICRC) for an opcode with no extension header and no pad
        v3_d.ack_shape = v2.pkey_tver_ok && v2.opcode == rx_pkg::RX_OPCODE_ACK
                         && v2.hdrs_pad == 6'd24 && ub == SW'(rx_pkg::RX_ACK_UDP_LEN);
        l4_sum        = 18'(v2.l4_part) + 18'(v2.l4_len);
        v3_d.l4_fold  = {1'b0, l4_sum[15:0]} + 17'(l4_sum[17:16]);
    end

    always_ff @(posedge clk) begin
        v3 <= v3_d;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            v1_valid <= 1'b0;
            v2_valid <= 1'b0;
            v3_valid <= 1'b0;
        end else begin
            v1_valid <= v_valid;
            v2_valid <= v1_valid;
            v3_valid <= v2_valid;
        end
    end

    // ------------------------------------------------------------------------------------------
    // V4: the verdict, and the descriptor's other fields from the second memory.
    logic              d_valid, d_discard, d_roce, d_csum_ok, d_reth, d_deth, d_imm, d_too_long;
    logic              d_ack;
    logic [CODE_W-1:0] d_reason;
    logic [LEN_W-1:0]  d_off, d_len;
    keep_t             k, k_q;

    assign k = pend_keep[rp_keep_q];

    always_ff @(posedge clk) begin
        if (rst) begin
            d_valid <= 1'b0;
        end else begin
            d_valid <= v3_valid;
        end
    end

    wire hdr_ok = fold2(v3.hdr_fold) == 16'hFFFF;
    wire l4_ok  = fold2(v3.l4_fold) == 16'hFFFF;
    wire roce   = !v3.malformed && !v3.raw;

    always_ff @(posedge clk) begin
        if (v3.malformed) begin
            d_discard <= 1'b1;
            d_reason  <= MALFORMED;
        end else if (roce && (!v3.icrc_ok || (v3.ipv4 && !hdr_ok))) begin
            d_discard <= 1'b1;
            d_reason  <= ICRC;
        end else if (roce && v3.post) begin
            d_discard <= 1'b1;
            d_reason  <= v3.post_code;
        end else begin
            d_discard <= 1'b0;
            d_reason  <= '0;
        end
        d_roce     <= roce;
        // parse_ack: a good ICRC and IPv4 header checksum, the shape, a syndrome not reserved
        d_ack      <= roce && v3.icrc_ok && (!v3.ipv4 || hdr_ok) && v3.ack_shape
                      && SYND_OK[k.ext[159:152]];
        d_too_long <= v3.too_long;
        d_csum_ok <= roce || (v3.raw && v3.raw_ip && (!v3.ipv4 || hdr_ok) && v3.l4_shape && l4_ok);
        d_reth    <= v3.reth;
        d_deth    <= v3.deth;
        d_imm     <= v3.imm;
        d_off     <= roce ? v3.off : '0;
        d_len     <= roce ? v3.len : k.len;   // a raw frame's payload is all of it
        k_q       <= k;
    end

    // ------------------------------------------------------------------------------------------
    // The descriptor FIFO.
    typedef struct packed {
        logic               discard;
        logic [CODE_W-1:0]  reason;
        logic               roce;
        logic               csum_ok;
        logic               ack;
        logic [7:0]         opcode;
        logic [23:0]        dest_qpn;
        logic [23:0]        psn;
        logic               ack_req;
        logic               deth_valid;
        logic               reth_valid;
        logic               imm_valid;
        logic [127:0]       ext;          // RETH, or DETH in its first 64 bits
        logic [31:0]        imm;
        logic [LEN_W-1:0]   payload_off;
        logic [LEN_W-1:0]   payload_len;
        logic               ipv6;
        logic               vlan;
        logic [LEN_W-1:0]   frame_len;
        logic [QUEUE_W-1:0] rss_queue;
        logic [31:0]        hash;
        logic [4:0]         hash_type;
        logic [ADDR_W-1:0]  addr;
        logic [BEATS_W-1:0] beats;
    } desc_t;

    localparam int DESC_W = 4 + CODE_W + 8 + 24 + 24 + 1 + 3 + 128 + 32 + 3 * LEN_W + 2 + QUEUE_W
                            + 32 + 5 + ADDR_W + BEATS_W;

`ifndef SYNTHESIS
    if (DESC_W != $bits(desc_t)) begin : g_bad_desc_w
        $error("rx_check_verdict: DESC_W is not the width of desc_t");
    end
`endif

    desc_t in_d, out_d;

    always_comb begin
        logic taken;
        taken            = d_roce && !d_discard;
        in_d.discard     = d_discard;
        in_d.reason      = d_reason;
        in_d.roce        = taken;
        in_d.csum_ok     = d_csum_ok && !d_discard;
        in_d.ack         = d_ack;
        in_d.opcode      = k_q.opcode;
        in_d.dest_qpn    = k_q.dest_qpn;
        in_d.psn         = k_q.psn;
        in_d.ack_req     = k_q.ack_req;
        in_d.deth_valid  = taken && d_deth;
        in_d.reth_valid  = taken && d_reth;
        in_d.imm_valid   = taken && d_imm;
        in_d.ext         = k_q.ext[159:32];
        // the immediate follows the RETH or the DETH, if either
        in_d.imm         = d_reth ? k_q.ext[31:0] : d_deth ? k_q.ext[95:64] : k_q.ext[159:128];
        in_d.payload_off = d_off;
        in_d.payload_len = d_len;
        in_d.ipv6        = k_q.ipv6;
        in_d.vlan        = k_q.vlan;
        in_d.frame_len   = d_too_long ? LEN_W'(MAX_FRAME + 1) : k_q.len;
        in_d.rss_queue   = k_q.rss_queue;
        in_d.hash        = k_q.hash;
        in_d.hash_type   = k_q.hash_type;
        in_d.addr        = k_q.addr;
        in_d.beats       = k_q.beats;
    end

    rx_check_desc #(
        .WIDTH     (DESC_W),
        .DEPTH_LOG2(FIFO_LOG2)
    ) u_fifo (
        .clk    (clk),
        .rst    (rst),
        .s_valid(d_valid),
        .s_data (in_d),
        .m_valid(m_valid),
        .m_ready(m_ready),
        .m_data (out_d)
    );

    assign m_discard     = out_d.discard;
    assign m_reason      = out_d.reason;
    assign m_roce        = out_d.roce;
    assign m_csum_ok     = out_d.csum_ok;
    assign m_ack         = out_d.ack;
    assign m_opcode      = out_d.opcode;
    assign m_dest_qpn    = out_d.dest_qpn;
    assign m_psn         = out_d.psn;
    assign m_ack_req     = out_d.ack_req;
    assign m_deth_valid  = out_d.deth_valid;
    assign m_qkey        = out_d.ext[127:96];
    assign m_src_qp      = out_d.ext[87:64];
    assign m_reth_valid  = out_d.reth_valid;
    assign m_va          = out_d.ext[127:64];
    assign m_rkey        = out_d.ext[63:32];
    assign m_dma_len     = out_d.ext[31:0];
    assign m_imm_valid   = out_d.imm_valid;
    assign m_imm         = out_d.imm;
    assign m_payload_off = out_d.payload_off;
    assign m_payload_len = out_d.payload_len;
    assign m_ipv6        = out_d.ipv6;
    assign m_l3_off      = out_d.vlan ? 5'd18 : 5'd14;
    assign m_frame_len   = out_d.frame_len;
    assign m_queue       = out_d.rss_queue;
    assign m_hash        = out_d.hash;
    assign m_hash_type   = out_d.hash_type;
    assign m_addr        = out_d.addr;
    assign m_beats       = out_d.beats;

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_VERDICT_SV
