// The Toeplitz/XOR hash unit alone (the board core's RSS hash).
--top-module rss_hash
rtl/common/skid_buffer.sv
rtl/rss/rss_hash_core.sv
rtl/rss/rss_hash.sv
