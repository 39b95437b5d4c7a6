// The whole RSS pipeline: parse, steer, hash, indirection, registers. Packages come first.
-f rtl/rss/rss_parser.f
-f rtl/common/common.f
-f rtl/rss/rss_indirection.f
rtl/rss/rss_hash_core.sv
rtl/rss/rss_steering.sv
rtl/rss/rss_hash_input.sv
rtl/rss/rss_regs.sv
rtl/rss/rss_pipeline.sv
