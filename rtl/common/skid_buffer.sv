// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_SKID_BUFFER_SV
`define ROCENIC_SKID_BUFFER_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Valid/ready register slice with a skid register.
//
// Both s_ready and m_valid come straight from flip-flops, so a chain of modules joined through
// this slice has no combinational path from a sink's ready back to a source, nor from a source's
// valid forward to a sink. Because s_ready is a register it can only tell the source about the
// sink one cycle late; the skid register catches the one beat the source may send in that cycle,
// so nothing is lost, and one beat per clock still flows while the sink is ready.
//
// Invariant: s_ready_q == !skid_valid_q, except in reset and the cycle after it. The skid
// register only fills while the output register is full and stalled, and the output register
// stays full while the skid register holds a beat.
module skid_buffer #(
    parameter int WIDTH = 8  // Width of the data word in bits
) (
    input  wire             clk,
    input  wire             rst,      // synchronous, active high
    // input stream
    input  wire             s_valid,
    output wire             s_ready,
    input  wire [WIDTH-1:0] s_data,
    // output stream
    output wire             m_valid,
    input  wire             m_ready,
    output wire [WIDTH-1:0] m_data
);

    if (WIDTH < 1) begin : g_bad_width
        // No %m: Verilator 5.006 cannot print a scope name at elaboration time.
        $error("skid_buffer: WIDTH must be at least 1, got %0d", WIDTH);
    end

    logic             s_ready_q;
    logic             out_valid_q;
    logic [WIDTH-1:0] out_data_q;
    logic             skid_valid_q;
    logic [WIDTH-1:0] skid_data_q;

    logic             s_ready_d;
    logic             out_valid_d;
    logic             skid_valid_d;
    logic             load_out_from_s;
    logic             load_out_from_skid;
    logic             load_skid;

    always_comb begin
        out_valid_d        = out_valid_q;
        skid_valid_d       = skid_valid_q;
        load_out_from_s    = 1'b0;
        load_out_from_skid = 1'b0;
        load_skid          = 1'b0;
        if (s_ready_q) begin
            // The skid register is empty: a beat offered now is ours whatever the sink does.
            if (!out_valid_q || m_ready) begin
                out_valid_d     = s_valid;
                load_out_from_s = s_valid;
            end else if (s_valid) begin
                // Output stalled: park the beat we already promised to take.
                skid_valid_d = 1'b1;
                load_skid    = 1'b1;
            end
        end else if (skid_valid_q && m_ready) begin
            // Skid full (so the output is full too): the sink takes the output, the parked beat
            // moves up, and the source may send again next cycle.
            load_out_from_skid = 1'b1;
            skid_valid_d       = 1'b0;
        end
        s_ready_d = !skid_valid_d;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            // Held low during reset so that no beat is accepted and then discarded.
            s_ready_q    <= 1'b0;
            out_valid_q  <= 1'b0;
            skid_valid_q <= 1'b0;
        end else begin
            s_ready_q    <= s_ready_d;
            out_valid_q  <= out_valid_d;
            skid_valid_q <= skid_valid_d;
        end
    end

    // Data registers carry no reset: their contents only matter while the matching valid is set.
    always_ff @(posedge clk) begin
        if (load_out_from_s) begin
            out_data_q <= s_data;
        end else if (load_out_from_skid) begin
            out_data_q <= skid_data_q;
        end
        if (load_skid) begin
            skid_data_q <= s_data;
        end
    end

    assign s_ready = s_ready_q;
    assign m_valid = out_valid_q;
    assign m_data  = out_data_q;

endmodule

`resetall

`endif  // ROCENIC_SKID_BUFFER_SV
