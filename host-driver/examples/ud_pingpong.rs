//! A UD ping-pong between two model NICs on a wire (`model_device::Link`): each side a UD QP
//! with its own receive queue; `a` sends a ping, `b` answers with a pong of the same bytes,
//! N times. Prints what arrived and each round trip's latency in model turns (the turns both
//! NICs ran from the ping's post to the pong's completion, register accesses included: see
//! docs/host-driver.md), and writes the wire to a pcap if asked.
//!
//! `cargo run -p rocenic-host-driver --example ud_pingpong [ROUNDS] [PCAP]`

use rocenic_host_driver::model_device::{Link, ModelDevice};
use rocenic_host_driver::verbs::{
    run_together, AccessFlags, AhAttr, Completion, CompletionQueue, Context, Data, Gid, InitAttr,
    OpenAttr, PathMtu, Psn, QpInitAttr, QpType, RecvWr, RtrAttr, RtsAttr, SendOp, SendWr, UdDest,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address};
use std::error::Error;

const QKEY: u32 = 0x1234_5678;

/// NIC `i`: 02:00:00:00:00:0i, 10.0.0.i.
fn attr(i: u8) -> OpenAttr {
    let mut a = OpenAttr::default();
    a.nic.mac = EthernetAddress([2, 0, 0, 0, 0, i]);
    a.nic.ipv4 = Ipv4Address::new(10, 0, 0, i);
    a
}

/// Runs both NICs a turn at a time until `cq` has a completion; returns it and the turns.
fn next(
    cq: &CompletionQueue<'_, ModelDevice>,
    nics: &[&Context<ModelDevice>],
) -> Result<(Completion, u64), Box<dyn Error>> {
    for turns in 0..100_000 {
        if let Some(c) = cq.poll_one()? {
            return Ok((c, turns));
        }
        run_together(nics, 1)?;
    }
    Err("no completion in 100,000 turns".into())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let rounds: u64 = args.next().map_or(Ok(8), |s| s.parse())?;
    let pcap = args.next();
    let (da, db, link) = Link::pair();
    let a = Context::open(da, &attr(1))?;
    let b = Context::open(db, &attr(2))?;
    let nics = [&a, &b];
    println!("{} and {}", a.device_info().name, b.device_info().name);

    // Each side: a buffer (what it sends at 0, what it receives at 4096), a CQ, a UD QP with
    // a receive queue.
    let (pda, pdb) = (a.alloc_pd()?, b.alloc_pd()?);
    let (bufa, bufb) = (a.alloc_buffer(8192)?, b.alloc_buffer(8192)?);
    let mra = pda.reg_mr(&bufa, AccessFlags::LOCAL_WRITE)?;
    let mrb = pdb.reg_mr(&bufb, AccessFlags::LOCAL_WRITE)?;
    let (cqa, cqb) = (a.create_cq(16)?, b.create_cq(16)?);
    let attr = QpInitAttr {
        max_recv_wr: 4,
        max_recv_sge: 1,
        ..QpInitAttr::new(QpType::Ud)
    };
    let (mut qa, mut qb) = (pda.create_qp(&cqa, &attr)?, pdb.create_qp(&cqb, &attr)?);
    for qp in [&mut qa, &mut qb] {
        qp.bring_up(
            InitAttr::ud(QKEY),
            RtrAttr::ud(PathMtu::Mtu1024),
            RtsAttr::new(Psn::new(0).expect("a PSN")),
        )?;
    }
    let to_b = pda.create_ah(&AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(10, 0, 0, 2)),
        EthernetAddress([2, 0, 0, 0, 0, 2]),
    ))?;
    let to_a = pdb.create_ah(&AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(10, 0, 0, 1)),
        EthernetAddress([2, 0, 0, 0, 0, 1]),
    ))?;
    let (ina, inb) = ([mra.sge(4096, 1024)?], [mrb.sge(4096, 1024)?]);
    let mut total = 0;
    for round in 0..rounds {
        qa.post_recv(&RecvWr {
            wr_id: round,
            sgl: &ina,
        })?;
        qb.post_recv(&RecvWr {
            wr_id: round,
            sgl: &inb,
        })?;
        let start = a.cycle() + b.cycle();
        let ping = format!("ping {round}");
        bufa.write(0, ping.as_bytes())?;
        let sge = [mra.sge(0, ping.len() as u32)?];
        let dest = UdDest {
            ah: &to_b,
            remote_qpn: qb.qp_num(),
            remote_qkey: QKEY,
        };
        qa.post_send(&SendWr::new(round, SendOp::Send, Data::Sgl(&sge)).to(dest))?;
        // b: the ping arrives (the 40-byte GRH area first), b sends it back as the pong.
        let (got, t1) = next(&cqb, &nics)?;
        let mut msg = vec![0u8; got.byte_len() as usize - 40];
        bufb.read(4096 + 40, &mut msg)?;
        let pong = String::from_utf8_lossy(&msg).replace("ping", "pong");
        bufb.write(0, pong.as_bytes())?;
        let sge = [mrb.sge(0, pong.len() as u32)?];
        let dest = UdDest {
            ah: &to_a,
            remote_qpn: qa.qp_num(),
            remote_qkey: QKEY,
        };
        qb.post_send(&SendWr::new(round, SendOp::Send, Data::Sgl(&sge)).to(dest))?;
        let (back, t2) = next(&cqa, &nics)?;
        let mut echo = vec![0u8; back.byte_len() as usize - 40];
        bufa.read(4096 + 40, &mut echo)?;
        let trip = a.cycle() + b.cycle() - start;
        total += trip;
        println!(
            "round {round}: b got {:?} ({} bytes with the GRH area, from QP {:#x}), a got {:?}: \
             {trip} turns of the two NICs ({} waiting, the rest register accesses)",
            String::from_utf8_lossy(&msg),
            got.byte_len(),
            got.src_qp(),
            String::from_utf8_lossy(&echo),
            2 * (t1 + t2),
        );
    }
    println!(
        "{rounds} round trips, {:.1} turns each on average; {} frames on the wire",
        total as f64 / rounds.max(1) as f64,
        link.frames().len()
    );
    if let Some(path) = pcap {
        link.write_pcap(std::fs::File::create(&path)?)?;
        println!("wrote {path}");
    }
    Ok(())
}
