// The WQE engine, send side: control plane, data path, memory-region check, frame builder and
// ICRC stage, the wiring top last.
-f rtl/wqe/wqe_ctrl.f
-f rtl/wqe/wqe_dp.f
-f rtl/wqe/wqe_mr.f
-f rtl/wqe/wqe_frame.f
-f rtl/wqe/wqe_icrc.f
rtl/wqe/wqe_engine.sv
