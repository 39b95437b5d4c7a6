// The run-time indirection table (dual-port RAM with its write path).
rtl/rss/rss_indirection.sv
