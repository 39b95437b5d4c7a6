// The iCEBreaker board top: the core straight from the 12 MHz oscillator.
-f rtl/top/rocenic_core.f
-f rtl/top/power_on_reset.f
rtl/top/boards/icebreaker_top.sv
