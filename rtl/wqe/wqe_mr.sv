// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_MR_SV
`define ROCENIC_WQE_MR_SV
`include "rtl/wqe/wqe_mr_ram.sv"
`include "rtl/wqe/wqe_mr_cmp.sv"
`include "rtl/common/stream_fifo.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The memory-region check: every gather entry of a WQE is looked up here before any DMA, with
// the answer of model::qp::MrTable::check (docs/qp.md, "Memory regions and the protection
// check"; docs/wqe-mr.md, "Memory-region check (RTL)").
//
// The table does not search by key. An lkey's slot is lkey[MR_IDX_LSB +: log2(MRS)] (mlx5's
// mkey convention: the index above a key byte), and the slot's stored lkey must equal the whole
// lkey asked for. So two regions whose lkeys share those bits cannot both be registered
// (model::qp::mr_lkeys_fit); the writer (the register block) refuses the second, and puts each
// region in its own lkey's slot (a region written in another slot is never found).
//
// Table writes (wr_en for one cycle): wr_valid 1 stores the region in wr_slot, 0 frees the slot.
// The region is [wr_base, wr_base + wr_length); the table keeps its end as a 65-bit number, so a
// region may end exactly at 2^64. A range the model refuses to register stays harmless here: a
// length of 0 is an empty region (every lookup fails), and an end past 2^64 is cut at 2^64, so
// no lookup ever passes a range that wraps. Reset frees every slot.
//
// Lookups: a request (lkey, pd, addr, len, access needed, tag) on s_req, its answer (status,
// tag) on m_res, in request order, one per clock sustained. The status, in the model's order:
//   len 0 or above 2^31                                            1 loc_len_err
//   slot free, another lkey, another PD, a right of s_req_access
//   missing, addr < base, or addr + len past the region's end      4 loc_prot_err
//   else                                                           0 success
// Bounds are compared as 65-bit numbers (addr + len never wraps), which is the model's
// addr >= base and len <= length - (addr - base).
//
// Writes against lookups: a lookup sees every write made in its own accepting clock or before,
// and none made after (a write and a lookup in the same clock: the new entry).
//
// Pipeline (a request accepted in cycle c is answered in cycle c + 7 at the earliest):
//   r0  the request, registered
//   r1  addr + len and the length check; the RAM read is issued with the slot
//   r2  the RAM's read data. A write reaching the same slot at that edge (hit) makes the read
//       data undefined; the written entry decides instead, compared with the request now
//       (wqe_mr_cmp), and the slot's valid bit is the write's, else the flip-flops'
//   r3  the read data registered as it leaves the block RAM (it comes about 6 ns into the 8 ns
//       clock, which leaves no room for logic)
//   r4  lkey, PD, rights and the two bounds (in 32-bit halves) compared with the read entry;
//       after the register the halves are combined, and the status (from the written entry's
//       comparison on a hit) goes into the answer FIFO
// The pipeline never stalls: s_req_ready is held low once the answers accepted but not yet
// taken would fill the FIFO, so every request in flight has a place there.
// A top of its own (rtl/ is a library of pipelines).
/* verilator lint_off MULTITOP */
module wqe_mr
/* verilator lint_on MULTITOP */
#(
    parameter  int MRS        = 64,   // Table entries, a power of two, 2..256
    parameter  int MR_IDX_LSB = 8,    // Lowest lkey bit of the slot index
    parameter  int TAG_W      = 8,    // Width of the tag a lookup carries to its answer
    localparam int MW         = $clog2(MRS)
) (
    input  wire              clk,
    input  wire              rst,            // synchronous, active high
    // table writes
    input  wire              wr_en,          // one cycle per write
    input  wire [MW-1:0]     wr_slot,
    input  wire              wr_valid,       // 1: store the region; 0: free the slot
    input  wire [31:0]       wr_lkey,
    input  wire [63:0]       wr_base,
    input  wire [63:0]       wr_length,      // base + length <= 2^64
    input  wire [31:0]       wr_pd,
    input  wire [3:0]        wr_access,      // verbs bits (model::qp::Access)
    // lookups
    input  wire              s_req_valid,
    output logic             s_req_ready,
    input  wire [31:0]       s_req_lkey,
    input  wire [31:0]       s_req_pd,
    input  wire [63:0]       s_req_addr,
    input  wire [31:0]       s_req_len,
    input  wire [3:0]        s_req_access,   // rights needed (0 for a send's gather entry)
    input  wire [TAG_W-1:0]  s_req_tag,
    // answers
    output logic             m_res_valid,
    input  wire              m_res_ready,
    output logic [4:0]       m_res_status,   // model::qp::Status code: 0, 1 or 4
    output logic [TAG_W-1:0] m_res_tag
);

    if (MRS < 2 || MRS > 256 || (MRS & (MRS - 1)) != 0) begin : g_bad_mrs
        $error("wqe_mr: MRS must be a power of two, 2..256, got %0d", MRS);
    end
    if (MR_IDX_LSB < 0 || MR_IDX_LSB + MW > 32) begin : g_bad_idx
        $error("wqe_mr: the slot bits lkey[%0d +: %0d] must lie in 32 bits", MR_IDX_LSB, MW);
    end
    if (TAG_W < 1) begin : g_bad_tag
        $error("wqe_mr: TAG_W must be at least 1, got %0d", TAG_W);
    end

    // model::qp::Status codes.
    localparam logic [4:0] ST_SUCCESS      = 5'd0;
    localparam logic [4:0] ST_LOC_LEN_ERR  = 5'd1;
    localparam logic [4:0] ST_LOC_PROT_ERR = 5'd4;
    localparam logic [31:0] MAX_MSG_SIZE   = 32'h8000_0000;

    // The answer FIFO: 2^FIFO_LOG2 entries in its RAM and one in its output register. Up to
    // IN_FLIGHT requests may be accepted and not yet answered, more than the pipeline's depth
    // plus the clock that s_req_ready takes, so that one lookup per clock flows.
    localparam int FIFO_LOG2 = 4;
    localparam int IN_FLIGHT = 2 ** FIFO_LOG2;

    typedef struct packed {
        logic [31:0] lkey;
        logic [31:0] pd;
        logic [3:0]  access;
        logic [63:0] base;
        logic [64:0] lim;      // base + length, at most 2^64
    } entry_t;

    // ---- Writes: w1 registers the port, w2 holds the entry as stored -----------------------
    logic          w1_en, w1_valid;
    logic [MW-1:0] w1_slot;
    logic [31:0]   w1_lkey, w1_pd;
    logic [3:0]    w1_access;
    logic [63:0]   w1_base, w1_length;
    logic          w2_en, w2_valid;
    logic [MW-1:0] w2_slot;
    entry_t        w2_entry;

    wire [64:0] w1_sum = {1'b0, w1_base} + {1'b0, w1_length};

    always_ff @(posedge clk) begin
        if (rst) begin
            w1_en <= 1'b0;
            w2_en <= 1'b0;
        end else begin
            w1_en <= wr_en;
            w2_en <= w1_en;
        end
    end

    always_ff @(posedge clk) begin
        w1_valid  <= wr_valid;
        w1_slot   <= wr_slot;
        w1_lkey   <= wr_lkey;
        w1_pd     <= wr_pd;
        w1_access <= wr_access;
        w1_base   <= wr_base;
        w1_length <= wr_length;

        w2_valid        <= w1_valid;
        w2_slot         <= w1_slot;
        w2_entry.lkey   <= w1_lkey;
        w2_entry.pd     <= w1_pd;
        w2_entry.access <= w1_access;
        w2_entry.base   <= w1_base;
        // Cut at 2^64: any sum with bit 64 set becomes exactly 2^64.
        w2_entry.lim    <= {w1_sum[64], w1_sum[63:0] & ~{64{w1_sum[64]}}};
    end

    // Which slots hold a region: flip-flops, so that reset empties the table.
    logic [MRS-1:0] in_use_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            in_use_q <= '0;
        end else if (w2_en) begin
            in_use_q[w2_slot] <= w2_valid;
        end
    end

    // ---- Lookups ---------------------------------------------------------------------------
    logic             r0_valid;
    logic [31:0]      r0_lkey, r0_pd, r0_len;
    logic [63:0]      r0_addr;
    logic [3:0]       r0_access;
    logic [TAG_W-1:0] r0_tag;

    // The request's fields from r1 on.
    typedef struct packed {
        logic [31:0]      lkey;
        logic [31:0]      pd;
        logic [63:0]      addr;
        logic [64:0]      lim;      // addr + len
        logic [3:0]       access;
        logic             len_bad;
        logic [TAG_W-1:0] tag;
    } req_t;

    logic       r1_valid, r2_valid, r3_valid, r4_valid;
    req_t       r1, r2, r3;
    entry_t     ram_rd, r3_ram;
    // Whether the slot holds a region (from the flip-flops; the write's own bit on a hit).
    logic       r2_in_use, r3_in_use, r4_in_use;
    // A write reached the slot at the RAM read's edge: the RAM's read data is undefined and the
    // written entry decides, compared as it is written.
    logic       r2_hit, r3_hit, r4_hit;
    logic [8:0] r2_hit_ok, r3_hit_ok, r4_hit_ok, r4_ram_ok;
    logic       r4_len_bad;
    logic [TAG_W-1:0] r4_tag;

    wire [MW-1:0] r1_slot = r1.lkey[MR_IDX_LSB +: MW];
    wire          r1_hit  = w2_en && w2_slot == r1_slot;

    wqe_mr_ram #(
        .WIDTH($bits(w2_entry)),
        .DEPTH(MRS)
    ) u_ram (
        .clk    (clk),
        .wr_en  (w2_en),
        .wr_addr(w2_slot),
        .wr_data(w2_entry),
        .rd_en  (1'b1),
        .rd_addr(r1_slot),
        .rd_data(ram_rd)
    );

    logic [8:0] hit_ok, ram_ok;

    wqe_mr_cmp u_hit_cmp (
        .req_lkey  (r1.lkey),
        .req_pd    (r1.pd),
        .req_addr  (r1.addr),
        .req_lim   (r1.lim),
        .req_access(r1.access),
        .ent_lkey  (w2_entry.lkey),
        .ent_pd    (w2_entry.pd),
        .ent_access(w2_entry.access),
        .ent_base  (w2_entry.base),
        .ent_lim   (w2_entry.lim),
        .part      (hit_ok)
    );

    wqe_mr_cmp u_ram_cmp (
        .req_lkey  (r3.lkey),
        .req_pd    (r3.pd),
        .req_addr  (r3.addr),
        .req_lim   (r3.lim),
        .req_access(r3.access),
        .ent_lkey  (r3_ram.lkey),
        .ent_pd    (r3_ram.pd),
        .ent_access(r3_ram.access),
        .ent_base  (r3_ram.base),
        .ent_lim   (r3_ram.lim),
        .part      (ram_ok)
    );

    always_ff @(posedge clk) begin
        if (rst) begin
            r0_valid <= 1'b0;
            r1_valid <= 1'b0;
            r2_valid <= 1'b0;
            r3_valid <= 1'b0;
            r4_valid <= 1'b0;
        end else begin
            r0_valid <= s_req_valid && s_req_ready;
            r1_valid <= r0_valid;
            r2_valid <= r1_valid;
            r3_valid <= r2_valid;
            r4_valid <= r3_valid;
        end
    end

    // Data registers carry no reset: they matter only while their valid bit is set.
    always_ff @(posedge clk) begin
        r0_lkey   <= s_req_lkey;
        r0_pd     <= s_req_pd;
        r0_addr   <= s_req_addr;
        r0_len    <= s_req_len;
        r0_access <= s_req_access;
        r0_tag    <= s_req_tag;

        r1.lkey    <= r0_lkey;
        r1.pd      <= r0_pd;
        r1.addr    <= r0_addr;
        r1.lim     <= {1'b0, r0_addr} + {33'b0, r0_len};
        r1.access  <= r0_access;
        r1.len_bad <= r0_len == 32'd0 || r0_len > MAX_MSG_SIZE;
        r1.tag     <= r0_tag;

        r2        <= r1;
        r2_hit    <= r1_hit;
        r2_hit_ok <= hit_ok;
        r2_in_use <= r1_hit ? w2_valid : in_use_q[r1_slot];

        r3        <= r2;
        r3_ram    <= ram_rd;
        r3_hit    <= r2_hit;
        r3_hit_ok <= r2_hit_ok;
        r3_in_use <= r2_in_use;

        r4_ram_ok  <= ram_ok;
        r4_hit     <= r3_hit;
        r4_hit_ok  <= r3_hit_ok;
        r4_in_use  <= r3_in_use;
        r4_len_bad <= r3.len_bad;
        r4_tag     <= r3.tag;
    end

    // The entry that decides, and all five conditions from wqe_mr_cmp's halves.
    wire [8:0] r4_part = r4_hit ? r4_hit_ok : r4_ram_ok;
    wire       r4_pass = r4_part[8] && r4_part[7] && r4_part[6]
                      && (r4_part[5] || (r4_part[4] && r4_part[3]))
                      && (r4_part[2] || (r4_part[1] && r4_part[0]));

    logic [4:0] r4_status;
    always_comb begin
        if (r4_len_bad) begin
            r4_status = ST_LOC_LEN_ERR;
        end else if (r4_in_use && r4_pass) begin
            r4_status = ST_SUCCESS;
        end else begin
            r4_status = ST_LOC_PROT_ERR;
        end
    end

    // ---- Answers ---------------------------------------------------------------------------
    // Requests accepted and not yet answered, 0..IN_FLIGHT.
    logic [FIFO_LOG2:0] in_flight_q;
    wire                accept  = s_req_valid && s_req_ready;
    wire                deliver = m_res_valid && m_res_ready;
    wire [FIFO_LOG2:0]  in_flight_d = in_flight_q + (FIFO_LOG2 + 1)'(accept)
                                    - (FIFO_LOG2 + 1)'(deliver);

    always_ff @(posedge clk) begin
        if (rst) begin
            in_flight_q <= '0;
            s_req_ready <= 1'b0;
        end else begin
            in_flight_q <= in_flight_d;
            s_req_ready <= in_flight_d < (FIFO_LOG2 + 1)'(IN_FLIGHT);
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    logic fifo_s_ready;   // always high when r4_valid: the FIFO holds every request in flight
    /* verilator lint_on UNUSEDSIGNAL */

    stream_fifo #(
        .WIDTH     (5 + TAG_W),
        .DEPTH_LOG2(FIFO_LOG2)
    ) u_answers (
        .clk    (clk),
        .rst    (rst),
        .s_valid(r4_valid),
        .s_ready(fifo_s_ready),
        .s_data ({r4_status, r4_tag}),
        .m_valid(m_res_valid),
        .m_ready(m_res_ready),
        .m_data ({m_res_status, m_res_tag})
    );

endmodule

`resetall

`endif  // ROCENIC_WQE_MR_SV
