//! Scenarios for the WQE engine's benches: four QPs (RC IPv4 MTU 256, RC IPv6 with VLAN MTU
//! 1024, UD MTU 512, RC IPv6 MTU 4096) in two PDs and a raw-packet QP, three memory regions
//! (one running past the memory behind it), and random WQEs of every kind, valid and not,
//! written into their send rings. The data path's and the whole engine's tests run the same
//! scenarios against the model's `Queues`.

use super::dp::{nic, Queue, Run};
use crate::stream::TestRng;
use rand::Rng;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::qp::{self, Access, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::memory::Fill;
use rocenic_model::wqe::{self, *};

pub const DATA: u64 = 0x10000;
pub const HOLE: u64 = 0x30000;
pub const RINGS: u64 = 0x100000;
pub const CQ: u64 = 0x200000;
pub const CQ_LOG2: u32 = 10;

/// (qpn, type, pd, mtu, ipv6, vlan)
pub const QPS: [(u32, QpType, u32, PathMtu, bool, Option<u16>); 4] = [
    (0x11, QpType::Rc, 1, PathMtu::Mtu256, false, None),
    (0x12, QpType::Rc, 2, PathMtu::Mtu1024, true, Some(7)),
    (0x13, QpType::Ud, 1, PathMtu::Mtu512, false, None),
    (0x14, QpType::Rc, 1, PathMtu::Mtu4096, true, None),
];
/// The raw-packet QP, queue [`RAW_QUEUE`] after the four above: (qpn, pd). Its SENDs are whole
/// Ethernet frames (14 to 4,218 bytes) put on the wire as they are.
pub const RAW_QP: (u32, u32) = (0x15, 1);
/// The raw QP's queue.
pub const RAW_QUEUE: usize = QPS.len();
/// Queues: the four RoCE QPs' and the raw QP's.
pub const QUEUES: usize = QPS.len() + 1;

/// (lkey, base, length, pd); the third region runs past the memory behind it.
pub const MRS: [(u32, u64, u64, u32); 3] = [
    (0x100, DATA, 0x8000, 1),
    (0x200, DATA + 0x8000, 0x4000, 2),
    (0x300, HOLE, 0x1000, 1),
];

pub fn rc_av(ipv6: bool, vlan: Option<u16>, fl: u32) -> qp::AddressVector {
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
pub fn random_wqe(r: &mut TestRng, k: usize, index: u32, big: bool, faults: f64) -> Vec<u8> {
    let f = |p: f64| (p * faults).min(1.0);
    let (_, qt, ..) = QPS[k];
    let ud = qt == QpType::Ud;
    // A UD QP's TSO work requests (IPoIB templates): segmented by a build with TSO, refused by
    // one without (`loc_qp_op_err`, the QP to ERR); they come at the rate of the other faults.
    let tso = ud && r.gen_bool(f(0.3));
    let opcode = if tso {
        Opcode::Tso
    } else if ud && !r.gen_bool(f(0.05)) {
        [Opcode::Send, Opcode::SendImm][r.gen_range(0..2)]
    } else {
        Opcode::ALL[r.gen_range(0..4)]
    };
    let bad_template = r.gen_bool(f(0.1));
    let header = tso_template(r, bad_template);
    let mss: u16 = if r.gen_bool(f(0.03)) {
        [0, 9001][r.gen_range(0..2)]
    } else {
        r.gen_range(1..=450)
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
    let mut flags = signaled_mostly(r);
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
        tso: tso.then_some(wqe::Tso {
            mss,
            header: &header,
        }),
        payload: if use_inline {
            Payload::Inline(&inline)
        } else {
            Payload::Gather(&sges)
        },
    };
    let mut out = encoded(&wr);
    // Now and then an unknown opcode, a reserved bit, or any bit of the WQE flipped: the model
    // decides what each means.
    match if r.gen_bool(f(0.1)) {
        r.gen_range(0..8)
    } else {
        8
    } {
        0 => out[0] = Opcode::Tso as u8,
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

/// SIGNALED four times in five, no other flag.
fn signaled_mostly(r: &mut TestRng) -> Flags {
    let none = Flags::from_bits(0).unwrap();
    if r.gen_bool(0.8) {
        none.union(Flags::SIGNALED)
    } else {
        none
    }
}

/// A valid RC work request for queue `k` (0, 1 or 3): SEND, SEND with immediate, RDMA WRITE
/// or WRITE with immediate, of up to three data segments inside the queue's region (`big`:
/// up to 12 KiB each, else 700 bytes) or up to 200 bytes inline, signaled four times in five.
/// With `hole` (queues 0 and 3, PD 1), the last segment lies in the third region, across the
/// end of the memory behind it: it passes the checks, and reading it faults.
pub fn rc_wqe(r: &mut TestRng, k: usize, index: u32, big: bool, hole: bool) -> Vec<u8> {
    let (_, qt, pd, ..) = QPS[k];
    assert!(qt == QpType::Rc && (!hole || pd == 1));
    let opcode = Opcode::ALL[r.gen_range(0..4)];
    let (lkey, base, len, _) = MRS[usize::from(k == 1)];
    let max = if big { 0x3000 } else { 700 };
    let mut sges: Vec<DataSegment> = (0..r.gen_range(0..=3))
        .map(|_| {
            let length = r.gen_range(1..max);
            DataSegment {
                addr: base + r.gen_range(0..len - u64::from(length)),
                length,
                lkey,
            }
        })
        .collect();
    if hole {
        let (lkey, base, ..) = MRS[2];
        sges.push(DataSegment {
            addr: base + r.gen_range(0x700..0x800),
            length: r.gen_range(0x100..0x800),
            lkey,
        });
    }
    let inline: Vec<u8> = (0..r.gen_range(0..200)).map(|_| r.gen()).collect();
    let wr = WorkRequest {
        opcode,
        flags: signaled_mostly(r),
        index,
        imm: if opcode.has_imm() { r.gen() } else { 0 },
        wr_id: r.gen(),
        av: None,
        raddr: opcode.has_raddr().then(|| RemoteAddress {
            addr: r.gen(),
            rkey: r.gen(),
        }),
        tso: None,
        payload: if !hole && r.gen_bool(0.2) {
            Payload::Inline(&inline)
        } else {
            Payload::Gather(&sges)
        },
    };
    encoded(&wr)
}

/// `wr` as the WQE bytes a send ring holds: its blocks, no more (it must fit the format).
pub fn encoded(wr: &WorkRequest) -> Vec<u8> {
    let mut out = vec![0u8; MAX_WQE_BYTES];
    let c = Wqe::encode(wr, &mut out).expect("in the format");
    out.truncate(usize::from(c.blocks) * BLOCK_BYTES);
    out
}

/// A TSO header template: the IPoIB encapsulation header, IPv4 (with options) or IPv6, TCP
/// (with options); lengths and checksums hold junk, as hosts leave them. `bad`: one of the
/// ways a template is refused (not TCP, a wrong version or EtherType, cut short, too long).
pub fn tso_template(r: &mut TestRng, bad: bool) -> Vec<u8> {
    template(r, bad, false)
}

/// A raw QP's TSO header template: as [`tso_template`] behind an Ethernet header (addresses,
/// sometimes an 802.1Q or 802.1ad tag) instead of IPoIB's.
pub fn eth_tso_template(r: &mut TestRng, bad: bool) -> Vec<u8> {
    template(r, bad, true)
}

fn template(r: &mut TestRng, bad: bool, ethernet: bool) -> Vec<u8> {
    let ipv4 = r.gen_bool(0.5);
    let mut h = Vec::new();
    if ethernet {
        h.extend_from_slice(&[2, 0, 0, 0, 0, 9, 2, 0, 0, 0, 0, 1]);
        if r.gen_bool(0.3) {
            h.extend_from_slice(if r.gen_bool(0.5) {
                &[0x81, 0]
            } else {
                &[0x88, 0xA8]
            });
            h.extend_from_slice(&[r.gen_range(0..0x10), r.gen()]);
        }
    }
    let ethertype = h.len();
    h.extend_from_slice(if ipv4 { &[0x08, 0x00] } else { &[0x86, 0xDD] });
    if !ethernet {
        h.extend_from_slice(&[0, 0]);
    }
    let ip = h.len();
    if ipv4 {
        let opts = r.gen_range(0..=3) * 4;
        h.push(0x45 + (opts / 4) as u8);
        h.push(r.gen());
        h.extend((0..4).map(|_| r.gen::<u8>())); // total length (junk), identification
        h.extend_from_slice(&[0x40, 0, 64, 6]);
        h.extend((0..10 + opts).map(|_| r.gen::<u8>())); // checksum (junk), addresses, options
    } else {
        h.extend_from_slice(&[0x60, 0, 0, 0]);
        h.extend((0..2).map(|_| r.gen::<u8>())); // payload length (junk)
        h.extend_from_slice(&[6, 64]);
        h.extend((0..32).map(|_| r.gen::<u8>()));
    }
    let topts = r.gen_range(0..=3) * 4;
    let tcp = h.len();
    h.extend((0..12).map(|_| r.gen::<u8>())); // ports, sequence, acknowledgment
    h.push(((5 + topts / 4) as u8) << 4);
    h.push(r.gen()); // flags: the segmenter sets CWR, FIN and PSH per segment
    h.extend((0..6 + topts).map(|_| r.gen::<u8>()));
    if bad {
        match r.gen_range(0..5) {
            0 => h[ip + if ipv4 { 9 } else { 6 }] = 17, // UDP, not TCP
            1 => h[ip] ^= 0x30,                         // IP version
            2 => h[ethertype] = 0x88,                   // EtherType
            3 => h.truncate(tcp + 10),                  // cut inside TCP
            _ => h.resize(130, 0),                      // over the 128-byte limit
        }
    }
    h
}

/// The engine, memory and queues every run starts from, no WQE posted.
pub fn base(profile: Profile) -> Run {
    let mut engine = SendEngine::new(nic(), profile);
    engine.qps.set_raw(true);
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
    mem.add(RINGS, QUEUES * 0x10000, Fill::Zero).unwrap();
    mem.add(CQ, 32 << CQ_LOG2, Fill::Zero).unwrap();
    let mut queues = Vec::new();
    for (i, &(qpn, qp_type, pd, mtu, v6, vlan)) in QPS.iter().enumerate() {
        let rc = qp_type == QpType::Rc;
        let cfg = QpConfig {
            qp_type: qp_type.into(),
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
    let (qpn, pd) = RAW_QP;
    let raw = QpConfig {
        qp_type: QpKind::Raw,
        pd,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0).unwrap(),
        dest_qpn: 0,
        q_key: 0,
        av: None,
    };
    engine.qps.create(qpn, raw).unwrap();
    engine.qps.bring_up(qpn).unwrap();
    let ring = SendRing::new(Ring::new(6).unwrap(), 4, RINGS + RAW_QUEUE as u64 * 0x10000).unwrap();
    queues.push(Queue {
        qpn,
        ring,
        posted: 0,
    });
    let mrs = MRS
        .iter()
        .map(|&(lkey, base, length, pd)| MemoryRegion {
            lkey,
            base,
            length,
            pd,
            access: Access::LOCAL_WRITE,
        })
        .collect();
    Run {
        engine,
        mrs,
        queues,
        cq: (CQ, CQ_LOG2),
        mem,
    }
}

/// Posts `bytes` as the next WQE of queue `k`.
pub fn post(run: &mut Run, k: usize, bytes: &[u8]) {
    let q = &mut run.queues[k];
    assert!(q.posted < 64);
    run.mem.write(q.ring.addr(q.posted), bytes).unwrap();
    q.posted += 1;
}

/// `n` signaled SENDs of `len` bytes each on queue `k` (3: RC IPv6 MTU 4096; 2: UD MTU 512,
/// to one address vector), gathered from the first region at four rotating offsets: the
/// benches' workloads (`make bench`'s cycle figures and the replayed co-simulation speed).
pub fn sends(k: usize, n: u32, len: u32) -> Run {
    let mut run = base(Profile::Linux);
    let (lkey, ..) = MRS[0];
    for i in 0..n {
        let sges = [DataSegment {
            addr: DATA + u64::from(i % 4) * 64,
            length: len,
            lkey,
        }];
        let wr = WorkRequest {
            opcode: Opcode::Send,
            flags: Flags::SIGNALED,
            index: i,
            imm: 0,
            wr_id: u64::from(i),
            av: (k == 2).then_some(AddressVector {
                dqpn: 0x101,
                qkey: 0x2222,
                dgid: AddressVector::mapped([10, 0, 0, 9]),
                dmac: [2, 0, 0, 0, 0, 9],
                vlan: None,
                flow_label: 0,
                tclass: 0,
                hop_limit: 64,
            }),
            raddr: None,
            tso: None,
            payload: Payload::Gather(&sges),
        };
        post(&mut run, k, &encoded(&wr));
    }
    run
}

pub fn scenario(r: &mut TestRng, wqes: usize, big: bool, faults: f64) -> Run {
    let mut run = base(Profile::ALL[r.gen_range(0..4)]);
    for _ in 0..wqes {
        let k = r.gen_range(0..QUEUES);
        if run.queues[k].posted >= 64 {
            continue;
        }
        let bytes = if k == RAW_QUEUE {
            random_raw_wqe(r, run.queues[k].posted, big, faults)
        } else {
            random_wqe(r, k, run.queues[k].posted, big, faults)
        };
        post(&mut run, k, &bytes);
    }
    run
}

/// A random WQE for the raw QP at `index`: mostly a valid SEND of one whole frame (gathered
/// from up to three entries, or inline; `big`: up to the largest, 4,218 bytes) or a TSO send
/// (an Ethernet template, an MSS of 1 to a whole frame's, segments of 14 to 4,218 bytes),
/// sometimes each kind of refusal: another opcode (SEND_WITH_IMM, the WRITEs), an address
/// vector, a frame under 14 or over 4,218 bytes, a TSO template the segmenter refuses, an MSS
/// of 0 or over 9,000, a segment over 4,218 bytes, and the faults every QP's WQEs have
/// (regions, lengths, reserved bits, a flipped bit). Engines without TSO take TSO for an
/// unknown opcode.
pub fn random_raw_wqe(r: &mut TestRng, index: u32, big: bool, faults: f64) -> Vec<u8> {
    let f = |p: f64| (p * faults).min(1.0);
    let tso = r.gen_bool(0.25);
    let opcode = if tso {
        Opcode::Tso
    } else if r.gen_bool(f(0.2)) {
        [Opcode::SendImm, Opcode::RdmaWrite, Opcode::RdmaWriteImm][r.gen_range(0..3)]
    } else {
        Opcode::Send
    };
    let bad_template = r.gen_bool(f(0.1));
    let header = eth_tso_template(r, bad_template);
    // A TSO send's MSS and payload: at most 24 segments (each is a frame of the run), up to a
    // frame's worth of payload in one; now and then an MSS of 0 or over 9,000, or a segment
    // over the frame's 4,218 bytes.
    let whole = 4218 - header.len().min(4218);
    let (mss, tso_len) = if r.gen_bool(f(0.05)) {
        let over = whole + r.gen_range(1..100);
        match r.gen_range(0..3) {
            0 => (0, r.gen_range(1..500)),
            1 => (9001, r.gen_range(1..500)),
            _ => (over, over + r.gen_range(0..100)),
        }
    } else {
        let mss = match r.gen_range(0..20) {
            0..=1 => r.gen_range(1..=64),
            2..=4 => r.gen_range(1460..=whole.max(1460)),
            _ => r.gen_range(64..=1460),
        };
        let most = (mss * 24).min(if big { 12_000 } else { 3_000 });
        (mss, r.gen_range(0..=most))
    };
    // The frame's length: mostly valid (short ones, padded to 60, often), now and then outside.
    let len: usize = if tso {
        tso_len
    } else if r.gen_bool(f(0.15)) {
        [0, 1, 13, 4219, 5000][r.gen_range(0..5)]
    } else if r.gen_bool(0.3) {
        r.gen_range(14..=64)
    } else if big {
        r.gen_range(3000..=4218)
    } else {
        r.gen_range(14..=1514)
    };
    let use_inline = len <= if tso { 600 } else { 900 } && r.gen_bool(0.25);
    let inline: Vec<u8> = (0..len).map(|_| r.gen()).collect();
    // The frame gathered from one to three entries that add up to it, none empty.
    let n = if len < 3 { 1 } else { r.gen_range(1..=3) };
    let mut cuts: Vec<usize> = (1..n).map(|_| r.gen_range(1..len)).collect();
    cuts.push(0);
    cuts.push(len);
    cuts.sort_unstable();
    cuts.dedup();
    let sges: Vec<DataSegment> = cuts
        .windows(2)
        .map(|w| {
            let m = if r.gen_bool(f(0.1)) {
                r.gen_range(0..3)
            } else {
                0
            };
            let (lkey, base, rlen, _) = MRS[m];
            let length = (w[1] - w[0]) as u32;
            let off = r.gen_range(0..rlen - u64::from(length).min(rlen - 1));
            DataSegment {
                addr: base + off,
                length,
                lkey: if r.gen_bool(f(0.02)) { 0x999 } else { lkey },
            }
        })
        .collect();
    let av = r.gen_bool(f(0.05)).then_some(wqe::AddressVector {
        dqpn: 0x101,
        qkey: 0x2222,
        dgid: [0xfe; 16],
        dmac: [2, 0, 0, 0, 0, 9],
        vlan: None,
        flow_label: 0,
        tclass: 0,
        hop_limit: 64,
    });
    let mut flags = signaled_mostly(r);
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
        tso: tso.then_some(wqe::Tso {
            mss: mss as u16,
            header: &header,
        }),
        payload: if use_inline {
            Payload::Inline(&inline)
        } else {
            Payload::Gather(&sges[..if len == 0 { 0 } else { sges.len() }])
        },
    };
    let mut out = encoded(&wr);
    if r.gen_bool(f(0.05)) && !out.is_empty() {
        let i = r.gen_range(0..out.len().min(64));
        out[i] ^= 1 << r.gen_range(0..8);
    }
    out
}

/// A valid WQE of queue `k`: one 100-byte gather entry in its PD, signaled and solicited.
pub fn wqe_bytes(k: usize, index: u32, opcode: Opcode) -> Vec<u8> {
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
        tso: None,
        payload: Payload::Gather(&sges),
    };
    encoded(&wr)
}
