// The whole RSS pipeline: parse, steer, hash, indirection, registers. Packages come first.
--top-module rss_pipeline
rtl/common/wire_pkg.sv
rtl/rss/rss_regs_pkg.sv
rtl/rss/rss_types_pkg.sv
rtl/rss/rss_parser_hop.sv
rtl/rss/rss_parser_hop_table.sv
rtl/rss/rss_parser_hop_entry.sv
rtl/rss/rss_parser.sv
rtl/common/stream_fifo.sv
rtl/rss/rss_indirection.sv
rtl/rss/rss_hash_core.sv
rtl/rss/rss_steering.sv
rtl/rss/rss_hash_input.sv
rtl/rss/rss_regs.sv
rtl/rss/rss_pipeline.sv
