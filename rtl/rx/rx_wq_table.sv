// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_WQ_TABLE_SV
`define ROCENIC_RX_WQ_TABLE_SV
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_regs_pkg.sv"
`include "rtl/rx/rx_ram.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The work-queue table: WQS queues, each a configuration in block RAM (rx_ram, two words
// of the layout rx_ctrl_pkg::wq_image_t), a valid bit and a state in flip-flops, and how many
// receive contexts name it (LUT RAM); the work-queue commands; the data path's queue reads and
// ERR port; the flush pick. The ring indices are rx_rings'. model::rx::RecvEngine (create_wq,
// modify_wq, destroy_wq) and model::rx::Wq are the reference; docs/rx.md, "rx_ctrl (RTL)".
//
// Commands (cmd_start with the command's fields; rx_ctrl starts one only while the data path is
// idle, so nothing else reads or writes the table meanwhile):
//   WQ_WRITE    the staged queue into WQ, state RESET, its indices 0 (rx_rings' clear). Refused:
//               WQ >= WQS, the queue exists, WQ_QPN wider than 24 bits, a RING_LOG2 or CQ_LOG2
//               above 16, a STRIDE_LOG2 above 4, a ring base not 64-byte aligned or a ring that
//               would run past the end of the 64-bit address space (RecvRing::new refuses it).
//   WQ_MODIFY   the state, as WqState::modify allows (any state to RESET, RESET and READY to
//               READY, READY and ERR to ERR); RESET empties the rings. Refused: WQ >= WQS, no
//               such queue, STATE 3 (no state), a move verbs refuses.
//   WQ_DESTROY  the queue no longer exists. Refused: WQ >= WQS, no such queue, a receive context
//               names it (own or shared).
// A refused command changes nothing. cmd_done pulses when it is over, with cmd_error, in the
// cycle its changes are stored.
//
// ERR: err_* (the data path) and sweep_* (the flush rule, from rx_ctx_table) move a queue to
// ERR, visible from two cycles after. q_rd (one read at a time) answers Q_LAG cycles after with
// the queue as of the cycle after the request. pick_start samples the queues in ERR with a WQE
// pending and room for a completion, and pick_done reports the lowest of them three cycles
// later.
module rx_wq_table #(
    parameter  int WQS = 64,                         // work queues, a power of two, 4..256
    parameter  int QPS = 64,                         // receive contexts that may name a queue
    localparam int WW  = $clog2(WQS),                // queue index width
    localparam int NW  = $clog2(QPS + 1),            // named-count width
    localparam int CW  = rx_ctrl_pkg::WORD           // RAM word
) (
    input  wire              clk,
    input  wire              rst,                    // synchronous, active high
    // commands
    input  wire              cmd_start,              // one cycle
    input  wire [3:0]        cmd_op,                 // WQ_WRITE, WQ_MODIFY or WQ_DESTROY
    input  wire [7:0]        cmd_wq,
    input  wire [1:0]        cmd_state,              // WQ_MODIFY's target
    input  wire [31:0]       st_qpn,                 // the staged queue (held while running)
    input  wire [31:0]       st_pd,
    input  wire [31:0]       st_flags,
    input  wire [63:0]       st_ring_base,
    input  wire [63:0]       st_cq_base,
    output logic             cmd_done,               // one cycle...
    output logic             cmd_error,              // ...with this
    // rx_rings: a queue's indices to 0 (one cycle, with cmd_done)
    output logic             clr_valid,
    output logic [WW-1:0]    clr_wq,
    output logic             clr_shape,
    output logic [4:0]       clr_ring_log2,
    output logic [4:0]       clr_cq_log2,
    // named counts: a receive context attached (inc) or detached (dec) naming ref_wq
    input  wire              ref_valid,
    input  wire              ref_inc,
    input  wire [WW-1:0]     ref_wq,
    // per queue
    output logic [WQS-1:0]   valid,
    input  wire  [WQS-1:0]   pending,                // rx_rings
    input  wire  [WQS-1:0]   room,
    // to ERR
    input  wire              err_valid,              // the data path
    input  wire [WW-1:0]     err_wq,
    input  wire              sweep_valid,            // the flush rule
    input  wire [WW-1:0]     sweep_wq,
    output logic             err_busy,               // an ERR is being stored
    // the data path's queue reads
    input  wire              q_rd_valid,
    input  wire [WW-1:0]     q_rd_wq,
    output logic             q_rd_done,              // one cycle, Q_LAG after q_rd_valid...
    output rx_ctrl_pkg::wq_view_t q_rd,              // ...and this, held until the next read
    output logic [WW-1:0]    view_wq,                // rx_rings' read port
    input  wire [31:0]       view_consumer,
    input  wire [31:0]       view_cq_producer,
    input  wire [4:0]        view_ring_log2,
    input  wire [4:0]        view_cq_log2,
    // the flush pick
    input  wire              pick_start,
    output logic             pick_done,              // one cycle, 3 after pick_start...
    output logic             pick_found,             // ...whether a queue is to flush...
    output logic [7:0]       pick_wq                 // ...and the lowest one
);

    if (WQS < 4 || WQS > 256 || (WQS & (WQS - 1)) != 0) begin : g_bad_wqs
        $error("rx_wq_table: WQS must be a power of two, 4..256, got %0d", WQS);
    end

    // Cycles from q_rd_valid to q_rd_done; fixed by the read sequence below. No logic reads it:
    // it documents the timing, public for a Verilator harness.
    /* verilator lint_off UNUSEDPARAM */
    localparam int Q_LAG /*verilator public*/ = 5;
    /* verilator lint_on UNUSEDPARAM */

    localparam logic [1:0] ST_RESET = rx_ctrl_pkg::WQ_RESET;
    localparam logic [1:0] ST_READY = rx_ctrl_pkg::WQ_READY;
    localparam logic [1:0] ST_ERR   = rx_ctrl_pkg::WQ_ERR;
    // A command looks its queue up in rows of LR queues (WQS >= 4: at least one bit above a row).
    localparam int         LB       = WW > 3 ? 3 : WW - 1;
    localparam int         LR       = 2 ** LB;

    // Whether verbs allows a modify from `from` to `to` (WqState::modify): RESET from anywhere,
    // READY from RESET and READY, ERR from READY and ERR. STATE 3 is no state.
    function automatic logic can_modify(input logic [1:0] from, input logic [1:0] to);
        case (to)
            ST_RESET: can_modify = 1'b1;
            ST_READY: can_modify = from == ST_RESET || from == ST_READY;
            ST_ERR:   can_modify = from == ST_READY || from == ST_ERR;
            default:  can_modify = 1'b0;
        endcase
    endfunction

    // ------------------------------------------------------------------------------------------
    // Valid bits and states.
    logic [WQS-1:0]      valid_q;
    logic [WQS-1:0][1:0] state_q;
    logic [WQS-1:0]      in_err;
    for (genvar w = 0; w < WQS; w++) begin : g_err
        assign in_err[w] = valid_q[w] && state_q[w] == ST_ERR;
    end
    assign valid = valid_q;

    // The staged queue, decoded.
    wire [4:0] st_ring_log2 = st_flags[rx_regs_pkg::RX_WQ_FLAGS_RING_LOG2_LSB +: 5];
    wire [2:0] st_stride    = st_flags[rx_regs_pkg::RX_WQ_FLAGS_STRIDE_LOG2_LSB +: 3];
    wire [4:0] st_cq_log2   = st_flags[rx_regs_pkg::RX_WQ_FLAGS_CQ_LOG2_LSB +: 5];
    wire       st_raw       = st_flags[rx_regs_pkg::RX_WQ_FLAGS_RAW_LSB];
    rx_ctrl_pkg::wq_image_t staged;
    always_comb begin
        staged             = '0;
        staged.ring_base   = st_ring_base[63:6];
        staged.qpn         = st_qpn[23:0];
        staged.ring_log2   = st_ring_log2;
        staged.stride_log2 = st_stride;
        staged.cq_log2     = st_cq_log2;
        staged.raw         = st_raw;
        staged.cq_base     = st_cq_base;
        staged.pd          = st_pd;
    end
    wire [2*CW-1:0] staged_bits = staged;

    // ------------------------------------------------------------------------------------------
    // The command sequencer.
    typedef enum logic [2:0] {
        C_IDLE,    // waiting for cmd_start
        C_LOOK,    // the queue's valid bit, state and named count; the ring's end
        C_CHECK,   // the checks; WQ_MODIFY and WQ_DESTROY end here
        C_WRITE    // WQ_WRITE: words 0 and 1
    } cstate_t;
    cstate_t             c_q;
    logic [3:0]          c_op_q;
    logic [WW-1:0]       c_wq_q;
    logic                c_wq_ok_q;
    logic [WQS-1:0]      c_hot_q;
    logic [LR-1:0]       c_row_valid_q;  // the row of LR queues that holds it, then the queue
    logic [LR-1:0][1:0]  c_row_state_q;
    logic                c_valid_q;
    logic [1:0]          c_from_q, c_to_q;
    logic                c_named_q;
    logic                c_shape_q;      // the staged shape and QPN are in range
    logic [57:0]         c_mask_q;       // the ring's size in 64-byte blocks, less one
    logic                c_end_ok_q;     // the ring ends at or before 2^64
    logic                c_word_q;
    logic                sw_q, vw_q, vv_q, cnt_clr_q;
    logic [1:0]          sv_q;

    // The ring's end must not pass 2^64 (in blocks, 2^58): RecvRing::new. With 2^k blocks,
    // base + 2^k > 2^58 exactly when base + (2^k - 1) carries into bit 58, so the verdict is the
    // carry out of one adder, registered in C_LOOK (k <= 20 for every shape c_shape_q passes).
    wire [58:0] end_last = {1'b0, st_ring_base[63:6]} + {1'b0, c_mask_q};

    always_ff @(posedge clk) begin
        if (rst) begin
            c_q       <= C_IDLE;
            cmd_done  <= 1'b0;
            cmd_error <= 1'b0;
            clr_valid <= 1'b0;
            sw_q      <= 1'b0;
            vw_q      <= 1'b0;
            cnt_clr_q <= 1'b0;
        end else begin
            cmd_done  <= 1'b0;
            clr_valid <= 1'b0;
            sw_q      <= 1'b0;
            vw_q      <= 1'b0;
            cnt_clr_q <= 1'b0;
            case (c_q)
                C_IDLE: begin
                    if (cmd_start) begin
                        c_q           <= C_LOOK;
                        c_op_q        <= cmd_op;
                        c_wq_q        <= cmd_wq[WW-1:0];
                        c_wq_ok_q     <= 32'(cmd_wq) < WQS;
                        c_hot_q       <= {{(WQS-1){1'b0}}, 1'b1} << cmd_wq[WW-1:0];
                        c_row_valid_q <= valid_q[LR * cmd_wq[WW-1:LB] +: LR];
                        c_row_state_q <= state_q[LR * cmd_wq[WW-1:LB] +: LR];
                        c_to_q        <= cmd_state;
                        c_word_q      <= 1'b0;
                        c_mask_q      <= ~(58'h3FF_FFFF_FFFF_FFFF << (st_ring_log2 + 5'(st_stride)));
                        c_shape_q     <= st_ring_log2 <= 5'd16 && st_stride <= 3'd4
                                      && st_cq_log2 <= 5'd16 && st_ring_base[5:0] == '0
                                      && st_qpn[31:24] == '0;
                    end
                end
                C_LOOK: begin
                    c_q       <= C_CHECK;
                    c_valid_q <= c_row_valid_q[c_wq_q[LB-1:0]];
                    c_from_q  <= c_row_state_q[c_wq_q[LB-1:0]];
                    c_named_q <= named_rd != '0;
                    c_end_ok_q <= !end_last[58];
                end
                C_CHECK: begin
                    c_q       <= C_IDLE;
                    cmd_done  <= 1'b1;
                    cmd_error <= 1'b1;
                    case (c_op_q)
                        rx_regs_pkg::RX_OP_WQ_WRITE: begin
                            if (c_wq_ok_q && !c_valid_q && c_shape_q && c_end_ok_q) begin
                                c_q      <= C_WRITE;
                                cmd_done <= 1'b0;
                            end
                        end
                        rx_regs_pkg::RX_OP_WQ_MODIFY: begin
                            if (c_wq_ok_q && c_valid_q && can_modify(c_from_q, c_to_q)) begin
                                sw_q          <= 1'b1;
                                sv_q          <= c_to_q;
                                clr_valid     <= c_to_q == ST_RESET;
                                clr_wq        <= c_wq_q;
                                clr_shape     <= 1'b0;
                                cmd_error     <= 1'b0;
                            end
                        end
                        rx_regs_pkg::RX_OP_WQ_DESTROY: begin
                            if (c_wq_ok_q && c_valid_q && !c_named_q) begin
                                vw_q      <= 1'b1;
                                vv_q      <= 1'b0;
                                cmd_error <= 1'b0;
                            end
                        end
                        default: ;
                    endcase
                end
                C_WRITE: begin
                    c_word_q <= 1'b1;
                    if (c_word_q) begin
                        c_q           <= C_IDLE;
                        vw_q          <= 1'b1;
                        vv_q          <= 1'b1;
                        sw_q          <= 1'b1;
                        sv_q          <= ST_RESET;
                        cnt_clr_q     <= 1'b1;
                        clr_valid     <= 1'b1;
                        clr_wq        <= c_wq_q;
                        clr_shape     <= 1'b1;
                        clr_ring_log2 <= st_ring_log2;
                        clr_cq_log2   <= st_cq_log2;
                        cmd_done      <= 1'b1;
                        cmd_error     <= 1'b0;
                    end
                end
                default: c_q <= C_IDLE;
            endcase
        end
    end

    // ------------------------------------------------------------------------------------------
    // How many receive contexts name each queue (LUT RAM): zeroed when the queue is written (no
    // context can name a queue that does not exist), counted by attaches and detaches: the count
    // is read in the cycle of ref_valid and written back in the next (commands run one at a
    // time, and the next one looks at a count several cycles later).
    (* ram_style = "distributed" *) logic [NW-1:0] named_mem [WQS];
    wire [NW-1:0]  named_rd = named_mem[c_wq_q];
    logic          ref_q, ref_inc_q;
    logic [WW-1:0] ref_wq_q;
    logic [NW-1:0] ref_old_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            ref_q <= 1'b0;
        end else begin
            ref_q <= ref_valid;
        end
        ref_inc_q <= ref_inc;
        ref_wq_q  <= ref_wq;
        ref_old_q <= named_mem[ref_wq];
        if (cnt_clr_q) begin
            named_mem[c_wq_q] <= '0;
        end else if (ref_q) begin
            named_mem[ref_wq_q] <= ref_inc_q ? ref_old_q + NW'(1) : ref_old_q - NW'(1);
        end
    end

    // The stride of each queue, for the data path's WQE address (LUT RAM).
    (* ram_style = "distributed" *) logic [2:0] stride_mem [WQS];
    always_ff @(posedge clk) begin
        if (cnt_clr_q) begin
            stride_mem[c_wq_q] <= st_stride;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Valid bits and states, each written by its own decode: a command's write the cycle after it
    // is decided (with its cmd_done), else an ERR from the data path or the flush rule, decoded
    // into e_hot_q the cycle before.
    logic [WQS-1:0] e_hot_q;
    logic           e_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            e_q <= 1'b0;
        end else begin
            e_q <= err_valid || sweep_valid;
        end
        e_hot_q <= (err_valid ? {{(WQS-1){1'b0}}, 1'b1} << err_wq : '0)
                 | (sweep_valid ? {{(WQS-1){1'b0}}, 1'b1} << sweep_wq : '0);
    end
    assign err_busy = e_q;

    for (genvar w = 0; w < WQS; w++) begin : g_state
        always_ff @(posedge clk) begin
            if (rst) begin
                state_q[w] <= ST_RESET;
                valid_q[w] <= 1'b0;
            end else begin
                if (sw_q && c_hot_q[w]) begin
                    state_q[w] <= sv_q;
                end else if (e_q && e_hot_q[w]) begin
                    state_q[w] <= ST_ERR;
                end
                if (vw_q && c_hot_q[w]) begin
                    valid_q[w] <= vv_q;
                end
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // The configuration RAM: written by WQ_WRITE, read by the data path.
    logic [rx_ctrl_pkg::COLS-1:0] ram_we;
    logic [WW:0]                  ram_waddr, ram_raddr;
    logic [CW-1:0]                ram_wdata, ram_rdata;
    logic                         ram_re;
    logic                         s1_q, s2_q, s3_q, s4_q;   // a read in its cycle t + 1 .. t + 4
    logic [WW-1:0]                ra_q;

    assign ram_we    = {rx_ctrl_pkg::COLS{c_q == C_WRITE}};
    assign ram_waddr = {c_wq_q, c_word_q};
    assign ram_wdata = staged_bits[CW * c_word_q +: CW];
    assign ram_re    = s1_q || s2_q;
    assign ram_raddr = {ra_q, s2_q};

    rx_ram #(
        .COLS (rx_ctrl_pkg::COLS),
        .DEPTH(2 * WQS)
    ) u_ram (
        .clk  (clk),
        .we   (ram_we),
        .waddr(ram_waddr),
        .wdata(ram_wdata),
        .re   (ram_re),
        .raddr(ram_raddr),
        .rdata(ram_rdata)
    );

    // ------------------------------------------------------------------------------------------
    // The data path's queue read: t + 1 samples the indices and bits and reads word 0, t + 2
    // reads word 1 and cuts the indices to their rings, t + 3 and t + 4 take the words (rx_ram:
    // two cycles), t + 4 adds the bases, and q_rd_done is high in t + 5.
    logic [CW-1:0]  img0_q;
    logic           v_valid_q, v_pending_q, v_room_q;
    logic [1:0]     v_state_q;
    logic [31:0]    v_cons_q, v_cq_prod_q;
    logic [4:0]     v_rlog2_q, v_clog2_q;
    logic [2:0]     v_stride_q;
    logic [19:0]    v_off_q;        // the WQE's slot, in 64-byte blocks from the ring's base
    logic [15:0]    v_cslot_q;      // the completion's slot
    logic           v_phase_q;
    rx_ctrl_pkg::wq_image_t img;
    assign img     = {ram_rdata, img0_q};
    wire [15:0]     v_slot = v_cons_q[15:0] & ~(16'hFFFF << v_rlog2_q);  // the WQE's slot
    assign view_wq = ra_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            {s1_q, s2_q, s3_q, s4_q} <= '0;
            q_rd_done <= 1'b0;
        end else begin
            s1_q      <= q_rd_valid;
            s2_q      <= s1_q;
            s3_q      <= s2_q;
            s4_q      <= s3_q;
            q_rd_done <= s4_q;
        end
        if (q_rd_valid) begin
            ra_q <= q_rd_wq;
        end
        if (s1_q) begin
            v_valid_q   <= valid_q[ra_q];
            v_state_q   <= state_q[ra_q];
            v_pending_q <= pending[ra_q];
            v_room_q    <= room[ra_q];
            v_cons_q    <= view_consumer;
            v_cq_prod_q <= view_cq_producer;
            v_rlog2_q   <= view_ring_log2;
            v_clog2_q   <= view_cq_log2;
            v_stride_q  <= stride_mem[ra_q];
        end
        if (s2_q) begin
            v_off_q   <= 20'(v_slot) << v_stride_q;
            v_cslot_q <= v_cq_prod_q[15:0] & ~(16'hFFFF << v_clog2_q);
            v_phase_q <= !v_cq_prod_q[v_clog2_q];
        end
        if (s3_q) begin
            img0_q <= ram_rdata;
        end
        if (s4_q) begin
            q_rd.valid       <= v_valid_q;
            q_rd.state       <= v_state_q;
            q_rd.pending     <= v_pending_q;
            q_rd.room        <= v_room_q;
            q_rd.raw         <= img.raw;
            q_rd.qpn         <= img.qpn;
            q_rd.pd          <= img.pd;
            q_rd.stride_log2 <= img.stride_log2;
            q_rd.consumer    <= v_cons_q;
            q_rd.wqe_addr    <= {img.ring_base + 58'(v_off_q), 6'd0};
            q_rd.cq_producer <= v_cq_prod_q;
            q_rd.cqe_addr    <= img.cq_base + {43'd0, v_cslot_q, 5'd0};
            q_rd.cqe_phase   <= v_phase_q;
        end
    end

    // ------------------------------------------------------------------------------------------
    // The flush pick: the queues in ERR with a WQE pending and room for its completion, sampled
    // in the cycle of pick_start; the lowest of them (its one-hot is x & -x), then its number.
    logic [WQS-1:0] cand_q, low_q;
    logic           pk1_q, pk2_q, any_q;

    function automatic logic [7:0] encode(input logic [WQS-1:0] hot);
        encode = '0;
        for (int w = 0; w < WQS; w++) begin
            if (hot[w]) encode = encode | 8'(w);
        end
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            pk1_q     <= 1'b0;
            pk2_q     <= 1'b0;
            pick_done <= 1'b0;
        end else begin
            pk1_q     <= pick_start;
            pk2_q     <= pk1_q;
            pick_done <= pk2_q;
        end
        cand_q <= in_err & pending & room;       // sampled every cycle: pick_start's is used
        low_q  <= cand_q & (~cand_q + WQS'(1));
        any_q <= cand_q != '0;
        if (pk2_q) begin
            pick_wq    <= encode(low_q);
            pick_found <= any_q;
        end
    end

    // Spare bits, the sizes the view takes from rx_rings' copies (they are needed earlier), and
    // the sum under the ring-end check's carry.
    wire unused_img = ^{img.spare0, img.spare1, img.ring_log2, img.cq_log2, end_last[57:0]};

endmodule

`resetall

`endif  // ROCENIC_RX_WQ_TABLE_SV
