//! UD: sends from a to b over IPv4 and IPv6, gathered or inline, with and without immediate
//! data, land in b's receive buffers after the 40-byte GRH area; each completion says the
//! length with that area, the sender's QP, the immediate, and that the checksums were good.

use super::common::{ah_to, nic, open, seeded, ud_qp, wait, Backend};
use rand::Rng;
use rocenic_host_driver::verbs::{
    AccessFlags, Data, RecvWr, SendOp, SendWr, UdDest, WcOpcode, WcStatus,
};

const QKEY: u32 = 0x1111_2222;
const SLOT: u64 = 2048;

pub fn send_across<B: Backend>(backend: &mut B) {
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
