// The full core's register port: one AXI4-Lite slave to a slave per window of the address map
// (generated package first).
--top-module nic_axil
rtl/top/nic_regs_pkg.sv
rtl/top/nic_axil.sv
