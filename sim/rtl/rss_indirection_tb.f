// The indirection table in its co-simulation wrapper (not synthesized).
-f rtl/rss/rss_indirection.f
sim/rtl/rss_indirection_tb.sv
