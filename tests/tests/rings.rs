//! Rings wrapping, on both sides.
//!
//! Receive: a UD QP whose receive queue and receive completion ring hold two entries,
//! completing into a completion queue of one, takes 50 rounds of two messages (each ring
//! around 50 times, both phases many times); an RC pair with two-entry receive queues does
//! the same with three-packet SENDs.
//!
//! Send: a UD QP whose send queue holds two requests, on an engine whose completion ring holds
//! two completions, completing into a completion queue of one, sends 60 rounds of two messages
//! (the third post refused each round); an RC pair with two-entry send queues sends 40
//! three-packet SENDs, PSNs across 2^24.
//!
//! Every message lands whole, in order, none lost.

use rand::Rng;
use rocenic_host_driver::verbs::{
    errno, AccessFlags, Data, OpenAttr, QpInitAttr, QpType, RecvWr, SendOp, SendWr, UdDest,
    WcStatus,
};
use rocenic_tests::{
    ah_to, connect, on_every_backend, open, open_with, rc_qp, rc_qp_with, seeded, ud_qp,
    ud_qp_with, wait, Backend,
};

on_every_backend!(receive_rings_wrap, send_rings_wrap);

fn receive_rings_wrap<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("receive_rings_wrap");
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let cqa = a.create_cq(4).unwrap();
    let cqb = b.create_cq(1).unwrap();
    let src = a.alloc_buffer(8192).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let dst = b.alloc_buffer(8192).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, 7);
    let mut qb = ud_qp(&pdb, &cqb, 2, 1, 7);
    assert_eq!(qb.recv_queue_entries(), 2);
    let ah = pda.create_ah(&ah_to(2, true)).unwrap();
    let mut id = 0u64;
    for round in 0..50 {
        for k in 0..2u64 {
            let sgl = [mrb.sge(k * 2048, 2048).unwrap()];
            qb.post_recv(&RecvWr {
                wr_id: id + k,
                sgl: &sgl,
            })
            .unwrap();
        }
        // Full: the third is refused until a completion frees a slot.
        let sgl = [mrb.sge(4096, 64).unwrap()];
        let e = qb
            .post_recv(&RecvWr {
                wr_id: 0,
                sgl: &sgl,
            })
            .unwrap_err();
        assert_eq!(e.errno(), errno::ENOMEM, "round {round}");
        let mut sent = Vec::new();
        for k in 0..2u64 {
            let len = r.gen_range(1..=1000usize);
            let data: Vec<u8> = (0..len).map(|_| r.gen()).collect();
            src.write(k * 4096, &data).unwrap();
            let sge = [mra.sge(k * 4096, len as u32).unwrap()];
            let wr = SendWr::new(k, SendOp::Send, Data::Sgl(&sge))
                .signaled()
                .to(UdDest {
                    ah: &ah,
                    remote_qpn: qb.qp_num(),
                    remote_qkey: 7,
                });
            qa.post_send(&wr).unwrap();
            sent.push(data);
        }
        assert_eq!(wait(&cqa, 2, &[&a, &b]).len(), 2);
        for (k, data) in sent.iter().enumerate() {
            // A completion queue of one: the second waits in the work queue's ring.
            let c = wait(&cqb, 1, &[&a, &b]);
            assert_eq!(c[0].status(), WcStatus::Success);
            assert_eq!(c[0].wr_id(), id + k as u64, "round {round}: in order");
            assert_eq!(c[0].wqe_index(), (id + k as u64) as u32, "its ring index");
            let mut got = vec![0; data.len()];
            dst.read(k as u64 * 2048 + 40, &mut got).unwrap();
            assert_eq!(&got, data, "round {round}, message {k}");
        }
        id += 2;
    }

    // RC, three-packet SENDs through two-entry receive queues.
    let mut ra = rc_qp(&pda, &cqa, 2);
    let mut rb = rc_qp(&pdb, &cqb, 2);
    let (na, nb) = (ra.qp_num(), rb.qp_num());
    connect(&mut ra, nb, 2);
    connect(&mut rb, na, 1);
    for round in 0..30u64 {
        let sgl = [mrb.sge(0, 3000).unwrap()];
        rb.post_recv(&RecvWr {
            wr_id: round,
            sgl: &sgl,
        })
        .unwrap();
        let data: Vec<u8> = (0..2500).map(|_| r.gen()).collect();
        src.write(0, &data).unwrap();
        let sge = [mra.sge(0, 2500).unwrap()];
        ra.post_send(&SendWr::new(round, SendOp::Send, Data::Sgl(&sge)).signaled())
            .unwrap();
        assert!(wait(&cqa, 1, &[&a, &b])[0].is_success());
        let c = wait(&cqb, 1, &[&a, &b]);
        assert_eq!((c[0].wr_id(), c[0].byte_len()), (round, 2500));
        let mut got = vec![0; 2500];
        dst.read(0, &mut got).unwrap();
        assert_eq!(got, data, "RC round {round}");
    }
}

fn send_rings_wrap<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("send_rings_wrap");
    // The engines' completion rings: two entries.
    let (a, b) = open_with(
        backend,
        &OpenAttr {
            cq_log2: 1,
            ..OpenAttr::default()
        },
    );
    let nics = [&a, &b];
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let cqa = a.create_cq(1).unwrap();
    let cqb = b.create_cq(8).unwrap();
    let src = a.alloc_buffer(8192).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let dst = b.alloc_buffer(8192).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let attr = QpInitAttr {
        max_send_wr: 2,
        ..QpInitAttr::new(QpType::Ud)
    };
    let mut qa = ud_qp_with(&pda, &cqa, &attr, 9);
    assert_eq!(qa.send_queue_entries(), 2);
    let mut qb = ud_qp(&pdb, &cqb, 2, 1, 9);
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    for round in 0..60u64 {
        for k in 0..2u64 {
            let sgl = [mrb.sge(k * 2048, 2048).unwrap()];
            qb.post_recv(&RecvWr {
                wr_id: 2 * round + k,
                sgl: &sgl,
            })
            .unwrap();
        }
        let mut sent = Vec::new();
        for k in 0..2u64 {
            let len = r.gen_range(1..=1024usize);
            let data: Vec<u8> = (0..len).map(|_| r.gen()).collect();
            src.write(k * 4096, &data).unwrap();
            let sge = [mra.sge(k * 4096, len as u32).unwrap()];
            let wr = SendWr::new(2 * round + k, SendOp::Send, Data::Sgl(&sge))
                .signaled()
                .to(UdDest {
                    ah: &ah,
                    remote_qpn: qb.qp_num(),
                    remote_qkey: 9,
                });
            qa.post_send(&wr).unwrap();
            sent.push(data);
        }
        // Full: the third is refused until a completion frees a slot.
        let sge = [mra.sge(0, 8).unwrap()];
        let wr = SendWr::new(0, SendOp::Send, Data::Sgl(&sge)).to(UdDest {
            ah: &ah,
            remote_qpn: qb.qp_num(),
            remote_qkey: 9,
        });
        assert_eq!(
            qa.post_send(&wr).unwrap_err().errno(),
            errno::ENOMEM,
            "round {round}"
        );
        for k in 0..2u64 {
            // A completion queue of one: the second waits in the engine's ring.
            let c = wait(&cqa, 1, &nics);
            assert_eq!(
                (c[0].wr_id(), c[0].status()),
                (2 * round + k, WcStatus::Success),
                "round {round}"
            );
            assert_eq!(c[0].wqe_index(), (2 * round + k) as u32, "its ring index");
        }
        let c = wait(&cqb, 2, &nics);
        for (k, data) in sent.iter().enumerate() {
            assert_eq!(
                c[k].wr_id(),
                2 * round + k as u64,
                "round {round}: in order"
            );
            let mut got = vec![0; data.len()];
            dst.read(k as u64 * 2048 + 40, &mut got).unwrap();
            assert_eq!(&got, data, "round {round}, message {k}");
        }
    }

    // RC: two-entry send queues, three-packet SENDs, PSNs across 2^24.
    let attr = QpInitAttr {
        max_send_wr: 2,
        max_recv_wr: 2,
        max_recv_sge: 1,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut ra = rc_qp_with(&pda, &cqa, &attr);
    let mut rb = rc_qp(&pdb, &cqb, 2);
    let (na, nb) = (ra.qp_num(), rb.qp_num());
    connect(&mut ra, nb, 2);
    connect(&mut rb, na, 1);
    for round in 0..40u64 {
        let sgl = [mrb.sge(0, 3000).unwrap()];
        rb.post_recv(&RecvWr {
            wr_id: round,
            sgl: &sgl,
        })
        .unwrap();
        let data: Vec<u8> = (0..2500).map(|_| r.gen()).collect();
        src.write(0, &data).unwrap();
        let sge = [mra.sge(0, 2500).unwrap()];
        ra.post_send(&SendWr::new(round, SendOp::Send, Data::Sgl(&sge)).signaled())
            .unwrap();
        let c = wait(&cqa, 1, &nics);
        assert_eq!((c[0].wr_id(), c[0].wqe_index()), (round, round as u32));
        let c = wait(&cqb, 1, &nics);
        assert_eq!((c[0].wr_id(), c[0].byte_len()), (round, 2500));
        let mut got = vec![0; 2500];
        dst.read(0, &mut got).unwrap();
        assert_eq!(got, data, "RC round {round}");
    }
}
