// What every ECP5 board shares: the core behind a PLL and a power-on reset.
-f rtl/top/rocenic_core.f
-f rtl/top/power_on_reset.f
rtl/top/boards/ecp5_pll.sv
rtl/top/boards/ecp5_board.sv
