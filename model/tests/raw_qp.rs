//! Raw-packet QPs (verbs `IBV_QPT_RAW_PACKET`) from NIC A's send engine to NIC B's raw work
//! queues: a SEND puts the gathered (or inline) bytes on the wire as one frame, unchanged but
//! padded to Ethernet's minimum; a TSO work request becomes the segments of its Ethernet header
//! template. Every frame is held byte for byte against one built by hand with `model::wire`,
//! checked by the independent segment checker, steered on B (a rule, or an RSS context) and
//! landed whole. Then every refusal with its status, and the capability that lets a table hold
//! raw QPs at all.

use rocenic_model::entropy::Profile;
use rocenic_model::nic::NicModel;
use rocenic_model::qp::{
    Access, MemoryRegion, PathMtu, Psn, QpConfig, QpError, QpKind, QpState, Status,
};
use rocenic_model::rss::steer::{Action, Rule, SteeringKey};
use rocenic_model::rss::{Function, HashFields};
use rocenic_model::rx::{RecvCqe, RecvFlags, RecvRing, RecvWqe, WqConfig, WqState};
use rocenic_model::toeplitz::MICROSOFT_KEY;
use rocenic_model::tso::{verify_segment, Limits};
use rocenic_model::wire::checksum::IpPseudo;
use rocenic_model::wire::{
    EthernetAddress, EthernetFrame, EthernetRepr, Ipv4Address, Ipv4Packet, Ipv4Repr, Ipv6Address,
    Ipv6Packet, Ipv6Repr, LinkType, TcpFlags, TcpPacket, TcpRepr, UdpPacket, VlanTag,
};
use rocenic_model::wqe::check::{MAX_RAW_FRAME, MIN_RAW_FRAME};
use rocenic_model::wqe::{self, *};

const DATA: u64 = 0x10000;
const DATA_LEN: usize = 0x20000;
/// A region the host does not back: a read there faults.
const HOLE: u64 = 0x40000;
const RING: u64 = 0x100000;
const CQ: u64 = 0x200000;
const RBUF: u64 = 0x1000000;
/// A receive buffer: room for the port's largest frame.
const RBUF_STEP: u64 = 0x1100;
const RX_RINGS: u64 = 0x800000;
const RAW_A: u32 = 0x15;
const RAW_B: u32 = 0x25;
/// B's raw work queues: 0 and 1 behind RSS context 0, 2 behind a rule.
const WQS: u16 = 3;
/// The EtherType B's rule sends to work queue 2 (IEEE's local experimental one).
const EXPERIMENTAL: u16 = 0x88B5;

const MAC_A: EthernetAddress = EthernetAddress([2, 0, 0, 0, 0, 1]);
const MAC_B: EthernetAddress = EthernetAddress([2, 0, 0, 0, 0, 2]);

fn addresses(n: u8) -> Nic {
    Nic {
        mac: EthernetAddress([2, 0, 0, 0, 0, n]),
        ipv4: Ipv4Address::new(10, 0, 0, n),
        ipv6: Ipv6Address([0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n]),
    }
}

fn raw() -> QpConfig {
    QpConfig {
        qp_type: QpKind::Raw,
        pd: 1,
        mtu: PathMtu::Mtu1024,
        psn: Psn::new(0).unwrap(),
        dest_qpn: 0,
        q_key: 0,
        av: None,
    }
}

/// A NIC with raw QPs, TSO as given, a raw QP `qpn`, regions over DATA (backed, counter
/// bytes), HOLE (not backed) and the receive buffers.
fn nic(n: u8, qpn: u32, tso: Option<Limits>) -> (NicModel, HostMemory) {
    let mut send = SendEngine::new(addresses(n), Profile::Linux);
    send.tso = tso;
    send.qps.set_raw(true);
    for (lkey, base, len) in [
        (0x100, DATA, DATA_LEN as u64),
        (0x200, RBUF, 0x100000),
        (0x300, HOLE, 0x1000),
    ] {
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
    send.qps.create(qpn, raw()).unwrap();
    send.qps.bring_up(qpn).unwrap();
    let mut queues = Queues::new(CompletionRing::new(Ring::new(8).unwrap(), 0).unwrap(), CQ);
    queues
        .attach(
            qpn,
            SendRing::new(Ring::new(6).unwrap(), 4, RING).unwrap(),
            0,
        )
        .unwrap();
    let mut mem = HostMemory::new();
    mem.add(DATA, DATA_LEN, Fill::Counter).unwrap();
    mem.add(RING, 0x10000, Fill::Zero).unwrap();
    mem.add(CQ, 0x10000, Fill::Zero).unwrap();
    mem.add(RBUF, 0x100000, Fill::Zero).unwrap();
    mem.add(RX_RINGS, 0x40000, Fill::Zero).unwrap();
    (NicModel::new(send, queues), mem)
}

/// A sends, B receives on raw work queues.
struct Pair {
    a: NicModel,
    amem: HostMemory,
    b: NicModel,
    bmem: HostMemory,
    posted: u32,
    taken: [u32; WQS as usize],
}

impl Pair {
    fn new(tso: Option<Limits>) -> Pair {
        let (a, amem) = nic(1, RAW_A, tso);
        let (mut b, mut bmem) = nic(2, RAW_B, tso);
        for w in 0..WQS {
            let base = RX_RINGS + u64::from(w) * 0x10000;
            let cfg = WqConfig {
                qpn: RAW_B,
                pd: 1,
                ring: RecvRing::new(Ring::new(6).unwrap(), 1, base).unwrap(),
                cq: CompletionRing::new(Ring::new(6).unwrap(), 0).unwrap(),
                cq_base: base + 0x8000,
                raw: true,
            };
            b.rx.create_wq(w, cfg).unwrap();
            b.rx.modify_wq(w, WqState::Ready).unwrap();
            for i in 0..64u32 {
                let sge = DataSegment {
                    addr: Self::rbuf(w, i),
                    length: RBUF_STEP as u32,
                    lkey: 0x200,
                };
                let mut slot = [0u8; 64];
                RecvWqe::new(u64::from(w) << 16 | u64::from(i), &[sge])
                    .unwrap()
                    .encode(&mut slot)
                    .unwrap();
                bmem.write(cfg.ring.addr(i), &slot).unwrap();
            }
            b.rx.post(w, 64).unwrap();
        }
        // Frames no rule takes hash over their flow (context 0 over queues 0 and 1); the
        // experimental EtherType goes to queue 2.
        b.steering
            .set_context(
                0,
                Function::Toeplitz,
                HashFields::DEFAULT,
                &MICROSOFT_KEY,
                &[0, 1],
            )
            .unwrap();
        let rule = Rule {
            enabled: true,
            value: SteeringKey {
                ethertype: EXPERIMENTAL,
                ..SteeringKey::default()
            },
            mask: SteeringKey {
                ethertype: 0xFFFF,
                ..SteeringKey::default()
            },
            action: Action::Queue(2),
        };
        b.steering.set_rule(0, rule).unwrap();
        Pair {
            a,
            amem,
            b,
            bmem,
            posted: 0,
            taken: [0; WQS as usize],
        }
    }

    fn rbuf(w: u16, i: u32) -> u64 {
        RBUF + (u64::from(w) * 64 + u64::from(i)) * RBUF_STEP
    }

    /// Posts `wr` on A's raw QP and runs one turn: the frames and the completion.
    fn send(&mut self, wr: &WorkRequest<'_>) -> (Vec<Vec<u8>>, Option<Cqe>) {
        let wr = WorkRequest {
            index: self.posted,
            ..*wr
        };
        let mut bytes = vec![0u8; MAX_WQE_BYTES];
        Wqe::encode(&wr, &mut bytes).unwrap();
        let slot = SendRing::new(Ring::new(6).unwrap(), 4, RING)
            .unwrap()
            .addr(self.posted);
        self.amem.write(slot, &bytes).unwrap();
        self.posted += 1;
        self.a.queues.doorbell(RAW_A, self.posted).unwrap();
        let mut wire = Vec::new();
        let step = self
            .a
            .send_step(&mut self.amem, &mut |f: &[u8]| wire.push(f.to_vec()))
            .unwrap();
        let Step::Ran { cqe, .. } = step else {
            panic!("one WQE ran: {step:?}");
        };
        let n = self.a.queues.cq().producer();
        self.a.queues.cq_doorbell(n).unwrap();
        (wire, cqe.map(|(_, c)| c))
    }

    /// Offers `frame` to B: the work queue it landed in, its completion and the bytes landed.
    fn deliver(&mut self, frame: &[u8]) -> (u16, RecvCqe, Vec<u8>) {
        let got = self.b.receive(&mut self.bmem, frame).unwrap();
        let w = got.wq.expect("raw frames land in a work queue");
        let (i, c) = got.completion.expect("every raw frame completes a WQE");
        assert_eq!(i, self.taken[usize::from(w)], "queue {w} in order");
        self.taken[usize::from(w)] += 1;
        assert_eq!((c.status, c.qpn), (Status::Success, RAW_B));
        let mut landed = vec![0u8; c.byte_len as usize];
        self.bmem.read(Self::rbuf(w, i), &mut landed).unwrap();
        (w, c, landed)
    }
}

/// A SEND of `sges` (offset in DATA, length) or inline bytes.
fn send_wr(payload: Payload<'_>) -> WorkRequest<'_> {
    WorkRequest {
        opcode: Opcode::Send,
        flags: Flags::SIGNALED,
        index: 0,
        imm: 0,
        wr_id: 0x5EED,
        av: None,
        raddr: None,
        payload,
        tso: None,
    }
}

fn gather_list(sges: &[(u64, u32)], lkey: u32) -> Vec<DataSegment> {
    sges.iter()
        .map(|&(off, length)| DataSegment {
            addr: DATA + off,
            length,
            lkey,
        })
        .collect()
}

/// A TCP flow's headers, built with `model::wire` rather than by the segmenter.
#[derive(Clone, Copy)]
struct Flow {
    vlan: Option<u16>,
    ipv4: bool,
    seq: u32,
    ident: u16,
}

const TS_OPTION: [u8; 12] = [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];

impl Flow {
    /// One whole frame: Ethernet (tagged or not), IPv4 (ID `ident`) or IPv6, TCP with a
    /// timestamp option, sequence `seq` and `flags`, then `payload`; lengths and checksums
    /// filled.
    fn frame(&self, seq: u32, ident: u16, flags: TcpFlags, payload: &[u8]) -> Vec<u8> {
        let eth = EthernetRepr {
            dst: MAC_B,
            src: MAC_A,
            vlan: self.vlan.map(|vid| VlanTag {
                tpid: 0x8100,
                pcp: 3,
                dei: false,
                vid,
            }),
            ethertype: if self.ipv4 { 0x0800 } else { 0x86DD },
        };
        let mut tcp = TcpRepr {
            src_port: 40000,
            dst_port: 5001,
            seq,
            ack: 0x0102_0304,
            flags,
            window: 0xFFFF,
            urgent: 0,
            options: [0; 40],
            options_len: 0,
        };
        tcp.set_options(&TS_OPTION).unwrap();
        let tcp_len = tcp.header_len() + payload.len();
        let l3 = eth.header_len();
        let ip_len = if self.ipv4 { 20 } else { 40 };
        let mut f = vec![0u8; l3 + ip_len + tcp_len];
        eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]))
            .unwrap();
        let pseudo = if self.ipv4 {
            let (src, dst) = (Ipv4Address::new(10, 0, 0, 1), Ipv4Address::new(10, 0, 0, 2));
            let ip = Ipv4Repr {
                ident,
                ..Ipv4Repr::new(src, dst, 6, tcp_len)
            };
            ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[l3..]))
                .unwrap();
            IpPseudo::V4 {
                src,
                dst,
                protocol: 6,
            }
        } else {
            let (src, dst) = (addresses(1).ipv6, addresses(2).ipv6);
            let ip = Ipv6Repr {
                src,
                dst,
                next_header: 6,
                payload_len: tcp_len,
                hop_limit: 64,
                traffic_class: 0x20,
                flow_label: 0x12345,
            };
            ip.emit(&mut Ipv6Packet::new_unchecked(&mut f[l3..]))
                .unwrap();
            IpPseudo::V6 {
                src,
                dst,
                next_header: 6,
            }
        };
        let at = l3 + ip_len;
        let mut t = TcpPacket::new_unchecked(&mut f[at..]);
        tcp.emit(&mut t).unwrap();
        let hl = tcp.header_len();
        f[at + hl..].copy_from_slice(payload);
        TcpPacket::new_unchecked(&mut f[at..]).fill_checksum(&pseudo);
        f
    }

    /// The template a host hands: the headers of a frame with no payload, CWR, PSH and FIN set
    /// (the segmenter keeps each on the segments it belongs to).
    fn template(&self) -> Vec<u8> {
        self.frame(self.seq, self.ident, all_flags(), &[])
    }
}

fn all_flags() -> TcpFlags {
    TcpFlags::from_bits(
        TcpFlags::CWR.bits() | TcpFlags::PSH.bits() | TcpFlags::ACK.bits() | TcpFlags::FIN.bits(),
    )
}

/// `f` as the wire carries it: zeros to 60 bytes.
fn padded(f: &[u8]) -> Vec<u8> {
    let mut v = f.to_vec();
    if v.len() < 60 {
        v.resize(60, 0);
    }
    v
}

/// Writes `f` into A's memory at DATA + `off` (the region's counter bytes elsewhere).
fn place(p: &mut Pair, off: u64, f: &[u8]) {
    p.amem.write(DATA + off, f).unwrap();
}

#[test]
fn a_send_is_the_frame_as_given() {
    let mut p = Pair::new(Some(Limits::default()));
    // An IPv4/UDP frame with its checksums, gathered from three entries cut at odd places.
    let mut udp = vec![0u8; 14 + 20 + 8 + 101];
    EthernetRepr {
        dst: MAC_B,
        src: MAC_A,
        vlan: None,
        ethertype: 0x0800,
    }
    .emit(&mut EthernetFrame::new_unchecked(&mut udp[..]))
    .unwrap();
    let (src, dst) = (Ipv4Address::new(10, 0, 0, 1), Ipv4Address::new(10, 0, 0, 2));
    Ipv4Repr::new(src, dst, 17, 8 + 101)
        .emit(&mut Ipv4Packet::new_unchecked(&mut udp[14..]))
        .unwrap();
    {
        let u = &mut udp[34..];
        u[0..2].copy_from_slice(&9999u16.to_be_bytes());
        u[2..4].copy_from_slice(&7777u16.to_be_bytes());
        u[4..6].copy_from_slice(&109u16.to_be_bytes());
        for (i, b) in u[8..].iter_mut().enumerate() {
            *b = i as u8 ^ 0x5A;
        }
        let mut pk = UdpPacket::new_unchecked(&mut *u);
        let sum = pk.compute_checksum(&IpPseudo::V4 {
            src,
            dst,
            protocol: 17,
        });
        pk.set_checksum(sum);
    }
    place(&mut p, 0x1001, &udp[..17]);
    place(&mut p, 0x2003, &udp[17..100]);
    place(&mut p, 0x3005, &udp[100..]);
    let sges = gather_list(&[(0x1001, 17), (0x2003, 83), (0x3005, 43)], 0x100);
    let (wire, c) = p.send(&send_wr(Payload::Gather(&sges)));
    let c = c.unwrap();
    assert_eq!(
        (c.status, c.byte_len, c.opcode),
        (Status::Success, 143, Some(Opcode::Send))
    );
    assert_eq!((c.wr_id, c.qpn), (0x5EED, RAW_A));
    assert_eq!(wire, vec![udp.clone()], "the frame, unchanged");
    let (w, rc, landed) = p.deliver(&wire[0]);
    assert!(w < 2, "hashed onto context 0's queues");
    assert_eq!(landed, udp, "landed whole");
    assert!(
        rc.flags.contains(RecvFlags::CSUM_OK),
        "IPv4 and UDP checksums good"
    );
    assert!(rc.flags.contains(RecvFlags::HASHED));

    // The shortest frame, an Ethernet header alone, inline: padded to 60 on the wire; the rule
    // steers it to queue 2.
    let mut hdr = [0u8; 14];
    EthernetRepr {
        dst: MAC_B,
        src: MAC_A,
        vlan: None,
        ethertype: EXPERIMENTAL,
    }
    .emit(&mut EthernetFrame::new_unchecked(&mut hdr[..]))
    .unwrap();
    assert_eq!(hdr.len(), MIN_RAW_FRAME);
    let (wire, c) = p.send(&send_wr(Payload::Inline(&hdr)));
    assert_eq!(
        c.map(|c| (c.status, c.byte_len)),
        Some((Status::Success, 14))
    );
    assert_eq!(wire, vec![padded(&hdr)]);
    let (w, rc, landed) = p.deliver(&wire[0]);
    assert_eq!((w, rc.byte_len), (2, 60));
    assert_eq!(landed, padded(&hdr));
    assert!(!rc.flags.contains(RecvFlags::CSUM_OK) && !rc.flags.contains(RecvFlags::HASHED));

    // The port's largest frame (tagged IPv6/TCP), unsignaled: sent, no completion.
    let flow = Flow {
        vlan: Some(100),
        ipv4: false,
        seq: 1,
        ident: 0,
    };
    let body: Vec<u8> = (0..MAX_RAW_FRAME - 18 - 40 - 32).map(|i| i as u8).collect();
    let big = flow.frame(1, 0, TcpFlags::ACK, &body);
    assert_eq!(big.len(), MAX_RAW_FRAME);
    place(&mut p, 0x8000, &big);
    let sges = gather_list(&[(0x8000, 4000), (0x8000 + 4000, 218)], 0x100);
    let unsignaled = WorkRequest {
        flags: Flags::default(),
        ..send_wr(Payload::Gather(&sges))
    };
    let (wire, c) = p.send(&unsignaled);
    assert_eq!((wire, c), (vec![big.clone()], None));
    let (_, rc, landed) = p.deliver(&big);
    assert_eq!(landed, big);
    assert!(rc.flags.contains(RecvFlags::CSUM_OK));
    // No PSN, no entropy: the QP's context did not move.
    let qp = p.a.send.qps.get(RAW_A).unwrap();
    assert_eq!((qp.next_psn().get(), qp.entropy()), (0, None));
}

#[test]
fn a_tso_send_is_the_hand_built_segments() {
    let limits = Limits::default();
    for (vlan, ipv4) in [
        (None, true),
        (Some(7), true),
        (None, false),
        (Some(4094), false),
    ] {
        let flow = Flow {
            vlan,
            ipv4,
            seq: 0xFFFF_F000, // the sequence wraps within the send
            ident: 0xFFFE,    // and so does the IPv4 ID
        };
        let header = flow.template();
        // (payload, MSS): several segments with a short last, an exact multiple, one short
        // segment, none (one header-only segment), and the largest MSS the port's frame allows.
        let largest = (MAX_RAW_FRAME - header.len()) as u16;
        for (len, mss) in [
            (5000u32, 1448u16),
            (4 * 536, 536),
            (100, 1448),
            (0, 1448),
            (9000, largest),
        ] {
            let mut p = Pair::new(Some(limits));
            let sges = gather_list(&[(0x123, len / 3), (0x5000, len - len / 3)], 0x100);
            let sges = &sges[usize::from(len == 0) * 2..];
            let wr = WorkRequest {
                opcode: Opcode::Tso,
                tso: Some(Tso {
                    mss,
                    header: &header,
                }),
                ..send_wr(Payload::Gather(sges))
            };
            let (wire, c) = p.send(&wr);
            let what = format!("vlan {vlan:?} ipv4 {ipv4}, {len} bytes at MSS {mss}");
            let c = c.unwrap();
            assert_eq!(
                (c.status, c.byte_len, c.opcode),
                (Status::Success, len, Some(Opcode::Tso)),
                "{what}: one completion, the payload's length"
            );
            let mut payload = Vec::new();
            for s in sges {
                let mut b = vec![0u8; s.length as usize];
                p.amem.read(s.addr, &mut b).unwrap();
                payload.extend(b);
            }
            let count = (len as usize).div_ceil(usize::from(mss)).max(1);
            assert_eq!(wire.len(), count, "{what}");
            let mut queue = None;
            for (i, f) in wire.iter().enumerate() {
                let piece = payload.chunks(usize::from(mss)).nth(i).unwrap_or_default();
                let mut flags = TcpFlags::ACK.bits();
                if i == 0 {
                    flags |= TcpFlags::CWR.bits();
                }
                if i + 1 == count {
                    flags |= TcpFlags::PSH.bits() | TcpFlags::FIN.bits();
                }
                let want = flow.frame(
                    flow.seq.wrapping_add(i as u32 * u32::from(mss)),
                    flow.ident.wrapping_add(i as u16),
                    TcpFlags::from_bits(flags),
                    piece,
                );
                assert_eq!(*f, padded(&want), "{what}: segment {i}");
                assert!(f.len() <= MAX_RAW_FRAME);
                let info = verify_segment(LinkType::Ethernet, f)
                    .unwrap_or_else(|e| panic!("{what}: segment {i}: {e}"));
                assert_eq!(info.payload, piece);
                let (w, rc, landed) = p.deliver(f);
                assert_eq!(landed, *f, "{what}: segment {i} landed whole");
                assert!(rc.flags.contains(RecvFlags::CSUM_OK), "{what}: segment {i}");
                assert_eq!(queue.replace(w).unwrap_or(w), w, "one flow, one queue");
            }
        }
    }
}

/// A refusal: name, the engine's TSO, the work request's fields, and the status.
struct Refusal {
    name: &'static str,
    tso: Option<Limits>,
    opcode: Opcode,
    av: bool,
    raddr: bool,
    /// (offset in DATA or HOLE, length, lkey) entries.
    sges: Vec<(u64, u32, u32)>,
    header: Vec<u8>,
    mss: u16,
    status: Status,
}

fn refusal(name: &'static str, opcode: Opcode, len: u32, status: Status) -> Refusal {
    Refusal {
        name,
        tso: Some(Limits::default()),
        opcode,
        av: false,
        raddr: false,
        sges: vec![(0, len, 0x100)],
        header: Vec::new(),
        mss: 0,
        status,
    }
}

fn tso(name: &'static str, header: Vec<u8>, mss: u16, len: u32, status: Status) -> Refusal {
    Refusal {
        header,
        mss,
        ..refusal(name, Opcode::Tso, len, status)
    }
}

#[test]
fn refusals() {
    let v4 = Flow {
        vlan: None,
        ipv4: true,
        seq: 0,
        ident: 0,
    }
    .template();
    let mut udp = v4.clone();
    udp[14 + 9] = 17;
    // An IPoIB template (a UD QP's) is not an Ethernet one.
    let mut ipoib = vec![0x08, 0x00, 0, 0];
    ipoib.extend_from_slice(&v4[14..]);
    let cases = [
        refusal(
            "SEND with immediate",
            Opcode::SendImm,
            60,
            Status::LocQpOpErr,
        ),
        Refusal {
            raddr: true,
            ..refusal("RDMA WRITE", Opcode::RdmaWrite, 60, Status::LocQpOpErr)
        },
        Refusal {
            raddr: true,
            ..refusal(
                "RDMA WRITE with immediate",
                Opcode::RdmaWriteImm,
                60,
                Status::LocQpOpErr,
            )
        },
        Refusal {
            av: true,
            ..refusal("an address vector", Opcode::Send, 60, Status::LocQpOpErr)
        },
        refusal(
            "one byte short of a header",
            Opcode::Send,
            13,
            Status::LocLenErr,
        ),
        refusal(
            "one byte past the port's frame",
            Opcode::Send,
            MAX_RAW_FRAME as u32 + 1,
            Status::LocLenErr,
        ),
        Refusal {
            sges: vec![(0, 30, 0x100), (100, 0, 0x100)],
            ..refusal("a zero-length entry", Opcode::Send, 0, Status::LocLenErr)
        },
        Refusal {
            sges: vec![(0, 30, 0x100), (100, 30, 0x900)],
            ..refusal("an unknown lkey", Opcode::Send, 0, Status::LocProtErr)
        },
        Refusal {
            sges: vec![(DATA_LEN as u64 - 10, 30, 0x100)],
            ..refusal("past its region", Opcode::Send, 0, Status::LocProtErr)
        },
        Refusal {
            sges: vec![(0, 30, 0x100), (HOLE - DATA, 64, 0x300)],
            ..refusal(
                "memory the host does not back",
                Opcode::Send,
                0,
                Status::GeneralErr,
            )
        },
        Refusal {
            tso: None,
            ..tso(
                "TSO on an engine without it",
                v4.clone(),
                500,
                1000,
                Status::LocQpOpErr,
            )
        },
        tso("MSS 0", v4.clone(), 0, 1000, Status::LocQpOpErr),
        tso("a UDP template", udp, 500, 1000, Status::LocQpOpErr),
        tso("an IPoIB template", ipoib, 500, 1000, Status::LocQpOpErr),
        Refusal {
            tso: Some(Limits {
                max_header: 40,
                ..Limits::default()
            }),
            ..tso(
                "a template past max_header",
                v4.clone(),
                500,
                1000,
                Status::LocQpOpErr,
            )
        },
        Refusal {
            tso: Some(Limits {
                max_tso: 999,
                ..Limits::default()
            }),
            ..tso(
                "a payload past max_tso",
                v4.clone(),
                500,
                1000,
                Status::LocLenErr,
            )
        },
        tso(
            "a segment past the port's frame",
            v4.clone(),
            (MAX_RAW_FRAME - v4.len() + 1) as u16,
            9000,
            Status::LocLenErr,
        ),
        Refusal {
            sges: vec![(0, 1000, 0x100), (HOLE - DATA, 3000, 0x300)],
            ..tso(
                "TSO from memory the host does not back",
                v4.clone(),
                1000,
                0,
                Status::GeneralErr,
            )
        },
    ];
    for r in cases {
        let mut p = Pair::new(r.tso);
        let sges: Vec<DataSegment> = r
            .sges
            .iter()
            .map(|&(off, length, lkey)| DataSegment {
                addr: DATA + off,
                length,
                lkey,
            })
            .collect();
        let wr = WorkRequest {
            opcode: r.opcode,
            imm: u32::from(r.opcode.has_imm()) * 0x1234,
            av: r.av.then_some(wqe::AddressVector {
                dqpn: 0x41,
                qkey: 1,
                dgid: [0xfe; 16],
                dmac: MAC_B.0,
                vlan: None,
                flow_label: 0,
                tclass: 0,
                hop_limit: 64,
            }),
            raddr: r.raddr.then_some(RemoteAddress {
                addr: 0x1000,
                rkey: 0x77,
            }),
            tso: (r.opcode == Opcode::Tso).then_some(Tso {
                mss: r.mss,
                header: &r.header,
            }),
            ..send_wr(Payload::Gather(&sges))
        };
        let (wire, c) = p.send(&wr);
        let c = c.unwrap_or_else(|| panic!("{}: completes, signaled or not", r.name));
        assert_eq!(c.status, r.status, "{}", r.name);
        // A fault after a segment went out leaves it sent; every other refusal sends nothing.
        let sent = usize::from(r.name == "TSO from memory the host does not back");
        assert_eq!(wire.len(), sent, "{}", r.name);
        let known = r.tso.is_some() || r.opcode != Opcode::Tso;
        assert_eq!(c.opcode, known.then_some(r.opcode), "{}", r.name);
        assert_eq!(c.byte_len, 0, "{}", r.name);
        // The QP is in ERR: the next WQE, good as it is, flushes.
        assert_eq!(p.a.send.qps.get(RAW_A).unwrap().state(), QpState::Err);
        place(&mut p, 0, &padded(&[0xFF; 14]));
        let good = gather_list(&[(0, 60)], 0x100);
        let (wire, c) = p.send(&send_wr(Payload::Gather(&good)));
        assert!(wire.is_empty(), "{}", r.name);
        assert_eq!(c.map(|c| c.status), Some(Status::WrFlushErr), "{}", r.name);
    }
    // At the edges: both lengths pass.
    for len in [MIN_RAW_FRAME as u32, MAX_RAW_FRAME as u32] {
        let mut p = Pair::new(None);
        let sges = gather_list(&[(0, len)], 0x100);
        let (wire, c) = p.send(&send_wr(Payload::Gather(&sges)));
        assert_eq!(c.map(|c| c.status), Some(Status::Success));
        assert_eq!(wire[0].len(), (len as usize).max(60));
    }
}

#[test]
fn raw_qps_are_a_capability_of_the_table() {
    // The default engine, as the RTL's: it has none, and refuses one as its QP_WRITE does.
    let mut e = SendEngine::<4, 4>::new(addresses(1), Profile::Linux);
    assert!(!e.qps.raw());
    assert_eq!(
        e.qps.create(RAW_A, raw()).err(),
        Some(QpError::RawUnsupported)
    );
    let ring = SendRing::new(Ring::new(6).unwrap(), 4, RING).unwrap();
    let writes = wqe::regs::qp_writes(RAW_A, &raw(), &ring, RING);
    let flags = writes[1].1;
    assert_eq!(wqe::regs::qp_flags::RAW.get(flags), 1);
    assert_eq!(
        wqe::regs::qp_flags::MTU.get(flags),
        0,
        "an MTU code the RTL refuses"
    );
    // A raw QP is no RoCE QP: a UD packet for it is discarded as of the wrong transport.
    let (mut a, mut amem) = nic(1, RAW_A, None);
    a.send.qps.create(0x16, raw()).unwrap();
    let ud = QpConfig {
        qp_type: QpKind::Ud,
        q_key: 7,
        ..raw()
    };
    a.send.qps.create(0x17, ud).unwrap();
    for q in [0x16, 0x17] {
        a.send.qps.modify(q, QpState::Init).unwrap();
        a.send.qps.modify(q, QpState::Rtr).unwrap();
        a.rx.attach(
            &a.send.qps,
            q,
            rocenic_model::rx::Target::Rss,
            Psn::new(0).unwrap(),
        )
        .map_or_else(|e| assert_eq!(q, 0x16, "{e}"), |()| assert_eq!(q, 0x17));
    }
    // The RSS target is UD's only; with its own queue the raw QP attaches, and still takes no
    // RoCE packet.
    let base = RX_RINGS;
    a.rx.create_wq(
        9,
        WqConfig {
            qpn: 0x16,
            pd: 1,
            ring: RecvRing::new(Ring::new(6).unwrap(), 1, base).unwrap(),
            cq: CompletionRing::new(Ring::new(6).unwrap(), 0).unwrap(),
            cq_base: base + 0x8000,
            raw: false,
        },
    )
    .unwrap();
    a.rx.attach(
        &a.send.qps,
        0x16,
        rocenic_model::rx::Target::Own(9),
        Psn::new(0).unwrap(),
    )
    .unwrap();
    // A UD SEND from the UD QP's own engine to QP 0x16, looped back.
    a.send.qps.modify(0x17, QpState::Rts).unwrap();
    a.queues
        .attach(
            0x17,
            SendRing::new(Ring::new(6).unwrap(), 4, RING + 0x4000).unwrap(),
            0,
        )
        .unwrap();
    let sge = gather_list(&[(0, 16)], 0x100);
    let wr = WorkRequest {
        av: Some(wqe::AddressVector {
            dqpn: 0x16,
            qkey: 7,
            dgid: addresses(1).ipv6.0,
            dmac: MAC_A.0,
            vlan: None,
            flow_label: 0,
            tclass: 0,
            hop_limit: 64,
        }),
        ..send_wr(Payload::Gather(&sge))
    };
    let mut bytes = vec![0u8; MAX_WQE_BYTES];
    Wqe::encode(&wr, &mut bytes).unwrap();
    amem.write(RING + 0x4000, &bytes).unwrap();
    a.queues.doorbell(0x17, 1).unwrap();
    let mut wire = Vec::new();
    a.send_step(&mut amem, &mut |f: &[u8]| wire.push(f.to_vec()))
        .unwrap();
    assert_eq!(wire.len(), 1);
    assert_eq!(
        a.receive(&mut amem, &wire[0]).err(),
        Some(rocenic_model::rx::Discard::Transport)
    );
}
