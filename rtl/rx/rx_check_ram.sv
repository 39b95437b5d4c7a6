// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_RAM_SV
`define ROCENIC_RX_CHECK_RAM_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's packet buffer: one beat per address, a write port for the frames coming in and a
// read port for the data path, in block RAM. A read's data comes out two clocks after its
// address (the RAM's registered read, then an output register), whatever else happens; a read
// of the address being written returns either beat.
//
// One RAM per byte lane: 2^11 bytes fill an ECP5 block RAM in its 2048 x 9 shape, so each
// lane's read data goes straight into the output register. Yosys does not use the block's own
// output register, and the RAM's read data is late (5.8 ns after the clock): a multiplexer
// between the blocks of a deeper, narrower shape did not fit the clock.
module rx_check_ram #(
    parameter int DATA_W = 64,   // Bits per beat, a multiple of 8
    parameter int ADDR_W = 11    // log2 of the beats it holds
) (
    input  wire               clk,
    input  wire               wr_en,
    input  wire [ADDR_W-1:0]  wr_addr,
    input  wire [DATA_W-1:0]  wr_data,
    input  wire [ADDR_W-1:0]  rd_addr,
    output logic [DATA_W-1:0] rd_data
);

    for (genvar i = 0; i < DATA_W / 8; i++) begin : g_lane
        // Nothing reads the beat being written: no logic to settle such a collision.
        (* no_rw_check *) logic [7:0] mem [2 ** ADDR_W];
        logic [7:0] rd_q;

        always_ff @(posedge clk) begin
            if (wr_en) begin
                mem[wr_addr] <= wr_data[8*i +: 8];
            end
            rd_q               <= mem[rd_addr];
            rd_data[8*i +: 8] <= rd_q;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_RAM_SV
