// The whole receive path: the front end, the control plane, the send side's region check, the
// data path's parts and the top last.
-f rtl/rx/rx_check.f
-f rtl/rx/rx_ctrl.f
-f rtl/wqe/wqe_mr.f
rtl/rx/rx_dp_emit.sv
rtl/rx/rx_dp_fetch.sv
rtl/rx/rx_dp_scatter.sv
rtl/rx/rx_dp.sv
rtl/rx/rx_path.sv
