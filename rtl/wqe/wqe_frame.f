// The WQE engine's frame builder: header generation (package, checksum, layout, header
// beats), payload alignment, the wiring top last; the register slices from the common blocks.
--top-module wqe_frame
rtl/common/wire_pkg.sv
rtl/wqe/wqe_frame_pkg.sv
rtl/common/skid_buffer.sv
rtl/wqe/wqe_frame_csum.sv
rtl/wqe/wqe_frame_layout.sv
rtl/wqe/wqe_frame_hdr.sv
rtl/wqe/wqe_frame_align.sv
rtl/wqe/wqe_frame.sv
