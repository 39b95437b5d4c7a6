// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_POWER_ON_RESET_SV
`define ROCENIC_POWER_ON_RESET_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Power-on reset for the board tops: rst is high from configuration until `ready` (the PLL's
// lock, or 1 without a PLL) has been high for 2^CYCLES_LOG2 clocks, and again whenever `ready`
// falls. `ready` is synchronized first, since a PLL's lock output is not timed to clk.
// ECP5 and iCE40 flip-flops start at their initial value after configuration, so no external
// reset pin is needed.
// A top of its own: rtl/ is a library of pipelines, and linting all of it at once finds
// several tops (the board tops in rtl/top/boards/ pick theirs).
/* verilator lint_off MULTITOP */
module power_on_reset #(
/* verilator lint_on MULTITOP */
    parameter int CYCLES_LOG2 = 10  // log2 of the clocks `ready` must stay high
) (
    input  wire clk,
    input  wire ready,   // asynchronous
    output wire rst      // synchronous, active high
);

    logic [1:0]             sync_q  = 2'b00;
    logic [CYCLES_LOG2:0]   count_q = '0;  // the top bit set means done

    always_ff @(posedge clk) begin
        sync_q <= {sync_q[0], ready};
        if (!sync_q[1]) begin
            count_q <= '0;
        end else if (!count_q[CYCLES_LOG2]) begin
            count_q <= count_q + 1'b1;
        end
    end

    assign rst = !count_q[CYCLES_LOG2];

endmodule

`resetall

`endif  // ROCENIC_POWER_ON_RESET_SV
