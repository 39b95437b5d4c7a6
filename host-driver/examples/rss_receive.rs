//! RSS receive on two model NICs: `b` has an RSS QP over four receive work queues (Toeplitz
//! over the IPv6 addresses and UDP ports); `a` sends one UD message on each of a few hundred
//! flows (IPv6, a flow label each, so a UDP source port each). Prints how many each work queue
//! received next to what the model's `rss::distribute` predicts from the frames on the wire.
//!
//! `cargo run -p rocenic-host-driver --example rss_receive [FLOWS]`

use rocenic_host_driver::model_device::{Link, Side};
use rocenic_host_driver::verbs::{
    run_together, AccessFlags, AhAttr, Context, Data, Gid, HashFields, HashFunction, InitAttr,
    OpenAttr, PathMtu, Psn, QpInitAttr, QpType, RecvWr, RtrAttr, RtsAttr, RxHashConf, SendOp,
    SendWr, UdDest, WqInitAttr, WqState,
};
use rocenic_model::rss::{classify, distribute, Context as RssContext, ContextView};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_model::wire::{EthernetAddress, LinkType};
use std::error::Error;

const QKEY: u32 = 0x0BAD_CAFE;

fn main() -> Result<(), Box<dyn Error>> {
    let flows: u32 = std::env::args().nth(1).map_or(Ok(300), |s| s.parse())?;
    let (da, db, link) = Link::pair();
    let attr = |i: u8| {
        let mut a = OpenAttr::default();
        a.nic.mac = EthernetAddress([2, 0, 0, 0, 0, i]);
        a.nic.ipv6.0[15] = i;
        a
    };
    let (a, b) = (Context::open(da, &attr(1))?, Context::open(db, &attr(2))?);
    let (pda, pdb) = (a.alloc_pd()?, b.alloc_pd()?);
    let (cqa, cqb) = (a.create_cq(64)?, b.create_cq(1024)?);

    // b: four work queues, each with a receive posted per flow, spread by an RSS QP.
    let buf = b.alloc_buffer(4 * u64::from(flows) * 128)?;
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE)?;
    let wq_attr = WqInitAttr {
        max_wr: flows,
        max_sge: 1,
    };
    let mut wqs = Vec::new();
    for k in 0..4u64 {
        let mut wq = b.create_wq(&pdb, &cqb, &wq_attr)?;
        wq.modify(WqState::Ready)?;
        for i in 0..u64::from(flows) {
            let sgl = [mr.sge((k * u64::from(flows) + i) * 128, 128)?];
            wq.post_recv(&RecvWr {
                wr_id: i,
                sgl: &sgl,
            })?;
        }
        wqs.push(wq);
    }
    let refs: Vec<_> = wqs.iter().collect();
    let table = b.create_rwq_ind_table(&refs)?;
    let fields = HashFields::SRC_IPV6
        .union(HashFields::DST_IPV6)
        .union(HashFields::SRC_PORT_UDP)
        .union(HashFields::DST_PORT_UDP);
    let hash = RxHashConf {
        function: HashFunction::Toeplitz,
        key: MICROSOFT_KEY.to_vec(),
        fields,
    };
    let rss = pdb.create_rss_qp(&table, &hash, QKEY)?;
    println!(
        "b: RSS QP {:#x} (context {}) over work queues {:?}",
        rss.qp_num(),
        rss.rss_context(),
        table.wqs()
    );

    // a: a UD QP sending once per flow.
    let mut qa = pda.create_qp(
        &cqa,
        &QpInitAttr {
            max_inline_data: 64,
            ..QpInitAttr::new(QpType::Ud)
        },
    )?;
    qa.bring_up(
        InitAttr::ud(QKEY),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0).expect("a PSN")),
    )?;
    let mut to_b = AhAttr::new(Gid::from_ipv6(attr(2).nic.ipv6), attr(2).nic.mac);
    for f in 0..flows {
        to_b.flow_label = (f * 7919 + 1) % (1 << 20);
        let ah = pda.create_ah(&to_b)?;
        let dest = UdDest {
            ah: &ah,
            remote_qpn: rss.qp_num(),
            remote_qkey: QKEY,
        };
        qa.post_send(
            &SendWr::new(f.into(), SendOp::Send, Data::Inline(b"hello"))
                .signaled()
                .to(dest),
        )?;
        while cqa.poll_one()?.is_none() {
            run_together(&[&a, &b], 1)?;
        }
    }
    let mut got = [0u32; 4];
    let mut n = 0;
    while n < flows {
        run_together(&[&a, &b], 4)?;
        for c in cqb.poll(64)? {
            let k = table
                .wqs()
                .iter()
                .position(|&w| Some(w) == c.wq_num())
                .expect("one of its WQs");
            got[k] += 1;
            n += 1;
        }
    }

    // The model's prediction from the frames on the wire.
    let ctx = RssContext::new(HashFunction::Toeplitz, fields, &MICROSOFT_KEY)?;
    let wq_nums: Vec<u16> = table.wqs().iter().map(|&w| w as u16).collect();
    let mut want = [0u32; 4];
    for f in link.frames().iter().filter(|f| f.from == Side::A) {
        let view = ContextView {
            context: &ctx,
            table: &wq_nums,
        };
        let q = distribute(&classify(LinkType::Ethernet, &f.data), &[], &[view]).queue;
        want[wq_nums.iter().position(|&w| w == q).expect("a table entry")] += 1;
    }
    println!("work queue   received   model predicts");
    for k in 0..4 {
        let bar = "#".repeat((got[k] * 40 / flows.max(1)) as usize);
        println!(
            "  wq {:<6} {:>8}   {:>14}  {bar}",
            wq_nums[k], got[k], want[k]
        );
    }
    println!("{flows} flows, {} frames on the wire", link.frames().len());
    if got != want {
        return Err("the spread differs from the model's".into());
    }
    Ok(())
}
