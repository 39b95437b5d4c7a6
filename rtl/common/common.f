// Building blocks every pipeline may use: the stream register slice, the stream FIFO and the
// registered product (mapped onto the ECP5 DSP). Lists: one path per line from the repository
// root, `-f` nests another list, `//` starts a comment (scripts/flist, sim/build/filelist.rs).
rtl/common/skid_buffer.sv
rtl/common/stream_fifo.sv
rtl/common/mul_reg.sv
