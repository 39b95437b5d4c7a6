// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_NIC_AXIL_SV
`define ROCENIC_NIC_AXIL_SV
`include "rtl/top/nic_regs_pkg.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The full core's register port: one AXI4-Lite slave in front of N block slaves, each in a
// window of the address map (docs/nic-registers.md, model::nic::regs).
//
// A window is 2^ADDR_WS[i] bytes at BASES[i], a multiple of its size, so the decode compares
// the address's upper bits only and the block gets the lower ones unchanged (the offset in its
// own map; the shared m_axil_*addr carry AW bits, the block takes the low bits it has). An
// address in no window reads 0 and a write there is ignored, both answered OKAY, as every
// block's own unmapped offsets are (the model's nic::regs::decode and UNMAPPED_READ).
//
// One write and one read are in flight at a time, each on its own channel: AW and W are taken
// (in either order) into registers, decoded the next cycle, offered to the one block, and its B
// is registered and offered here; AW and W are taken again once that B is. Reads likewise.
// Every valid and ready this module drives comes from a flip-flop: no ready reaches a valid
// combinationally, in either direction. An access costs 3 cycles more than the block's own
// answer: the request registered, decoded and offered, the block's answer registered.
module nic_axil #(
    parameter int              N       = nic_regs_pkg::NIC_WINDOWS,  // block slaves (windows)
    parameter int              AW      = nic_regs_pkg::NIC_ADDR_W,   // address bits of the port
    parameter logic [N*32-1:0] BASES   = nic_regs_pkg::NIC_BASES,    // window i's base at [32i +: 32]
    parameter logic [N*8-1:0]  ADDR_WS = nic_regs_pkg::NIC_ADDR_WS   // window i's log2 size at [8i +: 8]
) (
    input  wire              clk,
    input  wire              rst,             // synchronous, active high
    // the core's register port
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
    // the blocks: a valid and a ready per block, the request fields shared
    output logic [N-1:0]     m_axil_awvalid,
    input  wire  [N-1:0]     m_axil_awready,
    output logic [AW-1:0]    m_axil_awaddr,   // the offset in the block's window
    output logic [N-1:0]     m_axil_wvalid,
    input  wire  [N-1:0]     m_axil_wready,
    output logic [31:0]      m_axil_wdata,
    output logic [3:0]       m_axil_wstrb,
    input  wire  [N-1:0]     m_axil_bvalid,
    output logic [N-1:0]     m_axil_bready,
    input  wire  [N*2-1:0]   m_axil_bresp,    // block i's at [2i +: 2]
    output logic [N-1:0]     m_axil_arvalid,
    input  wire  [N-1:0]     m_axil_arready,
    output logic [AW-1:0]    m_axil_araddr,
    input  wire  [N-1:0]     m_axil_rvalid,
    output logic [N-1:0]     m_axil_rready,
    input  wire  [N*32-1:0]  m_axil_rdata,    // block i's at [32i +: 32]
    input  wire  [N*2-1:0]   m_axil_rresp
);

    // ---- the map, checked at elaboration -------------------------------------------------------
    for (genvar i = 0; i < N; i++) begin : g_check
        localparam int unsigned BITS = {24'd0, ADDR_WS[8*i +: 8]};
        localparam logic [63:0] BASE = 64'(BASES[32*i +: 32]);
        if (BITS < 2 || BITS > AW || BASE >= (64'd1 << AW)) begin : g_bad_window
            $error("nic_axil: window %0d does not fit the %0d-bit port", i, AW);
        end
        if (BASE % (64'd1 << BITS) != 0) begin : g_unaligned
            $error("nic_axil: window %0d's base is not a multiple of its size", i);
        end
        for (genvar j = i + 1; j < N; j++) begin : g_apart
            localparam int unsigned BITS_J = {24'd0, ADDR_WS[8*j +: 8]};
            localparam logic [63:0] BASE_J = 64'(BASES[32*j +: 32]);
            if (BASE < BASE_J + (64'd1 << BITS_J) && BASE_J < BASE + (64'd1 << BITS)) begin : g_overlap
                $error("nic_axil: windows %0d and %0d overlap", i, j);
            end
        end
    end

    // The window `addr` falls in (one-hot, 0 for none).
    function automatic logic [N-1:0] hit_of(input logic [AW-1:0] addr);
        for (int i = 0; i < N; i++) begin
            hit_of[i] = (addr >> ADDR_WS[8*i +: 8]) == (BASES[32*i +: AW] >> ADDR_WS[8*i +: 8]);
        end
    endfunction

    // `addr`'s offset in the window `hit` names (its low bits).
    function automatic logic [AW-1:0] offset_of(input logic [AW-1:0] addr, input logic [N-1:0] hit);
        offset_of = '0;
        for (int i = 0; i < N; i++) begin
            if (hit[i]) offset_of = offset_of | (addr & ~({AW{1'b1}} << ADDR_WS[8*i +: 8]));
        end
    endfunction

    // ---- writes ------------------------------------------------------------------------------
    // IDLE: waiting for AW and W, then the window is chosen; ISSUE: AW and W offered to the
    // block; WAIT: its B awaited; RESP: B offered upstream.
    typedef enum logic [1:0] {W_IDLE, W_ISSUE, W_WAIT, W_RESP} wstate_t;
    wstate_t        wstate_q;
    logic           aw_full_q, w_full_q;
    logic [AW-1:0]  aw_addr_q;
    logic [N-1:0]   wsel_q;        // the block of the write in flight (one-hot)
    logic [N-1:0]   aw_pend_q, w_pend_q, b_wait_q;
    logic [1:0]     bresp_q;

    assign s_axil_awready = !aw_full_q;
    assign s_axil_wready  = !w_full_q;
    assign s_axil_bvalid  = wstate_q == W_RESP;
    assign s_axil_bresp   = bresp_q;
    assign m_axil_awvalid = aw_pend_q;
    assign m_axil_wvalid  = w_pend_q;
    assign m_axil_bready  = b_wait_q;

    logic [N-1:0] aw_hit, aw_taken, w_taken, b_taken;
    assign aw_hit   = hit_of(aw_addr_q);
    assign aw_taken = aw_pend_q & m_axil_awready;
    assign w_taken  = w_pend_q & m_axil_wready;
    assign b_taken  = b_wait_q & m_axil_bvalid;

    // The chosen block's B response.
    logic [1:0] b_resp_sel;
    always_comb begin
        b_resp_sel = 2'b00;
        for (int i = 0; i < N; i++) begin
            if (wsel_q[i]) b_resp_sel = b_resp_sel | m_axil_bresp[2*i +: 2];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wstate_q  <= W_IDLE;
            aw_full_q <= 1'b0;
            w_full_q  <= 1'b0;
            aw_pend_q <= '0;
            w_pend_q  <= '0;
            b_wait_q  <= '0;
        end else begin
            if (s_axil_awvalid && !aw_full_q) aw_full_q <= 1'b1;
            if (s_axil_wvalid && !w_full_q) w_full_q <= 1'b1;
            unique case (wstate_q)
                W_IDLE: if (aw_full_q && w_full_q) begin
                    // An unmapped write goes straight to its OKAY.
                    wstate_q  <= aw_hit == '0 ? W_RESP : W_ISSUE;
                    aw_pend_q <= aw_hit;
                    w_pend_q  <= aw_hit;
                end
                W_ISSUE: begin
                    aw_pend_q <= aw_pend_q & ~aw_taken;
                    w_pend_q  <= w_pend_q & ~w_taken;
                    if ((aw_pend_q & ~aw_taken) == '0 && (w_pend_q & ~w_taken) == '0) begin
                        wstate_q <= W_WAIT;
                        b_wait_q <= wsel_q;
                    end
                end
                W_WAIT: if (b_taken != '0) begin
                    wstate_q <= W_RESP;
                    b_wait_q <= '0;
                end
                W_RESP: if (s_axil_bready) begin
                    wstate_q  <= W_IDLE;
                    aw_full_q <= 1'b0;
                    w_full_q  <= 1'b0;
                end
                default: wstate_q <= W_IDLE;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (s_axil_awvalid && !aw_full_q) aw_addr_q <= s_axil_awaddr;
        if (s_axil_wvalid && !w_full_q) begin
            m_axil_wdata <= s_axil_wdata;
            m_axil_wstrb <= s_axil_wstrb;
        end
        if (wstate_q == W_IDLE) begin
            wsel_q        <= aw_hit;
            m_axil_awaddr <= offset_of(aw_addr_q, aw_hit);
            bresp_q       <= 2'b00;
        end
        if (wstate_q == W_WAIT && b_taken != '0) bresp_q <= b_resp_sel;
    end

    // ---- reads -------------------------------------------------------------------------------
    typedef enum logic [1:0] {R_IDLE, R_ISSUE, R_WAIT, R_RESP} rstate_t;
    rstate_t        rstate_q;
    logic           ar_full_q;
    logic [AW-1:0]  ar_addr_q;
    logic [N-1:0]   rsel_q, ar_pend_q, r_wait_q;
    logic [31:0]    rdata_q;
    logic [1:0]     rresp_q;

    assign s_axil_arready = !ar_full_q;
    assign s_axil_rvalid  = rstate_q == R_RESP;
    assign s_axil_rdata   = rdata_q;
    assign s_axil_rresp   = rresp_q;
    assign m_axil_arvalid = ar_pend_q;
    assign m_axil_rready  = r_wait_q;

    logic [N-1:0] ar_hit, ar_taken, r_taken;
    assign ar_hit   = hit_of(ar_addr_q);
    assign ar_taken = ar_pend_q & m_axil_arready;
    assign r_taken  = r_wait_q & m_axil_rvalid;

    logic [31:0] r_data_sel;
    logic [1:0]  r_resp_sel;
    always_comb begin
        r_data_sel = '0;
        r_resp_sel = 2'b00;
        for (int i = 0; i < N; i++) begin
            if (rsel_q[i]) begin
                r_data_sel = r_data_sel | m_axil_rdata[32*i +: 32];
                r_resp_sel = r_resp_sel | m_axil_rresp[2*i +: 2];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rstate_q  <= R_IDLE;
            ar_full_q <= 1'b0;
            ar_pend_q <= '0;
            r_wait_q  <= '0;
        end else begin
            if (s_axil_arvalid && !ar_full_q) ar_full_q <= 1'b1;
            unique case (rstate_q)
                R_IDLE: if (ar_full_q) begin
                    rstate_q  <= ar_hit == '0 ? R_RESP : R_ISSUE;
                    ar_pend_q <= ar_hit;
                end
                R_ISSUE: if (ar_taken != '0) begin
                    rstate_q  <= R_WAIT;
                    ar_pend_q <= '0;
                    r_wait_q  <= rsel_q;
                end
                R_WAIT: if (r_taken != '0) begin
                    rstate_q <= R_RESP;
                    r_wait_q <= '0;
                end
                R_RESP: if (s_axil_rready) begin
                    rstate_q  <= R_IDLE;
                    ar_full_q <= 1'b0;
                end
                default: rstate_q <= R_IDLE;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (s_axil_arvalid && !ar_full_q) ar_addr_q <= s_axil_araddr;
        // An unmapped read answers 0 (nic_regs_pkg::NIC_UNMAPPED_READ), OKAY.
        if (rstate_q == R_IDLE) begin
            rsel_q        <= ar_hit;
            m_axil_araddr <= offset_of(ar_addr_q, ar_hit);
            rdata_q       <= nic_regs_pkg::NIC_UNMAPPED_READ;
            rresp_q       <= 2'b00;
        end
        if (rstate_q == R_WAIT && r_taken != '0) begin
            rdata_q <= r_data_sel;
            rresp_q <= r_resp_sel;
        end
    end

endmodule

`resetall

`endif  // ROCENIC_NIC_AXIL_SV
