// The WQE engine's control plane: registers, QP table, memory-region keys, doorbells and the
// scheduler, with the entropy unit it fixes RC QPs' ports with. Packages come first.
--top-module wqe_ctrl
rtl/wqe/wqe_regs_pkg.sv
rtl/wqe/wqe_fmt_pkg.sv
rtl/wqe/wqe_pkg.sv
rtl/entropy/entropy_pkg.sv
rtl/common/skid_buffer.sv
rtl/common/mul_reg.sv
rtl/entropy/entropy_unit.sv
rtl/wqe/wqe_regs.sv
rtl/wqe/wqe_ctx_ram.sv
rtl/wqe/wqe_err_merge.sv
rtl/wqe/wqe_qp_table.sv
rtl/wqe/wqe_mr_keys.sv
rtl/wqe/wqe_rr.sv
rtl/wqe/wqe_sched.sv
rtl/wqe/wqe_ctrl.sv
