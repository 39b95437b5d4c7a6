// The data path's TSO split and merge around the segmenter (wqe_tso_tx, the top, last).
-f rtl/common/common.f
-f rtl/tso/tso_segmenter.f
rtl/wqe/wqe_tso_tx.sv
