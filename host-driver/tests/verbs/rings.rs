//! Rings at their limits: a full completion ring holds the engine back and a full completion
//! queue holds the ring back, and nothing is lost or reordered; send queues, the completion
//! ring and the PSN wrap around.

use crate::common::{frames, open, wait_frames, Dev, LIMIT};
use rocenic_host_driver::verbs::{
    AccessFlags, AhAttr, Context, Data, Gid, InitAttr, OpenAttr, PathMtu, Psn, QpInitAttr, QpType,
    QueuePair, RtrAttr, RtsAttr, SendOp, SendWr, WcStatus,
};
use rocenic_model::rx::{classify, Incoming};
use rocenic_model::wire::{EthernetAddress, Ipv4Address};
use rocenic_sim::wqe::engine::Load;

fn rc_up(qp: &mut QueuePair<'_, Dev>, psn: u32) {
    let ah = AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(192, 168, 1, 2)),
        EthernetAddress([2, 0, 0, 0, 0, 2]),
    );
    qp.bring_up(
        InitAttr::default(),
        RtrAttr::rc(PathMtu::Mtu256, 0x800, Psn::new(0).unwrap(), ah),
        RtsAttr::new(Psn::new(psn).unwrap()),
    )
    .unwrap();
}

#[test]
fn full_rings_hold_back_and_lose_nothing() {
    // A completion ring of 4 entries and a completion queue of 3.
    let attr = OpenAttr {
        cq_log2: 2,
        ..OpenAttr::default()
    };
    let ctx: Context<Dev> = open(&Load::ideal(), 21, &attr);
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    let cq = ctx.create_cq(3).unwrap();
    let qp_attr = QpInitAttr {
        max_send_wr: 16,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qp = pd.create_qp(&cq, &qp_attr).unwrap();
    rc_up(&mut qp, 0);
    let sge = [mr.sge(0, 64).unwrap()];
    let wrs: Vec<SendWr<'_>> = (0..10)
        .map(|i| SendWr::new(i, SendOp::Send, Data::Sgl(&sge)).signaled())
        .collect();
    qp.post_send_list(&wrs).unwrap();

    // Nobody polls: the engine sends four and stops, the ring full of their completions.
    ctx.run(20_000).unwrap();
    let f = ctx.with_device(|d| d.take_frames());
    assert_eq!(
        f.len(),
        4,
        "the engine waits for room in its completion ring"
    );
    assert_eq!(
        cq.wait(4, 10).map_err(|e| e.errno()),
        Err(rocenic_host_driver::verbs::errno::EINVAL),
        "more than the queue holds"
    );
    cq.wait(3, 10).unwrap();
    let mut got = cq.poll(10).unwrap();
    assert_eq!(
        got.len(),
        3,
        "the queue holds three; the fourth waited in the ring"
    );

    // Polling frees the queue, which frees the ring, which lets the engine go on.
    let mut sent = f.len();
    while got.len() < 10 {
        let c = cq.poll(2).unwrap();
        assert!(c.len() <= 2);
        got.extend(c);
        ctx.run(500).unwrap();
        sent += frames(&ctx).len();
    }
    let ids: Vec<u64> = got.iter().map(|c| c.wr_id()).collect();
    assert_eq!(
        ids,
        (0..10).collect::<Vec<_>>(),
        "in order, none lost, none twice"
    );
    let idx: Vec<u32> = got.iter().map(|c| c.wqe_index()).collect();
    assert_eq!(idx, (0..10).collect::<Vec<_>>());
    assert!(got.iter().all(|c| c.is_success() && c.byte_len() == 64));
    assert_eq!(sent, 10);
    ctx.run(2000).unwrap();
    assert!(cq.poll(8).unwrap().is_empty());
}

#[test]
fn send_queues_completion_ring_and_psns_wrap() {
    // Two-entry send queue and completion ring: 40 requests go round both 20 times, the
    // PSN across 2^24.
    let attr = OpenAttr {
        cq_log2: 1,
        ..OpenAttr::default()
    };
    let ctx: Context<Dev> = open(&Load::ideal(), 22, &attr);
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x1000).unwrap();
    let data: Vec<u8> = (0..=255).collect();
    buf.write(0, &data).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::NONE).unwrap();
    let cq = ctx.create_cq(2).unwrap();
    let qp_attr = QpInitAttr {
        max_send_wr: 2,
        max_inline_data: 16,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qp = pd.create_qp(&cq, &qp_attr).unwrap();
    let first_psn = 0xFF_FFF0;
    rc_up(&mut qp, first_psn);
    let mut psns = Vec::new();
    let mut ids = Vec::new();
    for round in 0..20u64 {
        let len = 100 + round as u32;
        let sge = [mr.sge(round, len).unwrap()];
        let a = SendWr::new(2 * round, SendOp::Send, Data::Sgl(&sge)).signaled();
        let tail = [round as u8; 16];
        let b = SendWr::new(2 * round + 1, SendOp::SendWithImm(7), Data::Inline(&tail)).signaled();
        qp.post_send(&a).unwrap();
        qp.post_send(&b).unwrap();
        let (c, done) = cq.poll_until(2, LIMIT);
        done.unwrap();
        assert!(c.iter().all(|c| c.status() == WcStatus::Success));
        ids.extend(c.iter().map(|c| (c.wr_id(), c.wqe_index())));
        // Each message fits one 256-byte packet.
        for f in wait_frames(&ctx, 2) {
            match classify(&f) {
                Ok(Incoming::Roce(p)) => psns.push(p.psn),
                other => panic!("{other:?}"),
            }
        }
    }
    let want: Vec<(u64, u32)> = (0..40).map(|i| (i, i as u32)).collect();
    assert_eq!(ids, want);
    let want_psns: Vec<u32> = (0..40).map(|i| (first_psn + i) & 0xFF_FFFF).collect();
    assert_eq!(psns, want_psns, "one PSN per packet, across 2^24");
}
