// The board core: UART bridge, its registers, the entropy unit and the RSS hash.
-f rtl/entropy/entropy_unit.f
-f rtl/rss/rss_hash.f
rtl/top/uart_rx.sv
rtl/top/uart_tx.sv
rtl/top/uart_bridge.sv
rtl/top/rocenic_core.sv
