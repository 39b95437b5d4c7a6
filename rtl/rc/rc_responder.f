// The reliable connection's responder rules: the generated codes, then the module.
rtl/rc/rc_pkg.sv
rtl/rc/rc_responder.sv
