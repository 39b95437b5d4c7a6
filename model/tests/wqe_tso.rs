//! TSO work requests on UD QPs (IPoIB over RoCEv2): the send engine cuts the payload into
//! MSS-sized TCP segments, each the payload of one UD SEND packet with its own PSN. Every frame is
//! read back: ICRC, BTH, DETH, the segment through the independent checker
//! (`tso::verify_segment`), and the segments reassemble to the payload. Then the refusals.
//!
//! The property prints its seed; `ROCENIC_SEED=N` replays it.

use proptest::prelude::*;
use rocenic_model::entropy::{Profile, QpType};
use rocenic_model::qp::{Access, MemoryRegion, PathMtu, Psn, QpConfig, Status};
use rocenic_model::tso::{verify_segment, Limits};
use rocenic_model::wire::ib::{opcode as op, DETH_LEN};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address, LinkType, RoceFrame};
use rocenic_model::wqe::{self, *};

#[path = "common/seeded.rs"]
mod seeded;
use seeded::config;

const DATA: u64 = 0x10000;
const DATA_LEN: usize = 0x20000;
const RING: u64 = 0x100000;
const CQ: u64 = 0x200000;
const UD: u32 = 0x31;
const RC: u32 = 0x32;
const QKEY: u32 = 0x1111_2222;

/// An IPoIB header template: encapsulation header, IPv4 or IPv6, TCP, with `protocol` as the IP
/// protocol (6 for TCP).
fn template(ipv4: bool, protocol: u8) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&(if ipv4 { 0x0800u16 } else { 0x86DD }).to_be_bytes());
    h.extend_from_slice(&[0, 0]);
    if ipv4 {
        h.extend_from_slice(&[0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, protocol, 0, 0]);
        h.extend_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
    } else {
        h.extend_from_slice(&[0x60, 0, 0, 0, 0, 0, protocol, 64]);
        h.extend_from_slice(&[0xfd; 16]);
        h.extend_from_slice(&[0xfe; 16]);
    }
    // Ports, sequence, ack, data offset 5, flags CWR|PSH|ACK|FIN, window, checksum, urgent.
    h.extend_from_slice(&[0x30, 0x39, 0x01, 0xBB, 0xAB, 0xCD, 0xEF, 0x00, 0, 0, 0, 7]);
    h.extend_from_slice(&[0x50, 0x80 | 0x08 | 0x10 | 0x01, 0xFF, 0xFF, 0, 0, 0, 0]);
    h
}

struct Nic1 {
    e: SendEngine,
    q: Queues,
    mem: HostMemory,
    posted: [u32; 2],
}

fn nic(tso: Option<Limits>, mtu: PathMtu) -> Nic1 {
    let mut e = SendEngine::new(
        Nic {
            mac: EthernetAddress([2, 0, 0, 0, 0, 1]),
            ipv4: Ipv4Address::new(10, 0, 0, 1),
            ipv6: Ipv6Address([0xfd; 16]),
        },
        Profile::Linux,
    );
    e.tso = tso;
    e.mrs
        .register(MemoryRegion {
            lkey: 0x100,
            base: DATA,
            length: DATA_LEN as u64,
            pd: 1,
            access: Access::LOCAL_WRITE,
        })
        .unwrap();
    let mut q = Queues::new(CompletionRing::new(Ring::new(8).unwrap(), 0).unwrap(), CQ);
    for (i, (qpn, qp_type)) in [(UD, QpType::Ud), (RC, QpType::Rc)].into_iter().enumerate() {
        let av = (qp_type == QpType::Rc).then(|| {
            rocenic_model::qp::AddressVector::new(
                rocenic_model::qp::IpPair::V4 {
                    src: Ipv4Address::new(10, 0, 0, 1),
                    dst: Ipv4Address::new(10, 0, 0, 2),
                },
                EthernetAddress([2, 0, 0, 0, 0, 1]),
                EthernetAddress([2, 0, 0, 0, 0, 2]),
            )
        });
        let cfg = QpConfig {
            qp_type,
            pd: 1,
            mtu,
            psn: Psn::new(0xFF_FFFE).unwrap(),
            dest_qpn: 0x41,
            q_key: QKEY,
            av,
        };
        e.qps.create(qpn, cfg).unwrap();
        e.qps.bring_up(qpn).unwrap();
        let ring = SendRing::new(Ring::new(6).unwrap(), 4, RING + i as u64 * 0x10000).unwrap();
        q.attach(qpn, ring, 0).unwrap();
    }
    let mut mem = HostMemory::new();
    mem.add(DATA, DATA_LEN, Fill::Counter).unwrap();
    mem.add(RING, 0x20000, Fill::Zero).unwrap();
    mem.add(CQ, 32 << 8, Fill::Zero).unwrap();
    Nic1 {
        e,
        q,
        mem,
        posted: [0; 2],
    }
}

impl Nic1 {
    /// Posts a TSO WQE on `qpn` (gathered from `sges` of (offset, length)) and runs the engine:
    /// its frames and completion.
    fn tso(
        &mut self,
        qpn: u32,
        header: &[u8],
        mss: u16,
        sges: &[(u64, u32)],
    ) -> (Vec<Vec<u8>>, Cqe) {
        let k = usize::from(qpn == RC);
        let index = self.posted[k];
        let segs: Vec<DataSegment> = sges
            .iter()
            .map(|&(off, length)| DataSegment {
                addr: DATA + off,
                length,
                lkey: 0x100,
            })
            .collect();
        let wr = WorkRequest {
            opcode: Opcode::Tso,
            flags: Flags::SIGNALED,
            index,
            imm: 0,
            wr_id: 0x7000 + u64::from(index),
            av: (qpn == UD).then_some(wqe::AddressVector {
                dqpn: 0x41,
                qkey: QKEY,
                dgid: [0xfe; 16],
                dmac: [2, 0, 0, 0, 0, 2],
                vlan: None,
                flow_label: 0,
                tclass: 0,
                hop_limit: 64,
            }),
            raddr: None,
            payload: Payload::Gather(&segs),
            tso: Some(Tso { mss, header }),
        };
        let mut bytes = vec![0u8; MAX_WQE_BYTES];
        Wqe::encode(&wr, &mut bytes).unwrap();
        let ring = SendRing::new(Ring::new(6).unwrap(), 4, RING + k as u64 * 0x10000).unwrap();
        self.mem.write(ring.addr(index), &bytes).unwrap();
        self.posted[k] = index + 1;
        self.q.doorbell(qpn, index + 1).unwrap();
        let mut frames = Vec::new();
        let step = self
            .q
            .step(&mut self.e, &mut self.mem, &mut |f: &[u8]| {
                frames.push(f.to_vec())
            })
            .unwrap();
        let Step::Ran {
            cqe: Some((_, c)), ..
        } = step
        else {
            panic!("one WQE ran with a completion: {step:?}");
        };
        let n = self.q.cq().producer();
        self.q.cq_doorbell(n).unwrap();
        (frames, c)
    }
}

proptest! {
    #![proptest_config(config("wqe_tso::segments_reassemble", 64))]

    /// Random payloads, MSSs and gather lists: as many UD packets as segments, PSNs in a row,
    /// every segment checked by the independent checker, the payload reassembled.
    #[test]
    fn segments_reassemble(
        ipv4 in any::<bool>(),
        len in 0u32..20_000,
        mss_frac in 1u32..=100,
        split in prop::collection::vec(1u32..=100, 1..4),
        off in 0u64..0x1000,
    ) {
        let mut n = nic(Some(Limits::default()), PathMtu::Mtu2048);
        let header = template(ipv4, 6);
        let room = 2048 - header.len() as u32;
        let mss = (room * mss_frac / 100).max(1) as u16;
        // Entry lengths summing to len (no zero-length entry: an empty payload has none).
        let total: u32 = split.iter().sum();
        let mut lens: Vec<u32> = split.iter().map(|s| len * s / total).filter(|&l| l > 0).collect();
        let sum: u32 = lens.iter().sum();
        if len > sum {
            lens.push(len - sum);
        }
        let mut at = off;
        let sges: Vec<(u64, u32)> = lens.iter().map(|&l| { let s = (at, l); at += u64::from(l) + 3; s }).collect();
        let first_psn = n.e.qps.get(UD).unwrap().next_psn();
        let (frames, c) = n.tso(UD, &header, mss, &sges);
        prop_assert_eq!((c.status, c.byte_len, c.opcode), (Status::Success, len, Some(Opcode::Tso)));
        let count = (len as usize).div_ceil(usize::from(mss)).max(1);
        prop_assert_eq!(frames.len(), count);
        let mut payload = Vec::new();
        for (i, f) in frames.iter().enumerate() {
            let r = RoceFrame::parse(f).unwrap();
            prop_assert!(r.is_valid(), "segment {} ICRC", i);
            let bth = r.bth();
            prop_assert_eq!(bth.opcode(), op::UD_SEND_ONLY);
            prop_assert_eq!(bth.dest_qpn(), 0x41);
            prop_assert_eq!(bth.psn(), first_psn.add(i as u32).get());
            let body = r.bth_payload();
            prop_assert_eq!(&body[..4], &QKEY.to_be_bytes()[..]);
            prop_assert_eq!(&body[5..8], &UD.to_be_bytes()[1..]);
            let seg = &body[DETH_LEN..body.len() - usize::from(bth.pad_count())];
            prop_assert!(seg.len() <= 2048);
            let info = verify_segment(LinkType::Ipoib, seg).map_err(|e| TestCaseError::fail(format!("segment {i}: {e}")))?;
            prop_assert_eq!(info.seq, 0xABCD_EF00u32.wrapping_add(i as u32 * u32::from(mss)));
            prop_assert_eq!(info.flags & 0x80 != 0, i == 0, "CWR on the first only");
            prop_assert_eq!(info.flags & 0x09 != 0, i + 1 == count, "FIN and PSH on the last only");
            if ipv4 {
                prop_assert_eq!(info.ipv4_ident, Some(0x1234u16.wrapping_add(i as u16)));
            }
            payload.extend_from_slice(info.payload);
        }
        let mut want = Vec::new();
        for &(o, l) in &sges {
            let mut b = vec![0u8; l as usize];
            n.mem.read(DATA + o, &mut b).unwrap();
            want.extend(b);
        }
        prop_assert_eq!(payload, want);
    }
}

/// A refusal: name, the engine's TSO, QP, template, MSS, payload length, status.
type Refusal = (&'static str, Option<Limits>, u32, Vec<u8>, u16, u32, Status);

#[test]
fn refusals() {
    let v4 = template(true, 6);
    let cases: [Refusal; 7] = [
        (
            "MSS 0",
            Some(Limits::default()),
            UD,
            v4.clone(),
            0,
            100,
            Status::LocQpOpErr,
        ),
        (
            "not TCP",
            Some(Limits::default()),
            UD,
            template(true, 17),
            500,
            100,
            Status::LocQpOpErr,
        ),
        (
            "header too long",
            Some(Limits {
                max_header: 40,
                ..Limits::default()
            }),
            UD,
            v4.clone(),
            500,
            100,
            Status::LocQpOpErr,
        ),
        (
            "past max_tso",
            Some(Limits {
                max_tso: 1000,
                ..Limits::default()
            }),
            UD,
            v4.clone(),
            500,
            1001,
            Status::LocLenErr,
        ),
        (
            "segment past the MTU",
            Some(Limits::default()),
            UD,
            v4.clone(),
            1024 - 44 + 1,
            2000,
            Status::LocLenErr,
        ),
        (
            "on RC",
            Some(Limits::default()),
            RC,
            v4.clone(),
            500,
            100,
            Status::LocQpOpErr,
        ),
        (
            "no TSO in the engine",
            None,
            UD,
            v4.clone(),
            500,
            100,
            Status::LocQpOpErr,
        ),
    ];
    for (name, limits, qpn, header, mss, len, status) in cases {
        let mut n = nic(limits, PathMtu::Mtu1024);
        let (frames, c) = n.tso(qpn, &header, mss, &[(0, len)]);
        assert_eq!(c.status, status, "{name}");
        assert!(frames.is_empty(), "{name}: nothing sent");
        // An engine without TSO does not know the opcode.
        let known = limits.is_some();
        assert_eq!(c.opcode, known.then_some(Opcode::Tso), "{name}");
    }
    // The largest segment that fits: header + MSS = MTU.
    let mut n = nic(Some(Limits::default()), PathMtu::Mtu1024);
    let (frames, c) = n.tso(UD, &v4, 1024 - 44, &[(0, 2000)]);
    assert_eq!((c.status, frames.len()), (Status::Success, 3));
}
