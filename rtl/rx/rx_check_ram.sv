// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's packet buffer: one beat per address, a write port for the frames coming in and a
// read port for the data path, in block RAM. A read's data comes out two clocks after its
// address (the RAM's registered read, then an output register), whatever else happens; a read
// of the address being written returns either beat.
module rx_check_ram #(
    parameter int DATA_W = 64,   // Bits per beat
    parameter int ADDR_W = 11    // log2 of the beats it holds
) (
    input  wire               clk,
    input  wire               wr_en,
    input  wire [ADDR_W-1:0]  wr_addr,
    input  wire [DATA_W-1:0]  wr_data,
    input  wire [ADDR_W-1:0]  rd_addr,
    output logic [DATA_W-1:0] rd_data
);

    logic [DATA_W-1:0] mem [2 ** ADDR_W];
    logic [DATA_W-1:0] rd_q;

    always_ff @(posedge clk) begin
        if (wr_en) begin
            mem[wr_addr] <= wr_data;
        end
        rd_q    <= mem[rd_addr];
        rd_data <= rd_q;
    end

endmodule

`resetall
