// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_REGS_SV
`define ROCENIC_RSS_REGS_SV
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RSS pipeline's AXI4-Lite registers: staging registers, the live rules and contexts, the
// commit that copies one into the other, and the indirection-table write port. The map is
// rss_regs_pkg, generated from model/src/rss/regs.rs (docs/rss-registers.md).
//
// Commit: a COMMIT write sets `pending`. While it is set, rss_pipeline launches no new packet
// into its metadata pipeline, and this block accepts no register write. When the pipeline
// reports `drained` (no packet between its launch and its last read of the configuration), the
// staged rule or context is copied in one clock and `pending` clears. So every packet sees the
// whole old or the whole new configuration. TABLE_DATA writes go to the RAM directly: software
// writes the bank a context does not use, then commits the context with that bank.
//
// AXI4-Lite: AW and W are taken into holding registers independently (awready/wready are
// flip-flops), the write is done when both are held, then B is answered. Reads answer one
// cycle after AR. Every response is OKAY; unmapped addresses read 0 and ignore writes. Write
// strobes apply to the staging registers; COMMIT, TABLE_SELECT and TABLE_DATA act on the whole
// word.
module rss_regs
#(
    parameter  int NUM_RULES    = 16,   // Steering rules
    parameter  int NUM_CONTEXTS = 4,    // RSS contexts (a power of two)
    parameter  int TABLE_LOG2   = 12,   // log2 of the largest indirection table
    parameter  int QUEUE_W      = 16,   // Queue number width
    localparam int CTX_W        = NUM_CONTEXTS > 1 ? $clog2(NUM_CONTEXTS) : 1,
    localparam int TBL_ADDR_W   = CTX_W + 1 + TABLE_LOG2
) (
    input  wire                       clk,
    input  wire                       rst,            // synchronous, active high
    // AXI4-Lite slave
    input  wire                       s_axil_awvalid,
    output logic                      s_axil_awready,
    input  wire [11:0]                s_axil_awaddr,
    input  wire                       s_axil_wvalid,
    output logic                      s_axil_wready,
    input  wire [31:0]                s_axil_wdata,
    input  wire [3:0]                 s_axil_wstrb,
    output logic                      s_axil_bvalid,
    input  wire                       s_axil_bready,
    output logic [1:0]                s_axil_bresp,
    input  wire                       s_axil_arvalid,
    output logic                      s_axil_arready,
    input  wire [11:0]                s_axil_araddr,
    output logic                      s_axil_rvalid,
    input  wire                       s_axil_rready,
    output logic [31:0]               s_axil_rdata,
    output logic [1:0]                s_axil_rresp,
    // live configuration
    output rss_types_pkg::rule_t [NUM_RULES-1:0]     rules,
    output rss_types_pkg::context_t [NUM_CONTEXTS-1:0] contexts,
    // commit handshake with the datapath
    output logic                      pending,        // hold new packets back
    output logic                      pending_next,   // what pending holds after this clock
    input  wire                       drained,        // no packet is using the configuration
    input  wire                       packet,         // a packet was launched (PACKETS)
    // indirection table write port
    output logic                      tbl_wr_en,
    output logic [TBL_ADDR_W-1:0]     tbl_wr_addr,
    output logic [QUEUE_W-1:0]        tbl_wr_data
);


    if (NUM_CONTEXTS < 1 || NUM_CONTEXTS > 256 || (NUM_CONTEXTS & (NUM_CONTEXTS - 1)) != 0)
    begin : g_bad_contexts
        $error("rss_regs: NUM_CONTEXTS must be a power of two up to 256");
    end
    if (TABLE_LOG2 < 1 || TABLE_LOG2 > 16) begin : g_bad_table
        $error("rss_regs: TABLE_LOG2 must be 1..16");
    end
    if (QUEUE_W < 1 || QUEUE_W > 16) begin : g_bad_queue
        $error("rss_regs: QUEUE_W must be 1..16");
    end

    // ------------------------------------------------------------------------------------------
    // Staging registers, as software wrote them.
    logic [31:0] ctx_control_q, ctx_fields_q;
    logic [31:0] ctx_key_q [rss_regs_pkg::RSS_CTX_KEY_WORDS];
    logic [31:0] rule_control_q, rule_ethertype_q, rule_l4_q, rule_src_port_q, rule_dst_port_q;
    logic [31:0] rule_qpn_q, rule_qpn_mask_q;
    logic [31:0] rule_src_q [4];
    logic [31:0] rule_src_mask_q [4];
    logic [31:0] rule_dst_q [4];
    logic [31:0] rule_dst_mask_q [4];
    logic [31:0] table_select_q;
    logic [31:0] packets_q;

    // The staged rule and context in their live form.

    rss_types_pkg::rule_t    staged_rule;
    rss_types_pkg::context_t staged_context;
    always_comb begin
        staged_rule.enable   = rule_control_q[rss_regs_pkg::RSS_RULE_CONTROL_ENABLE_LSB];
        staged_rule.to_queue = rule_control_q[rss_regs_pkg::RSS_RULE_CONTROL_QUEUE_LSB];
        staged_rule.target   = rule_control_q[rss_regs_pkg::RSS_RULE_CONTROL_TARGET_LSB +: 16];
        staged_rule.value.ethertype   = rule_ethertype_q[rss_regs_pkg::RSS_RULE_ETHERTYPE_VALUE_LSB +: 16];
        staged_rule.mask.ethertype    = rule_ethertype_q[rss_regs_pkg::RSS_RULE_ETHERTYPE_MASK_LSB +: 16];
        staged_rule.value.l4_protocol = rule_l4_q[rss_regs_pkg::RSS_RULE_L4_VALUE_LSB +: 8];
        staged_rule.mask.l4_protocol  = rule_l4_q[rss_regs_pkg::RSS_RULE_L4_MASK_LSB +: 8];
        staged_rule.value.src_port    = rule_src_port_q[rss_regs_pkg::RSS_RULE_SRC_PORT_VALUE_LSB +: 16];
        staged_rule.mask.src_port     = rule_src_port_q[rss_regs_pkg::RSS_RULE_SRC_PORT_MASK_LSB +: 16];
        staged_rule.value.dst_port    = rule_dst_port_q[rss_regs_pkg::RSS_RULE_DST_PORT_VALUE_LSB +: 16];
        staged_rule.mask.dst_port     = rule_dst_port_q[rss_regs_pkg::RSS_RULE_DST_PORT_MASK_LSB +: 16];
        staged_rule.value.qpn         = rule_qpn_q[23:0];
        staged_rule.mask.qpn          = rule_qpn_mask_q[23:0];
        staged_rule.value.src         = {rule_src_q[0], rule_src_q[1], rule_src_q[2], rule_src_q[3]};
        staged_rule.mask.src          = {rule_src_mask_q[0], rule_src_mask_q[1], rule_src_mask_q[2], rule_src_mask_q[3]};
        staged_rule.value.dst         = {rule_dst_q[0], rule_dst_q[1], rule_dst_q[2], rule_dst_q[3]};
        staged_rule.mask.dst          = {rule_dst_mask_q[0], rule_dst_mask_q[1], rule_dst_mask_q[2], rule_dst_mask_q[3]};

        staged_context.xor_hash   = ctx_control_q[rss_regs_pkg::RSS_CTX_CONTROL_XOR_LSB];
        staged_context.table_log2 = ctx_control_q[rss_regs_pkg::RSS_CTX_CONTROL_TABLE_LOG2_LSB +: 5];
        staged_context.bank       = ctx_control_q[rss_regs_pkg::RSS_CTX_CONTROL_BANK_LSB];
        staged_context.fields     = ctx_fields_q[rss_regs_pkg::RSS_CTX_FIELDS_FIELDS_LSB +: 13];
        for (int i = 0; i < rss_regs_pkg::RSS_CTX_KEY_WORDS; i++) begin
            staged_context.key[415 - 32*i -: 32] = ctx_key_q[i];
        end
    end

    // ------------------------------------------------------------------------------------------
    // AXI4-Lite write channel.
    logic        aw_held_q, w_held_q;
    logic [11:0] aw_addr_q;
    logic [31:0] w_data_q;
    logic [3:0]  w_strb_q;
    logic [7:0]  commit_index_q;
    logic        commit_context_q;

    assign s_axil_awready = !aw_held_q;
    assign s_axil_wready  = !w_held_q;
    assign s_axil_bresp   = 2'b00;

    wire do_write = aw_held_q && w_held_q && !s_axil_bvalid && !pending;
    // The pending register's next value, for callers that register what depends on it. A
    // commit write sets it (only while clear) and the commit clears it (see below).
    assign pending_next = !rst && (pending ? !drained
                                           : do_write && aw_addr_q == rss_regs_pkg::RSS_COMMIT);

    function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] data,
                                          input logic [3:0] strb);
        for (int b = 0; b < 4; b++) begin
            merge[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_held_q      <= 1'b0;
            w_held_q       <= 1'b0;
            s_axil_bvalid  <= 1'b0;
            pending        <= 1'b0;
            tbl_wr_en      <= 1'b0;
            ctx_control_q  <= '0;
            ctx_fields_q   <= '0;
            rule_control_q <= '0;
            rule_ethertype_q <= '0;
            rule_l4_q      <= '0;
            rule_src_port_q <= '0;
            rule_dst_port_q <= '0;
            rule_qpn_q     <= '0;
            rule_qpn_mask_q <= '0;
            table_select_q <= '0;
            for (int i = 0; i < rss_regs_pkg::RSS_CTX_KEY_WORDS; i++) ctx_key_q[i] <= '0;
            for (int i = 0; i < 4; i++) begin
                rule_src_q[i]      <= '0;
                rule_src_mask_q[i] <= '0;
                rule_dst_q[i]      <= '0;
                rule_dst_mask_q[i] <= '0;
            end
            for (int r = 0; r < NUM_RULES; r++) rules[r] <= '0;
            for (int c = 0; c < NUM_CONTEXTS; c++) contexts[c] <= '0;
        end else begin
            tbl_wr_en <= 1'b0;
            if (s_axil_awvalid && s_axil_awready) begin
                aw_held_q <= 1'b1;
                aw_addr_q <= s_axil_awaddr & 12'hFFC;
            end
            if (s_axil_wvalid && s_axil_wready) begin
                w_held_q <= 1'b1;
                w_data_q <= s_axil_wdata;
                w_strb_q <= s_axil_wstrb;
            end
            if (s_axil_bvalid && s_axil_bready) begin
                s_axil_bvalid <= 1'b0;
            end
            if (do_write) begin
                aw_held_q     <= 1'b0;
                w_held_q      <= 1'b0;
                s_axil_bvalid <= 1'b1;
                case (aw_addr_q)
                    rss_regs_pkg::RSS_COMMIT: begin
                        pending          <= 1'b1;
                        commit_index_q   <= w_data_q[rss_regs_pkg::RSS_COMMIT_INDEX_LSB +: 8];
                        commit_context_q <= w_data_q[rss_regs_pkg::RSS_COMMIT_CONTEXT_LSB];
                    end
                    rss_regs_pkg::RSS_CTX_CONTROL:    ctx_control_q    <= merge(ctx_control_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_CTX_FIELDS:     ctx_fields_q     <= merge(ctx_fields_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_CONTROL:   rule_control_q   <= merge(rule_control_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_ETHERTYPE: rule_ethertype_q <= merge(rule_ethertype_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_L4:        rule_l4_q        <= merge(rule_l4_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_SRC_PORT:  rule_src_port_q  <= merge(rule_src_port_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_DST_PORT:  rule_dst_port_q  <= merge(rule_dst_port_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_QPN:       rule_qpn_q       <= merge(rule_qpn_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_RULE_QPN_MASK:  rule_qpn_mask_q  <= merge(rule_qpn_mask_q, w_data_q, w_strb_q);
                    rss_regs_pkg::RSS_TABLE_SELECT:   table_select_q   <= w_data_q;
                    rss_regs_pkg::RSS_TABLE_DATA: begin
                        tbl_wr_en   <= 1'b1;
                        tbl_wr_addr <= {
                            CTX_W'(table_select_q[rss_regs_pkg::RSS_TABLE_SELECT_CONTEXT_LSB +: 8]),
                            table_select_q[rss_regs_pkg::RSS_TABLE_SELECT_BANK_LSB],
                            TABLE_LOG2'(table_select_q[rss_regs_pkg::RSS_TABLE_SELECT_INDEX_LSB +: 16])
                        };
                        tbl_wr_data <= w_data_q[QUEUE_W-1:0];
                        table_select_q[rss_regs_pkg::RSS_TABLE_SELECT_INDEX_LSB +: 16] <=
                            table_select_q[rss_regs_pkg::RSS_TABLE_SELECT_INDEX_LSB +: 16] + 16'd1;
                    end
                    default: begin
                        for (int i = 0; i < rss_regs_pkg::RSS_CTX_KEY_WORDS; i++) begin
                            if (aw_addr_q == rss_regs_pkg::RSS_CTX_KEY + 12'(4 * i)) begin
                                ctx_key_q[i] <= merge(ctx_key_q[i], w_data_q, w_strb_q);
                            end
                        end
                        for (int i = 0; i < 4; i++) begin
                            if (aw_addr_q == rss_regs_pkg::RSS_RULE_SRC + 12'(4 * i)) begin
                                rule_src_q[i] <= merge(rule_src_q[i], w_data_q, w_strb_q);
                            end
                            if (aw_addr_q == rss_regs_pkg::RSS_RULE_SRC_MASK + 12'(4 * i)) begin
                                rule_src_mask_q[i] <= merge(rule_src_mask_q[i], w_data_q, w_strb_q);
                            end
                            if (aw_addr_q == rss_regs_pkg::RSS_RULE_DST + 12'(4 * i)) begin
                                rule_dst_q[i] <= merge(rule_dst_q[i], w_data_q, w_strb_q);
                            end
                            if (aw_addr_q == rss_regs_pkg::RSS_RULE_DST_MASK + 12'(4 * i)) begin
                                rule_dst_mask_q[i] <= merge(rule_dst_mask_q[i], w_data_q, w_strb_q);
                            end
                        end
                    end
                endcase
            end
            // The commit itself, once no packet uses the configuration. An index past the
            // last rule is ignored; a context index wraps (log2(NUM_CONTEXTS) bits).
            if (pending && drained) begin
                pending <= 1'b0;
                if (commit_context_q) begin
                    contexts[CTX_W'(commit_index_q)] <= staged_context;
                end else if (32'(commit_index_q) < NUM_RULES) begin
                    rules[commit_index_q] <= staged_rule;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            packets_q <= '0;
        end else if (packet) begin
            packets_q <= packets_q + 32'd1;
        end
    end

    // ------------------------------------------------------------------------------------------
    // AXI4-Lite read channel.
    assign s_axil_arready = !s_axil_rvalid;
    assign s_axil_rresp   = 2'b00;

    function automatic logic [31:0] read_word(input logic [11:0] addr);
        read_word = '0;
        case (addr)
            rss_regs_pkg::RSS_ID:             read_word = rss_regs_pkg::RSS_ID_VALUE;
            rss_regs_pkg::RSS_CAPS: begin
                read_word[rss_regs_pkg::RSS_CAPS_RULES_LSB +: 8]      = 8'(NUM_RULES);
                read_word[rss_regs_pkg::RSS_CAPS_CONTEXTS_LSB +: 8]   = 8'(NUM_CONTEXTS);
                read_word[rss_regs_pkg::RSS_CAPS_TABLE_LOG2_LSB +: 5] = 5'(TABLE_LOG2);
                read_word[rss_regs_pkg::RSS_CAPS_QUEUE_W_LSB +: 5]    = 5'(QUEUE_W);
            end
            rss_regs_pkg::RSS_STATUS:         read_word[rss_regs_pkg::RSS_STATUS_BUSY_LSB] = pending;
            rss_regs_pkg::RSS_PACKETS:        read_word = packets_q;
            rss_regs_pkg::RSS_CTX_CONTROL:    read_word = ctx_control_q;
            rss_regs_pkg::RSS_CTX_FIELDS:     read_word = ctx_fields_q;
            rss_regs_pkg::RSS_RULE_CONTROL:   read_word = rule_control_q;
            rss_regs_pkg::RSS_RULE_ETHERTYPE: read_word = rule_ethertype_q;
            rss_regs_pkg::RSS_RULE_L4:        read_word = rule_l4_q;
            rss_regs_pkg::RSS_RULE_SRC_PORT:  read_word = rule_src_port_q;
            rss_regs_pkg::RSS_RULE_DST_PORT:  read_word = rule_dst_port_q;
            rss_regs_pkg::RSS_RULE_QPN:       read_word = rule_qpn_q;
            rss_regs_pkg::RSS_RULE_QPN_MASK:  read_word = rule_qpn_mask_q;
            rss_regs_pkg::RSS_TABLE_SELECT:   read_word = table_select_q;
            default: begin
                for (int i = 0; i < rss_regs_pkg::RSS_CTX_KEY_WORDS; i++) begin
                    if (addr == rss_regs_pkg::RSS_CTX_KEY + 12'(4 * i)) read_word = ctx_key_q[i];
                end
                for (int i = 0; i < 4; i++) begin
                    if (addr == rss_regs_pkg::RSS_RULE_SRC + 12'(4 * i)) read_word = rule_src_q[i];
                    if (addr == rss_regs_pkg::RSS_RULE_SRC_MASK + 12'(4 * i)) read_word = rule_src_mask_q[i];
                    if (addr == rss_regs_pkg::RSS_RULE_DST + 12'(4 * i)) read_word = rule_dst_q[i];
                    if (addr == rss_regs_pkg::RSS_RULE_DST_MASK + 12'(4 * i)) read_word = rule_dst_mask_q[i];
                end
            end
        endcase
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            s_axil_rvalid <= 1'b0;
        end else if (s_axil_arvalid && s_axil_arready) begin
            s_axil_rvalid <= 1'b1;
            s_axil_rdata  <= read_word(s_axil_araddr & 12'hFFC);
        end else if (s_axil_rready) begin
            s_axil_rvalid <= 1'b0;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RSS_REGS_SV
