// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Two sources of moves to ERR into the QP table's one err_set port: the send data path's, which
// goes first (it never waits), and the receive path's (rx_path's err_set), which may come in any
// cycle. A receive-side move is kept as a bit per slot until it passes: in a cycle the send side
// leaves the port free and no command is pending (a command's own write to a slot wins over a
// move in the table, so a move in that cycle would be lost; the data path's never meet one, as
// no command runs while it works). None is lost; two for one slot before it passes are one move.
// The receive path waits for the slot's qp_err to show its move, so a later pass only delays it.
module wqe_err_merge #(
    parameter  int QPS = 64,          // QP slots, a power of two, 4..256
    localparam int SW  = $clog2(QPS)
) (
    input  wire         clk,
    input  wire         rst,          // synchronous, active high
    input  wire         dp_valid,     // the send data path's move (one cycle)
    input  wire  [7:0]  dp_slot,
    input  wire         rx_valid,     // the receive path's move (one cycle)
    input  wire  [7:0]  rx_slot,
    input  wire         hold,         // a command is pending: keep the receive side's moves
    output logic        err_valid,    // to the QP table
    output logic [7:0]  err_slot
);

    logic [QPS-1:0] pend_q, pend_n;
    logic           have_q;
    logic [SW-1:0]  pick_q;           // the lowest pending slot, registered

    wire fire = have_q && !dp_valid && !hold;

    assign err_valid = dp_valid || fire;
    assign err_slot  = dp_valid ? dp_slot : 8'(pick_q);

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
            pend_q <= '0;
            have_q <= 1'b0;
            pick_q <= '0;
        end else begin
            pend_q <= pend_n;
            have_q <= |pend_n;
            for (int s = QPS - 1; s >= 0; s--) begin
                if (pend_n[s]) begin
                    pick_q <= SW'(s);
                end
            end
        end
    end

endmodule

`resetall
