// The ICRC stage of the WQE engine's frame path: the CRC pipeline, then the top; the output
// register slice from the common blocks.
-f rtl/common/common.f
rtl/wqe/wqe_icrc_crc.sv
rtl/wqe/wqe_icrc.sv
