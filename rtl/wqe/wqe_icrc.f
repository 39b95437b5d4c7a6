// The ICRC stage of the WQE engine's frame path: the CRC pipeline, then the top; the output
// register slice from the common blocks.
--top-module wqe_icrc
rtl/common/skid_buffer.sv
rtl/wqe/wqe_icrc_crc.sv
rtl/wqe/wqe_icrc.sv
