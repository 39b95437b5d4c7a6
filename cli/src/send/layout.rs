//! Where a scenario lies in host memory: the user's `[[memory]]` regions as written, and the
//! send and completion rings in an area reserved for them that user memory may not overlap
//! (docs/scenario.md, "Host memory").
//!
//! - The reserved area is 8 GiB at 2^62 (`RESERVED_BASE`..=`RESERVED_END`); TOML integers reach
//!   2^63 − 1, so a scenario can name addresses on both sides of it.
//! - The send ring of the k-th `[[qp]]` starts at `RESERVED_BASE + k × 64 MiB`, room for the
//!   largest ring (2^16 slots of 1 KiB). Its slots are the next power of two holding that QP's
//!   requests, its stride the smallest power of two of 64-byte blocks holding its largest WQE,
//!   so a QP of small WQEs gets a small ring, as a driver would size it.
//! - The completion ring starts at `RESERVED_BASE + 4 GiB` (after the 64 send rings) with the
//!   next power of two of entries holding a completion for every request, so the engine never
//!   waits for software to consume one; past 2^16 requests in all it has the largest size, 2^16,
//!   and the engine's runner consumes the completions whenever it fills.

use super::check::{Plan, RegionFill};
use super::{Job, SendQueue};
use rocenic_model::qp::DEFAULT_QPS;
use rocenic_model::wqe::{Fill, HostMemory, Memory, Ring, SendRing, BLOCK_BYTES, CQE_BYTES};

/// First byte of the area reserved for the rings.
pub const RESERVED_BASE: u64 = 1 << 62;
/// Last byte of the reserved area (8 GiB).
pub const RESERVED_END: u64 = RESERVED_BASE + (1 << 33) - 1;
/// Distance between two send rings: the largest ring, 2^16 slots of 16 blocks.
const RING_SPACING: u64 = (1 << Ring::MAX_LOG2) * 16 * BLOCK_BYTES as u64;
/// Where the completion ring starts.
pub const CQ_BASE: u64 = RESERVED_BASE + DEFAULT_QPS as u64 * RING_SPACING;
/// The most requests on one QP: the largest ring.
pub const MAX_WRS: usize = 1 << Ring::MAX_LOG2;
/// The most bytes of `[[memory]]` a scenario may hold in all (it is allocated).
pub const MAX_MEMORY: u64 = 1 << 30;

/// log2 of the smallest power of two at least `n` (`n` ≥ 1).
pub fn log2_ceil(n: usize) -> u32 {
    n.max(1).next_power_of_two().trailing_zeros()
}

/// Builds host memory and the rings for `plan`, WQEs written in place.
pub fn lay_out(plan: Plan) -> Job {
    let mut memory = HostMemory::new();
    for r in &plan.memory {
        let fill = match &r.fill {
            RegionFill::Zero => Fill::Zero,
            RegionFill::Counter => Fill::Counter,
            RegionFill::Bytes(b) => Fill::Bytes(b),
        };
        memory
            .add(r.addr, r.size, fill)
            .expect("check.rs keeps regions apart and in range");
    }
    let mut queues = Vec::new();
    let mut requests = 0usize;
    for (k, q) in plan.qps.into_iter().enumerate() {
        let blocks = q
            .wqes
            .iter()
            .map(|w| w.len() / BLOCK_BYTES)
            .max()
            .unwrap_or(1);
        let ring = Ring::new(log2_ceil(q.wqes.len())).expect("check.rs bounds the requests");
        let base = RESERVED_BASE + k as u64 * RING_SPACING;
        let sq = SendRing::new(ring, log2_ceil(blocks), base).expect("aligned, inside the area");
        memory
            .add(base, sq.bytes() as usize, Fill::Zero)
            .expect("inside the reserved area");
        for (i, w) in q.wqes.iter().enumerate() {
            memory
                .write(sq.addr(i as u32), w)
                .expect("the slot lies in the ring just added");
        }
        requests += q.wqes.len();
        queues.push(SendQueue {
            qpn: q.qpn,
            config: q.config,
            transport: q.transport,
            ring: sq,
            producer: q.wqes.len() as u32,
        });
    }
    let cq = Ring::new(log2_ceil(requests).min(Ring::MAX_LOG2)).expect("at most the largest");
    memory
        .add(CQ_BASE, cq.entries() as usize * CQE_BYTES, Fill::Zero)
        .expect("inside the reserved area");
    Job {
        nic: plan.nic,
        profile: plan.profile,
        mrs: plan.mrs,
        queues,
        cq,
        cq_base: CQ_BASE,
        memory,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rings_fit_the_reserved_area() {
        assert_eq!(log2_ceil(0), 0);
        assert_eq!(log2_ceil(1), 0);
        assert_eq!(log2_ceil(3), 2);
        assert_eq!(log2_ceil(4), 2);
        assert_eq!(log2_ceil(MAX_WRS), 16);
        assert_eq!(CQ_BASE, RESERVED_BASE + (1 << 32));
        let cq_end = CQ_BASE + (MAX_WRS * CQE_BYTES) as u64 - 1;
        assert!(cq_end <= RESERVED_END);
    }
}
