//! Two full cores (`rtl/top/nic_core.sv`) back to back on a `sim::link` wire, against the
//! model's pair of NICs (`model::nic` behind its registers, `ModelDevice` on a `Link`).
//!
//! The same seeded program runs through the host driver's verbs API (the firmware's register
//! sequences over each core's one AXI4-Lite port) on both pairs: b gets a UD QP with its own
//! receive queue, an RSS QP over four work queues (Toeplitz over IPv6 addresses and UDP ports)
//! and an RC QP connected to a's. a sends UD messages of random sizes over IPv4 and IPv6, with
//! and without immediate data, gathered or inline; UD messages over many flows (a flow label
//! each, so a UDP source port each) to the RSS QP; an RC SEND of several packets, a SEND with
//! immediate, an RDMA WRITE and a WRITE with immediate; and b answers with a SEND. Each phase
//! waits for its completions on both sides. Then every frame a sent, every completion either
//! side polled, all of both host memories (buffers, rings, completion rings) and the counters
//! (`FRAMES`, `WQES`, `ACCEPTED`, every `DISCARDS` word, every work queue's `CQ_PRODUCER`)
//! must be the model's.
//!
//! The cores run with an adversarial host (latency, reordering, back-pressure), random
//! back-pressure on transmit and random gaps on receive. `ROCENIC_SEED=N` replays a run.
//!
//! On a faulty wire (`a_faulty_wire_as_the_model`) both pairs' wires lose, corrupt and
//! duplicate the same frames (`model::link` draws each frame's fate from the seed, the
//! direction and its place): the receive phases then let the wire drain and take the
//! completions that came, and what the cores discarded (each reason's counter), delivered and
//! landed must still be what the model NICs did.

use rand::Rng;
use rocenic_host_driver::device::{Block, Device};
use rocenic_host_driver::model_device::{Link, ModelDevice, Side};
use rocenic_host_driver::verbs::{
    run_together, AccessFlags, AhAttr, Completion, CompletionQueue, Context, Data, Gid, HashFields,
    HashFunction, InitAttr, Nic, OpenAttr, PathMtu, ProtectionDomain, Psn, QpInitAttr, QpType,
    QueuePair, RecvWr, RemoteAddr, RtrAttr, RtsAttr, RxHashConf, SendOp, SendWr, UdDest, WorkQueue,
    WqInitAttr, WqState,
};
use rocenic_model::link::{Fate, Faults};
use rocenic_model::rc::{parse_ack, Reliable};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_model::wqe::HostMemory;
use rocenic_model::{rx, wqe};
use rocenic_sim::link::Config as LinkConfig;
use rocenic_sim::top::core::Load;
use rocenic_sim::top::device::{CoreDevice, CoreLink};
use std::collections::BTreeMap;
use std::time::Instant;

const QKEY: u32 = 0x1111_2222;
/// Cycles (model: turns) a phase may take before the run gives up.
const LIMIT: u64 = 400_000;
/// The same for a run expected to lose frames.
const LOSSY_LIMIT: u64 = 40_000;
/// Cycles (model: turns) a receive phase on a faulty wire lets pass before it takes what came:
/// far more than the last frame in flight needs.
const SETTLE: u64 = 20_000;

/// Completions by queue: (receive, work queue, QP).
type ByQueue = BTreeMap<(bool, Option<u32>, u32), Vec<Completion>>;

/// What a run leaves to compare.
#[derive(Debug)]
struct Record {
    /// Cycles (model: turns) a and b ran, and a's from posting the RSS batch to b's last
    /// completion of it; not compared.
    cycles: [u64; 3],
    /// Frames a sent, in order.
    wire: Vec<Vec<u8>>,
    /// Frames b sent, in order.
    wire_b: Vec<Vec<u8>>,
    /// Completions polled on a and on b, by queue (send or receive, work queue, QP), each
    /// queue's in order: a poll's order across queues depends on when each arrived.
    cqes: [ByQueue; 2],
    /// Host memory of a and b.
    memory: [HostMemory; 2],
    /// Counters of a and b: (register, word, value).
    counters: [Vec<(&'static str, u32, u32)>; 2],
}

fn nic(i: u8) -> Nic {
    Nic::numbered(i)
}

fn ah(i: u8, v6: bool, flow_label: u32) -> AhAttr {
    let n = nic(i);
    let gid = if v6 {
        Gid::from_ipv6(n.ipv6)
    } else {
        Gid::from_ipv4(n.ipv4)
    };
    AhAttr {
        flow_label,
        ..AhAttr::new(gid, n.mac)
    }
}

/// Polls `cq` until `n` completions came, both NICs running in between.
fn wait<D: Device>(
    cq: &CompletionQueue<'_, D>,
    n: usize,
    nics: [&Context<D>; 2],
    limit: u64,
    what: &str,
) -> Result<Vec<Completion>, String> {
    let mut got = Vec::new();
    let start = nics[0].cycle();
    while got.len() < n {
        got.extend(
            cq.poll(n - got.len())
                .map_err(|e| format!("{what}: poll: {e}"))?,
        );
        if got.len() >= n {
            break;
        }
        if nics[0].cycle() - start > limit {
            return Err(format!(
                "{what}: {} of {n} completions in {limit} cycles",
                got.len()
            ));
        }
        run_together(&nics, 16).map_err(|e| format!("{what}: {e}"))?;
    }
    Ok(got)
}

/// A receive phase's completions: on a clean wire, `n` of them; on a faulty one (`faulty`),
/// what came (at most `n`) once the wire has drained.
fn receives<D: Device>(
    cq: &CompletionQueue<'_, D>,
    n: usize,
    nics: [&Context<D>; 2],
    limit: u64,
    what: &str,
    faulty: bool,
) -> Result<Vec<Completion>, String> {
    if !faulty {
        return wait(cq, n, nics, limit, what);
    }
    run_together(&nics, SETTLE).map_err(|e| format!("{what}: {e}"))?;
    cq.poll(n).map_err(|e| format!("{what}: poll: {e}"))
}

/// A UD QP with `recv` receives of `sge` entries, in RTS.
fn ud<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
    recv: u32,
    sge: u32,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: recv,
        max_recv_sge: sge,
        max_inline_data: 256,
        ..QpInitAttr::new(QpType::Ud)
    };
    let mut q = pd.create_qp(cq, &attr).expect("a UD QP");
    q.bring_up(
        InitAttr::ud(QKEY),
        RtrAttr::ud(PathMtu::Mtu1024),
        RtsAttr::new(Psn::new(0).unwrap()),
    )
    .expect("UD to RTS");
    q
}

/// An RC QP of 4 receives of 2 entries, in RESET.
fn rc<'a, D: Device>(
    pd: &'a ProtectionDomain<'_, D>,
    cq: &'a CompletionQueue<'_, D>,
) -> QueuePair<'a, D> {
    let attr = QpInitAttr {
        max_recv_wr: 4,
        max_recv_sge: 2,
        ..QpInitAttr::new(QpType::Rc)
    };
    pd.create_qp(cq, &attr).expect("an RC QP")
}

/// Every word of the counters of one NIC.
fn counters<D: Device>(ctx: &Context<D>) -> Vec<(&'static str, u32, u32)> {
    let regs: [(Block, &[rocenic_model::regmap::Register], &[&str]); 2] = [
        (
            Block::Wqe,
            wqe::regs::MAP,
            &["WQES", "FRAMES", "CQ_PRODUCER"],
        ),
        (
            Block::Rx,
            rx::regs::MAP,
            &["ACCEPTED", "DISCARDS", "CQ_PRODUCER"],
        ),
    ];
    let mut out = Vec::new();
    ctx.with_device(|d| {
        for (block, map, names) in regs {
            for r in map.iter().filter(|r| names.contains(&r.name)) {
                for w in 0..r.words {
                    let v = d.read(block, r.offset + 4 * w).expect("a counter");
                    out.push((r.name, w, v));
                }
            }
        }
    });
    out
}

/// The program, on a pair `a`, `b`; `sent` reads what a side put on the wire. With
/// `responder`, both NICs answer RC requests with ACK and NAK frames ([`responder_settings`]).
fn program<D: Device>(
    a: D,
    b: D,
    seed: u64,
    limit: u64,
    sent: &dyn Fn(Side) -> Vec<Vec<u8>>,
    faulty: bool,
    responder: bool,
) -> Result<Record, String> {
    let mut r = rocenic_sim::stream::rng(seed);
    let attr = |i| OpenAttr {
        nic: nic(i),
        ..OpenAttr::default()
    };
    let a = Context::open(a, &attr(1)).map_err(|e| format!("a opens: {e}"))?;
    let b = Context::open(b, &attr(2)).map_err(|e| format!("b opens: {e}"))?;
    if responder {
        for (c, n) in [(&a, "a"), (&b, "b")] {
            c.set_responder(Some(responder_settings()))
                .map_err(|e| format!("{n}'s responder: {e}"))?;
        }
    }
    let both = [&a, &b];
    let (pda, pdb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let (cqa, cqb) = (a.create_cq(256).unwrap(), b.create_cq(512).unwrap());
    let src = a.alloc_buffer(64 * 1024).unwrap();
    let dst = b.alloc_buffer(128 * 1024).unwrap();
    let remote = AccessFlags::LOCAL_WRITE.union(AccessFlags::REMOTE_WRITE);
    let mra = pda.reg_mr(&src, AccessFlags::LOCAL_WRITE).unwrap();
    let mrb = pdb.reg_mr(&dst, remote).unwrap();
    let data: Vec<u8> = (0..64 * 1024).map(|_| r.gen()).collect();
    src.write(0, &data).unwrap();
    let (mut cqes_a, mut cqes_b) = (Vec::new(), Vec::new());

    // UD: a's QP, and b's with 16 receives of the GRH area and 1 KiB each.
    let mut qa = ud(&pda, &cqa, 0, 0);
    let mut qb = ud(&pdb, &cqb, 16, 2);
    for i in 0..16u64 {
        let sgl = [
            mrb.sge(i * 2048, 40).unwrap(),
            mrb.sge(i * 2048 + 40, 1024).unwrap(),
        ];
        qb.post_recv(&RecvWr {
            wr_id: 100 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let ahs: Vec<_> = (0..2)
        .map(|v6| pda.create_ah(&ah(2, v6 == 1, 0)).unwrap())
        .collect();
    let n_ud = r.gen_range(8..=16u64);
    for i in 0..n_ud {
        let len = r.gen_range(1..=1024usize);
        let off = r.gen_range(0..60 * 1024 - len) as u64;
        let v6 = r.gen_bool(0.5);
        let imm = r.gen_bool(0.3).then(|| r.gen::<u32>());
        let sge = [mra.sge(off, len as u32).unwrap()];
        let op = imm.map_or(SendOp::Send, SendOp::SendWithImm);
        let slice = &data[off as usize..off as usize + len];
        let payload = if len <= 256 && r.gen_bool(0.3) {
            Data::Inline(slice)
        } else {
            Data::Sgl(&sge)
        };
        let wr = SendWr::new(i, op, payload).signaled().to(UdDest {
            ah: &ahs[usize::from(v6)],
            remote_qpn: qb.qp_num(),
            remote_qkey: QKEY,
        });
        qa.post_send(&wr).unwrap();
    }
    cqes_a.extend(wait(&cqa, n_ud as usize, both, limit, "UD sends")?);
    cqes_b.extend(receives(
        &cqb,
        n_ud as usize,
        both,
        limit,
        "UD receives",
        faulty,
    )?);

    // RSS: four work queues of 64 receives of 128 bytes from 32 KiB, an RSS QP over them.
    let wq_attr = WqInitAttr {
        max_wr: 64,
        max_sge: 1,
    };
    let mut wqs: Vec<WorkQueue<'_, _>> = (0..4)
        .map(|_| b.create_wq(&pdb, &cqb, &wq_attr).unwrap())
        .collect();
    for (k, w) in wqs.iter_mut().enumerate() {
        w.modify(WqState::Ready).unwrap();
        for i in 0..64u64 {
            let n = k as u64 * 64 + i;
            let sgl = [mrb.sge(32 * 1024 + n * 128, 128).unwrap()];
            w.post_recv(&RecvWr {
                wr_id: 1000 + n,
                sgl: &sgl,
            })
            .unwrap();
        }
    }
    let refs: Vec<&WorkQueue<'_, _>> = wqs.iter().collect();
    let table = b.create_rwq_ind_table(&refs).unwrap();
    let hash = RxHashConf {
        function: HashFunction::Toeplitz,
        key: MICROSOFT_KEY.to_vec(),
        fields: HashFields::SRC_IPV6
            .union(HashFields::DST_IPV6)
            .union(HashFields::SRC_PORT_UDP)
            .union(HashFields::DST_PORT_UDP),
    };
    let rss = pdb.create_rss_qp(&table, &hash, QKEY).unwrap();
    let flows: Vec<_> = (0..48u32)
        .map(|f| {
            pda.create_ah(&ah(2, true, 1 + f * 40_009 % (1 << 20)))
                .unwrap()
        })
        .collect();
    let n_rss = 96;
    let rss_start = a.cycle();
    // In batches of 32, the send queue's depth.
    for batch in 0..n_rss / 32 {
        for n in 32 * batch..32 * (batch + 1) {
            let payload = (n as u32).to_le_bytes();
            let wr = SendWr::new(500 + n as u64, SendOp::Send, Data::Inline(&payload))
                .signaled()
                .to(UdDest {
                    ah: &flows[r.gen_range(0..flows.len())],
                    remote_qpn: rss.qp_num(),
                    remote_qkey: QKEY,
                });
            qa.post_send(&wr).unwrap();
        }
        cqes_a.extend(wait(&cqa, 32, both, limit, "RSS sends")?);
    }
    cqes_b.extend(receives(&cqb, n_rss, both, limit, "RSS receives", faulty)?);
    let rss_cycles = a.cycle() - rss_start;

    // RC: connected both ways, b's receives of 4 KiB from 64 KiB, WRITEs from 96 KiB.
    let mut ra = rc(&pda, &cqa);
    let mut rb = rc(&pdb, &cqb);
    let psn = Psn::new(0xFF_FFF0).unwrap();
    let (na, nb) = (ra.qp_num(), rb.qp_num());
    for (q, peer, other) in [(&mut ra, nb, 2), (&mut rb, na, 1)] {
        q.bring_up(
            InitAttr {
                access: remote,
                ..InitAttr::default()
            },
            RtrAttr::rc(PathMtu::Mtu1024, peer, psn, ah(other, false, 0)),
            RtsAttr::new(psn),
        )
        .map_err(|e| format!("RC to RTS: {e}"))?;
    }
    for i in 0..4u64 {
        let sgl = [mrb.sge(64 * 1024 + i * 4096, 4096).unwrap()];
        rb.post_recv(&RecvWr {
            wr_id: 2000 + i,
            sgl: &sgl,
        })
        .unwrap();
    }
    let at = |off: u64| RemoteAddr {
        addr: mrb.addr() + off,
        rkey: mrb.rkey(),
    };
    let lens: Vec<u32> = (0..4).map(|_| r.gen_range(1..=3500)).collect();
    let s: Vec<[_; 1]> = (0..4)
        .map(|i| [mra.sge(i * 8192, lens[i as usize]).unwrap()])
        .collect();
    let imm = [r.gen::<u32>(), r.gen::<u32>()];
    let wrs = [
        SendWr::new(1, SendOp::Send, Data::Sgl(&s[0])).signaled(),
        SendWr::new(2, SendOp::SendWithImm(imm[0]), Data::Sgl(&s[1])).signaled(),
        SendWr::new(3, SendOp::RdmaWrite(at(96 * 1024)), Data::Sgl(&s[2])).signaled(),
        SendWr::new(
            4,
            SendOp::RdmaWriteWithImm(at(112 * 1024), imm[1]),
            Data::Sgl(&s[3]),
        )
        .signaled(),
    ];
    ra.post_send_list(&wrs).unwrap();
    cqes_a.extend(wait(&cqa, 4, both, limit, "RC sends")?);
    cqes_b.extend(receives(&cqb, 3, both, limit, "RC receives", faulty)?);
    // And back: b to a.
    let sgl = [mra.sge(60 * 1024, 2048).unwrap()];
    ra.post_recv(&RecvWr {
        wr_id: 77,
        sgl: &sgl,
    })
    .unwrap();
    let sb = [mrb.sge(0, r.gen_range(1..=2048)).unwrap()];
    rb.post_send(&SendWr::new(5, SendOp::Send, Data::Sgl(&sb)).signaled())
        .unwrap();
    cqes_a.extend(receives(&cqa, 1, both, limit, "RC receive back", faulty)?);
    cqes_b.extend(wait(&cqb, 1, both, limit, "RC send back")?);
    // Let both settle (flush steps, last counters), then read what is left to compare.
    run_together(&both, 2000).map_err(|e| e.to_string())?;
    if faulty {
        // Duplicates beyond a phase's count, taken last.
        cqes_a.extend(cqa.poll(256).map_err(|e| e.to_string())?);
        cqes_b.extend(cqb.poll(512).map_err(|e| e.to_string())?);
    }

    let (wire, wire_b) = (sent(Side::A), sent(Side::B));
    let counters = [counters(&a), counters(&b)];
    let memory = [
        a.with_device(|d| d.memory().clone()),
        b.with_device(|d| d.memory().clone()),
    ];
    let by_queue = |cqes: Vec<Completion>| {
        let mut m: BTreeMap<_, Vec<_>> = BTreeMap::new();
        for c in cqes {
            m.entry((c.is_recv(), c.wq_num(), c.qp_num()))
                .or_default()
                .push(c);
        }
        m
    };
    Ok(Record {
        cycles: [a.cycle(), b.cycle(), rss_cycles],
        wire,
        wire_b,
        cqes: [by_queue(cqes_a), by_queue(cqes_b)],
        memory,
        counters,
    })
}

/// The model pair's record of the program.
fn model(seed: u64, responder: bool) -> Record {
    model_on(seed, Faults::NONE, responder).0
}

/// The model pair's record on a wire with `faults` (drawn as the cores' wire of `seed` draws
/// them), and what the faults did to a's frames.
fn model_on(seed: u64, faults: Faults, responder: bool) -> (Record, Vec<Fate>) {
    let (a, b, link) = Link::pair_with(faults, seed ^ LINK_SEED);
    let fates = link.clone();
    let sent = move |side: Side| {
        link.frames()
            .into_iter()
            .filter(|f| f.from == side)
            .map(|f| f.data)
            .collect()
    };
    let faulty = faults != Faults::NONE;
    let rec = program::<ModelDevice>(a, b, seed, LIMIT, &sent, faulty, responder)
        .expect("the model runs the program");
    (rec, fates.fates(Side::A))
}

/// What `CoreDevice::pair` gives its link of the pair's seed (`sim/src/top/device.rs`).
const LINK_SEED: u64 = 0x11AC;

/// The cores' record of the program, on a link configured as `cfg`.
fn cores(
    seed: u64,
    load: &Load,
    cfg: LinkConfig,
    limit: u64,
    responder: bool,
) -> Result<Record, String> {
    let faulty = cfg.faults() != Faults::NONE;
    let (a, b, link): (CoreDevice, CoreDevice, CoreLink) = CoreDevice::pair(load, cfg, seed);
    let l = link.clone();
    let sent = move |side: Side| l.sent(side);
    let t = Instant::now();
    let rec = program::<CoreDevice>(a, b, seed, limit, &sent, faulty, responder)?;
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} frames a to b, {} back; cycles a {}, b {}; 96 RSS sends posted to received in {} \
         cycles; {:.1} s ({:.0} cycles/s per core)",
        link.sent(Side::A).len(),
        link.sent(Side::B).len(),
        rec.cycles[0],
        rec.cycles[1],
        rec.cycles[2],
        secs,
        (rec.cycles[0] + rec.cycles[1]) as f64 / 2.0 / secs
    );
    Ok(rec)
}

/// The first difference of two records, named.
fn diff(got: &Record, want: &Record) -> Option<String> {
    if got.wire.len() != want.wire.len() {
        return Some(format!(
            "a sent {} frames, the model {}",
            got.wire.len(),
            want.wire.len()
        ));
    }
    if let Some(i) = (0..got.wire.len()).find(|&i| got.wire[i] != want.wire[i]) {
        return Some(format!("frame {i} a sent differs from the model's"));
    }
    if got.wire_b.len() != want.wire_b.len() {
        return Some(format!(
            "b sent {} frames, the model {}",
            got.wire_b.len(),
            want.wire_b.len()
        ));
    }
    if let Some(i) = (0..got.wire_b.len()).find(|&i| got.wire_b[i] != want.wire_b[i]) {
        return Some(format!("frame {i} b sent differs from the model's"));
    }
    for s in 0..2 {
        let side = ["a", "b"][s];
        for (q, w) in &want.cqes[s] {
            let g = got.cqes[s].get(q).map_or(&[][..], Vec::as_slice);
            if g != w.as_slice() {
                let i = (0..g.len().min(w.len())).find(|&i| g[i] != w[i]);
                return Some(format!(
                    "{side}'s completions of {q:?}: {} against {}, first difference at {i:?}: \
                     {:?} against {:?}",
                    g.len(),
                    w.len(),
                    i.map(|i| &g[i]),
                    i.map(|i| &w[i])
                ));
            }
        }
        if got.cqes[s].len() != want.cqes[s].len() {
            return Some(format!("{side}'s completions went to other queues"));
        }
        if got.counters[s] != want.counters[s] {
            let d: Vec<_> = got.counters[s]
                .iter()
                .zip(&want.counters[s])
                .filter(|(g, w)| g != w)
                .collect();
            return Some(format!("{side}'s counters (core, model): {d:?}"));
        }
        if got.memory[s] != want.memory[s] {
            return Some(format!(
                "{side}'s host memory: {}",
                memory_diff(&got.memory[s], &want.memory[s])
            ));
        }
    }
    None
}

/// Where two host memories differ: the regions, or the first bytes that do.
fn memory_diff(got: &HostMemory, want: &HostMemory) -> String {
    let g: Vec<_> = got.regions().collect();
    let w: Vec<_> = want.regions().collect();
    let shape = |v: &[(u64, &[u8])]| v.iter().map(|(a, b)| (*a, b.len())).collect::<Vec<_>>();
    if shape(&g) != shape(&w) {
        return format!(
            "regions {:x?} against the model's {:x?}",
            shape(&g),
            shape(&w)
        );
    }
    for ((base, gb), (_, wb)) in g.iter().zip(&w) {
        if let Some(i) = (0..gb.len()).find(|&i| gb[i] != wb[i]) {
            let n = (0..gb.len()).filter(|&i| gb[i] != wb[i]).count();
            let at = i & !31;
            let end = (at + 32).min(gb.len());
            return format!(
                "{n} bytes differ, the first at {:#x}: {:02x?} against the model's {:02x?}",
                base + i as u64,
                &gb[at..end],
                &wb[at..end]
            );
        }
    }
    "the same bytes".into()
}

fn check(test: &str, load: &Load, responder: bool) -> Record {
    let seed = rocenic_sim::stream::seed(test);
    let want = model(seed, responder);
    let link = LinkConfig {
        delay: 20,
        ..LinkConfig::default()
    };
    let got = cores(seed, load, link, LIMIT, responder)
        .unwrap_or_else(|e| panic!("{test}: the cores did not finish: {e}"));
    if let Some(d) = diff(&got, &want) {
        panic!("{test}: {d}");
    }
    let n = |s: usize| got.cqes[s].values().map(Vec::len).sum::<usize>();
    eprintln!(
        "{test}: {} frames a to b, {} completions on a, {} on b, as the model",
        got.wire.len(),
        n(0),
        n(1)
    );
    got
}

#[test]
fn back_to_back_as_the_model() {
    check("back_to_back_as_the_model", &Load::random(), false);
}

#[test]
fn back_to_back_ideal() {
    check("back_to_back_ideal", &Load::ideal(), false);
}

/// The responder's settings: an ACK at least every third packet, RNR timer code 4 (the
/// rest is the requester's, which neither NIC runs).
fn responder_settings() -> Reliable {
    Reliable {
        ack_every: 3,
        rnr_timer: 4,
        ..Reliable::default()
    }
}

/// Both cores' RC responders on (`CONTROL.RESPONDER`): b answers a's RC requests and a b's
/// SEND with ACK frames that the engines frame among their own, each byte for byte the model's
/// and in the model's place on the wire; a takes b's acknowledgements as unsupported frames
/// (its send side has no requester yet), as the model does.
#[test]
fn with_the_responder_as_the_model() {
    let test = "with_the_responder_as_the_model";
    let got = check(test, &Load::random(), true);
    let acks = |w: &[Vec<u8>]| w.iter().filter(|f| parse_ack(f).is_ok()).count();
    let (a, b) = (acks(&got.wire), acks(&got.wire_b));
    eprintln!("{test}: acknowledgements a sent {a}, b sent {b}");
    assert!(a > 0 && b > 0, "both sides acknowledged");
}

/// A wire that loses, corrupts and duplicates frames, the same frames on both pairs: the cores
/// discard, deliver and land what the model NICs do.
#[test]
fn a_faulty_wire_as_the_model() {
    let test = "a_faulty_wire_as_the_model";
    let seed = rocenic_sim::stream::seed(test);
    let faults = Faults {
        // High enough that every kind happens in a run of some 115 frames (none of one kind:
        // under one run in 100,000).
        loss: 0.12,
        corrupt: 0.12,
        duplicate: 0.12,
    };
    let (want, fates) = model_on(seed, faults, false);
    let link = LinkConfig::with_faults(20, faults);
    let got = cores(seed, &Load::random(), link, LIMIT, false)
        .unwrap_or_else(|e| panic!("{test}: the cores did not finish: {e}"));
    if let Some(d) = diff(&got, &want) {
        panic!("{test}: {d} (replay with ROCENIC_SEED={seed})");
    }
    let n = |k: fn(&Fate) -> bool| fates.iter().filter(|f| k(f)).count();
    let (lost, corrupt, dup) = (
        n(|f| *f == Fate::Lost),
        n(|f| matches!(f, Fate::Corrupt { .. })),
        n(|f| *f == Fate::Duplicate),
    );
    eprintln!(
        "{test}: {} frames a to b: {lost} lost, {corrupt} corrupted, {dup} duplicated; as the model",
        fates.len()
    );
    assert!(
        lost > 0 && corrupt > 0 && dup > 0,
        "every fault happened (seed {seed})"
    );
}

/// A wire that loses frames must fail the comparison (or the run).
#[test]
fn a_lossy_wire_fails() {
    let seed = rocenic_sim::stream::seed("a_lossy_wire_fails");
    let want = model(seed, false);
    let link = LinkConfig {
        delay: 20,
        loss: 0.3,
        ..LinkConfig::default()
    };
    match cores(seed, &Load::ideal(), link, LOSSY_LIMIT, false) {
        Err(e) => eprintln!("caught: {e}"),
        Ok(got) => {
            let d = diff(&got, &want).expect("a lossy wire must differ from the model");
            eprintln!("caught: {d}");
        }
    }
}
