// The WQE engine's data path: fetch, checks, gather, packet buffer, sender, completions, and
// (TSO builds) the segmenter behind the sender.
--top-module wqe_dp
rtl/wqe/wqe_fmt_pkg.sv
rtl/wqe/wqe_frame_pkg.sv
rtl/wqe/wqe_dp_pkg.sv
rtl/entropy/entropy_pkg.sv
rtl/tso/tso_status_pkg.sv
rtl/common/wire_pkg.sv
rtl/common/skid_buffer.sv
rtl/common/stream_fifo.sv
rtl/common/mul_reg.sv
rtl/entropy/entropy_unit.sv
rtl/tso/tso_sum16.sv
rtl/tso/tso_ram.sv
rtl/tso/tso_parse.sv
rtl/tso/tso_template.sv
rtl/tso/tso_ingress.sv
rtl/tso/tso_pass.sv
rtl/tso/tso_writer.sv
rtl/tso/tso_egress.sv
rtl/tso/tso_segmenter.sv
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
