//! The frame builder (rtl/wqe/wqe_frame.sv) against model::wqe::frame: random descriptors
//! (IPv4 and IPv6, tagged or not, every RC and UD opcode the model's packets use with their
//! extension headers, and every other RETH/DETH/ImmDt combination the descriptor allows),
//! random field values, payloads of 0 to 4096 bytes at every alignment, random gaps on both
//! inputs and back-pressure on the output; and the full-rate runs behind the throughput figures.
//!
//! Raw-packet QPs' frames (14 to 4,218 bytes, the descriptor's other fields random) come among
//! them and on their own, every length at the short end and the long one.
//!
//! Every frame is compared byte for byte (tkeep's bytes, so tkeep and tlast too) with the
//! model's headers, the payload and the pad (a raw frame: its bytes), and its tuser with the tag
//! and the raw bit.

use rand::Rng;
use rocenic_model::entropy::QpType;
use rocenic_model::qp::{IpPair, PathMtu};
use rocenic_model::wire::ib::{BthRepr, DethRepr, RethRepr};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address};
use rocenic_model::wqe::frame::{header_len, Route, Transport};
use rocenic_model::wqe::packets::Packets;
use rocenic_model::wqe::Opcode;
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use rocenic_sim::wqe::frame::{
    expected, Outcome, Packet, Traffic, WqeFrameRtl, BEAT, MAX_RAW_FRAME,
};

/// Extension headers after the BTH: RETH, DETH, ImmDt.
type Ext = (bool, bool, bool);

/// Every opcode the model's packets carry, with the extension headers each brings: RC SEND
/// and RDMA WRITE (with and without immediate) as ONLY, FIRST, MIDDLE and LAST, UD SEND ONLY.
fn model_opcodes() -> Vec<(u8, Ext)> {
    let mut v: Vec<(u8, Ext)> = Vec::new();
    for qp in [QpType::Rc, QpType::Ud] {
        for op in Opcode::ALL {
            if qp == QpType::Ud && matches!(op, Opcode::RdmaWrite | Opcode::RdmaWriteImm) {
                continue;
            }
            // A three-packet message and a one-packet one.
            for len in [600, 100] {
                for p in Packets::new(qp, op, len, PathMtu::Mtu256) {
                    let e = (p.reth(), p.deth(), p.imm());
                    if !v.iter().any(|&(o, _)| o == p.opcode) {
                        v.push((p.opcode, e));
                    }
                }
            }
        }
    }
    v.sort_unstable();
    v
}

fn random_route(rng: &mut TestRng, v6: bool, vlan: bool) -> Route {
    let ip = if v6 {
        IpPair::V6 {
            src: Ipv6Address(rng.gen()),
            dst: Ipv6Address(rng.gen()),
        }
    } else {
        IpPair::V4 {
            src: Ipv4Address(rng.gen()),
            dst: Ipv4Address(rng.gen()),
        }
    };
    Route {
        src_mac: EthernetAddress(rng.gen()),
        dst_mac: EthernetAddress(rng.gen()),
        vlan: vlan.then(|| (rng.gen_range(0..4096), rng.gen_range(0..8))),
        ip,
        traffic_class: rng.gen(),
        hop_limit: rng.gen(),
        flow_label: rng.gen_range(0..1 << 20),
        udp_sport: rng.gen(),
    }
}

fn random_transport(rng: &mut TestRng, opcode: u8, (reth, deth, imm): Ext) -> Transport {
    Transport {
        bth: BthRepr {
            opcode,
            solicited: rng.gen(),
            migreq: false,
            pad_count: 0,
            tver: 0,
            pkey: 0xFFFF,
            fecn: false,
            becn: false,
            dest_qpn: rng.gen_range(0..1 << 24),
            ack_req: rng.gen(),
            psn: rng.gen_range(0..1 << 24),
        },
        reth: reth.then(|| RethRepr {
            va: rng.gen(),
            rkey: rng.gen(),
            dma_len: rng.gen(),
        }),
        deth: deth.then(|| DethRepr {
            qkey: rng.gen(),
            src_qpn: rng.gen_range(0..1 << 24),
        }),
        imm: imm.then(|| rng.gen()),
    }
}

fn random_len(rng: &mut TestRng) -> usize {
    match rng.gen_range(0..10) {
        0..=2 => rng.gen_range(0..=64),
        3 => rng.gen_range(4080..=4096),
        _ => rng.gen_range(0..=4096),
    }
}

fn packet(rng: &mut TestRng, v6: bool, vlan: bool, op: (u8, Ext), len: usize) -> Packet {
    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    Packet::new(
        random_route(rng, v6, vlan),
        random_transport(rng, op.0, op.1),
        payload,
    )
}

/// A raw-packet QP's frame of `len` bytes, with random values in the descriptor's other fields.
fn raw_packet(rng: &mut TestRng, len: usize) -> Packet {
    let frame: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let (v6, vlan) = (rng.gen(), rng.gen());
    let (route, op) = (
        random_route(rng, v6, vlan),
        (rng.gen(), (rng.gen(), rng.gen(), rng.gen())),
    );
    Packet::raw(route, random_transport(rng, op.0, op.1), frame)
}

/// A random packet: one of the model's opcodes (or, one time in five, any opcode with any
/// extension headers), random fields and length; one in eight a raw frame.
fn random_packet(rng: &mut TestRng, ops: &[(u8, Ext)]) -> Packet {
    if rng.gen_bool(0.125) {
        let len = match rng.gen_range(0..4) {
            0 => rng.gen_range(14..=70),
            1 => rng.gen_range(MAX_RAW_FRAME - 16..=MAX_RAW_FRAME),
            _ => rng.gen_range(14..=MAX_RAW_FRAME),
        };
        return raw_packet(rng, len);
    }
    let op = if rng.gen_bool(0.2) {
        (rng.gen(), (rng.gen(), rng.gen(), rng.gen()))
    } else {
        ops[rng.gen_range(0..ops.len())]
    };
    let (len, v6, vlan) = (random_len(rng), rng.gen(), rng.gen());
    packet(rng, v6, vlan, op, len)
}

/// Runs `packets`, then compares every frame with the model's.
fn check(name: &str, packets: &[Packet], traffic: Traffic, seed: u64) -> Outcome {
    let mut rtl = WqeFrameRtl::new(name);
    let out = rtl
        .run(packets, traffic)
        .unwrap_or_else(|e| panic!("{name}: {e} (seed {seed})"));
    assert_eq!(out.frames.len(), packets.len());
    for (k, (p, f)) in packets.iter().zip(&out.frames).enumerate() {
        let want = expected(p);
        assert!(
            f.bytes == want,
            "{name}: packet {k} (opcode {:#04x}, {} + {} bytes, {:?}, tag {:?}): differs from the \
             model at byte {:?} of {} / {} (seed {seed})",
            p.transport.bth.opcode,
            header_len(&p.route, &p.transport),
            p.payload.len(),
            p.route.ip,
            p.route.vlan,
            f.bytes.iter().zip(&want).position(|(a, b)| a != b),
            f.bytes.len(),
            want.len()
        );
        assert_eq!(
            (f.user, f.raw),
            (p.route.vlan.is_some() && !p.raw, p.raw),
            "{name}: packet {k}: tuser (seed {seed})"
        );
    }
    out
}

#[test]
fn the_model_opcodes_are_all_here() {
    let ops = model_opcodes();
    let codes: Vec<u8> = ops.iter().map(|o| o.0).collect();
    assert_eq!(
        codes,
        [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x64, 0x65]
    );
    // RETH on WRITE FIRST and ONLY, DETH on UD, ImmDt on the *_WITH_IMM ones.
    assert!(
        ops.contains(&(0x0B, (true, false, true))) && ops.contains(&(0x65, (false, true, true)))
    );
}

#[test]
fn random_packets() {
    let name = "wqe_frame_random";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let ops = model_opcodes();
    let packets: Vec<Packet> = (0..400).map(|_| random_packet(&mut rng, &ops)).collect();
    let traffic = Traffic {
        desc_idle: 0.3,
        idle: 0.3,
        stall: 0.3,
        seed,
    };
    let out = check(name, &packets, traffic, seed);
    eprintln!(
        "{name}: {} frames, {} beats, {:.3} beats/cycle under gaps and back-pressure",
        out.frames.len(),
        out.out_beats,
        out.beats_per_cycle()
    );
}

/// Descriptors that come seldom, so that the header side often waits with nothing to do and
/// each new descriptor meets a free header register.
#[test]
fn sparse_descriptors() {
    let name = "wqe_frame_sparse";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let ops = model_opcodes();
    let packets: Vec<Packet> = (0..150)
        .map(|_| {
            let (op, len, v6, vlan) = (
                ops[rng.gen_range(0..ops.len())],
                rng.gen_range(0..=200),
                rng.gen(),
                rng.gen(),
            );
            packet(&mut rng, v6, vlan, op, len)
        })
        .collect();
    let traffic = Traffic {
        desc_idle: 0.95,
        idle: 0.1,
        stall: 0.1,
        seed,
    };
    check(name, &packets, traffic, seed);
}

/// Short runs under the extremes: each input starved or flooding, the output nearly always
/// stalled or never, in turn.
#[test]
fn traffic_extremes() {
    let name = "wqe_frame_extremes";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let ops = model_opcodes();
    for (k, (desc_idle, idle, stall)) in [
        (0.0, 0.0, 0.9),
        (0.0, 0.9, 0.0),
        (0.9, 0.0, 0.0),
        (0.9, 0.9, 0.9),
        (0.5, 0.0, 0.5),
        (0.0, 0.5, 0.5),
    ]
    .into_iter()
    .enumerate()
    {
        let packets: Vec<Packet> = (0..40)
            .map(|_| {
                let (op, len, v6, vlan) = (
                    ops[rng.gen_range(0..ops.len())],
                    rng.gen_range(0..=300),
                    rng.gen(),
                    rng.gen(),
                );
                packet(&mut rng, v6, vlan, op, len)
            })
            .collect();
        let traffic = Traffic {
            desc_idle,
            idle,
            stall,
            seed: seed.wrapping_add(k as u64),
        };
        check(&format!("{name}_{k}"), &packets, traffic, seed);
    }
}

/// Every opcode and header combination with both families, tagged or not, and the payload
/// lengths where the alignment cases change (0 to 17, and the largest), each on its own.
#[test]
fn every_header_form_and_alignment() {
    let name = "wqe_frame_forms";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut forms = model_opcodes();
    // The combinations no model opcode has, up to all three (the 106-byte header with a tag
    // and IPv6).
    for e in 0..8u8 {
        forms.push((0xF0 | e, (e & 4 != 0, e & 2 != 0, e & 1 != 0)));
    }
    let lens: Vec<usize> = (0..=17).chain(4091..=4096).collect();
    let mut packets = Vec::new();
    for &op in &forms {
        for v6 in [false, true] {
            for vlan in [false, true] {
                for &len in &lens {
                    packets.push(packet(&mut rng, v6, vlan, op, len));
                }
            }
        }
    }
    let traffic = Traffic {
        desc_idle: 0.2,
        idle: 0.2,
        stall: 0.2,
        seed,
    };
    let out = check(name, &packets, traffic, seed);
    eprintln!("{name}: {} frames", out.frames.len());
}

/// 4 KiB payloads back to back at full rate: every cycle carries a beat, so a packet takes
/// exactly ceil((header + 4096) / 8) cycles, at most ceil(header / 8) + 512.
#[test]
fn full_rate_4k() {
    let name = "wqe_frame_4k";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let ops = model_opcodes();
    let packets: Vec<Packet> = (0..24)
        .map(|_| {
            let (op, v6, vlan) = (ops[rng.gen_range(0..ops.len())], rng.gen(), rng.gen());
            packet(&mut rng, v6, vlan, op, 4096)
        })
        .collect();
    let out = check(name, &packets, Traffic::FULL_RATE, seed);
    let want: u64 = packets
        .iter()
        .map(|p| p.frame_len().div_ceil(BEAT) as u64)
        .sum();
    let headers: u64 = packets
        .iter()
        .map(|p| header_len(&p.route, &p.transport).div_ceil(BEAT) as u64 + 512)
        .sum();
    eprintln!(
        "{name}: {} packets of 4096 bytes: {} beats in {} cycles ({:.4} beats/cycle), {:.1} \
         cycles per packet (ceil(header/8) + 512: {:.1})",
        packets.len(),
        out.out_beats,
        out.out_span,
        out.beats_per_cycle(),
        out.out_span as f64 / packets.len() as f64,
        headers as f64 / packets.len() as f64
    );
    assert_eq!(out.out_beats, want);
    assert_eq!(
        out.out_span, out.out_beats,
        "{name}: idle cycles at full rate"
    );
    assert!(out.out_span <= headers);
}

/// Short packets back to back at full rate: the next header follows without a gap, however
/// short the payload.
#[test]
fn full_rate_short() {
    let name = "wqe_frame_short";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let ops = model_opcodes();
    let packets: Vec<Packet> = (0..300)
        .map(|i| {
            let op = ops[rng.gen_range(0..ops.len())];
            // Every fifth one the shortest: no payload, the 54-byte header.
            if i % 5 == 0 {
                packet(&mut rng, false, false, (0x04, (false, false, false)), 0)
            } else {
                let (len, v6, vlan) = (rng.gen_range(0..=64), rng.gen(), rng.gen());
                packet(&mut rng, v6, vlan, op, len)
            }
        })
        .collect();
    let out = check(name, &packets, Traffic::FULL_RATE, seed);
    eprintln!(
        "{name}: {} packets of 0..64 bytes: {} beats in {} cycles ({:.4} beats/cycle)",
        packets.len(),
        out.out_beats,
        out.out_span,
        out.beats_per_cycle()
    );
    assert_eq!(
        out.out_span, out.out_beats,
        "{name}: idle cycles at full rate"
    );
    // Only the shortest: 7 beats each, the least time to prepare the next header in.
    let shortest: Vec<Packet> = (0..100)
        .map(|_| packet(&mut rng, false, false, (0x04, (false, false, false)), 0))
        .collect();
    let out = check(name, &shortest, Traffic::FULL_RATE, seed);
    eprintln!(
        "{name}: {} packets of 0 bytes behind 54-byte headers: {} beats in {} cycles ({:.4} \
         beats/cycle); {} cycles from the first descriptor to the first beat",
        shortest.len(),
        out.out_beats,
        out.out_span,
        out.beats_per_cycle(),
        out.latency
    );
    // The descriptor register, the checksum's five stages, the header register, the header
    // beat slice, the output slice.
    assert_eq!(out.latency, 9, "{name}: latency");
    assert_eq!(
        out.out_span, out.out_beats,
        "{name}: idle cycles at full rate"
    );
}

/// Raw frames of every length from 14 to 80 bytes and from 4,200 to 4,218, between RoCE packets
/// (so that a raw descriptor meets a header being sent and the other way round), under gaps and
/// back-pressure; then raw frames alone at full rate: a raw frame's header work is one beat, so
/// from 60 bytes (eight beats, as long as the header side's preparation) they follow each other
/// without a gap; the shorter ones are measured.
#[test]
fn raw_frames() {
    let name = "wqe_frame_raw";
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let ops = model_opcodes();
    let mut packets = Vec::new();
    for len in (14..=80).chain(MAX_RAW_FRAME - 18..=MAX_RAW_FRAME) {
        packets.push(raw_packet(&mut rng, len));
        if rng.gen() {
            let (op, len, v6, vlan) = (
                ops[rng.gen_range(0..ops.len())],
                rng.gen_range(0..=100),
                rng.gen(),
                rng.gen(),
            );
            packets.push(packet(&mut rng, v6, vlan, op, len));
        }
    }
    let traffic = Traffic {
        desc_idle: 0.2,
        idle: 0.2,
        stall: 0.2,
        seed,
    };
    check(name, &packets, traffic, seed);
    for (what, lens) in [
        ("14..=59", 14..=59),
        ("60..=64", 60..=64),
        ("64..=1500", 64..=1500),
    ] {
        let raws: Vec<Packet> = (0..200)
            .map(|_| {
                let len = rng.gen_range(lens.clone());
                raw_packet(&mut rng, len)
            })
            .collect();
        let out = check(name, &raws, Traffic::FULL_RATE, seed);
        eprintln!(
            "{name}: {} raw frames of {what} bytes at full rate: {} beats in {} cycles ({:.4} \
             beats/cycle)",
            raws.len(),
            out.out_beats,
            out.out_span,
            out.beats_per_cycle()
        );
        // The shortest, two to eight beats, go faster than their descriptors can be prepared.
        if *lens.start() >= 60 {
            assert_eq!(
                out.out_span, out.out_beats,
                "{name}: idle cycles at full rate ({what} bytes)"
            );
        }
    }
}
