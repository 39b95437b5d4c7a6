//! The designs under test: each is a top module built from its RTL file list
//! (`rtl/<block>/<top>.f`), with parameter overrides, under a unique name (the C/Rust prefix).

/// A design under test.
pub struct DutSpec {
    /// The C/Rust symbol prefix and wrapper name (`V<name>`, `duts::<Name>`).
    pub name: &'static str,
    /// The top module.
    pub top: &'static str,
    /// The file list its sources come from, relative to the repository root.
    pub list: &'static str,
    /// Parameter overrides (`-G<name>=<value>`): one RTL module can be several DUTs.
    pub params: &'static [(&'static str, &'static str)],
    /// Extra C++ compiled with this DUT (native benchmark harnesses).
    pub extra_cpp: &'static [&'static str],
}

const fn dut(name: &'static str, top: &'static str, list: &'static str) -> DutSpec {
    DutSpec {
        name,
        top,
        list,
        params: &[],
        extra_cpp: &[],
    }
}

const ENTROPY: &str = "rtl/entropy/entropy_unit.f";
const RSS_HASH: &str = "rtl/rss/rss_hash.f";
const RSS_PIPELINE: &str = "rtl/rss/rss_pipeline.f";
const TSO: &str = "rtl/tso/tso_segmenter.f";
const WQE_ICRC: &str = "rtl/wqe/wqe_icrc.f";
const CORE: &str = "rtl/top/rocenic_core.f";
const WQE_DP: &str = "rtl/wqe/wqe_dp.f";
const WQE_TSO_TX: &str = "rtl/wqe/wqe_tso_tx.f";
const WQE_FRAME: &str = "rtl/wqe/wqe_frame.f";
const WQE_MR: &str = "rtl/wqe/wqe_mr.f";
const WQE_CTRL: &str = "rtl/wqe/wqe_ctrl.f";
const WQE_ENGINE: &str = "rtl/wqe/wqe_engine.f";
const RX_CHECK: &str = "rtl/rx/rx_check.f";
const RX_CTRL: &str = "rtl/rx/rx_ctrl.f";
const NIC_AXIL: &str = "rtl/top/nic_axil.f";
const NIC_DMA: &str = "rtl/top/nic_dma.f";
const RX_PATH: &str = "rtl/rx/rx_path.f";
const NIC_CORE: &str = "rtl/top/nic_core.f";
const RC_RESPONDER: &str = "rtl/rc/rc_responder.f";
const RC_REQUESTER: &str = "rtl/rc/rc_requester.f";
const RC_TIMER: &str = "rtl/rc/rc_timer.f";
const WQE_RELIABLE: &str = "rtl/wqe/wqe_reliable.f";

pub const DUTS: &[DutSpec] = &[
    DutSpec {
        extra_cpp: &["sim/cpp/entropy_unit_bench.cpp"],
        ..dut("entropy_unit", "entropy_unit", ENTROPY)
    },
    // The entropy unit as the iCEBreaker builds it: products split at 16 bits (SB_MAC16).
    DutSpec {
        params: &[("QPN_SPLIT", "16")],
        ..dut("entropy_unit_16", "entropy_unit", ENTROPY)
    },
    // The RSS hash core at three key lengths: 16-byte (12-byte inputs, the iCEBreaker's),
    // 40-byte (36) and 52-byte (48).
    DutSpec {
        params: &[("MAX_INPUT", "12")],
        ..dut("rss_hash_12", "rss_hash", RSS_HASH)
    },
    DutSpec {
        params: &[("MAX_INPUT", "36")],
        ..dut("rss_hash_36", "rss_hash", RSS_HASH)
    },
    DutSpec {
        params: &[("MAX_INPUT", "48")],
        ..dut("rss_hash_48", "rss_hash", RSS_HASH)
    },
    dut("rss_parser", "rss_parser", "rtl/rss/rss_parser.f"),
    // The indirection table in a test wrapper (8 entries, so that reads and writes collide).
    dut(
        "rss_indirection",
        "rss_indirection_tb",
        "sim/rtl/rss_indirection_tb.f",
    ),
    // The whole RSS pipeline at 64 and 512 bits per beat.
    DutSpec {
        params: &[("DATA_BYTES", "8")],
        extra_cpp: &["sim/cpp/rss_pipeline_64_bench.cpp"],
        ..dut("rss_pipeline_64", "rss_pipeline", RSS_PIPELINE)
    },
    DutSpec {
        params: &[("DATA_BYTES", "64")],
        ..dut("rss_pipeline_512", "rss_pipeline", RSS_PIPELINE)
    },
    // The TSO segmenter at a 64-bit and a 512-bit data path, default limits.
    DutSpec {
        params: &[("DATA_W", "64")],
        extra_cpp: &["sim/cpp/tso_64_bench.cpp"],
        ..dut("tso_64", "tso_segmenter", TSO)
    },
    // At 512 bits with four segment slots: the writer banks a lead (tso_segmenter's SLOTS).
    DutSpec {
        params: &[("DATA_W", "512"), ("SLOTS", "4")],
        ..dut("tso_512", "tso_segmenter", TSO)
    },
    // The send engine's frame builder (64-bit only).
    DutSpec {
        params: &[("DATA_BYTES", "8")],
        ..dut("wqe_frame", "wqe_frame", WQE_FRAME)
    },
    // The WQE engine's ICRC stage at 64 and 512 bits per beat.
    DutSpec {
        params: &[("DATA_BYTES", "8")],
        ..dut("wqe_icrc_64", "wqe_icrc", WQE_ICRC)
    },
    DutSpec {
        params: &[("DATA_BYTES", "64")],
        ..dut("wqe_icrc_512", "wqe_icrc", WQE_ICRC)
    },
    // The memory-region check at its default 64 slots, and at 8, where random lkeys share a
    // slot often.
    dut("wqe_mr", "wqe_mr", WQE_MR),
    DutSpec {
        params: &[("MRS", "8")],
        ..dut("wqe_mr_8", "wqe_mr", WQE_MR)
    },
    // The board tops' core (UART, bridge, registers, entropy unit, RSS hash) with a fast UART
    // (8 clocks per bit) and a short frame timeout, so end-to-end tests run in few cycles.
    DutSpec {
        params: &[
            ("CLKS_PER_BIT", "8"),
            ("RSS_MAX_INPUT", "36"),
            ("IDLE_TIMEOUT", "2000"),
        ],
        ..dut("rocenic_core", "rocenic_core", CORE)
    },
    // The core as rtl/top/boards/icebreaker_top.sv builds it (12-byte RSS inputs, products
    // split at 16 bits, 8 registers per request), with the same fast UART and timeout.
    DutSpec {
        params: &[
            ("CLKS_PER_BIT", "8"),
            ("RSS_MAX_INPUT", "12"),
            ("QPN_SPLIT", "16"),
            ("MAX_WORDS", "8"),
            ("IDLE_TIMEOUT", "2000"),
        ],
        ..dut("rocenic_core_icebreaker", "rocenic_core", CORE)
    },
    // The WQE engine's data path, its neighbours played by the bench.
    // (with TSO: the segmenter behind the sender; and the requester's packets, pick_t.rcp)
    DutSpec {
        params: &[("TSO", "1"), ("RC_PACKETS", "1")],
        ..dut("wqe_dp", "wqe_dp", WQE_DP)
    },
    dut("wqe_tso_tx", "wqe_tso_tx", WQE_TSO_TX),
    // The WQE engine's control plane at its defaults (64 QPs, 64 memory regions), and with 8 of
    // each so that the round robin and memory-region slot collisions are dense.
    dut("wqe_ctrl", "wqe_ctrl", WQE_CTRL),
    DutSpec {
        params: &[("QPS", "8"), ("MRS", "8")],
        ..dut("wqe_ctrl_8", "wqe_ctrl", WQE_CTRL)
    },
    // The control plane as the ECP5-25F engine builds it (16 QPs, 16 regions: fpga.mk).
    DutSpec {
        params: &[("QPS", "16"), ("MRS", "16")],
        ..dut("wqe_ctrl_16", "wqe_ctrl", WQE_CTRL)
    },
    // The whole WQE engine, send side: the default build with TSO, and the ECP5-25F one (no
    // TSO).
    DutSpec {
        params: &[("TSO", "1")],
        extra_cpp: &["sim/cpp/wqe_engine_bench.cpp"],
        ..dut("wqe_engine", "wqe_engine", WQE_ENGINE)
    },
    DutSpec {
        params: &[("QPS", "16"), ("MRS", "16")],
        ..dut("wqe_engine_16", "wqe_engine", WQE_ENGINE)
    },
    // The ECP5-25F build with the reliable transport on RC QPs (RC_CONTROL, s_rack_*).
    DutSpec {
        params: &[("QPS", "16"), ("MRS", "16"), ("RELIABLE", "1")],
        ..dut("wqe_engine_rel", "wqe_engine", WQE_ENGINE)
    },
    // The receive path's front end at its defaults (64-bit beats, 16 KiB buffer, 256 frames).
    dut("rx_check", "rx_check", RX_CHECK),
    // The receive path's control plane at its defaults (64 work queues, 64 receive contexts),
    // and with 8 of each so that slots, queues and flush picks collide often.
    dut("rx_ctrl", "rx_ctrl", RX_CTRL),
    DutSpec {
        params: &[("WQS", "8"), ("QPS", "8")],
        ..dut("rx_ctrl_8", "rx_ctrl", RX_CTRL)
    },
    // The full core's register port at the core's map (three windows, 15 address bits).
    dut("nic_axil", "nic_axil", NIC_AXIL),
    // The full core's DMA port: two sources (4-bit read tags, 2-bit write tags) into one.
    dut("nic_dma", "nic_dma", NIC_DMA),
    // The whole receive path with 8 work queues, 8 QP slots and 8 memory regions, so that
    // queues fill, slots collide and regions share their lkey slots often; Acknowledge frames
    // may leave for a requester (CONTROL.REQUESTER).
    DutSpec {
        params: &[("WQS", "8"), ("QPS", "8"), ("MRS", "8"), ("REQUESTER", "1")],
        ..dut("rx_path_8", "rx_path", RX_PATH)
    },
    // The reliable connection's responder rules (8-bit ACK counts).
    dut("rc_responder", "rc_responder", RC_RESPONDER),
    // One RC QP's requester at its defaults (16 requests, 16-bit ids, a 48-bit clock).
    dut("rc_requester", "rc_requester", RC_REQUESTER),
    // The requester serving four QPs, their state swapped through a RAM.
    DutSpec {
        params: &[("QPS", "4")],
        ..dut("rc_requester_qps4", "rc_requester", RC_REQUESTER)
    },
    dut("rc_timer", "rc_timer", RC_TIMER),
    // The reliable transport's send side for four RC send queues (one requester block).
    dut("wqe_reliable", "wqe_reliable", WQE_RELIABLE),
    // The full core at its defaults: the model NIC's sizes (64 QP slots, regions and work
    // queues; 16 rules, 4 RSS contexts, tables of up to 128 entries) and its engine with TSO.
    dut("nic_core", "nic_core", NIC_CORE),
    // The same core with the reliable transport on RC QPs (the engine's requesters, the receive
    // path's Acknowledge frames to them).
    DutSpec {
        params: &[("RELIABLE", "1")],
        ..dut("nic_core_rel", "nic_core", NIC_CORE)
    },
];
