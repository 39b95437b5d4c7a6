// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_CQ_SV
`define ROCENIC_WQE_CQ_SV
`include "rtl/wqe/wqe_dp_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Completion writer: each completion becomes one 32-byte CQE (docs/wqe.md, "Completion queue
// entry") written by DMA at the completion ring's producer index, with the phase bit of that
// index's lap: 1 on laps 0, 2, 4, ..., 0 on odd laps. The owner byte is the entry's last, so
// a host that sees the phase flip sees the whole entry (the DMA writes in address order).
//
// The producer index lives in the control plane, which also keeps room for every WQE in
// flight, so a completion never has to wait for space here; cqe_written tells it that the
// index was used. Write completions come back in any order; a failed one raises cq_fault.
//
// The ring's base, slot offset and phase come from registers that follow the control plane's
// every cycle: in the whole engine those are registers across the chip, and the mask, shift
// and 64-bit add behind them were its worst path. The lag is safe: the producer moves only
// with this writer's own cqe_written (two cycles after a completion is taken, and at least
// four before the next can be), and CQ_BASE and CQ_LOG2 change only while CONTROL.ENABLE is
// clear (docs/wqe-registers.md), many cycles before any completion.
module wqe_cq
#(
    parameter int TAG_W = 2   // write tags: up to 2^TAG_W writes outstanding
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              s_cqe_valid,
    output logic             s_cqe_ready,
    input  wire wqe_dp_pkg::cqe_t        s_cqe,
    input  wire [63:0]       cq_base,
    input  wire [4:0]        cq_log2,
    input  wire [31:0]       cq_producer,
    output logic             cqe_written,
    output logic             cq_fault,
    // DMA writes: the address with the first beat, 8 bytes a beat
    output logic             m_wr_valid,
    input  wire              m_wr_ready,
    output logic [63:0]      m_wr_addr,
    output logic [63:0]      m_wr_data,
    output logic [7:0]       m_wr_keep,
    output logic             m_wr_last,
    output logic [TAG_W-1:0] m_wr_tag,
    input  wire              s_done_valid,
    output logic             s_done_ready,
    input  wire [TAG_W-1:0]  s_done_tag,
    input  wire              s_done_err,
    output logic             busy            // a completion is being written or not yet done
);

    logic [1:0]       beat_q;
    logic             busy_q;
    wqe_dp_pkg::cqe_t             c_q;
    logic [63:0]      addr_q;
    logic             phase_q;
    logic [TAG_W-1:0] tag_q;
    logic [2**TAG_W-1:0] tag_busy_q;   // writes not yet completed, by tag
    logic [63:0]      base_q;          // cq_base, a cycle late
    logic [36:0]      off_q;           // the producer's slot in bytes, a cycle late
    logic             next_phase_q;    // the producer's lap's phase, a cycle late

    // The lowest free tag (completions come back in any order).
    logic [TAG_W-1:0] free_tag;
    logic             room;
    always_comb begin
        free_tag = '0;
        room     = 1'b0;
        for (int t = 2 ** TAG_W - 1; t >= 0; t--) begin
            if (!tag_busy_q[t]) begin
                free_tag = TAG_W'(t);
                room     = 1'b1;
            end
        end
    end

    wire [31:0] slot  = cq_producer & ((32'd1 << cq_log2) - 32'd1);
    wire        phase = !cq_producer[cq_log2];

    always_ff @(posedge clk) begin
        base_q       <= cq_base;
        off_q        <= {slot, 5'b0};
        next_phase_q <= phase;
    end

    assign s_cqe_ready  = !busy_q && room;
    assign m_wr_valid   = busy_q;
    assign m_wr_addr    = addr_q;
    assign m_wr_keep    = 8'hFF;
    assign m_wr_last    = beat_q == 2'd3;
    assign m_wr_tag     = tag_q;
    assign s_done_ready = 1'b1;
    // Bytes 0-7 WR_ID; 8-11 QPN; 12-15 BYTE_LEN; 16-19 WQE_INDEX; 20 OPCODE; 21 STATUS;
    // 22-30 reserved; 31 OWNER (the phase in bit 0).
    always_comb begin
        case (beat_q)
            2'd0: m_wr_data = c_q.wr_id;
            2'd1: m_wr_data = {c_q.byte_len, 8'b0, c_q.qpn};
            2'd2: m_wr_data = {16'b0, 3'b0, c_q.status, c_q.opcode, c_q.index};
            default: m_wr_data = {7'b0, phase_q, 56'b0};
        endcase
    end

    wire beat_go = m_wr_valid && m_wr_ready;
    assign busy = busy_q || tag_busy_q != '0;

    always_ff @(posedge clk) begin
        if (rst) begin
            busy_q        <= 1'b0;
            beat_q        <= '0;
            tag_busy_q    <= '0;
            cqe_written   <= 1'b0;
            cq_fault      <= 1'b0;
        end else begin
            cqe_written <= 1'b0;
            cq_fault    <= s_done_valid && s_done_err;
            if (s_done_valid) begin
                tag_busy_q[s_done_tag] <= 1'b0;
            end
            // The entry's fields are loaded while no entry is being written, offered or not:
            // they count only while busy_q, and the load then waits for nothing but busy_q.
            if (!busy_q) begin
                tag_q   <= free_tag;
                c_q     <= s_cqe;
                addr_q  <= base_q + {27'b0, off_q};
                phase_q <= next_phase_q;
                beat_q  <= '0;
            end
            if (s_cqe_valid && s_cqe_ready) begin
                tag_busy_q[free_tag] <= 1'b1;
                busy_q      <= 1'b1;
                cqe_written <= 1'b1;
            end
            if (beat_go) begin
                beat_q <= beat_q + 2'd1;
                if (beat_q == 2'd3) begin
                    busy_q <= 1'b0;
                end
            end
        end
    end

endmodule

`endif  // ROCENIC_WQE_CQ_SV
