// The whole receive path: the front end, the control plane, the send side's region check, the
// data path's parts and the top last.
--top-module rx_path
rtl/common/wire_pkg.sv
rtl/rx/rx_pkg.sv
rtl/rx/rx_check_pkg.sv
rtl/rx/rx_regs_pkg.sv
rtl/rx/rx_ctrl_pkg.sv
rtl/rc/rc_pkg.sv
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
rtl/rx/rx_ram.sv
rtl/rx/rx_regs.sv
rtl/rx/rx_rings.sv
rtl/rx/rx_wq_table.sv
rtl/rx/rx_ctx_table.sv
rtl/rx/rx_ctrl.sv
rtl/common/stream_fifo.sv
rtl/wqe/wqe_mr_ram.sv
rtl/wqe/wqe_mr_cmp.sv
rtl/wqe/wqe_mr.sv
rtl/rc/rc_responder.sv
rtl/rx/rx_dp_emit.sv
rtl/rx/rx_dp_fetch.sv
rtl/rx/rx_dp_scatter.sv
rtl/rx/rx_dp_checks.sv
rtl/rx/rx_dp_resp.sv
rtl/rx/rx_dp.sv
rtl/rx/rx_path.sv
