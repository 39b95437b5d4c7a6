//! Two NICs of the reference joined by a wire: NIC A's TSO sends on a UD QP (IPoIB over RoCEv2)
//! reach NIC B's RSS QP, whose steering spreads them over four work queues by their outer flow
//! (the flow label the sender's address vector sets picks the UDP source port). Every segment
//! lands in the queue the RSS verdict names, whole (GRH area and segment), and the segments of
//! each send reassemble to its payload.

use rocenic_model::entropy::Profile;
use rocenic_model::nic::{NicModel, SteeringError};
use rocenic_model::qp::{Access, MemoryRegion, PathMtu, Psn, QpConfig, QpKind, Status};
use rocenic_model::rss::parse::classify;
use rocenic_model::rss::{distribute, Context, ContextView, Function, HashFields};
use rocenic_model::rx::{
    RecvCqe, RecvRing, RecvWqe, Target, WqConfig, WqState, CQE_BYTES, GRH_AREA,
};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_model::tso::{verify_segment, Limits};
use rocenic_model::wire::LinkType;
use rocenic_model::wqe::{self, *};

const DATA: u64 = 0x10000;
const RING: u64 = 0x100000;
const CQ: u64 = 0x200000;
const RBUF: u64 = 0x1000000;
const RBUF_LEN: usize = 0x100000;
const QKEY: u32 = 0x0B1B_0B1B;

fn addresses(n: u8) -> Nic {
    Nic::numbered(n)
}

fn ud() -> QpConfig {
    QpConfig {
        qp_type: QpKind::Ud,
        pd: 1,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0).unwrap(),
        dest_qpn: 0,
        q_key: QKEY,
        av: None,
    }
}

/// A NIC with one UD QP and TSO.
fn nic(n: u8, qpn: u32) -> (NicModel, HostMemory) {
    let mut send = SendEngine::new(addresses(n), Profile::Linux);
    send.tso = Some(Limits::default());
    for (lkey, base, len) in [(0x100, DATA, 0x10000u64), (0x200, RBUF, RBUF_LEN as u64)] {
        send.mrs
            .register(MemoryRegion {
                lkey,
                base,
                length: len,
                pd: 1,
                access: Access::LOCAL_WRITE,
            })
            .unwrap();
    }
    let q = qpn;
    send.qps.create(q, ud()).unwrap();
    send.qps.bring_up(q).unwrap();
    let mut queues = Queues::new(CompletionRing::new(Ring::new(8).unwrap(), 0).unwrap(), CQ);
    queues
        .attach(q, SendRing::new(Ring::new(6).unwrap(), 4, RING).unwrap(), 0)
        .unwrap();
    let mut mem = HostMemory::new();
    mem.add(DATA, 0x10000, Fill::Counter).unwrap();
    mem.add(RING, 0x10000, Fill::Zero).unwrap();
    mem.add(CQ, 0x10000, Fill::Zero).unwrap();
    mem.add(RBUF, RBUF_LEN, Fill::Zero).unwrap();
    mem.add(0x800000, 0x40000, Fill::Zero).unwrap(); // receive rings and completion rings
    (NicModel::new(send, queues), mem)
}

/// An IPoIB + IPv4 + TCP template.
fn template() -> Vec<u8> {
    let mut h = vec![0x08, 0x00, 0, 0];
    h.extend_from_slice(&[
        0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 9, 0, 1, 10, 9, 0, 2,
    ]);
    h.extend_from_slice(&[
        0x04, 0x00, 0x00, 0x50, 0, 0, 0x10, 0, 0, 0, 0, 0, 0x50, 0x18,
    ]);
    h.extend_from_slice(&[0x20, 0x00, 0, 0, 0, 0]);
    h
}

#[test]
fn tso_sends_spread_over_an_rss_qp() {
    let (mut a, mut amem) = nic(1, 0x13);
    let (mut b, mut bmem) = nic(2, 0x23);
    // B: the UD QP is an RSS QP over queues 0..4.
    for w in 0..4u16 {
        let base = 0x800000 + u64::from(w) * 0x10000;
        let cfg = WqConfig {
            qpn: 0x23,
            pd: 1,
            ring: RecvRing::new(Ring::new(6).unwrap(), 1, base).unwrap(),
            cq: CompletionRing::new(Ring::new(6).unwrap(), 0).unwrap(),
            cq_base: base + 0x8000,
            raw: false,
        };
        b.rx.create_wq(w, cfg).unwrap();
        b.rx.modify_wq(w, WqState::Ready).unwrap();
    }
    b.rx.attach(&b.send.qps, 0x23, Target::Rss, Psn::new(0).unwrap())
        .unwrap();
    let (func, fields) = (Function::Toeplitz, HashFields::DEFAULT);
    // The model's table-driven context, to hold the NIC's verdicts against.
    let ctx = Context::new(func, fields, &MICROSOFT_KEY).unwrap();
    b.steering
        .set_context(0, func, fields, &MICROSOFT_KEY, &[0, 1, 2, 3])
        .unwrap();
    assert_eq!(
        b.steering
            .set_context(2, func, fields, &MICROSOFT_KEY, &[0]),
        Err(SteeringError::Index(2)),
        "contexts are set in order"
    );
    assert_eq!(
        b.steering
            .set_context(1, func, fields, &MICROSOFT_KEY, &[0, 1, 2]),
        Err(SteeringError::TableLen(3))
    );
    assert_eq!(
        b.steering.set_context(1, func, fields, &[0; 3], &[0]),
        Err(SteeringError::Key(3))
    );
    // Post 64 receive WQEs on each queue, each room for the GRH area and one segment.
    let mut posted = [0u32; 4];
    let mut bufs = Vec::new();
    for w in 0..4u16 {
        for i in 0..64u32 {
            let addr = RBUF + (bufs.len() as u64) * 1088;
            let wqe = RecvWqe::new(
                u64::from(w) << 16 | u64::from(i),
                &[DataSegment {
                    addr,
                    length: 1088,
                    lkey: 0x200,
                }],
            )
            .unwrap();
            let mut slot = [0u8; 128];
            wqe.encode(&mut slot).unwrap();
            let at = b.rx.wq(w).unwrap().config.ring.addr(i);
            bmem.write(at, &slot).unwrap();
            bufs.push(addr);
            posted[usize::from(w)] += 1;
        }
        b.rx.post(w, 64).unwrap();
    }
    let header = template();
    let mss = 1024 - header.len() as u16;
    let mut per_wq = [0u32; 4];
    for k in 0..8u32 {
        // Each send its own flow label: its own UDP source port, so its own hash.
        let len = 2500 + k * 100;
        let sge = [DataSegment {
            addr: DATA + u64::from(k) * 0x100,
            length: len,
            lkey: 0x100,
        }];
        let wr = WorkRequest {
            opcode: Opcode::Tso,
            flags: Flags::SIGNALED,
            index: k,
            imm: 0,
            wr_id: u64::from(k),
            av: Some(wqe::AddressVector {
                dqpn: 0x23,
                qkey: QKEY,
                dgid: addresses(2).ipv6.0,
                dmac: [2, 0, 0, 0, 0, 2],
                vlan: None,
                flow_label: 0x1_0000 + k * 7919,
                tclass: 0,
                hop_limit: 64,
            }),
            raddr: None,
            payload: Payload::Gather(&sge),
            tso: Some(Tso {
                mss,
                header: &header,
            }),
        };
        let mut bytes = vec![0u8; MAX_WQE_BYTES];
        Wqe::encode(&wr, &mut bytes).unwrap();
        let slot = SendRing::new(Ring::new(6).unwrap(), 4, RING)
            .unwrap()
            .addr(k);
        amem.write(slot, &bytes).unwrap();
        a.queues.doorbell(0x13, k + 1).unwrap();
        let mut wire = Vec::new();
        let step = a
            .send_step(&mut amem, &mut |f: &[u8]| wire.push(f.to_vec()))
            .unwrap();
        assert!(matches!(step, Step::Ran { cqe: Some((_, c)), .. } if c.status == Status::Success));
        assert_eq!(wire.len(), len.div_ceil(u32::from(mss)) as usize);
        let mut payload = Vec::new();
        let mut queue = None;
        for f in &wire {
            let meta = b.steering.verdict(f);
            // The table-driven context computes the same verdict.
            let view = ContextView {
                context: &ctx,
                table: &[0, 1, 2, 3],
            };
            assert_eq!(
                distribute(&classify(LinkType::Ethernet, f), &[], &[view]),
                meta
            );
            // The table-driven context computes the same verdict.
            let again = distribute(
                &classify(LinkType::Ethernet, f),
                &[],
                &[ContextView {
                    context: &ctx,
                    table: &[0, 1, 2, 3],
                }],
            );
            assert_eq!(again, meta);
            let got = b.receive(&mut bmem, f).unwrap();
            let (i, c): (u32, RecvCqe) = got.completion.unwrap();
            let w = got.wq.unwrap();
            assert_eq!(
                w,
                [0, 1, 2, 3][(meta.hash & 3) as usize],
                "the table's queue"
            );
            assert_eq!(queue.replace(w).unwrap_or(w), w, "one flow, one queue");
            assert_eq!(i, per_wq[usize::from(w)]);
            per_wq[usize::from(w)] += 1;
            assert_eq!(
                (c.hash, c.src_qp, c.status),
                (meta.hash, 0x13, Status::Success)
            );
            let mut landed = vec![0u8; c.byte_len as usize];
            let buf = bufs[usize::from(w) * 64 + i as usize];
            bmem.read(buf, &mut landed).unwrap();
            let seg = verify_segment(LinkType::Ipoib, &landed[GRH_AREA..]).unwrap();
            payload.extend_from_slice(seg.payload);
            // The completion in B's memory is the one returned.
            let wq = b.rx.wq(w).unwrap();
            let mut e = [0u8; CQE_BYTES];
            bmem.read(wq.cqe_addr(i), &mut e).unwrap();
            assert_eq!(RecvCqe::decode(&e).unwrap(), c);
        }
        let mut want = vec![0u8; len as usize];
        amem.read(DATA + u64::from(k) * 0x100, &mut want).unwrap();
        assert_eq!(payload, want, "send {k} reassembles");
    }
    assert!(
        per_wq.iter().filter(|&&n| n > 0).count() >= 2,
        "eight flows over four queues: {per_wq:?}"
    );
    assert_eq!(
        b.rx.counts().accepted,
        per_wq.iter().map(|&n| u64::from(n)).sum::<u64>()
    );
}
