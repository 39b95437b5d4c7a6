// The entropy unit: IPv6 flow label and RoCEv2 UDP source port per request.
rtl/entropy/entropy_pkg.sv
-f rtl/common/common.f
rtl/entropy/entropy_unit.sv
