// The receive path's register map (generated from model::rx::regs): a package only, named in
// the list of every receive-path top that uses it.
rtl/rx/rx_regs_pkg.sv
