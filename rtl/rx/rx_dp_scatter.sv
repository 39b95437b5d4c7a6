// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_DP_SCATTER_SV
`define ROCENIC_RX_DP_SCATTER_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive data path's writes (docs/rx-dp.md): one piece of bytes at a time, cut
// into DMA writes of at most 4096 bytes that rx_dp_emit makes one after another.
//   WALK    the piece lands at byte `moff` of the WQE's buffers (model::rx's `scatter`): the
//           entries are walked from the first, each write stays inside one entry, and an
//           entry the piece starts past is skipped. The caller checked that the piece fits.
//   DIRECT  the piece lands at host address `addr` (an RDMA WRITE's bytes, a completion).
// The piece comes from the frame (from byte `src_off`; the frame's first beat is `base`), or is
// zeros, or the completion. done for one cycle at the end, with err when a write was refused:
// nothing after it is written, as the model stops at its first failed write.
module rx_dp_scatter #(
    parameter  int ADDR_W = 11    // packet-buffer beat address width (rx_check's)
) (
    input  wire               clk,
    input  wire               rst,        // synchronous, active high
    // one piece: start for one cycle while idle
    input  wire               start,
    input  wire               walk,       // 1 WALK, 0 DIRECT
    input  wire [37:0]        moff,       // WALK: the piece's offset in the buffers
    input  wire [63:0]        addr,       // DIRECT: the host address
    input  wire [1:0]         src,        // rx_dp_emit's SRC_*
    input  wire [ADDR_W-1:0]  base,       // the frame's first beat
    input  wire [12:0]        src_off,    // SRC_FRAME: the piece's first byte in the frame
    input  wire [12:0]        len,        // bytes, 1..8191
    input  wire [255:0]       cqe,        // SRC_CQE: the completion
    output logic              done,       // one cycle...
    output logic              err,        // ...and whether a write was refused
    // the WQE's entries (rx_dp_fetch): the entry at ent_rd_idx two clocks later
    output logic [5:0]        ent_rd_idx,
    input  wire [63:0]        ent_rd_addr,
    input  wire [31:0]        ent_rd_len,
    // the writer
    output logic              w_start,
    output logic [63:0]       w_addr,
    output logic [12:0]       w_len,
    output logic [1:0]        w_src,
    output logic [ADDR_W-1:0] w_beat,
    output logic [2:0]        w_shift,
    output logic [255:0]      w_cqe,
    input  wire               w_done,
    input  wire               w_err
);

    typedef enum logic [3:0] {S_IDLE, S_RD, S_RD2, S_LOOK, S_CMP0, S_CMP, S_ADDR, S_GO, S_WAIT} sstate_t;
    sstate_t s_q;

    logic              walk_q;
    logic [37:0]       m_q;         // WALK: where the next byte lands in the buffers
    logic [63:0]       addr_q;      // DIRECT: where the next byte lands in host memory
    logic [1:0]        src_q;
    logic [ADDR_W-1:0] base_q;
    logic [12:0]       off_q;       // the next byte in the frame
    logic [12:0]       rem_q;       // bytes left
    logic [37:0]       estart_q;    // WALK: the buffers' offset of entry ent_rd_idx
    logic [37:0]       eend_q;      // ...and of its end
    logic [12:0]       k_q;         // this write's bytes
    logic [37:0]       eoff_q;      // WALK: where it starts in its entry

    assign w_src  = src_q;
    assign w_len  = k_q;

    // This write's bytes: what is left, at most 4096, and within the entry when walking. The
    // entry's room and whether the piece starts past the entry are registered first (S_CMP0):
    // two 38-bit carry chains in a row were the data path's worst path.
    logic        past_q;        // WALK: the next byte lies past entry ent_rd_idx
    logic [37:0] avail_q;       // WALK: bytes from it to the entry's end
    logic [12:0] cap_q;         // bytes left, at most 4096
    wire  [12:0] k_next = walk_q && avail_q[37:13] == 25'd0 && avail_q[12:0] < cap_q
                        ? avail_q[12:0] : cap_q;
    wire [ADDR_W-1:0] off_beat = ADDR_W'(off_q[12:3]);

    always_ff @(posedge clk) begin
        if (rst) begin
            s_q     <= S_IDLE;
            done    <= 1'b0;
            err     <= 1'b0;
            w_start <= 1'b0;
        end else begin
            done    <= 1'b0;
            w_start <= 1'b0;
            case (s_q)
                S_IDLE: if (start) begin
                    walk_q     <= walk;
                    m_q        <= moff;
                    addr_q     <= addr;
                    src_q      <= src;
                    base_q     <= base;
                    off_q      <= src_off;
                    rem_q      <= len;
                    w_cqe      <= cqe;
                    estart_q   <= '0;
                    ent_rd_idx <= '0;
                    s_q        <= walk ? S_RD : S_CMP0;
                end
                S_RD:   s_q <= S_RD2;
                S_RD2:  s_q <= S_LOOK;
                S_LOOK: begin
                    eend_q <= estart_q + 38'(ent_rd_len);
                    s_q    <= S_CMP0;
                end
                S_CMP0: begin
                    past_q  <= walk_q && m_q >= eend_q;
                    avail_q <= eend_q - m_q;
                    cap_q   <= rem_q > 13'd4096 ? 13'd4096 : rem_q;
                    s_q     <= S_CMP;
                end
                S_CMP: begin
                    if (past_q) begin
                        estart_q   <= eend_q;
                        ent_rd_idx <= ent_rd_idx + 6'd1;
                        s_q        <= S_RD;
                    end else begin
                        k_q    <= k_next;
                        eoff_q <= walk_q ? m_q - estart_q : '0;
                        s_q    <= S_ADDR;
                    end
                end
                S_ADDR: begin
                    w_addr <= (walk_q ? ent_rd_addr : addr_q) + 64'(eoff_q);
                    s_q    <= S_GO;
                end
                S_GO: begin
                    w_start <= 1'b1;
                    w_beat  <= base_q + off_beat;
                    w_shift <= off_q[2:0];
                    s_q     <= S_WAIT;
                end
                S_WAIT: if (w_done) begin
                    m_q    <= m_q + 38'(k_q);
                    addr_q <= addr_q + 64'(k_q);
                    off_q  <= off_q + k_q;
                    rem_q  <= rem_q - k_q;
                    if (w_err || rem_q == k_q) begin
                        done <= 1'b1;
                        err  <= w_err;
                        s_q  <= S_IDLE;
                    end else begin
                        s_q <= S_CMP0;
                    end
                end
                default: s_q <= S_IDLE;
            endcase
        end
    end

endmodule

`endif  // ROCENIC_RX_DP_SCATTER_SV
