// The reliable transport's send side for the RC send queues: the generated codes, the types,
// the requester and its RAM, then the module.
--top-module wqe_reliable
rtl/rc/rc_pkg.sv
rtl/wqe/wqe_fmt_pkg.sv
rtl/wqe/wqe_dp_pkg.sv
rtl/wqe/wqe_bram.sv
rtl/rc/rc_requester.sv
rtl/wqe/wqe_reliable.sv
