// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_ERR_MERGE_SV
`define ROCENIC_WQE_ERR_MERGE_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Three sources of moves to ERR into the QP table's one err_set port: the send data path's, which
// goes first (it never waits); the reliable transport's (wqe_reliable's m_err), kept in a
// register until the data path leaves the port free (a cycle or two: the transport moves
// nothing while a command is pending, and looks at the QP's state again only several cycles
// later); and the receive path's (rx_path's err_set), which may come in any
// cycle. A receive-side move is kept as a bit per slot until it passes: in a cycle the send side
// leaves the port free and no command is pending (a command's own write to a slot wins over a
// move in the table, so a move in that cycle would be lost; the data path's never meet one, as
// no command runs while it works). None is lost; two for one slot before it passes are one move.
// The receive path waits for the slot's qp_err to show its move, so a later pass only delays it.
//
// Timing: the slot to pass and whether there is one are registered from the pending bits as
// they were (pend_q), not as they will be: the pick fed back through the bit it clears and a
// 16- to 256-bit priority encoder into its own register, 9.8 ns on the 25F (wqe_ctrl's 16-slot
// row at 102 MHz). The registered pick then lags the bits by a cycle, so a pass is never
// followed by another in the next cycle, whose pick may still be the slot just passed: at most
// one move every two cycles, which a receive path that waits for its move never notices.
module wqe_err_merge #(
    parameter  int QPS = 64,          // QP slots, a power of two, 4..256
    localparam int SW  = $clog2(QPS)
) (
    input  wire         clk,
    input  wire         rst,          // synchronous, active high
    input  wire         dp_valid,     // the send data path's move (one cycle)
    input  wire  [7:0]  dp_slot,
    input  wire         rel_valid,    // the reliable transport's move (one cycle; none while hold)
    input  wire  [7:0]  rel_slot,
    input  wire         rx_valid,     // the receive path's move (one cycle)
    input  wire  [7:0]  rx_slot,
    input  wire         hold,         // a command is pending: keep the receive side's moves
    output logic        err_valid,    // to the QP table
    output logic [7:0]  err_slot
);

    logic [QPS-1:0] pend_q, pend_n;
    logic           have_q;
    logic [SW-1:0]  pick_q;           // the lowest slot pending a cycle ago
    logic           fired_q;          // a move passed in the previous cycle

    logic           rel_q;            // the transport's move, waiting for the port
    logic [7:0]     rel_slot_q;
    wire            rel_fire = rel_q && !dp_valid;
    wire fire = have_q && !fired_q && !dp_valid && !rel_fire && !hold;

    // The lowest pending slot in two levels, each group's lowest bit and then the lowest group
    // with one: written as one loop over the slots, Yosys made a chain 21 LUTs deep at 64 slots
    // (wqe_ctrl's default row at 68.3 MHz).
    localparam int GW = QPS < 8 ? QPS : 8;   // slots per group
    localparam int NG = QPS / GW;             // groups
    logic [NG-1:0]      g_any;
    logic [NG-1:0][2:0] g_low;
    logic [SW-1:0]      pick_d;
    always_comb begin
        for (int g = 0; g < NG; g++) begin
            g_any[g] = |pend_q[g * GW +: GW];
            g_low[g] = '0;
            for (int j = GW - 1; j >= 0; j--) begin
                if (pend_q[g * GW + j]) begin
                    g_low[g] = 3'(j);
                end
            end
        end
        pick_d = '0;
        for (int g = NG - 1; g >= 0; g--) begin
            if (g_any[g]) begin
                pick_d = SW'(g * GW) + SW'(g_low[g]);
            end
        end
    end

    assign err_valid = dp_valid || rel_fire || fire;
    assign err_slot  = dp_valid ? dp_slot : rel_fire ? rel_slot_q : 8'(pick_q);

    always_comb begin
        pend_n = pend_q;
        if (fire) begin
            pend_n[pick_q] = 1'b0;
        end
        if (rx_valid && 32'(rx_slot) < QPS) begin
            pend_n[rx_slot[SW-1:0]] = 1'b1;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            pend_q  <= '0;
            have_q  <= 1'b0;
            pick_q  <= '0;
            fired_q <= 1'b0;
            rel_q   <= 1'b0;
        end else begin
            // Two of the transport's moves are many cycles apart (each ends an operation).
            if (rel_valid) begin
                rel_q      <= 1'b1;
                rel_slot_q <= rel_slot;
            end else if (rel_fire) begin
                rel_q <= 1'b0;
            end
            pend_q  <= pend_n;
            have_q  <= |pend_q;
            fired_q <= fire;
            if (g_any != '0) begin
                pick_q <= pick_d;
            end
        end
    end

endmodule

`resetall

`endif  // ROCENIC_WQE_ERR_MERGE_SV
