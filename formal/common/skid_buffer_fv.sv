// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Formal harness of rtl/common/skid_buffer.sv (formal/common/skid_buffer.sby).
//
// Assumed of the source: the valid/ready rules (valid held and data stable until the
// handshake). Proved of the buffer:
//   protocol (task prove, unbounded by k-induction): the same rules on its output (no valid
//     drop without a handshake, stable data while stalled), ready and valid low after reset;
//   FIFO (task bmc, bounded; the buffer has six control states, all reached within the bound):
//     no overflow and no loss: at most two beats inside (output and skid register), a full
//     buffer is not ready, an empty one is, and the beats come out in the order and with the
//     data they went in, checked against a two-entry shadow FIFO kept here.
module skid_buffer_fv #(
    parameter int WIDTH = 4  // Data width; the properties do not depend on it
) (
    input wire             clk,
    input wire             rst,
    input wire             s_valid,
    input wire [WIDTH-1:0] s_data,
    input wire             m_ready
);

    wire             s_ready;
    wire             m_valid;
    wire [WIDTH-1:0] m_data;

    skid_buffer #(
        .WIDTH(WIDTH)
    ) dut (
        .clk    (clk),
        .rst    (rst),
        .s_valid(s_valid),
        .s_ready(s_ready),
        .s_data (s_data),
        .m_valid(m_valid),
        .m_ready(m_ready),
        .m_data (m_data)
    );

    logic past_ok = 1'b0;  // a previous cycle exists
    always_ff @(posedge clk) past_ok <= 1'b1;

    // Start in reset.
    always @* if (!past_ok) assume (rst);

    // The source obeys the rules; the output is held to them.
    stream_rules #(.W(WIDTH), .SOURCE(1)) u_in_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(s_valid), .ready(s_ready), .data(s_data)
    );
    stream_rules #(.W(WIDTH), .SOURCE(0)) u_out_rules (
        .clk(clk), .rst(rst), .past_ok(past_ok), .valid(m_valid), .ready(m_ready), .data(m_data)
    );

`ifdef EQUIV
    wire s_hs = s_valid && s_ready;
    wire m_hs = m_valid && m_ready;

    // Shadow FIFO: what went in and has not come out yet, oldest in entry 0.
    logic [1:0]       count_q;
    logic [WIDTH-1:0] shadow_q [2];
    always_ff @(posedge clk) begin
        if (rst) begin
            count_q <= '0;
        end else begin
            case ({s_hs, m_hs})
                2'b10: begin
                    shadow_q[count_q[0]] <= s_data;
                    count_q <= count_q + 1'b1;
                end
                2'b01: begin
                    shadow_q[0] <= shadow_q[1];
                    count_q <= count_q - 1'b1;
                end
                2'b11: begin
                    if (count_q == 2'd1) begin
                        shadow_q[0] <= s_data;
                    end else begin
                        shadow_q[0] <= shadow_q[1];
                        shadow_q[1] <= s_data;
                    end
                end
                default: ;
            endcase
        end
    end

    always @* begin
        if (past_ok && !rst) begin
            // No overflow, and an empty buffer has no output.
            assert (count_q <= 2'd2);
            assert (m_valid == (count_q != 2'd0));
            // Data in order.
            if (m_valid) assert (m_data == shadow_q[0]);
            // A full buffer takes nothing more.
            if (count_q == 2'd2) assert (!s_ready);
        end
    end

    always_ff @(posedge clk) begin
        if (past_ok && !$past(rst) && !rst && $past(count_q == 2'd0)) begin
            assert (s_ready);
        end
    end
`endif

    // Not ready in the cycle after reset either.
    always_ff @(posedge clk) begin
        if (past_ok && $past(rst)) begin
            assert (!s_ready);
        end
    end

endmodule

`resetall
