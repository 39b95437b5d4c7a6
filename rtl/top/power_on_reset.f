// The power-on reset that board tops put in front of the core.
rtl/top/power_on_reset.sv
