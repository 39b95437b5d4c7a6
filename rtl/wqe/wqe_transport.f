// The reliable transport in the engine's control plane: the generated codes, the types, the
// RNR timer, the requester and its RAM, the send side's block, then the module. The engine
// carries it with RELIABLE = 1 (its own list names only the default build's files; the
// modules include what they use).
--top-module wqe_transport
rtl/rc/rc_pkg.sv
rtl/wqe/wqe_fmt_pkg.sv
rtl/wqe/wqe_dp_pkg.sv
rtl/common/mul_reg.sv
rtl/rc/rc_timer.sv
rtl/wqe/wqe_bram.sv
rtl/rc/rc_requester.sv
rtl/wqe/wqe_reliable.sv
rtl/wqe/wqe_transport.sv
