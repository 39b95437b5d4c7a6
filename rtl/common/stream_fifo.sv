// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Synchronous valid/ready FIFO: 2^DEPTH_LOG2 entries in a RAM with a registered read (block RAM
// on FPGAs), plus an output register, so the head is presented first-word-fall-through.
//
// s_ready and m_valid are flip-flops; nothing combinational runs from m_ready to s_ready or from
// s_valid to m_valid. An entry written in cycle c is on m_data in cycle c + 2 at the earliest;
// one entry per clock in and out while neither side stalls.
module stream_fifo #(
    parameter int WIDTH      = 8,   // Entry width in bits
    parameter int DEPTH_LOG2 = 4    // log2 of the RAM entries (the output register adds one)
) (
    input  wire              clk,
    input  wire              rst,      // synchronous, active high
    input  wire              s_valid,
    output logic             s_ready,
    input  wire [WIDTH-1:0]  s_data,
    output logic             m_valid,
    input  wire              m_ready,
    output logic [WIDTH-1:0] m_data
);

    localparam int DEPTH = 2 ** DEPTH_LOG2;

    // An entry is read only while the RAM holds it and written only while it does not, so a
    // read never meets a write to its entry: no_rw_check keeps Yosys from adding a bypass
    // behind a block RAM's late read data.
    (* no_rw_check *) logic [WIDTH-1:0] mem [DEPTH];
    logic [DEPTH_LOG2:0] wr_ptr_q, rd_ptr_q;   // one extra bit tells full from empty

    // s_ready's own copy for the writes, so that the RAM's write enables and the pointer do not
    // load the output's net. It is kept inverted, which keeps synthesis from merging the two.
    logic full_q;
    wire push     = s_valid && !full_q;
    // Whether the RAM holds an entry (wr_ptr_q != rd_ptr_q), as a register, so that the pop,
    // which loads the whole output register, waits for one gate rather than a compare.
    logic ram_some_q;
    wire ram_some = ram_some_q;
    // Move the RAM's head to the output register when that is empty or being emptied.
    wire pop      = ram_some && (!m_valid || m_ready);

    always_ff @(posedge clk) begin
        if (push) begin
            mem[wr_ptr_q[DEPTH_LOG2-1:0]] <= s_data;
        end
        if (pop) begin
            m_data <= mem[rd_ptr_q[DEPTH_LOG2-1:0]];
        end
    end

    wire [DEPTH_LOG2:0] used     = wr_ptr_q - rd_ptr_q;   // entries in the RAM, 0 to DEPTH
    wire [DEPTH_LOG2:0] wr_ptr_d = wr_ptr_q + (DEPTH_LOG2 + 1)'(push);
    wire [DEPTH_LOG2:0] rd_ptr_d = rd_ptr_q + (DEPTH_LOG2 + 1)'(pop);
    // Full next when one entry was free and one is written without one read, or it is full and
    // none is read. The occupancy comes from the registered pointers alone, so push and pop
    // reach s_ready through one gate rather than two incrementers.
    wire full_d = (used == (DEPTH_LOG2 + 1)'(DEPTH - 1) && push && !pop)
               || (used == (DEPTH_LOG2 + 1)'(DEPTH) && !pop);
    // Some entry next: one is written (it cannot be the one read), or none is read and there
    // was one, or one is read and there were two or more; push and pop meet it at one gate.
    wire ram_some_d = push || (pop ? used != (DEPTH_LOG2 + 1)'(1) : ram_some_q);

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_ptr_q <= '0;
            rd_ptr_q <= '0;
            m_valid  <= 1'b0;
            s_ready  <= 1'b0;
            full_q   <= 1'b1;
            ram_some_q <= 1'b0;
        end else begin
            wr_ptr_q <= wr_ptr_d;
            rd_ptr_q <= rd_ptr_d;
            ram_some_q <= ram_some_d;
            m_valid  <= pop || (m_valid && !m_ready);
            s_ready  <= !full_d;
            full_q   <= full_d;
        end
    end

endmodule

`resetall
