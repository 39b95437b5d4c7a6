// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_ROCENIC_CORE_SV
`define ROCENIC_ROCENIC_CORE_SV
`include "rtl/top/rocenic_core_regs_pkg.sv"
`include "rtl/top/uart_rx.sv"
`include "rtl/top/uart_tx.sv"
`include "rtl/top/uart_bridge.sv"
`include "rtl/entropy/entropy_unit.sv"
`include "rtl/rss/rss_hash.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The board-independent core of every board top: UART, register bridge, register block and the
// pipelines behind it. Board tops add only the clock (PLL), the reset and the pins, so this
// module is what the co-simulation (sim/tests/board_core.rs) runs end to end.
//
// Register map: 32-bit registers at word addresses, in pages of 16 (common, entropy, RSS, RSS
// key, RSS data), defined in model/src/bridge/regs.rs; rocenic_core_regs_pkg (the addresses
// and fields used here) and docs/core-registers.md are generated from it by `cargo xtask gen`.
// Unmapped addresses read 0 and ignore writes. A write to GO is one submission: the stream's
// valid is held from the write until the unit accepts it; the result sink is always ready, so
// `done` follows within the pipeline's latency (far below one UART byte time).
//
// Bus timing: an access is registered (address, data) in the clock bus_valid rises, carried
// out in the next (writes take effect; the read data of each register group, entropy and
// common or RSS, is registered), the group is picked in the third, and the access acknowledged
// in the fourth: the address adder of the bridge, the decode, the group multiplexers and the
// final choice each get a whole clock at 125 MHz.
// A top of its own: rtl/ is a library of pipelines, and linting all of it at once finds
// several tops (the board tops in rtl/top/boards/ pick theirs).
/* verilator lint_off MULTITOP */
module rocenic_core #(
/* verilator lint_on MULTITOP */
    parameter int CLKS_PER_BIT  = 1085,     // Clock cycles per UART bit: f_clk / baud
    parameter int RSS_MAX_INPUT = 36,       // RSS hash input bytes (multiple of 4, <= 60); 0 = none
    parameter int QPN_SPLIT     = 18,       // Entropy unit's product split: 18 ECP5, 16 iCE40
    parameter int MAX_WORDS     = 16,       // Registers per bridge request
    parameter int IDLE_TIMEOUT  = 16777215  // Quiet cycles that abandon a started frame
) (
    input  wire clk,
    input  wire rst,       // synchronous, active high
    input  wire uart_rx,   // idle high, asynchronous
    output wire uart_tx,   // idle high
    output wire activity   // toggles with every bus access (an LED)
);

    if (RSS_MAX_INPUT % 4 != 0 || RSS_MAX_INPUT > 60) begin : g_bad_rss
        $error("rocenic_core: RSS_MAX_INPUT must be a multiple of 4 up to 60, got %0d",
               RSS_MAX_INPUT);
    end

    localparam logic [31:0] ID = rocenic_core_regs_pkg::CORE_ID_VALUE;
    localparam bit HAS_RSS = RSS_MAX_INPUT > 0;
    // MAX_WORDS, RSS input bytes, RSS hash, entropy unit, map version (CORE_CAPS_*).
    localparam logic [31:0] CAPS = {8'(MAX_WORDS), 8'(RSS_MAX_INPUT), 6'd0, HAS_RSS, 1'b1,
                                    8'(rocenic_core_regs_pkg::CORE_MAP_VERSION)};

    // ------------------------------------------------------------------------------------------
    // UART and bridge.
    wire       rx_valid;
    wire       rx_ready;
    wire [7:0] rx_data;
    wire       rx_err;
    wire       tx_valid;
    wire       tx_ready;
    wire [7:0] tx_data;

    uart_rx #(
        .CLKS_PER_BIT(CLKS_PER_BIT)
    ) u_rx (
        .clk    (clk),
        .rst    (rst),
        .rx     (uart_rx),
        .m_valid(rx_valid),
        .m_ready(rx_ready),
        .m_data (rx_data),
        .m_err  (rx_err)
    );

    uart_tx #(
        .CLKS_PER_BIT(CLKS_PER_BIT)
    ) u_tx (
        .clk    (clk),
        .rst    (rst),
        .s_valid(tx_valid),
        .s_ready(tx_ready),
        .s_data (tx_data),
        .tx     (uart_tx)
    );

    wire        bus_valid;
    wire        bus_write;
    wire [15:0] bus_addr;
    wire [31:0] bus_wdata;
    logic       bus_ack_q;
    logic [31:0] bus_rdata_q;

    uart_bridge #(
        .MAX_WORDS   (MAX_WORDS),
        .IDLE_TIMEOUT(IDLE_TIMEOUT)
    ) u_bridge (
        .clk       (clk),
        .rst       (rst),
        .s_rx_valid(rx_valid),
        .s_rx_ready(rx_ready),
        .s_rx_data (rx_data),
        .m_tx_valid(tx_valid),
        .m_tx_ready(tx_ready),
        .m_tx_data (tx_data),
        .bus_valid (bus_valid),
        .bus_write (bus_write),
        .bus_addr  (bus_addr),
        .bus_wdata (bus_wdata),
        .bus_ack   (bus_ack_q),
        .bus_rdata (bus_rdata_q)
    );

    // One access per bus_valid: registered in the first clock, carried out in the second.
    logic        pend_q;      // the access is carried out
    logic        pick_q;      // its read data is picked from the group registers
    logic [3:0]  a_q;         // the register within its page (the pages: page_q below)
    logic [31:0] wd_q;
    logic        we_q;
    wire access = bus_valid && !pend_q && !pick_q && !bus_ack_q;
    wire wr     = pend_q && we_q;

    // Write targets, decoded from bus_addr as the access is registered: a write's enables then
    // come from flip-flops through one gate, where decoding the address in the write's own
    // clock would put a 16-bit compare in front of enables that fan out to 32 flip-flops each.
    localparam int KEY_WORDS  = (RSS_MAX_INPUT + 4) / 4;
    localparam int DATA_WORDS = RSS_MAX_INPUT / 4;
    localparam int W_SCRATCH  = 0;
    localparam int W_E_CTRL   = 1;
    localparam int W_E_LQPN   = 2;
    localparam int W_E_RQPN   = 3;
    localparam int W_E_FL     = 4;
    localparam int W_E_PORTS  = 5;
    localparam int W_E_GO     = 6;
    localparam int W_R_CTRL   = 7;
    localparam int W_R_GO     = 8;
    localparam int W_R_KEY_GO = 9;
    localparam int W_R_KEY    = 10;  // one of the key words
    localparam int W_R_DATA   = 11;  // one of the data words
    logic [11:0] wsel_q;
    // Read pages, decoded the same way: 16-register windows of the common, entropy, RSS
    // control, RSS key and RSS data registers (PAGE_*, the upper address bits of the page's
    // first register); within a page the low four address bits pick the register.
    localparam int P_COMMON  = 0;
    localparam int P_ENTROPY = 1;
    localparam int P_RSS     = 2;
    localparam int P_KEY     = 3;
    localparam int P_DATA    = 4;
    localparam logic [11:0] PAGE_COMMON  = rocenic_core_regs_pkg::CORE_ID[15:4];
    localparam logic [11:0] PAGE_ENTROPY = rocenic_core_regs_pkg::CORE_E_CTRL[15:4];
    localparam logic [11:0] PAGE_RSS     = rocenic_core_regs_pkg::CORE_R_CTRL[15:4];
    localparam logic [11:0] PAGE_KEY     = rocenic_core_regs_pkg::CORE_R_KEY[15:4];
    localparam logic [11:0] PAGE_DATA    = rocenic_core_regs_pkg::CORE_R_DATA[15:4];
    logic [4:0]  page_q;

    always_ff @(posedge clk) begin
        if (access) begin
            a_q  <= bus_addr[3:0];
            wd_q <= bus_wdata;
            we_q <= bus_write;
            wsel_q             <= '0;
            wsel_q[W_SCRATCH]  <= bus_addr == rocenic_core_regs_pkg::CORE_SCRATCH;
            wsel_q[W_E_CTRL]   <= bus_addr == rocenic_core_regs_pkg::CORE_E_CTRL;
            wsel_q[W_E_LQPN]   <= bus_addr == rocenic_core_regs_pkg::CORE_E_LQPN;
            wsel_q[W_E_RQPN]   <= bus_addr == rocenic_core_regs_pkg::CORE_E_RQPN;
            wsel_q[W_E_FL]     <= bus_addr == rocenic_core_regs_pkg::CORE_E_FL;
            wsel_q[W_E_PORTS]  <= bus_addr == rocenic_core_regs_pkg::CORE_E_PORTS;
            wsel_q[W_E_GO]     <= bus_addr == rocenic_core_regs_pkg::CORE_E_GO;
            wsel_q[W_R_CTRL]   <= bus_addr == rocenic_core_regs_pkg::CORE_R_CTRL;
            wsel_q[W_R_GO]     <= bus_addr == rocenic_core_regs_pkg::CORE_R_GO;
            wsel_q[W_R_KEY_GO] <= bus_addr == rocenic_core_regs_pkg::CORE_R_KEY_GO;
            wsel_q[W_R_KEY]    <= bus_addr[15:4] == PAGE_KEY && 32'(bus_addr[3:0]) < KEY_WORDS;
            wsel_q[W_R_DATA]   <= bus_addr[15:4] == PAGE_DATA && 32'(bus_addr[3:0]) < DATA_WORDS;
            page_q[P_COMMON]   <= bus_addr[15:4] == PAGE_COMMON;
            page_q[P_ENTROPY]  <= bus_addr[15:4] == PAGE_ENTROPY;
            page_q[P_RSS]      <= bus_addr[15:4] == PAGE_RSS;
            page_q[P_KEY]      <= bus_addr[15:4] == PAGE_KEY;
            page_q[P_DATA]     <= bus_addr[15:4] == PAGE_DATA;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Common registers and the entropy unit's.
    logic [31:0] scratch_q;
    logic        activity_q;

    logic [3:0]  e_ctrl_q;
    logic [23:0] e_lqpn_q;
    logic [23:0] e_rqpn_q;
    logic [31:0] e_fl_q;
    logic [31:0] e_ports_q;
    logic        e_busy_q;
    logic        e_done_q;
    logic        e_overrun_q;
    logic [19:0] e_res_fl_q;
    logic [15:0] e_res_sport_q;

    wire        e_req_ready;
    wire        e_res_valid;
    wire [19:0] e_res_fl;
    wire [15:0] e_res_sport;

    entropy_unit #(
        .QPN_SPLIT(QPN_SPLIT)
    ) u_entropy (
        .clk             (clk),
        .rst             (rst),
        .s_req_valid     (e_busy_q),
        .s_req_ready     (e_req_ready),
        .s_req_mode      (e_ctrl_q[0]),
        .s_req_profile   (e_ctrl_q[2:1]),
        .s_req_qp_type   (e_ctrl_q[3]),
        .s_req_lqpn      (e_lqpn_q),
        .s_req_rqpn      (e_rqpn_q),
        .s_req_fl        (e_fl_q),
        .s_req_src_port  (e_ports_q[31:16]),
        .s_req_dst_port  (e_ports_q[15:0]),
        .m_res_valid     (e_res_valid),
        .m_res_ready     (1'b1),
        .m_res_flow_label(e_res_fl),
        .m_res_udp_sport (e_res_sport)
    );

    wire e_go = wr && wsel_q[W_E_GO];

    always_ff @(posedge clk) begin
        if (rst) begin
            e_busy_q    <= 1'b0;
            e_done_q    <= 1'b0;
            e_overrun_q <= 1'b0;
            activity_q  <= 1'b0;
        end else begin
            if (access) begin
                activity_q <= !activity_q;
            end
            if (e_busy_q && e_req_ready) begin
                e_busy_q <= 1'b0;
            end
            if (e_res_valid) begin
                e_done_q <= 1'b1;
            end
            if (e_go) begin
                if (e_busy_q) begin
                    e_overrun_q <= 1'b1;
                end else begin
                    e_busy_q    <= 1'b1;
                    e_done_q    <= 1'b0;
                    e_overrun_q <= 1'b0;
                end
            end
        end
    end

    // Request fields and results carry no reset: they only matter with busy or done.
    always_ff @(posedge clk) begin
        if (wr && wsel_q[W_SCRATCH]) begin
            scratch_q <= wd_q;
        end
        // While a request waits for the unit its fields stay as submitted.
        if (wr && !e_busy_q) begin
            if (wsel_q[W_E_CTRL])  e_ctrl_q  <= wd_q[3:0];
            if (wsel_q[W_E_LQPN])  e_lqpn_q  <= wd_q[23:0];
            if (wsel_q[W_E_RQPN])  e_rqpn_q  <= wd_q[23:0];
            if (wsel_q[W_E_FL])    e_fl_q    <= wd_q;
            if (wsel_q[W_E_PORTS]) e_ports_q <= wd_q;
        end
        if (e_res_valid) begin
            e_res_fl_q    <= e_res_fl;
            e_res_sport_q <= e_res_sport;
        end
    end

    // ------------------------------------------------------------------------------------------
    // RSS hash and its registers.
    logic [31:0] rss_rdata;

    if (HAS_RSS) begin : g_rss
        localparam int LEN_W      = $clog2(RSS_MAX_INPUT + 1);

        logic [8:0]  ctrl_q;
        // One register per word the unit takes, addressed by the low four address bits; the
        // rest of each 16-word window reads as 0. (Sized to the unit, not to the window: 16
        // words each would be 1024 flip-flops, most of them never written, which Yosys keeps.)
        logic [31:0] key_q  [KEY_WORDS];
        logic [31:0] data_q [DATA_WORDS];
        wire  [3:0]  sub = a_q;
        logic        busy_q;
        logic        done_q;
        logic        overrun_q;
        logic        key_busy_q;
        logic [31:0] hash_q;

        wire        key_ready;
        wire        req_ready;
        wire        res_valid;
        wire [31:0] res_hash;
        wire [15:0] res_tag;
        logic [KEY_WORDS*32-1:0]  key_flat;
        logic [DATA_WORDS*32-1:0] data_flat;

        for (genvar i = 0; i < KEY_WORDS; i++) begin : g_key
            assign key_flat[KEY_WORDS*32-1-32*i -: 32] = key_q[i];
        end
        for (genvar i = 0; i < DATA_WORDS; i++) begin : g_data
            assign data_flat[DATA_WORDS*32-1-32*i -: 32] = data_q[i];
        end

        rss_hash #(
            .MAX_INPUT(RSS_MAX_INPUT)
        ) u_rss (
            .clk        (clk),
            .rst        (rst),
            .s_key_valid(key_busy_q),
            .s_key_ready(key_ready),
            .s_key      (key_flat),
            .s_req_valid(busy_q),
            .s_req_ready(req_ready),
            .s_req_data (data_flat),
            .s_req_len  (ctrl_q[LEN_W-1:0]),
            .s_req_xor  (ctrl_q[8]),
            .s_req_tag  (16'd0),
            .m_res_valid(res_valid),
            .m_res_ready(1'b1),
            .m_res_hash (res_hash),
            .m_res_tag  (res_tag)
        );

        wire go     = wr && wsel_q[W_R_GO];
        wire key_go = wr && wsel_q[W_R_KEY_GO];
        // A length above RSS_MAX_INPUT acts as RSS_MAX_INPUT in the unit; here it saturates so
        // that the upper bits of the field are not silently cut off.
        wire [7:0] len_sat = wd_q[7:0] > 8'(RSS_MAX_INPUT) ? 8'(RSS_MAX_INPUT)
                                                                 : wd_q[7:0];

        always_ff @(posedge clk) begin
            if (rst) begin
                busy_q     <= 1'b0;
                done_q     <= 1'b0;
                overrun_q  <= 1'b0;
                key_busy_q <= 1'b0;
            end else begin
                if (busy_q && req_ready) begin
                    busy_q <= 1'b0;
                end
                if (key_busy_q && key_ready) begin
                    key_busy_q <= 1'b0;
                end
                if (res_valid) begin
                    done_q <= 1'b1;
                end
                if (go) begin
                    if (busy_q) begin
                        overrun_q <= 1'b1;
                    end else begin
                        busy_q    <= 1'b1;
                        done_q    <= 1'b0;
                        overrun_q <= 1'b0;
                    end
                end
                if (key_go && !key_busy_q) begin
                    key_busy_q <= 1'b1;
                end
            end
        end

        always_ff @(posedge clk) begin
            if (wr && wsel_q[W_R_CTRL] && !busy_q) begin
                ctrl_q <= {wd_q[8], len_sat};
            end
            for (int i = 0; i < KEY_WORDS; i++) begin
                if (wr && wsel_q[W_R_KEY] && sub == 4'(i) && !key_busy_q) begin
                    key_q[i] <= wd_q;
                end
            end
            for (int i = 0; i < DATA_WORDS; i++) begin
                if (wr && wsel_q[W_R_DATA] && sub == 4'(i) && !busy_q) begin
                    data_q[i] <= wd_q;
                end
            end
            if (res_valid) begin
                hash_q <= res_hash;
            end
        end

        // The key and data words padded to whole 16-word pages (the rest reads 0), so that each
        // page is one balanced multiplexer on the low address bits.
        logic [31:0] key_rd  [16];
        logic [31:0] data_rd [16];
        for (genvar i = 0; i < 16; i++) begin : g_rd
            assign key_rd[i]  = i < KEY_WORDS  ? key_q[i < KEY_WORDS ? i : 0]   : 32'd0;
            assign data_rd[i] = i < DATA_WORDS ? data_q[i < DATA_WORDS ? i : 0] : 32'd0;
        end

        always_comb begin
            rss_rdata = 32'd0;
            if (page_q[P_KEY]) begin
                rss_rdata = key_rd[sub];
            end else if (page_q[P_DATA]) begin
                rss_rdata = data_rd[sub];
            end else if (page_q[P_RSS]) begin
                case (sub)
                    rocenic_core_regs_pkg::CORE_R_CTRL[3:0]:   rss_rdata = {23'd0, ctrl_q};
                    rocenic_core_regs_pkg::CORE_R_STATUS[3:0]:
                        rss_rdata = {28'd0, key_busy_q, overrun_q, busy_q, done_q};
                    rocenic_core_regs_pkg::CORE_R_HASH[3:0]:   rss_rdata = hash_q;
                    default: ;
                endcase
            end
        end

        wire unused_rss = ^{res_tag, ctrl_q[7:LEN_W]};
    end else begin : g_no_rss
        assign rss_rdata = 32'd0;
    end

    // ------------------------------------------------------------------------------------------
    // Read data: each group's multiplexer registered, then the group picked; the ack registered.
    logic [31:0] rdata;
    always_comb begin
        rdata = 32'd0;
        if (page_q[P_COMMON]) begin
            case (a_q)
                rocenic_core_regs_pkg::CORE_ID[3:0]:      rdata = ID;
                rocenic_core_regs_pkg::CORE_CAPS[3:0]:    rdata = CAPS;
                rocenic_core_regs_pkg::CORE_SCRATCH[3:0]: rdata = scratch_q;
                default: ;
            endcase
        end else if (page_q[P_ENTROPY]) begin
            case (a_q)
                rocenic_core_regs_pkg::CORE_E_CTRL[3:0]:        rdata = {28'd0, e_ctrl_q};
                rocenic_core_regs_pkg::CORE_E_LQPN[3:0]:        rdata = {8'd0, e_lqpn_q};
                rocenic_core_regs_pkg::CORE_E_RQPN[3:0]:        rdata = {8'd0, e_rqpn_q};
                rocenic_core_regs_pkg::CORE_E_FL[3:0]:          rdata = e_fl_q;
                rocenic_core_regs_pkg::CORE_E_PORTS[3:0]:       rdata = e_ports_q;
                rocenic_core_regs_pkg::CORE_E_STATUS[3:0]:
                    rdata = {29'd0, e_overrun_q, e_busy_q, e_done_q};
                rocenic_core_regs_pkg::CORE_E_FLOW_LABEL[3:0]:  rdata = {12'd0, e_res_fl_q};
                rocenic_core_regs_pkg::CORE_E_UDP_SPORT[3:0]:   rdata = {16'd0, e_res_sport_q};
                default: ;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            pend_q    <= 1'b0;
            pick_q    <= 1'b0;
            bus_ack_q <= 1'b0;
        end else begin
            pend_q    <= access;
            pick_q    <= pend_q;
            bus_ack_q <= pick_q;
        end
    end

    logic [31:0] rdata_q;
    logic [31:0] rss_rdata_q;
    logic        rss_sel_q;
    always_ff @(posedge clk) begin
        if (pend_q) begin
            rdata_q     <= rdata;
            rss_rdata_q <= rss_rdata;
            rss_sel_q   <= |page_q[P_DATA:P_RSS];
        end
        if (pick_q) begin
            bus_rdata_q <= rss_sel_q ? rss_rdata_q : rdata_q;
        end
    end

    assign activity = activity_q;

    // Framing errors are not reported separately: a damaged frame fails its CRC or times out.
    wire unused_rx_err = rx_err;

endmodule

`resetall

`endif  // ROCENIC_ROCENIC_CORE_SV
