// The run-time indirection table (dual-port RAM with its write path).
--top-module rss_indirection
rtl/rss/rss_indirection.sv
