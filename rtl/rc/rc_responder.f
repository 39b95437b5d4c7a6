// The reliable connection's responder rules: the generated codes, then the module.
--top-module rc_responder
rtl/rc/rc_pkg.sv
rtl/rc/rc_responder.sv
