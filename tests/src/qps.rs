//! QP set-ups the tests share: UD and raw packet QPs in RTS, RC QPs connected across the pair.

use crate::ah_to;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    AccessFlags, CompletionQueue, InitAttr, MemoryRegion, PathMtu, ProtectionDomain, Psn,
    QpInitAttr, QpType, QueuePair, RecvWr, RtrAttr, RtsAttr,
};

/// The first PSN each RC side sends (and the other expects): 16 before the 2^24 wrap.
pub const PSN: u32 = 0xFF_FFF0;

/// A UD QP with `recv` receives of `sge` entries, in RTS with Q_Key `qkey`.
pub fn ud_qp<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    recv: u32,
    sge: u32,
    qkey: u32,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: recv,
        max_recv_sge: sge,
        max_inline_data: 256,
        ..QpInitAttr::new(QpType::Ud)
    };
    ud_qp_with(pd, cq, &attr, qkey)
}

/// A UD QP of `attr`, in RTS with Q_Key `qkey` and a path MTU of 1024.
pub fn ud_qp_with<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    attr: &QpInitAttr,
    qkey: u32,
) -> QueuePair<'a, D> {
    let mut qp = pd.create_qp(cq, attr).expect("a UD QP");
    qp.bring_up(
        InitAttr::ud(qkey),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .expect("UD to RTS");
    qp
}

/// A raw packet QP with `recv` receives of one entry (its own raw work queue; none for 0) and
/// 128 inline bytes, in RTS.
pub fn raw_qp<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    recv: u32,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: recv,
        max_recv_sge: u32::from(recv > 0),
        max_inline_data: 128,
        ..QpInitAttr::new(QpType::RawPacket)
    };
    let mut qp = pd.create_qp(cq, &attr).expect("a raw packet QP");
    qp.bring_up(
        InitAttr::default(),
        RtrAttr::raw(),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .expect("raw to RTS");
    qp
}

/// An RC QP of `recv` receives, in RESET.
pub fn rc_qp<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    recv: u32,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: recv,
        max_recv_sge: 2,
        ..QpInitAttr::new(QpType::Rc)
    };
    rc_qp_with(pd, cq, &attr)
}

/// An RC QP of `attr`, in RESET.
pub fn rc_qp_with<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    attr: &QpInitAttr,
) -> QueuePair<'a, D> {
    pd.create_qp(cq, attr).expect("an RC QP")
}

/// Connects `q` to QP `peer` on NIC `other` over IPv4 (path MTU 1024, [`PSN`] both ways,
/// remote writes allowed) and brings it to RTS.
pub fn connect<D: Device>(q: &mut QueuePair<'_, D>, peer: u32, other: u8) {
    let psn = Psn::new(PSN).unwrap();
    q.bring_up(
        InitAttr {
            access: AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE),
            ..InitAttr::default()
        },
        RtrAttr::rc(PathMtu::Mtu1024, peer, psn, ah_to(other, false)),
        RtsAttr::new(psn),
    )
    .expect("RC to RTS");
}

/// Posts `n` receives to `qp`, receive i one entry of `size` bytes at `i × size` in `mr`, with
/// work request id `first + i`.
pub fn post_slots<D: Device>(
    qp: &mut QueuePair<'_, D>,
    mr: &MemoryRegion<'_, D>,
    n: u64,
    size: u32,
    first: u64,
) {
    for i in 0..n {
        let sgl = [mr
            .sge(i * u64::from(size), size)
            .expect("the slot is in the region")];
        qp.post_recv(&RecvWr {
            wr_id: first + i,
            sgl: &sgl,
        })
        .expect("a receive posted");
    }
}
