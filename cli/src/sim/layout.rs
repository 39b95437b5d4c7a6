//! Where a sim scenario lies in each NIC's host memory: the send side exactly as `rocenic send`
//! lays it out (`send/layout.rs`: the user's regions, the send rings and the send completion
//! ring in the reserved area at 2^62), and the receive side after it in the same area:
//!
//! - work queue w's receive ring at `RESERVED_BASE + 5 GiB + w × 16 MiB`: the next power of two
//!   of slots holding its buffers, one 64-byte block each (a header and one scatter entry);
//! - its completion ring at `RESERVED_BASE + 6 GiB + w × 2 MiB`, as many entries as the
//!   receive ring has slots, so it never fills: the host reposts a buffer only once it has
//!   read the buffer's completion;
//! - every buffer posted before the run: WQE i (work request id i) scatters into buffer i, at
//!   `addr + i × size`.

use super::check::{SidePlan, WqPlan};
use super::{Job, RecvQueue, SideJob};
use crate::send::layout::{
    lay_out as send_lay_out, log2_ceil, CQ_BASE, RESERVED_BASE, RESERVED_END,
};
use rocenic_model::rx::engine::DEFAULT_WQS;
use rocenic_model::rx::{RecvRing, RecvWqe, WqConfig, CQE_BYTES};
use rocenic_model::wqe::{CompletionRing, DataSegment, Fill, Memory, Ring, BLOCK_BYTES};

/// The first receive ring.
const RQ_BASE: u64 = RESERVED_BASE + (5 << 30);
/// Between two receive rings: the largest, 2^16 one-block slots, with room to spare.
const RQ_SPACING: u64 = 16 << 20;
/// The first receive completion ring.
const RCQ_BASE: u64 = RESERVED_BASE + (6 << 30);
/// Between two receive completion rings: the largest, 2^16 entries of 32 bytes.
const RCQ_SPACING: u64 = (1 << 16) * CQE_BYTES as u64;

// Every receive ring and receive completion ring lies in the reserved area, after the send
// side's completion ring, whatever the work queue's number and size.
const _: () = assert!(CQ_BASE + RCQ_SPACING <= RQ_BASE);
const _: () = assert!(
    RQ_BASE + (DEFAULT_WQS as u64 - 1) * RQ_SPACING + (1 << 16) * BLOCK_BYTES as u64 <= RCQ_BASE
);
const _: () = assert!(RCQ_BASE + DEFAULT_WQS as u64 * RCQ_SPACING - 1 <= RESERVED_END);

/// The receive WQE of buffer `i` of `w`, posted with work request id `wr_id`.
pub fn recv_wqe(w: &RecvQueue, i: u32, wr_id: u64) -> [u8; BLOCK_BYTES] {
    let sge = DataSegment {
        addr: w.addr + u64::from(i) * u64::from(w.size),
        length: w.size,
        lkey: w.lkey,
    };
    let mut slot = [0u8; BLOCK_BYTES];
    RecvWqe::new(wr_id, &[sge])
        .expect("one entry")
        .encode(&mut slot)
        .expect("a header and one entry fit a block");
    slot
}

/// Builds both NICs' host memory, rings and initial posts; `limit` bounds the run's turns.
pub fn lay_out(plans: [SidePlan; 2], limit: u64) -> Job {
    let sides = plans.map(|p| {
        let mut send = send_lay_out(p.send);
        let wqs: Vec<RecvQueue> = p
            .wqs
            .iter()
            .map(|w| receive_queue(w, &mut send.memory))
            .collect();
        SideJob {
            send,
            wqs,
            receivers: p.receivers,
            contexts: p.contexts,
            rules: p.rules,
        }
    });
    Job {
        sides,
        limit,
        link: None,
    }
}

fn receive_queue(w: &WqPlan, memory: &mut rocenic_model::wqe::HostMemory) -> RecvQueue {
    let log2 = log2_ceil(w.buffers as usize);
    let ring = Ring::new(log2).expect("check.rs bounds the buffers");
    let base = RQ_BASE + u64::from(w.wq) * RQ_SPACING;
    let cq_base = RCQ_BASE + u64::from(w.wq) * RCQ_SPACING;
    let rq = RecvRing::new(ring, 0, base).expect("aligned, inside the area");
    memory
        .add(base, rq.bytes() as usize, Fill::Zero)
        .expect("inside the reserved area");
    memory
        .add(cq_base, ring.entries() as usize * CQE_BYTES, Fill::Zero)
        .expect("inside the reserved area");
    let q = RecvQueue {
        wq: w.wq,
        config: WqConfig {
            qpn: w.qpn,
            pd: w.pd,
            ring: rq,
            cq: CompletionRing::new(ring, 0).expect("index 0 starts an even lap"),
            cq_base,
            raw: w.raw,
        },
        buffers: w.buffers,
        size: w.size,
        addr: w.addr,
        lkey: w.lkey,
    };
    for i in 0..w.buffers {
        memory
            .write(rq.addr(i), &recv_wqe(&q, i, u64::from(i)))
            .expect("the slot lies in the ring just added");
    }
    q
}
