// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RX_DP_FETCH_SV
`define ROCENIC_RX_DP_FETCH_SV
`include "rtl/rx/rx_dp_pkg.sv"
`include "rtl/wqe/wqe_fmt_pkg.sv"
`include "rtl/rx/rx_ram.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The receive data path's reads and region checks (docs/rx-dp.md), one operation at
// a time, each ending with done for one cycle and a model::qp::Status code:
//   0 WQE    RecvEngine::read_wqe: the WQE's 16-byte header by DMA read (refused: GENERAL_ERR,
//            WR_ID 0), its checks (RWQE.RSVD zero, NSGE 1..63, header and entries within the
//            slot of 64 << stride bytes: else LOC_QP_OP_ERR), its entries by a second read
//            (refused: GENERAL_ERR), and each entry through the region check with local write
//            rights and the queue's PD, in order, the first failure deciding (LOC_LEN_ERR or
//            LOC_PROT_ERR). The entries' addresses and lengths stay in a small RAM for the
//            scatter (ent_rd_*), with their count and the bytes they hold.
//   1 HDR    the header alone (a flush step's WR_ID; 0 when refused)
//   2 RKEY   one region check: an RDMA WRITE's R_Key, VA and DMA length with remote write
// The response port is held while an entry waits for the region check, so entries go to the
// check as they arrive; reads are whole or one error beat, so no check starts for a WQE whose
// entries cannot be read.
module rx_dp_fetch #(
    parameter  int TAG_W = 4      // DMA read tag width (the wqe_engine's; only tag 0 is used)
) (
    input  wire              clk,
    input  wire              rst,          // synchronous, active high
    // one operation: start for one cycle while idle, its inputs held until done
    input  wire              start,
    input  wire [1:0]        op,           // 0 WQE, 1 HDR, 2 RKEY
    input  wire [63:0]       addr,         // WQE / header: its host address; RKEY: the VA
    input  wire [2:0]        stride_log2,  // WQE: the slot is 64 << stride_log2 bytes
    input  wire [31:0]       pd,           // WQE: the queue's PD; RKEY: the QP's
    input  wire [31:0]       rkey,         // RKEY: the R_Key...
    input  wire [31:0]       rlen,         // ...and the DMA length
    output logic             done,         // one cycle...
    output logic [4:0]       status,       // ...with the status, the header's WR_ID...
    output logic [63:0]      wr_id,
    output logic [5:0]       nsge,         // ...the entries...
    output logic [37:0]      capacity,     // ...and the bytes they hold (OP_WQE, success)
    // the entries, for the scatter: ent_rd_idx's entry two clocks later
    input  wire [5:0]        ent_rd_idx,
    output logic [63:0]      ent_rd_addr,
    output logic [31:0]      ent_rd_len,
    // region checks (wqe_mr's lookup port)
    output logic             m_mr_valid,
    input  wire              m_mr_ready,
    output logic [31:0]      m_mr_lkey,
    output logic [31:0]      m_mr_pd,
    output logic [63:0]      m_mr_addr,
    output logic [31:0]      m_mr_len,
    output logic [3:0]       m_mr_access,
    input  wire              s_mr_valid,
    output logic             s_mr_ready,
    input  wire [4:0]        s_mr_status,
    // DMA reads (docs/wqe-dma.md, "DMA interface")
    output logic             m_rd_req_valid,
    input  wire              m_rd_req_ready,
    output logic [63:0]      m_rd_req_addr,
    output logic [12:0]      m_rd_req_len,
    output logic [TAG_W-1:0] m_rd_req_tag,
    input  wire              s_rd_rsp_valid,
    output logic             s_rd_rsp_ready,
    input  wire [63:0]       s_rd_rsp_data,
    input  wire [7:0]        s_rd_rsp_keep,
    input  wire              s_rd_rsp_last,
    input  wire [TAG_W-1:0]  s_rd_rsp_tag,
    input  wire              s_rd_rsp_err
);

    localparam logic [1:0] OP_HDR  = rx_dp_pkg::OP_HDR;
    localparam logic [1:0] OP_RKEY = rx_dp_pkg::OP_RKEY;
    // model::qp::Status codes.
    localparam logic [4:0] ST_SUCCESS     = wqe_fmt_pkg::STATUS_SUCCESS;
    localparam logic [4:0] ST_LOC_QP_OP   = wqe_fmt_pkg::STATUS_LOC_QP_OP_ERR;
    localparam logic [4:0] ST_GENERAL_ERR = wqe_fmt_pkg::STATUS_GENERAL_ERR;
    // model::qp::Access bits.
    localparam logic [3:0] ACC_LOCAL_WRITE  = 4'd1;
    localparam logic [3:0] ACC_REMOTE_WRITE = 4'd2;

    typedef enum logic [2:0] {F_IDLE, F_HDR, F_HCK0, F_HCK, F_ENT, F_CHECKS, F_RKEY} fstate_t;
    (* fsm_encoding = "one-hot" *) fstate_t f_q;

    logic [1:0]  op_q;
    logic [63:0] addr_q;
    logic [2:0]  stride_q;
    logic [31:0] pd_q;
    logic        beat_q;          // which half of a 16-byte unit the next response beat is
    logic [5:0]  got_q;           // entries received
    logic [5:0]  asked_q;         // region checks answered
    logic        fail_q;          // a region check failed already
    logic        wid_ld_q;        // the header's first beat came: WR_ID from m_mr_addr

    // The entries: address and length, written as they arrive. rx_ram reads through two
    // registers (on ECP5 the block RAM's own output register: its read data comes too late in
    // the clock for anything but a flip-flop).
    logic          ent_we;
    logic [5:0]    ent_wa;
    logic [95:0]   ent_wd;
    logic [107:0]  ent_rdata;
    rx_ram #(.COLS(3), .DEPTH(64)) u_ents (
        .clk,
        .we   ({3{ent_we}}),
        .waddr(ent_wa),
        .wdata({12'd0, ent_wd}),
        .re   (1'b1),
        .raddr(ent_rd_idx),
        .rdata(ent_rdata)
    );
    assign {ent_rd_len, ent_rd_addr} = ent_rdata[95:0];
    wire unused_ent = ^ent_rdata[107:96];

    assign m_rd_req_tag = '0;
    assign s_mr_ready   = 1'b1;
    // The response port is ready in F_HDR and F_ENT while no region check waits to be taken.
    // That is a flip-flop, worked out from the next state (f_d, mv_d): the beat's handshake
    // enables a few hundred flip-flops, and from the state's decode it was the whole path's worst
    // path (102.7 MHz).
    fstate_t f_d;
    logic    mv_d, rdy_q;
    assign s_rd_rsp_ready = rdy_q;

    wire rsp = s_rd_rsp_valid && rdy_q;
    // The header's second word, registered (hdr1_q): NSGE in its low byte, the reserved bytes
    // above; its checks registered from it (F_HCK0), then acted on (F_HCK).
    logic [63:0] hdr1_q;
    logic        h_bad_q;
    wire  [7:0]  h_nsge  = hdr1_q[7:0];
    wire         h_rsvd  = hdr1_q[63:8] != 56'd0;
    wire  [10:0] h_need  = 11'd16 + {h_nsge[5:0], 4'b0000};
    wire  [10:0] h_slot  = 11'd64 << stride_q;
    always_ff @(posedge clk) begin
        h_bad_q <= h_rsvd || h_nsge == 8'd0 || h_nsge > 8'd63 || h_need > h_slot;
    end

    // The state and the region check's valid, next.
    always_comb begin
        f_d  = f_q;
        mv_d = m_mr_valid && !m_mr_ready;
        case (f_q)
            F_IDLE: if (start_q) begin
                if (op == OP_RKEY) begin
                    f_d  = F_RKEY;
                    mv_d = 1'b1;
                end else begin
                    f_d = F_HDR;
                end
            end
            F_HDR: if (rsp) begin
                if (s_rd_rsp_err || (beat_q && op_q == OP_HDR)) begin
                    f_d = F_IDLE;
                end else if (beat_q) begin
                    f_d = F_HCK0;
                end
            end
            F_HCK0: f_d = F_HCK;
            F_HCK:  f_d = h_bad_q ? F_IDLE : F_ENT;
            F_ENT: if (rsp) begin
                if (s_rd_rsp_err) begin
                    f_d = F_IDLE;
                end else if (beat_q) begin
                    mv_d = 1'b1;
                    if (s_rd_rsp_last) begin
                        f_d = F_CHECKS;
                    end
                end
            end
            F_CHECKS: if (asked_q == nsge && !m_mr_valid) f_d = F_IDLE;
            F_RKEY:   if (s_mr_valid) f_d = F_IDLE;
            default:  f_d = F_IDLE;
        endcase
    end

    // The start, registered here: it loads a few hundred flip-flops, and in the whole path the
    // data path's state machine lies far from them. The operation's inputs stay put meanwhile.
    logic start_q;
    always_ff @(posedge clk) begin
        start_q <= !rst && start;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            f_q            <= F_IDLE;
            done           <= 1'b0;
            m_rd_req_valid <= 1'b0;
            m_mr_valid     <= 1'b0;
            rdy_q          <= 1'b0;
            ent_we         <= 1'b0;
        end else begin
            f_q        <= f_d;
            m_mr_valid <= mv_d;
            rdy_q      <= (f_d == F_HDR || f_d == F_ENT) && !mv_d;
            done     <= 1'b0;
            ent_we   <= 1'b0;
            wid_ld_q <= 1'b0;
            // Every response beat is taken by the registers that read one, whatever state it
            // comes in: each is used only after its own beat, which is the last to load it. So
            // their enables are the handshake alone, not the state's decisions.
            if (rsp) begin
                hdr1_q    <= s_rd_rsp_data;
                m_mr_len  <= s_rd_rsp_data[31:0];
                m_mr_lkey <= s_rd_rsp_data[63:32];
                ent_wa    <= got_q;
                ent_wd    <= {s_rd_rsp_data[31:0], m_mr_addr};
                if (!beat_q) begin
                    m_mr_addr <= s_rd_rsp_data;
                end
            end
            // WR_ID a clock after its beat (the header's first), from m_mr_addr: done comes no
            // earlier than the beat after it.
            if (wid_ld_q) begin
                wr_id <= m_mr_addr;
            end
            // The bytes the entries hold, a clock after each entry is stored (done comes after
            // its region check, later still).
            if (ent_we) begin
                capacity <= capacity + 38'(ent_wd[95:64]);
            end
            if (m_rd_req_valid && m_rd_req_ready) begin
                m_rd_req_valid <= 1'b0;
            end
            if (s_mr_valid && f_q != F_IDLE) begin
                asked_q <= asked_q + 6'd1;
                if (!fail_q && s_mr_status != ST_SUCCESS) begin
                    fail_q <= 1'b1;
                    status <= s_mr_status;
                end
            end
            case (f_q)
                F_IDLE: begin
                    // The operation's inputs are taken every idle cycle (they are held from the
                    // start on, and no request is out while idle), so only the few registers that
                    // must keep their values until the next start wait for start_q.
                    op_q          <= op;
                    addr_q        <= addr;
                    stride_q      <= stride_log2;
                    pd_q          <= pd;
                    beat_q        <= 1'b0;
                    got_q         <= '0;
                    asked_q       <= '0;
                    fail_q        <= 1'b0;
                    m_mr_lkey     <= rkey;
                    m_mr_pd       <= pd;
                    m_mr_addr     <= addr;
                    m_mr_len      <= rlen;
                    m_mr_access   <= ACC_REMOTE_WRITE;
                    m_rd_req_addr <= addr;
                    m_rd_req_len  <= 13'd16;
                    if (start_q) begin
                        status   <= ST_SUCCESS;
                        wr_id    <= '0;
                        capacity <= '0;
                        if (op != OP_RKEY) begin
                            m_rd_req_valid <= 1'b1;
                        end
                    end
                end
                F_HDR: if (rsp) begin
                    beat_q <= !beat_q;
                    if (s_rd_rsp_err) begin
                        status <= ST_GENERAL_ERR;
                        done   <= 1'b1;
                    end else if (!beat_q) begin
                        wid_ld_q <= 1'b1;
                    end else if (op_q == OP_HDR) begin
                        done <= 1'b1;
                    end
                end
                F_HCK: if (h_bad_q) begin
                    status <= ST_LOC_QP_OP;
                    done   <= 1'b1;
                end else begin
                    nsge           <= h_nsge[5:0];
                    m_mr_pd        <= pd_q;
                    m_mr_access    <= ACC_LOCAL_WRITE;
                    m_rd_req_valid <= 1'b1;
                    m_rd_req_addr  <= addr_q + 64'd16;
                    m_rd_req_len   <= {3'b000, h_nsge[5:0], 4'b0000};
                end
                F_ENT: if (rsp) begin
                    beat_q <= !beat_q;
                    if (s_rd_rsp_err) begin
                        status <= ST_GENERAL_ERR;
                        done   <= 1'b1;
                    end else if (beat_q) begin
                        // DataSegment: LENGTH in bytes 8..11, LKEY in 12..15 (taken above).
                        ent_we <= 1'b1;
                        got_q  <= got_q + 6'd1;
                    end
                end
                F_CHECKS: if (asked_q == nsge && !m_mr_valid) begin
                    done <= 1'b1;
                end
                F_RKEY: if (s_mr_valid) begin
                    status <= s_mr_status;
                    done   <= 1'b1;
                end
                default: ;
            endcase
        end
    end

    wire unused = ^{s_rd_rsp_keep, s_rd_rsp_tag};

endmodule

`endif  // ROCENIC_RX_DP_FETCH_SV
