//! The WQE engine's data path against the model's send engine: random WQE streams (every
//! opcode and two unknown ones, inline and gathered, RC and UD, IPv4 and IPv6, VLAN, entries
//! that miss their region, cross PDs, have length 0 or run into bytes the host does not back,
//! address vectors where they do not belong, too many entries, reserved bits set) on four QPs,
//! with host memory that answers out of order and late, a slow region check and random
//! back-pressure on the frame output. Frames and completions must be the model's, byte for byte.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::rngs::SmallRng;
use rand::Rng;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::qp::{self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::memory::Fill;
use rocenic_model::wqe::{self, *};
use rocenic_sim::stream::{rng, seed};
use rocenic_sim::wqe::dp::{nic, rtl, Load, Queue, Run};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;

const DATA: u64 = 0x10000;
const HOLE: u64 = 0x30000;
const RINGS: u64 = 0x100000;
const CQ: u64 = 0x200000;
const CQ_LOG2: u32 = 10;

/// (qpn, type, pd, mtu, ipv6, vlan)
const QPS: [(u32, QpType, u32, PathMtu, bool, Option<u16>); 4] = [
    (0x11, QpType::Rc, 1, PathMtu::Mtu256, false, None),
    (0x12, QpType::Rc, 2, PathMtu::Mtu1024, true, Some(7)),
    (0x13, QpType::Ud, 1, PathMtu::Mtu512, false, None),
    (0x14, QpType::Rc, 1, PathMtu::Mtu4096, true, None),
];
/// (lkey, base, length, pd); the third region runs past the memory behind it.
const MRS: [(u32, u64, u64, u32); 3] = [
    (0x100, DATA, 0x8000, 1),
    (0x200, DATA + 0x8000, 0x4000, 2),
    (0x300, HOLE, 0x1000, 1),
];

fn rc_av(ipv6: bool, vlan: Option<u16>, fl: u32) -> qp::AddressVector {
    let n = nic();
    let ip = if ipv6 {
        IpPair::V6 { src: n.ipv6, dst: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]) }
    } else {
        IpPair::V4 { src: n.ipv4, dst: Ipv4Address::new(10, 0, 0, 2) }
    };
    qp::AddressVector {
        vlan,
        pcp: 5,
        traffic_class: 0x48,
        hop_limit: 9,
        flow_label: fl,
        ..qp::AddressVector::new(ip, n.mac, EthernetAddress([2, 0, 0, 0, 0, 2]))
    }
}

/// A random WQE for queue `k` at `index`: mostly valid, sometimes each kind of invalid.
fn random_wqe(r: &mut SmallRng, k: usize, index: u32, big: bool) -> Vec<u8> {
    let (_, qt, ..) = QPS[k];
    let ud = qt == QpType::Ud;
    let opcode = if ud && r.gen_bool(0.95) {
        [Opcode::Send, Opcode::SendImm][r.gen_range(0..2)]
    } else {
        Opcode::ALL[r.gen_range(0..4)]
    };
    let nsge = if r.gen_bool(0.03) { r.gen_range(17..20) } else { r.gen_range(0..4) };
    let sges: Vec<DataSegment> = (0..nsge)
        .map(|_| {
            let m = if r.gen_bool(0.9) { if k == 1 { 1 } else { [0, 2][usize::from(r.gen_bool(0.1))] } } else { r.gen_range(0..3) };
            let (lkey, base, len, _) = MRS[m];
            let max = if big { 0x3000 } else { 700 };
            let length = if r.gen_bool(0.02) { 0 } else { r.gen_range(1..max) };
            let off = r.gen_range(0..len);
            let lkey = if r.gen_bool(0.02) { 0x999 } else { lkey };
            DataSegment { addr: base + off, length, lkey }
        })
        .collect();
    let inline: Vec<u8> = (0..r.gen_range(0..300)).map(|_| r.gen()).collect();
    let use_inline = r.gen_bool(0.2);
    let v6 = r.gen_bool(0.5);
    let av = (ud != r.gen_bool(0.03)).then(|| wqe::AddressVector {
        dqpn: r.gen_range(0x100..0x104),
        qkey: if r.gen_bool(0.5) { 0x8000_0000 } else { 0x2222 },
        dgid: if v6 { [0xfe; 16] } else { wqe::AddressVector::mapped([10, 0, 0, 9]) },
        dmac: [2, 0, 0, 0, 0, 9],
        vlan: r.gen_bool(0.3).then(|| Vlan { vid: r.gen_range(1..100), pcp: r.gen_range(0..8) }),
        flow_label: if r.gen_bool(0.5) { 0 } else { r.gen_range(1..0xFFFFF) },
        tclass: r.gen(),
        hop_limit: r.gen_range(1..=255),
    });
    let mut flags = Flags::from_bits(0).unwrap();
    if r.gen_bool(0.8) {
        flags = flags.union(Flags::SIGNALED);
    }
    if r.gen_bool(0.5) {
        flags = flags.union(Flags::SOLICITED);
    }
    let wr = WorkRequest {
        opcode,
        flags,
        index,
        imm: if opcode.has_imm() { r.gen() } else { 0 },
        wr_id: r.gen(),
        av,
        raddr: opcode.has_raddr().then(|| RemoteAddress { addr: r.gen(), rkey: r.gen() }),
        payload: if use_inline { Payload::Inline(&inline) } else { Payload::Gather(&sges) },
    };
    let mut out = vec![0u8; MAX_WQE_BYTES];
    let c = Wqe::encode(&wr, &mut out).expect("in the format");
    out.truncate(usize::from(c.blocks) * BLOCK_BYTES);
    // Now and then an unknown opcode or a reserved bit.
    match r.gen_range(0..60) {
        0 => out[0] = Opcode::TSO_VALUE,
        1 => out[15] = 1,           // control RSVD0
        2 => out[1] |= 0x20,        // a flag bit past IP_CSUM
        3 if out.len() >= 80 && av.is_some() => out[32 + 39] = 1, // AV RSVD0
        _ => {}
    }
    out
}

fn scenario(r: &mut SmallRng, wqes: usize, big: bool) -> Run {
    let mut engine = SendEngine::new(nic(), Profile::ALL[r.gen_range(0..4)]);
    for &(lkey, base, length, pd) in &MRS {
        engine.mrs.register(MemoryRegion { lkey, base, length, pd, access: Access::LOCAL_WRITE }).unwrap();
    }
    let mut mem = HostMemory::new();
    mem.add(DATA, 0xC000, Fill::Counter).unwrap();
    let hole: Vec<u8> = (0..0x800).map(|i| (i as u8) ^ 0x5A).collect();
    mem.add(HOLE, 0x800, Fill::Bytes(&hole)).unwrap();
    mem.add(RINGS, 4 * 0x10000, Fill::Zero).unwrap();
    mem.add(CQ, 32 << CQ_LOG2, Fill::Zero).unwrap();
    let mut queues = Vec::new();
    for (i, &(qpn, qp_type, pd, mtu, v6, vlan)) in QPS.iter().enumerate() {
        let rc = qp_type == QpType::Rc;
        let cfg = QpConfig {
            qp_type,
            pd,
            mtu,
            psn: Psn::new(0xFF_FFF0 + i as u32).unwrap(),
            dest_qpn: if rc { 0x900 + qpn } else { 0 },
            q_key: 0x5151,
            av: rc.then(|| rc_av(v6, vlan, if qpn == 0x14 { 0x12345 } else { 0 })),
        };
        engine.qps.create(qpn, cfg).unwrap();
        engine.qps.bring_up(qpn).unwrap();
        let ring = SendRing::new(Ring::new(6).unwrap(), 4, RINGS + i as u64 * 0x10000).unwrap();
        queues.push(Queue { qpn, ring, posted: 0 });
    }
    for _ in 0..wqes {
        let k = r.gen_range(0..4);
        let q = &mut queues[k];
        if q.posted >= 64 {
            continue;
        }
        let bytes = random_wqe(r, k, q.posted, big);
        mem.write(q.ring.addr(q.posted), &bytes).unwrap();
        q.posted += 1;
    }
    Run { engine, queues, cq: (CQ, CQ_LOG2), mem }
}

fn check(test: &str, wqes: usize, big: bool, load: impl Fn(u64) -> Load, runs: usize) {
    let s = seed(test);
    let mut r = rng(s);
    for i in 0..runs {
        let run = scenario(&mut r, wqes, big);
        let want = run.model();
        let (got, stats) = match rtl(&run, &load(s), s.wrapping_add(i as u64), 2_000_000) {
            Ok(x) => x,
            Err(e) => panic!("{test} run {i} (seed {s}): {e}"),
        };
        assert_eq!(got.frames.len(), want.frames.len(), "{test} run {i}: frame count (seed {s})");
        for (n, (g, w)) in got.frames.iter().zip(&want.frames).enumerate() {
            assert_eq!(g, w, "{test} run {i}: frame {n} (seed {s})");
        }
        assert_eq!(got.cq, want.cq, "{test} run {i}: completion ring (seed {s})");
        eprintln!("{test} run {i}: {} frames, {} cycles", stats.frames, stats.cycles);
    }
}

#[test]
fn random_streams_adversarial_host() {
    check(
        "wqe_dp::random_streams_adversarial_host",
        120,
        false,
        |_| Load { dma: DmaConfig::adversarial(8, 4), out_ready: 0.7, mr_latency: 1..=6 },
        3,
    );
}

#[test]
fn large_messages_ideal_host() {
    check(
        "wqe_dp::large_messages_ideal_host",
        40,
        true,
        |_| Load { dma: DmaConfig::ideal(8, 4), out_ready: 1.0, mr_latency: 1..=1 },
        2,
    );
}
