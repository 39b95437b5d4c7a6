// The receive path's front end: its packages (the wire constants, the codes and limits
// generated from model::rx, the header words' type), the send side's CRC pipeline, the parts,
// the top last.
--top-module rx_check
rtl/common/wire_pkg.sv
rtl/rx/rx_pkg.sv
rtl/rx/rx_check_pkg.sv
rtl/wqe/wqe_icrc_crc.sv
rtl/rx/rx_check_space.sv
rtl/rx/rx_check_ram.sv
rtl/rx/rx_check_fields.sv
rtl/rx/rx_check_lanes.sv
rtl/rx/rx_check_sum.sv
rtl/rx/rx_check_crc.sv
rtl/rx/rx_check_desc.sv
rtl/rx/rx_check_verdict.sv
rtl/rx/rx_check.sv
