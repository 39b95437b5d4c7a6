// The data path's TSO split and merge around the segmenter (wqe_tso_tx, the top, last).
--top-module wqe_tso_tx
rtl/tso/tso_status_pkg.sv
rtl/common/wire_pkg.sv
rtl/common/skid_buffer.sv
rtl/common/stream_fifo.sv
rtl/tso/tso_sum16.sv
rtl/tso/tso_ram.sv
rtl/tso/tso_parse.sv
rtl/tso/tso_template.sv
rtl/tso/tso_ingress.sv
rtl/tso/tso_pass.sv
rtl/tso/tso_writer.sv
rtl/tso/tso_egress.sv
rtl/tso/tso_segmenter.sv
rtl/wqe/wqe_tso_tx.sv
