// The RC timers in ticks: the generated codes and RNR table, the multiplier, then the module.
--top-module rc_timer
rtl/rc/rc_pkg.sv
rtl/common/mul_reg.sv
rtl/rc/rc_timer.sv
