// The receive data path: its packages (the codes from model::rx, rx_ctrl's types), the parts,
// the top last.
--top-module rx_dp
rtl/rx/rx_pkg.sv
rtl/wqe/wqe_fmt_pkg.sv
rtl/rx/rx_ctrl_pkg.sv
rtl/rx/rx_dp_pkg.sv
rtl/rc/rc_pkg.sv
rtl/rx/rx_ram.sv
rtl/rc/rc_responder.sv
rtl/rx/rx_dp_emit.sv
rtl/rx/rx_dp_fetch.sv
rtl/rx/rx_dp_scatter.sv
rtl/rx/rx_dp_checks.sv
rtl/rx/rx_dp_resp.sv
rtl/rx/rx_dp.sv
