// The stream FIFO: a RAM with a registered read and an output register.
--top-module stream_fifo
rtl/common/stream_fifo.sv
