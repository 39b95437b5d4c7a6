//! Receive-side refusals before the device, each with its errno: receive limits past the
//! device's, posting without a receive queue, in RESET, too many or no entries, a full queue,
//! a list's bad request, work-queue sizes, indirection tables, RSS keys and hash fields, the
//! RSS contexts and steering rules running out, a flow to a queue outside its table. (The
//! send-side refusals are the driver's alone: host-driver/tests/verbs/errors.rs.)

use rocenic_host_driver::verbs::{
    errno, AccessFlags, Error, Exhausted, FlowAction, FlowAttr, HashFields, HashFunction, Invalid,
    QpAttr, QpInitAttr, QpType, RecvWr, RxHashConf, SteeringKey, WqInitAttr,
};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_tests::{open, Backend};

pub fn recv_refusals<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    let dev = b.query_device();
    assert!(dev.receive, "{}: a receive path", dev.name);
    let rss_caps = dev.rss.expect("RSS");
    assert_eq!(dev.tso.is_some(), B::TSO, "{}: TSO", dev.name);
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
