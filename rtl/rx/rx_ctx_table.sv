// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_CTX_TABLE_SV
`define ROCENIC_RX_CTX_TABLE_SV
`include "rtl/rx/rx_ctrl_pkg.sv"
`include "rtl/rx/rx_regs_pkg.sv"
`include "rtl/rx/rx_ram.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive contexts: QPS slots, a QP's at the slot its QPN's low bits name
// (model::rx::qp_slot). Each holds in block RAM (rx_ram, four words a slot: 0 the layout
// rx_ctrl_pkg::ctx_static_t, 1 to 3 ctx_dynamic_t) what QP_ATTACH staged, the PSN expected
// next, the message in progress and the responder's state; in flip-flops its valid bit, whether it targets its own
// queue, and its message's kind; in LUT RAM the queue it names. The QP commands; the data path's
// reads and write-backs; the flush rule and the pick of a SEND in progress. model::rx::RecvEngine
// (attach, detach, flush) is the reference; docs/rx.md, "rx_ctrl (RTL)".
//
// Commands (cmd_start; rx_ctrl starts one only while the data path is idle):
//   QP_ATTACH   the staged context into the slot of QP_QPN, its message none, and the queue it
//               names (own or shared) counted as named (ref_*). Refused: a QPN outside
//               2..2^24 - 1; the send side's slot not valid (the QP does not exist, RecvEngine's
//               NoQp); RSS for an RC QP; an own or shared queue that does not exist; the slot
//               holds a context, of this QP or another; a KIND of 3 or an MTU code outside 1..5
//               (no QP has them).
//   QP_DETACH   the slot of QP_QPN no longer holds a context; its queue is no longer named by it.
//               Refused: the slot does not hold QP_QPN's.
// A refused command changes nothing. cmd_done pulses when it is over, with cmd_error, in the
// cycle its changes are stored.
//
// Data path: ctx_rd (one read at a time) answers C_LAG cycles after with the context as of the
// cycle after the request; a write-back (ctx_wr) of the PSN, message and responder state is
// seen by reads issued from the next cycle on. sweep_start (a flush step) applies the flush rule to the QPs in ERR
// (qp_err, as of that cycle): their RDMA WRITEs in progress are forgotten at once, and each that
// targets its own queue sends that queue to ERR (sweep_*), one a cycle; sweep_busy falls after
// the last. Their SENDs in progress wait for ip_start (the flush step's pick, after the rule):
// the lowest of those slots whose SEND's queue exists and has room for a completion (room, as
// of the cycles it is looked at: ip_hold keeps rx_rings from changing it) is the pick, its
// message forgotten; ip_done says so (or that there is none) with the queue, the QP and the
// WQE's WR_ID, which it reads from the context, as the data path's reads do. One slot is
// looked at every IP_STEP cycles, lowest first; with none, ip_done is the cycle after ip_start.
module rx_ctx_table #(
    parameter  int QPS = 64,                 // receive-context slots, a power of two, 4..256
    parameter  int WQS = 64,                 // work queues, a power of two, 4..256
    localparam int SW  = $clog2(QPS),        // slot index width
    localparam int WW  = $clog2(WQS),        // queue index width
    localparam int CW  = rx_ctrl_pkg::WORD   // RAM word
) (
    input  wire              clk,
    input  wire              rst,            // synchronous, active high
    // commands
    input  wire              cmd_start,      // one cycle
    input  wire [3:0]        cmd_op,         // QP_ATTACH or QP_DETACH
    input  wire [31:0]       st_qpn,         // the staged receive context (held while running)
    input  wire [31:0]       st_target,
    input  wire [31:0]       st_epsn,
    input  wire [31:0]       st_flags,
    input  wire [31:0]       st_pd,
    input  wire [31:0]       st_qkey,
    input  wire [QPS-1:0]    sq_valid,       // the send side's slots that hold a QP
    input  wire [WQS-1:0]    wq_valid,       // queues that exist
    output logic             cmd_done,       // one cycle...
    output logic             cmd_error,      // ...with this
    // named counts (rx_wq_table)
    output logic             ref_valid,
    output logic             ref_inc,
    output logic [WW-1:0]    ref_wq,
    // data path
    input  wire              ctx_rd_valid,
    input  wire [SW-1:0]     ctx_rd_slot,
    output logic             ctx_rd_done,    // one cycle, C_LAG after ctx_rd_valid...
    output rx_ctrl_pkg::ctx_t ctx_rd,        // ...and this, held until the next read
    input  wire              ctx_wr_valid,
    input  wire [SW-1:0]     ctx_wr_slot,
    input  rx_ctrl_pkg::rcv_t ctx_wr,
    output logic             wr_busy,        // a write-back is being stored
    // the flush rule
    input  wire              sweep_start,
    input  wire [QPS-1:0]    qp_err,         // the send side's slots in ERR
    output logic             sweep_valid,    // a queue to ERR
    output logic [WW-1:0]    sweep_wq,
    output logic             sweep_busy,
    // the pick of a SEND in progress
    input  wire [WQS-1:0]    room,           // queues with room for a completion (rx_rings)
    input  wire              ip_start,       // one cycle, after the rule is done
    output logic             ip_done,        // one cycle...
    output logic             ip_found,       // ...whether a QP in ERR holds a SEND's WQE...
    output logic [7:0]       ip_wq,          // ...its queue...
    output logic [23:0]      ip_qpn,         // ...the QP...
    output logic [63:0]      ip_wr_id,       // ...and the WQE's WR_ID, held until the next
    output logic             ip_hold         // from sweep_start to ip_done while there are any
);

    if (QPS < 4 || QPS > 256 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
        $error("rx_ctx_table: QPS must be a power of two, 4..256, got %0d", QPS);
    end

    // Cycles from ctx_rd_valid to ctx_rd_done; fixed by the read sequence below. No logic reads
    // it: it documents the timing, public for a Verilator harness.
    /* verilator lint_off UNUSEDPARAM */
    localparam int C_LAG /*verilator public*/ = 7;
    // Cycles per slot the pick of a SEND in progress looks at (the I_* sequence below).
    localparam int IP_STEP /*verilator public*/ = 8;
    /* verilator lint_on UNUSEDPARAM */

    localparam logic [1:0] K_OWN = rx_regs_pkg::RX_TARGET_OWN;
    localparam logic [1:0] K_RSS = rx_regs_pkg::RX_TARGET_RSS;
    // A command looks slots and queues up in rows of eight (or fewer), then the one.
    localparam int         SB    = SW > 3 ? 3 : SW - 1;
    localparam int         SR    = 2 ** SB;
    localparam int         WB    = WW > 3 ? 3 : WW - 1;
    localparam int         WR    = 2 ** WB;

    // The staged context, decoded.
    wire [SW-1:0] st_slot = st_qpn[SW-1:0];
    wire [1:0]    st_kind = st_target[rx_regs_pkg::RX_QP_TARGET_KIND_LSB +: 2];
    wire [7:0]    st_wq   = st_target[rx_regs_pkg::RX_QP_TARGET_WQ_LSB +: 8];
    wire          st_ud   = st_flags[rx_regs_pkg::RX_QP_FLAGS_UD_LSB];
    wire [2:0]    st_mtu  = st_flags[rx_regs_pkg::RX_QP_FLAGS_MTU_LSB +: 3];
    rx_ctrl_pkg::ctx_static_t  st_static;
    rx_ctrl_pkg::ctx_dynamic_t st_dynamic;
    always_comb begin
        st_static      = '0;
        st_static.qpn  = st_qpn[23:0];
        st_static.kind = st_kind;
        st_static.wq   = st_wq;
        st_static.ud   = st_ud;
        st_static.mtu  = st_mtu;
        st_static.pd   = st_pd;
        st_static.qkey = st_qkey;
        st_dynamic      = '0;
        st_dynamic.epsn = st_epsn[23:0];
    end
    wire [4*CW-1:0] st_bits = {st_dynamic, st_static};

    // ------------------------------------------------------------------------------------------
    // Per slot, in flip-flops.
    logic [QPS-1:0]      valid_q, own_q;
    logic [QPS-1:0][1:0] msg_q;
    (* ram_style = "distributed" *) logic [WW-1:0] own_wq_mem [QPS];

    // ------------------------------------------------------------------------------------------
    // The command sequencer.
    typedef enum logic [2:0] {
        A_IDLE,    // waiting for cmd_start; reads the slot's word 0
        A_LOOK,    // the slot's valid bit, the send side's, the queue's...
        A_WAIT,    // ...word 0 arrives (rx_ram: two cycles)
        A_CHECK,   // the checks; QP_DETACH ends here
        A_WRITE    // QP_ATTACH: words 0..3 (the responder's state all zero)
    } astate_t;
    astate_t            a_q;
    logic [3:0]         a_op_q;
    logic [SW-1:0]      a_slot_q;
    logic [QPS-1:0]     a_hot_q;
    logic [SR-1:0]      a_row_valid_q, a_row_sq_q;
    logic [WR-1:0]      a_row_wqv_q;
    logic               a_valid_q, a_sq_q, a_wqv_q;
    logic               a_qpn_ok_q, a_shape_ok_q, a_rss_bad_q, a_wq_ok_q;
    logic               a_attach_ok_q;      // QP_ATTACH's checks, folded in A_WAIT
    logic [1:0]         a_word_q;
    rx_ctrl_pkg::ctx_static_t a_stored_q;   // the slot's word 0, for QP_DETACH
    logic               vw_q, vv_q;         // write the slot's flip-flops

    always_ff @(posedge clk) begin
        if (rst) begin
            a_q       <= A_IDLE;
            cmd_done  <= 1'b0;
            cmd_error <= 1'b0;
            vw_q      <= 1'b0;
            ref_valid <= 1'b0;
        end else begin
            cmd_done  <= 1'b0;
            vw_q      <= 1'b0;
            ref_valid <= 1'b0;
            case (a_q)
                A_IDLE: begin
                    if (cmd_start) begin
                        a_q           <= A_LOOK;
                        a_op_q        <= cmd_op;
                        a_slot_q      <= st_slot;
                        a_hot_q       <= {{(QPS-1){1'b0}}, 1'b1} << st_slot;
                        a_row_valid_q <= valid_q[SR * st_slot[SW-1:SB] +: SR];
                        a_row_sq_q    <= sq_valid[SR * st_slot[SW-1:SB] +: SR];
                        a_row_wqv_q   <= wq_valid[WR * st_wq[WW-1:WB] +: WR];
                        a_qpn_ok_q    <= st_qpn >= 32'd2 && st_qpn <= 32'h00FF_FFFF;
                        a_shape_ok_q  <= st_kind != 2'd3 && st_mtu >= 3'd1 && st_mtu <= 3'd5;
                        a_rss_bad_q   <= st_kind == K_RSS && !st_ud;
                        a_wq_ok_q     <= 32'(st_wq) < WQS;
                        a_word_q      <= '0;
                    end
                end
                A_LOOK: begin
                    a_q       <= A_WAIT;
                    a_valid_q <= a_row_valid_q[a_slot_q[SB-1:0]];
                    a_sq_q    <= a_row_sq_q[a_slot_q[SB-1:0]];
                    a_wqv_q   <= a_row_wqv_q[st_wq[WB-1:0]];
                end
                A_WAIT: begin
                    a_q        <= A_CHECK;
                    a_stored_q <= ram_rdata;
                    a_attach_ok_q <= a_qpn_ok_q && a_sq_q && a_shape_ok_q && !a_rss_bad_q
                                  && (st_kind == K_RSS || (a_wq_ok_q && a_wqv_q)) && !a_valid_q;
                end
                A_CHECK: begin
                    a_q       <= A_IDLE;
                    cmd_done  <= 1'b1;
                    cmd_error <= 1'b1;
                    case (a_op_q)
                        rx_regs_pkg::RX_OP_QP_ATTACH: begin
                            if (a_attach_ok_q) begin
                                a_q      <= A_WRITE;
                                cmd_done <= 1'b0;
                            end
                        end
                        rx_regs_pkg::RX_OP_QP_DETACH: begin
                            if (a_valid_q && a_stored_q.qpn == st_qpn[23:0]
                                && st_qpn[31:24] == '0) begin
                                vw_q      <= 1'b1;
                                ref_valid <= a_stored_q.kind != K_RSS;
                                cmd_error <= 1'b0;
                            end
                        end
                        default: ;
                    endcase
                end
                A_WRITE: begin
                    a_word_q <= a_word_q + 2'd1;
                    if (a_word_q == 2'd3) begin
                        a_q       <= A_IDLE;
                        vw_q      <= 1'b1;
                        ref_valid <= st_kind != K_RSS;
                        cmd_done  <= 1'b1;
                        cmd_error <= 1'b0;
                    end
                end
                default: a_q <= A_IDLE;
            endcase
        end
    end

    // What a write of the slot (vw_q) and a named count's change (ref_valid) carry, set every
    // cycle: A_WRITE's last cycle stores an attach, A_CHECK's a detach, and the strobes say when.
    always_ff @(posedge clk) begin
        vv_q    <= a_q == A_WRITE;
        ref_inc <= a_q == A_WRITE;
        ref_wq  <= a_q == A_WRITE ? st_wq[WW-1:0] : a_stored_q.wq[WW-1:0];
    end

    always_ff @(posedge clk) begin
        if (vw_q && vv_q) begin
            own_wq_mem[a_slot_q] <= st_wq[WW-1:0];
        end
    end

    // ------------------------------------------------------------------------------------------
    // The flush rule: the slots in ERR that target their own queue, one a cycle (the lowest of
    // them is x & -x), then its number, then its queue.
    logic [QPS-1:0] due_q, w1_hot_q;
    logic           w1_q, w2_q;
    logic           sw0_q;          // the cycle after sweep_start
    logic [SW-1:0]  w2_slot_q;

    function automatic logic [SW-1:0] encode(input logic [QPS-1:0] hot);
        encode = '0;
        for (int s = 0; s < QPS; s++) begin
            if (hot[s]) encode = encode | SW'(s);
        end
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            due_q       <= '0;
            sw0_q       <= 1'b0;
            w1_q        <= 1'b0;
            w2_q        <= 1'b0;
            sweep_valid <= 1'b0;
        end else begin
            if (sweep_start) begin
                due_q <= qp_err & own_q & valid_q;
            end else begin
                due_q <= due_q & (due_q - QPS'(1));
            end
            sw0_q       <= sweep_start;
            w1_q        <= due_q != '0 && !sweep_start;
            w2_q        <= w1_q;
            sweep_valid <= w2_q;
        end
        w1_hot_q  <= due_q & (~due_q + QPS'(1));
        w2_slot_q <= encode(w1_hot_q);
        sweep_wq  <= own_wq_mem[w2_slot_q];
    end
    assign sweep_busy = sw0_q || due_q != '0 || w1_q || w2_q || sweep_valid;

    // ------------------------------------------------------------------------------------------
    // The pick of a SEND in progress (RecvEngine::flush's first pick). The candidates, QPs in ERR
    // with a SEND in progress, are taken with the rule; after it, one at a time from the lowest
    // (x & -x): its number, then its words 0..2 read as a data-path read reads them (the QPN;
    // the SEND's queue and WR_ID), then whether that queue exists and has room.
    typedef enum logic [3:0] {
        I_IDLE,    // waiting for ip_start (registered: ip_go_q)
        I_LOW,     // the lowest candidate, taken off the set
        I_ENC,     // its number, into ra_q
        I_R1,      // reads word 0...
        I_R2,      // ...word 1...
        I_R3,      // ...word 2; word 0 arrives
        I_W1,      // word 1 arrives: the queue
        I_W2,      // word 2 arrives; the queue's bits
        I_DECIDE   // the pick, the next candidate, or none
    } istate_t;
    istate_t        i_q;
    logic [QPS-1:0] ip_q, ip_hot_q;
    logic           ip_clr_q, ip_ok_q;
    logic           ip_go_q;            // ip_start, a cycle later
    logic           ip_empty_q;         // no candidate left (ip_q == 0, registered)
    logic [7:0]     ip_wq_q;
    wire            ip_rd = i_q == I_R1 || i_q == I_R2 || i_q == I_R3;
    // The read data as word 0, as word 1 of the dynamic part, as its word 2.
    rx_ctrl_pkg::ctx_static_t  ip_w0;
    rx_ctrl_pkg::ctx_dynamic_t ip_w1, ip_w2;
    assign ip_w0 = ram_rdata;
    assign ip_w1 = {{(2*CW){1'b0}}, ram_rdata};
    assign ip_w2 = {{CW{1'b0}}, ram_rdata, {CW{1'b0}}};

    wire [QPS-1:0] send_now;
    for (genvar s = 0; s < QPS; s++) begin : g_send
        assign send_now[s] = msg_q[s] == rx_ctrl_pkg::MSG_SEND;
    end
    wire [QPS-1:0] ip_cand = qp_err & valid_q & send_now;

    always_ff @(posedge clk) begin
        if (rst) begin
            i_q      <= I_IDLE;
            ip_q     <= '0;
            ip_done  <= 1'b0;
            ip_clr_q <= 1'b0;
            ip_hold  <= 1'b0;
            ip_go_q  <= 1'b0;
        end else begin
            ip_done  <= 1'b0;
            ip_clr_q <= 1'b0;
            ip_go_q  <= ip_start;
            // ip_start comes a cycle or more after sweep_start: ip_empty_q is ip_q's by then.
            // The hold from the cycle after, from ip_q: sweep_busy covers that cycle, so it is
            // on before the picks start.
            if (sweep_start) begin
                ip_q <= ip_cand;
            end
            if (sw0_q) begin
                ip_hold <= ip_q != '0;
            end
            if (i_q == I_IDLE) begin
                ip_empty_q <= ip_q == '0;
            end
            case (i_q)
                I_IDLE: if (ip_go_q) begin
                    if (ip_empty_q) begin
                        ip_done  <= 1'b1;
                        ip_found <= 1'b0;
                    end else begin
                        i_q <= I_LOW;
                    end
                end
                I_LOW: begin
                    ip_hot_q   <= ip_q & (~ip_q + QPS'(1));
                    ip_q       <= ip_q & (ip_q - QPS'(1));
                    i_q        <= I_ENC;
                end
                I_ENC: begin
                    ip_empty_q <= ip_q == '0;   // the rest, a cycle after the carry chain
                    i_q        <= I_R1;
                end
                I_R1:   i_q <= I_R2;
                I_R2:   i_q <= I_R3;
                I_R3: begin
                    ip_qpn <= ip_w0.qpn;
                    i_q    <= I_W1;
                end
                I_W1: begin
                    ip_wq_q        <= ip_w1.msg_wq;
                    ip_wr_id[11:0] <= ip_w1.msg_arg[11:0];
                    i_q            <= I_W2;
                end
                I_W2: begin
                    ip_wr_id[63:12] <= ip_w2.msg_arg[63:12];
                    ip_ok_q <= 32'(ip_wq_q) < WQS && wq_valid[ip_wq_q[WW-1:0]]
                            && room[ip_wq_q[WW-1:0]];
                    i_q     <= I_DECIDE;
                end
                I_DECIDE: begin
                    if (ip_ok_q || ip_empty_q) begin
                        i_q      <= I_IDLE;
                        ip_done  <= 1'b1;
                        ip_found <= ip_ok_q;
                        ip_wq    <= ip_wq_q;
                        ip_clr_q <= ip_ok_q;
                        ip_hold  <= 1'b0;
                    end else begin
                        i_q <= I_LOW;
                    end
                end
                default: i_q <= I_IDLE;
            endcase
        end
    end

    // ------------------------------------------------------------------------------------------
    // The slots' flip-flops: a command's write the cycle after it is decided (with its cmd_done),
    // a flush step's clearing of the RDMA WRITEs of QPs in ERR, the SEND it picks, or a
    // write-back's message kind, decoded into wr_hot_q the cycle before.
    logic             wv1_q, wv2_q, wv3_q;
    logic [SW-1:0]    wslot_q;
    logic [QPS-1:0]   wr_hot_q;
    rx_ctrl_pkg::rcv_t wdata_q;

    for (genvar s = 0; s < QPS; s++) begin : g_slot
        always_ff @(posedge clk) begin
            if (rst) begin
                valid_q[s] <= 1'b0;
                own_q[s]   <= 1'b0;
                msg_q[s]   <= rx_ctrl_pkg::MSG_NONE;
            end else if (vw_q && a_hot_q[s]) begin
                valid_q[s] <= vv_q;
                own_q[s]   <= vv_q && st_kind == K_OWN;
                msg_q[s]   <= rx_ctrl_pkg::MSG_NONE;
            end else if (sweep_start && qp_err[s] && msg_q[s] == rx_ctrl_pkg::MSG_WRITE) begin
                msg_q[s]   <= rx_ctrl_pkg::MSG_NONE;
            end else if (ip_clr_q && ip_hot_q[s]) begin
                msg_q[s]   <= rx_ctrl_pkg::MSG_NONE;
            end else if (wv1_q && wr_hot_q[s]) begin
                msg_q[s]   <= wdata_q.msg;
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // The context RAM: QP_ATTACH writes a slot's words 0..3, a write-back its words 1 to 3 over
    // three cycles; a command reads word 0, the data path words 0..3.
    logic [rx_ctrl_pkg::COLS-1:0] ram_we;
    logic [SW+1:0]                ram_waddr, ram_raddr;
    logic [CW-1:0]                ram_wdata, ram_rdata;
    logic                         ram_re;
    logic                         s1_q, s2_q, s3_q, s4_q, s5_q, s6_q;  // a read in t + 1 .. t + 6
    logic [SW-1:0]                ra_q;
    wire [3*CW-1:0]               wdyn = {74'd0, wdata_q.resp, 24'd0, wdata_q.msg_done,
                                          wdata_q.msg_arg, wdata_q.msg_addr, wdata_q.msg_wq,
                                          wdata_q.epsn};

    always_comb begin
        ram_we    = '0;
        ram_waddr = {wslot_q, wv3_q ? 2'd3 : wv2_q ? 2'd2 : 2'd1};
        ram_wdata = wv3_q ? wdyn[2*CW +: CW] : wv2_q ? wdyn[CW +: CW] : wdyn[0 +: CW];
        if (a_q == A_WRITE) begin
            ram_we    = '1;
            ram_waddr = {a_slot_q, a_word_q};
            ram_wdata = st_bits[CW * a_word_q +: CW];
        end else if (wv1_q || wv2_q || wv3_q) begin
            ram_we = '1;
        end
        ram_re    = (a_q == A_IDLE && cmd_start) || s1_q || s2_q || s3_q || s4_q || ip_rd;
        ram_raddr = a_q == A_IDLE && cmd_start ? {st_slot, 2'd0}
                  : {ra_q, s4_q ? 2'd3 : s3_q || i_q == I_R3 ? 2'd2
                         : s2_q || i_q == I_R2 ? 2'd1 : 2'd0};
    end

    rx_ram #(
        .COLS (rx_ctrl_pkg::COLS),
        .DEPTH(4 * QPS)
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
    // Write-backs.
    always_ff @(posedge clk) begin
        if (rst) begin
            wv1_q <= 1'b0;
            wv2_q <= 1'b0;
            wv3_q <= 1'b0;
        end else begin
            wv1_q <= ctx_wr_valid;
            wv2_q <= wv1_q;
            wv3_q <= wv2_q;
        end
        if (ctx_wr_valid) begin
            wslot_q  <= ctx_wr_slot;
            wdata_q  <= ctx_wr;
            wr_hot_q <= {{(QPS-1){1'b0}}, 1'b1} << ctx_wr_slot;
        end
    end
    assign wr_busy = wv1_q || wv2_q || wv3_q;

    // ------------------------------------------------------------------------------------------
    // Reads: t + 1 samples the flip-flops and reads word 0, t + 2 to t + 4 words 1 to 3, which
    // arrive in t + 3 .. t + 6 (rx_ram); ctx_rd_done is high in t + 7.
    logic                     r_valid_q;
    logic [1:0]               r_msg_q;
    rx_ctrl_pkg::ctx_static_t r_static_q;
    logic [CW-1:0]            r_dyn0_q, r_dyn1_q;
    rx_ctrl_pkg::ctx_dynamic_t dyn;
    assign dyn = {ram_rdata, r_dyn1_q, r_dyn0_q};

    always_ff @(posedge clk) begin
        if (rst) begin
            {s1_q, s2_q, s3_q, s4_q, s5_q, s6_q} <= '0;
            ctx_rd_done <= 1'b0;
        end else begin
            s1_q        <= ctx_rd_valid;
            s2_q        <= s1_q;
            s3_q        <= s2_q;
            s4_q        <= s3_q;
            s5_q        <= s4_q;
            s6_q        <= s5_q;
            ctx_rd_done <= s6_q;
        end
        if (ctx_rd_valid) begin
            ra_q <= ctx_rd_slot;
        end else if (i_q == I_ENC) begin
            ra_q <= encode(ip_hot_q);
        end
        if (s1_q) begin
            r_valid_q <= valid_q[ra_q];
            r_msg_q   <= msg_q[ra_q];
        end
        if (s3_q) r_static_q <= ram_rdata;
        if (s4_q) r_dyn0_q   <= ram_rdata;
        if (s5_q) r_dyn1_q   <= ram_rdata;
        if (s6_q) begin
            ctx_rd.valid         <= r_valid_q;
            ctx_rd.qpn           <= r_static_q.qpn;
            ctx_rd.kind          <= r_static_q.kind;
            ctx_rd.wq            <= r_static_q.wq;
            ctx_rd.ud            <= r_static_q.ud;
            ctx_rd.mtu           <= r_static_q.mtu;
            ctx_rd.pd            <= r_static_q.pd;
            ctx_rd.qkey          <= r_static_q.qkey;
            ctx_rd.rcv.epsn      <= dyn.epsn;
            ctx_rd.rcv.msg       <= r_msg_q;
            ctx_rd.rcv.msg_wq    <= dyn.msg_wq;
            ctx_rd.rcv.msg_addr  <= dyn.msg_addr;
            ctx_rd.rcv.msg_arg   <= dyn.msg_arg;
            ctx_rd.rcv.msg_done  <= dyn.msg_done;
            ctx_rd.rcv.resp      <= dyn.resp;
        end
    end

    // Spare bits; the staged fields' bits above what a context holds (the QPN's range and the
    // queue's are checked whole); the queue a detach names past the queue index.
    wire unused_bits = ^{r_static_q.spare, dyn.spare, dyn.spare3, a_stored_q.spare, a_stored_q.ud,
                         a_stored_q.mtu, a_stored_q.pd, a_stored_q.qkey, st_epsn[31:24],
                         a_stored_q.wq, st_wq, st_target};
    // The pick reads whole words for a few fields of each.
    wire unused_ip = ^{ip_w0, ip_w1, ip_w2};

endmodule

`resetall

`endif  // ROCENIC_RX_CTX_TABLE_SV
