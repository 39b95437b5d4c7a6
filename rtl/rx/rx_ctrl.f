// The receive path's control plane: registers, work queues with their ring indices, receive
// contexts. Packages come first; the context store is the send side's.
-f rtl/rx/rx_regs.f
rtl/rx/rx_ctrl_pkg.sv
rtl/wqe/wqe_ctx_ram.sv
rtl/rx/rx_regs.sv
rtl/rx/rx_rings.sv
rtl/rx/rx_wq_table.sv
rtl/rx/rx_ctx_table.sv
rtl/rx/rx_ctrl.sv
