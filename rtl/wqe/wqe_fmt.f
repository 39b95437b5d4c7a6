// The send engine's host-memory formats (generated from model::wqe::layout and the codes they
// carry): a package only, named in the list of every WQE engine top that uses it.
rtl/wqe/wqe_fmt_pkg.sv
