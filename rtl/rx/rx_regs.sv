// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_REGS_SV
`define ROCENIC_RX_REGS_SV
`include "rtl/rx/rx_regs_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive path's AXI4-Lite registers: CONTROL, the staging registers of a work queue and of
// a receive context, STATUS, COMMAND and the counters. The map is rx_regs_pkg, generated from
// model/src/rx/regs.rs (docs/rx-registers.md).
//
// Three kinds of write, as wqe_regs:
//   - plain registers (CONTROL, staging) take the write at once, with its strobes;
//   - COMMAND sets `cmd_pending` (STATUS.BUSY) and is answered at once; no further write is
//     carried out until `cmd_done` (the command runs in rx_ctrl once the data path is idle);
//   - RQ_DOORBELL[wq] and CQ_CONSUMER[wq] (wq < WQS) go to rx_rings as a request (ring_req_*),
//     and the write is answered in the cycle after rx_rings reports `ring_req_done`, the same
//     clock edge at which it stores the result. Their value is the whole word.
//
// AXI4-Lite as wqe_regs: AW and W are taken into holding registers independently, the write is
// carried out when both are held, then B is answered. A read is answered three cycles after AR,
// with the registers of the cycle after AR (the counters and completion producers are LUT RAM,
// read from a registered address into registers, then chosen). Every response is OKAY; unmapped addresses and write-only
// registers read 0, unmapped writes are ignored (a doorbell of a queue >= WQS too), and
// CQ_PRODUCER of a queue that does not exist reads 0. STATUS.DB_ERROR and STATUS.CQ_FAULT clear
// when written with 1.
//
// Counters: a data-path pulse in cycle t counts from t + 3. The DISCARDS words are LUT RAM, which
// a reset cannot clear: a flip-flop per word says it still counts from 0.
module rx_regs #(
    parameter  int WQS        = 64,  // work queues (CAPS.WQS; 256 reads as 0)
    parameter  int QPS        = 64,  // receive-context slots (CAPS.QPS; 256 reads as 0)
    parameter  int MAX_SGE    = 63,  // scatter entries a receive WQE may have (CAPS.MAX_SGE)
    parameter  int DATA_BYTES = 8,   // bytes per beat of the frame input (CAPS.DATA_BYTES)
    parameter  bit RESPONDER  = 1,   // the RC responder is built in (else CONTROL.RESPONDER reads 0)
    parameter  bit REQUESTER  = 0,   // Acknowledge frames may go to a requester (else
                                     // CONTROL.REQUESTER reads 0)
    localparam int AW         = rx_regs_pkg::RX_ADDR_W,
    localparam int WW         = $clog2(WQS)
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
    output logic             responder,       // CONTROL.RESPONDER (0 without the responder)
    output logic             requester,       // CONTROL.REQUESTER (0 without the requester)
    output logic [7:0]       ack_every,       // CONTROL.ACK_EVERY
    output logic [4:0]       rnr_timer,       // CONTROL.RNR_TIMER
    // the staged work queue and receive context, word by word
    output logic [31:0]      wq_qpn,
    output logic [31:0]      wq_pd,
    output logic [31:0]      wq_flags,
    output logic [63:0]      wq_ring_base,
    output logic [63:0]      wq_cq_base,
    output logic [31:0]      qp_qpn,
    output logic [31:0]      qp_target,
    output logic [31:0]      qp_epsn,
    output logic [31:0]      qp_flags,
    output logic [31:0]      qp_pd,
    output logic [31:0]      qp_qkey,
    // the command
    output logic             cmd_pending,     // STATUS.BUSY
    output logic [3:0]       cmd_op,
    output logic [7:0]       cmd_wq,
    output logic [1:0]       cmd_state,
    input  wire              cmd_done,        // one cycle: the command is over...
    input  wire              cmd_error,       // ...and was refused
    // doorbell and completion-consumer writes, to rx_rings
    output logic             ring_req_valid,
    output logic             ring_req_cq,     // 0: RQ_DOORBELL, 1: CQ_CONSUMER
    output logic [7:0]       ring_req_wq,
    output logic [31:0]      ring_req_value,
    input  wire              ring_req_done,   // one cycle: carried out...
    input  wire              ring_req_error,  // ...and refused as out of range (DB_ERROR)
    // CQ_PRODUCER reads (rx_rings' asynchronous port) and the queues that exist
    output logic [WW-1:0]    cq_rd_wq,
    input  wire [31:0]       cq_rd_producer,
    input  wire [WQS-1:0]    wq_valid,
    // status and counters
    input  wire              idle,            // STATUS.IDLE
    input  wire              cq_fault_in,     // sets STATUS.CQ_FAULT
    input  wire              accepted,        // counts ACCEPTED
    input  wire              ack_taken,       // counts ACKS
    input  wire              discard_valid,   // counts DISCARDS[discard_reason]
    input  wire [3:0]        discard_reason
);

    if (WQS < 4 || WQS > 256 || (WQS & (WQS - 1)) != 0) begin : g_bad_wqs
        $error("rx_regs: WQS must be a power of two, 4..256");
    end

    // The arrays' addresses are decoded from their bits: each must lie on a boundary of its size.
    if (32'(rx_regs_pkg::RX_DISCARDS) % 64 != 0 || rx_regs_pkg::RX_DISCARDS_WORDS != 16
        || 32'(rx_regs_pkg::RX_RQ_DOORBELL) % 1024 != 0 || 32'(rx_regs_pkg::RX_CQ_CONSUMER) % 1024 != 0
        || 32'(rx_regs_pkg::RX_CQ_PRODUCER) % 1024 != 0) begin : g_bad_map
        $error("rx_regs: DISCARDS must be 16 words on a 64-byte boundary, the doorbell and completion arrays on 1 KiB ones");
    end

    // The staging registers: consecutive words, and the index of each among them.
    localparam int WQ_BASE  = 32'(rx_regs_pkg::RX_WQ_QPN);
    localparam int WQ_WORDS = (32'(rx_regs_pkg::RX_WQ_CQ_BASE) - WQ_BASE) / 4
                            + rx_regs_pkg::RX_WQ_CQ_BASE_WORDS;
    localparam int W_QPN    = 0;
    localparam int W_PD     = (32'(rx_regs_pkg::RX_WQ_PD) - WQ_BASE) / 4;
    localparam int W_FLAGS  = (32'(rx_regs_pkg::RX_WQ_FLAGS) - WQ_BASE) / 4;
    localparam int W_RING   = (32'(rx_regs_pkg::RX_WQ_RING_BASE) - WQ_BASE) / 4;
    localparam int W_CQ     = (32'(rx_regs_pkg::RX_WQ_CQ_BASE) - WQ_BASE) / 4;
    localparam int QP_BASE  = 32'(rx_regs_pkg::RX_QP_QPN);
    localparam int QP_WORDS = (32'(rx_regs_pkg::RX_QP_QKEY) - QP_BASE) / 4 + 1;
    localparam int Q_QPN    = 0;
    localparam int Q_TARGET = (32'(rx_regs_pkg::RX_QP_TARGET) - QP_BASE) / 4;
    localparam int Q_EPSN   = (32'(rx_regs_pkg::RX_QP_EPSN) - QP_BASE) / 4;
    localparam int Q_FLAGS  = (32'(rx_regs_pkg::RX_QP_FLAGS) - QP_BASE) / 4;
    localparam int Q_PD     = (32'(rx_regs_pkg::RX_QP_PD) - QP_BASE) / 4;
    localparam int Q_QKEY   = (32'(rx_regs_pkg::RX_QP_QKEY) - QP_BASE) / 4;

    function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] data,
                                          input logic [3:0] strb);
        for (int b = 0; b < 4; b++) begin
            merge[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
    endfunction

    // ------------------------------------------------------------------------------------------
    // Registers as software wrote them.
    logic [31:0] control_q;
    logic [31:0] wq_q [WQ_WORDS];
    logic [31:0] qp_q [QP_WORDS];
    logic        cmd_error_q, db_error_q, cq_fault_q;

    assign enable       = control_q[rx_regs_pkg::RX_CONTROL_ENABLE_LSB];
    assign responder    = RESPONDER && control_q[rx_regs_pkg::RX_CONTROL_RESPONDER_LSB];
    assign requester    = REQUESTER && control_q[rx_regs_pkg::RX_CONTROL_REQUESTER_LSB];
    assign ack_every    = control_q[rx_regs_pkg::RX_CONTROL_ACK_EVERY_LSB +: 8];
    assign rnr_timer    = control_q[rx_regs_pkg::RX_CONTROL_RNR_TIMER_LSB +: 5];
    assign wq_qpn       = wq_q[W_QPN];
    assign wq_pd        = wq_q[W_PD];
    assign wq_flags     = wq_q[W_FLAGS];
    assign wq_ring_base = {wq_q[W_RING + 1], wq_q[W_RING]};
    assign wq_cq_base   = {wq_q[W_CQ + 1], wq_q[W_CQ]};
    assign qp_qpn       = qp_q[Q_QPN];
    assign qp_target    = qp_q[Q_TARGET];
    assign qp_epsn      = qp_q[Q_EPSN];
    assign qp_flags     = qp_q[Q_FLAGS];
    assign qp_pd        = qp_q[Q_PD];
    assign qp_qkey      = qp_q[Q_QKEY];

    // ------------------------------------------------------------------------------------------
    // AXI4-Lite write channel.
    logic          aw_held_q, w_held_q;
    logic [AW-1:0] aw_addr_q;
    logic [31:0]   w_data_q;
    logic [3:0]    w_strb_q;

    assign s_axil_awready = !aw_held_q;
    assign s_axil_wready  = !w_held_q;
    assign s_axil_bresp   = 2'b00;

    wire do_write = aw_held_q && w_held_q && !s_axil_bvalid && !cmd_pending && !ring_req_valid;

    // Where a held address points: a doorbell or a consumer word, and its queue. Each array of
    // 256 words lies on a 1 KiB boundary, so the word is the address's bits 9:2.
    wire          in_db = aw_addr_q[AW-1:10] == rx_regs_pkg::RX_RQ_DOORBELL[AW-1:10];
    wire          in_cc = aw_addr_q[AW-1:10] == rx_regs_pkg::RX_CQ_CONSUMER[AW-1:10];
    wire [7:0]    db_wq = aw_addr_q[9:2];
    wire [7:0]    cc_wq = aw_addr_q[9:2];

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_held_q      <= 1'b0;
            w_held_q       <= 1'b0;
            s_axil_bvalid  <= 1'b0;
            cmd_pending    <= 1'b0;
            cmd_error_q    <= 1'b0;
            db_error_q     <= 1'b0;
            cq_fault_q     <= 1'b0;
            ring_req_valid <= 1'b0;
            control_q      <= '0;
            for (int i = 0; i < WQ_WORDS; i++) wq_q[i] <= '0;
            for (int i = 0; i < QP_WORDS; i++) qp_q[i] <= '0;
        end else begin
            if (s_axil_awvalid && s_axil_awready) begin
                aw_held_q <= 1'b1;
                aw_addr_q <= {s_axil_awaddr[AW-1:2], 2'b00};
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
                cq_fault_q <= 1'b1;
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
                aw_held_q      <= 1'b0;
                w_held_q       <= 1'b0;
                s_axil_bvalid  <= 1'b1;
                ring_req_cq    <= in_cc;
                ring_req_wq    <= in_cc ? cc_wq : db_wq;
                ring_req_value <= w_data_q;
                case (aw_addr_q)
                    rx_regs_pkg::RX_CONTROL: control_q <= merge(control_q, w_data_q, w_strb_q);
                    rx_regs_pkg::RX_STATUS: begin
                        // Write 1 to clear; a fault reported in this cycle stays set.
                        if (w_strb_q[0] && w_data_q[rx_regs_pkg::RX_STATUS_DB_ERROR_LSB]) begin
                            db_error_q <= 1'b0;
                        end
                        if (w_strb_q[0] && w_data_q[rx_regs_pkg::RX_STATUS_CQ_FAULT_LSB]
                            && !cq_fault_in) begin
                            cq_fault_q <= 1'b0;
                        end
                    end
                    rx_regs_pkg::RX_COMMAND: begin
                        cmd_pending <= 1'b1;
                        cmd_op      <= w_data_q[rx_regs_pkg::RX_COMMAND_OP_LSB +: 4];
                        cmd_wq      <= w_data_q[rx_regs_pkg::RX_COMMAND_WQ_LSB +: 8];
                        cmd_state   <= w_data_q[rx_regs_pkg::RX_COMMAND_STATE_LSB +: 2];
                    end
                    default: begin
                        for (int i = 0; i < WQ_WORDS; i++) begin
                            if (aw_addr_q == rx_regs_pkg::RX_WQ_QPN + AW'(4 * i)) begin
                                wq_q[i] <= merge(wq_q[i], w_data_q, w_strb_q);
                            end
                        end
                        for (int i = 0; i < QP_WORDS; i++) begin
                            if (aw_addr_q == rx_regs_pkg::RX_QP_QPN + AW'(4 * i)) begin
                                qp_q[i] <= merge(qp_q[i], w_data_q, w_strb_q);
                            end
                        end
                        // A doorbell of a queue the block does not have is ignored.
                        if ((in_db && 32'(db_wq) < WQS) || (in_cc && 32'(cc_wq) < WQS)) begin
                            ring_req_valid <= 1'b1;
                            s_axil_bvalid  <= 1'b0;
                        end
                    end
                endcase
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // Counters. ACCEPTED and ACKS are flip-flops. DISCARDS is LUT RAM, counted in two steps: a pulse's
    // word is read in the cycle after it (d1), or taken from the step after when that one is
    // writing the same word, and written back plus one in the next (d2). A word not counted
    // since reset reads as 0 whatever the RAM holds (fresh_q).
    localparam int ND = rx_regs_pkg::RX_DISCARDS_WORDS;
    (* ram_style = "distributed" *) logic [31:0] discards_mem [ND];
    logic [ND-1:0] fresh_q;
    logic [31:0]   accepted_q, acks_q, d_old_q;
    logic          acc1_q, acc2_q, ack1_q, ack2_q, d1_q, d2_q;
    logic [3:0]    d_reason1_q, d_reason2_q;
    wire  [31:0]   d_new = d_old_q + 32'd1;

    always_ff @(posedge clk) begin
        if (rst) begin
            acc1_q     <= 1'b0;
            acc2_q     <= 1'b0;
            ack1_q     <= 1'b0;
            ack2_q     <= 1'b0;
            acks_q     <= '0;
            d1_q       <= 1'b0;
            d2_q       <= 1'b0;
            accepted_q <= '0;
            fresh_q    <= '1;
        end else begin
            acc1_q     <= accepted;
            acc2_q     <= acc1_q;
            ack1_q     <= ack_taken;
            ack2_q     <= ack1_q;
            // Only a build with the requester's input counts (else ACKS is 0 and no logic).
            acks_q     <= acks_q + 32'(ack2_q && REQUESTER);
            d1_q       <= discard_valid;
            d2_q       <= d1_q;
            accepted_q <= accepted_q + 32'(acc2_q);
            if (d2_q) begin
                fresh_q[d_reason2_q] <= 1'b0;
            end
        end
        d_reason1_q <= discard_reason;
        d_reason2_q <= d_reason1_q;
        d_old_q     <= d2_q && d_reason2_q == d_reason1_q ? d_new
                     : fresh_q[d_reason1_q] ? '0 : discards_mem[d_reason1_q];
    end

    always_ff @(posedge clk) begin
        if (d2_q) begin
            discards_mem[d_reason2_q] <= d_new;
        end
    end

    // ------------------------------------------------------------------------------------------
    // AXI4-Lite read channel: the address is registered with what it points at (a DISCARDS
    // word, on a 64-byte boundary, or a CQ_PRODUCER word, on a 1 KiB one); in the next cycle
    // the plain registers' word, the DISCARDS word and the CQ_PRODUCER word are registered, and
    // in the one after, one of them is answered. Whether a CQ_PRODUCER word's queue exists is
    // picked in two steps, its row of valid bits then the bit (a pick of WQS bits spread over
    // the tables took a clock by itself).
    localparam int VB = WW > 3 ? 3 : WW - 1;   // a row of 2^VB valid bits
    localparam int VR = 2 ** VB;
    logic          ar_q, ar2_q;
    logic [31:0]   rd_plain_q, rd_dis_q, rd_cqp_q;
    logic [VR-1:0] rd_cqp_row_q;
    logic [AW-1:0] ar_addr_q;
    logic          ar_dis_q, ar_cqp_q;
    wire  [AW-1:0] araddr  = {s_axil_araddr[AW-1:2], 2'b00};
    wire  [7:0]    ar_word = ar_addr_q[9:2];

    assign s_axil_arready = !ar_q && !ar2_q && !s_axil_rvalid;
    assign s_axil_rresp   = 2'b00;
    assign cq_rd_wq       = ar_word[WW-1:0];

    // The plain registers' word in two steps: which one the address names, registered with
    // the address (a one-hot of NSEL), then an AND-OR of the words (a decode of the address
    // into a multiplexer took a clock by itself).
    localparam int NSEL = 6 + WQ_WORDS + QP_WORDS;
    logic [NSEL-1:0] ar_sel_q;

    function automatic logic [NSEL-1:0] select(input logic [AW-1:0] addr);
        select    = '0;
        select[0] = addr == rx_regs_pkg::RX_ID;
        select[1] = addr == rx_regs_pkg::RX_CAPS;
        select[2] = addr == rx_regs_pkg::RX_CONTROL;
        select[3] = addr == rx_regs_pkg::RX_STATUS;
        select[4] = addr == rx_regs_pkg::RX_ACCEPTED;
        select[5] = addr == rx_regs_pkg::RX_ACKS;
        for (int i = 0; i < WQ_WORDS; i++) begin
            select[6 + i] = addr == rx_regs_pkg::RX_WQ_QPN + AW'(4 * i);
        end
        for (int i = 0; i < QP_WORDS; i++) begin
            select[6 + WQ_WORDS + i] = addr == rx_regs_pkg::RX_QP_QPN + AW'(4 * i);
        end
    endfunction

    function automatic logic [31:0] read_word(input logic [NSEL-1:0] sel);
        logic [31:0] caps, status, control;
        caps   = '0;
        status = '0;
        caps[rx_regs_pkg::RX_CAPS_WQS_LSB +: 8]        = 8'(WQS);
        caps[rx_regs_pkg::RX_CAPS_QPS_LSB +: 8]        = 8'(QPS);
        caps[rx_regs_pkg::RX_CAPS_MAX_SGE_LSB +: 8]    = 8'(MAX_SGE);
        caps[rx_regs_pkg::RX_CAPS_DATA_BYTES_LSB +: 8] = 8'(DATA_BYTES);
        status[rx_regs_pkg::RX_STATUS_BUSY_LSB]      = cmd_pending;
        status[rx_regs_pkg::RX_STATUS_CMD_ERROR_LSB] = cmd_error_q;
        status[rx_regs_pkg::RX_STATUS_DB_ERROR_LSB]  = db_error_q;
        status[rx_regs_pkg::RX_STATUS_CQ_FAULT_LSB]  = cq_fault_q;
        status[rx_regs_pkg::RX_STATUS_IDLE_LSB]      = idle;
        control = '0;
        control[rx_regs_pkg::RX_CONTROL_ENABLE_LSB]       = enable;
        control[rx_regs_pkg::RX_CONTROL_RESPONDER_LSB]    = responder;
        control[rx_regs_pkg::RX_CONTROL_REQUESTER_LSB]    = requester;
        control[rx_regs_pkg::RX_CONTROL_ACK_EVERY_LSB +: 8] = ack_every;
        control[rx_regs_pkg::RX_CONTROL_RNR_TIMER_LSB +: 5] = rnr_timer;
        read_word = (sel[0] ? rx_regs_pkg::RX_ID_VALUE : '0)
                  | (sel[1] ? caps : '0)
                  | (sel[2] ? control : '0)
                  | (sel[3] ? status : '0)
                  | (sel[4] ? accepted_q : '0)
                  | (sel[5] ? acks_q : '0);
        for (int i = 0; i < WQ_WORDS; i++) begin
            if (sel[6 + i]) read_word = read_word | wq_q[i];
        end
        for (int i = 0; i < QP_WORDS; i++) begin
            if (sel[6 + WQ_WORDS + i]) read_word = read_word | qp_q[i];
        end
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            ar_q          <= 1'b0;
            ar2_q         <= 1'b0;
            s_axil_rvalid <= 1'b0;
        end else begin
            ar_q  <= s_axil_arvalid && s_axil_arready;
            ar2_q <= ar_q;
            if (ar2_q) begin
                s_axil_rvalid <= 1'b1;
                s_axil_rdata  <= ar_dis_q ? rd_dis_q
                               : ar_cqp_q ? (rd_cqp_row_q[ar_word[VB-1:0]] ? rd_cqp_q : '0)
                               : rd_plain_q;
            end else if (s_axil_rready) begin
                s_axil_rvalid <= 1'b0;
            end
        end
        if (ar_q) begin
            rd_plain_q  <= read_word(ar_sel_q);
            rd_dis_q    <= fresh_q[ar_word[3:0]] ? '0 : discards_mem[ar_word[3:0]];
            rd_cqp_q    <= cq_rd_producer;
            rd_cqp_row_q <= wq_valid[VR * ar_word[WW-1:VB] +: VR];
        end
        if (s_axil_arvalid && s_axil_arready) begin
            ar_addr_q <= araddr;
            ar_sel_q  <= select(araddr);
            ar_dis_q  <= araddr[AW-1:6] == rx_regs_pkg::RX_DISCARDS[AW-1:6];
            ar_cqp_q  <= araddr[AW-1:10] == rx_regs_pkg::RX_CQ_PRODUCER[AW-1:10]
                      && 32'(araddr[9:2]) < WQS;
        end
    end

    // CONTROL's bits outside its fields (read back as 0), the byte-in-word address bits (accesses
    // are whole words), and a word index's bits above a queue number (checked when registered).
    wire unused_bits = ^{control_q, s_axil_awaddr[1:0], s_axil_araddr[1:0], ar_word, ar_addr_q};

endmodule

`resetall

`endif  // ROCENIC_RX_REGS_SV
