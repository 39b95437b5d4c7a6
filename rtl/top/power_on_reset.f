// The power-on reset that board tops put in front of the core.
--top-module power_on_reset
rtl/top/power_on_reset.sv
