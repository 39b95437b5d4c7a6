// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_DP_EMIT_SV
`define ROCENIC_RX_DP_EMIT_SV
`include "rtl/rx/rx_dp_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One DMA write of the receive data path (docs/rx-dp.md): LEN bytes (1..4096) to
// host address ADDR, packed from lane 0 as docs/wqe-dma.md's DMA interface asks, taken from one of
// three sources:
//   SRC_FRAME  the packet buffer, from byte SHIFT of beat BEAT on (rx_check's read port: a beat
//              two clocks after its address), each output beat two buffer beats shifted
//   SRC_ZERO   zero bytes (the 20 leading bytes of an IPv4 packet's GRH area)
//   SRC_CQE    the 32-byte completion given with the start
// Every source goes through the same three-stage read pipe into a four-beat FIFO, so a beat a
// clock flows once the pipe is full. The write is over when its completion comes back: done for
// one cycle, with err (host memory refused it, nothing stored). One write at a time, tag 0: the
// data path waits for each completion so that a fault stops the scatter where the model's does.
module rx_dp_emit #(
    parameter  int ADDR_W = 11,   // packet-buffer beat address width (rx_check's)
    localparam int SRC_W  = 2
) (
    input  wire               clk,
    input  wire               rst,            // synchronous, active high
    // one write: start for one cycle while idle
    input  wire               start,
    input  wire [63:0]        addr,
    input  wire [12:0]        len,            // 1..4096
    input  wire [SRC_W-1:0]   src,            // rx_dp_pkg SRC_*
    input  wire [ADDR_W-1:0]  beat,           // SRC_FRAME: the first byte's beat...
    input  wire [2:0]         shift,          // ...and lane
    input  wire [255:0]       cqe,            // SRC_CQE: the completion
    output logic              busy,
    output logic              done,           // one cycle: the completion came...
    output logic              err,            // ...and whether host memory refused the write
    // the packet buffer
    output logic [ADDR_W-1:0] rd_addr,
    input  wire [63:0]        rd_data,
    // DMA writes (docs/wqe-dma.md, "DMA interface")
    output logic              m_wr_valid,
    input  wire               m_wr_ready,
    output logic [63:0]       m_wr_addr,
    output logic [63:0]       m_wr_data,
    output logic [7:0]        m_wr_keep,
    output logic              m_wr_last,
    output logic [1:0]        m_wr_tag,
    input  wire               s_wr_done_valid,
    output logic              s_wr_done_ready,
    input  wire [1:0]         s_wr_done_tag,
    input  wire               s_wr_done_err
);

    localparam logic [SRC_W-1:0] SRC_FRAME = rx_dp_pkg::SRC_FRAME;
    localparam logic [SRC_W-1:0] SRC_CQE   = rx_dp_pkg::SRC_CQE;

    typedef enum logic [2:0] {E_IDLE, E_SUM, E_SET, E_RUN, E_WAIT} estate_t;
    estate_t e_q;

    logic [SRC_W-1:0] src_q;
    logic [2:0]       shift_q;
    logic [255:0]     cqe_q;
    // Down counters, so that each decision is a compare with a constant: source beats still to
    // read (ceil((shift + len) / 8) at the start), output beats still to make (ceil(len / 8)),
    // and of those, the ones that take a second source beat (all but the last when the source
    // has as many beats as the output, all when it has one more).
    logic [9:0]       rd_left_q;
    logic [9:0]       out_left_q;
    logic [9:0]       hi_left_q;
    logic             hi_any_q, out_any_q, out_last_q;  // hi_left_q != 0, out_left_q != 0, == 1
    logic             rd_any_q;                         // rd_left_q != 0
    logic [7:0]       last_keep_q;
    logic [9:0]       iss_q;      // source beats read so far

    // The read pipe: p[k] set in the k-th cycle after the read address; the beat index rides
    // along for SRC_CQE.
    logic [2:0]       p_q;
    logic [1:0]       pidx_q [3];

    // The FIFO of source beats.
    logic [63:0] fifo_q [4];
    logic [1:0]  f_rd_q, f_wr_q;
    logic [2:0]  f_cnt_q;

    logic [63:0] lo_q;
    logic        have_lo_q;

    // The next beat to read: the start's beat plus the beats read, wrapping with the buffer.
    logic [ADDR_W-1:0] beat_q;
    wire  [ADDR_W-1:0] beat_q_next = beat_q + ADDR_W'(iss_q);

    wire out_free = !m_wr_valid || m_wr_ready;
    wire [2:0] in_flight = 3'(p_q[0]) + 3'(p_q[1]) + 3'(p_q[2]);
    wire issue = e_q == E_RUN && rd_any_q && f_cnt_q + in_flight < 3'd4;

    // What the consumer does this cycle: take the first beat into lo, or make an output beat
    // from lo and the next (popping it) or from lo alone (the source's last beat).
    wire need_hi  = hi_any_q;
    wire f_any    = f_cnt_q != 3'd0;
    wire take_lo  = e_q == E_RUN && out_free && !have_lo_q && f_any;
    wire make     = e_q == E_RUN && out_free && have_lo_q && out_any_q && (!need_hi || f_any);
    wire pop      = take_lo || (make && need_hi);
    wire [127:0] pair = {need_hi ? fifo_q[f_rd_q] : 64'd0, lo_q};
    wire [63:0]  shifted = 64'(pair >> {shift_q, 3'b000});
    wire [63:0]  pushed = src_q == SRC_FRAME ? rd_data
                        : src_q == SRC_CQE   ? cqe_q[64 * pidx_q[2] +: 64] : 64'd0;

    assign busy            = e_q != E_IDLE;
    assign m_wr_tag        = 2'd0;
    assign s_wr_done_ready = 1'b1;

    // At the start the length and shift are registered (E_SUM), then the beat counts (E_SET),
    // then the counters: no step chains two adders.
    logic [12:0] len_q;
    logic [13:0] span_q, olen_q;
    wire  [9:0]  span_b = span_q[12:3];   // source beats
    wire  [9:0]  olen_b = olen_q[12:3];   // output beats
    wire  [2:0]  tail = len_q[2:0];

    always_ff @(posedge clk) begin
        if (rst) begin
            e_q        <= E_IDLE;
            m_wr_valid <= 1'b0;
            done       <= 1'b0;
            err        <= 1'b0;
            p_q        <= '0;
            f_cnt_q    <= '0;
            f_rd_q     <= '0;
            f_wr_q     <= '0;
            have_lo_q  <= 1'b0;
        end else begin
            done <= 1'b0;
            p_q  <= {p_q[1:0], issue};
            if (issue) begin
                rd_addr   <= beat_q_next;
                iss_q     <= iss_q + 10'd1;
                rd_left_q <= rd_left_q - 10'd1;
                rd_any_q  <= rd_left_q != 10'd1;
            end
            pidx_q[0] <= iss_q[1:0];
            pidx_q[1] <= pidx_q[0];
            pidx_q[2] <= pidx_q[1];
            if (p_q[2]) begin
                fifo_q[f_wr_q] <= pushed;
                f_wr_q         <= f_wr_q + 2'd1;
            end
            if (pop) begin
                f_rd_q <= f_rd_q + 2'd1;
            end
            f_cnt_q <= f_cnt_q + 3'(p_q[2]) - 3'(pop);
            if (take_lo) begin
                lo_q      <= fifo_q[f_rd_q];
                have_lo_q <= 1'b1;
            end
            if (m_wr_valid && m_wr_ready) begin
                m_wr_valid <= 1'b0;
            end
            if (make) begin
                if (need_hi) begin
                    lo_q <= fifo_q[f_rd_q];
                end
                m_wr_valid <= 1'b1;
                m_wr_data  <= shifted;
                m_wr_last  <= out_last_q;
                m_wr_keep  <= out_last_q ? last_keep_q : 8'hFF;
                out_left_q <= out_left_q - 10'd1;
                out_any_q  <= !out_last_q;
                out_last_q <= out_left_q == 10'd2;
                if (need_hi) begin
                    hi_left_q <= hi_left_q - 10'd1;
                    hi_any_q  <= hi_left_q != 10'd1;
                end
            end
            case (e_q)
                E_IDLE: if (start) begin
                    e_q         <= E_SUM;
                    m_wr_addr   <= addr;
                    src_q       <= src;
                    shift_q     <= src == SRC_FRAME ? shift : 3'd0;
                    cqe_q       <= cqe;
                    len_q       <= len;
                    iss_q       <= '0;
                    have_lo_q   <= 1'b0;
                    beat_q      <= beat;
                end
                E_SUM: begin
                    e_q    <= E_SET;
                    span_q <= 14'(shift_q) + 14'(len_q) + 14'd7;
                    olen_q <= 14'(len_q) + 14'd7;
                end
                E_SET: begin
                    e_q         <= E_RUN;
                    rd_left_q   <= span_b;
                    rd_any_q    <= 1'b1;
                    out_left_q  <= olen_b;
                    out_any_q   <= 1'b1;
                    out_last_q  <= olen_b == 10'd1;
                    hi_left_q   <= span_b != olen_b ? olen_b : olen_b - 10'd1;
                    hi_any_q    <= span_b != olen_b || olen_b != 10'd1;
                    last_keep_q <= tail == 3'd0 ? 8'hFF : 8'((9'd1 << tail) - 9'd1);
                end
                E_RUN: if (m_wr_valid && m_wr_ready && m_wr_last) begin
                    e_q <= E_WAIT;
                end
                E_WAIT: if (s_wr_done_valid) begin
                    e_q  <= E_IDLE;
                    done <= 1'b1;
                    err  <= s_wr_done_err;
                end
                default: e_q <= E_IDLE;
            endcase
        end
    end

    wire unused = ^{s_wr_done_tag, span_q[13], span_q[2:0], olen_q[13], olen_q[2:0]};

endmodule

`endif  // ROCENIC_RX_DP_EMIT_SV
