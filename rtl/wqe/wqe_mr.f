// The memory-region check of the WQE engine: the table's RAM, the comparison, the check.
--top-module wqe_mr
rtl/common/stream_fifo.sv
rtl/wqe/wqe_mr_ram.sv
rtl/wqe/wqe_mr_cmp.sv
rtl/wqe/wqe_mr.sv
