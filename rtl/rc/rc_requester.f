// The reliable connection's requester: the generated codes, then the module.
--top-module rc_requester
rtl/rc/rc_pkg.sv
rtl/wqe/wqe_bram.sv
rtl/rc/rc_requester.sv
