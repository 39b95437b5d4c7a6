// The orangecrab board top (pins and clock in its constraints file).
-f rtl/top/boards/ecp5_board.f
rtl/top/boards/orangecrab_top.sv
