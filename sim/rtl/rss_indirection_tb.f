// The indirection table in its co-simulation wrapper (not synthesized).
--top-module rss_indirection_tb
rtl/rss/rss_indirection.sv
sim/rtl/rss_indirection_tb.sv
