//! RSS: an RSS QP on b over four work queues; a's UD sends to it over many flows (IPv6, a
//! flow label each, so a UDP source port each). Every queue gets some, and each queue's
//! completions are, in order, the frames the model's `rss::distribute` sends there (the
//! Toeplitz hash of the frame under the QP's key over its addresses and ports, through the
//! table), each with that hash. Then a flow steers one of them to a chosen queue, unhashed,
//! until it is dropped.

use rand::Rng;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    AccessFlags, AddressHandle, Completion, CompletionQueue, Context, Data, FlowAction, FlowAttr,
    HashFields, HashFunction, MemoryRegion, QueuePair, RecvWr, RxHashConf, SendOp, SendWr,
    SteeringKey, UdDest, WorkQueue, WqInitAttr, WqState,
};
use rocenic_model::rss::{classify, distribute, Context as RssContext, ContextView};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_model::wire::LinkType;
use rocenic_tests::{ah_to, on_every_backend, open, seeded, ud_qp, wait, Backend};
use std::collections::BTreeMap;

on_every_backend!(rss_spread_and_flow);

const QKEY: u32 = 0x0BAD_CAFE;
/// Bytes of a receive buffer: the GRH area and a message.
const SLOT: u64 = 128;
const PER_WQ: u32 = 512;

fn fields() -> HashFields {
    HashFields::SRC_IPV6
        .union(HashFields::DST_IPV6)
        .union(HashFields::SRC_PORT_UDP)
        .union(HashFields::DST_PORT_UDP)
}

/// Sends message `n` (its number as the payload) over each flow of `flows`, each to `dqpn`,
/// and waits for the send completions.
fn send<D: Device>(
    nics: [&Context<D>; 2],
    qa: &mut QueuePair<'_, D>,
    cqa: &CompletionQueue<'_, D>,
    ahs: &[AddressHandle<'_>],
    flows: &[usize],
    dqpn: u32,
    first: u32,
) {
    for (c, chunk) in flows.chunks(32).enumerate() {
        for (k, &f) in chunk.iter().enumerate() {
            let n = first + (32 * c + k) as u32;
            let payload = n.to_le_bytes();
            let wr = SendWr::new(n.into(), SendOp::Send, Data::Inline(&payload))
                .signaled()
                .to(UdDest {
                    ah: &ahs[f],
                    remote_qpn: dqpn,
                    remote_qkey: QKEY,
                });
            qa.post_send(&wr).unwrap();
        }
        let c = wait(cqa, chunk.len(), &nics);
        assert!(c.iter().all(Completion::is_success));
    }
}

fn rss_spread_and_flow<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("rss_spread_and_flow");
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let cqa = a.create_cq(64).unwrap();
    let cqb = b.create_cq(4096).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let buf = b.alloc_buffer(4 * u64::from(PER_WQ) * SLOT).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let attr = WqInitAttr {
        max_wr: PER_WQ,
        max_sge: 1,
    };
    let mut wqs: Vec<WorkQueue<'_, _>> = (0..4)
        .map(|_| b.create_wq(&pdb, &cqb, &attr).unwrap())
        .collect();
    for (k, w) in wqs.iter_mut().enumerate() {
        w.modify(WqState::Ready).unwrap();
        post_all(w, &mr, k as u64);
    }
    let refs: Vec<&WorkQueue<'_, _>> = wqs.iter().collect();
    let table = b.create_rwq_ind_table(&refs).unwrap();
    let hash = RxHashConf {
        function: HashFunction::Toeplitz,
        key: MICROSOFT_KEY.to_vec(),
        fields: fields(),
    };
    let rss = pdb.create_rss_qp(&table, &hash, QKEY).unwrap();
    // 300 flows: IPv6 to b, each its own flow label.
    let ahs: Vec<AddressHandle<'_>> = (1..=300u32)
        .map(|fl| {
            let ah = rocenic_host_driver::verbs::AhAttr {
                flow_label: fl * 3001 % (1 << 20),
                ..ah_to(2, true)
            };
            pda.create_ah(&ah).unwrap()
        })
        .collect();
    let flows: Vec<usize> = (0..300).collect();
    send([&a, &b], &mut qa, &cqa, &ahs, &flows, rss.qp_num(), 0);

    let wq_nums: Vec<u16> = table.wqs().iter().map(|&w| w as u16).collect();
    let ctx = RssContext::new(HashFunction::Toeplitz, fields(), &MICROSOFT_KEY).unwrap();
    let predict = |frame: &[u8]| {
        let view = ContextView {
            context: &ctx,
            table: &wq_nums,
        };
        distribute(&classify(LinkType::Ethernet, frame), &[], &[view])
    };
    // b's receives first: a's send completion can come before its frame has left the MAC
    // (the core's transmit side under back-pressure), so the wire is read once b has them all.
    let got = wait(&cqb, 300, &[&a, &b]);
    let frames = backend.sent_by_a();
    assert_eq!(frames.len(), 300);
    let mut want: BTreeMap<u32, Vec<(u32, Option<u32>)>> = BTreeMap::new();
    for (n, f) in frames.iter().enumerate() {
        let m = predict(f);
        want.entry(m.queue.into())
            .or_default()
            .push((n as u32, Some(m.hash)));
    }
    check(&got, &want, &buf, rss.qp_num());
    let hist: Vec<usize> = wq_nums
        .iter()
        .map(|w| want.get(&u32::from(*w)).map_or(0, Vec::len))
        .collect();
    eprintln!("per-WQ receives: {hist:?}");
    assert!(hist.iter().all(|&n| n > 0), "every WQ gets some: {hist:?}");

    // A flow: flow 7's UDP source port to a queue it does not hash to, unhashed.
    let port = classify(LinkType::Ethernet, &frames[7]).tuple.src_port;
    let home = predict(&frames[7]).queue;
    let to = *wq_nums.iter().find(|&&w| w != home).unwrap();
    let flow = rss
        .create_flow(&FlowAttr {
            value: SteeringKey {
                src_port: port,
                ..SteeringKey::default()
            },
            mask: SteeringKey {
                src_port: 0xFFFF,
                ..SteeringKey::default()
            },
            action: FlowAction::Wq(to.into()),
        })
        .unwrap();
    let mix: Vec<usize> = (0..40)
        .map(|i| if i % 2 == 0 { 7 } else { r.gen_range(0..300) })
        .collect();
    send([&a, &b], &mut qa, &cqa, &ahs, &mix, rss.qp_num(), 300);
    let got = wait(&cqb, 40, &[&a, &b]);
    let frames = backend.sent_by_a();
    let mut want: BTreeMap<u32, Vec<(u32, Option<u32>)>> = BTreeMap::new();
    for (k, f) in frames[300..].iter().enumerate() {
        let n = 300 + k as u32;
        let e = if mix[k] == 7 {
            (u32::from(to), (n, None))
        } else {
            let m = predict(f);
            (m.queue.into(), (n, Some(m.hash)))
        };
        want.entry(e.0).or_default().push(e.1);
    }
    check(&got, &want, &buf, rss.qp_num());
    // Dropped, the flow hashes home again.
    drop(flow);
    send([&a, &b], &mut qa, &cqa, &ahs, &[7], rss.qp_num(), 340);
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(c[0].wq_num(), Some(home.into()));
    assert!(c[0].rss_hash().is_some());
}

/// Posts every slot of queue `k`'s ring: wr_id = k × PER_WQ + slot, each a slot of `mr`.
fn post_all<D: Device>(w: &mut WorkQueue<'_, D>, mr: &MemoryRegion<'_, D>, k: u64) {
    let wrs: Vec<[rocenic_host_driver::verbs::Sge; 1]> = (0..u64::from(PER_WQ))
        .map(|i| {
            [mr.sge((k * u64::from(PER_WQ) + i) * SLOT, SLOT as u32)
                .unwrap()]
        })
        .collect();
    let list: Vec<RecvWr<'_>> = wrs
        .iter()
        .enumerate()
        .map(|(i, sgl)| RecvWr {
            wr_id: k * u64::from(PER_WQ) + i as u64,
            sgl,
        })
        .collect();
    w.post_recv_list(&list).unwrap();
}

/// Each queue's completions, in order, are the messages `want` says, with their hashes, and
/// each message's number landed after the GRH area of its buffer.
fn check<D: Device>(
    got: &[Completion],
    want: &BTreeMap<u32, Vec<(u32, Option<u32>)>>,
    buf: &rocenic_host_driver::verbs::DmaBuffer<'_, D>,
    rss_qpn: u32,
) {
    let mut by_wq: BTreeMap<u32, Vec<&Completion>> = BTreeMap::new();
    for c in got {
        assert!(c.is_success(), "{c:?}");
        assert_eq!(c.qp_num(), rss_qpn, "completions name the RSS QP");
        assert_eq!(c.byte_len(), 44);
        by_wq.entry(c.wq_num().unwrap()).or_default().push(c);
    }
    assert_eq!(
        by_wq.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "the queues that got frames"
    );
    for (w, cs) in &by_wq {
        let exp = &want[w];
        assert_eq!(cs.len(), exp.len(), "WQ {w}: receives");
        for (c, &(n, hash)) in cs.iter().zip(exp) {
            assert_eq!(c.rss_hash(), hash, "WQ {w}, message {n}: hash");
            let mut m = [0u8; 4];
            buf.read(c.wr_id() * SLOT + 40, &mut m).unwrap();
            assert_eq!(
                u32::from_le_bytes(m),
                n,
                "WQ {w}: message {n} in its buffer"
            );
        }
    }
}
