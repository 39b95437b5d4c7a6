// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_WQE_REGS_SV
`define ROCENIC_WQE_REGS_SV
`include "rtl/wqe/wqe_pkg.sv"
`include "rtl/wqe/wqe_regs_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The WQE engine's AXI4-Lite registers: configuration, the staging registers of a QP and of a
// memory region, STATUS and the counters. The map is wqe_regs_pkg, generated from
// model/src/wqe/regs.rs (docs/wqe-registers.md).
//
// Three kinds of write:
//   - plain registers (configuration, staging) take the write at once, with its strobes;
//   - COMMAND sets `cmd_pending` (STATUS.BUSY) and is answered at once; no further write is
//     carried out until `cmd_done` (the command runs in wqe_ctrl once the engine is quiet);
//   - SQ_DOORBELL[slot] (slot < QPS) and CQ_CONSUMER go to the scheduler's ring unit as a
//     request (ring_req_*), and the write is answered in the cycle after the unit reports
//     `ring_req_done`, the same clock edge at which the unit stores the result: a doorbell's
//     effect is visible from the first cycle its B response is. Their value is the whole word.
//
// AXI4-Lite as rss_regs: AW and W are taken into holding registers independently
// (awready/wready are flip-flops), the write is carried out when both are held, then B is
// answered. Reads answer two cycles after AR, with the state of the cycle AR was taken in: the
// registers are read into one register per group in that cycle, and the groups are combined in
// the next. Every response is OKAY; unmapped addresses and write-only registers read 0, and
// unmapped writes are ignored (a doorbell of a slot >= QPS too). STATUS.DB_ERROR and
// STATUS.CQ_FAULT clear when written with 1.
//
// The plain words (written and read back as they are: the NIC's addresses, the completion
// ring's base, the staged region and QP) are in groups of eight, each with its own copy of the
// write data, its write decodes registered with the address, and its own read multiplexer: the
// whole engine does not route on ECP5 when one write-data net and one read multiplexer reach
// every register (docs/wqe-engine.md, "Size, and the ECP5-25F build").
module wqe_regs #(
    parameter  int QPS        = 64,  // QP slots (CAPS.QPS; 256 reads as 0)
    parameter  int MRS        = 64,  // memory-region table entries (CAPS.MRS; 256 reads as 0)
    parameter  int MAX_SGE    = 16,  // data segments a WQE may have (CAPS.MAX_SGE)
    parameter  int DATA_BYTES = 8,   // bytes per beat of the frame output (CAPS.DATA_BYTES)
    parameter  int TSO        = 0,   // the data path runs TSO work requests (CAPS.TSO)
    parameter  int RELIABLE   = 0,   // the reliable transport is built in (CAPS2.RELIABLE)
    localparam int AW         = wqe_regs_pkg::WQE_ADDR_W
) (
    input  wire              clk,
    input  wire              rst,             // synchronous, active high
    // AXI4-Lite slave
    input  wire              s_axil_awvalid,
    output logic             s_axil_awready,
    input  wire [AW-1:0]     s_axil_awaddr,
    input  wire              s_axil_wvalid,
    output logic             s_axil_wready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    output logic             s_axil_bvalid,
    input  wire              s_axil_bready,
    output logic [1:0]       s_axil_bresp,
    input  wire              s_axil_arvalid,
    output logic             s_axil_arready,
    input  wire [AW-1:0]     s_axil_araddr,
    output logic             s_axil_rvalid,
    input  wire              s_axil_rready,
    output logic [31:0]      s_axil_rdata,
    output logic [1:0]       s_axil_rresp,
    // configuration
    output logic             enable,          // CONTROL.ENABLE
    output logic [1:0]       profile,         // CONTROL.PROFILE
    output logic             reliable,        // CONTROL.RELIABLE (0 unless built in)
    output logic [31:0]      rc_timing,       // RC_TIMING as written
    output logic [31:0]      rc_clock,        // RC_CLOCK as written
    output logic [47:0]      nic_mac,
    output logic [31:0]      nic_ipv4,
    output logic [127:0]     nic_ipv6,
    output logic [63:0]      cq_base,
    output logic [4:0]       cq_log2,
    output logic             cq_restart,      // one cycle after a CQ_LOG2 write: indices to 0
    // the staged QP (its entropy cell 0) and memory region
    output wqe_pkg::qp_image_t qp_staged,
    output logic [31:0]      mr_lkey,
    output logic [31:0]      mr_pd,
    output logic [3:0]       mr_access,
    output logic [63:0]      mr_base,
    output logic [63:0]      mr_length,
    // the command
    output logic             cmd_pending,     // STATUS.BUSY
    output logic [3:0]       cmd_op,
    output logic [7:0]       cmd_slot,
    output logic [2:0]       cmd_state,
    input  wire              cmd_done,        // one cycle: the command is over...
    input  wire              cmd_error,       // ...and was refused
    // doorbell and completion-ring consumer writes, to the ring unit
    output logic             ring_req_valid,
    output logic             ring_req_cq,     // 0: SQ_DOORBELL[ring_req_slot], 1: CQ_CONSUMER
    output logic [7:0]       ring_req_slot,
    output logic [31:0]      ring_req_value,
    input  wire              ring_req_done,   // one cycle: carried out...
    input  wire              ring_req_error,  // ...and refused as too far ahead (DB_ERROR)
    // status
    input  wire              idle,            // STATUS.IDLE
    input  wire              cq_fault_in,     // sets STATUS.CQ_FAULT
    output logic             cq_fault,        // STATUS.CQ_FAULT, sticky
    input  wire [31:0]       cq_consumer,
    input  wire [31:0]       cq_producer,
    input  wire              wqe_retire,      // counts WQES
    input  wire              frame_sent,      // counts FRAMES...
    input  wire              ack_sent         // ...as does this (an acknowledgement frame)
);

    if (QPS < 4 || QPS > 256 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
        $error("wqe_regs: QPS must be a power of two, 4..256");
    end

    // The QP staging registers: consecutive words from QP_QPN to the end of QP_SQ_BASE, and
    // the index of each register among them.
    localparam int QP_BASE  = 32'(wqe_regs_pkg::WQE_QP_QPN);
    localparam int QP_WORDS = (32'(wqe_regs_pkg::WQE_QP_SQ_BASE) - QP_BASE) / 4
                            + wqe_regs_pkg::WQE_QP_SQ_BASE_WORDS;
    localparam int Q_QPN    = 0;
    localparam int Q_FLAGS  = (32'(wqe_regs_pkg::WQE_QP_FLAGS) - QP_BASE) / 4;
    localparam int Q_PD     = (32'(wqe_regs_pkg::WQE_QP_PD) - QP_BASE) / 4;
    localparam int Q_PSN    = (32'(wqe_regs_pkg::WQE_QP_PSN) - QP_BASE) / 4;
    localparam int Q_DEST   = (32'(wqe_regs_pkg::WQE_QP_DEST_QPN) - QP_BASE) / 4;
    localparam int Q_QKEY   = (32'(wqe_regs_pkg::WQE_QP_QKEY) - QP_BASE) / 4;
    localparam int Q_AV     = (32'(wqe_regs_pkg::WQE_QP_AV) - QP_BASE) / 4;
    localparam int Q_FL     = (32'(wqe_regs_pkg::WQE_QP_FLOW_LABEL) - QP_BASE) / 4;
    localparam int Q_DMAC   = (32'(wqe_regs_pkg::WQE_QP_DMAC) - QP_BASE) / 4;
    localparam int Q_SMAC   = (32'(wqe_regs_pkg::WQE_QP_SMAC) - QP_BASE) / 4;
    localparam int Q_SRC    = (32'(wqe_regs_pkg::WQE_QP_SRC_IP) - QP_BASE) / 4;
    localparam int Q_DST    = (32'(wqe_regs_pkg::WQE_QP_DST_IP) - QP_BASE) / 4;
    localparam int Q_SQ     = (32'(wqe_regs_pkg::WQE_QP_SQ_BASE) - QP_BASE) / 4;

    // The plain words, in this order; a group is eight consecutive ones.
    localparam int P_NIC_MAC   = 0;
    localparam int P_NIC_IPV6  = P_NIC_MAC + wqe_regs_pkg::WQE_NIC_MAC_WORDS;
    localparam int P_CQ_BASE   = P_NIC_IPV6 + wqe_regs_pkg::WQE_NIC_IPV6_WORDS;
    localparam int P_MR_LKEY   = P_CQ_BASE + wqe_regs_pkg::WQE_CQ_BASE_WORDS;
    localparam int P_MR_PD     = P_MR_LKEY + 1;
    localparam int P_MR_ACCESS = P_MR_PD + 1;
    localparam int P_MR_BASE   = P_MR_ACCESS + 1;
    localparam int P_MR_LENGTH = P_MR_BASE + wqe_regs_pkg::WQE_MR_BASE_WORDS;
    localparam int P_NIC_IPV4  = P_MR_LENGTH + wqe_regs_pkg::WQE_MR_LENGTH_WORDS;
    localparam int P_QP        = P_NIC_IPV4 + 1;
    localparam int PN          = P_QP + QP_WORDS;  // plain words
    localparam int PG          = (PN + 7) / 8;     // groups

    // The address of plain word k.
    function automatic logic [AW-1:0] plain_addr(input int k);
        if (k < P_NIC_IPV6) begin
            plain_addr = wqe_regs_pkg::WQE_NIC_MAC + AW'(4 * (k - P_NIC_MAC));
        end else if (k < P_CQ_BASE) begin
            plain_addr = wqe_regs_pkg::WQE_NIC_IPV6 + AW'(4 * (k - P_NIC_IPV6));
        end else if (k < P_MR_LKEY) begin
            plain_addr = wqe_regs_pkg::WQE_CQ_BASE + AW'(4 * (k - P_CQ_BASE));
        end else if (k == P_MR_LKEY) begin
            plain_addr = wqe_regs_pkg::WQE_MR_LKEY;
        end else if (k == P_MR_PD) begin
            plain_addr = wqe_regs_pkg::WQE_MR_PD;
        end else if (k == P_MR_ACCESS) begin
            plain_addr = wqe_regs_pkg::WQE_MR_ACCESS;
        end else if (k < P_MR_LENGTH) begin
            plain_addr = wqe_regs_pkg::WQE_MR_BASE + AW'(4 * (k - P_MR_BASE));
        end else if (k < P_NIC_IPV4) begin
            plain_addr = wqe_regs_pkg::WQE_MR_LENGTH + AW'(4 * (k - P_MR_LENGTH));
        end else if (k == P_NIC_IPV4) begin
            plain_addr = wqe_regs_pkg::WQE_NIC_IPV4;
        end else begin
            plain_addr = wqe_regs_pkg::WQE_QP_QPN + AW'(4 * (k - P_QP));
        end
    endfunction

    function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] data,
                                          input logic [3:0] strb);
        for (int b = 0; b < 4; b++) begin
            merge[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
    endfunction

    // ------------------------------------------------------------------------------------------
    // Registers as software wrote them.
    logic [31:0]          control_q;
    logic [PN-1:0][31:0]  plain_q;
    logic                 cmd_error_q, db_error_q;
    logic [31:0]          wqes_q, frames_q;

    assign enable    = control_q[wqe_regs_pkg::WQE_CONTROL_ENABLE_LSB];
    assign profile   = control_q[wqe_regs_pkg::WQE_CONTROL_PROFILE_LSB +: 2];
    assign reliable  = RELIABLE != 0 && control_q[wqe_regs_pkg::WQE_CONTROL_RELIABLE_LSB];
    assign nic_ipv4  = plain_q[P_NIC_IPV4];
    assign nic_mac   = {plain_q[P_NIC_MAC], plain_q[P_NIC_MAC + 1][31:16]};
    assign nic_ipv6  = {plain_q[P_NIC_IPV6], plain_q[P_NIC_IPV6 + 1], plain_q[P_NIC_IPV6 + 2],
                        plain_q[P_NIC_IPV6 + 3]};
    assign cq_base   = {plain_q[P_CQ_BASE + 1], plain_q[P_CQ_BASE]};
    assign mr_lkey   = plain_q[P_MR_LKEY];
    assign mr_pd     = plain_q[P_MR_PD];
    assign mr_access = plain_q[P_MR_ACCESS][3:0];
    assign mr_base   = {plain_q[P_MR_BASE + 1], plain_q[P_MR_BASE]};
    assign mr_length = {plain_q[P_MR_LENGTH + 1], plain_q[P_MR_LENGTH]};

    // The staged QP in the form the table stores.
    logic [QP_WORDS-1:0][31:0] qp_q;
    assign qp_q = plain_q[P_QP +: QP_WORDS];
    always_comb begin
        qp_staged             = '0;
        qp_staged.qpn         = qp_q[Q_QPN][23:0];
        qp_staged.dest_qpn    = qp_q[Q_DEST][23:0];
        qp_staged.first_psn   = qp_q[Q_PSN][23:0];
        qp_staged.app_fl      = qp_q[Q_FL][19:0];
        qp_staged.pd          = qp_q[Q_PD];
        qp_staged.qkey        = qp_q[Q_QKEY];
        qp_staged.ud          = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_UD_LSB];
        qp_staged.ipv6        = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_IPV6_LSB];
        qp_staged.vlan        = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_VLAN_LSB];
        qp_staged.pcp         = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_PCP_LSB +: 3];
        qp_staged.mtu         = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_MTU_LSB +: 3];
        qp_staged.raw         = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_RAW_LSB];
        qp_staged.stride_log2 = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_STRIDE_LOG2_LSB +: 3];
        qp_staged.ring_log2   = qp_q[Q_FLAGS][wqe_regs_pkg::WQE_QP_FLAGS_RING_LOG2_LSB +: 5];
        qp_staged.vid         = qp_q[Q_AV][wqe_regs_pkg::WQE_QP_AV_VID_LSB +: 12];
        qp_staged.tclass      = qp_q[Q_AV][wqe_regs_pkg::WQE_QP_AV_TCLASS_LSB +: 8];
        qp_staged.hop_limit   = qp_q[Q_AV][wqe_regs_pkg::WQE_QP_AV_HOP_LIMIT_LSB +: 8];
        qp_staged.dmac        = {qp_q[Q_DMAC], qp_q[Q_DMAC + 1][31:16]};
        qp_staged.smac        = {qp_q[Q_SMAC], qp_q[Q_SMAC + 1][31:16]};
        qp_staged.src_ip      = {qp_q[Q_SRC], qp_q[Q_SRC + 1], qp_q[Q_SRC + 2], qp_q[Q_SRC + 3]};
        qp_staged.dst_ip      = {qp_q[Q_DST], qp_q[Q_DST + 1], qp_q[Q_DST + 2], qp_q[Q_DST + 3]};
        qp_staged.sq_base     = {qp_q[Q_SQ + 1], qp_q[Q_SQ][31:6]};
    end

    // ------------------------------------------------------------------------------------------
    // AXI4-Lite write channel.
    logic          aw_held_q, w_held_q;
    logic [AW-1:0] aw_addr_q;
    logic [31:0]   w_data_q;
    logic [3:0]    w_strb_q;
    logic [PN-1:0] aw_plain_q;               // which plain word the held address is
    logic [PG-1:0][31:0] g_data_q;           // each group's copy of the held write data
    logic [PG-1:0][3:0]  g_strb_q;

    assign s_axil_awready = !aw_held_q;
    assign s_axil_wready  = !w_held_q;
    assign s_axil_bresp   = 2'b00;

    wire do_write = aw_held_q && w_held_q && !s_axil_bvalid && !cmd_pending && !ring_req_valid;

    // Each group's copy of do_write, registered from what the five registers it reads will be
    // (below: when do_write is true the held address and data are let go, so it is false the
    // cycle after). With one do_write reaching the 38 plain words' enables, the net was placed
    // out among them, and its own logic (back into STATUS's bits) missed 125 MHz.
    wire do_write_d = !do_write && (aw_held_q || s_axil_awvalid) && (w_held_q || s_axil_wvalid)
                   && !(ring_req_done || (s_axil_bvalid && !s_axil_bready))
                   && !(cmd_pending && !cmd_done) && !(ring_req_valid && !ring_req_done);
    logic [PG-1:0] g_go_q;

    // Where a held address points.
    wire [AW-1:0] aw_word = {s_axil_awaddr[AW-1:2], 2'b00};
    wire [AW-1:0] db_off  = aw_addr_q - wqe_regs_pkg::WQE_SQ_DOORBELL;
    wire          in_db   = aw_addr_q >= wqe_regs_pkg::WQE_SQ_DOORBELL
                         && 32'(db_off) < 4 * wqe_regs_pkg::WQE_SQ_DOORBELL_WORDS;
    wire [7:0]    db_slot = db_off[9:2];

    always_ff @(posedge clk) begin
        if (s_axil_awvalid && s_axil_awready) begin
            for (int k = 0; k < PN; k++) begin
                aw_plain_q[k] <= aw_word == plain_addr(k);
            end
        end
    end

    for (genvar g = 0; g < PG; g++) begin : g_wdata
        // keep: the copies are alike, and Yosys would merge them back into one.
        (* keep *) always_ff @(posedge clk) begin
            if (s_axil_wvalid && s_axil_wready) begin
                g_data_q[g] <= s_axil_wdata;
                g_strb_q[g] <= s_axil_wstrb;
            end
        end
        (* keep *) always_ff @(posedge clk) begin
            g_go_q[g] <= !rst && do_write_d;
        end
    end

    for (genvar k = 0; k < PN; k++) begin : g_plain
        always_ff @(posedge clk) begin
            if (rst) begin
                plain_q[k] <= '0;
            end else if (g_go_q[k / 8] && aw_plain_q[k]) begin
                plain_q[k] <= merge(plain_q[k], g_data_q[k / 8], g_strb_q[k / 8]);
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_held_q      <= 1'b0;
            w_held_q       <= 1'b0;
            s_axil_bvalid  <= 1'b0;
            cmd_pending    <= 1'b0;
            cmd_error_q    <= 1'b0;
            db_error_q     <= 1'b0;
            cq_fault       <= 1'b0;
            ring_req_valid <= 1'b0;
            cq_restart     <= 1'b0;
            control_q      <= '0;
            // The model's default settings (model::rc::Reliable::default), a tick of 4.096 us at
            // 125 MHz.
            rc_timing      <= (32'd8 << wqe_regs_pkg::WQE_RC_TIMING_TIMEOUT_LSB)
                            | (32'd7 << wqe_regs_pkg::WQE_RC_TIMING_RETRY_CNT_LSB)
                            | (32'd7 << wqe_regs_pkg::WQE_RC_TIMING_RNR_RETRY_LSB)
                            | (32'd16 << wqe_regs_pkg::WQE_RC_TIMING_MAX_INFLIGHT_LSB);
            rc_clock       <= (32'd1 << wqe_regs_pkg::WQE_RC_CLOCK_SCALE_LSB)
                            | (32'd512 << wqe_regs_pkg::WQE_RC_CLOCK_TICK_LSB);
            cq_log2        <= '0;
        end else begin
            cq_restart <= 1'b0;
            if (s_axil_awvalid && s_axil_awready) begin
                aw_held_q <= 1'b1;
                aw_addr_q <= aw_word;
            end
            if (s_axil_wvalid && s_axil_wready) begin
                w_held_q <= 1'b1;
                w_data_q <= s_axil_wdata;
                w_strb_q <= s_axil_wstrb;
            end
            if (s_axil_bvalid && s_axil_bready) begin
                s_axil_bvalid <= 1'b0;
            end
            if (cq_fault_in) begin
                cq_fault <= 1'b1;
            end
            if (cmd_done) begin
                cmd_pending <= 1'b0;
                cmd_error_q <= cmd_error;
            end
            if (ring_req_done) begin
                ring_req_valid <= 1'b0;
                s_axil_bvalid  <= 1'b1;
                if (ring_req_error) begin
                    db_error_q <= 1'b1;
                end
            end
            if (do_write) begin
                aw_held_q     <= 1'b0;
                w_held_q      <= 1'b0;
                s_axil_bvalid <= 1'b1;
                ring_req_slot  <= db_slot;
                ring_req_value <= w_data_q;
                // The plain words are written above.
                case (aw_addr_q)
                    wqe_regs_pkg::WQE_CONTROL:   control_q  <= merge(control_q, w_data_q, w_strb_q);
                    wqe_regs_pkg::WQE_RC_TIMING: rc_timing  <= merge(rc_timing, w_data_q, w_strb_q);
                    wqe_regs_pkg::WQE_RC_CLOCK:  rc_clock   <= merge(rc_clock, w_data_q, w_strb_q);
                    wqe_regs_pkg::WQE_CQ_LOG2: begin
                        cq_log2    <= w_strb_q[0] ? w_data_q[4:0] : cq_log2;
                        cq_restart <= 1'b1;
                    end
                    wqe_regs_pkg::WQE_STATUS: begin
                        // Write 1 to clear; a fault reported in this cycle stays set.
                        if (w_strb_q[0] && w_data_q[wqe_regs_pkg::WQE_STATUS_DB_ERROR_LSB]) begin
                            db_error_q <= 1'b0;
                        end
                        if (w_strb_q[0] && w_data_q[wqe_regs_pkg::WQE_STATUS_CQ_FAULT_LSB] && !cq_fault_in) begin
                            cq_fault <= 1'b0;
                        end
                    end
                    wqe_regs_pkg::WQE_COMMAND: begin
                        cmd_pending <= 1'b1;
                        cmd_op      <= w_data_q[wqe_regs_pkg::WQE_COMMAND_OP_LSB +: 4];
                        cmd_slot    <= w_data_q[wqe_regs_pkg::WQE_COMMAND_SLOT_LSB +: 8];
                        cmd_state   <= w_data_q[wqe_regs_pkg::WQE_COMMAND_STATE_LSB +: 3];
                    end
                    wqe_regs_pkg::WQE_CQ_CONSUMER: begin
                        ring_req_valid <= 1'b1;
                        ring_req_cq    <= 1'b1;
                        s_axil_bvalid  <= 1'b0;
                    end
                    default: begin
                        // A doorbell of a slot the block does not have is ignored.
                        if (in_db && 32'(db_slot) < QPS) begin
                            ring_req_valid <= 1'b1;
                            ring_req_cq    <= 1'b0;
                            s_axil_bvalid  <= 1'b0;
                        end
                    end
                endcase
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wqes_q   <= '0;
            frames_q <= '0;
        end else begin
            wqes_q   <= wqes_q + 32'(wqe_retire);
            frames_q <= frames_q + 32'(frame_sent) + 32'(ack_sent);
        end
    end

    // ------------------------------------------------------------------------------------------
    // AXI4-Lite read channel: in the cycle AR is taken, each group of plain words, and the
    // other registers, into a register of their own (zero unless the address is theirs); in
    // the next, their OR into the read data.
    logic                rd_pend_q;
    logic [31:0]         rd_misc_q;
    logic [PG-1:0][31:0] rd_group_q;

    wire          ar_take = s_axil_arvalid && s_axil_arready;
    wire [AW-1:0] ar_word = {s_axil_araddr[AW-1:2], 2'b00};

    assign s_axil_arready = !rd_pend_q && !s_axil_rvalid;
    assign s_axil_rresp   = 2'b00;

    function automatic logic [31:0] read_misc(input logic [AW-1:0] addr);
        read_misc = '0;
        case (addr)
            wqe_regs_pkg::WQE_ID:          read_misc = wqe_regs_pkg::WQE_ID_VALUE;
            wqe_regs_pkg::WQE_CAPS: begin
                read_misc[wqe_regs_pkg::WQE_CAPS_QPS_LSB +: 8]        = 8'(QPS);
                read_misc[wqe_regs_pkg::WQE_CAPS_MRS_LSB +: 8]        = 8'(MRS);
                read_misc[wqe_regs_pkg::WQE_CAPS_MAX_SGE_LSB +: 8]    = 8'(MAX_SGE);
                read_misc[wqe_regs_pkg::WQE_CAPS_DATA_BYTES_LSB +: 6] = 6'(DATA_BYTES); // 64 reads as 0
                read_misc[wqe_regs_pkg::WQE_CAPS_TSO_LSB]             = TSO != 0;
                read_misc[wqe_regs_pkg::WQE_CAPS_RAW_LSB]             = 1'b1;
            end
            wqe_regs_pkg::WQE_CONTROL: begin
                read_misc[wqe_regs_pkg::WQE_CONTROL_ENABLE_LSB]      = enable;
                read_misc[wqe_regs_pkg::WQE_CONTROL_PROFILE_LSB +: 2] = profile;
                read_misc[wqe_regs_pkg::WQE_CONTROL_RELIABLE_LSB]    = reliable;
            end
            wqe_regs_pkg::WQE_CAPS2:
                read_misc[wqe_regs_pkg::WQE_CAPS2_RELIABLE_LSB]      = RELIABLE != 0;
            wqe_regs_pkg::WQE_RC_TIMING:   read_misc = RELIABLE != 0 ? rc_timing : '0;
            wqe_regs_pkg::WQE_RC_CLOCK:    read_misc = RELIABLE != 0 ? rc_clock : '0;
            wqe_regs_pkg::WQE_STATUS: begin
                read_misc[wqe_regs_pkg::WQE_STATUS_BUSY_LSB]      = cmd_pending;
                read_misc[wqe_regs_pkg::WQE_STATUS_CMD_ERROR_LSB] = cmd_error_q;
                read_misc[wqe_regs_pkg::WQE_STATUS_DB_ERROR_LSB]  = db_error_q;
                read_misc[wqe_regs_pkg::WQE_STATUS_CQ_FAULT_LSB]  = cq_fault;
                read_misc[wqe_regs_pkg::WQE_STATUS_IDLE_LSB]      = idle;
            end
            wqe_regs_pkg::WQE_CQ_LOG2:     read_misc = 32'(cq_log2);
            wqe_regs_pkg::WQE_CQ_CONSUMER: read_misc = cq_consumer;
            wqe_regs_pkg::WQE_CQ_PRODUCER: read_misc = cq_producer;
            wqe_regs_pkg::WQE_WQES:        read_misc = wqes_q;
            wqe_regs_pkg::WQE_FRAMES:      read_misc = frames_q;
            default: ;
        endcase
    endfunction

    always_ff @(posedge clk) begin
        if (ar_take) begin
            rd_misc_q <= read_misc(ar_word);
        end
    end

    // The plain words padded to whole groups (the padding reads 0).
    logic [8*PG-1:0][31:0] plain_pad;
    assign plain_pad = (32 * 8 * PG)'(plain_q);

    for (genvar g = 0; g < PG; g++) begin : g_rd
        always_ff @(posedge clk) begin
            if (ar_take) begin
                rd_group_q[g] <= '0;
                for (int j = 0; j < 8; j++) begin
                    if (8 * g + j < PN && ar_word == plain_addr(8 * g + j)) begin
                        rd_group_q[g] <= plain_pad[8 * g + j];
                    end
                end
            end
        end
    end

    logic [31:0] rd_or;
    always_comb begin
        rd_or = rd_misc_q;
        for (int g = 0; g < PG; g++) begin
            rd_or = rd_or | rd_group_q[g];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_pend_q     <= 1'b0;
            s_axil_rvalid <= 1'b0;
        end else begin
            rd_pend_q <= ar_take;
            if (rd_pend_q) begin
                s_axil_rvalid <= 1'b1;
                s_axil_rdata  <= rd_or;
            end else if (s_axil_rready) begin
                s_axil_rvalid <= 1'b0;
            end
        end
    end

    // CONTROL's bits outside its fields, the MR access word's upper bits (both read back as
    // written, or not at all), and the byte-in-word address bits (accesses are whole words).
    wire unused_bits = ^{control_q, plain_q[P_MR_ACCESS][31:4], s_axil_awaddr[1:0],
                         s_axil_araddr[1:0]};

endmodule

`resetall

`endif  // ROCENIC_WQE_REGS_SV
