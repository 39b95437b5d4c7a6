// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RSS_PIPELINE_SV
`define ROCENIC_RSS_PIPELINE_SV
`include "rtl/rss/rss_regs_pkg.sv"
`include "rtl/rss/rss_types_pkg.sv"
`include "rtl/rss/rss_regs.sv"
`include "rtl/rss/rss_parser.sv"
`include "rtl/rss/rss_steering.sv"
`include "rtl/rss/rss_hash_input.sv"
`include "rtl/rss/rss_hash_core.sv"
`include "rtl/rss/rss_indirection.sv"
`include "rtl/common/stream_fifo.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The RSS pipeline: "classify first, distribute after", as "User Space IPoIB Packet Processing"
// designs it (docs/reference.md §2).
//
// Packets in on s_axis, the same packets out on m_axis, unmodified, with their metadata on
// m_meta_* valid in the beat that carries tlast: parse flags, steering rule, RSS hash and hash
// type, destination queue. Bit-exact with model::rss::{classify, distribute}.
//
// Datapath:
//   capture    the first RSS_PARSE_WINDOW bytes of each packet are collected as it streams by,
//              and its length counted; at tlast the window is launched into the metadata
//              pipeline. Meanwhile the beats wait in the data FIFO.
//   parse      rss_parser, 13 cycles
//   steer      rss_steering, 2 cycles: first matching rule, action queue or RSS context
//   hash       the context's fields select the input (rss_hash_input), rss_hash_core hashes it
//              with the context's function and key, 2 cycles
//   indirect   hash & (2^k - 1) indexes the context's table bank in block RAM, 2 cycles (the
//              read data is registered before the queue is chosen: rule, table or a write)
//   join       a packet's last beat leaves only with its metadata
// The metadata pipeline never stalls: each launched packet's metadata reaches the metadata FIFO
// 19 cycles later, and that FIFO is big enough for every packet the data FIFO can hold. So one
// beat per clock flows in and out while m_axis keeps up, whatever the packet sizes: back-to-back
// 64-byte packets run without a bubble at 8 bytes per beat (8 beats each) and at 64 (1 beat).
//
// Metadata is attached to the last beat rather than the first so that the data never waits for
// a whole packet: only the last beat of a packet shorter than the pipeline latency waits.
//
// Configuration (rss_regs, AXI4-Lite): a commit holds back the next launch, waits until the
// metadata pipeline is empty, then applies in one clock, so every packet sees the whole old or
// the whole new configuration. The input stalls only if a second packet completes during those
// few cycles.
//
// Streams: AXI-Stream with byte enables; only the last beat of a packet may have null bytes,
// which must be the high lanes (tkeep contiguous from lane 0). s_axis_tuser is the link layer of
// the packet (1: InfiniBand starting at the LRH, 0: Ethernet), sampled on its first beat and
// carried to m_axis_tuser. s_axis_tready and m_axis_tvalid are functions of flip-flops only.
// A top of its own: rtl/ is a library of pipelines, and linting all of it at once finds
// several tops (the board tops in rtl/top/boards/ pick theirs).
/* verilator lint_off MULTITOP */
module rss_pipeline
/* verilator lint_on MULTITOP */
#(
    parameter  int DATA_BYTES   = 8,    // Bytes per beat: 8 (64-bit) to 128, a power of two
    parameter  int NUM_RULES    = 16,   // Steering rules
    parameter  int NUM_CONTEXTS = 4,    // RSS contexts, a power of two
    parameter  int TABLE_LOG2   = 12,   // log2 of the largest indirection table (1..16)
    parameter  int QUEUE_W      = 16,   // Queue number width (1..16)
    parameter  int FIFO_LOG2    = 5,    // log2 of the data FIFO's RAM entries (beats)
    localparam int FLAGS        = rss_regs_pkg::RSS_FLAGS_W,
    localparam int RULE_W       = NUM_RULES > 1 ? $clog2(NUM_RULES) : 1,
    localparam int DATA_W       = DATA_BYTES * 8
) (
    input  wire                   clk,
    input  wire                   rst,               // synchronous, active high
    // packets in
    input  wire                   s_axis_tvalid,
    output logic                  s_axis_tready,
    input  wire [DATA_W-1:0]      s_axis_tdata,      // byte lane i in bits [8i +: 8]
    input  wire [DATA_BYTES-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,      // 1: InfiniBand, 0: Ethernet
    // packets out, metadata with tlast
    output logic                  m_axis_tvalid,
    input  wire                   m_axis_tready,
    output logic [DATA_W-1:0]     m_axis_tdata,
    output logic [DATA_BYTES-1:0] m_axis_tkeep,
    output logic                  m_axis_tlast,
    output logic                  m_axis_tuser,
    output logic [FLAGS-1:0]      m_meta_flags,      // model::rss::ParseFlags
    output logic [31:0]           m_meta_hash,       // 0 when a rule chose a queue
    output logic [4:0]            m_meta_hash_type,  // model::rss::HashType
    output logic                  m_meta_rule_hit,   // a steering rule matched...
    output logic [RULE_W-1:0]     m_meta_rule,       // ...this one
    output logic [QUEUE_W-1:0]    m_meta_queue,
    // AXI4-Lite registers (docs/rss-registers.md)
    input  wire                   s_axil_awvalid,
    output logic                  s_axil_awready,
    input  wire [11:0]            s_axil_awaddr,
    input  wire                   s_axil_wvalid,
    output logic                  s_axil_wready,
    input  wire [31:0]            s_axil_wdata,
    input  wire [3:0]             s_axil_wstrb,
    output logic                  s_axil_bvalid,
    input  wire                   s_axil_bready,
    output logic [1:0]            s_axil_bresp,
    input  wire                   s_axil_arvalid,
    output logic                  s_axil_arready,
    input  wire [11:0]            s_axil_araddr,
    output logic                  s_axil_rvalid,
    input  wire                   s_axil_rready,
    output logic [31:0]           s_axil_rdata,
    output logic [1:0]            s_axil_rresp
);


    localparam int WIN        = rss_regs_pkg::RSS_PARSE_WINDOW;
    localparam int WIN_BEATS  = WIN / DATA_BYTES;
    localparam int LEN_W      = 18;     // frame length counter; saturates (see rss_parser)
    localparam int CTX_W      = NUM_CONTEXTS > 1 ? $clog2(NUM_CONTEXTS) : 1;
    localparam int TBL_ADDR_W = CTX_W + 1 + TABLE_LOG2;
    // Launch to metadata FIFO: parser 13, steering 2, hash 2, table 2. Public for the harness.
    /* verilator lint_off UNUSEDPARAM */
    localparam int META_LATENCY /*verilator public*/ = 19;
    /* verilator lint_on UNUSEDPARAM */

    if (DATA_BYTES < 8 || DATA_BYTES > WIN || (DATA_BYTES & (DATA_BYTES - 1)) != 0)
    begin : g_bad_width
        $error("rss_pipeline: DATA_BYTES must be a power of two from 8 to the parse window");
    end

    // ------------------------------------------------------------------------------------------
    // Configuration.
    rss_types_pkg::rule_t [NUM_RULES-1:0]       rules;
    rss_types_pkg::context_t [NUM_CONTEXTS-1:0] contexts;
    logic                        pending;
    logic                        pending_next;
    logic                        drained;
    logic                        launch;
    logic                        tbl_wr_en;
    logic [TBL_ADDR_W-1:0]       tbl_wr_addr;
    logic [QUEUE_W-1:0]          tbl_wr_data;

    rss_regs #(
        .NUM_RULES   (NUM_RULES),
        .NUM_CONTEXTS(NUM_CONTEXTS),
        .TABLE_LOG2  (TABLE_LOG2),
        .QUEUE_W     (QUEUE_W)
    ) u_regs (
        .clk           (clk),
        .rst           (rst),
        .s_axil_awvalid(s_axil_awvalid),
        .s_axil_awready(s_axil_awready),
        .s_axil_awaddr (s_axil_awaddr),
        .s_axil_wvalid (s_axil_wvalid),
        .s_axil_wready (s_axil_wready),
        .s_axil_wdata  (s_axil_wdata),
        .s_axil_wstrb  (s_axil_wstrb),
        .s_axil_bvalid (s_axil_bvalid),
        .s_axil_bready (s_axil_bready),
        .s_axil_bresp  (s_axil_bresp),
        .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready),
        .s_axil_araddr (s_axil_araddr),
        .s_axil_rvalid (s_axil_rvalid),
        .s_axil_rready (s_axil_rready),
        .s_axil_rdata  (s_axil_rdata),
        .s_axil_rresp  (s_axil_rresp),
        .rules         (rules),
        .contexts      (contexts),
        .pending       (pending),
        .pending_next  (pending_next),
        .drained       (drained),
        .packet        (launch),
        .tbl_wr_en     (tbl_wr_en),
        .tbl_wr_addr   (tbl_wr_addr),
        .tbl_wr_data   (tbl_wr_data)
    );

    // ------------------------------------------------------------------------------------------
    // Capture: the window and the length of the packet streaming in.
    logic [WIN*8-1:0]  win_q;
    logic [LEN_W-1:0]  len_q;
    logic              ib_q;
    // One-hot: the window slot the next beat goes to (slot 0 for a packet's first beat); zero
    // once the window is full. A decoded slot rather than a beat count keeps a compare and a
    // decoder off the window's 16 write enables.
    logic [WIN_BEATS-1:0] slot_q;
    logic              first_q;     // the next beat starts a packet
    logic              snap_q;      // win_q/len_q hold a whole packet not yet launched
    logic              fifo_s_ready;

    // A completed packet waits while a commit is pending; the next beat must not overwrite it.
    // capture_free is !(snap_q && pending), registered from both registers' next values so
    // that the data FIFO's write enables (some 70 LUT RAM cells) are a gate from flip-flops.
    // Its own next value is worked out from capture_busy, an inverted copy: the loop then
    // stays off the accept net, which fans out to the whole window.
    logic snap_d;
    logic capture_free, capture_busy;
    wire  snap_d_copy = (s_axis_tvalid && s_axis_tlast && fifo_s_ready && !capture_busy)
                     || (snap_q && pending);                 // = snap_d
    always_ff @(posedge clk) begin
        capture_free <= !(snap_d_copy && pending_next);
        capture_busy <= snap_d_copy && pending_next;
    end
    assign s_axis_tready = fifo_s_ready && capture_free;
    wire accept = s_axis_tvalid && s_axis_tready;
    assign launch = snap_q && !pending;
    assign snap_d = (accept && s_axis_tlast) || (snap_q && !launch);

    logic [DATA_W-1:0] beat_bytes;
    logic [LEN_W-1:0]  beat_len;
    always_comb begin
        beat_len = '0;
        for (int i = 0; i < DATA_BYTES; i++) begin
            beat_bytes[8*i +: 8] = s_axis_tkeep[i] ? s_axis_tdata[8*i +: 8] : 8'h0;
            beat_len             = beat_len + LEN_W'(s_axis_tkeep[i]);
        end
    end

    // len + beat, saturating: the parser compares lengths up to 65535 + 76.
    wire [LEN_W:0] len_sum = {1'b0, len_q} + {1'b0, beat_len};

    always_ff @(posedge clk) begin
        if (rst) begin
            first_q <= 1'b1;
            snap_q  <= 1'b0;
            slot_q  <= WIN_BEATS'(1);
            len_q   <= '0;
        end else begin
            if (accept) begin
                first_q <= s_axis_tlast;
                slot_q  <= s_axis_tlast ? WIN_BEATS'(1) : slot_q << 1;
                if (first_q) begin
                    len_q  <= beat_len;
                end else begin
                    len_q <= len_sum[LEN_W] ? {LEN_W{1'b1}} : len_sum[LEN_W-1:0];
                end
            end
            snap_q <= snap_d;
        end
    end

    // The window past a short packet keeps the last packet's bytes: the parser reads no byte
    // past in_len (sim/tests/rss_parser.rs feeds it such junk), so they need no clearing.
    always_ff @(posedge clk) begin
        if (accept && first_q) begin
            ib_q <= s_axis_tuser;
        end
        for (int i = 0; i < WIN_BEATS; i++) begin
            if (accept && slot_q[i]) begin
                win_q[DATA_W * i +: DATA_W] <= beat_bytes;
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // Parse.
    logic             p_valid;
    logic [FLAGS-1:0] p_flags;
    rss_types_pkg::steer_key_t       p_key;

    rss_parser #(
        .LEN_W(LEN_W)
    ) u_parser (
        .clk            (clk),
        .rst            (rst),
        .in_valid       (launch),
        .in_win         (win_q),
        .in_len         (len_q),
        .in_ib          (ib_q),
        .out_valid      (p_valid),
        .out_flags      (p_flags),
        .out_ethertype  (p_key.ethertype),
        .out_l4_protocol(p_key.l4_protocol),
        .out_src        (p_key.src),
        .out_dst        (p_key.dst),
        .out_src_port   (p_key.src_port),
        .out_dst_port   (p_key.dst_port),
        .out_qpn        (p_key.qpn)
    );

    // ------------------------------------------------------------------------------------------
    // Steer.
    logic              st_valid, st_hit, st_to_queue;
    logic [RULE_W-1:0] st_rule;
    logic [15:0]       st_target;
    logic [FLAGS-1:0]  st_flags;
    // Records passed from stage to stage: each stage reads the members it needs.
    /* verilator lint_off UNUSEDSIGNAL */
    rss_types_pkg::steer_key_t        st_key;
    /* verilator lint_on UNUSEDSIGNAL */

    rss_steering #(
        .NUM_RULES(NUM_RULES),
        .PASS_W   (FLAGS + $bits(p_key))
    ) u_steering (
        .clk         (clk),
        .rst         (rst),
        .rules       (rules),
        .in_valid    (p_valid),
        .in_key      (p_key),
        .in_pass     ({p_flags, p_key}),
        .out_valid   (st_valid),
        .out_hit     (st_hit),
        .out_rule    (st_rule),
        .out_to_queue(st_to_queue),
        .out_target  (st_target),
        .out_pass    ({st_flags, st_key})
    );

    // ------------------------------------------------------------------------------------------
    // Hash: the context's fields and function now, its key one stage later (rss_hash_core).
    typedef struct packed {
        logic [CTX_W-1:0]  ctx;
        logic [4:0]        table_log2;
        logic              bank;
        logic [4:0]        hash_type;
        logic [FLAGS-1:0]  flags;
        logic              hit;
        logic [RULE_W-1:0] rule;
        logic              to_queue;
        logic [15:0]       target;
    } tag_t;

    // A queue action hashes nothing; no match and a context action use the context.
    wire [CTX_W-1:0] st_ctx = st_to_queue ? '0 : st_target[CTX_W-1:0];
    /* verilator lint_off UNUSEDSIGNAL */
    rss_types_pkg::context_t        st_cfg;   // the key is read one stage later
    /* verilator lint_on UNUSEDSIGNAL */
    assign st_cfg = contexts[st_ctx];

    logic [48*8-1:0] hin_data;
    logic [5:0]      hin_len;
    logic [4:0]      hin_type;

    rss_hash_input u_hash_input (
        .flags    (st_flags),
        .fields   (st_cfg.fields),
        .src      (st_key.src),
        .dst      (st_key.dst),
        .src_port (st_key.src_port),
        .dst_port (st_key.dst_port),
        .qpn      (st_key.qpn),
        .data     (hin_data),
        .len      (hin_len),
        .hash_type(hin_type)
    );

    tag_t st_tag, h2_tag;
    /* verilator lint_off UNUSEDSIGNAL */
    tag_t h1_tag;              // only its context selects the key
    /* verilator lint_on UNUSEDSIGNAL */
    always_comb begin
        st_tag.ctx        = st_ctx;
        st_tag.table_log2 = st_cfg.table_log2;
        st_tag.bank       = st_cfg.bank;
        st_tag.hash_type  = st_to_queue ? 5'h0 : hin_type;
        st_tag.flags      = st_flags;
        st_tag.hit        = st_hit;
        st_tag.rule       = st_rule;
        st_tag.to_queue   = st_to_queue;
        st_tag.target     = st_target;
    end

    logic        h2_valid;
    logic [31:0] h2_hash;
    /* verilator lint_off UNUSEDSIGNAL */
    logic        h1_valid;   // the key is chosen by h1_tag alone
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator lint_off UNUSEDSIGNAL */
    rss_types_pkg::context_t    h1_cfg;       // only the key is read here
    /* verilator lint_on UNUSEDSIGNAL */
    assign h1_cfg = contexts[h1_tag.ctx];

    rss_hash_core #(
        .MAX_INPUT(48),
        .TAG_W    ($bits(st_tag))
    ) u_hash (
        .clk      (clk),
        .rst      (rst),
        .en       (1'b1),
        .in_valid (st_valid),
        .in_data  (hin_data),
        .in_len   (hin_len),
        .in_xor   (st_cfg.xor_hash),
        .in_tag   (st_tag),
        .s1_valid (h1_valid),
        .s1_tag   (h1_tag),
        .key      (h1_cfg.key[415:1]),
        .out_valid(h2_valid),
        .out_hash (h2_hash),
        .out_tag  (h2_tag)
    );

    // ------------------------------------------------------------------------------------------
    // Indirect: the table read and the metadata register in the same clock.
    logic [4:0]            eff_log2;
    logic [TABLE_LOG2-1:0] index_mask;
    always_comb begin
        eff_log2   = h2_tag.table_log2 > 5'(TABLE_LOG2) ? 5'(TABLE_LOG2) : h2_tag.table_log2;
        index_mask = TABLE_LOG2'((17'd1 << eff_log2) - 17'd1);
    end

    logic [QUEUE_W-1:0] tbl_rd_ram, tbl_rd_hit_data;
    logic               tbl_rd_hit;
    rss_indirection #(
        .NUM_CONTEXTS(NUM_CONTEXTS),
        .TABLE_LOG2  (TABLE_LOG2),
        .QUEUE_W     (QUEUE_W)
    ) u_table (
        .clk    (clk),
        .wr_en  (tbl_wr_en),
        .wr_addr(tbl_wr_addr),
        .wr_data(tbl_wr_data),
        .rd_en  (h2_valid),
        .rd_addr({h2_tag.ctx, h2_tag.bank, h2_hash[TABLE_LOG2-1:0] & index_mask}),
        .rd_ram (tbl_rd_ram),
        .rd_hit (tbl_rd_hit),
        .rd_hit_data(tbl_rd_hit_data)
    );

    logic        h3_valid;
    /* verilator lint_off UNUSEDSIGNAL */
    tag_t        h3_tag;       // the table address members are spent
    /* verilator lint_on UNUSEDSIGNAL */
    logic [31:0] h3_hash;
    always_ff @(posedge clk) begin
        if (rst) begin
            h3_valid <= 1'b0;
        end else begin
            h3_valid <= h2_valid;
        end
    end
    always_ff @(posedge clk) begin
        h3_tag  <= h2_tag;
        h3_hash <= h2_tag.to_queue ? 32'h0 : h2_hash;
    end

    // ------------------------------------------------------------------------------------------
    // The FIFOs and the join.
    typedef struct packed {
        logic [FLAGS-1:0]   flags;
        logic [31:0]        hash;
        logic [4:0]         hash_type;
        logic               hit;
        logic [RULE_W-1:0]  rule;
        logic [QUEUE_W-1:0] dest_queue;
    } meta_t;

    meta_t h3_meta, out_meta;
    always_comb begin
        h3_meta.flags     = h3_tag.flags;
        h3_meta.hash      = h3_hash;
        h3_meta.hash_type = h3_tag.hash_type;
        h3_meta.hit       = h3_tag.hit;
        h3_meta.rule      = h3_tag.rule;
        h3_meta.dest_queue = tbl_rd_ram;  // or the rule's queue, or a write's: picked after h4
    end

    // Registered once more: the block RAM's read data (about 6 ns after the clock) goes straight
    // into flip-flops; the choice between it, a write to the entry as it was read, and a rule's
    // queue is made after them.
    meta_t              h4_meta;
    logic               h4_valid;
    logic               h4_to_queue;
    logic [QUEUE_W-1:0] h4_rule_queue;
    logic               h4_table_hit;
    logic [QUEUE_W-1:0] h4_table_hit_data;
    always_ff @(posedge clk) begin
        if (rst) begin
            h4_valid <= 1'b0;
        end else begin
            h4_valid <= h3_valid;
        end
    end
    always_ff @(posedge clk) begin
        h4_meta        <= h3_meta;
        h4_to_queue    <= h3_tag.to_queue;
        h4_rule_queue  <= h3_tag.target[QUEUE_W-1:0];
        h4_table_hit      <= tbl_rd_hit;
        h4_table_hit_data <= tbl_rd_hit_data;
    end
    meta_t h4_meta_out;
    always_comb begin
        h4_meta_out            = h4_meta;
        h4_meta_out.dest_queue = h4_to_queue  ? h4_rule_queue
                               : h4_table_hit ? h4_table_hit_data : h4_meta.dest_queue;
    end

    // In flight between launch and the metadata FIFO: the commit waits for zero.
    logic [4:0] inflight_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            inflight_q <= '0;
        end else begin
            inflight_q <= inflight_q + 5'(launch) - 5'(h4_valid);
        end
    end
    assign drained = inflight_q == 5'd0;

    logic                  d_valid, d_ready, d_last, d_user;
    logic [DATA_W-1:0]     d_data;
    logic [DATA_BYTES-1:0] d_keep;
    logic                  mf_valid, mf_ready;
    /* verilator lint_off UNUSEDSIGNAL */
    logic                  mf_s_ready;  // always high when h4_valid: the FIFO is big enough
    /* verilator lint_on UNUSEDSIGNAL */

    stream_fifo #(
        .WIDTH     (DATA_W + DATA_BYTES + 2),
        .DEPTH_LOG2(FIFO_LOG2)
    ) u_data_fifo (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_axis_tvalid && capture_free),
        .s_ready(fifo_s_ready),
        .s_data ({s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser}),
        .m_valid(d_valid),
        .m_ready(d_ready),
        .m_data ({d_data, d_keep, d_last, d_user})
    );

    // Every packet with metadata pending has its last beat in the data FIFO (2^FIFO_LOG2 + 1
    // beats with the output register), so twice that many entries never overflow.
    stream_fifo #(
        .WIDTH     ($bits(h3_meta)),
        .DEPTH_LOG2(FIFO_LOG2 + 1)
    ) u_meta_fifo (
        .clk    (clk),
        .rst    (rst),
        .s_valid(h4_valid),
        .s_ready(mf_s_ready),
        .s_data (h4_meta_out),
        .m_valid(mf_valid),
        .m_ready(mf_ready),
        .m_data (out_meta)
    );

    // A last beat leaves only together with its metadata.
    assign m_axis_tvalid = d_valid && (!d_last || mf_valid);
    assign d_ready       = m_axis_tready && (!d_last || mf_valid);
    assign mf_ready      = m_axis_tready && d_valid && d_last;

    assign m_axis_tdata     = d_data;
    assign m_axis_tkeep     = d_keep;
    assign m_axis_tlast     = d_last;
    assign m_axis_tuser     = d_user;
    assign m_meta_flags     = out_meta.flags;
    assign m_meta_hash      = out_meta.hash;
    assign m_meta_hash_type = out_meta.hash_type;
    assign m_meta_rule_hit  = out_meta.hit;
    assign m_meta_rule      = out_meta.rule;
    assign m_meta_queue     = out_meta.dest_queue;

endmodule

`resetall

`endif  // ROCENIC_RSS_PIPELINE_SV
