// The entropy unit: IPv6 flow label and RoCEv2 UDP source port per request.
--top-module entropy_unit
rtl/entropy/entropy_pkg.sv
rtl/common/skid_buffer.sv
rtl/common/mul_reg.sv
rtl/entropy/entropy_unit.sv
