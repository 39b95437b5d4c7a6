// The full core's DMA port: the WQE engine's and the receive path's read and write ports merged
// into one (round robin, tags widened by a source bit, answers routed back by it).
--top-module nic_dma
rtl/common/skid_buffer.sv
rtl/top/nic_dma_mux.sv
rtl/top/nic_dma_demux.sv
rtl/top/nic_dma.sv
