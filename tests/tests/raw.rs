//! Raw packet QPs (`IBV_QPT_RAW_PACKET`) across two NICs.
//!
//! TSO: a's raw QP sends large TCP sends over Ethernet (IPv4 and IPv6, tagged and not) as
//! header templates and gathered payloads; each must leave as the segments docs/tso.md
//! describes (sequence + i·MSS, IPv4 identification + i, CWR on the first, PSH and FIN on the
//! last, lengths and checksums), byte for byte what a frame built field by field with
//! `model::wire` is and what `model::tso::Segmenter` writes, and land whole in b's raw work
//! queue, which a flow on b's raw QP selects, with good checksums. A SEND puts a host-built frame
//! on the wire unchanged (padded to 60 bytes). Then the refusals: before the device (opcodes,
//! destinations, flows of the wrong QP or action), by the sender's engine (MSS 0, a template
//! that is not TCP, a frame too long or too short: the QP to ERR, nothing on the wire) and by
//! the receiver (a buffer too short: the raw queue to ERR alone). A raw QP in ERR, moved by
//! software or by a failed request, has its posted receives flushed. On a device without raw
//! packet QPs each test checks the typed refusal instead; on one whose raw QPs have no TSO (the
//! full core: its segmenter serves UD QPs only) the TSO parts check TSO's refusal and the rest
//! runs.

use rand::{Rng, RngCore};
use rocenic_host_driver::model_device::ModelDevice;
use rocenic_host_driver::verbs::{
    errno, AccessFlags, Context, Data, Error, Feature, FlowAction, FlowAttr, Invalid, OpenAttr,
    PathMtu, Psn, QpAttr, QpInitAttr, QpState, QpType, RecvWr, RemoteAddr, RtrAttr, RtsAttr,
    SendOp, SendWr, SteeringKey, UdDest, WcOpcode, WcStatus,
};
use rocenic_model::tso::{verify_segment, Limits, Segmenter};
use rocenic_model::wire::{LinkType, TcpFlags};
use rocenic_tests::{
    ah_to, nic, on_every_backend, open, padded, post_slots, quiet, raw_qp, seeded, ud_qp, wait,
    Backend, TcpFlow,
};

on_every_backend!(
    raw_tso_lands_whole,
    raw_send_lands_whole,
    raw_refusals,
    raw_err_flushes_its_queue
);

/// The TCP port b's flow steers to its raw QP.
const PORT: u16 = 5001;
/// Receive buffer slots on b: room for a template and the largest MSS here.
const SLOT: u64 = 2048;
/// IEEE's local experimental EtherType: a frame that is neither IP nor RoCE.
const EXPERIMENTAL: u16 = 0x88B5;

/// A flow on b's raw QP for TCP to [`PORT`].
fn tcp_flow() -> FlowAttr {
    FlowAttr {
        value: SteeringKey {
            l4_protocol: 6,
            dst_port: PORT,
            ..SteeringKey::default()
        },
        mask: SteeringKey {
            l4_protocol: 0xFF,
            dst_port: 0xFFFF,
            ..SteeringKey::default()
        },
        action: FlowAction::Qp,
    }
}

/// A flow for the experimental EtherType.
fn ethertype_flow(action: FlowAction) -> FlowAttr {
    FlowAttr {
        value: SteeringKey {
            ethertype: EXPERIMENTAL,
            ..SteeringKey::default()
        },
        mask: SteeringKey {
            ethertype: 0xFFFF,
            ..SteeringKey::default()
        },
        action,
    }
}

/// Whether the device has raw packet QPs; when it has none, checks that creating one is the
/// typed `EOPNOTSUPP` and changes nothing.
fn has_raw<D: rocenic_host_driver::device::Device>(ctx: &Context<D>) -> bool {
    if ctx.query_device().raw_packet {
        assert!(ctx.device_info().raw);
        return true;
    }
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(4).unwrap();
    let before = ctx.cycle();
    let e = pd
        .create_qp(&cq, &QpInitAttr::new(QpType::RawPacket))
        .err()
        .expect("no raw packet QPs: refused");
    assert!(matches!(e, Error::Unsupported(Feature::RawPacket)), "{e:?}");
    assert_eq!(e.errno(), errno::EOPNOTSUPP);
    assert_eq!(ctx.cycle(), before, "refused before the device");
    false
}

/// One TSO send of the test: its flow, MSS and payload.
struct Send {
    flow: TcpFlow,
    mss: usize,
    payload: Vec<u8>,
}

impl Send {
    fn segments(&self) -> usize {
        self.payload.len().div_ceil(self.mss).max(1)
    }

    /// Its segments, built by [`TcpFlow::segment`], as the wire carries them.
    fn expected(&self) -> Vec<Vec<u8>> {
        let n = self.segments();
        (0..n)
            .map(|i| {
                let piece = &self.payload[(i * self.mss).min(self.payload.len())
                    ..((i + 1) * self.mss).min(self.payload.len())];
                let seq = self.flow.seq.wrapping_add((i * self.mss) as u32);
                padded(&self.flow.segment(i, n, seq, piece))
            })
            .collect()
    }
}

/// Whether the device has TSO on raw QPs; when it has raw QPs but not their TSO (the full core),
/// checks that a raw QP's TSO request is the typed `EOPNOTSUPP`, refused before the device.
fn has_tso<D: rocenic_host_driver::device::Device>(ctx: &Context<D>) -> bool {
    if ctx.query_device().tso.is_some_and(|t| t.raw_packet) {
        return true;
    }
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(4).unwrap();
    let mut qp = raw_qp(&pd, &cq, 0);
    let before = ctx.cycle();
    let header = [0u8; 54];
    let tso = SendOp::Tso {
        mss: 1000,
        header: &header,
    };
    let e = qp
        .post_send(&SendWr::new(1, tso, Data::Inline(&[1, 2, 3])))
        .unwrap_err();
    assert!(matches!(e, Error::Unsupported(Feature::Tso)), "{e:?}");
    assert_eq!(e.errno(), errno::EOPNOTSUPP);
    assert_eq!(ctx.cycle(), before, "refused before the device");
    false
}

fn raw_tso_lands_whole<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("raw_tso_lands_whole");
    let (a, b) = open(backend);
    if !has_raw(&a) || !has_tso(&a) {
        return;
    }
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(256).unwrap());
    let src = a.alloc_buffer(256 * 1024).unwrap();
    let dst = b.alloc_buffer(256 * SLOT).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = raw_qp(&pda, &cqa, 0);
    let mut qb = raw_qp(&pdb, &cqb, 256);
    let _flow = qb.create_flow(&tcp_flow()).unwrap();
    post_slots(&mut qb, &mrb, 256, SLOT as u32, 0);

    // Every link and IP form; sequence numbers and identifications about to wrap; an empty
    // payload (one segment of headers), a payload of exactly two MSS, a short last segment.
    let mut sends = Vec::new();
    for (k, (vlan, v6)) in [
        (None, false),
        (Some(100), true),
        (Some(7), false),
        (None, true),
    ]
    .into_iter()
    .enumerate()
    {
        let flow = TcpFlow {
            vlan,
            v6,
            dst_port: PORT,
            seq: u32::MAX - r.gen_range(0..20_000),
            ident: u16::MAX - r.gen_range(0..8),
        };
        let mss = r.gen_range(536..=1460usize);
        let len = match k {
            0 => 0,
            1 => 2 * mss,
            _ => r.gen_range(1..=24_000usize),
        };
        let mut payload = vec![0u8; len];
        r.fill_bytes(&mut payload);
        sends.push(Send { flow, mss, payload });
    }
    let total: usize = sends.iter().map(Send::segments).sum();
    assert!(total <= 256, "{total} segments fit b's queue");

    let mut at = 0u64;
    for (i, s) in sends.iter().enumerate() {
        // The payload gathered from up to three entries cut at random places.
        src.write(at, &s.payload).unwrap();
        let len = s.payload.len() as u64;
        let (c1, c2) = if len > 2 {
            let c1 = r.gen_range(1..len - 1);
            (c1, r.gen_range(c1 + 1..len))
        } else {
            (len, len)
        };
        let sgl: Vec<_> = [(0, c1), (c1, c2), (c2, len)]
            .into_iter()
            .filter(|(x, y)| y > x)
            .map(|(x, y)| mra.sge(at + x, (y - x) as u32).unwrap())
            .collect();
        let header = s.flow.template();
        let op = SendOp::Tso {
            mss: s.mss as u16,
            header: &header,
        };
        qa.post_send(&SendWr::new(i as u64, op, Data::Sgl(&sgl)).signaled())
            .unwrap();
        at += len.next_multiple_of(4096).max(4096);
    }

    // One completion per send, with the payload's length.
    let sent = wait(&cqa, sends.len(), &[&a, &b]);
    for (i, (c, s)) in sent.iter().zip(&sends).enumerate() {
        assert_eq!(c.status(), WcStatus::Success, "send {i}");
        assert_eq!(c.wr_id(), i as u64);
        assert_eq!(c.opcode(), Some(WcOpcode::Tso));
        assert_eq!(c.byte_len() as usize, s.payload.len(), "send {i}");
    }
    // The wire: every segment as built by hand, and as the model's segmenter writes it; read
    // once b has them all (a send's completion can come before its last frame has left the
    // core's MAC under back-pressure).
    let expected: Vec<Vec<u8>> = sends.iter().flat_map(Send::expected).collect();
    let got = wait(&cqb, total, &[&a, &b]);
    let wire = backend.sent_by_a();
    assert_eq!(wire.len(), total);
    let mut k = 0;
    for (j, s) in sends.iter().enumerate() {
        let header = s.flow.template();
        let seg = Segmenter::new(
            LinkType::Ethernet,
            &header,
            &s.payload,
            s.mss,
            Limits::default(),
        )
        .unwrap();
        assert_eq!(seg.segment_count(), s.segments());
        for i in 0..s.segments() {
            let mut model = vec![0u8; 4096];
            let n = seg.write_segment(i, &mut model).unwrap();
            let f = &wire[k];
            assert_eq!(
                f, &expected[k],
                "send {j} segment {i}: the frame built by hand"
            );
            assert_eq!(
                f,
                &padded(&model[..n]),
                "send {j} segment {i}: model::tso's"
            );
            let v = verify_segment(LinkType::Ethernet, f).unwrap();
            assert_eq!(
                v.seq,
                s.flow.seq.wrapping_add((i * s.mss) as u32),
                "send {j} segment {i}"
            );
            assert_eq!(
                v.ipv4_ident,
                (!s.flow.v6).then(|| s.flow.ident.wrapping_add(i as u16))
            );
            let last = i + 1 == s.segments();
            assert_eq!(v.flags & TcpFlags::CWR.bits() as u8 != 0, i == 0);
            assert_eq!(v.flags & TcpFlags::FIN.bits() as u8 != 0, last);
            assert!(v.payload.len() <= s.mss);
            k += 1;
        }
    }

    // Each lands whole in b's raw queue, in order, checksums good, unhashed (a flow's queue).
    for (i, (c, f)) in got.iter().zip(&expected).enumerate() {
        let what = format!("receive {i}");
        assert_eq!(c.status(), WcStatus::Success, "{what}");
        assert_eq!(c.wr_id(), i as u64, "{what}: in order");
        assert_eq!(c.opcode(), Some(WcOpcode::Recv), "{what}");
        assert_eq!(c.qp_num(), qb.qp_num(), "{what}");
        assert_eq!(c.wq_num(), qb.recv_wq_num(), "{what}");
        assert_eq!(c.byte_len() as usize, f.len(), "{what}");
        assert!(c.ip_csum_ok() && !c.has_grh(), "{what}");
        assert_eq!(c.rss_hash(), None, "{what}");
        let mut landed = vec![0u8; f.len()];
        dst.read(i as u64 * SLOT, &mut landed).unwrap();
        assert_eq!(&landed, f, "{what}");
    }
    quiet(&cqb, 64, &[&a, &b]);
}

fn raw_send_lands_whole<B: Backend>(backend: &mut B) {
    let (_, mut r) = seeded("raw_send_lands_whole");
    let (a, b) = open(backend);
    if !has_raw(&a) {
        return;
    }
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    // b's work queue 0 is not raw: frames no rule steers go there (the pipeline's default)
    // and are dropped, so only a flow brings a raw frame to b's raw QP.
    let ud = ud_qp(&pdb, &cqb, 4, 1, 0x1111);
    let src = a.alloc_buffer(64 * 1024).unwrap();
    let dst = b.alloc_buffer(16 * 8192).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = raw_qp(&pda, &cqa, 0);
    let mut qb = raw_qp(&pdb, &cqb, 16);
    assert_ne!(qb.recv_wq_num(), Some(0));
    assert_eq!(ud.recv_wq_num(), Some(0));
    post_slots(&mut qb, &mrb, 16, 8192, 0);
    let tcp = qb.create_flow(&tcp_flow()).unwrap();
    let w = qb.recv_wq_num().unwrap();
    let other = qb.create_flow(&ethertype_flow(FlowAction::Wq(w))).unwrap();
    assert_ne!(tcp.rule(), other.rule());

    // A TCP frame of 4,218 bytes (the port's largest) from three gather entries, one with a
    // bad TCP checksum, and an inline frame of an Ethernet header and five bytes.
    let flow = TcpFlow {
        vlan: Some(5),
        v6: true,
        dst_port: PORT,
        seq: r.gen(),
        ident: 0,
    };
    let mut big = vec![0u8; 4218 - 18 - 40 - 32];
    r.fill_bytes(&mut big);
    let good = flow.frame(flow.seq, 0, TcpFlags::ACK, &big);
    assert_eq!(good.len(), 4218);
    let mut bad = flow.frame(flow.seq, 0, TcpFlags::ACK, &big[..100]);
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let mut tiny = nic(2).mac.0.to_vec();
    tiny.extend(nic(1).mac.0);
    tiny.extend(EXPERIMENTAL.to_be_bytes());
    tiny.extend([1, 2, 3, 4, 5]);
    src.write(0, &good).unwrap();
    src.write(0x2000, &bad).unwrap();
    let sgl = [
        mra.sge(0, 1000).unwrap(),
        mra.sge(1000, 3000).unwrap(),
        mra.sge(4000, 218).unwrap(),
    ];
    let bad_sgl = [mra.sge(0x2000, bad.len() as u32).unwrap()];
    qa.post_send_list(&[
        SendWr::new(1, SendOp::Send, Data::Sgl(&sgl)).signaled(),
        SendWr::new(2, SendOp::Send, Data::Sgl(&bad_sgl)).signaled(),
        SendWr::new(3, SendOp::Send, Data::Inline(&tiny)).signaled(),
    ])
    .unwrap();
    let sent = wait(&cqa, 3, &[&a, &b]);
    let lens: Vec<_> = sent.iter().map(|c| (c.status(), c.byte_len())).collect();
    let ok = WcStatus::Success;
    assert_eq!(
        lens,
        [(ok, 4218), (ok, bad.len() as u32), (ok, tiny.len() as u32)]
    );
    // b's receives first: the wire is complete only then (see raw_tso_lands_whole).
    let got = wait(&cqb, 3, &[&a, &b]);
    assert_eq!(
        backend.sent_by_a(),
        [good.clone(), bad.clone(), padded(&tiny)],
        "the frames as given, the short one padded"
    );
    for (i, (c, f, csum)) in [(&good, true), (&bad, false), (&padded(&tiny), false)]
        .into_iter()
        .enumerate()
        .map(|(i, (f, ok))| (i, (&got[i], f.clone(), ok)))
    {
        assert_eq!(c.status(), WcStatus::Success, "frame {i}");
        assert_eq!(c.byte_len() as usize, f.len(), "frame {i}");
        assert_eq!(c.ip_csum_ok(), csum, "frame {i}: the checksum flag");
        let mut landed = vec![0u8; f.len()];
        dst.read(i as u64 * 8192, &mut landed).unwrap();
        assert_eq!(landed, f, "frame {i}");
    }
    // Without its flow, the experimental frame goes where no rule sends it: queue 0, which is
    // not raw, so it is dropped and completes nothing.
    drop(other);
    qa.post_send(&SendWr::new(4, SendOp::Send, Data::Inline(&tiny)).signaled())
        .unwrap();
    assert_eq!(wait(&cqa, 1, &[&a, &b])[0].status(), WcStatus::Success);
    quiet(&cqb, 64, &[&a, &b]);
    assert_eq!(qb.state(), QpState::Rts);
}

fn raw_refusals<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    if !has_raw(&a) {
        return;
    }
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let src = a.alloc_buffer(64 * 1024).unwrap();
    let dst = b.alloc_buffer(16 * 8192).unwrap();
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, AccessFlags::LOCAL_WRITE).unwrap();
    let mut qa = raw_qp(&pda, &cqa, 0);
    let mut qb = raw_qp(&pdb, &cqb, 16);
    let _flow = qb.create_flow(&tcp_flow()).unwrap();
    let check = |e: Error, want: i32, what: &str| assert_eq!(e.errno(), want, "{what}: {e}");

    // Before the device: what a raw QP cannot send, a destination, TSO on RC, flows of a UD
    // QP or to another queue, an RTR with a peer.
    let flow = TcpFlow {
        vlan: None,
        v6: false,
        dst_port: PORT,
        seq: 1,
        ident: 1,
    };
    let header = flow.template();
    let sge = [mra.sge(0, 2000).unwrap()];
    let ah = pda.create_ah(&ah_to(2, false)).unwrap();
    let ud_dest = UdDest {
        ah: &ah,
        remote_qpn: 0x20,
        remote_qkey: 0,
    };
    let raddr = RemoteAddr {
        addr: 0x1000,
        rkey: 1,
    };
    let mut rc = pda.create_qp(&cqa, &QpInitAttr::new(QpType::Rc)).unwrap();
    rocenic_tests::connect(&mut rc, 0x20, 2);
    let ud = ud_qp(&pda, &cqa, 2, 1, 1);
    let mut fresh = pda
        .create_qp(&cqa, &QpInitAttr::new(QpType::RawPacket))
        .unwrap();
    fresh.modify(QpAttr::Init(Default::default())).unwrap();
    let (before_a, before_b) = (a.cycle(), b.cycle());
    for (wr, what) in [
        (
            SendWr::new(1, SendOp::SendWithImm(1), Data::Sgl(&sge)),
            "SEND with immediate",
        ),
        (
            SendWr::new(1, SendOp::RdmaWrite(raddr), Data::Sgl(&sge)),
            "RDMA WRITE",
        ),
        (
            SendWr::new(1, SendOp::Send, Data::Sgl(&sge)).to(ud_dest),
            "a UD destination",
        ),
    ] {
        let e = qa.post_send(&wr).unwrap_err();
        assert!(matches!(e, Error::Invalid(_)), "{what}: {e:?}");
        check(e, errno::EINVAL, what);
    }
    let tso = SendOp::Tso {
        mss: 1000,
        header: &header,
    };
    let e = rc
        .post_send(&SendWr::new(1, tso, Data::Sgl(&sge)))
        .unwrap_err();
    // Without TSO the device's support is checked first (the full core has it, for UD QPs).
    let tso = a.query_device().tso;
    if tso.is_some() {
        assert!(matches!(e, Error::Invalid(Invalid::Opcode(_))), "{e:?}");
    } else {
        assert!(matches!(e, Error::Unsupported(Feature::Tso)), "{e:?}");
    }
    check(
        ud.create_flow(&tcp_flow()).err().unwrap(),
        errno::EINVAL,
        "a flow on a UD QP",
    );
    check(
        qa.create_flow(&tcp_flow()).err().unwrap(),
        errno::EINVAL,
        "a flow on a raw QP without a receive queue",
    );
    let elsewhere = qb.recv_wq_num().unwrap() + 1;
    for action in [FlowAction::Rss, FlowAction::Wq(elsewhere)] {
        check(
            qb.create_flow(&ethertype_flow(action)).err().unwrap(),
            errno::EINVAL,
            "a raw QP's flow elsewhere",
        );
    }
    let peer = RtrAttr::rc(
        PathMtu::Mtu1024,
        0x20,
        Psn::new(0).unwrap(),
        ah_to(2, false),
    );
    check(
        fresh.modify(QpAttr::Rtr(peer)).unwrap_err(),
        errno::EINVAL,
        "a raw QP's RTR with a peer",
    );
    assert_eq!(
        (a.cycle(), b.cycle()),
        (before_a, before_b),
        "refused before the device"
    );
    assert!(backend.sent_by_a().is_empty());

    // By the sender's engine: each bad request completes with its status, the QP goes to ERR,
    // the good request behind it is flushed, nothing reaches the wire; RESET and up again.
    let mut udp = header.clone();
    udp[23] = 17;
    let tiny = [0u8; 13];
    let sge_big = [mra.sge(0, 9000).unwrap()];
    let cases: [(SendOp, Data, WcStatus, &str); 4] = [
        (
            SendOp::Tso {
                mss: 0,
                header: &header,
            },
            Data::Sgl(&sge),
            WcStatus::LocQpOpErr,
            "MSS 0",
        ),
        (
            SendOp::Tso {
                mss: 1000,
                header: &udp,
            },
            Data::Sgl(&sge),
            WcStatus::LocQpOpErr,
            "a template that is not TCP",
        ),
        (
            SendOp::Tso {
                mss: (4218 - header.len() + 1) as u16,
                header: &header,
            },
            Data::Sgl(&sge_big),
            WcStatus::LocLenErr,
            "segments one byte over the port's largest frame",
        ),
        (
            SendOp::Send,
            Data::Inline(&tiny),
            WcStatus::LocLenErr,
            "a frame shorter than an Ethernet header",
        ),
    ];
    // Without raw QPs' TSO only the SEND is the engine's to refuse (has_tso checks the rest).
    let raw_tso = tso.is_some_and(|t| t.raw_packet);
    let cases = cases
        .into_iter()
        .filter(|(op, ..)| raw_tso || !matches!(op, SendOp::Tso { .. }));
    for (op, data, status, what) in cases {
        let good = SendWr::new(2, SendOp::Send, Data::Sgl(&sge)).signaled();
        qa.post_send_list(&[SendWr::new(1, op, data), good])
            .unwrap();
        let c = wait(&cqa, 2, &[&a, &b]);
        assert_eq!(
            [c[0].status(), c[1].status()],
            [status, WcStatus::WrFlushErr],
            "{what}"
        );
        assert_eq!(qa.state(), QpState::Err, "{what}");
        assert!(backend.sent_by_a().is_empty(), "{what}: nothing sent");
        qa.modify(QpAttr::Reset).unwrap();
        let up = RtsAttr::new(Psn::new(0).unwrap());
        qa.bring_up(Default::default(), RtrAttr::raw(), up).unwrap();
    }

    // By the receiver: a buffer shorter than the frame fails that receive and moves the raw
    // queue to ERR alone (the QP stays in RTS); the receive behind it is flushed.
    for (i, len) in [(0u64, 64u32), (1, 8192)] {
        let sgl = [mrb.sge(i * 8192, len).unwrap()];
        qb.post_recv(&RecvWr {
            wr_id: i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let frame = flow.frame(5, 5, TcpFlags::ACK, &[7u8; 500]);
    src.write(0x8000, &frame).unwrap();
    let sgl = [mra.sge(0x8000, frame.len() as u32).unwrap()];
    qa.post_send(&SendWr::new(9, SendOp::Send, Data::Sgl(&sgl)).signaled())
        .unwrap();
    assert_eq!(wait(&cqa, 1, &[&a, &b])[0].status(), WcStatus::Success);
    let got = wait(&cqb, 2, &[&a, &b]);
    assert_eq!(
        got.iter()
            .map(|c| (c.wr_id(), c.status()))
            .collect::<Vec<_>>(),
        [(0, WcStatus::LocLenErr), (1, WcStatus::WrFlushErr)]
    );
    assert_eq!(qb.state(), QpState::Rts, "a raw queue fails alone");
    let mut frames = backend.sent_by_a();
    assert_eq!(frames.pop(), Some(frame));
}

/// A raw QP's own queue follows the QP into ERR, as verbs flushes a QP's receive queue: moved
/// there by software, and by a request that failed (once its completion is polled: the
/// receive path holds no receive context for a raw QP, so the driver moves the queue).
fn raw_err_flushes_its_queue<B: Backend>(backend: &mut B) {
    let (a, b) = open(backend);
    if !has_raw(&a) {
        return;
    }
    let pd = a.alloc_pd().unwrap();
    let cq = a.create_cq(16).unwrap();
    let buf = a.alloc_buffer(8 * 256).unwrap();
    let mr = pd.reg_mr(&buf, AccessFlags::LOCAL_WRITE).unwrap();
    let recv_ids = |c: &[rocenic_host_driver::verbs::Completion]| -> Vec<(u64, WcStatus)> {
        c.iter().map(|c| (c.wr_id(), c.status())).collect()
    };

    // By software: RTS to ERR flushes the three posted receives, in order.
    let mut q = raw_qp(&pd, &cq, 4);
    post_slots(&mut q, &mr, 3, 256, 10);
    quiet(&cq, 64, &[&a, &b]);
    q.modify(QpAttr::Err).unwrap();
    assert_eq!(
        recv_ids(&wait(&cq, 3, &[&a, &b])),
        [10, 11, 12].map(|i| (i, WcStatus::WrFlushErr))
    );
    drop(q);

    // By a failed request: an Ethernet header's frame from a region it lies outside of.
    let mut q = raw_qp(&pd, &cq, 4);
    post_slots(&mut q, &mr, 2, 256, 20);
    let outside = rocenic_host_driver::verbs::Sge {
        addr: mr.sge(0, 1).unwrap().addr + 8 * 256,
        length: 64,
        lkey: mr.lkey(),
    };
    q.post_send(&SendWr::new(7, SendOp::Send, Data::Sgl(&[outside])).signaled())
        .unwrap();
    let got = wait(&cq, 1, &[&a, &b]);
    assert_eq!(recv_ids(&got), [(7, WcStatus::LocProtErr)]);
    assert_eq!(q.state(), QpState::Err);
    assert_eq!(
        recv_ids(&wait(&cq, 2, &[&a, &b])),
        [(20, WcStatus::WrFlushErr), (21, WcStatus::WrFlushErr)]
    );
    assert!(backend.sent_by_a().is_empty(), "nothing sent");
}

/// The model backend without raw packet QPs, as an engine without `CAPS.RAW`: `query_device` says
/// so, and creating one is `EOPNOTSUPP` before the device (the model's own copy of what every
/// generic test above checks on a backend without them).
#[test]
fn model_without_raw_refuses() {
    let dev = ModelDevice::new().without_raw();
    let ctx = Context::open(
        dev,
        &OpenAttr {
            nic: nic(1),
            ..OpenAttr::default()
        },
    )
    .unwrap();
    assert!(!ctx.query_device().raw_packet);
    assert!(!has_raw(&ctx));
    assert!(ctx.query_device().tso.is_some(), "TSO on UD QPs stays");
}
