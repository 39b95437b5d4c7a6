//! Every send opcode on RC (IPv4, IPv6 with a VLAN, CM entropy) and UD QPs (IPv4 and IPv6
//! destinations), gathered from registered memory or inline, through the driver: the
//! engine's frames and completions against the model's send engine run on the same WQE
//! bytes. Small send queues and a small completion ring make both wrap many times.

use crate::common::dest_qpn;
use crate::common::{
    adversarial, bytes, open, same_completion, seeded, wait_frames, Dev, Mirror, LIMIT,
};
use rand::Rng;
use rocenic_host_driver::verbs::{
    AccessFlags, AddressHandle, AhAttr, Completion, Context, Data, EntropySource, Gid, InitAttr,
    MemoryRegion, OpenAttr, PathMtu, Psn, QpInitAttr, QpType, QueuePair, RcPeer, RemoteAddr,
    RtrAttr, RtsAttr, SendOp, SendWr, Sge, UdDest,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_sim::stream::TestRng;
use std::collections::BTreeMap;

/// One QP of the run: its type, path MTU and where its frames go.
struct Spec {
    qp_type: QpType,
    mtu: PathMtu,
    /// RC: the peer QPN; UD: the one remote QPN it sends to. Unique: frames are told apart
    /// by it.
    dest: u32,
    ah: AhAttr,
    entropy: EntropySource,
}

fn specs() -> Vec<Spec> {
    let v4 = AhAttr::new(
        Gid::from_ipv4(Ipv4Address::new(192, 168, 1, 2)),
        EthernetAddress([2, 0, 0, 0, 0, 2]),
    );
    let v6 = AhAttr {
        vlan: Some(7),
        sl: 5,
        traffic_class: 0x48,
        hop_limit: 9,
        flow_label: 0x12345,
        ..AhAttr::new(
            Gid::from_ipv6(Ipv6Address([
                0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
            ])),
            EthernetAddress([2, 0, 0, 0, 0, 3]),
        )
    };
    let rc = |mtu, dest, ah, entropy| Spec {
        qp_type: QpType::Rc,
        mtu,
        dest,
        ah,
        entropy,
    };
    let ud = |mtu, dest, ah| Spec {
        qp_type: QpType::Ud,
        mtu,
        dest,
        ah,
        entropy: EntropySource::Qpn,
    };
    let cm = EntropySource::Cm {
        src_port: 0xC001,
        dst_port: 4791,
    };
    vec![
        rc(PathMtu::Mtu256, 0x900, v4, EntropySource::Qpn),
        rc(PathMtu::Mtu1024, 0x901, v6, EntropySource::Qpn),
        rc(
            PathMtu::Mtu512,
            0x902,
            AhAttr {
                vlan: None,
                flow_label: 0,
                ..v6
            },
            cm,
        ),
        ud(PathMtu::Mtu1024, 0x700, v4),
        ud(PathMtu::Mtu4096, 0x701, v6),
    ]
}

/// A work request of the run, owning what the driver's request borrows.
struct Req {
    wr_id: u64,
    op: SendOp<'static>,
    sges: Vec<Sge>,
    inline: Option<Vec<u8>>,
    signaled: bool,
    solicited: bool,
    qkey: u32,
}

impl Req {
    fn wr<'a>(&'a self, ud: Option<(&'a AddressHandle<'a>, u32)>) -> SendWr<'a> {
        let data = match &self.inline {
            Some(b) => Data::Inline(b),
            None => Data::Sgl(&self.sges),
        };
        let mut wr = SendWr::new(self.wr_id, self.op, data);
        if self.signaled {
            wr = wr.signaled();
        }
        if self.solicited {
            wr = wr.solicited();
        }
        if let Some((ah, remote_qpn)) = ud {
            wr = wr.to(UdDest {
                ah,
                remote_qpn,
                remote_qkey: self.qkey,
            });
        }
        wr
    }
}

/// A random valid request for a QP of `spec` with regions `mrs` (of its PD): a message that
/// fits UD's MTU, or spans several packets on RC.
fn random_req(r: &mut TestRng, spec: &Spec, mrs: &[&MemoryRegion<'_, Dev>], wr_id: u64) -> Req {
    let ud = spec.qp_type == QpType::Ud;
    let imm = r.gen();
    let raddr = RemoteAddr {
        addr: r.gen(),
        rkey: r.gen(),
    };
    let op = match (ud, r.gen_range(0..4)) {
        (true, 0 | 1) | (false, 0) => SendOp::Send,
        (true, _) | (false, 1) => SendOp::SendWithImm(imm),
        (false, 2) => SendOp::RdmaWrite(raddr),
        (false, _) => SendOp::RdmaWriteWithImm(raddr, imm),
    };
    let max = if ud { spec.mtu.bytes() as usize } else { 3000 };
    let (sges, inline) = if r.gen_bool(0.25) {
        let n = r.gen_range(0..=max.min(128));
        (Vec::new(), Some(bytes(r, n)))
    } else {
        let n = r.gen_range(0..=4);
        let each = max / n.max(1);
        let sges = (0..n)
            .map(|_| {
                let mr = mrs[r.gen_range(0..mrs.len())];
                let len = r.gen_range(1..=each.max(1)) as u32;
                let off = r.gen_range(0..=mr.len() - u64::from(len));
                mr.sge(off, len).unwrap()
            })
            .collect();
        (sges, None)
    };
    Req {
        wr_id,
        op,
        sges,
        inline,
        signaled: r.gen_bool(0.7),
        solicited: r.gen_bool(0.5),
        qkey: if r.gen_bool(0.5) {
            0x8000_0000
        } else {
            r.gen()
        },
    }
}

/// The bytes a request sends: its inline bytes, or what its gather list names in `content`
/// (the buffer's bytes, at `base`).
fn message(q: &Req, content: &[u8], base: u64) -> Vec<u8> {
    match &q.inline {
        Some(b) => b.clone(),
        None => q
            .sges
            .iter()
            .flat_map(|s| {
                let at = (s.addr - base) as usize;
                content[at..at + s.length as usize].iter().copied()
            })
            .collect(),
    }
}

/// Whether a BTH opcode ends a message.
fn ends_message(opcode: u8) -> bool {
    use rocenic_model::wire::ib::opcode::*;
    matches!(
        opcode,
        RC_SEND_LAST
            | RC_SEND_LAST_WITH_IMM
            | RC_SEND_ONLY
            | RC_SEND_ONLY_WITH_IMM
            | RC_RDMA_WRITE_LAST
            | RC_RDMA_WRITE_LAST_WITH_IMM
            | RC_RDMA_WRITE_ONLY
            | RC_RDMA_WRITE_ONLY_WITH_IMM
            | UD_SEND_ONLY
            | UD_SEND_ONLY_WITH_IMM
    )
}

/// What the driver was asked for, read back from the frames with the receive side's parser
/// (ICRC checked): each request's message bytes, immediate, RDMA WRITE target and UD
/// Q_Key and source QP, and a completion for each signaled request with its own wr_id,
/// opcode, length and send-queue index. (The engine-against-model check cannot see a
/// request the driver encoded wrongly: both run the same WQE.)
fn check_intent(
    what: &str,
    qpn: u32,
    reqs: &[Req],
    frames: &[Vec<u8>],
    completions: &[Completion],
    content: &[u8],
    base: u64,
) {
    use rocenic_host_driver::verbs::WcOpcode;
    use rocenic_model::rx::{classify, Incoming};
    let mut packets = frames.iter().map(|f| match classify(f) {
        Ok(Incoming::Roce(p)) => p,
        other => panic!("{what}: not a good RoCEv2 frame: {other:?}"),
    });
    for (i, q) in reqs.iter().enumerate() {
        let mut pkts = Vec::new();
        loop {
            let p = packets
                .next()
                .unwrap_or_else(|| panic!("{what}: request {i} has no frames"));
            let end = ends_message(p.opcode);
            pkts.push(p);
            if end {
                break;
            }
        }
        let body: Vec<u8> = pkts
            .iter()
            .flat_map(|p| p.payload.iter().copied())
            .collect();
        let want = message(q, content, base);
        assert_eq!(body, want, "{what}: request {i}'s bytes");
        let (first, last) = (pkts[0], pkts[pkts.len() - 1]);
        let (imm, raddr) = match q.op {
            SendOp::SendWithImm(imm) => (Some(imm), None),
            SendOp::RdmaWrite(r) => (None, Some(r)),
            SendOp::RdmaWriteWithImm(r, imm) => (Some(imm), Some(r)),
            _ => (None, None),
        };
        assert_eq!(last.imm, imm, "{what}: request {i}'s immediate");
        assert_eq!(
            first.reth,
            raddr.map(|r| (r.addr, r.rkey, want.len() as u32)),
            "{what}: request {i}'s RETH"
        );
        if let Some((qkey, src)) = first.deth {
            let qkey_want = if q.qkey & 0x8000_0000 != 0 {
                0x5151
            } else {
                q.qkey
            };
            assert_eq!((qkey, src), (qkey_want, qpn), "{what}: request {i}'s DETH");
        }
    }
    assert!(
        packets.next().is_none(),
        "{what}: frames past the last request"
    );
    let signaled: Vec<(u32, &Req)> = (0u32..).zip(reqs).filter(|(_, q)| q.signaled).collect();
    assert_eq!(completions.len(), signaled.len(), "{what}: completions");
    for (c, &(index, q)) in completions.iter().zip(&signaled) {
        let opcode = match q.op {
            SendOp::Send => WcOpcode::Send,
            SendOp::SendWithImm(_) => WcOpcode::SendWithImm,
            SendOp::RdmaWrite(_) => WcOpcode::RdmaWrite,
            SendOp::RdmaWriteWithImm(..) => WcOpcode::RdmaWriteWithImm,
            SendOp::Tso { .. } => WcOpcode::Tso,
            SendOp::RdmaRead(_) => WcOpcode::RdmaRead,
        };
        let len = message(q, content, base).len() as u32;
        assert_eq!(
            (
                c.wr_id(),
                c.opcode(),
                c.byte_len(),
                c.wqe_index(),
                c.qp_num()
            ),
            (q.wr_id, Some(opcode), len, index, qpn),
            "{what}: completion of request {index}"
        );
    }
}

fn op_name(op: &SendOp<'_>) -> &'static str {
    match op {
        SendOp::Send => "send",
        SendOp::SendWithImm(_) => "send_imm",
        SendOp::RdmaWrite(_) => "write",
        SendOp::RdmaWriteWithImm(..) => "write_imm",
        SendOp::Tso { .. } => "tso",
        SendOp::RdmaRead(_) => "read",
    }
}

fn bring_up(qp: &mut QueuePair<'_, Dev>, spec: &Spec, psn: u32) {
    let rtr = match spec.qp_type {
        QpType::Rc => RtrAttr {
            path_mtu: spec.mtu,
            rq_psn: Psn::new(0).unwrap(),
            peer: Some(RcPeer {
                dest_qpn: spec.dest,
                ah: spec.ah,
                entropy: spec.entropy,
            }),
        },
        QpType::Ud => RtrAttr::ud(spec.mtu),
        QpType::RawPacket => unreachable!("the specs are RC and UD QPs"),
    };
    qp.bring_up(
        InitAttr::ud(0x5151),
        rtr,
        RtsAttr::new(Psn::new(psn).unwrap()),
    )
    .unwrap();
}

#[test]
fn every_opcode_on_rc_and_ud_matches_the_model() {
    let (seed, mut r) = seeded("verbs::sends::every_opcode_on_rc_and_ud_matches_the_model");
    let attr = OpenAttr {
        cq_log2: 3,
        ..OpenAttr::default()
    };
    let ctx: Context<Dev> = open(&adversarial(), seed, &attr);
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(0x6000).unwrap();
    let content = bytes(&mut r, 0x6000);
    buf.write(0, &content).unwrap();
    let mr_a = pd.reg_mr_range(&buf, 0, 0x4000, AccessFlags::NONE).unwrap();
    let mr_b = pd
        .reg_mr_range(&buf, 0x3000, 0x3000, AccessFlags::LOCAL_WRITE)
        .unwrap();
    let cq = ctx.create_cq(64).unwrap();
    let specs = specs();
    let init = QpInitAttr {
        max_send_wr: 8,
        max_send_sge: 4,
        max_inline_data: 128,
        ..QpInitAttr::new(QpType::Rc)
    };
    let mut qps: Vec<QueuePair<'_, Dev>> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut qp = pd
                .create_qp(
                    &cq,
                    &QpInitAttr {
                        qp_type: s.qp_type,
                        ..init
                    },
                )
                .unwrap();
            bring_up(&mut qp, s, 0xFF_FFF0 + i as u32);
            qp
        })
        .collect();
    let ahs: Vec<AddressHandle<'_>> = specs.iter().map(|s| pd.create_ah(&s.ah).unwrap()).collect();
    let mut mirror = Mirror::new(&ctx);
    mirror.mr(&mr_a);
    mirror.mr(&mr_b);
    for qp in &qps {
        mirror.qp(qp);
    }

    let mut got_frames: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    let mut got_cqes: BTreeMap<u32, Vec<Completion>> = BTreeMap::new();
    let mut posted = vec![0u32; qps.len()];
    let mut all: Vec<Vec<Req>> = specs.iter().map(|_| Vec::new()).collect();
    let mut wr_id = 0u64;
    let mut opcodes = BTreeMap::new();
    for round in 0..14 {
        let mut doorbells = Vec::new();
        for (k, qp) in qps.iter_mut().enumerate() {
            let room = qp.send_queue_entries() - qp.send_queue_used();
            let n = r.gen_range(0..=room);
            let reqs: Vec<Req> = (0..n)
                .map(|i| {
                    wr_id += 1;
                    let mut q = random_req(&mut r, &specs[k], &[&mr_a, &mr_b], wr_id);
                    // The last one signaled: the send queue frees up to a completion.
                    q.signaled |= i + 1 == n;
                    *opcodes
                        .entry((specs[k].qp_type == QpType::Ud, op_name(&q.op)))
                        .or_insert(0) += 1;
                    q
                })
                .collect();
            let ud = (specs[k].qp_type == QpType::Ud).then_some((&ahs[k], specs[k].dest));
            let wrs: Vec<SendWr<'_>> = reqs.iter().map(|q| q.wr(ud)).collect();
            if r.gen_bool(0.5) {
                qp.post_send_list(&wrs).unwrap();
            } else {
                for wr in &wrs {
                    qp.post_send(wr).unwrap();
                }
            }
            posted[k] += n;
            doorbells.push((qp.qp_num(), posted[k]));
            all[k].extend(reqs);
        }
        let before: usize = mirror.frames.values().map(Vec::len).sum();
        let new = mirror.run(&ctx, &doorbells);
        let want_cqes: usize = new.values().sum();
        let want_frames = mirror.frames.values().map(Vec::len).sum::<usize>() - before;
        let (c, done) = cq.poll_until(want_cqes, LIMIT);
        done.unwrap_or_else(|e| {
            panic!(
                "round {round} (seed {seed}): {e}: {} of {want_cqes} completions",
                c.len()
            )
        });
        for c in c {
            got_cqes.entry(c.qp_num()).or_default().push(c);
        }
        for f in wait_frames(&ctx, want_frames) {
            got_frames.entry(dest_qpn(&f)).or_default().push(f);
        }
        for (k, s) in specs.iter().enumerate() {
            let qpn = qps[k].qp_num();
            let what = format!("round {round} (seed {seed}), QP {qpn:#x} ({:?})", s.qp_type);
            let (g, w) = (got_frames.get(&s.dest), mirror.frames.get(&s.dest));
            assert_eq!(
                g.map_or(0, Vec::len),
                w.map_or(0, Vec::len),
                "{what}: frames"
            );
            for (n, (g, w)) in g
                .into_iter()
                .flatten()
                .zip(w.into_iter().flatten())
                .enumerate()
            {
                assert_eq!(g, w, "{what}: frame {n}");
            }
            let (g, w) = (got_cqes.get(&qpn), mirror.cqes.get(&qpn));
            assert_eq!(
                g.map_or(0, Vec::len),
                w.map_or(0, Vec::len),
                "{what}: completions"
            );
            for (n, (g, w)) in g
                .into_iter()
                .flatten()
                .zip(w.into_iter().flatten())
                .enumerate()
            {
                same_completion(g, w, &format!("{what}: completion {n}"));
                assert!(g.is_success(), "{what}: completion {n}");
            }
        }
    }
    for (k, s) in specs.iter().enumerate() {
        let qpn = qps[k].qp_num();
        check_intent(
            &format!("seed {seed}, QP {qpn:#x} ({:?})", s.qp_type),
            qpn,
            &all[k],
            &got_frames[&s.dest],
            &got_cqes[&qpn],
            &content,
            buf.addr(),
        );
    }
    let frames: usize = got_frames.values().map(Vec::len).sum();
    let completions: usize = got_cqes.values().map(Vec::len).sum();
    eprintln!(
        "seed {seed}: {} requests ({opcodes:?}), {frames} frames, {completions} completions",
        posted.iter().sum::<u32>()
    );
    // Every opcode each QP type takes, RC's four and UD's two.
    assert_eq!(opcodes.len(), 6, "{opcodes:?}");
    // Every queue went round its 8-entry ring more than twice, the completion ring (8
    // entries) many times.
    assert!(posted.iter().all(|&p| p > 16), "posted {posted:?}");
    assert!(completions > 8 * 8);
}
