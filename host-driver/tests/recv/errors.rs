//! Every receive error path: a buffer too short (`LOC_LEN_ERR`) and an lkey no region has
//! (`LOC_PROT_ERR`) move the QP and its own queue to ERR (docs/rx.md, the target table), the
//! receives posted behind them complete `WR_FLUSH_ERR` exactly once each and later frames are
//! dropped; a QP moved to ERR by software flushes likewise and comes back through RESET; on an
//! RSS QP a failure takes only its queue to ERR. Then work-queue state changes verbs refuses,
//! and the refusals before the device, each with its errno.

use super::common::{ah_to, open, quiet, ud_qp, wait, Backend};
use super::rc::{connect, rc_qp};
use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    errno, AccessFlags, AddressHandle, CompletionQueue, Context, Data, Error, Exhausted,
    FlowAction, FlowAttr, HashFields, HashFunction, Invalid, QpAttr, QpInitAttr, QpState, QpType,
    QueuePair, RecvWr, RxHashConf, SendOp, SendWr, SteeringKey, UdDest, WcStatus, WqInitAttr,
    WqState,
};
use rocenic_model::toeplitz::MICROSOFT_KEY;

const QKEY: u32 = 0x4242;

/// Sends `len` bytes (inline) from `qa` to `dqpn` and waits for the send completion.
fn send<D: Device>(
    nics: [&Context<D>; 2],
    qa: &mut QueuePair<'_, D>,
    cqa: &CompletionQueue<'_, D>,
    ah: &AddressHandle<'_>,
    dqpn: u32,
    len: usize,
) {
    let data = vec![0x5A; len];
    let wr = SendWr::new(0, SendOp::Send, Data::Inline(&data))
        .signaled()
        .to(UdDest {
            ah,
            remote_qpn: dqpn,
            remote_qkey: QKEY,
        });
    qa.post_send(&wr).unwrap();
    assert!(wait(cqa, 1, &nics)[0].is_success());
}

/// The wr_ids of `n` completions, each `status`.
fn flushed<D: Device>(cq: &CompletionQueue<'_, D>, n: usize, nics: [&Context<D>; 2]) -> Vec<u64> {
    let c = wait(cq, n, &nics);
    for x in &c {
        assert_eq!(x.status(), WcStatus::WrFlushErr, "{x:?}");
    }
    c.iter().map(|x| x.wr_id()).collect()
}

pub fn short_buffer_and_bad_lkey<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let buf = b.alloc_buffer(64 * 1024).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    for (case, bad_lkey) in [("short buffer", false), ("bad lkey", true)] {
        buf.write(0, &[0; 4096]).unwrap();
        let mut qb = ud_qp(&pdb, &cqb, 8, 1, QKEY);
        // The first receive fails: 40 + 99 bytes for a 100-byte message, or an lkey no region
        // has; three good ones behind it.
        let first = if bad_lkey {
            rocenic_host_driver::verbs::Sge {
                lkey: mr.lkey() ^ 0x8000,
                ..mr.sge(0, 2048).unwrap()
            }
        } else {
            mr.sge(0, 139).unwrap()
        };
        qb.post_recv(&RecvWr {
            wr_id: 1,
            sgl: &[first],
        })
        .unwrap();
        for i in 2..5u64 {
            let sgl = [mr.sge(i * 4096, 2048).unwrap()];
            qb.post_recv(&RecvWr {
                wr_id: i,
                sgl: &sgl,
            })
            .unwrap();
        }
        send([&a, &b], &mut qa, &cqa, &ah, qb.qp_num(), 100);
        let c = wait(&cqb, 1, &[&a, &b]);
        let want = if bad_lkey {
            WcStatus::LocProtErr
        } else {
            WcStatus::LocLenErr
        };
        assert_eq!((c[0].wr_id(), c[0].status()), (1, want), "{case}");
        assert_eq!(qb.state(), QpState::Err, "{case}: the QP went to ERR");
        // Nothing landed.
        let mut got = [0u8; 8];
        buf.read(40, &mut got).unwrap();
        assert_eq!(got, [0; 8], "{case}: nothing written");
        // The others flush, each once, in order; a receive posted now flushes too.
        assert_eq!(flushed(&cqb, 3, [&a, &b]), [2, 3, 4], "{case}");
        let sgl = [mr.sge(8192, 64).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: 9,
            sgl: &sgl,
        })
        .unwrap();
        assert_eq!(flushed(&cqb, 1, [&a, &b]), [9], "{case}");
        // A frame for the QP in ERR is dropped; nothing more completes.
        send([&a, &b], &mut qa, &cqa, &ah, qb.qp_num(), 10);
        quiet(&cqb, 200, &[&a, &b]);
        // RESET and up again: it receives.
        qb.modify(QpAttr::Reset).unwrap();
        qb.bring_up(
            rocenic_host_driver::verbs::InitAttr::ud(QKEY),
            rocenic_host_driver::verbs::RtrAttr::ud(rocenic_host_driver::verbs::PathMtu::Mtu1024),
            rocenic_host_driver::verbs::RtsAttr::new(
                rocenic_host_driver::verbs::Psn::new(0).unwrap(),
            ),
        )
        .unwrap();
        let sgl = [mr.sge(0, 2048).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: 20,
            sgl: &sgl,
        })
        .unwrap();
        send([&a, &b], &mut qa, &cqa, &ah, qb.qp_num(), 33);
        let c = wait(&cqb, 1, &[&a, &b]);
        assert_eq!(
            (c[0].wr_id(), c[0].status(), c[0].byte_len()),
            (20, WcStatus::Success, 73)
        );
    }
}

pub fn flush_on_err<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let buf = b.alloc_buffer(8192).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    // RC: both sides up, five receives posted on b, then b to ERR.
    let mut qa = rc_qp(&pda, &cqa, 1);
    let mut qb = rc_qp(&pdb, &cqb, 8);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    connect(&mut qb, na, 1);
    for i in 0..5u64 {
        let sgl = [mr.sge(i * 1024, 1024).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: i,
            sgl: &sgl,
        })
        .unwrap();
    }
    qb.modify(QpAttr::Err).unwrap();
    assert_eq!(flushed(&cqb, 5, [&a, &b]), [0, 1, 2, 3, 4]);
    quiet(&cqb, 300, &[&a, &b]);
    let c = cqb.poll(1).unwrap();
    assert!(c.is_empty());
    assert!(cqa.poll(1).unwrap().is_empty());

    // A work queue: RESET→ERR and ERR→READY are refused; READY→ERR flushes what it holds.
    let mut wq = b
        .create_wq(
            &pdb,
            &cqb,
            &WqInitAttr {
                max_wr: 4,
                max_sge: 1,
            },
        )
        .unwrap();
    let e = wq.modify(WqState::Err).unwrap_err();
    assert!(
        matches!(e, Error::Invalid(Invalid::WqTransition(_))),
        "{e:?}"
    );
    assert_eq!(e.errno(), errno::EINVAL);
    for i in 0..3u64 {
        let sgl = [mr.sge(i * 64, 64).unwrap()];
        wq.post_recv(&RecvWr {
            wr_id: 50 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    wq.modify(WqState::Ready).unwrap();
    wq.modify(WqState::Err).unwrap();
    let f = wait(&cqb, 3, &[&a, &b]);
    assert!(f
        .iter()
        .all(|c| c.status() == WcStatus::WrFlushErr && c.wq_num() == Some(wq.wq_num())));
    assert_eq!(
        f.iter().map(|c| c.wr_id()).collect::<Vec<_>>(),
        [50, 51, 52]
    );
    assert_eq!(
        wq.modify(WqState::Ready).unwrap_err().errno(),
        errno::EINVAL
    );
    wq.modify(WqState::Reset).unwrap();
    wq.modify(WqState::Ready).unwrap();
    assert_eq!(wq.state(), WqState::Ready);
}

pub fn rss_queue_fails_alone<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(64).unwrap());
    let buf = b.alloc_buffer(64 * 1024).unwrap();
    let mr = pdb.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let attr = WqInitAttr {
        max_wr: 4,
        max_sge: 1,
    };
    let mut w0 = b.create_wq(&pdb, &cqb, &attr).unwrap();
    let mut w1 = b.create_wq(&pdb, &cqb, &attr).unwrap();
    // w0's first buffer is too short; every other buffer is long enough.
    for (k, w) in [&mut w0, &mut w1].into_iter().enumerate() {
        w.modify(WqState::Ready).unwrap();
        for i in 0..4u64 {
            let len = if k == 0 && i == 0 { 41 } else { 1024 };
            let sgl = [mr.sge((k as u64 * 4 + i) * 1024, len).unwrap()];
            w.post_recv(&RecvWr {
                wr_id: k as u64 * 10 + i,
                sgl: &sgl,
            })
            .unwrap();
        }
    }
    let table = b.create_rwq_ind_table(&[&w0, &w1]).unwrap();
    let hash = RxHashConf {
        function: HashFunction::Toeplitz,
        key: MICROSOFT_KEY.to_vec(),
        fields: HashFields::SRC_IPV4.union(HashFields::DST_IPV4),
    };
    let rss = pdb.create_rss_qp(&table, &hash, QKEY).unwrap();
    // A flow sends everything from a to w0 first: the failure.
    let all = SteeringKey::default();
    let flow = rss
        .create_flow(&FlowAttr {
            value: all,
            mask: all,
            action: FlowAction::Wq(w0.wq_num()),
        })
        .unwrap();
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    send([&a, &b], &mut qa, &cqa, &ah, rss.qp_num(), 100);
    let c = wait(&cqb, 4, &[&a, &b]);
    assert_eq!((c[0].wr_id(), c[0].status()), (0, WcStatus::LocLenErr));
    assert_eq!(
        c[1..]
            .iter()
            .map(|x| (x.wr_id(), x.status(), x.qp_num()))
            .collect::<Vec<_>>(),
        [1, 2, 3].map(|i| (i, WcStatus::WrFlushErr, rss.qp_num())),
        "w0 flushed, naming the RSS QP"
    );
    assert_eq!(w0.state(), WqState::Err);
    // The QP goes on: steered to w1 now, it lands.
    drop(flow);
    let flow = rss
        .create_flow(&FlowAttr {
            value: all,
            mask: all,
            action: FlowAction::Wq(w1.wq_num()),
        })
        .unwrap();
    send([&a, &b], &mut qa, &cqa, &ah, rss.qp_num(), 100);
    let c = wait(&cqb, 1, &[&a, &b]);
    assert_eq!(
        (c[0].wr_id(), c[0].status(), c[0].byte_len()),
        (10, WcStatus::Success, 140)
    );
    drop(flow);
}

pub fn refusals<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let dev = b.query_device();
    assert!(dev.receive, "{}: a receive path", dev.name);
    let rss_caps = dev.rss.expect("RSS");
    assert!(dev.tso.is_some());
    let pd = b.alloc_pd().unwrap();
    let cq = b.create_cq(16).unwrap();
    let buf = b.alloc_buffer(4096).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let sge = mr.sge(0, 64).unwrap();
    let check = |e: Error, want: i32, what: &str| assert_eq!(e.errno(), want, "{what}: {e}");

    // QP creation: receive limits past the device's.
    let too = |wr, sge| QpInitAttr {
        max_recv_wr: wr,
        max_recv_sge: sge,
        ..QpInitAttr::new(QpType::Ud)
    };
    for (attr, what) in [
        (too(4, dev.max_recv_sge + 1), "max_recv_sge"),
        (too(dev.max_qp_wr + 1, 1), "max_recv_wr"),
        (too(4, 0), "max_recv_sge 0 with receives"),
    ] {
        check(pd.create_qp(&cq, &attr).err().unwrap(), errno::EINVAL, what);
    }
    // Posting: no receive queue, RESET, too many entries, none, a full queue.
    let mut send_only = pd.create_qp(&cq, &QpInitAttr::new(QpType::Ud)).unwrap();
    let wr = RecvWr {
        wr_id: 1,
        sgl: &[sge],
    };
    check(
        send_only.post_recv(&wr).unwrap_err(),
        errno::EINVAL,
        "no receive queue",
    );
    let mut qp = pd.create_qp(&cq, &too(2, 2)).unwrap();
    check(qp.post_recv(&wr).unwrap_err(), errno::EINVAL, "RESET");
    qp.modify(QpAttr::Init(rocenic_host_driver::verbs::InitAttr::ud(1)))
        .unwrap();
    check(
        qp.post_recv(&RecvWr {
            wr_id: 1,
            sgl: &[sge; 3],
        })
        .unwrap_err(),
        errno::EINVAL,
        "three entries on a QP of two",
    );
    check(
        qp.post_recv(&RecvWr { wr_id: 1, sgl: &[] }).unwrap_err(),
        errno::EINVAL,
        "no entry",
    );
    qp.post_recv(&wr).unwrap();
    qp.post_recv(&wr).unwrap();
    let e = qp.post_recv(&wr).unwrap_err();
    assert!(
        matches!(e, Error::Exhausted(Exhausted::RecvQueue { entries: 2, .. })),
        "{e:?}"
    );
    check(e, errno::ENOMEM, "full receive queue");
    // A list stops at its bad request.
    let mut wq = b
        .create_wq(
            &pd,
            &cq,
            &WqInitAttr {
                max_wr: 4,
                max_sge: 1,
            },
        )
        .unwrap();
    let list = [wr, RecvWr { wr_id: 2, sgl: &[] }, wr];
    let e = wq.post_recv_list(&list).unwrap_err();
    assert_eq!(e.bad_wr, 1);
    check(e.error, errno::EINVAL, "list");
    // Work queues: sizes.
    for (attr, what) in [
        (
            WqInitAttr {
                max_wr: 0,
                max_sge: 1,
            },
            "max_wr 0",
        ),
        (
            WqInitAttr {
                max_wr: 4,
                max_sge: 0,
            },
            "max_sge 0",
        ),
        (
            WqInitAttr {
                max_wr: 4,
                max_sge: 64,
            },
            "max_sge 64",
        ),
        (
            WqInitAttr {
                max_wr: (1 << 16) + 1,
                max_sge: 1,
            },
            "max_wr",
        ),
    ] {
        check(
            b.create_wq(&pd, &cq, &attr).err().unwrap(),
            errno::EINVAL,
            what,
        );
    }
    // Indirection tables: not a power of two, too long.
    let attr = WqInitAttr {
        max_wr: 4,
        max_sge: 1,
    };
    let wqs: Vec<_> = (0..3)
        .map(|_| b.create_wq(&pd, &cq, &attr).unwrap())
        .collect();
    let e = b
        .create_rwq_ind_table(&[&wqs[0], &wqs[1], &wqs[2]])
        .err()
        .unwrap();
    check(e, errno::EINVAL, "three entries");
    let long: Vec<_> = (0..=rss_caps.max_rwq_indirection_table_size)
        .map(|_| &wqs[0])
        .collect();
    check(
        b.create_rwq_ind_table(&long[..]).err().unwrap(),
        errno::EINVAL,
        "too long",
    );
    // RSS QPs: a key too short, unknown fields, a flow to a queue not in the table, then the
    // contexts run out.
    let table = b.create_rwq_ind_table(&[&wqs[0], &wqs[1]]).unwrap();
    let conf = |key: &[u8], fields| RxHashConf {
        function: HashFunction::Toeplitz,
        key: key.to_vec(),
        fields,
    };
    let v4 = HashFields::SRC_IPV4.union(HashFields::DST_IPV4);
    let e = pd
        .create_rss_qp(&table, &conf(&MICROSOFT_KEY[..11], v4), 1)
        .err()
        .unwrap();
    assert!(matches!(e, Error::Invalid(Invalid::Rss(_))), "{e:?}");
    check(e, errno::EINVAL, "short key");
    let e = pd.create_rss_qp(&table, &conf(&MICROSOFT_KEY, HashFields(1 << 9)), 1);
    check(e.err().unwrap(), errno::EINVAL, "unknown field");
    let qps: Vec<_> = (0..rss_caps.max_rwq_indirection_tables)
        .map(|_| {
            pd.create_rss_qp(&table, &conf(&MICROSOFT_KEY, v4), 1)
                .unwrap()
        })
        .collect();
    let e = pd
        .create_rss_qp(&table, &conf(&MICROSOFT_KEY, v4), 1)
        .err()
        .unwrap();
    assert_eq!(e, Error::Exhausted(Exhausted::RssContexts));
    check(e, errno::ENOMEM, "contexts");
    let k = SteeringKey::default();
    let e = qps[0]
        .create_flow(&FlowAttr {
            value: k,
            mask: k,
            action: FlowAction::Wq(wqs[2].wq_num()),
        })
        .err()
        .unwrap();
    check(e, errno::EINVAL, "flow to a queue outside the table");
    // Flows run out before the QPs' own rules.
    let mut flows = Vec::new();
    loop {
        match qps[0].create_flow(&FlowAttr {
            value: k,
            mask: k,
            action: FlowAction::Rss,
        }) {
            Ok(f) => flows.push(f),
            Err(e) => {
                check(e, errno::ENOMEM, "rules");
                break;
            }
        }
    }
    assert!(
        flows.iter().all(|f| f.rule() < 16 - qps.len()),
        "flows below the QPs' rules"
    );
    drop(a);
}
