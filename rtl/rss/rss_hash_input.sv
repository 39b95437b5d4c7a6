// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_HASH_INPUT_SV
`define ROCENIC_RSS_HASH_INPUT_SV
`include "rtl/rss/rss_regs_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The hash input: the bytes of a parsed packet that a context's hash fields select, in the
// order of model::rss::HashInput::new: source address, destination address, source port,
// destination port, BTH destination QP (3 bytes). A field applies only to packets that have it:
// IPv4 bits to IPv4 addresses, TCP port bits to TCP; a fragment contributes its addresses only.
// Combinational; the caller registers the result.
module rss_hash_input
#(
    localparam int FLAGS = rss_regs_pkg::RSS_FLAGS_W,   // Parse flag bits
    localparam int BYTES = 48             // Output width in bytes (the hash core's MAX_INPUT)
) (
    input  wire [FLAGS-1:0]   flags,      // model::rss::ParseFlags
    input  wire [12:0]        fields,     // model::rss::HashFields
    input  wire [127:0]       src,        // byte 0 in [127:120]; IPv4 in the low 4 bytes
    input  wire [127:0]       dst,
    input  wire [15:0]        src_port,
    input  wire [15:0]        dst_port,
    input  wire [23:0]        qpn,
    output logic [BYTES*8-1:0] data,      // byte 0 in [BYTES*8-1 -: 8], zero past len
    output logic [5:0]        len,        // bytes, at most 39
    output logic [4:0]        hash_type   // model::rss::HashType
);


    // Appends `n` bytes (the low n bytes of `value`, most significant first) at byte `at`.
    function automatic logic [BYTES*8-1:0] place(input logic [BYTES*8-1:0] buffer,
                                                 input logic [127:0] value, input int n,
                                                 input logic [5:0] at);
        logic [BYTES*8-1:0] field;
        field = '0;
        field[BYTES*8-1 -: 128] = value << (8 * (16 - n));
        place = buffer | (field >> (8 * at));
    endfunction

    always_comb begin
        logic v4, v6, ports, tcp, udp, sel_src, sel_dst, sel_sport, sel_dport, sel_qpn;
        int   ip_bytes;
        v4  = flags[rss_regs_pkg::RSS_FLAG_IPV4];
        v6  = flags[rss_regs_pkg::RSS_FLAG_IPV6];
        // Fragments: addresses only.
        ports = !flags[rss_regs_pkg::RSS_FLAG_FRAG];
        tcp   = ports && flags[rss_regs_pkg::RSS_FLAG_TCP];
        udp   = ports && flags[rss_regs_pkg::RSS_FLAG_UDP];
        sel_src   = (v4 && fields[rss_regs_pkg::RSS_FIELD_SRC_IPV4]) || (v6 && fields[rss_regs_pkg::RSS_FIELD_SRC_IPV6]);
        sel_dst   = (v4 && fields[rss_regs_pkg::RSS_FIELD_DST_IPV4]) || (v6 && fields[rss_regs_pkg::RSS_FIELD_DST_IPV6]);
        sel_sport = (tcp && fields[rss_regs_pkg::RSS_FIELD_SRC_PORT_TCP]) || (udp && fields[rss_regs_pkg::RSS_FIELD_SRC_PORT_UDP]);
        sel_dport = (tcp && fields[rss_regs_pkg::RSS_FIELD_DST_PORT_TCP]) || (udp && fields[rss_regs_pkg::RSS_FIELD_DST_PORT_UDP]);
        sel_qpn   = ports && flags[rss_regs_pkg::RSS_FLAG_BTH] && fields[rss_regs_pkg::RSS_FIELD_BTH_QPN];
        ip_bytes  = v6 ? 16 : 4;

        data = '0;
        len  = 6'd0;
        if (sel_src) begin
            data = place(data, src, ip_bytes, len);
            len  = len + 6'(ip_bytes);
        end
        if (sel_dst) begin
            data = place(data, dst, ip_bytes, len);
            len  = len + 6'(ip_bytes);
        end
        if (sel_sport) begin
            data = place(data, {112'h0, src_port}, 2, len);
            len  = len + 6'd2;
        end
        if (sel_dport) begin
            data = place(data, {112'h0, dst_port}, 2, len);
            len  = len + 6'd2;
        end
        if (sel_qpn) begin
            data = place(data, {104'h0, qpn}, 3, len);
            len  = len + 6'd3;
        end

        hash_type = '0;
        hash_type[rss_regs_pkg::RSS_HASH_TYPE_IPV4] = v4 && (sel_src || sel_dst);
        hash_type[rss_regs_pkg::RSS_HASH_TYPE_IPV6] = v6 && (sel_src || sel_dst);
        hash_type[rss_regs_pkg::RSS_HASH_TYPE_TCP]  = tcp && (sel_sport || sel_dport);
        hash_type[rss_regs_pkg::RSS_HASH_TYPE_UDP]  = udp && (sel_sport || sel_dport);
        hash_type[rss_regs_pkg::RSS_HASH_TYPE_BTH]  = sel_qpn;
    end

    // Flags that do not change the input.
    wire unused_flags = |{flags[rss_regs_pkg::RSS_FLAG_VLAN], flags[rss_regs_pkg::RSS_FLAG_IPOIB], flags[rss_regs_pkg::RSS_FLAG_L3ONLY],
                          flags[rss_regs_pkg::RSS_FLAG_MALFORMED], flags[rss_regs_pkg::RSS_FLAG_DEEP]};
    wire unused_fields = |fields[11:8];

endmodule

`resetall

`endif  // ROCENIC_RSS_HASH_INPUT_SV
