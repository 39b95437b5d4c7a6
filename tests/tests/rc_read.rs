//! RDMA READ through the driver (`SendOp::RdmaRead`), on two model NICs with the reliable
//! transport (`ModelRc`; the RTL's has no READ yet): READs of 1 byte to 20 KB land in the reader's
//! buffers byte for byte and complete `RDMA_READ` in order among a WRITE, both ways; a READ of a
//! region without `REMOTE_READ` completes `REM_ACCESS_ERR` and the rest flushes; the driver
//! refuses a READ on a device without the transport, on a UD QP and with inline data.

use rand::Rng;
use rocenic_host_driver::verbs::{
    AccessFlags, Data, Error, Feature, Invalid, RemoteAddr, SendOp, SendWr, WcOpcode, WcStatus,
};
use rocenic_tests::{connect, open, rc_qp, seeded, ud_qp, wait, Model, ModelRc};

const SIZES: [u32; 6] = [1, 1000, 1024, 1025, 5000, 20_000];

#[test]
fn reads_land_both_ways() {
    let (_, mut r) = seeded("rc_read::reads_land_both_ways");
    let mut backend = ModelRc::default();
    let (a, b) = open(&mut backend);
    assert!(a.query_device().rdma_read && b.query_device().rdma_read);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(32).unwrap(), b.create_cq(32).unwrap());
    let both = AccessFlags::LOCAL_WRITE
        .union(AccessFlags::REMOTE_READ)
        .union(AccessFlags::REMOTE_WRITE);
    let (bufa, bufb) = (
        a.alloc_buffer(64 * 1024).unwrap(),
        b.alloc_buffer(64 * 1024).unwrap(),
    );
    let (mra, mrb) = (
        pda.reg_mr(&bufa, both).unwrap(),
        pdb.reg_mr(&bufb, both).unwrap(),
    );
    let mut qa = rc_qp(&pda, &cqa, 4);
    let mut qb = rc_qp(&pdb, &cqb, 4);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    connect(&mut qb, na, 1);
    // Each side's first 32 KB is what the other reads; the READs land from 32 KB on.
    let (da, db): (Vec<u8>, Vec<u8>) = (
        (0..32 * 1024).map(|_| r.gen()).collect(),
        (0..32 * 1024).map(|_| r.gen()).collect(),
    );
    bufa.write(0, &da).unwrap();
    bufb.write(0, &db).unwrap();
    for (qp, mr, peer, cq, data, buf) in [
        (&mut qa, &mra, &mrb, &cqa, &db, &bufa),
        (&mut qb, &mrb, &mra, &cqb, &da, &bufb),
    ] {
        // READs of every size from random places, a WRITE among them.
        let mut wrs = Vec::new();
        let mut at = 32 * 1024u64;
        let mut want = Vec::new();
        for (i, &len) in SIZES.iter().enumerate() {
            let from = r.gen_range(0..32 * 1024 - len) as u64;
            want.push((i as u64, at, from, len));
            at += u64::from(len);
        }
        let sgls: Vec<_> = want
            .iter()
            .map(|&(_, to, _, len)| [mr.sge(to, len).unwrap()])
            .collect();
        for (k, &(id, _, from, _)) in want.iter().enumerate() {
            let src = RemoteAddr {
                addr: peer.addr() + from,
                rkey: peer.rkey(),
            };
            wrs.push(SendWr::new(id, SendOp::RdmaRead(src), Data::Sgl(&sgls[k])).signaled());
        }
        let w = [mr.sge(0, 100).unwrap()];
        let to = RemoteAddr {
            addr: peer.addr() + 60 * 1024,
            rkey: peer.rkey(),
        };
        wrs.insert(
            3,
            SendWr::new(99, SendOp::RdmaWrite(to), Data::Sgl(&w)).signaled(),
        );
        qp.post_send_list(&wrs).unwrap();
        let got = wait(cq, wrs.len(), &[&a, &b]);
        let ids: Vec<u64> = got.iter().map(|c| c.wr_id()).collect();
        assert_eq!(ids, [0, 1, 2, 99, 3, 4, 5], "in posting order");
        for c in &got {
            assert_eq!(c.status(), WcStatus::Success, "{c:?}");
        }
        for (c, &(_, to, from, len)) in got.iter().filter(|c| c.wr_id() != 99).zip(&want) {
            assert_eq!((c.opcode(), c.byte_len()), (Some(WcOpcode::RdmaRead), len));
            let mut landed = vec![0u8; len as usize];
            buf.read(to, &mut landed).unwrap();
            assert!(
                landed[..] == data[from as usize..(from + u64::from(len)) as usize],
                "a {len}-byte READ lands intact"
            );
        }
    }
}

/// A READ of a region that does not allow it: `REM_ACCESS_ERR`, the QP in ERR, the READ behind
/// it flushed.
#[test]
fn a_read_refused_by_the_peer() {
    let mut backend = ModelRc::default();
    let (a, b) = open(&mut backend);
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(8).unwrap(), b.create_cq(8).unwrap());
    let (bufa, bufb) = (a.alloc_buffer(8192).unwrap(), b.alloc_buffer(8192).unwrap());
    let mra = pda.reg_mr(&bufa, AccessFlags::LOCAL_WRITE).unwrap();
    // Writable from afar, not readable.
    let no_read = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let mrb = pdb.reg_mr(&bufb, no_read).unwrap();
    let mut qa = rc_qp(&pda, &cqa, 1);
    let mut qb = rc_qp(&pdb, &cqb, 1);
    let (na, nb) = (qa.qp_num(), qb.qp_num());
    connect(&mut qa, nb, 2);
    connect(&mut qb, na, 1);
    let src = RemoteAddr {
        addr: mrb.addr(),
        rkey: mrb.rkey(),
    };
    let sgl = [mra.sge(0, 512).unwrap()];
    qa.post_send_list(&[
        SendWr::new(1, SendOp::RdmaRead(src), Data::Sgl(&sgl)).signaled(),
        SendWr::new(2, SendOp::RdmaRead(src), Data::Sgl(&sgl)).signaled(),
    ])
    .unwrap();
    let got = wait(&cqa, 2, &[&a, &b]);
    let st: Vec<(u64, WcStatus)> = got.iter().map(|c| (c.wr_id(), c.status())).collect();
    assert_eq!(st, [(1, WcStatus::RemAccessErr), (2, WcStatus::WrFlushErr)]);
}

/// What the driver refuses before the device sees it.
#[test]
fn reads_the_driver_refuses() {
    // No transport: the model NICs as the RTL runs them.
    let mut plain = Model::default();
    let (a, b) = open(&mut plain);
    assert!(!a.query_device().rdma_read);
    let pd = a.alloc_pd().unwrap();
    let cq = a.create_cq(4).unwrap();
    let buf = a.alloc_buffer(4096).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qp = rc_qp(&pd, &cq, 1);
    connect(&mut qp, 0x99, 2);
    let src = RemoteAddr { addr: 0, rkey: 1 };
    let sgl = [mr.sge(0, 64).unwrap()];
    let read = SendWr::new(1, SendOp::RdmaRead(src), Data::Sgl(&sgl)).signaled();
    assert_eq!(
        qp.post_send(&read),
        Err(Error::Unsupported(Feature::RdmaRead))
    );
    drop((qp, b));

    let mut rc = ModelRc::default();
    let (a, _b) = open(&mut rc);
    let pd = a.alloc_pd().unwrap();
    let cq = a.create_cq(4).unwrap();
    let buf = a.alloc_buffer(4096).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let sgl = [mr.sge(0, 64).unwrap()];
    let mut ud = ud_qp(&pd, &cq, 1, 1, 0x5151);
    let read = SendWr::new(1, SendOp::RdmaRead(src), Data::Sgl(&sgl)).signaled();
    assert!(matches!(
        ud.post_send(&read),
        Err(Error::Invalid(Invalid::Opcode(m))) if m.contains("RC QP")
    ));
    let mut qp = rc_qp(&pd, &cq, 1);
    connect(&mut qp, 0x99, 2);
    let inline = SendWr::new(2, SendOp::RdmaRead(src), Data::Inline(&[1, 2, 3])).signaled();
    assert!(matches!(
        qp.post_send(&inline),
        Err(Error::Invalid(Invalid::Opcode(m))) if m.contains("no inline")
    ));
}
