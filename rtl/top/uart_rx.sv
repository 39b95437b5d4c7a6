// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_UART_RX_SV
`define ROCENIC_UART_RX_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// UART receiver, 8N1, LSB first, as a valid/ready byte stream.
//
// The line goes through a two-flop synchronizer (it comes from another clock domain). A falling
// edge starts a frame; every bit is sampled once, in the middle of its bit time, counted from
// the edge. A low stop bit is a framing error: the byte is dropped and `m_err` pulses for one
// clock; the receiver waits for the line to go high before looking for the next start bit, so
// a held-low line (break) yields one error, not a stream of zero bytes.
//
// Back-pressure: a UART cannot be paused, so the output register holds one byte until it is
// taken. If the next byte completes while the register is still full, the new byte is dropped
// (the held one is kept, so m_valid never falls without a handshake) and `m_err` pulses. The
// bridge in this folder keeps m_ready high, so that never happens there.
//
// Timing: m_valid rises about half a bit time after the middle of the stop bit; all outputs
// are flip-flops.
module uart_rx #(
    parameter int CLKS_PER_BIT = 1085  // Clock cycles per bit: f_clk / baud, at least 4
) (
    input  wire       clk,
    input  wire       rst,      // synchronous, active high
    input  wire       rx,       // the line, idle high; asynchronous to clk
    // byte stream
    output wire       m_valid,
    input  wire       m_ready,
    output wire [7:0] m_data,
    output wire       m_err     // one-clock pulse: framing error or a byte lost to a full register
);

    if (CLKS_PER_BIT < 4) begin : g_bad_clks
        $error("uart_rx: CLKS_PER_BIT must be at least 4, got %0d", CLKS_PER_BIT);
    end

    localparam int CNT_W = $clog2(CLKS_PER_BIT + 1);
    localparam logic [CNT_W-1:0] HALF_BIT = CNT_W'(CLKS_PER_BIT / 2 - 1);
    localparam logic [CNT_W-1:0] FULL_BIT = CNT_W'(CLKS_PER_BIT - 1);

    // Synchronizer, reset to idle (high) so that reset never looks like a start bit.
    logic [1:0] sync_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            sync_q <= 2'b11;
        end else begin
            sync_q <= {sync_q[0], rx};
        end
    end
    wire line = sync_q[1];

    typedef enum logic [1:0] {
        S_IDLE,   // waiting for a start bit
        S_START,  // in the start bit, waiting for its middle
        S_DATA,   // sampling data bits
        S_STOP    // waiting for the middle of the stop bit
    } state_t;

    state_t          state_q;
    logic [CNT_W-1:0] cnt_q;
    logic [2:0]      bit_q;
    logic [7:0]      shift_q;
    logic            wait_high_q;  // after a framing error: wait for the line to be idle
    logic            out_valid_q;
    logic [7:0]      out_data_q;
    logic            err_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            state_q     <= S_IDLE;
            cnt_q       <= '0;
            bit_q       <= '0;
            wait_high_q <= 1'b0;
            out_valid_q <= 1'b0;
            err_q       <= 1'b0;
        end else begin
            err_q <= 1'b0;
            if (out_valid_q && m_ready) begin
                out_valid_q <= 1'b0;
            end
            case (state_q)
                S_IDLE: begin
                    if (line) begin
                        wait_high_q <= 1'b0;
                    end else if (!wait_high_q) begin
                        state_q <= S_START;
                        cnt_q   <= HALF_BIT;
                    end
                end
                S_START: begin
                    if (cnt_q != '0) begin
                        cnt_q <= cnt_q - 1'b1;
                    end else if (line) begin
                        // A glitch, not a start bit.
                        state_q <= S_IDLE;
                    end else begin
                        state_q <= S_DATA;
                        cnt_q   <= FULL_BIT;
                        bit_q   <= '0;
                    end
                end
                S_DATA: begin
                    if (cnt_q != '0) begin
                        cnt_q <= cnt_q - 1'b1;
                    end else begin
                        cnt_q <= FULL_BIT;
                        bit_q <= bit_q + 1'b1;
                        if (bit_q == 3'd7) begin
                            state_q <= S_STOP;
                        end
                    end
                end
                default: begin  // S_STOP
                    if (cnt_q != '0) begin
                        cnt_q <= cnt_q - 1'b1;
                    end else begin
                        state_q <= S_IDLE;
                        if (!line) begin
                            err_q       <= 1'b1;
                            wait_high_q <= 1'b1;
                        end else if (out_valid_q && !m_ready) begin
                            err_q <= 1'b1;
                        end else begin
                            out_valid_q <= 1'b1;
                        end
                    end
                end
            endcase
        end
    end

    // The shift register and the output byte carry no reset: they only matter with their valid.
    always_ff @(posedge clk) begin
        if (state_q == S_DATA && cnt_q == '0) begin
            shift_q <= {line, shift_q[7:1]};
        end
        if (state_q == S_STOP && cnt_q == '0 && line && !(out_valid_q && !m_ready)) begin
            out_data_q <= shift_q;
        end
    end

    assign m_valid = out_valid_q;
    assign m_data  = out_data_q;
    assign m_err   = err_q;

endmodule

`resetall

`endif  // ROCENIC_UART_RX_SV
