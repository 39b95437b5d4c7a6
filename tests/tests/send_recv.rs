//! Sending and receiving across two NICs.
//!
//! UD: sends from a to b over IPv4 and IPv6, gathered or inline, with and without immediate
//! data, land in b's receive buffers after the 40-byte GRH area; each completion says the
//! length with that area, the sender's QP, the immediate, and that the checksums were good.
//!
//! RC: a connected pair, a's SEND (three packets), SEND with immediate, RDMA WRITE and RDMA
//! WRITE with immediate into b's region, PSNs across the 2^24 wrap, and a SEND back from b.

use rand::Rng;
use rocenic_host_driver::verbs::{
    AccessFlags, Data, RecvWr, RemoteAddr, SendOp, SendWr, UdDest, WcOpcode, WcStatus,
};
use rocenic_tests::{
    ah_to, connect, nic, on_every_backend, open, post_slots, rc_qp, seeded, ud_qp, wait, Backend,
};

on_every_backend!(ud_send_across, rc_send_and_write);

const QKEY: u32 = 0x1111_2222;
const SLOT: u64 = 2048;

fn ud_send_across<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("ud_send_across");
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let src = a.alloc_buffer(64 * 1024).unwrap();
    let dst = b.alloc_buffer(16 * SLOT).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = ud_qp(&pda, &cqa, 0, 0, QKEY);
    let mut qb = ud_qp(&pdb, &cqb, 16, 2, QKEY);
    // Two scatter entries: the GRH area's 40 bytes and the payload, as applications do.
    for i in 0..16u64 {
        let sgl = [
            mrb.sge(i * SLOT, 40).unwrap(),
            mrb.sge(i * SLOT + 40, 1024).unwrap(),
        ];
        qb.post_recv(&RecvWr {
            wr_id: 100 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let ahs = [
        pda.create_ah(&ah_to(2, false)).unwrap(),
        pda.create_ah(&ah_to(2, true)).unwrap(),
    ];
    let mut sent = Vec::new();
    for i in 0..12u64 {
        let len = r.gen_range(1..=1024usize);
        let data: Vec<u8> = (0..len).map(|_| r.gen()).collect();
        src.write(i * 4096, &data).unwrap();
        let v6 = i % 2 == 1;
        let imm = (i % 3 == 0).then(|| r.gen::<u32>());
        let sge = [mra.sge(i * 4096, len as u32).unwrap()];
        let inline = i % 4 == 2 && len <= 256;
        let op = imm.map_or(SendOp::Send, SendOp::SendWithImm);
        let payload = if inline {
            Data::Inline(&data)
        } else {
            Data::Sgl(&sge)
        };
        let wr = SendWr::new(i, op, payload).signaled().to(UdDest {
            ah: &ahs[usize::from(v6)],
            remote_qpn: qb.qp_num(),
            remote_qkey: 0x8000_0000,
        });
        qa.post_send(&wr).unwrap();
        sent.push((data, v6, imm));
    }
    let sends = wait(&cqa, 12, &[&a, &b]);
    assert!(sends.iter().all(|c| c.status() == WcStatus::Success));
    let recvs = wait(&cqb, 12, &[&a, &b]);
    for (i, (c, (data, v6, imm))) in recvs.iter().zip(&sent).enumerate() {
        let what = format!("receive {i}");
        assert_eq!(c.status(), WcStatus::Success, "{what}");
        assert_eq!(c.wr_id(), 100 + i as u64, "{what}: in order");
        assert_eq!(c.opcode(), Some(WcOpcode::Recv), "{what}");
        assert_eq!(c.qp_num(), qb.qp_num(), "{what}");
        assert_eq!(c.src_qp(), qa.qp_num(), "{what}: the sender's QP");
        assert_eq!(
            c.byte_len() as usize,
            40 + data.len(),
            "{what}: GRH area counted"
        );
        assert!(c.has_grh() && c.ip_csum_ok(), "{what}: flags");
        assert_eq!(c.imm_data(), *imm, "{what}: immediate");
        assert_eq!(c.wq_num(), qb.recv_wq_num(), "{what}");
        assert!(c.is_recv());
        let mut got = vec![0u8; 40 + data.len()];
        dst.read(i as u64 * SLOT, &mut got).unwrap();
        assert_eq!(&got[40..], &data[..], "{what}: payload");
        // The GRH area: the IPv6 header as it arrived, or 20 zero bytes and the IPv4 header.
        if *v6 {
            assert_eq!(got[0] >> 4, 6, "{what}: IPv6 version");
            assert_eq!(&got[8..24], &nic(1).ipv6.0, "{what}: IPv6 source");
            assert_eq!(&got[24..40], &nic(2).ipv6.0, "{what}: IPv6 destination");
        } else {
            assert_eq!(&got[..20], &[0; 20], "{what}: zeros before the IPv4 header");
            assert_eq!(got[20], 0x45, "{what}: IPv4 version and IHL");
            assert_eq!(&got[32..36], &nic(1).ipv4.0, "{what}: IPv4 source");
            assert_eq!(&got[36..40], &nic(2).ipv4.0, "{what}: IPv4 destination");
        }
    }
}

fn rc_send_and_write<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("rc_send_and_write");
    let (a, b) = open(backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(32).unwrap(), b.create_cq(32).unwrap());
    let src = a.alloc_buffer(16 * 1024).unwrap();
    let dst = b.alloc_buffer(32 * 1024).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let remote = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let mrb = pdb.reg_mr(&dst, remote).unwrap();
    let mut qa = rc_qp(&pda, &cqa, 4);
    let mut qb = rc_qp(&pdb, &cqb, 8);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    connect(&mut qb, na, 1);
    let data: Vec<u8> = (0..16 * 1024).map(|_| r.gen()).collect();
    src.write(0, &data).unwrap();
    // b's receives: 4 KiB each from 0, the WRITEs land from 20 KiB.
    post_slots(&mut qb, &mrb, 4, 4096, 10);
    let imm = [r.gen::<u32>(), r.gen::<u32>()];
    let at = |off: u64| RemoteAddr {
        addr: mrb.addr() + off,
        rkey: mrb.rkey(),
    };
    let s = |off, len| [mra.sge(off, len).unwrap()];
    let (s0, s1, s2, s3) = (s(0, 3000), s(3000, 500), s(4000, 2000), s(8000, 1500));
    let wrs = [
        SendWr::new(1, SendOp::Send, Data::Sgl(&s0)).signaled(),
        SendWr::new(2, SendOp::SendWithImm(imm[0]), Data::Sgl(&s1)).signaled(),
        SendWr::new(3, SendOp::RdmaWrite(at(20 * 1024)), Data::Sgl(&s2)).signaled(),
        SendWr::new(
            4,
            SendOp::RdmaWriteWithImm(at(24 * 1024), imm[1]),
            Data::Sgl(&s3),
        )
        .signaled(),
    ];
    qa.post_send_list(&wrs).unwrap();
    let sends = wait(&cqa, 4, &[&a, &b]);
    assert!(
        sends.iter().all(|c| c.is_success() && !c.is_recv()),
        "{sends:?}"
    );
    let recvs = wait(&cqb, 3, &[&a, &b]);
    let want = [
        (10, WcOpcode::Recv, 3000, None),
        (11, WcOpcode::Recv, 500, Some(imm[0])),
        (12, WcOpcode::RecvRdmaWithImm, 1500, Some(imm[1])),
    ];
    for (c, (wr_id, op, len, imm)) in recvs.iter().zip(want) {
        assert_eq!(c.status(), WcStatus::Success, "{c:?}");
        assert_eq!(
            (c.wr_id(), c.opcode(), c.byte_len()),
            (wr_id, Some(op), len)
        );
        assert_eq!(c.imm_data(), imm);
        assert_eq!(c.qp_num(), nb);
        assert!(
            !c.has_grh() && c.src_qp() == 0,
            "RC: no GRH area, no source QP"
        );
    }
    let read = |off, len: usize| {
        let mut v = vec![0; len];
        dst.read(off, &mut v).unwrap();
        v
    };
    assert_eq!(read(0, 3000), data[..3000]);
    assert_eq!(read(4096, 500), data[3000..3500]);
    assert_eq!(read(20 * 1024, 2000), data[4000..6000]);
    assert_eq!(read(24 * 1024, 1500), data[8000..9500]);
    // The WRITE with immediate's WQE was taken, its buffer untouched.
    assert_eq!(read(8192, 16), vec![0; 16]);

    // And back: b sends to a.
    let sgl = [mra.sge(12 * 1024, 1024).unwrap()];
    qa.post_recv(&RecvWr {
        wr_id: 77,
        sgl: &sgl,
    })
    .unwrap();
    let sb = [mrb.sge(0, 700).unwrap()];
    qb.post_send(&SendWr::new(5, SendOp::Send, Data::Sgl(&sb)).signaled())
        .unwrap();
    let back = wait(&cqa, 1, &[&a, &b]);
    assert_eq!((back[0].wr_id(), back[0].byte_len()), (77, 700));
    let mut got = vec![0; 700];
    src.read(12 * 1024, &mut got).unwrap();
    assert_eq!(got, data[..700]);
    assert!(wait(&cqb, 1, &[&a, &b])[0].is_success());
}
