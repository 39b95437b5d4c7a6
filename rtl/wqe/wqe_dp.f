// The WQE engine's data path: fetch, checks, gather, packet buffer, sender, completions, and
// (TSO builds) the segmenter behind the sender.
-f rtl/wqe/wqe_fmt.f
rtl/wqe/wqe_frame_pkg.sv
rtl/wqe/wqe_dp_pkg.sv
-f rtl/common/common.f
-f rtl/entropy/entropy_unit.f
-f rtl/tso/tso_segmenter.f
rtl/wqe/wqe_bram.sv
rtl/wqe/wqe_bram_fifo.sv
rtl/wqe/wqe_fetch.sv
rtl/wqe/wqe_parse.sv
rtl/wqe/wqe_gather.sv
rtl/wqe/wqe_rdbuf.sv
rtl/wqe/wqe_concat.sv
rtl/wqe/wqe_emit.sv
rtl/wqe/wqe_cq.sv
rtl/wqe/wqe_tso_tx.sv
rtl/wqe/wqe_dp.sv
