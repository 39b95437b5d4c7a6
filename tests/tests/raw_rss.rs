//! RSS over raw work queues: b's raw packet RSS QP (`IBV_QPT_RAW_PACKET` with `rx_hash_conf`)
//! spreads the TCP frames a flow of it matches over a table of four raw work queues. Every
//! frame lands whole, once, in the queue the model's `rss::distribute` picks for it (the
//! Toeplitz hash over its IPv4 addresses and TCP ports, through the table), with that hash
//! and the RSS QP's number; every queue gets some. A UD RSS QP refuses a raw table and a raw
//! RSS QP a plain one, and a table does not mix them. On a device without raw packet QPs a raw
//! work queue is refused.

use rocenic_host_driver::verbs::{
    errno, AccessFlags, Data, Error, Feature, FlowAction, FlowAttr, HashFields, HashFunction,
    RecvWr, RxHashConf, SendOp, SendWr, SteeringKey, WcStatus, WorkQueue, WqInitAttr, WqState,
};
use rocenic_model::rss::{classify, distribute, Context as RssContext, ContextView};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_model::wire::{LinkType, TcpFlags};
use rocenic_tests::{on_every_backend, open, padded, raw_qp, ud_qp, wait, Backend, TcpFlow};
use std::collections::BTreeMap;

on_every_backend!(raw_rss_spreads);

/// TCP flows a sends (destination ports 6000 on).
const FLOWS: u16 = 32;
/// Receives per queue, and their buffers' size.
const PER_WQ: u32 = 16;
const SLOT: u64 = 256;

fn fields() -> HashFields {
    HashFields::SRC_IPV4
        .union(HashFields::DST_IPV4)
        .union(HashFields::SRC_PORT_TCP)
        .union(HashFields::DST_PORT_TCP)
}

fn raw_rss_spreads<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(256).unwrap());
    let attr = WqInitAttr {
        max_wr: PER_WQ,
        max_sge: 1,
    };
    if !b.query_device().raw_packet {
        let e = b.create_raw_wq(&pdb, &cqb, &attr).err().expect("refused");
        assert_eq!(e, Error::Unsupported(Feature::RawPacket));
        return;
    }
    // b's work queue 0 is not raw: frames no rule steers (the pipeline's default) are dropped.
    let _ud = ud_qp(&pdb, &cqb, 4, 1, 0x1111);
    let buf = b.alloc_buffer(4 * u64::from(PER_WQ) * SLOT).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let mut wqs: Vec<WorkQueue<'_, _>> = (0..4)
        .map(|_| b.create_raw_wq(&pdb, &cqb, &attr).unwrap())
        .collect();
    for (k, w) in wqs.iter_mut().enumerate() {
        w.modify(WqState::Ready).unwrap();
        for i in 0..u64::from(PER_WQ) {
            let n = k as u64 * u64::from(PER_WQ) + i;
            let sgl = [mr.sge(n * SLOT, SLOT as u32).unwrap()];
            w.post_recv(&RecvWr {
                wr_id: n,
                sgl: &sgl,
            })
            .unwrap();
        }
    }
    let plain = b.create_wq(&pdb, &cqb, &attr).unwrap();
    let hash = RxHashConf {
        function: HashFunction::Toeplitz,
        key: MICROSOFT_KEY.to_vec(),
        fields: fields(),
    };
    {
        let mixed = b
            .create_rwq_ind_table(&[&wqs[0], &plain])
            .err()
            .expect("mixed");
        assert_eq!(mixed.errno(), errno::EINVAL);
        let plain_table = b.create_rwq_ind_table(&[&plain]).unwrap();
        let e = pdb
            .create_raw_rss_qp(&plain_table, &hash)
            .err()
            .expect("plain");
        assert_eq!(e.errno(), errno::EINVAL);
    }
    let refs: Vec<&WorkQueue<'_, _>> = wqs.iter().collect();
    let table = b.create_rwq_ind_table(&refs).unwrap();
    assert!(table.is_raw());
    let e = pdb
        .create_rss_qp(&table, &hash, 7)
        .err()
        .expect("raw table");
    assert_eq!(e.errno(), errno::EINVAL);
    let rss = pdb.create_raw_rss_qp(&table, &hash).unwrap();
    assert!(rss.is_raw());
    let _tcp = rss
        .create_flow(&FlowAttr {
            value: SteeringKey {
                l4_protocol: 6,
                ..SteeringKey::default()
            },
            mask: SteeringKey {
                l4_protocol: 0xFF,
                ..SteeringKey::default()
            },
            action: FlowAction::Rss,
        })
        .unwrap();

    // a's raw QP sends one short TCP frame per flow (IPv4, inline).
    let mut qa = raw_qp(&pda, &cqa, 0);
    let frames: Vec<Vec<u8>> = (0..FLOWS)
        .map(|i| {
            let flow = TcpFlow {
                vlan: None,
                v6: false,
                dst_port: 6000 + i,
                seq: u32::from(i) * 1000,
                ident: i,
            };
            flow.frame(flow.seq, i, TcpFlags::ACK, &[i as u8; 8])
        })
        .collect();
    for (i, f) in frames.iter().enumerate() {
        qa.post_send(&SendWr::new(i as u64, SendOp::Send, Data::Inline(f)).signaled())
            .unwrap();
        let c = wait(&cqa, 1, &[&a, &b]);
        assert_eq!(c[0].status(), WcStatus::Success);
    }
    let got = wait(&cqb, usize::from(FLOWS), &[&a, &b]);

    let wq_nums: Vec<u16> = table.wqs().iter().map(|&w| w as u16).collect();
    let ctx = RssContext::new(HashFunction::Toeplitz, fields(), &MICROSOFT_KEY).unwrap();
    let view = ContextView {
        context: &ctx,
        table: &wq_nums,
    };
    let mut seen = vec![false; frames.len()];
    let mut per_wq: BTreeMap<u32, usize> = BTreeMap::new();
    for c in &got {
        assert_eq!(c.status(), WcStatus::Success, "{c:?}");
        assert_eq!(c.qp_num(), rss.qp_num(), "{c:?}");
        let mut v = vec![0u8; c.byte_len() as usize];
        buf.read(c.wr_id() * SLOT, &mut v).unwrap();
        let i = frames
            .iter()
            .position(|f| padded(f) == v)
            .unwrap_or_else(|| panic!("a frame a did not send: {c:?}"));
        assert!(!seen[i], "frame {i} twice");
        seen[i] = true;
        let m = distribute(&classify(LinkType::Ethernet, &frames[i]), &[], &[view]);
        let w = c.wq_num().expect("a receive");
        assert_eq!(
            (w, c.rss_hash()),
            (u32::from(m.queue), Some(m.hash)),
            "frame {i}"
        );
        // Each queue's receives in posting order: wr_id k·PER_WQ + its count so far.
        let k = wq_nums.iter().position(|&x| u32::from(x) == w).unwrap() as u64;
        let n = per_wq.entry(w).or_default();
        assert_eq!(c.wr_id(), k * u64::from(PER_WQ) + *n as u64, "frame {i}");
        *n += 1;
    }
    let hist: Vec<usize> = wq_nums
        .iter()
        .map(|w| per_wq.get(&u32::from(*w)).copied().unwrap_or(0))
        .collect();
    eprintln!("raw RSS: per-WQ receives {hist:?}");
    assert!(hist.iter().all(|&n| n > 0), "every WQ gets some: {hist:?}");
    assert!(cqb.poll(4).unwrap().is_empty());
}
