//! The random world a run starts from: host memory (rings, completion rings, buffers, a hole,
//! and two edges where a ring runs from memory into nothing), memory regions, work queues and
//! QPs with their receive sides, each as software would create them.

use rand::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{Access, MemoryRegion, PathMtu, QpConfig, QpState, QpTable};
use rocenic_model::rx::{RecvRing, Target, WqConfig};
use rocenic_model::wqe::{CompletionRing, Fill, HostMemory, Ring};
use rocenic_sim::rx::path::{MRS, MR_IDX_LSB, QPS, WQS};
use rocenic_sim::stream::TestRng;

/// The QP slots that are RC in every layout, each with a queue of its own.
pub const RC_SLOTS: [usize; 2] = [0, 2];

/// Receive rings: queue w's at RINGS + w * 0x1_0000.
pub const RINGS: u64 = 0x10_0000;
/// Completion rings: queue w's at CQS + w * 0x1000.
pub const CQS: u64 = 0x20_0000;
/// Buffers.
pub const BUF: u64 = 0x100_0000;
pub const BUF_LEN: u64 = 0x4_0000;
/// Nothing behind it.
pub const HOLE: u64 = 0x800_0000;
/// 128 bytes of memory with nothing after them: queue 6's completion ring runs off its end
/// (entries 2 and 3 of 4 fault), queue 5's receive ring too (slots 2 and 3 of 4).
pub const EDGE_CQ: u64 = 0x40_0000;
pub const EDGE_RING: u64 = 0x50_0000;

/// A memory region and its slot.
#[derive(Clone, Copy, Debug)]
pub struct Region {
    pub slot: u8,
    pub mr: MemoryRegion,
}

/// A QP: its slot, QPN, configuration and receive side.
#[derive(Clone, Copy, Debug)]
pub struct Qp {
    pub slot: usize,
    pub qpn: u32,
    pub ud: bool,
    pub pd: u32,
    pub mtu: PathMtu,
    pub qkey: u32,
    pub target: Target,
    /// Attached to a receive side.
    pub attached: bool,
    /// Brought to RTS (else left in INIT).
    pub up: bool,
}

/// Everything created.
pub struct Layout {
    pub regions: Vec<Region>,
    pub wqs: Vec<WqConfig>,
    pub qps: Vec<Qp>,
    /// Queues left in RESET at the start.
    pub reset: Vec<u16>,
    /// RSS queues and the raw queue.
    pub rss_queues: [u16; 2],
    pub raw_queue: u16,
}

const LW: Access = Access::LOCAL_WRITE;
const RW: Access = Access::REMOTE_WRITE;

impl Layout {
    pub fn random(rng: &mut TestRng) -> Layout {
        let region = |slot: u8, base: u64, length: u64, pd: u32, access: Access, k: u8| Region {
            slot,
            mr: MemoryRegion {
                lkey: (u32::from(slot) << MR_IDX_LSB) | u32::from(k) | 0x5A00_0000,
                base,
                length,
                pd,
                access,
            },
        };
        let regions = vec![
            region(0, BUF, 0x1_0000, 1, LW.union(RW), rng.gen()),
            region(1, BUF + 0x1_0000, 0x1_0000, 1, LW, rng.gen()),
            region(2, BUF + 0x2_0000, 0x1_0000, 2, LW.union(RW), rng.gen()),
            region(3, HOLE, 0x1_0000, 1, LW.union(RW), rng.gen()),
            region(4, BUF + 0x3_0000, 0x8000, 1, RW, rng.gen()),
            region(5, BUF + 0x3_8000, 0x8000, 2, LW.union(RW), rng.gen()),
        ];
        assert!(regions.len() <= MRS);
        // Queues: 0 shared, 1..=4 own queues of slots 0..=3, 5 and 6 an RSS QP's, 7 raw.
        let rss_qpn = 0x4000 | 5;
        let wqs: Vec<WqConfig> = (0..WQS as u16)
            .map(|w| {
                let ring_log2 = if w >= 5 { 2 } else { rng.gen_range(1..=3) };
                let stride = if rng.gen_bool(0.2) {
                    4
                } else {
                    rng.gen_range(0..=2)
                };
                let base = match w {
                    5 => EDGE_RING,
                    _ => RINGS + u64::from(w) * 0x1_0000,
                };
                let (stride, ring_log2) = if w == 5 { (0, 2) } else { (stride, ring_log2) };
                let cq_log2 = if w == 6 { 2 } else { rng.gen_range(1..=3) };
                let cq_base = if w == 6 {
                    EDGE_CQ + 0x40
                } else {
                    CQS + u64::from(w) * 0x1000
                };
                WqConfig {
                    qpn: match w {
                        5 | 6 => rss_qpn,
                        7 => 0x7777,
                        _ => 0x1000 + u32::from(w),
                    },
                    pd: if w == 7 || rng.gen_bool(0.7) { 1 } else { 2 },
                    ring: RecvRing::new(Ring::new(ring_log2).unwrap(), stride, base).unwrap(),
                    cq: CompletionRing::new(Ring::new(cq_log2).unwrap(), 0).unwrap(),
                    cq_base,
                    raw: w == 7,
                }
            })
            .collect();
        let mut qps = Vec::new();
        for slot in 0..QPS {
            let gen = rng.gen_range(1..0x100u32);
            let qpn = (gen << 8) | slot as u32;
            // Slots 0 and 2 RC and slot 1 UD whatever the draw, so that every run has both, and
            // RC traffic still when the queue reset below takes one RC QP's queue.
            let ud = match slot {
                _ if RC_SLOTS.contains(&slot) => false,
                1 | 5 => true,
                _ => rng.gen_bool(0.4),
            };
            let target = match slot {
                0..=3 => Target::Own(slot as u16 + 1),
                5 => Target::Rss,
                _ => Target::Shared(0),
            };
            let mtu = PathMtu::from_code(match rng.gen_range(0..10) {
                0 => 5,
                1 => 4,
                2..=4 => 3,
                5..=7 => 2,
                _ => 1,
            })
            .unwrap();
            qps.push(Qp {
                slot,
                qpn: if slot == 5 { rss_qpn } else { qpn },
                ud,
                pd: wqs[match target {
                    Target::Own(w) | Target::Shared(w) => usize::from(w),
                    Target::Rss => 5,
                }]
                .pd,
                mtu,
                qkey: rng.gen(),
                target,
                attached: slot != 7,
                up: slot != 6,
            });
        }
        Layout {
            regions,
            wqs,
            qps,
            reset: vec![rng.gen_range(1..=4)],
            rss_queues: [5, 6],
            raw_queue: 7,
        }
    }

    /// Host memory: rings, completion rings, buffers (filled with a counter), the two edges.
    pub fn memory(&self) -> HostMemory {
        let mut m = HostMemory::new();
        m.add(RINGS, WQS * 0x1_0000, Fill::Zero).unwrap();
        m.add(CQS, WQS * 0x1000, Fill::Zero).unwrap();
        m.add(BUF, BUF_LEN as usize, Fill::Counter).unwrap();
        m.add(EDGE_CQ, 0x80, Fill::Zero).unwrap();
        m.add(EDGE_RING, 0x80, Fill::Zero).unwrap();
        m
    }

    /// A region of PD `pd` with local write, backed.
    pub fn local(&self, rng: &mut TestRng, pd: u32) -> &Region {
        let c: &[usize] = if pd == 1 { &[0, 1] } else { &[2, 5] };
        &self.regions[c[rng.gen_range(0..c.len())]]
    }

    /// A region of PD `pd` with remote write, backed.
    pub fn remote(&self, rng: &mut TestRng, pd: u32) -> &Region {
        let c: &[usize] = if pd == 1 { &[0] } else { &[2, 5] };
        &self.regions[c[rng.gen_range(0..c.len())]]
    }

    /// The send side's QP table as software creates it: every QP, brought to RTS or left in
    /// INIT.
    pub fn qp_table(&self) -> QpTable<QPS> {
        let mut t = QpTable::<QPS>::new(Profile::Linux);
        for q in &self.qps {
            t.create(q.qpn, qp_config(q)).unwrap();
            if q.up {
                t.bring_up(q.qpn).unwrap();
            } else {
                t.modify(q.qpn, QpState::Init).unwrap();
            }
        }
        t
    }
}

/// The send side's configuration of `q` (its receive side's fields match).
pub fn qp_config(q: &Qp) -> QpConfig {
    rocenic_sim::rx::qp_config(q.ud, q.pd, q.mtu, q.qkey)
}
