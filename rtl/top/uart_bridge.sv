// SPDX-License-Identifier: Apache-2.0 OR MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Register-bus bridge over a byte stream (a UART): framed requests with a CRC in, replies out.
//
// Protocol (docs/uart-bridge.md; the Rust codec is model/src/bridge.rs). Multi-byte fields are
// big-endian. CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no
// final XOR) over every byte between the start byte and the CRC.
//   request: 0xA5 | op | addr[15:8] | addr[7:0] | count | count x 4 data bytes (write only) | crc
//            op 0x01 reads, 0x02 writes `count` 32-bit registers at addr, addr+1, ...
//   reply:   0x5A | status | count | count x 4 data bytes (successful read only) | crc
//            status 0x00 ok, 0x01 bad CRC, 0x02 unknown op, 0x03 count not in 1..MAX_WORDS,
//            0x04 the line went quiet for IDLE_TIMEOUT cycles in the middle of a frame.
//            An error reply has count 0; a successful write echoes count without data.
// Every frame that starts with 0xA5 gets exactly one reply; bytes before a start byte are
// skipped. A request is carried out only after its CRC checked, so a damaged write changes
// nothing. The length of a frame follows from its op and count alone, and a frame cut short
// ends in the timeout, so no input leaves the bridge waiting forever. The host sends its next
// request only after the reply: bytes that arrive while a request executes or its reply goes
// out are dropped (s_rx_ready stays high, so the receiver never overflows).
//
// Register bus: one access at a time. bus_valid is held until bus_ack; a read's data is taken
// with the ack. The register block answers every access (unmapped addresses too), so the bridge
// has no bus timeout.
//
// Timing: at most one byte per clock in, a reply byte offered every other clock. The handshake
// outputs (s_rx_ready, m_tx_valid, bus_valid) are flip-flops or constants; bus_addr is addr plus
// the word index, one adder after flip-flops.
module uart_bridge #(
    parameter int MAX_WORDS    = 16,    // Most registers one request may read or write (1..255)
    parameter int IDLE_TIMEOUT = 65535  // Quiet cycles after which a started frame is abandoned
) (
    input  wire        clk,
    input  wire        rst,          // synchronous, active high
    // bytes from the line
    input  wire        s_rx_valid,
    output wire        s_rx_ready,
    input  wire [7:0]  s_rx_data,
    // bytes to the line
    output wire        m_tx_valid,
    input  wire        m_tx_ready,
    output wire [7:0]  m_tx_data,
    // register bus
    output wire        bus_valid,
    output wire        bus_write,
    output wire [15:0] bus_addr,
    output wire [31:0] bus_wdata,
    input  wire        bus_ack,
    input  wire [31:0] bus_rdata
);

    if (MAX_WORDS < 1 || MAX_WORDS > 255) begin : g_bad_max_words
        $error("uart_bridge: MAX_WORDS must be 1..255, got %0d", MAX_WORDS);
    end

    localparam logic [7:0] SOF_REQ = 8'hA5;
    localparam logic [7:0] SOF_REP = 8'h5A;
    localparam logic [7:0] OP_READ  = 8'h01;
    localparam logic [7:0] OP_WRITE = 8'h02;
    localparam logic [7:0] ST_OK        = 8'h00;
    localparam logic [7:0] ST_BAD_CRC   = 8'h01;
    localparam logic [7:0] ST_BAD_OP    = 8'h02;
    localparam logic [7:0] ST_BAD_COUNT = 8'h03;
    localparam logic [7:0] ST_TIMEOUT   = 8'h04;
    // The buffer has a power-of-two depth so that every index value names an entry.
    localparam int IDX_W = MAX_WORDS > 1 ? $clog2(MAX_WORDS) : 1;
    localparam int TO_W  = $clog2(IDLE_TIMEOUT + 1);
    localparam logic [TO_W-1:0] TIMEOUT_LAST = TO_W'(IDLE_TIMEOUT);

    // CRC-16/CCITT-FALSE of one more byte, MSB first.
    function automatic logic [15:0] crc16_step(input logic [15:0] crc, input logic [7:0] b);
        logic [15:0] c;
        c = crc ^ {b, 8'h00};
        for (int i = 0; i < 8; i++) begin
            c = c[15] ? ({c[14:0], 1'b0} ^ 16'h1021) : {c[14:0], 1'b0};
        end
        crc16_step = c;
    endfunction

    typedef enum logic [2:0] {
        F_SOF,    // skipping bytes until a start byte
        F_HDR,    // op, address, count
        F_DATA,   // write data (also consumed, unstored, when count is out of range)
        F_CRC,    // the two CRC bytes
        F_EXEC,   // register accesses
        F_REPLY   // sending the reply
    } fstate_t;

    fstate_t     state_q;
    logic [1:0]  hdr_idx_q;     // header byte, or CRC byte, being received
    logic [7:0]  op_q;
    logic [15:0] addr_q;
    logic [7:0]  count_q;
    logic [9:0]  data_left_q;   // data bytes still to come (count x 4 is at most 1020)
    logic [1:0]  byte_q;        // byte within the current word
    logic [7:0]  widx_q;        // word index: data word being received, accessed or sent
    logic [23:0] word_q;        // the first three bytes of the word being assembled
    logic [15:0] crc_q;         // CRC of the request so far, then of the reply so far
    logic [7:0]  crc_hi_q;      // first received CRC byte
    logic [TO_W-1:0] quiet_q;   // cycles without a byte inside a frame
    logic [7:0]  status_q;
    logic        bus_valid_q;
    logic [3:0]  rep_step_q;    // reply: 0 start, 1 status, 2 count, 3 data, 4 CRC high, 5 low
    logic        tx_valid_q;
    logic [7:0]  tx_data_q;

    // Request data on the way in, read data on the way out.
    logic [31:0] buf_q [1 << IDX_W];

    wire rx_take = s_rx_valid;  // s_rx_ready is always high
    wire [15:0] crc_rx   = crc16_step(crc_q, s_rx_data);
    wire in_frame = state_q == F_HDR || state_q == F_DATA || state_q == F_CRC;
    wire widx_in_buf = widx_q < 8'(MAX_WORDS);
    wire count_ok = count_q != 8'd0 && count_q <= 8'(MAX_WORDS);

    // The next reply byte, chosen by rep_step_q.
    logic [7:0] rep_byte;
    wire [31:0] rep_word = buf_q[widx_q[IDX_W-1:0]];
    wire        rep_has_data = status_q == ST_OK && op_q == OP_READ;
    always_comb begin
        case (rep_step_q)
            4'd0: rep_byte = SOF_REP;
            4'd1: rep_byte = status_q;
            4'd2: rep_byte = status_q == ST_OK ? count_q : 8'd0;
            4'd3: rep_byte = rep_word[31 - 8 * byte_q -: 8];
            4'd4: rep_byte = crc_q[15:8];
            default: rep_byte = crc_q[7:0];
        endcase
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            state_q     <= F_SOF;
            quiet_q     <= '0;
            bus_valid_q <= 1'b0;
            tx_valid_q  <= 1'b0;
        end else begin
            if (tx_valid_q && m_tx_ready) begin
                tx_valid_q <= 1'b0;
            end
            if (in_frame) begin
                quiet_q <= rx_take ? '0 : quiet_q + 1'b1;
            end else begin
                quiet_q <= '0;
            end
            case (state_q)
                F_SOF: begin
                    if (rx_take && s_rx_data == SOF_REQ) begin
                        state_q   <= F_HDR;
                        hdr_idx_q <= 2'd0;
                        crc_q     <= 16'hFFFF;
                    end
                end
                F_HDR: begin
                    if (rx_take) begin
                        crc_q     <= crc_rx;
                        hdr_idx_q <= hdr_idx_q + 1'b1;
                        case (hdr_idx_q)
                            2'd0: op_q <= s_rx_data;
                            2'd1: addr_q[15:8] <= s_rx_data;
                            2'd2: addr_q[7:0] <= s_rx_data;
                            default: begin
                                count_q     <= s_rx_data;
                                data_left_q <= {s_rx_data, 2'b00};
                                byte_q      <= 2'd0;
                                widx_q      <= 8'd0;
                                hdr_idx_q   <= 2'd0;
                                state_q     <= (op_q == OP_WRITE && s_rx_data != 8'd0)
                                               ? F_DATA : F_CRC;
                            end
                        endcase
                    end else if (quiet_q == TIMEOUT_LAST) begin
                        status_q <= ST_TIMEOUT;
                        state_q  <= F_REPLY;
                        rep_step_q <= 4'd0;
                        crc_q    <= 16'hFFFF;
                    end
                end
                F_DATA: begin
                    if (rx_take) begin
                        crc_q       <= crc_rx;
                        word_q      <= {word_q[15:0], s_rx_data};
                        byte_q      <= byte_q + 1'b1;
                        data_left_q <= data_left_q - 1'b1;
                        if (byte_q == 2'd3) begin
                            widx_q <= widx_q + 1'b1;
                        end
                        if (data_left_q == 10'd1) begin
                            state_q <= F_CRC;
                        end
                    end else if (quiet_q == TIMEOUT_LAST) begin
                        status_q   <= ST_TIMEOUT;
                        state_q    <= F_REPLY;
                        rep_step_q <= 4'd0;
                        crc_q      <= 16'hFFFF;
                    end
                end
                F_CRC: begin
                    if (rx_take) begin
                        hdr_idx_q <= hdr_idx_q + 1'b1;
                        crc_hi_q  <= s_rx_data;
                        if (hdr_idx_q[0]) begin
                            widx_q <= 8'd0;
                            byte_q <= 2'd0;
                            crc_q  <= 16'hFFFF;  // from here on: the reply's CRC
                            if ({crc_hi_q, s_rx_data} != crc_q) begin
                                status_q <= ST_BAD_CRC;
                                state_q  <= F_REPLY;
                            end else if (op_q != OP_READ && op_q != OP_WRITE) begin
                                status_q <= ST_BAD_OP;
                                state_q  <= F_REPLY;
                            end else if (!count_ok) begin
                                status_q <= ST_BAD_COUNT;
                                state_q  <= F_REPLY;
                            end else begin
                                status_q <= ST_OK;
                                state_q  <= F_EXEC;
                            end
                            rep_step_q <= 4'd0;
                        end
                    end else if (quiet_q == TIMEOUT_LAST) begin
                        status_q   <= ST_TIMEOUT;
                        state_q    <= F_REPLY;
                        rep_step_q <= 4'd0;
                        crc_q      <= 16'hFFFF;
                    end
                end
                F_EXEC: begin
                    if (!bus_valid_q) begin
                        bus_valid_q <= 1'b1;
                    end else if (bus_ack) begin
                        bus_valid_q <= 1'b0;
                        if (widx_q + 1'b1 == count_q) begin
                            widx_q  <= 8'd0;
                            state_q <= F_REPLY;
                        end else begin
                            widx_q <= widx_q + 1'b1;
                        end
                    end
                end
                default: begin  // F_REPLY
                    if (!tx_valid_q) begin
                        tx_valid_q <= 1'b1;
                        tx_data_q  <= rep_byte;
                        if (rep_step_q >= 4'd1 && rep_step_q <= 4'd3) begin
                            crc_q <= crc16_step(crc_q, rep_byte);
                        end
                        case (rep_step_q)
                            4'd2: rep_step_q <= rep_has_data ? 4'd3 : 4'd4;
                            4'd3: begin
                                byte_q <= byte_q + 1'b1;
                                if (byte_q == 2'd3) begin
                                    widx_q <= widx_q + 1'b1;
                                    if (widx_q + 1'b1 == count_q) begin
                                        rep_step_q <= 4'd4;
                                    end
                                end
                            end
                            4'd5: state_q <= F_SOF;
                            default: rep_step_q <= rep_step_q + 1'b1;
                        endcase
                    end
                end
            endcase
        end
    end

    // The buffer: written by complete write-data words (in range) and by read data.
    always_ff @(posedge clk) begin
        if (state_q == F_DATA && rx_take && byte_q == 2'd3 && widx_in_buf) begin
            buf_q[widx_q[IDX_W-1:0]] <= {word_q[23:0], s_rx_data};
        end else if (state_q == F_EXEC && bus_valid_q && bus_ack && op_q == OP_READ) begin
            buf_q[widx_q[IDX_W-1:0]] <= bus_rdata;
        end
    end

    assign s_rx_ready = 1'b1;
    assign m_tx_valid = tx_valid_q;
    assign m_tx_data  = tx_data_q;
    assign bus_valid  = bus_valid_q;
    assign bus_write  = op_q == OP_WRITE;
    assign bus_addr   = addr_q + {8'd0, widx_q};
    assign bus_wdata  = buf_q[widx_q[IDX_W-1:0]];

endmodule

`resetall
