// The TSO segmenter (Ethernet and IPoIB): parse, segment RAM, checksums, the wiring top last.
--top-module tso_segmenter
rtl/tso/tso_status_pkg.sv
rtl/common/wire_pkg.sv
rtl/common/skid_buffer.sv
rtl/tso/tso_sum16.sv
rtl/tso/tso_ram.sv
rtl/tso/tso_parse.sv
rtl/tso/tso_template.sv
rtl/tso/tso_ingress.sv
rtl/tso/tso_pass.sv
rtl/tso/tso_writer.sv
rtl/tso/tso_egress.sv
rtl/tso/tso_segmenter.sv
