// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_RINGS_SV
`define ROCENIC_RX_RINGS_SV
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive path's ring indices: per work queue the receive ring's producer and consumer and
// the completion ring's producer and consumer (32-bit, free-running, LUT RAM), with a `pending`
// bit (producer != consumer) and a `room` bit (fewer than 2^CQ_LOG2 completions unconsumed) in
// flip-flops, where the flush pick sees them all at once. docs/rx.md, "rx_ctrl (RTL)".
//
// Data-path operations run at once, each in a fixed pipeline of three cycles after the one it is
// given in (cycle t), and never wait:
//   take  (consumer + 1)  K1 reads the queue's producer and consumer, K2 counts on, K3 stores
//                         the consumer and whether WQEs are left; from t + 4 it is visible.
//   push  (producer + 1)  P1 reads the completion ring's indices, P2 counts on and decides
//                         whether there is room for another, P3 stores both; visible from t + 4.
// The data path takes only from a queue with a WQE pending and pushes only into one with room
// (it read them first), and never takes (pushes) a queue in the two cycles after a take (push)
// of it.
//
// Register operations, one at a time (ring_req_*, from rx_regs), held until ring_req_done:
//   doorbell     D1 reads, D2 measures, D3 compares, D4 stores, as Doorbell::write: at or behind
//                what the queue has, nothing; up to 2^RING_LOG2 ahead of the consumer, the
//                producer moves; further, nothing and ring_req_error (STATUS.DB_ERROR).
//   CQ consumer  C1 reads, C2 measures, C3 decides, C4 stores, as CompletionRing::write_consumer:
//                in consumer..=producer it moves; at or behind, nothing; up to 2^31 - 1 past
//                the producer, nothing and ring_req_error.
// Either changes nothing for a queue that does not exist. A take in flight (K1..K3) sends a
// doorbell back to D1, a push in flight a consumer write back to C1, so that each is measured
// against indices nothing changes before it stores: its result is that of Doorbell::write or
// write_consumer applied in the cycle after D4 or C4, when ring_req_done is high. While `hold`
// is high (a flush pick reads pending and room over several cycles) either waits in D4 or C4;
// nothing else moves the indices then.
//
// A command's clear (clr_valid, while nothing else runs) restarts a queue's four indices at 0,
// as Wq::new after WQ_WRITE or a modify to RESET, and with clr_shape sets its ring sizes.
module rx_rings #(
    parameter  int WQS = 64,              // work queues, a power of two, 4..256
    localparam int WW  = $clog2(WQS)      // queue index width
) (
    input  wire             clk,
    input  wire             rst,          // synchronous, active high
    input  wire [WQS-1:0]   valid,        // queues that exist
    // register operations (rx_regs)
    input  wire             ring_req_valid,
    input  wire             ring_req_cq,  // 0: RQ_DOORBELL, 1: CQ_CONSUMER
    input  wire [7:0]       ring_req_wq,  // < WQS
    input  wire [31:0]      ring_req_value,
    output logic            ring_req_done,
    output logic            ring_req_error,
    // a queue's indices to 0 (a command)
    input  wire             clr_valid,
    input  wire [WW-1:0]    clr_wq,
    input  wire             clr_shape,    // also set its sizes (WQ_WRITE)
    input  wire [4:0]       clr_ring_log2,
    input  wire [4:0]       clr_cq_log2,
    // data path
    input  wire             take_valid,
    input  wire [WW-1:0]    take_wq,
    input  wire             push_valid,
    input  wire [WW-1:0]    push_wq,
    // per queue
    output logic [WQS-1:0]  pending,
    output logic [WQS-1:0]  room,
    input  wire             hold,         // register operations do not store
    // read ports (asynchronous: the caller registers)
    input  wire [WW-1:0]    view_wq,      // the data path's queue read
    output logic [31:0]     view_consumer,
    output logic [31:0]     view_cq_producer,
    output logic [4:0]      view_ring_log2,
    output logic [4:0]      view_cq_log2,
    input  wire [WW-1:0]    axil_wq,      // a CQ_PRODUCER read
    output logic [31:0]     axil_cq_producer,
    // status
    output logic            busy          // a take or push in flight
);

    if (WQS < 4 || WQS > 256 || (WQS & (WQS - 1)) != 0) begin : g_bad_wqs
        $error("rx_rings: WQS must be a power of two, 4..256, got %0d", WQS);
    end

    (* ram_style = "distributed" *) logic [31:0] prod_mem    [WQS];
    (* ram_style = "distributed" *) logic [31:0] cons_mem    [WQS];
    (* ram_style = "distributed" *) logic [31:0] cq_prod_mem [WQS];
    (* ram_style = "distributed" *) logic [31:0] cq_cons_mem [WQS];
    (* ram_style = "distributed" *) logic [4:0]  rlog2_mem   [WQS];
    (* ram_style = "distributed" *) logic [4:0]  clog2_mem   [WQS];

    // ------------------------------------------------------------------------------------------
    // Takes and pushes: stage valid bits, queue, the one-hot of the queue, and the values.
    logic          k1_q, k2_q, k3_q, p1_q, p2_q, p3_q;
    logic [WW-1:0] k_wq1_q, k_wq2_q, k_wq3_q, p_wq1_q, p_wq2_q, p_wq3_q;
    logic [WQS-1:0] k_hot_q, p_hot_q;
    logic [31:0]   k_prod_q, k_cons_q, k_new_q, p_prod_q, p_cons_q, p_new_q;
    logic          k_left_q, p_room_q;
    logic [4:0]    p_log2_q;

    // A take (push) in K1..K3 (P1..P3), registered: the same bits a clock ahead.
    logic take_busy, push_busy;
    always_ff @(posedge clk) begin
        take_busy <= !rst && (take_valid || k1_q || k2_q);
        push_busy <= !rst && (push_valid || p1_q || p2_q);
    end
    assign busy = take_busy || push_busy;

    // ------------------------------------------------------------------------------------------
    // Register operations.
    typedef enum logic [3:0] {R_IDLE, R_D1, R_D2, R_D3, R_D4, R_C1, R_C2, R_C3, R_C4} rstate_t;
    rstate_t        r_q;
    wire [WW-1:0]   req_wq = ring_req_wq[WW-1:0];
    logic           r_valid_q;          // the queue exists
    logic [31:0]    r_a_q, r_b_q;       // D: producer, consumer; C: producer, consumer
    logic [4:0]     r_log2_q;
    logic [31:0]    r_ahead_q;          // value - consumer
    logic [31:0]    r_have_q;           // D: producer - consumer; C: producer - consumer (used)
    logic [31:0]    r_past_q;           // C: value - producer
    logic [31:0]    r_ahm1_q;           // D: value - consumer - 1...
    logic [31:0]    r_high_q;           // ...and the bits from RING_LOG2 up
    // D3: Ring::advance's two tests, C3: write_consumer's, each folded with the queue's
    // existence into what D4 (C4) does: store, or answer an error. The stores write the LUT
    // RAMs, whose write enables reach every bank: they are one gate from flip-flops.
    logic           r_move_q, r_err_q;
    logic [WQS-1:0] r_hot_q;

    // A take (push) in flight sends a doorbell (consumer write) back to its first step.
    wire d_hold = take_busy;
    wire c_hold = push_busy;
    wire d_store = r_q == R_D4 && !d_hold && !hold;
    wire c_store = r_q == R_C4 && !c_hold && !hold;
    wire d_move  = d_store && r_move_q;
    wire c_move  = c_store && r_move_q;

    assign ring_req_done  = d_store || c_store;
    assign ring_req_error = (d_store || c_store) && r_err_q;

    // ------------------------------------------------------------------------------------------
    // LUT RAM ports: the receive ring's indices are read by a take or a doorbell (never both in
    // one cycle: a doorbell waits in D1 while a take is in flight), the completion ring's by a
    // push or a consumer write. The address is chosen a cycle ahead, so that it comes from a
    // flip-flop: a take's or push's queue in its K1 or P1, else the request's.
    logic [WW-1:0] rd_ring, rd_cq;
    always_ff @(posedge clk) begin
        rd_ring <= take_valid ? take_wq : req_wq;
        rd_cq   <= push_valid ? push_wq : req_wq;
    end
    // A doorbell's producer and a consumer write's consumer are stored the cycle after D4 (C4),
    // from registers (w_*): the LUT RAMs' write enables reach every bank, and from the store's
    // decision (the state, the verdict, the take or push in flight, the hold) they were five
    // LUTs deep (rx_ctrl's worst path, 121.5 MHz). A read in that cycle takes the value from the
    // registers, so every reader sees the index as if it were stored in D4 (C4).
    logic          w_prod_q, w_cons_q;
    logic [WW-1:0] w_wq_q;
    logic [31:0]   w_value_q;
    always_ff @(posedge clk) begin
        w_prod_q  <= !rst && d_move;
        w_cons_q  <= !rst && c_move;
        w_wq_q    <= req_wq;
        w_value_q <= ring_req_value;
    end
    wire [31:0]   prod_rd    = w_prod_q && w_wq_q == rd_ring ? w_value_q : prod_mem[rd_ring];
    wire [31:0]   cons_rd    = cons_mem[rd_ring];
    wire [4:0]    rlog2_rd   = rlog2_mem[rd_ring];
    wire [31:0]   cq_prod_rd = cq_prod_mem[rd_cq];
    wire [31:0]   cq_cons_rd = w_cons_q && w_wq_q == rd_cq ? w_value_q : cq_cons_mem[rd_cq];
    wire [4:0]    clog2_rd   = clog2_mem[rd_cq];

    assign view_consumer    = cons_mem[view_wq];
    assign view_cq_producer = cq_prod_mem[view_wq];
    assign view_ring_log2   = rlog2_mem[view_wq];
    assign view_cq_log2     = clog2_mem[view_wq];
    assign axil_cq_producer = cq_prod_mem[axil_wq];

    always_ff @(posedge clk) begin
        if (clr_valid) begin
            prod_mem[clr_wq]    <= '0;
            cons_mem[clr_wq]    <= '0;
            cq_prod_mem[clr_wq] <= '0;
            cq_cons_mem[clr_wq] <= '0;
        end else begin
            if (w_prod_q) prod_mem[w_wq_q] <= w_value_q;
            if (k3_q)   cons_mem[k_wq3_q] <= k_new_q;
            if (p3_q)   cq_prod_mem[p_wq3_q] <= p_new_q;
            if (w_cons_q) cq_cons_mem[w_wq_q] <= w_value_q;
        end
        if (clr_valid && clr_shape) begin
            rlog2_mem[clr_wq] <= clr_ring_log2;
            clog2_mem[clr_wq] <= clr_cq_log2;
        end
    end

    // ------------------------------------------------------------------------------------------
    // The take and push pipelines.
    always_ff @(posedge clk) begin
        if (rst) begin
            {k1_q, k2_q, k3_q, p1_q, p2_q, p3_q} <= '0;
        end else begin
            k1_q <= take_valid;
            k2_q <= k1_q;
            k3_q <= k2_q;
            p1_q <= push_valid;
            p2_q <= p1_q;
            p3_q <= p2_q;
        end
        k_wq1_q <= take_wq;
        k_wq2_q <= k_wq1_q;
        k_wq3_q <= k_wq2_q;
        p_wq1_q <= push_wq;
        p_wq2_q <= p_wq1_q;
        p_wq3_q <= p_wq2_q;
        // K1, P1: read.
        k_prod_q <= prod_rd;
        k_cons_q <= cons_rd;
        k_hot_q  <= {{(WQS-1){1'b0}}, 1'b1} << k_wq1_q;
        p_prod_q <= cq_prod_rd;
        p_cons_q <= cq_cons_rd;
        p_log2_q <= clog2_rd;
        p_hot_q  <= {{(WQS-1){1'b0}}, 1'b1} << p_wq1_q;
        // K2, P2: count on. Producer - consumer is 1..2^16 before a take and 0..2^16 - 1 before
        // a push, so 17 bits of each tell. The room verdict is settled here, not in P3, so that
        // the store into the 64 room bits (spread where the flush pick and the views read them)
        // starts from one flip-flop: used < 2^CQ_LOG2 (CQ_LOG2 <= 16).
        k_new_q  <= k_cons_q + 32'd1;
        k_left_q <= k_prod_q[16:0] - k_cons_q[16:0] != 17'd1;
        p_new_q  <= p_prod_q + 32'd1;
        p_room_q <= ((p_prod_q[16:0] - p_cons_q[16:0] + 17'd1) & (17'h1FFFF << p_log2_q)) == '0;
    end

    // ------------------------------------------------------------------------------------------
    // The pending and room bits: a command's clear, else the one store of a take, a push, a
    // doorbell or a consumer write (a doorbell never stores while a take is in flight, nor a
    // consumer write while a push is), each through a one-hot decode registered before.
    always_ff @(posedge clk) begin
        if (rst) begin
            pending <= '0;
            room    <= '0;
        end else begin
            for (int w = 0; w < WQS; w++) begin
                if (clr_valid && 32'(clr_wq) == w) begin
                    pending[w] <= 1'b0;
                    room[w]    <= 1'b1;
                end else begin
                    if (k3_q && k_hot_q[w]) pending[w] <= k_left_q;
                    if (d_move && r_hot_q[w]) pending[w] <= 1'b1;
                    if (p3_q && p_hot_q[w]) room[w] <= p_room_q;
                    if (c_move && r_hot_q[w]) room[w] <= 1'b1;
                end
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // The register operations' sequence.
    always_ff @(posedge clk) begin
        if (rst) begin
            r_q <= R_IDLE;
        end else begin
            case (r_q)
                R_IDLE: begin
                    if (ring_req_valid && !clr_valid) begin
                        r_q <= ring_req_cq ? R_C1 : R_D1;
                    end
                end
                R_D1: begin
                    if (!d_hold) begin
                        r_q       <= R_D2;
                        r_a_q     <= prod_rd;
                        r_b_q     <= cons_rd;
                        r_log2_q  <= rlog2_rd;
                        r_valid_q <= valid[req_wq];
                    end
                end
                R_D2: begin
                    r_q       <= d_hold ? R_D1 : R_D3;
                    r_ahead_q <= ring_req_value - r_b_q;
                    r_have_q  <= r_a_q - r_b_q;
                    // The far test's terms: value - consumer > 2^RING_LOG2 exactly when
                    // value - consumer - 1 has a bit at RING_LOG2 or above (for 1..2^31 - 1,
                    // the only values it decides: 0 and the upper half are stale), so D3 takes
                    // it as an AND-OR beside the stale test's carry chain.
                    r_ahm1_q  <= ring_req_value + ~r_b_q;
                    r_high_q  <= 32'hFFFF_FFFF << r_log2_q;
                end
                R_D3: begin
                    r_q       <= d_hold ? R_D1 : R_D4;
                    r_hot_q   <= {{(WQS-1){1'b0}}, 1'b1} << req_wq;
                    // stale: at or behind what the queue has; far: past the ring's size.
                    r_move_q  <= r_valid_q && !(r_ahead_q[31] || r_ahead_q <= r_have_q)
                              && (r_ahm1_q & r_high_q) == '0;
                    r_err_q   <= r_valid_q && !(r_ahead_q[31] || r_ahead_q <= r_have_q)
                              && (r_ahm1_q & r_high_q) != '0;
                end
                R_D4: r_q <= d_hold ? R_D1 : hold ? R_D4 : R_IDLE;
                R_C1: begin
                    if (!c_hold) begin
                        r_q       <= R_C2;
                        r_a_q     <= cq_prod_rd;
                        r_b_q     <= cq_cons_rd;
                        r_valid_q <= valid[req_wq];
                    end
                end
                R_C2: begin
                    r_q       <= c_hold ? R_C1 : R_C3;
                    r_ahead_q <= ring_req_value - r_b_q;
                    r_have_q  <= r_a_q - r_b_q;
                    r_past_q  <= ring_req_value - r_a_q;
                end
                R_C3: begin
                    r_q     <= c_hold ? R_C1 : R_C4;
                    r_hot_q <= {{(WQS-1){1'b0}}, 1'b1} << req_wq;
                    // write_consumer: up to 2^31 - 1 past the producer is an error; else a new
                    // consumer in consumer..=producer moves.
                    r_err_q  <= r_valid_q && r_past_q != '0 && !r_past_q[31];
                    r_move_q <= r_valid_q && !(r_past_q != '0 && !r_past_q[31])
                             && r_ahead_q != '0 && r_ahead_q <= r_have_q;
                end
                R_C4: r_q <= c_hold ? R_C1 : hold ? R_C4 : R_IDLE;
                default: r_q <= R_IDLE;
            endcase
        end
    end

    // The request's queue bits above an index (rx_regs sends queues below WQS only).
    wire unused_req = ^{ring_req_wq, k_prod_q[31:17], p_cons_q[31:17]};

endmodule

`resetall

`endif  // ROCENIC_RX_RINGS_SV
