// The colorlight_5a75b board top (pins and clock in its constraints file).
-f rtl/top/boards/ecp5_board.f
rtl/top/boards/colorlight_5a75b_top.sv
