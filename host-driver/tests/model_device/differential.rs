//! The same firmware calls on the model backend and on the co-simulated WQE engine: regions,
//! RC QPs over IPv4 and IPv6 (tagged) and a UD QP, random WQEs of every opcode with a
//! protection error among them, a refused command and an out-of-range doorbell. Both must
//! send the same frames in the same order, write the same completion ring, and read the same
//! in every register of the WQE block's map. Seeded (`ROCENIC_SEED` replays).

use rand::Rng;
use rocenic_firmware::{Bus, EntropySource, WqeEngine};
use rocenic_host_driver::device::{Block, BlockBus, Device};
use rocenic_host_driver::model_device::ModelDevice;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::{
    Access, AddressVector, IpPair, MemoryRegion, PathMtu, Psn, QpConfig, QpKind, QpState,
};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::{
    self, regs, DataSegment, Fill, Flags, Memory, Nic, Opcode, Payload, RemoteAddress, Ring,
    SendRing, WorkRequest, Wqe, CQE_BYTES,
};
use rocenic_sim::wqe::device::WqeDevice;
use rocenic_sim::wqe::engine::Load;
use std::cell::RefCell;
use std::rc::Rc;

const BUF: u64 = 0x1000_0000;
const BUF_LEN: usize = 0x1_0000;
const CQ: u64 = 0x2000_0000;
const CQ_LOG2: u32 = 6;

/// What a run shows from outside: frames, the completion ring, every register word.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    frames: Vec<Vec<u8>>,
    cq: Vec<u8>,
    regs: Vec<(u32, u32)>,
    refused: bool,
}

fn nic() -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
        ipv4: Ipv4Address::new(10, 0, 0, 1),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
    }
}

fn rc(v6: bool, dest_qpn: u32) -> QpConfig {
    let n = nic();
    let ip = if v6 {
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
    QpConfig {
        qp_type: QpKind::Rc,
        pd: 1,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0xFF_FFF0).unwrap(),
        dest_qpn,
        q_key: 0,
        av: Some(AddressVector {
            vlan: v6.then_some(100),
            pcp: 3,
            flow_label: if v6 { 0x1234 } else { 0 },
            ..AddressVector::new(ip, n.mac, EthernetAddress([2, 0, 0, 0, 0, 2]))
        }),
    }
}

/// The scenario's QPs: (QPN, config, ring).
fn qps() -> Vec<(u32, QpConfig, SendRing)> {
    let ud = QpConfig {
        qp_type: QpKind::Ud,
        pd: 1,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(7).unwrap(),
        dest_qpn: 0,
        q_key: 0x1111,
        av: None,
    };
    [
        (0x101, rc(false, 0x201)),
        (0x142, rc(true, 0x202)),
        (0x183, ud),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (q, c))| {
        let ring = SendRing::new(Ring::new(3).unwrap(), 1, 0x3000_0000 + 0x10_000 * i as u64);
        (q, c, ring.unwrap())
    })
    .collect()
}

/// Random WQEs per QP (the same for both devices): (QPN, WQE bytes).
fn wqes(seed: u64) -> Vec<(u32, Vec<u8>)> {
    let mut r = rocenic_sim::stream::rng(seed);
    let mut out = Vec::new();
    for (qpn, config, ring) in qps() {
        for i in 0..6u32 {
            let ud = config.qp_type == QpKind::Ud;
            let opcode = match (ud, r.gen_range(0..4)) {
                (true, 0 | 1) | (false, 0) => Opcode::Send,
                (true, _) | (false, 1) => Opcode::SendImm,
                (false, 2) => Opcode::RdmaWrite,
                _ => Opcode::RdmaWriteImm,
            };
            let len = if ud {
                r.gen_range(1..=1024)
            } else {
                r.gen_range(1..=3000)
            };
            let addr = BUF + r.gen_range(0..(BUF_LEN as u64 - len as u64));
            // One protection error: an lkey no region has, on the IPv4 RC QP's fourth WQE.
            let lkey = if qpn == 0x101 && i == 3 {
                0x7700
            } else {
                0x100
            };
            let sge = [DataSegment {
                addr,
                length: len,
                lkey,
            }];
            let wr = WorkRequest {
                opcode,
                flags: Flags::SIGNALED,
                index: i,
                imm: if opcode.has_imm() { r.gen() } else { 0 },
                wr_id: u64::from(qpn) << 32 | u64::from(i),
                av: ud.then(|| wqe::AddressVector {
                    dqpn: 0x300,
                    qkey: 0x8000_0000,
                    dgid: wqe::AddressVector::mapped([10, 0, 0, 3]),
                    dmac: [2, 0, 0, 0, 0, 3],
                    vlan: None,
                    flow_label: r.gen_range(0..1 << 20),
                    tclass: 0,
                    hop_limit: 64,
                }),
                raddr: opcode.has_raddr().then_some(RemoteAddress {
                    addr: 0x5000,
                    rkey: 0x42,
                }),
                payload: Payload::Gather(&sge),
                tso: None,
            };
            let mut b = vec![0u8; ring.stride_blocks() as usize * 64];
            Wqe::encode(&wr, &mut b).unwrap();
            out.push((qpn, b));
        }
    }
    out
}

fn run<D: Frames>(dev: D, seed: u64) -> Seen {
    let dev = Rc::new(RefCell::new(dev));
    {
        let mut d = dev.borrow_mut();
        let m = d.memory();
        let mut r = rocenic_sim::stream::rng(seed ^ 1);
        let data: Vec<u8> = (0..BUF_LEN).map(|_| r.gen()).collect();
        m.add(BUF, BUF_LEN, Fill::Bytes(&data)).unwrap();
        m.add(CQ, CQE_BYTES << CQ_LOG2, Fill::Zero).unwrap();
        for (_, _, ring) in qps() {
            m.add(ring.addr(0), ring.bytes() as usize, Fill::Zero)
                .unwrap();
        }
    }
    let mut fw: WqeEngine<BlockBus<D>> =
        WqeEngine::open(BlockBus::new(dev.clone(), Block::Wqe)).unwrap();
    fw.configure(&nic(), Profile::Linux).unwrap();
    fw.set_completion_ring(CQ, CQ_LOG2).unwrap();
    for (lkey, pd) in [(0x100, 1), (0x201, 2)] {
        let mr = MemoryRegion {
            lkey,
            base: BUF,
            length: BUF_LEN as u64,
            pd,
            access: Access::LOCAL_WRITE,
        };
        fw.register_mr(&mr).unwrap();
    }
    for (qpn, config, ring) in qps() {
        fw.create_qp(qpn, &config, &ring, EntropySource::Qpn)
            .unwrap();
        fw.bring_up(qpn).unwrap();
    }
    // A modify the engine refuses (RTS to INIT), seen through the firmware's error.
    let refused = fw.modify_qp(0x183, QpState::Init).is_err();
    let mut producers = std::collections::BTreeMap::new();
    for (qpn, b) in wqes(seed) {
        let (_, _, ring) = qps().into_iter().find(|q| q.0 == qpn).unwrap();
        let p: &mut u32 = producers.entry(qpn).or_default();
        dev.borrow_mut().memory().write(ring.addr(*p), &b).unwrap();
        *p += 1;
    }
    // Every doorbell before the engine starts: the order of service is then fixed.
    for (&qpn, &p) in &producers {
        fw.ring_doorbell(qpn, p).unwrap();
    }
    // One too far ahead, on the bus itself: DB_ERROR.
    fw.bus_mut().write(regs::doorbell(1, 100).0, 100).unwrap();
    fw.enable().unwrap();
    let total: u32 = producers.values().sum();
    let mut spins = 0;
    while fw.wqes().unwrap() < total {
        dev.borrow_mut().run(64).unwrap();
        spins += 1;
        assert!(spins < 10_000, "the engine did not finish");
    }
    fw.wait_idle().unwrap();
    let mut cq = vec![0u8; CQE_BYTES << CQ_LOG2];
    dev.borrow_mut().memory().read(CQ, &mut cq).unwrap();
    let regs: Vec<(u32, u32)> = (0..0x1000)
        .step_by(4)
        .map(|a| (a, dev.borrow_mut().read(Block::Wqe, a).unwrap()))
        .collect();
    drop(fw);
    let mut dev = Rc::try_unwrap(dev)
        .ok()
        .expect("the firmware is gone")
        .into_inner();
    Seen {
        frames: dev.frames(),
        cq,
        regs,
        refused,
    }
}

#[test]
fn same_as_the_rtl_engine() {
    let seed = rocenic_sim::stream::seed("same_as_the_rtl_engine");
    let model = run(ModelDevice::new(), seed);
    let rtl = run(WqeDevice::new(&Load::ideal(), seed), seed);
    assert!(model.refused && rtl.refused);
    // 18 WQEs; the protection error sends nothing and flushes two, so 15 send at least a
    // frame each (about half of them more: multi-packet RC messages).
    assert!(model.frames.len() >= 15, "{} frames", model.frames.len());
    assert_eq!(model.frames.len(), rtl.frames.len(), "frames");
    for (i, (m, r)) in model.frames.iter().zip(&rtl.frames).enumerate() {
        assert_eq!(m, r, "frame {i}");
    }
    assert_eq!(model.cq, rtl.cq, "completion ring");
    for ((a, m), (_, r)) in model.regs.iter().zip(&rtl.regs) {
        assert_eq!(m, r, "register {a:#x}");
    }
    let status = model.regs[(regs::STATUS / 4) as usize].1;
    assert_eq!(status, 1 << 2 | 1 << 4, "DB_ERROR sticky, idle");
}

/// A backend whose sent frames the test can take.
trait Frames: Device {
    fn frames(&mut self) -> Vec<Vec<u8>>;
}

impl Frames for ModelDevice {
    fn frames(&mut self) -> Vec<Vec<u8>> {
        self.take_frames()
    }
}

impl Frames for WqeDevice {
    fn frames(&mut self) -> Vec<Vec<u8>> {
        self.take_frames()
    }
}
