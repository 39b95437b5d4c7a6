// The RSS frame parser with its packages (the register map first: the types use it).
--top-module rss_parser
rtl/common/wire_pkg.sv
rtl/rss/rss_regs_pkg.sv
rtl/rss/rss_types_pkg.sv
rtl/rss/rss_parser_hop.sv
rtl/rss/rss_parser_hop_table.sv
rtl/rss/rss_parser_hop_entry.sv
rtl/rss/rss_parser.sv
