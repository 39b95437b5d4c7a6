// The receive path's control plane: registers, work queues with their ring indices, receive
// contexts. Packages come first.
--top-module rx_ctrl
rtl/rx/rx_regs_pkg.sv
rtl/rx/rx_ctrl_pkg.sv
rtl/rx/rx_ram.sv
rtl/rx/rx_regs.sv
rtl/rx/rx_rings.sv
rtl/rx/rx_wq_table.sv
rtl/rx/rx_ctx_table.sv
rtl/rx/rx_ctrl.sv
