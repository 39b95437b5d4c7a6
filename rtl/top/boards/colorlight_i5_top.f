// The colorlight_i5 board top (pins and clock in its constraints file).
-f rtl/top/boards/ecp5_board.f
rtl/top/boards/colorlight_i5_top.sv
