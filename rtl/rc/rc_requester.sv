// SPDX-License-Identifier: Apache-2.0 OR MIT
// Guarded, and includes what it uses (paths from the repository root), so it lints alone
// and compiles in any file order.
`ifndef ROCENIC_RC_REQUESTER_SV
`define ROCENIC_RC_REQUESTER_SV
`include "rtl/rc/rc_pkg.sv"
`include "rtl/wqe/wqe_bram.sv"
`resetall
`timescale 1ns / 1ps
`default_nettype none

// The requester of QPS RC QPs (a model::rc::Requester each; docs/rc-requester.md): the
// outstanding window, which packet to send next, what an acknowledgement completes,
// go-back-N, the local ACK timeout and the RNR delay, the retry counters, and completions in
// posting order.
//
// It takes one operation at a time (rc_pkg::RC_REQ_OP_*, model::rc::Op) and gives one answer
// for each (rc_pkg::RC_REQ_ANS_*, model::rc::Answer): what model::rc::Requester::apply gives
// for the same operation. INIT starts again at the first PSN `s_psn` with nothing posted.
//
// The posted requests sit in a table of W entries (id, first PSN, packet count, READ), oldest
// first. An operation reads them one a cycle, the oldest first, and gathers what the rules ask
// of the table (which request holds a PSN, the first READ still missing responses, how many
// READs are outstanding). Three registered steps then work out what the rules decide: the
// acknowledgement's bound and the packet to send, which outcome the operation has, and how each
// part of the state moves. The operation commits in one cycle, when the answer register is free.
// So an operation takes the number of posted requests plus eight cycles from taken to answered,
// and the table is a small RAM with one write (POST) and one read port. A SEND, the operation on
// every packet, usually reads no entry (the request holding `snd` is kept between operations)
// and takes eight cycles. The steps are there for
// 125 MHz: the model's rules, done in one cycle, are a chain of 24-bit comparisons that ran at
// 48 MHz on the ECP5.
//
// Time: `s_now` is the caller's clock in ticks, compared modulo 2^TIME_W (a deadline is due
// when `now - deadline` is below 2^(TIME_W-1)), so the clock may wrap; a delay must stay below
// 2^(TIME_W-1) ticks. The caller converts verbs' `timeout` and the RNR NAK's timer code into
// ticks (model::rc::Scale): `cfg_timeout_ticks` (0: no timeout) and `s_rnr_ticks` with each
// RECEIVE (the delay its syndrome's timer code names, used only for an RNR NAK).
//
// QPs: an operation names its QP (`s_qp`) and the answer names it again (`m_qp`). The block
// works on one QP at a time, in its registers; the others' state waits in a RAM of QPS
// entries, and their tables share one block RAM of QPS * W entries (read in two cycles, so an
// operation that reads the table takes one cycle more). An operation on another QP than the
// last one's swaps them (the registers written to the RAM, the QP's read back): two more
// cycles, once the last answer has gone (`st_*` and `cnt_*` show the QP of the answer waiting).
// After a reset the block clears every QP's state (as INIT at PSN 0), QPS cycles, then takes
// operations. With QPS = 1 there is no RAM and no swap, and the table is LUT RAM.
//
// The cfg_* settings are those of the QP `s_qp` names, taken with each operation: they must
// be the same from its INIT on. Like the model, the table's requests, polled or not, must span
// fewer than 2^24 PSNs for a PSN to name one request.
module rc_requester #(
    parameter int QPS    = 1,    // QPs served (their state in RAM beyond the one worked on)
    parameter int W      = 16,   // requests outstanding at most (a power of two, 2 or more)
    parameter int WR_W   = 16,   // width of a request's id (the send engine's WQE index)
    parameter int TIME_W = 48,   // width of the clock and of deadlines
    parameter int CNT_W  = 32,   // width of the event counters (they wrap)
    localparam int QW    = QPS > 1 ? $clog2(QPS) : 1   // width of a QP's number
) (
    input  wire                    clk,
    input  wire                    rst,                 // synchronous, active high
    // the settings of the QP `s_qp` names (model::rc::RequesterConfig), fixed from its INIT on
    input  wire  [2:0]             cfg_retry_cnt,
    input  wire  [2:0]             cfg_rnr_retry,       // 7: forever
    input  wire  [23:0]            cfg_max_inflight,    // 0 as 1, 2^23 or more as 2^23 - 1
    input  wire  [TIME_W-1:0]      cfg_timeout_ticks,   // the local ACK timeout; 0: none
    // an operation
    input  wire                    s_valid,
    output logic                   s_ready,
    input  wire  [QW-1:0]          s_qp,                // the QP, below QPS
    input  wire  [rc_pkg::RC_REQ_OP_W-1:0] s_op,
    input  wire  [23:0]            s_psn,               // INIT: first PSN; RECEIVE, READ_*, ABORT
    input  wire  [WR_W-1:0]        s_wr,                // POST: the request's id
    input  wire  [23:0]            s_packets,           // POST: its packets (a READ's responses)
    input  wire                    s_read,              // POST: an RDMA READ
    input  wire  [7:0]             s_syndrome,          // RECEIVE: the AETH syndrome byte
    input  wire  [TIME_W-1:0]      s_rnr_ticks,         // RECEIVE: the RNR delay of its timer code
    input  wire  [rc_pkg::RC_STATUS_W-1:0] s_status,    // ABORT: the status
    input  wire  [TIME_W-1:0]      s_now,               // SEND, RECEIVE, READ_ACCEPT/GAP, TICK
    // its answer
    output logic                   m_valid,
    input  wire                    m_ready,
    output logic [QW-1:0]          m_qp,
    output logic [rc_pkg::RC_REQ_ANS_W-1:0] m_ans,
    output logic [23:0]            m_psn,               // POSTED, PACKET, GO_BACK, TIMEOUT
    output logic [WR_W-1:0]        m_wr,                // PACKET, COMPLETION, EXPECTED
    output logic [23:0]            m_index,             // PACKET, EXPECTED
    output logic [23:0]            m_packets,           // PACKET, EXPECTED
    output logic                   m_ack_req,           // PACKET
    output logic                   m_resend,            // PACKET
    output logic [rc_pkg::RC_STATUS_W-1:0] m_status,    // ERROR, COMPLETION
    output logic [TIME_W-1:0]      m_until,             // RNR_WAIT: when sending resumes
    // the state of the QP `m_qp` names while its answer waits (m_valid; from a swap's LOAD on,
    // with no answer waiting, the next QP's), for the send engine and for counters
    output logic [23:0]            st_una,
    output logic [23:0]            st_snd,
    output logic [23:0]            st_nxt,
    output logic                   st_error,
    output logic [$clog2(W):0]     st_outstanding,
    output logic [CNT_W-1:0]       cnt_resent,
    output logic [CNT_W-1:0]       cnt_timeouts,
    output logic [CNT_W-1:0]       cnt_seq_naks,
    output logic [CNT_W-1:0]       cnt_rnr_naks,
    output logic [CNT_W-1:0]       cnt_read_gaps
);

    localparam int IW = $clog2(W);
    localparam logic [23:0] HALF = rc_pkg::RC_PSN_HALF;

    // `b` comes after `a`: (b - a) mod 2^24 in 1..2^23-1 (model::qp::Psn::is_before).
    function automatic logic psn_before(input logic [23:0] a, input logic [23:0] b);
        psn_before = b != a && 24'(b - a) < HALF;
    endfunction

    // A deadline is due: now - t, read as signed, is not negative.
    function automatic logic due(input logic [TIME_W-1:0] now, input logic [TIME_W-1:0] t);
        due = TIME_W'(now - t) < (TIME_W'(1) << (TIME_W - 1));
    endfunction

    // ---- the table: W entries of each QP (at the end) -------------------------------------
    localparam int TW = $clog2(QPS * W);

    // The QP whose state the registers below hold (always 0 with one QP).
    logic [QW-1:0] cur_q;
    wire  [QW-1:0] cur_qp = QPS > 1 ? cur_q : '0;
    // The table entry of that QP's entry `e`.
    function automatic logic [TW-1:0] entry(input logic [QW-1:0] q, input logic [IW-1:0] e);
        entry = TW'(q) * TW'(W) + TW'(e);
    endfunction

    // ---- the state (model::rc::Requester's fields) ---------------------------------------
    logic [23:0]       una, snd, hi, nxt;
    logic [IW-1:0]     head;
    logic [IW:0]       len;
    logic [2:0]        retry_left, rnr_left;
    logic              dl_on, rnr_on, nak_on, failed;
    logic [TIME_W-1:0] dl, rnr_until;
    logic [23:0]       last_nak, fail_first;
    logic [rc_pkg::RC_STATUS_W-1:0] fail_status;

    // The same, of the QP being loaded (the RAM's read, registered: valid in LOAD). With them
    // the request holding `snd` (below), less what follows from it.
    logic [23:0]       ld_una, ld_snd, ld_hi, ld_nxt;
    logic [IW-1:0]     ld_head;
    logic [IW:0]       ld_len;
    logic [2:0]        ld_retry_left, ld_rnr_left;
    logic              ld_dl_on, ld_rnr_on, ld_nak_on, ld_failed, ld_snd_known;
    logic [TIME_W-1:0] ld_dl, ld_rnr_until;
    logic [23:0]       ld_last_nak, ld_fail_first;
    logic [rc_pkg::RC_STATUS_W-1:0] ld_fail_status;
    logic [CNT_W-1:0]  ld_resent, ld_timeouts, ld_seq_naks, ld_rnr_naks, ld_read_gaps;
    logic              ld_fs, ld_es_rd;
    logic [WR_W-1:0]   ld_es_wr;
    logic [23:0]       ld_es_first, ld_es_pk;

    // The QP's settings, taken with the operation, and as the rules use them, registered.
    logic [2:0]        o_retry_cnt, o_rnr_retry;
    logic [23:0]       o_max_inflight;
    logic [TIME_W-1:0] o_timeout;
    logic [23:0] maxi, maxi_m1;   // maxi_m1: the window less one
    logic        timeout_on;
    always_ff @(posedge clk) begin
        maxi <= o_max_inflight == 24'd0 ? 24'd1
              : o_max_inflight >= HALF ? HALF - 24'd1 : o_max_inflight;
        maxi_m1 <= o_max_inflight == 24'd0 ? 24'd0
                 : o_max_inflight >= HALF ? HALF - 24'd2 : o_max_inflight - 24'd1;
        timeout_on <= o_timeout != '0;
    end

    // ---- the operation, latched when taken -----------------------------------------------
    // IDLE: waiting for one. SWAP: an operation on another QP waits for the last answer to go,
    // then the registers' QP is written to the RAM and the operation's read from it. LOAD: the
    // registers take it. SCAN: the table read one entry a cycle (each looked at over the
    // three cycles after). LAST, LAST2, LAST3: the last entry looked at (an operation that reads
    // none waits here for the registers below to settle). PREP, PREP2, PREP3: what the rules ask
    // of the scan, then which outcome the operation has, then the answer and how each part of
    // the state moves, each registered. COMMIT: the answer and the state written once the answer
    // register is free. The inputs of every step hold from PREP until COMMIT, so each step's
    // registers load every cycle. CLEAR: after a reset, every QP's state written as INIT at 0.
    // LAST0: the table's second read cycle, with more than one QP.
    typedef enum logic [3:0] {
        IDLE, SWAP, LOAD, SCAN, LAST0, LAST, LAST2, LAST3, PREP, PREP2, PREP3, COMMIT, CLEAR
    } phase_t;
    phase_t phase;
    logic [rc_pkg::RC_REQ_OP_W-1:0] op;
    logic [23:0]       o_psn, o_psn1, o_packets;   // o_psn1: the PSN after the operation's
    logic [WR_W-1:0]   o_wr;
    logic              o_read;
    logic [2:0]        o_code;   // RECEIVE: the NAK code's low bits (fatal NAKs: 1 to 4)
    logic [TIME_W-1:0] o_rnr, o_now;
    logic [rc_pkg::RC_STATUS_W-1:0] o_status;
    logic [IW:0]       i;   // the entry being read, from the oldest
    logic [15:0]       op_is;   // the operation, one-hot (bit `op`): the commit's choices

    assign s_ready = phase == IDLE;
    wire take = s_valid && s_ready;
    // The operation starts on the registers: taken for their QP, or once its QP is loaded. An
    // operation on another QP swaps once the last answer has gone, so that `st_*` and `cnt_*`
    // hold while it waits.
    logic [QW-1:0] o_qp;
    logic [QW-1:0] clear_i;   // CLEAR: the QP being written
    wire same  = QPS == 1 || s_qp == cur_qp;
    // (With one QP, SWAP and LOAD never come: the constants leave their logic out.)
    wire loading = QPS > 1 && phase == LOAD;
    wire begins  = take && same || loading;
    wire swap    = QPS > 1 && phase == SWAP && (!m_valid || m_ready);

    // ---- the scan ------------------------------------------------------------------------------
    // The entry read (the table is a RAM with a synchronous read: `e_*` are entry `i` of one
    // cycle before, two with more than one QP), and whether it is a real one and the oldest.
    logic [WR_W-1:0] e_wr;
    logic [23:0]     e_first, e_pk;
    logic            e_rd, e_v, e_oldest;

    // What it gathers: the requests holding `snd`, the operation's PSN and `una` (the first
    // that does); the first READ still missing responses (its first PSN, and how far past `una`
    // it starts, 0 when `una` lies inside it); whether MAX_RD_ATOMIC READs are outstanding; the
    // oldest request.
    logic              fs, fp, fu, rb;
    logic [WR_W-1:0]   es_wr, ep_wr, e0_wr;
    logic [23:0]       es_first, es_pk, ep_first, ep_pk, eu_first, rb_first, rb_start;
    logic [23:0]       e0_first, e0_pk;
    logic              es_rd, ep_rd;
    logic [23:0]       es_pk_m1;                // that request's packets less one
    logic [23:0]       es_end;                  // one past that request's PSNs
    logic [2:0]        rd_out;

    // The request holding `snd`, when known (`snd_known`, fs and es_* above): a SEND of a packet
    // that is not a READ's needs nothing else of the table, so it reads no entry and takes eight
    // cycles whatever the requests outstanding. It is known after any operation that read the
    // table and left `snd` where it was, and after a SEND that stayed inside its request; a POST
    // keeps it (the entries do not move). Anything else that moves `snd` forgets it.
    logic snd_known;
    // As the operation starts: on the registers, or on the QP just loaded.
    wire [rc_pkg::RC_REQ_OP_W-1:0] d_op = loading ? op : s_op;
    wire d_known = loading ? ld_snd_known && ld_fs && !ld_es_rd : snd_known && fs && !es_rd;
    wire [IW:0] d_len = loading ? ld_len : len;
    wire  send_known = d_op == rc_pkg::RC_REQ_OP_SEND && d_known;
    wire  keep_snd   = send_known || d_op == rc_pkg::RC_REQ_OP_POST;
    // Where the operation goes as it starts: it reads the table, or none of it.
    phase_t go;
    assign go = d_len == '0 || d_op == rc_pkg::RC_REQ_OP_INIT || d_op == rc_pkg::RC_REQ_OP_POST
                || send_known ? LAST : SCAN;

    // The entry's distances from the PSNs it is compared with, registered (a second scan
    // stage): the comparisons and the choices come a cycle after the subtractions.
    logic [WR_W-1:0] f_wr;
    logic [23:0]     f_first, f_pk, f_pk_m1, f_end, f_una, f_snd, f_psn, f_start;
    logic            f_rd, f_v, f_oldest, f_sent;
    always_ff @(posedge clk) begin
        f_wr     <= e_wr;
        f_first  <= e_first;
        f_pk     <= e_pk;
        f_pk_m1  <= e_pk - 24'd1;
        f_end    <= e_first + e_pk;
        f_una    <= una - e_first;     // how far `una` lies past its first PSN
        f_snd    <= snd - e_first;
        f_psn    <= o_psn - e_first;
        f_start  <= e_first - una;
        f_sent   <= psn_before(e_first, hi);
        f_rd     <= e_rd;
        f_v      <= e_v && !rst;   // cleared by reset, as the scan's results are taken on it
        f_oldest <= e_oldest;
    end

    // The comparisons, registered (a third stage); the choices come a cycle after.
    logic [WR_W-1:0] g_wr;
    logic [23:0]     g_first, g_pk, g_end, g_start;
    logic [23:0]     g_pk_m1;
    logic            g_rd, g_v, g_oldest, g_sent, g_holds_una, g_open_read, g_snd, g_psn;
    always_ff @(posedge clk) begin
        g_wr        <= f_wr;
        g_first     <= f_first;
        g_pk        <= f_pk;
        g_end       <= f_end;
        g_start     <= f_start;
        g_rd        <= f_rd;
        g_v         <= f_v && !rst;
        g_oldest    <= f_oldest;
        g_sent      <= f_sent;
        g_holds_una <= f_una < f_pk;
        g_open_read <= f_rd && !(f_una >= f_pk && !f_una[23]);   // a READ not wholly acknowledged
        g_snd       <= f_snd < f_pk;
        g_psn       <= f_psn < f_pk;
        g_pk_m1     <= f_pk_m1;
    end

    always_ff @(posedge clk) begin
        if (g_v) begin
            if (!fs && g_snd) begin
                fs <= 1'b1; es_wr <= g_wr; es_first <= g_first; es_pk <= g_pk; es_rd <= g_rd;
                es_pk_m1 <= g_pk_m1;
                es_end  <= g_end;
            end
            if (!fp && g_psn) begin
                fp <= 1'b1; ep_wr <= g_wr; ep_first <= g_first; ep_pk <= g_pk; ep_rd <= g_rd;
            end
            if (!fu && g_holds_una) begin
                fu <= 1'b1; eu_first <= g_first;
            end
            if (g_open_read && g_sent && rd_out != 3'(rc_pkg::RC_MAX_RD_ATOMIC)) begin
                rd_out <= rd_out + 3'd1;
            end
            if (!rb && g_open_read) begin
                rb       <= 1'b1;
                rb_first <= g_first;
                rb_start <= g_holds_una ? 24'd0 : g_start;
            end
            if (g_oldest) begin
                e0_wr <= g_wr; e0_first <= g_first; e0_pk <= g_pk;
            end
        end
        if (loading) begin
            // `es_end` is read only for a READ's request, which a SEND scans for again.
            fs <= ld_fs; es_wr <= ld_es_wr; es_first <= ld_es_first; es_pk <= ld_es_pk;
            es_rd <= ld_es_rd; es_pk_m1 <= ld_es_pk - 24'd1;
        end
        if (begins) begin
            // The request holding `snd` is kept over a POST, and over a SEND that reads no
            // entry because it is known (below).
            if (!keep_snd) begin
                fs <= 1'b0;
            end
            fp <= 1'b0; fu <= 1'b0; rb <= 1'b0; rd_out <= 3'd0;
        end
        if (rst) begin
            fs <= 1'b0;
        end
    end

    // ---- what does not depend on the scan -----------------------------------------------------
    // The operation's fields and the state hold from the cycle after an operation is taken
    // until it commits, so these are registered every cycle, in two steps (the distances, then
    // the comparisons), and are right from PREP on: where the operation's PSN lies in what was
    // sent, whether the window is open at `snd`, whether a POST fits.
    logic [23:0] q_ln;   // the last NAK's PSN less `una`
    logic        q_nak0, q_nak1;
    logic [23:0] q_off, q_off1, q_sent, q_used, q_infl;   // less `una`: the operation's PSN,
                                                           // the one after, `hi`, `nxt`, `snd`
    logic [23:0] q_snd1, q_nxt_new;   // the PSN after `snd`; `nxt` after a POST
    logic        q_in, q_ack_in, q_open, q_fill, q_fresh, q_span, q_busy, q_hi_moves1;
    always_ff @(posedge clk) begin
        q_off       <= o_psn - una;
        q_off1      <= o_psn1 - una;
        q_ln        <= last_nak - una;
        q_sent      <= hi - una;
        q_used      <= nxt - una;
        q_infl      <= snd - una;
        q_snd1      <= snd + 24'd1;
        q_nxt_new   <= nxt + o_packets;
        q_busy      <= una != hi;                             // packets unacknowledged
        q_fresh     <= !psn_before(snd, hi);                  // `snd` never sent
        q_hi_moves1 <= psn_before(hi, q_snd1);                // sending `snd` moves `hi`
        q_in        <= q_off < q_sent;
        q_nak0      <= q_ln == q_off;    // the last NAK's PSN is the operation's
        q_nak1      <= q_ln == q_off1;   // ... is the one after it
        q_ack_in    <= q_off1 != '0 && q_off1 <= q_sent;
        q_open      <= q_infl < maxi;
        q_fill      <= q_infl == maxi_m1;
        // POST: a request of no packet, or one that would spread the outstanding PSNs over half
        // the PSN space.
        q_span      <= o_packets == '0 || {1'b0, q_used} + {1'b0, o_packets} >= {1'b0, HALF};
    end

    // ---- PREP: what the rules ask of the scan ---------------------------------------------------
    // How far an acknowledgement up to `to` may go: not past a READ missing responses
    // (model read_bound).
    function automatic logic [23:0] bound_of(input logic [23:0] to, input logic [23:0] u,
                                             input logic seen, input logic [23:0] read_at);
        bound_of = seen && read_at < 24'(to - u) ? u + read_at : to;
    endfunction

    // The syndrome: ACK 000, RNR NAK 001, NAK 011 with codes 0-4; the rest is reserved.
    // Decoded when the operation is taken: a RECEIVE of an ACK, an RNR NAK, a NAK (a sequence
    // error, or a fatal one).
    logic is_ack, is_rnr, is_nak, r_ack, r_rnr, r_nak, r_fatal;

    // Registered in PREP. For an acknowledgement: where the READ response stands, whether to act
    // on it, the PSN it reaches and how far it may go. For SEND: whether to, and the packet.
    // For POLL: whether the oldest request is acknowledged, or is the failed one. For TICK:
    // whether the delays are due. And the deadlines an operation may set.
    logic [rc_pkg::RC_REQ_ANS_W-1:0] p_match;
    logic              p_go, p_can, p_ack_req, p_resend, p_hi_moves, p_acked0, p_failed0;
    logic              p_rnr_due, p_dl_due;
    logic              p_stop;   // the bound is a READ's, short of the acknowledged PSN
    // What PREP2 asks of the bound, worked out beside it from the offsets from `una` (the bound
    // is `una` + rb_start when stopped, else the acknowledged PSN `to`; a stopped bound lies
    // before `to`): it moves `una`, and it is the last NAK's PSN.
    logic              p_moves, p_at_nak;
    logic [23:0]       p_bound, p_index, p_ep_index, p_snd_next;
    logic [TIME_W-1:0] p_arm, p_rnr_end;

    always_ff @(posedge clk) begin
        logic [rc_pkg::RC_REQ_ANS_W-1:0] match;
        logic [23:0] next;
        logic        stop0, stop1;   // a READ missing responses stops an acknowledgement
        stop0 = rb && rb_start < q_off;
        stop1 = rb && rb_start < q_off1;
        // Where a READ response at the operation's PSN stands (model read_match).
        if (failed || !q_in || !fp || !ep_rd) begin
            match = rc_pkg::RC_REQ_ANS_STALE;
        end else if (stop0) begin
            match = rc_pkg::RC_REQ_ANS_OUT_OF_SEQUENCE;
        end else begin
            match = rc_pkg::RC_REQ_ANS_EXPECTED;
        end
        // Which PSN an acknowledgement reaches (the one after the operation's for an ACK and an
        // accepted READ response), how far it may go, and whether it is one to act on.
        case (op)
            rc_pkg::RC_REQ_OP_READ_ACCEPT: begin
                p_go     <= match == rc_pkg::RC_REQ_ANS_EXPECTED;
                p_bound  <= o_psn1;
                p_stop   <= 1'b0;
                p_moves  <= q_off1 != '0;
                p_at_nak <= q_nak1;
            end
            rc_pkg::RC_REQ_OP_READ_GAP: begin
                p_go     <= match == rc_pkg::RC_REQ_ANS_OUT_OF_SEQUENCE;
                p_bound  <= stop0 ? una + rb_start : o_psn;
                p_stop   <= stop0;
                p_moves  <= stop0 ? rb_start != '0 : q_off != '0;
                p_at_nak <= stop0 ? q_ln == rb_start : q_nak0;
            end
            default: begin
                if (is_ack) begin
                    p_go     <= !failed && q_ack_in;
                    p_bound  <= stop1 ? una + rb_start : o_psn1;
                    p_stop   <= stop1;
                    p_moves  <= stop1 ? rb_start != '0 : q_off1 != '0;
                    p_at_nak <= stop1 ? q_ln == rb_start : q_nak1;
                end else begin
                    p_go     <= !failed && (is_rnr || is_nak) && q_in;
                    p_bound  <= stop0 ? una + rb_start : o_psn;
                    p_stop   <= stop0;
                    p_moves  <= stop0 ? rb_start != '0 : q_off != '0;
                    p_at_nak <= stop0 ? q_ln == rb_start : q_nak0;
                end
            end
        endcase
        p_match <= match;
        // SEND (model next_wr and send).
        next  = es_rd ? es_end : q_snd1;
        p_can <= !failed && !rnr_on && snd != nxt && q_open && fs
                 && !(es_rd && q_fresh && rd_out == 3'(rc_pkg::RC_MAX_RD_ATOMIC));
        p_index    <= snd - es_first;
        p_ep_index <= o_psn - ep_first;
        p_ack_req  <= es_rd || q_fill;   // and on a message's last packet (PREP3)
        p_resend   <= !q_fresh;
        p_snd_next <= next;
        p_hi_moves <= es_rd ? psn_before(hi, es_end) : q_hi_moves1;
        // POLL: the oldest request wholly acknowledged, or the failed one.
        p_acked0  <= 24'(una - e0_first) >= e0_pk && 24'(una - e0_first) < HALF;
        p_failed0 <= fail_first == e0_first;
        // TICK.
        p_rnr_due <= due(o_now, rnr_until);
        p_dl_due  <= due(o_now, dl);
        p_arm     <= o_now + o_timeout;
        p_rnr_end <= o_now + o_rnr;
    end

    // The status a fatal NAK completes its request with.
    logic [rc_pkg::RC_STATUS_W-1:0] nak_status;
    always_comb begin
        case (o_code)
            3'd1:    nak_status = rc_pkg::RC_STATUS_REM_INV_REQ_ERR;
            3'd2:    nak_status = rc_pkg::RC_STATUS_REM_ACCESS_ERR;
            3'd3:    nak_status = rc_pkg::RC_STATUS_REM_OP_ERR;
            default: nak_status = rc_pkg::RC_STATUS_BAD_RESP_ERR;   // 4: invalid RD request
        endcase
    end

    // The request holding the operation's PSN, or `una`: its first PSN.
    wire [23:0] psn_holder = fp ? ep_first : o_psn;
    wire [23:0] una_holder = fu ? eu_first : una;

    // Whether `snd` is its request's last packet: from es_*, which are final from PREP on, in two
    // registered steps, read in PREP3.
    logic [23:0] r_es_off;
    logic        r_es_last;
    always_ff @(posedge clk) begin
        r_es_off  <= snd - es_first;
        r_es_last <= r_es_off == es_pk_m1;
    end

    // ---- PREP2: which of the rules' outcomes the operation has ---------------------------------
    // For an acknowledgement, from its bound: whether it moves `una` (and so refills the
    // counters and forgets the last NAK), pulls `snd` along, empties the window; and which of
    // the outcomes it has (one at most): an RNR NAK that waits or has run out of retries, a fatal
    // NAK, a go-back, a go-back that runs out of retries, or a go-back already done for this
    // bound (stale). For the other operations, what they do.
    wire op_ack = op_is[rc_pkg::RC_REQ_OP_RECEIVE] || op_is[rc_pkg::RC_REQ_OP_READ_ACCEPT]
                  || op_is[rc_pkg::RC_REQ_OP_READ_GAP];
    logic p_pulls, p_drains;
    logic k_go, k_prog, k_rnr_wait, k_rnr_fail, k_fatal, k_back, k_back_fail, k_back_stale;
    logic k_gap, k_seq, k_resume, k_timeout, k_time_fail, k_abort, k_send, k_post, k_poll;
    logic [2:0]  k_retry, k_rnr;   // the retry counters after the acknowledgement's progress
    logic [23:0] k_fail_first;     // the first PSN of the request a failure names, and its status
    logic [rc_pkg::RC_STATUS_W-1:0] k_fail_status;
    always_ff @(posedge clk) begin
        logic moves, rnr, fatal, back, stale, retry0, rnr0, due_to;
        moves  = p_moves;
        retry0 = (moves ? o_retry_cnt : retry_left) == 3'd0;
        rnr0   = (moves ? o_rnr_retry : rnr_left) == 3'd0;
        rnr    = p_go && r_rnr;
        fatal  = p_go && r_fatal;
        back   = p_go && op_ack && !rnr && !fatal
                 && (op_is[rc_pkg::RC_REQ_OP_READ_GAP] || p_stop || r_nak);
        stale  = !moves && nak_on && p_at_nak;
        due_to = op_is[rc_pkg::RC_REQ_OP_TICK] && !failed && !rnr_on && dl_on && p_dl_due
                 && q_busy;
        p_pulls      <= psn_before(snd, p_bound);
        p_drains     <= p_bound == hi;
        k_go         <= p_go && op_ack;
        k_prog       <= p_go && op_ack && moves;
        k_rnr_fail   <= rnr && o_rnr_retry != rc_pkg::RC_RNR_RETRY_FOREVER && rnr0;
        k_rnr_wait   <= rnr && !(o_rnr_retry != rc_pkg::RC_RNR_RETRY_FOREVER && rnr0);
        k_fatal      <= fatal;
        k_back_stale <= back && stale;
        k_back_fail  <= back && !stale && retry0;
        k_back       <= back && !stale && !retry0;
        // An ACK stopped by a READ counts a gap even when it goes back no more; a READ_GAP
        // counts one when it goes back; a sequence NAK counts when it goes back.
        k_gap        <= back && (op_is[rc_pkg::RC_REQ_OP_RECEIVE] ? r_ack : !stale);
        k_seq        <= back && !stale && r_nak;
        k_retry      <= moves ? o_retry_cnt : retry_left;
        k_rnr        <= moves ? o_rnr_retry : rnr_left;
        // A failed go-back names the request holding its bound: the READ's when the bound is a
        // READ's, else the one holding the operation's PSN (the bound then).
        k_fail_first <= !fatal && !rnr && p_stop ? rb_first : psn_holder;
        k_fail_status <= rnr ? rc_pkg::RC_STATUS_RNR_RETRY_EXC_ERR
                       : fatal ? nak_status : rc_pkg::RC_STATUS_RETRY_EXC_ERR;
        k_resume     <= op_is[rc_pkg::RC_REQ_OP_TICK] && !failed && rnr_on && p_rnr_due;
        k_timeout    <= due_to && retry_left != 3'd0;
        k_time_fail  <= due_to && retry_left == 3'd0;
        k_abort      <= op_is[rc_pkg::RC_REQ_OP_ABORT] && !failed;
        k_send       <= op_is[rc_pkg::RC_REQ_OP_SEND] && p_can;
        k_post       <= op_is[rc_pkg::RC_REQ_OP_POST] && !failed && len != (IW+1)'(W) && !q_span;
        k_poll       <= op_is[rc_pkg::RC_REQ_OP_POLL] && len != '0 && (p_acked0 || failed);
    end

    // ---- PREP3: the answer, and how each part of the state moves ------------------------------
    logic [rc_pkg::RC_REQ_ANS_W-1:0] x_ans;
    logic [23:0]       x_psn, x_index, x_packets;
    logic [WR_W-1:0]   x_wr;
    logic              x_ack_req, x_resend;
    logic [rc_pkg::RC_STATUS_W-1:0] x_status, x_fail_status;
    logic [TIME_W-1:0] x_until;
    logic              x_una, x_snd_next, x_snd_bound, x_snd_una, x_hi, x_post, x_poll;
    logic              x_retry_load, x_rnr_load, x_dl_load, x_dl_keep, x_dl_on;
    logic              x_rnr_keep, x_rnr_on, x_nak_keep, x_nak_on, x_fail;
    logic              x_resent, x_timeout, x_seq, x_rnr_nak, x_gap, x_snd_known;
    logic [2:0]        x_retry, x_rnr;
    logic [23:0]       x_fail_first;
    always_ff @(posedge clk) begin
        logic fail_r, fail, expected;
        fail_r   = k_rnr_fail || k_fatal || k_back_fail;
        fail     = fail_r || k_time_fail || k_abort;
        expected = op_is[rc_pkg::RC_REQ_OP_READ_MATCH] && p_match == rc_pkg::RC_REQ_ANS_EXPECTED;
        // The answer.
        x_ans <= rc_pkg::RC_REQ_ANS_NOTHING;
        if (op_is[rc_pkg::RC_REQ_OP_POST]) begin
            x_ans <= failed ? rc_pkg::RC_REQ_ANS_REFUSED
                   : len == (IW+1)'(W) ? rc_pkg::RC_REQ_ANS_FULL
                   : q_span ? rc_pkg::RC_REQ_ANS_SPAN : rc_pkg::RC_REQ_ANS_POSTED;
        end else if (k_send) begin
            x_ans <= rc_pkg::RC_REQ_ANS_PACKET;
        end else if (op_ack) begin
            x_ans <= !k_go ? rc_pkg::RC_REQ_ANS_STALE
                   : fail_r ? rc_pkg::RC_REQ_ANS_ERROR
                   : k_rnr_wait ? rc_pkg::RC_REQ_ANS_RNR_WAIT
                   : k_back ? rc_pkg::RC_REQ_ANS_GO_BACK
                   : k_back_stale ? rc_pkg::RC_REQ_ANS_STALE : rc_pkg::RC_REQ_ANS_PROGRESS;
        end else if (op_is[rc_pkg::RC_REQ_OP_READ_MATCH]) begin
            x_ans <= p_match;
        end else if (k_resume) begin
            x_ans <= rc_pkg::RC_REQ_ANS_RNR_RESUME;
        end else if (k_timeout) begin
            x_ans <= rc_pkg::RC_REQ_ANS_TIMEOUT;
        end else if (k_time_fail) begin
            x_ans <= rc_pkg::RC_REQ_ANS_ERROR;
        end else if (k_poll) begin
            x_ans <= rc_pkg::RC_REQ_ANS_COMPLETION;
        end
        x_status  <= fail_r ? k_fail_status
                   : k_time_fail ? rc_pkg::RC_STATUS_RETRY_EXC_ERR
                   : !k_poll || p_acked0 ? rc_pkg::RC_STATUS_SUCCESS
                   : p_failed0 ? fail_status : rc_pkg::RC_STATUS_WR_FLUSH_ERR;
        x_psn     <= k_post ? nxt : k_send ? snd : k_back ? p_bound : k_timeout ? una : '0;
        x_wr      <= k_send ? es_wr : k_poll ? e0_wr : expected ? ep_wr : '0;
        x_index   <= k_send ? p_index : expected ? p_ep_index : '0;
        x_packets <= k_send ? es_pk : expected ? ep_pk : '0;
        x_ack_req <= k_send && (p_ack_req || r_es_last);
        // `snd` stays known: the operation read the table (or knew it) and left `snd` alone, or
        // sent a packet that is not its request's last (nor a READ's).
        x_snd_known <= fs && !(k_send || k_rnr_wait || k_back || (k_prog && p_pulls) || k_timeout)
                       || (k_send && !es_rd && !r_es_last);
        x_resend  <= k_send && p_resend;
        x_until   <= k_rnr_wait ? p_rnr_end : '0;
        // The state: the PSNs and the table.
        x_una       <= k_prog;
        x_snd_next  <= k_send;
        x_snd_bound <= k_rnr_wait || k_back || (k_prog && p_pulls);
        x_snd_una   <= k_timeout;
        x_hi        <= k_send && p_hi_moves;
        x_post      <= k_post;
        x_poll      <= k_poll;
        // The retry counters.
        x_retry_load <= k_go || k_timeout;
        x_retry      <= k_timeout ? retry_left - 3'd1 : k_back ? k_retry - 3'd1 : k_retry;
        x_rnr_load   <= k_go;
        x_rnr        <= k_rnr_wait && o_rnr_retry != rc_pkg::RC_RNR_RETRY_FOREVER
                        ? k_rnr - 3'd1 : k_rnr;
        // The ACK timeout: stopped by a failure or an RNR delay; armed again by a go-back or a
        // timeout; by progress while packets are in flight and no RNR delay runs; by a send when
        // it is not running.
        x_dl_keep <= !(fail || k_rnr_wait || k_back || k_timeout || k_prog || (k_send && !dl_on));
        x_dl_on   <= fail || k_rnr_wait ? 1'b0
                   : k_back || k_timeout ? timeout_on
                   : k_prog ? timeout_on && !p_drains && !rnr_on : timeout_on;
        x_dl_load <= !fail && !k_rnr_wait;
        // The RNR delay: started by an RNR NAK; ended by its tick, a go-back or a failure.
        x_rnr_keep <= !(fail || k_rnr_wait || k_back || k_resume);
        x_rnr_on   <= k_rnr_wait;
        // The last sequence NAK: set by a go-back (one that runs out of retries too); forgotten
        // on progress and on a timeout.
        x_nak_keep <= !(k_back || k_back_fail || k_prog || k_timeout);
        x_nak_on   <= k_back || k_back_fail;
        // ERR.
        x_fail        <= fail;
        x_fail_first  <= fail_r ? k_fail_first : k_time_fail ? una_holder
                       : fp ? ep_first : una_holder;
        x_fail_status <= fail_r ? k_fail_status : k_time_fail ? rc_pkg::RC_STATUS_RETRY_EXC_ERR
                       : o_status;
        // The counters.
        x_resent  <= k_send && p_resend;
        x_timeout <= k_timeout || k_time_fail;
        x_seq     <= k_seq;
        x_rnr_nak <= k_rnr_wait || k_rnr_fail;
        x_gap     <= k_gap;
    end

    // ---- sequencing and commit ------------------------------------------------------------
    wire commit = phase == COMMIT && (!m_valid || m_ready);

    always_ff @(posedge clk) begin
        if (m_valid && m_ready) begin
            m_valid <= 1'b0;
        end
        case (phase)
            IDLE: if (take) begin
                op <= s_op; op_is <= 16'(1) << s_op; o_psn <= s_psn;
                is_ack  <= s_syndrome[7:5] == 3'b000;
                is_rnr  <= s_syndrome[7:5] == 3'b001;
                is_nak  <= s_syndrome[7:5] == 3'b011 && s_syndrome[4:0] <= 5'd4;
                r_ack   <= s_op == rc_pkg::RC_REQ_OP_RECEIVE && s_syndrome[7:5] == 3'b000;
                r_rnr   <= s_op == rc_pkg::RC_REQ_OP_RECEIVE && s_syndrome[7:5] == 3'b001;
                r_nak   <= s_op == rc_pkg::RC_REQ_OP_RECEIVE && s_syndrome[7:5] == 3'b011
                           && s_syndrome[4:0] <= 5'd4;
                r_fatal <= s_op == rc_pkg::RC_REQ_OP_RECEIVE && s_syndrome[7:5] == 3'b011
                           && s_syndrome[4:0] <= 5'd4 && s_syndrome[4:0] != 5'd0;
                o_psn1 <= s_psn + 24'd1; o_wr <= s_wr;
                o_packets <= s_packets; o_read <= s_read; o_code <= s_syndrome[2:0];
                o_rnr <= s_rnr_ticks; o_status <= s_status; o_now <= s_now;
                o_qp <= s_qp;
                o_retry_cnt <= cfg_retry_cnt; o_rnr_retry <= cfg_rnr_retry;
                o_max_inflight <= cfg_max_inflight; o_timeout <= cfg_timeout_ticks;
                i <= '0;
                phase <= !same ? SWAP : go;
            end
            // The last answer gone, the registers' QP is written back and this one read.
            SWAP: if (swap) begin
                cur_q <= o_qp;
                phase <= LOAD;
            end
            LOAD: if (loading) begin
                una <= ld_una; snd <= ld_snd; hi <= ld_hi; nxt <= ld_nxt;
                head <= ld_head; len <= ld_len;
                retry_left <= ld_retry_left; rnr_left <= ld_rnr_left;
                dl_on <= ld_dl_on; rnr_on <= ld_rnr_on; nak_on <= ld_nak_on; failed <= ld_failed;
                dl <= ld_dl; rnr_until <= ld_rnr_until;
                last_nak <= ld_last_nak; fail_first <= ld_fail_first;
                fail_status <= ld_fail_status; snd_known <= ld_snd_known;
                cnt_resent <= ld_resent; cnt_timeouts <= ld_timeouts; cnt_seq_naks <= ld_seq_naks;
                cnt_rnr_naks <= ld_rnr_naks; cnt_read_gaps <= ld_read_gaps;
                phase <= go;
            end
            CLEAR: begin
                clear_i <= clear_i + 1'b1;
                if (clear_i == QW'(QPS - 1)) begin
                    phase <= IDLE;
                end
            end
            SCAN: begin
                i <= i + 1'b1;
                if (i + 1'b1 == len) begin
                    phase <= QPS > 1 ? LAST0 : LAST;
                end
            end
            LAST0:  phase <= LAST;
            LAST:   phase <= LAST2;
            LAST2:  phase <= LAST3;
            LAST3:  phase <= PREP;
            PREP:   phase <= PREP2;
            PREP2:  phase <= PREP3;
            PREP3:  phase <= COMMIT;
            COMMIT: if (commit) begin
                phase   <= IDLE;
                m_valid <= 1'b1;
                m_qp    <= cur_qp;
                snd_known <= op != rc_pkg::RC_REQ_OP_INIT
                             && (op == rc_pkg::RC_REQ_OP_POST ? snd_known : x_snd_known);
                if (op == rc_pkg::RC_REQ_OP_INIT) begin
                    una <= o_psn; snd <= o_psn; hi <= o_psn; nxt <= o_psn;
                    head <= '0; len <= '0;
                    retry_left <= o_retry_cnt; rnr_left <= o_rnr_retry;
                    dl_on <= 1'b0; rnr_on <= 1'b0; nak_on <= 1'b0; failed <= 1'b0;
                    cnt_resent <= '0; cnt_timeouts <= '0; cnt_seq_naks <= '0;
                    cnt_rnr_naks <= '0; cnt_read_gaps <= '0;
                    m_ans <= rc_pkg::RC_REQ_ANS_NOTHING;
                end else begin
                    if (x_una)        una <= p_bound;
                    if (x_snd_next)   snd <= p_snd_next;
                    if (x_snd_bound)  snd <= p_bound;
                    if (x_snd_una)    snd <= una;
                    if (x_hi)         hi <= p_snd_next;
                    if (x_post) begin
                        nxt <= q_nxt_new;
                        len <= len + 1'b1;
                    end
                    if (x_poll) begin
                        head <= head + 1'b1;
                        len  <= len - 1'b1;
                    end
                    if (x_retry_load) retry_left <= x_retry;
                    if (x_rnr_load)   rnr_left <= x_rnr;
                    if (!x_dl_keep) begin
                        dl_on <= x_dl_on;
                        if (x_dl_load) dl <= p_arm;
                    end
                    if (!x_rnr_keep) begin
                        rnr_on    <= x_rnr_on;
                        rnr_until <= p_rnr_end;
                    end
                    if (!x_nak_keep) begin
                        nak_on   <= x_nak_on;
                        last_nak <= p_bound;
                    end
                    if (x_fail) begin
                        failed      <= 1'b1;
                        fail_first  <= x_fail_first;
                        fail_status <= x_fail_status;
                    end
                    cnt_resent    <= cnt_resent    + CNT_W'(x_resent);
                    cnt_timeouts  <= cnt_timeouts  + CNT_W'(x_timeout);
                    cnt_seq_naks  <= cnt_seq_naks  + CNT_W'(x_seq);
                    cnt_rnr_naks  <= cnt_rnr_naks  + CNT_W'(x_rnr_nak);
                    cnt_read_gaps <= cnt_read_gaps + CNT_W'(x_gap);
                    m_ans <= x_ans;
                end
                m_psn <= x_psn; m_wr <= x_wr; m_index <= x_index; m_packets <= x_packets;
                m_ack_req <= x_ack_req; m_resend <= x_resend; m_status <= x_status;
                m_until <= x_until;
            end
            default: phase <= IDLE;
        endcase
        if (rst) begin
            phase <= QPS > 1 ? CLEAR : IDLE;
            clear_i <= '0;
            cur_q <= '0;
            m_valid <= 1'b0;
            snd_known <= 1'b0;
            // As INIT at PSN 0: a QP is initialised before it is used.
            una <= '0; snd <= '0; hi <= '0; nxt <= '0; head <= '0; len <= '0;
            retry_left <= '0; rnr_left <= '0;
            dl_on <= 1'b0; rnr_on <= 1'b0; nak_on <= 1'b0; failed <= 1'b0;
            cnt_resent <= '0; cnt_timeouts <= '0; cnt_seq_naks <= '0;
            cnt_rnr_naks <= '0; cnt_read_gaps <= '0;
        end
    end

    // ---- the other QPs' state: one RAM entry each, written and read in SWAP --------------------
    // The request holding `snd` goes with it (what follows from it is worked out in LOAD).
    localparam int SW = 4 * 24 + IW + (IW + 1) + 2 * 3 + 5 + 2 * TIME_W + 2 * 24
                        + int'(rc_pkg::RC_STATUS_W) + 5 * CNT_W + 2 + WR_W + 2 * 24;
    wire [SW-1:0] st_w = {
        una, snd, hi, nxt, head, len, retry_left, rnr_left,
        dl_on, rnr_on, nak_on, failed, snd_known, dl, rnr_until, last_nak, fail_first,
        fail_status, cnt_resent, cnt_timeouts, cnt_seq_naks, cnt_rnr_naks, cnt_read_gaps,
        fs, es_rd, es_wr, es_first, es_pk
    };
    logic [SW-1:0] st_r;
    assign {
        ld_una, ld_snd, ld_hi, ld_nxt, ld_head, ld_len, ld_retry_left, ld_rnr_left,
        ld_dl_on, ld_rnr_on, ld_nak_on, ld_failed, ld_snd_known, ld_dl, ld_rnr_until,
        ld_last_nak, ld_fail_first, ld_fail_status,
        ld_resent, ld_timeouts, ld_seq_naks, ld_rnr_naks, ld_read_gaps,
        ld_fs, ld_es_rd, ld_es_wr, ld_es_first, ld_es_pk
    } = st_r;
    if (QPS > 1) begin : g_slots
        logic [SW-1:0] st_ram [QPS];
        // One write port (CLEAR's writes, which are the reset state, or SWAP's) and one read
        // port, at different QPs.
        always_ff @(posedge clk) begin
            if (phase == CLEAR || swap) begin
                st_ram[phase == CLEAR ? clear_i : cur_qp] <= st_w;
            end
            if (swap) begin
                st_r <= st_ram[o_qp];
            end
        end
    end else begin : g_one
        assign st_r = st_w;   // never loaded
    end

    // ---- the table ---------------------------------------------------------------------------
    // One write port (POST, at the entry after the last) and one read port (the scan).
    localparam int TE = WR_W + 24 + 24 + 1;   // an entry: id, first PSN, packets, READ
    wire [TW-1:0] t_raddr = entry(cur_qp, head + i[IW-1:0]);
    wire [TW-1:0] t_waddr = entry(cur_qp, head + len[IW-1:0]);
    wire          t_we    = commit && x_post;
    wire [TE-1:0] t_wdata = {o_wr, nxt, o_packets, o_read};
    logic t0_v, t0_oldest;
    always_ff @(posedge clk) begin
        t0_v      <= phase == SCAN && !rst;
        t0_oldest <= i == '0;
    end
    if (QPS > 1) begin : g_bram
        // QPS * W entries are block RAM, whose read data come late in the cycle (5.8 ns of 8 on
        // the ECP5), so they go through its output register: two cycles (LAST0 waits for it).
        localparam int AW = TW < 10 ? 10 : TW;
        wqe_bram #(.WIDTH(TE), .AW(AW)) u_table (
            .clk(clk), .wr_en(t_we), .wr_addr(AW'(t_waddr)), .wr_data(t_wdata),
            .rd_addr(AW'(t_raddr)), .rd_data({e_wr, e_first, e_pk, e_rd})
        );
        always_ff @(posedge clk) begin
            e_v      <= t0_v && !rst;
            e_oldest <= t0_oldest;
        end
    end else begin : g_lutram
        // W entries are LUT RAM, read in one cycle.
        logic [TE-1:0] t [W];
        logic [TE-1:0] t_q;
        always_ff @(posedge clk) begin
            if (t_we) begin
                t[t_waddr] <= t_wdata;
            end
            t_q <= t[t_raddr];
        end
        assign {e_wr, e_first, e_pk, e_rd} = t_q;
        assign e_v      = t0_v;
        assign e_oldest = t0_oldest;
    end

    assign st_una         = una;
    assign st_snd         = snd;
    assign st_nxt         = nxt;
    assign st_error       = failed;
    assign st_outstanding = len;

endmodule

`endif  // ROCENIC_RC_REQUESTER_SV
