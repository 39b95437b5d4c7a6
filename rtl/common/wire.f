// Header field values the parsers compare against (generated from model::wire).
rtl/common/wire_pkg.sv
