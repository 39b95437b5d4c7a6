// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_RR_SV
`define ROCENIC_WQE_RR_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Round robin over N requests: the first request at or after `next` in index order, wrapping to
// the first one overall (the order of model::wqe::Queues::step).
//
// Three registered stages, so that 64 or 256 requests meet 125 MHz (a plain priority chain over
// 64 is about fourteen LUT levels): the requests are cut into groups of GS. Stage 1 registers,
// for every group, whether it has a request and its lowest one, and the same for the group that
// holds `next` with the requests below `next` masked off. Stage 2 chooses: that masked group if
// it has a request, else the first group above it with one, else the first group with one.
// Stage 3 registers the index.
//
// Timing: req and next of cycle c give any1_q in c + 1, any2_q in c + 2, found_q and index_q in
// c + 3.
module wqe_rr #(
    parameter  int N  = 64,                                      // requests, a power of two, 4..256
    localparam int W  = $clog2(N),                               // index width
    localparam int GS = N >= 128 ? 16 : N >= 16 ? 8 : N / 2,     // group size
    localparam int G  = N / GS,                                  // groups, 2..16
    localparam int LW = $clog2(GS),                              // index within a group
    localparam int GW = $clog2(G)                                // group index
) (
    input  wire          clk,
    input  wire          rst,       // synchronous, active high
    input  wire [N-1:0]  req,
    input  wire [W-1:0]  next,
    output logic         any1_q,    // stage 1: some request in c - 1
    output logic         any2_q,    // stage 2: some request in c - 2
    output logic         found_q,   // stage 3: some request in c - 3...
    output logic [W-1:0] index_q    // ...and the chosen one
);

    if (N < 4 || N > 256 || (N & (N - 1)) != 0) begin : g_bad_n
        $error("wqe_rr: N must be a power of two, 4..256, got %0d", N);
    end

    // The lowest set bit of a small vector, and whether there is one.
    function automatic logic [LW:0] lowest_in_group(input logic [GS-1:0] v);
        lowest_in_group = '0;
        for (int i = GS - 1; i >= 0; i--) begin
            if (v[i]) lowest_in_group = {1'b1, LW'(i)};
        end
    endfunction

    function automatic logic [GW:0] lowest_group(input logic [G-1:0] v);
        lowest_group = '0;
        for (int i = G - 1; i >= 0; i--) begin
            if (v[i]) lowest_group = {1'b1, GW'(i)};
        end
    endfunction

    // ------------------------------------------------------------------------------------------
    // Stage 1.
    wire [GW-1:0] gn   = next[W-1:LW];
    wire [LW-1:0] off  = next[LW-1:0];
    wire [GS-1:0] part = req[GS * gn +: GS] & ({GS{1'b1}} << off);
    wire [LW:0]   part_low = lowest_in_group(part);

    logic [G-1:0]   grp_any_q;
    logic [LW-1:0]  grp_low_q [G];
    logic           part_any_q;
    logic [LW-1:0]  part_low_q;
    logic [GW-1:0]  gn_q;

    for (genvar g = 0; g < G; g++) begin : g_group
        wire [LW:0] low = lowest_in_group(req[GS * g +: GS]);
        always_ff @(posedge clk) begin
            grp_any_q[g] <= low[LW];
            grp_low_q[g] <= low[LW-1:0];
        end
    end

    always_ff @(posedge clk) begin
        part_any_q <= part_low[LW];
        part_low_q <= part_low[LW-1:0];
        gn_q       <= gn;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            any1_q <= 1'b0;
        end else begin
            any1_q <= |req;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Stage 2: which group, registered with what stage 3 chooses from.
    wire [G-1:0] above     = grp_any_q & (({G{1'b1}} << gn_q) << 1);
    wire [GW:0]  first_up  = lowest_group(above);
    wire [GW:0]  first_any = lowest_group(grp_any_q);

    logic           use_part_q;
    logic [GW-1:0]  grp_q, gn2_q;
    logic [LW-1:0]  part_low2_q;
    logic [LW-1:0]  grp_low2_q [G];

    always_ff @(posedge clk) begin
        if (rst) begin
            any2_q <= 1'b0;
        end else begin
            any2_q <= first_any[GW];
        end
        use_part_q  <= part_any_q;
        grp_q       <= first_up[GW] ? first_up[GW-1:0] : first_any[GW-1:0];
        gn2_q       <= gn_q;
        part_low2_q <= part_low_q;
        for (int g = 0; g < G; g++) grp_low2_q[g] <= grp_low_q[g];
    end

    // ------------------------------------------------------------------------------------------
    // Stage 3: the index.
    always_ff @(posedge clk) begin
        if (rst) begin
            found_q <= 1'b0;
        end else begin
            found_q <= any2_q;
        end
        index_q <= use_part_q ? {gn2_q, part_low2_q} : {grp_q, grp_low2_q[grp_q]};
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_RR_SV
