// The ulx3s board top (pins and clock in its constraints file).
--top-module ulx3s_top
// Verilator finds the ECP5 PLL cell's ports here (a lint-only black box); synthesis takes
// the cell from its own library and reads the files below only.
-y lint/ecp5
rtl/top/rocenic_core_regs_pkg.sv
rtl/top/uart_bridge_pkg.sv
rtl/entropy/entropy_pkg.sv
rtl/common/skid_buffer.sv
rtl/common/mul_reg.sv
rtl/entropy/entropy_unit.sv
rtl/rss/rss_hash_core.sv
rtl/rss/rss_hash.sv
rtl/top/uart_rx.sv
rtl/top/uart_tx.sv
rtl/top/uart_bridge.sv
rtl/top/rocenic_core.sv
rtl/top/power_on_reset.sv
rtl/top/boards/ecp5_pll.sv
rtl/top/boards/ecp5_board.sv
rtl/top/boards/ulx3s_top.sv
