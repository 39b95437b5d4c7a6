// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_STREAM_FIFO_SV
`define ROCENIC_STREAM_FIFO_SV
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
    parameter int DEPTH_LOG2 = 4,   // log2 of the RAM entries (the output register adds one)
    // Slices of the entry, each with its own copy of the RAM's addresses, write enable and the
    // output register's load (1: none). For a wide entry (the WQE engine's commit queue, 1,170
    // bits in 293 LUT RAMs) one address and one load are nets to hundreds of RAMs and a
    // thousand flip-flops' enables, which the placer spreads out.
    parameter int COPIES     = 1
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
    wire m_valid_d  = pop || (m_valid && !m_ready);

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
            m_valid  <= m_valid_d;
            s_ready  <= !full_d;
            full_q   <= full_d;
        end
    end

    // The RAM and the output register. An entry is read only while the RAM holds it and written
    // only while it does not, so a read never meets a write to its entry: no_rw_check keeps
    // Yosys from adding a bypass behind a block RAM's late read data.
    if (COPIES == 1) begin : g_one
        (* no_rw_check *) logic [WIDTH-1:0] mem [DEPTH];
        always_ff @(posedge clk) begin
            if (push) begin
                mem[wr_ptr_q[DEPTH_LOG2-1:0]] <= s_data;
            end
            if (pop) begin
                m_data <= mem[rd_ptr_q[DEPTH_LOG2-1:0]];
            end
        end
    end else begin : g_copies
        localparam int SLICE = (WIDTH + COPIES - 1) / COPIES;
        for (genvar c = 0; c < COPIES; c++) begin : g_slice
            localparam int LO = c * SLICE;
            localparam int W  = LO + SLICE > WIDTH ? WIDTH - LO : SLICE;
            (* no_rw_check *) logic [W-1:0] smem [DEPTH];
            // keep: the copies are alike, and Yosys would merge them back into one.
            (* keep *) logic [DEPTH_LOG2-1:0] wa_q, ra_q;
            (* keep *) logic full_c_q, some_c_q, valid_c_q;
            wire push_c = s_valid && !full_c_q;
            wire pop_c  = some_c_q && (!valid_c_q || m_ready);
            always_ff @(posedge clk) begin
                if (push_c) begin
                    smem[wa_q] <= s_data[LO +: W];
                end
                if (pop_c) begin
                    m_data[LO +: W] <= smem[ra_q];
                end
                wa_q      <= wr_ptr_d[DEPTH_LOG2-1:0];
                ra_q      <= rd_ptr_d[DEPTH_LOG2-1:0];
                full_c_q  <= full_d;
                some_c_q  <= ram_some_d;
                valid_c_q <= m_valid_d;
                if (rst) begin
                    wa_q      <= '0;
                    ra_q      <= '0;
                    full_c_q  <= 1'b1;
                    some_c_q  <= 1'b0;
                    valid_c_q <= 1'b0;
                end
            end
        end
    end

endmodule

`resetall

`endif  // ROCENIC_STREAM_FIFO_SV
