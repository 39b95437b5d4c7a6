// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_FRAME_LAYOUT_SV
`define ROCENIC_WQE_FRAME_LAYOUT_SV
`include "rtl/common/wire_pkg.sv"
`include "rtl/wqe/wqe_frame_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The header bytes of one packet, byte for byte model::wqe::frame::emit_headers: Ethernet (and
// an 802.1Q tag), IPv4 or IPv6, UDP, BTH, then RETH, DETH and ImmDt as enabled.
//
// Out as words: two zero bytes, then the header, 4 bytes per word, word w = bytes 4w..4w+3 with
// byte 4w in bits [31:24] (wqe_frame_pkg::HDR_WORDS); words past the header are zero. Every
// part after the source MAC starts on a word there, so the layout is a few whole-word choices:
// the extension headers close up behind the BTH, UDP follows IPv4 or IPv6, and a tag moves all
// of it by one word. The lengths and the checksum come in computed (wqe_frame_hdr).
//
// Purely combinational.
module wqe_frame_layout #(
    localparam int HDR_WORDS = wqe_frame_pkg::HDR_WORDS   // words out (the longest header)
) (
    input  wqe_frame_pkg::desc_t      d,
    input  wire [15:0]                udp_len,   // UDP length (= the IPv6 payload length)
    input  wire [15:0]                ip_len,    // IPv4 total length or IPv6 payload length
    input  wire [15:0]                ip_csum,   // IPv4 header checksum
    output logic [HDR_WORDS*32-1:0]   words      // word w in bits [32w +: 32]
);

    wire [15:0] ethertype = d.ipv6 ? wire_pkg::WIRE_ETHERTYPE_IPV6 : wire_pkg::WIRE_ETHERTYPE_IPV4;
    wire [1:0]  pad_cnt   = 2'(-d.payload_len[1:0]);   // to a multiple of 4
    wire        unused_raw = d.raw;                    // a raw frame's header is not sent

    // The parts, each a list of words.
    logic [4:0][31:0]           eth;
    logic [4:0][31:0]           ip4;
    logic [9:0][31:0]           ip6;
    logic [6:0][31:0]           ext;   // RETH, DETH, ImmDt closed up
    logic [11:0][31:0]          l4;    // UDP, BTH, ext
    logic [21:0][31:0]          l3;    // IP, then l4
    logic [HDR_WORDS-1:0][31:0] all;

    always_comb begin
        eth[0] = {16'h0000, d.dst_mac[47:32]};
        eth[1] = d.dst_mac[31:0];
        eth[2] = d.src_mac[47:16];
        eth[3] = {d.src_mac[15:0], d.vlan_en ? wire_pkg::WIRE_ETHERTYPE_VLAN : ethertype};
        eth[4] = {d.pcp, 1'b0, d.vid, ethertype};

        ip4[0] = {8'h45, d.tclass, ip_len};
        ip4[1] = {16'h0000, 16'h4000};                       // ID 0, DF
        ip4[2] = {d.hop_limit, wire_pkg::WIRE_IPPROTO_UDP, ip_csum};
        ip4[3] = d.src_ip[31:0];
        ip4[4] = d.dst_ip[31:0];

        ip6[0] = {4'h6, d.tclass, d.flow_label};
        ip6[1] = {ip_len, wire_pkg::WIRE_IPPROTO_UDP, d.hop_limit};
        for (int i = 0; i < 4; i++) begin
            ip6[2 + i] = d.src_ip[127 - 32*i -: 32];
            ip6[6 + i] = d.dst_ip[127 - 32*i -: 32];
        end

        // From the back: ImmDt, DETH in front of it, RETH in front of both.
        for (int i = 0; i < 7; i++) ext[i] = '0;
        if (d.deth_en) begin
            ext[0] = d.qkey;
            ext[1] = {8'h00, d.src_qpn};
            ext[2] = d.imm_en ? d.imm : '0;
        end else begin
            ext[0] = d.imm_en ? d.imm : '0;
        end
        if (d.reth_en) begin
            for (int i = 6; i >= 4; i--) ext[i] = ext[i - 4];
            ext[0] = d.va[63:32];
            ext[1] = d.va[31:0];
            ext[2] = d.rkey;
            ext[3] = d.dma_len;
        end

        l4[0] = {d.udp_sport, wire_pkg::WIRE_ROCEV2_PORT};
        l4[1] = {udp_len, 16'h0000};                          // checksum 0
        l4[2] = {d.opcode, d.se, 1'b0, pad_cnt, 4'h0, 16'hFFFF};   // M 0, TVer 0, P_Key
        l4[3] = {8'h00, d.dest_qpn};                          // FECN, BECN 0
        l4[4] = {d.ack_req, 7'h00, d.psn};
        for (int i = 0; i < 7; i++) l4[5 + i] = ext[i];

        for (int i = 0; i < 22; i++) l3[i] = '0;
        if (d.ipv6) begin
            for (int i = 0; i < 10; i++) l3[i] = ip6[i];
            for (int i = 0; i < 12; i++) l3[10 + i] = l4[i];
        end else begin
            for (int i = 0; i < 5; i++) l3[i] = ip4[i];
            for (int i = 0; i < 12; i++) l3[5 + i] = l4[i];
        end

        for (int i = 0; i < 4; i++) all[i] = eth[i];
        if (d.vlan_en) begin
            all[4] = eth[4];
            for (int i = 0; i < 22; i++) all[5 + i] = l3[i];
        end else begin
            for (int i = 0; i < 22; i++) all[4 + i] = l3[i];
            all[26] = '0;
        end

        words = all;
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_FRAME_LAYOUT_SV
