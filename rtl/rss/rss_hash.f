// The Toeplitz/XOR hash unit alone (the board core's RSS hash).
-f rtl/common/common.f
rtl/rss/rss_hash_core.sv
rtl/rss/rss_hash.sv
