//! RC: a connected pair, a's SEND (three packets), SEND with immediate, RDMA WRITE and RDMA
//! WRITE with immediate into b's region, PSNs across the 2^24 wrap, and a SEND back from b.

use super::common::{ah_to, open, seeded, wait, Backend};
use rand::Rng;
use rocenic_host_driver::device::Device;
use rocenic_host_driver::verbs::{
    AccessFlags, CompletionQueue, Data, InitAttr, PathMtu, ProtectionDomain, Psn, QpInitAttr,
    QpType, QueuePair, RecvWr, RemoteAddr, RtrAttr, RtsAttr, SendOp, SendWr, WcOpcode, WcStatus,
};

/// The first PSN each side sends (and the other expects): 16 before the wrap.
const PSN: u32 = 0xFF_FFF0;

/// An RC QP of `recv` receives, in RESET.
pub fn rc_qp<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    recv: u32,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: recv,
        max_recv_sge: 2,
        ..QpInitAttr::new(QpType::Rc)
    };
    pd.create_qp(cq, &attr).expect("an RC QP")
}

/// Connects `q` (on NIC `me`) to `peer` (on NIC `other`) and brings it to RTS.
pub fn connect<D: Device>(q: &mut QueuePair<'_, D>, peer: u32, other: u8) {
    let psn = Psn::new(PSN).unwrap();
    q.bring_up(
        InitAttr {
            access: AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE),
            ..InitAttr::default()
        },
        RtrAttr::rc(PathMtu::Mtu1024, peer, psn, ah_to(other, false)),
        RtsAttr::new(psn),
    )
    .expect("RC to RTS");
}

pub fn send_and_write<B: Backend>(backend: &mut B) {
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
    for i in 0..4u64 {
        let sgl = [mrb.sge(i * 4096, 4096).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: 10 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
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
