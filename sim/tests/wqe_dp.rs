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
        IpPair::V6 {
            src: n.ipv6,
            dst: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]),
        }
    } else {
        IpPair::V4 {
            src: n.ipv4,
            dst: Ipv4Address::new(10, 0, 0, 2),
        }
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
fn random_wqe(r: &mut SmallRng, k: usize, index: u32, big: bool, faults: f64) -> Vec<u8> {
    let f = |p: f64| (p * faults).min(1.0);
    let (_, qt, ..) = QPS[k];
    let ud = qt == QpType::Ud;
    let opcode = if ud && !r.gen_bool(f(0.05)) {
        [Opcode::Send, Opcode::SendImm][r.gen_range(0..2)]
    } else {
        Opcode::ALL[r.gen_range(0..4)]
    };
    let nsge = if r.gen_bool(f(0.03)) {
        r.gen_range(17..20)
    } else {
        r.gen_range(0..4)
    };
    let sges: Vec<DataSegment> = (0..nsge)
        .map(|_| {
            let m = if !r.gen_bool(f(0.1)) {
                if k == 1 {
                    1
                } else {
                    [0, 2][usize::from(r.gen_bool(f(0.1)))]
                }
            } else {
                r.gen_range(0..3)
            };
            let (lkey, base, len, _) = MRS[m];
            let max = if big { 0x3000 } else { 700 };
            let length = if r.gen_bool(f(0.02)) {
                0
            } else {
                r.gen_range(1..max)
            };
            let off = r.gen_range(0..len);
            let lkey = if r.gen_bool(f(0.02)) { 0x999 } else { lkey };
            DataSegment {
                addr: base + off,
                length,
                lkey,
            }
        })
        .collect();
    let inline: Vec<u8> = (0..r.gen_range(0..300)).map(|_| r.gen()).collect();
    let use_inline = r.gen_bool(0.2);
    let v6 = r.gen_bool(0.5);
    let av = (ud != r.gen_bool(f(0.03))).then(|| wqe::AddressVector {
        dqpn: r.gen_range(0x100..0x104),
        qkey: if r.gen_bool(0.5) { 0x8000_0000 } else { 0x2222 },
        dgid: if v6 {
            [0xfe; 16]
        } else {
            wqe::AddressVector::mapped([10, 0, 0, 9])
        },
        dmac: [2, 0, 0, 0, 0, 9],
        vlan: r.gen_bool(0.3).then(|| Vlan {
            vid: r.gen_range(1..100),
            pcp: r.gen_range(0..8),
        }),
        flow_label: if r.gen_bool(0.5) {
            0
        } else {
            r.gen_range(1..0xFFFFF)
        },
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
        raddr: opcode.has_raddr().then(|| RemoteAddress {
            addr: r.gen(),
            rkey: r.gen(),
        }),
        payload: if use_inline {
            Payload::Inline(&inline)
        } else {
            Payload::Gather(&sges)
        },
    };
    let mut out = vec![0u8; MAX_WQE_BYTES];
    let c = Wqe::encode(&wr, &mut out).expect("in the format");
    out.truncate(usize::from(c.blocks) * BLOCK_BYTES);
    // Now and then an unknown opcode, a reserved bit, or any bit of the WQE flipped: the model
    // decides what each means.
    match if r.gen_bool(f(0.1)) {
        r.gen_range(0..8)
    } else {
        8
    } {
        0 => out[0] = Opcode::TSO_VALUE,
        1 => out[15] = 1,                          // control RSVD0
        2 => out[1] |= 0x20,                       // a flag bit past IP_CSUM
        3 if av.is_some() => out[32 + 39] = 1,     // AV RSVD0
        4 if av.is_some() => out[32 + 31] |= 0x10, // the VLAN tag's DEI bit
        5 if av.is_some() => out[32 + 3] = 1,      // DQPN past 24 bits
        6 if av.is_some() => out[32 + 35] = 0x10,  // flow label past 20 bits
        _ if !out.is_empty() && r.gen_bool(0.5) => {
            let i = r.gen_range(0..out.len().min(128));
            out[i] ^= 1 << r.gen_range(0..8);
        }
        _ => {}
    }
    out
}

/// The engine, memory and queues every run starts from, no WQE posted.
fn base(profile: Profile) -> Run {
    let mut engine = SendEngine::new(nic(), profile);
    for &(lkey, base, length, pd) in &MRS {
        engine
            .mrs
            .register(MemoryRegion {
                lkey,
                base,
                length,
                pd,
                access: Access::LOCAL_WRITE,
            })
            .unwrap();
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
        queues.push(Queue {
            qpn,
            ring,
            posted: 0,
        });
    }
    Run {
        engine,
        queues,
        cq: (CQ, CQ_LOG2),
        mem,
    }
}

/// Posts `bytes` as the next WQE of queue `k`.
fn post(run: &mut Run, k: usize, bytes: &[u8]) {
    let q = &mut run.queues[k];
    assert!(q.posted < 64);
    run.mem.write(q.ring.addr(q.posted), bytes).unwrap();
    q.posted += 1;
}

fn scenario(r: &mut SmallRng, wqes: usize, big: bool, faults: f64) -> Run {
    let mut run = base(Profile::ALL[r.gen_range(0..4)]);
    for _ in 0..wqes {
        let k = r.gen_range(0..4);
        if run.queues[k].posted >= 64 {
            continue;
        }
        let bytes = random_wqe(r, k, run.queues[k].posted, big, faults);
        post(&mut run, k, &bytes);
    }
    run
}

/// Runs `run` through the RTL and the model and compares frames and completions.
fn compare(what: &str, run: &Run, load: &Load, seed: u64) {
    let want = run.model();
    let (got, _) = match rtl(run, load, seed, 200_000) {
        Ok(x) => x,
        Err(e) => panic!("{what}: {e}"),
    };
    assert_eq!(got.frames.len(), want.frames.len(), "{what}: frame count");
    for (n, (g, w)) in got.frames.iter().zip(&want.frames).enumerate() {
        assert_eq!(g, w, "{what}: frame {n}");
    }
    assert_eq!(got.cq, want.cq, "{what}: completion ring");
}

fn check(test: &str, wqes: usize, big: bool, faults: f64, load: impl Fn(u64) -> Load, runs: usize) {
    let s = seed(test);
    let mut r = rng(s);
    for i in 0..runs {
        let run = scenario(&mut r, wqes, big, faults);
        compare(
            &format!("{test} run {i} (seed {s})"),
            &run,
            &load(s),
            s.wrapping_add(i as u64),
        );
    }
}

#[test]
fn random_streams_adversarial_host() {
    check(
        "wqe_dp::random_streams_adversarial_host",
        120,
        false,
        0.1,
        |_| Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.7,
            mr_latency: 1..=6,
        },
        3,
    );
}

#[test]
fn large_messages_ideal_host() {
    check(
        "wqe_dp::large_messages_ideal_host",
        40,
        true,
        0.0,
        |_| Load {
            dma: DmaConfig::ideal(8, 4),
            out_ready: 1.0,
            mr_latency: 1..=1,
        },
        2,
    );
}

/// Errors of every kind, often: most QPs end in ERR early and flush the rest, while the
/// others keep sending.
#[test]
fn error_storm() {
    check(
        "wqe_dp::error_storm",
        150,
        false,
        1.0,
        |_| Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.5,
            mr_latency: 1..=10,
        },
        3,
    );
}

/// Many short runs with errors of every kind: a QP's first error is the one whose status shows
/// (the rest flush), so short runs test each kind's detection many times over.
#[test]
fn first_errors() {
    check(
        "wqe_dp::first_errors",
        10,
        false,
        1.0,
        |_| Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.8,
            mr_latency: 1..=3,
        },
        150,
    );
}

/// Every single bit of a valid UD SEND_WITH_IMM WQE (control and address vector) and of a valid
/// RC RDMA WRITE_WITH_IMM WQE (control and remote address) flipped in turn, each followed by a
/// valid WQE on the same QP: the RTL must decide each as the model does (refuse, flush the
/// next, or send something else correctly).
#[test]
fn single_bit_flips() {
    let s = seed("wqe_dp::single_bit_flips");
    let load = Load {
        dma: DmaConfig::ideal(8, 4),
        out_ready: 1.0,
        mr_latency: 1..=1,
    };
    let mut r = rng(s);
    let ud = wqe_bytes(2, 0, Opcode::SendImm);
    let rc = wqe_bytes(0, 0, Opcode::RdmaWriteImm);
    for (k, good) in [(2usize, ud), (0, rc)] {
        let next = wqe_bytes(k, 1, Opcode::Send);
        for bit in 0..good.len() * 8 {
            let mut bad = good.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let mut run = base(Profile::Linux);
            post(&mut run, k, &bad);
            post(&mut run, k, &next);
            compare(
                &format!("queue {k} bit {bit} (seed {s})"),
                &run,
                &load,
                r.gen(),
            );
        }
    }
}

/// A valid WQE of queue `k`: one 100-byte gather entry in its PD, signaled and solicited.
fn wqe_bytes(k: usize, index: u32, opcode: Opcode) -> Vec<u8> {
    let (_, qt, pd, ..) = QPS[k];
    let (lkey, base, ..) = MRS.iter().copied().find(|m| m.3 == pd).unwrap();
    let sges = [DataSegment {
        addr: base + 0x40,
        length: 100,
        lkey,
    }];
    let wr = WorkRequest {
        opcode,
        flags: Flags::SIGNALED.union(Flags::SOLICITED),
        index,
        imm: if opcode.has_imm() { 0xA1B2_C3D4 } else { 0 },
        wr_id: 0x1122_3344_5566_7788 + u64::from(index),
        av: (qt == QpType::Ud).then_some(wqe::AddressVector {
            dqpn: 0x101,
            qkey: 0x2222,
            dgid: [0xfe; 16],
            dmac: [2, 0, 0, 0, 0, 9],
            vlan: Some(Vlan { vid: 5, pcp: 3 }),
            flow_label: 0x1234,
            tclass: 0x20,
            hop_limit: 7,
        }),
        raddr: opcode.has_raddr().then_some(RemoteAddress {
            addr: 0x7000_0000,
            rkey: 0x55,
        }),
        payload: Payload::Gather(&sges),
    };
    let mut out = vec![0u8; MAX_WQE_BYTES];
    let c = Wqe::encode(&wr, &mut out).unwrap();
    out.truncate(usize::from(c.blocks) * BLOCK_BYTES);
    out
}
