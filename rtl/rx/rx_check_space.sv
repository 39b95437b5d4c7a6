// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CHECK_SPACE_SV
`define ROCENIC_RX_CHECK_SPACE_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// rx_check's packet buffer bookkeeping: where the next beat goes, which beats the frames not
// yet released hold, and whether the input may take a beat (docs/rx.md, "rx_check (RTL)").
//
// The buffer is a ring of 2^ADDR_W beats. Frames are written one after the other from head
// and freed in order from tail: each frame's end is kept (a memory of 2^FRAMES_LOG2 entries)
// until the data path releases it. s_ready is a register, computed for the clock after from
// what this clock leaves: a beat is taken only while two beats are free (this clock's and the
// next one's), and a frame's first beat only while fewer than 2^FRAMES_LOG2 frames are held,
// from their first beat to their release, which also bounds the descriptor FIFO. A release
// when no descriptor is out is ignored; the others free their frame's beats a clock later.
module rx_check_space #(
    parameter int ADDR_W      = 11,   // log2 of the buffer's beats
    parameter int FRAMES_LOG2 = 6     // log2 of the frames the buffer may hold at once
) (
    input  wire               clk,
    input  wire               rst,          // synchronous, active high
    // the input's handshake this clock
    input  wire               accept,       // a beat is taken
    input  wire               first,        // ...the first of its frame
    input  wire               last,         // ...its last
    input  wire               store,        // ...and it goes into the buffer
    output logic              s_ready,      // a beat may be taken next clock
    output logic [ADDR_W-1:0] head,         // where the beat taken now goes
    // the output side
    input  wire               desc_taken,   // a descriptor is handed over
    input  wire               release_frame // the oldest frame handed over is done with
);

    localparam int FRAMES = 2 ** FRAMES_LOG2;
    localparam int BEATS  = 2 ** ADDR_W;

    logic [ADDR_W:0]      head_q, tail_q;   // an extra bit tells a full ring from an empty one
    logic [FRAMES_LOG2:0] held_q;           // frames from their first beat to their release
    logic [FRAMES_LOG2:0] out_q;            // descriptors handed over, not yet released
    logic                 in_frame_q;       // the next beat continues a frame
    // Each held frame's end, oldest at erp_q: in LUTs, read at once into tail_q on a release
    // (a block RAM's read would start the s_ready path 5.8 ns late).
    (* ram_style = "distributed" *)
    logic [ADDR_W:0]      ends [FRAMES];
    logic [FRAMES_LOG2-1:0] ewp_q, erp_q;

    // A release is taken into a register and applied a clock later: its fan-out then starts
    // at a flip-flop. It counts if a descriptor is out besides the one being released.
    logic rel;
    wire  rel_ok = out_q[FRAMES_LOG2:1] != '0 || (out_q[0] && !rel);

    always_ff @(posedge clk) begin
        if (accept && last) begin
            ends[ewp_q] <= head_q + (ADDR_W + 1)'(store);
        end
    end

    wire [ADDR_W:0]      used       = head_q - tail_q;
    wire                 in_frame_d = accept ? !last : in_frame_q;
    wire                 started    = accept && first;
    wire [FRAMES_LOG2:0] held_d     = held_q + (FRAMES_LOG2 + 1)'(started)
                                    - (FRAMES_LOG2 + 1)'(rel);
    // held_d < FRAMES, from held_q's compares rather than after the adder.
    wire                 room_frame = (started && !rel) ? held_q < (FRAMES_LOG2 + 1)'(FRAMES - 1)
                                    : (rel && !started) ? 1'b1
                                                        : held_q < (FRAMES_LOG2 + 1)'(FRAMES);

    always_ff @(posedge clk) begin
        if (rst) begin
            head_q     <= '0;
            tail_q     <= '0;
            held_q     <= '0;
            out_q      <= '0;
            in_frame_q <= 1'b0;
            ewp_q      <= '0;
            erp_q      <= '0;
            s_ready    <= 1'b0;
            rel        <= 1'b0;
        end else begin
            rel        <= release_frame && rel_ok;
            head_q     <= head_q + (ADDR_W + 1)'(accept && store);
            held_q     <= held_d;
            out_q      <= out_q + (FRAMES_LOG2 + 1)'(desc_taken) - (FRAMES_LOG2 + 1)'(rel);
            in_frame_q <= in_frame_d;
            ewp_q      <= ewp_q + FRAMES_LOG2'(accept && last);
            if (rel) begin
                tail_q <= ends[erp_q];
                erp_q  <= erp_q + 1'b1;
            end
            s_ready <= used <= (ADDR_W + 1)'(BEATS - 2) && (in_frame_d || room_frame);
        end
    end

    assign head = head_q[ADDR_W-1:0];

endmodule

`resetall

`endif  // ROCENIC_RX_CHECK_SPACE_SV
