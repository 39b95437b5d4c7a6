//! Goodput of the reliable transport in co-simulation (`make bench`): 64 KiB RDMA WRITEs on one
//! RC QP from core a to core b (`nic_core_rel`, through the driver, MTU 1024, a window of 16
//! packets, an ACK every 8), on a wire of 20 cycles that loses 0, 0.1 % and 1 % of the frames
//! each way, with an ideal host and MAC. Goodput is the payload bytes over the cycles from the
//! first doorbell to the last completion, as a fraction of the data path's 8 bytes a cycle;
//! beside it, go-back-N's bound for the window, (1 − p) / (1 + (W − 1) p), as a fraction of
//! the clean run.

use rocenic_host_driver::model_device::Side;
use rocenic_host_driver::verbs::{
    run_together, AccessFlags, AhAttr, Context, Data, Gid, InitAttr, Nic, OpenAttr, PathMtu, Psn,
    QpInitAttr, QpType, RemoteAddr, RtrAttr, RtsAttr, SendOp, SendWr, WcStatus,
};
use rocenic_sim::link::Config as LinkConfig;
use rocenic_sim::top::core::Load;
use rocenic_sim::top::device::{CoreDevice, TRANSPORT};

/// WRITEs per run, and their size.
const WRITES: u64 = 16;
const LEN: u32 = 64 * 1024;

fn nic(i: u8) -> Nic {
    Nic::numbered(i)
}

/// One run at `loss`: cycles, frames a sent, frames lost both ways.
fn run(loss: f64, seed: u64) -> (u64, usize, usize) {
    let cfg = LinkConfig {
        delay: 20,
        loss,
        ..LinkConfig::default()
    };
    let (a, b, link) = CoreDevice::pair_reliable(&Load::ideal(), cfg, seed, TRANSPORT);
    let open = |d, i| {
        let attr = OpenAttr {
            nic: nic(i),
            ..OpenAttr::default()
        };
        Context::open(d, &attr).expect("opens")
    };
    let (a, b) = (open(a, 1), open(b, 2));
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let src = a.alloc_buffer(u64::from(LEN)).unwrap();
    let dst = b.alloc_buffer(u64::from(LEN)).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let remote = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let mrb = pdb.reg_mr(&dst, remote).unwrap();
    // b's QP needs a receive side for its receive context, which holds the responder (a QP
    // created without one takes no requests: docs/host-driver.md).
    let attr = QpInitAttr {
        max_send_wr: 64,
        max_recv_wr: 1,
        max_recv_sge: 1,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qa = pda.create_qp(&cqa, &attr).unwrap();
    let mut qb = pdb.create_qp(&cqb, &attr).unwrap();
    let psn = Psn::new(0x100).unwrap();
    let ah = |i: u8| AhAttr::new(Gid::from_ipv4(nic(i).ipv4), nic(i).mac);
    let init = InitAttr {
        access: remote,
        ..InitAttr::default()
    };
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    qa.bring_up(
        init,
        RtrAttr::rc(PathMtu::Mtu1024, nb, psn, ah(2)),
        RtsAttr::new(psn),
    )
    .unwrap();
    qb.bring_up(
        init,
        RtrAttr::rc(PathMtu::Mtu1024, na, psn, ah(1)),
        RtsAttr::new(psn),
    )
    .unwrap();
    let sgl = [mra.sge(0, LEN).unwrap()];
    let to = RemoteAddr {
        addr: mrb.addr(),
        rkey: mrb.rkey(),
    };
    let wrs: Vec<SendWr<'_>> = (0..WRITES)
        .map(|i| SendWr::new(i, SendOp::RdmaWrite(to), Data::Sgl(&sgl)).signaled())
        .collect();
    let start = a.with_device(|d| rocenic_host_driver::device::Device::cycle(d));
    qa.post_send_list(&wrs).unwrap();
    let mut done = 0;
    while done < WRITES as usize {
        for c in cqa.poll(64).unwrap() {
            assert_eq!(c.status(), WcStatus::Success, "{c:?}");
            done += 1;
        }
        run_together(&[&a, &b], 16).expect("the cores run");
    }
    let end = a.with_device(|d| rocenic_host_driver::device::Device::cycle(d));
    let lost = link.frames().iter().filter(|f| f.lost()).count();
    (end - start, link.sent(Side::A).len(), lost)
}

fn main() {
    const W: f64 = 16.0;
    let payload = (WRITES * u64::from(LEN)) as f64;
    let mut clean = 0.0;
    for loss in [0.0, 0.001, 0.01] {
        let (cycles, frames, lost) = run(loss, 1);
        let goodput = payload / cycles as f64 / 8.0;
        if loss == 0.0 {
            clean = goodput;
        }
        let bound = (1.0 - loss) / (1.0 + (W - 1.0) * loss);
        println!(
            "rc_goodput/write_64k (loss {:.1}%): {WRITES} WRITEs in {cycles} cycles, {frames} frames from a, {lost} lost: goodput {:.1}% of the 64-bit path, {:.3} of the clean run (go-back-N bound for W = 16: {bound:.3})",
            loss * 100.0,
            goodput * 100.0,
            goodput / clean
        );
    }
}
