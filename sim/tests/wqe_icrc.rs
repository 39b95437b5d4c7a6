//! The WQE engine's ICRC stage (rtl/wqe/wqe_icrc.sv) against model::wire::icrc_append at 64
//! and 512 bits: random RoCEv2 frames (IPv4 and IPv6, with and without a VLAN tag, random header
//! fields, the ICRC's masked ones included, payloads from 0 to 4200 bytes), random input gaps
//! and output back-pressure, with raw-packet QPs' frames among them (padding only, no ICRC);
//! every frame length from the shortest over a few beats, raw ones too; and the throughput of
//! back-to-back 1 KiB frames.
//!
//! Every frame is compared byte for byte with the model, and read back by RoceFrame, whose ICRC
//! check is the model's other reading of the same rule.

use rand::Rng;
use rocenic_model::qp::IpPair;
use rocenic_model::wire::ib::{BthRepr, DethRepr, RethRepr};
use rocenic_model::wire::{EthernetAddress, Ipv4Address, Ipv6Address, RoceFrame, MIN_FRAME};
use rocenic_model::wqe::check::MAX_RAW_FRAME;
use rocenic_model::wqe::frame::{emit_headers, Route, Transport};
use rocenic_sim::duts::{WqeIcrc512, WqeIcrc64, WqeIcrcPorts};
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use rocenic_sim::wqe::icrc::{beat_bytes, expected, Frame, IcrcRtl, Outcome, Traffic};

/// The shape of a frame: which headers it has.
#[derive(Clone, Copy, Debug)]
struct Shape {
    v6: bool,
    vlan: bool,
    /// RETH (RDMA WRITE FIRST/ONLY), DETH (UD) or neither.
    ext: Ext,
    imm: bool,
}

#[derive(Clone, Copy, Debug)]
enum Ext {
    None,
    Reth,
    Deth,
}

impl Shape {
    /// IPv4, no tag, BTH only: 54 bytes without payload.
    const SHORTEST: Shape = Shape {
        v6: false,
        vlan: false,
        ext: Ext::None,
        imm: false,
    };

    fn random(rng: &mut TestRng) -> Shape {
        Shape {
            v6: rng.gen(),
            vlan: rng.gen(),
            ext: match rng.gen_range(0..3) {
                0 => Ext::None,
                1 => Ext::Reth,
                _ => Ext::Deth,
            },
            imm: rng.gen_bool(0.3),
        }
    }
}

/// A frame of `shape` with `payload` bytes and `pad` pad bytes (any 0..=3: the stage does not
/// care whether it matches the payload), every other field random. The header fields the ICRC
/// masks get random values afterwards, where the model's emitter would write fixed ones (UDP
/// checksum 0, the IPv4 checksum, BTH byte 4's reserved bits).
fn frame(rng: &mut TestRng, shape: Shape, payload: usize, pad: u8) -> Frame {
    let ip = if shape.v6 {
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
    let route = Route {
        src_mac: EthernetAddress(rng.gen()),
        dst_mac: EthernetAddress(rng.gen()),
        vlan: shape
            .vlan
            .then(|| (rng.gen_range(0..4096), rng.gen_range(0..8))),
        ip,
        traffic_class: rng.gen(),
        hop_limit: rng.gen(),
        flow_label: rng.gen_range(0..1 << 20),
        udp_sport: rng.gen(),
    };
    let t = Transport {
        bth: BthRepr {
            opcode: rng.gen(),
            solicited: rng.gen(),
            migreq: rng.gen(),
            pad_count: pad,
            tver: rng.gen_range(0..16),
            pkey: rng.gen(),
            fecn: rng.gen(),
            becn: rng.gen(),
            dest_qpn: rng.gen_range(0..1 << 24),
            ack_req: rng.gen(),
            psn: rng.gen_range(0..1 << 24),
        },
        reth: matches!(shape.ext, Ext::Reth).then(|| RethRepr {
            va: rng.gen(),
            rkey: rng.gen(),
            dma_len: rng.gen(),
        }),
        deth: matches!(shape.ext, Ext::Deth).then(|| DethRepr {
            qkey: rng.gen(),
            src_qpn: rng.gen_range(0..1 << 24),
        }),
        imm: shape.imm.then(|| rng.gen()),
    };
    let mut bytes = vec![0u8; 128];
    let hl = emit_headers(&route, &t, payload, &mut bytes).expect("headers fit");
    bytes.truncate(hl);
    bytes.extend((0..payload).map(|_| rng.gen::<u8>()));
    bytes.extend(std::iter::repeat_n(0u8, usize::from(pad)));
    let l3 = if shape.vlan { 18 } else { 14 };
    let (ip_len, masked): (usize, &[usize]) = if shape.v6 {
        (40, &[7]) // hop limit; traffic class and flow label are random already
    } else {
        (20, &[10, 11]) // header checksum; TOS and TTL are random already
    };
    for &i in masked {
        bytes[l3 + i] = rng.gen();
    }
    let udp = l3 + ip_len;
    bytes[udp + 6] = rng.gen(); // UDP checksum
    bytes[udp + 7] = rng.gen();
    bytes[udp + 8 + 4] = rng.gen(); // BTH: FECN, BECN, reserved
    Frame {
        bytes,
        vlan: shape.vlan,
        raw: false,
    }
}

/// A raw-packet QP's frame of `len` bytes (14..=4,218): random bytes, no ICRC to come. One in
/// two says "tagged" on tuser too, which a raw frame must not heed.
fn raw_frame(rng: &mut TestRng, len: usize) -> Frame {
    Frame {
        bytes: (0..len).map(|_| rng.gen()).collect(),
        vlan: rng.gen(),
        raw: true,
    }
}

/// Payload lengths: most short enough to give few beats (all the 64-byte lane counts, and the
/// frames under 60 bytes), the rest up to 4200.
fn random_payload(rng: &mut TestRng) -> usize {
    match rng.gen_range(0..10) {
        0..=2 => rng.gen_range(0..8),
        3..=5 => rng.gen_range(0..200),
        _ => rng.gen_range(0..=4200),
    }
}

/// Runs `frames`, then checks every output frame against the model and its ICRC by RoceFrame.
/// `traffic.seed` is also the seed the frames came from, so messages name it.
fn check<D: WqeIcrcPorts>(name: &str, frames: &[Frame], traffic: Traffic) -> Outcome {
    let seed = traffic.seed;
    let mut rtl: IcrcRtl<D> = IcrcRtl::new(name);
    let out = rtl
        .run(frames, traffic)
        .unwrap_or_else(|e| panic!("{name}: {e} (seed {seed})"));
    assert_eq!(out.frames.len(), frames.len());
    for (k, (f, got)) in frames.iter().zip(&out.frames).enumerate() {
        let want = expected(f).expect("a frame the model takes");
        assert!(
            *got == want,
            "{name}: frame {k} ({} bytes in, tag {}, raw {}): {} bytes out, {} expected, first \
             difference at byte {:?} (seed {seed})",
            f.bytes.len(),
            f.vlan,
            f.raw,
            got.len(),
            want.len(),
            got.iter().zip(&want).position(|(a, b)| a != b)
        );
        if f.raw {
            continue;
        }
        let r = RoceFrame::parse(got)
            .unwrap_or_else(|e| panic!("{name}: frame {k}: {e:?} (seed {seed})"));
        assert!(r.is_valid(), "{name}: frame {k}: ICRC (seed {seed})");
    }
    out
}

fn random_frames<D: WqeIcrcPorts>(name: &str, n: usize) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let frames: Vec<Frame> = (0..n)
        .map(|_| {
            let pad = rng.gen_range(0..4);
            if rng.gen_bool(0.05) {
                // A raw frame, often under 60 bytes.
                let len = if rng.gen() {
                    rng.gen_range(14..=70)
                } else {
                    rng.gen_range(14..=MAX_RAW_FRAME)
                };
                return raw_frame(&mut rng, len);
            }
            if rng.gen_bool(0.05) {
                // The shortest shape, 54 to 60 bytes: the frames the stage pads.
                let payload = rng.gen_range(0..4);
                return frame(&mut rng, Shape::SHORTEST, payload, pad);
            }
            let shape = Shape::random(&mut rng);
            let payload = random_payload(&mut rng);
            frame(&mut rng, shape, payload, pad)
        })
        .collect();
    let short = frames
        .iter()
        .filter(|f| f.bytes.len() + 4 < MIN_FRAME)
        .count();
    let w = beat_bytes::<D>();
    let mut lanes = vec![false; w];
    for f in &frames {
        lanes[(f.bytes.len() - 1) % w] = true;
    }
    let traffic = Traffic {
        idle: 0.3,
        stall: 0.3,
        seed,
    };
    let started = std::time::Instant::now();
    let out = check::<D>(name, &frames, traffic);
    eprintln!(
        "{name}: {n} frames ({short} padded to 60 bytes, last beats of {} lane counts of {w}), {} \
         beats in, {} out, {} cycles, {:.1} s",
        lanes.iter().filter(|&&l| l).count(),
        out.in_beats,
        out.out_beats,
        out.total_cycles,
        started.elapsed().as_secs_f64()
    );
    assert!(short > 0, "{name}: no frame needed padding");
    assert!(
        frames.iter().any(|f| f.raw && f.bytes.len() < MIN_FRAME),
        "{name}: no short raw frame"
    );
}

#[test]
fn random_frames_64() {
    random_frames::<WqeIcrc64>("wqe_icrc_64_random", 4000);
}

#[test]
fn random_frames_512() {
    random_frames::<WqeIcrc512>("wqe_icrc_512_random", 4000);
}

/// Every frame length from the shortest (54 bytes: IPv4, no tag, BTH only) over 2.5 beats of
/// 64 bytes, for each IP version and tag, at full rate and under back-pressure: every lane
/// count of the last beat, ICRC inside it or split over the next, with and without padding.
fn every_length<D: WqeIcrcPorts>(name: &str) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut frames = Vec::new();
    for v6 in [false, true] {
        for vlan in [false, true] {
            let shape = Shape {
                v6,
                vlan,
                ext: Ext::None,
                imm: false,
            };
            for len in 0..160 {
                frames.push(frame(&mut rng, shape, len, 0));
            }
        }
    }
    // Raw frames of every length from an Ethernet header's over 2.5 beats of 64 bytes.
    for len in 14..174 {
        frames.push(raw_frame(&mut rng, len));
    }
    assert_eq!(frames[0].bytes.len(), 54);
    check::<D>(
        name,
        &frames,
        Traffic {
            seed,
            ..Traffic::FULL_RATE
        },
    );
    let traffic = Traffic {
        idle: 0.5,
        stall: 0.5,
        seed,
    };
    check::<D>(name, &frames, traffic);
}

#[test]
fn every_length_64() {
    every_length::<WqeIcrc64>("wqe_icrc_64_lengths");
}

#[test]
fn every_length_512() {
    every_length::<WqeIcrc512>("wqe_icrc_512_lengths");
}

/// Back-to-back frames of 1 KiB payload (1078 to 1122 bytes), no back-pressure: the output
/// never idles once it starts, and the input waits exactly one cycle per extra output beat (a
/// frame whose ICRC does not fit its last beat) and never otherwise.
fn throughput<D: WqeIcrcPorts>(name: &str) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let frames: Vec<Frame> = (0..200)
        .map(|_| {
            let shape = Shape::random(&mut rng);
            frame(&mut rng, shape, 1024, 0)
        })
        .collect();
    let traffic = Traffic {
        seed,
        ..Traffic::FULL_RATE
    };
    let out = check::<D>(name, &frames, traffic);
    let w = beat_bytes::<D>();
    // Output beats beyond the input's, per frame (1 KiB frames are never padded).
    let extra: Vec<u64> = frames
        .iter()
        .map(|f| ((f.bytes.len() + 4).div_ceil(w) - f.bytes.len().div_ceil(w)) as u64)
        .collect();
    let total_extra: u64 = extra.iter().sum();
    eprintln!(
        "{name}: {} frames, {} beats in, {} out, {:.4} output beats per cycle, {:.4} input \
         beats per cycle, {} cycles first in to last out, latency {} cycles",
        frames.len(),
        out.in_beats,
        out.out_beats,
        out.out_rate(),
        out.in_beats as f64 / (out.in_beats + out.in_stalls) as f64,
        out.total_cycles,
        out.latency
    );
    assert_eq!(out.out_span, out.out_beats, "{name}: the output idled");
    assert_eq!(out.out_beats, out.in_beats + total_extra);
    // The last frame's extra beat comes after the input has ended.
    assert_eq!(
        out.in_stalls,
        total_extra - extra[extra.len() - 1],
        "{name}: input stalls other than for extra beats"
    );
}

#[test]
fn throughput_64() {
    throughput::<WqeIcrc64>("wqe_icrc_64_throughput");
}

#[test]
fn throughput_512() {
    throughput::<WqeIcrc512>("wqe_icrc_512_throughput");
}
