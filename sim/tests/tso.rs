//! The TSO segmenter (rtl/tso/tso_segmenter.sv) against model::tso at 64 and 512 bits: random
//! templates of every form, random MSS and lengths, random back-pressure on all four streams,
//! every error case, and the long run behind the efficiency figures.
//!
//! Every segment is compared byte for byte with Segmenter::write_segment, checked by the model's
//! independent verify_segment, and the payloads of each send must reassemble to the original.

use rand::Rng;
use rocenic_model::tso::{verify_segment, Limits};
use rocenic_model::wire::LinkType;
use rocenic_sim::duts::TsoSegmenterPorts;
use rocenic_sim::duts::{Tso512, Tso64};
use rocenic_sim::stream;
use rocenic_sim::stream::TestRng;
use rocenic_sim::tso::{beat_bytes, expected, Outcome, Send, Status, Traffic, TsoRtl};

/// A header template: link header, IPv4 (with options) or IPv6, TCP with options.
#[derive(Clone, Debug)]
struct Template {
    link: LinkType,
    vlan: Option<u16>,
    ipv4: bool,
    ip_options: usize,
    tcp_options: usize,
    ident: u16,
    seq: u32,
    flags: u8,
}

impl Template {
    fn random(rng: &mut TestRng) -> Template {
        let link = if rng.gen_bool(0.35) {
            LinkType::Ipoib
        } else {
            LinkType::Ethernet
        };
        Template {
            link,
            vlan: match rng.gen_range(0..4) {
                0 => Some(0x8100),
                1 => Some(0x88A8),
                _ => None,
            },
            ipv4: rng.gen_bool(0.6),
            ip_options: rng.gen_range(0..=10) * 4,
            tcp_options: rng.gen_range(0..=10) * 4,
            ident: rng.gen(),
            seq: rng.gen(),
            flags: rng.gen(),
        }
    }

    /// The template bytes; length fields and checksums hold junk, as hosts leave them.
    fn bytes(&self, rng: &mut TestRng) -> Vec<u8> {
        let mut h = Vec::new();
        let ethertype: u16 = if self.ipv4 { 0x0800 } else { 0x86DD };
        match self.link {
            LinkType::Ethernet => {
                h.extend((0..12).map(|_| rng.gen::<u8>()));
                if let Some(tpid) = self.vlan {
                    h.extend_from_slice(&tpid.to_be_bytes());
                    h.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
                }
                h.extend_from_slice(&ethertype.to_be_bytes());
            }
            LinkType::Ipoib => {
                h.extend_from_slice(&ethertype.to_be_bytes());
                h.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
            }
            LinkType::Infiniband => unreachable!("TSO sends are Ethernet or IPoIB"),
        }
        if self.ipv4 {
            let ihl = 5 + self.ip_options / 4;
            h.push(0x40 | ihl as u8);
            h.push(rng.gen());
            h.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
            h.extend_from_slice(&self.ident.to_be_bytes());
            h.extend_from_slice(&[if rng.gen() { 0x40 } else { 0 }, 0, rng.gen(), 6]);
            h.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
            h.extend((0..8 + self.ip_options).map(|_| rng.gen::<u8>()));
        } else {
            h.extend_from_slice(&[0x60 | rng.gen_range(0..16), rng.gen(), rng.gen(), rng.gen()]);
            h.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
            h.push(6);
            h.push(rng.gen());
            h.extend((0..32).map(|_| rng.gen::<u8>()));
        }
        let doff = 5 + self.tcp_options / 4;
        h.extend((0..4).map(|_| rng.gen::<u8>()));
        h.extend_from_slice(&self.seq.to_be_bytes());
        h.extend((0..4).map(|_| rng.gen::<u8>()));
        h.push((doff as u8) << 4 | rng.gen_range(0..16));
        h.push(self.flags);
        h.extend((0..6 + self.tcp_options).map(|_| rng.gen::<u8>()));
        h
    }
}

fn random_mss(rng: &mut TestRng) -> u16 {
    match rng.gen_range(0..6) {
        0 => rng.gen_range(1..=64),
        1 => 1448,
        2 => 8960,
        3 => 9000,
        _ => rng.gen_range(1..=9000),
    }
}

fn random_len(rng: &mut TestRng, mss: u16) -> usize {
    let mss = usize::from(mss);
    match rng.gen_range(0..6) {
        0 => 0,
        1 => rng.gen_range(1..=mss),
        2 => mss * rng.gen_range(1..4),
        3 => rng.gen_range(0..40_000),
        _ => rng.gen_range(0..(mss * 5).min(30_000) + 1),
    }
    .min(256 * 1024)
}

/// Runs `sends`, then checks everything the RTL produced against the model.
fn check<D: TsoSegmenterPorts>(name: &str, sends: &[Send], traffic: Traffic, seed: u64) -> Outcome {
    let mut rtl: TsoRtl<D> = TsoRtl::new(name);
    let out = rtl
        .run(sends, traffic)
        .unwrap_or_else(|e| panic!("{name}: {e} (seed {seed})"));
    assert_eq!(out.statuses.len(), sends.len());
    let mut segs = out.segments.iter();
    for (k, (send, &(status, count))) in sends.iter().zip(&out.statuses).enumerate() {
        let (want_status, want) = expected(send, beat_bytes::<D>(), Limits::default());
        assert_eq!(
            (status, count as usize),
            (want_status, want.len()),
            "{name}: send {k} (hdr {} mss {} len {} data {}): status (seed {seed})",
            send.hdr_len,
            send.mss,
            send.len,
            send.data.len()
        );
        let mut joined = Vec::new();
        for (i, w) in want.iter().enumerate() {
            let got = segs.next().expect("as many segments as the statuses count");
            assert!(
                got == w,
                "{name}: send {k} segment {i}: differs from the model at byte {:?} of {} / {} (seed {seed})",
                got.iter().zip(w).position(|(a, b)| a != b),
                got.len(),
                w.len()
            );
            let info = verify_segment(send.link, got)
                .unwrap_or_else(|e| panic!("{name}: send {k} segment {i}: {e} (seed {seed})"));
            assert!(info.payload.len() <= usize::from(send.mss));
            joined.extend_from_slice(info.payload);
        }
        if status == Status::Ok {
            assert_eq!(
                joined,
                &send.data[usize::from(send.hdr_len)..],
                "{name}: send {k}: reassembled payload (seed {seed})"
            );
        }
    }
    out
}

fn random_sends(rng: &mut TestRng, n: usize) -> Vec<Send> {
    (0..n)
        .map(|_| {
            let t = Template::random(rng);
            let header = t.bytes(rng);
            let mss = random_mss(rng);
            let len = random_len(rng, mss);
            let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            Send::new(t.link, &header, &payload, mss)
        })
        .collect()
}

fn random_traffic<D: TsoSegmenterPorts>(name: &str, n: usize) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let sends = random_sends(&mut rng, n);
    let traffic = Traffic {
        idle: 0.3,
        stall: 0.3,
        seed,
    };
    let out = check::<D>(name, &sends, traffic, seed);
    let ok = out.statuses.iter().filter(|s| s.0 == Status::Ok).count();
    // Templates past MAX_HDR (Ethernet + tag + IPv4/IPv6 + TCP with long options) are errors.
    assert!(ok * 10 >= n * 7, "{name}: only {ok} of {n} sends were good");
    eprintln!(
        "{name}: {n} sends, {ok} good, {} segments",
        out.segments.len()
    );
}

#[test]
fn random_sends_64() {
    random_traffic::<Tso64>("tso_64_random", 250);
}

#[test]
fn random_sends_512() {
    random_traffic::<Tso512>("tso_512_random", 250);
}

/// A good IPv4 Ethernet template.
fn good_header(rng: &mut TestRng, link: LinkType, ipv4: bool) -> Vec<u8> {
    Template {
        link,
        vlan: None,
        ipv4,
        ip_options: 4,
        tcp_options: 12,
        ident: rng.gen(),
        seq: rng.gen(),
        flags: 0x99,
    }
    .bytes(rng)
}

/// A good Ethernet IPv4 send of up to 3000 payload bytes, to follow a broken one.
fn good_send(rng: &mut TestRng) -> Send {
    let h = good_header(rng, LinkType::Ethernet, true);
    let p: Vec<u8> = (0..rng.gen_range(0..3000)).map(|_| rng.gen()).collect();
    Send::new(LinkType::Ethernet, &h, &p, 1000)
}

/// Every error case, each followed by a good send that must come out whole.
fn error_cases<D: TsoSegmenterPorts>(name: &str) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut sends = Vec::new();
    let mut push_with_good = |s: Send, rng: &mut TestRng| {
        sends.push(s);
        sends.push(good_send(rng));
    };
    let payload: Vec<u8> = (0..5000).map(|_| rng.gen()).collect();
    for link in [LinkType::Ethernet, LinkType::Ipoib] {
        for ipv4 in [true, false] {
            let h = good_header(&mut rng, link, ipv4);
            let ip = if link == LinkType::Ethernet { 14 } else { 4 };
            let tcp = h.len() - 32;
            let good = Send::new(link, &h, &payload, 1448);
            // MSS 0, over MAX_MSS, and so large IP overflows (only the buffer limit is reachable).
            push_with_good(
                Send {
                    mss: 0,
                    ..good.clone()
                },
                &mut rng,
            );
            push_with_good(
                Send {
                    mss: 9001,
                    ..good.clone()
                },
                &mut rng,
            );
            push_with_good(
                Send {
                    mss: 65535,
                    ..good.clone()
                },
                &mut rng,
            );
            // Header over MAX_HDR: announced and streamed.
            let mut long_hdr = good.clone();
            long_hdr.hdr_len = 129;
            push_with_good(long_hdr, &mut rng);
            // Payload over MAX_TSO: the data is drained whatever its length.
            push_with_good(
                Send {
                    len: 256 * 1024 + 1,
                    ..good.clone()
                },
                &mut rng,
            );
            // Not TCP: UDP, a fragment, another EtherType.
            let mut udp = good.clone();
            udp.data[ip + if ipv4 { 9 } else { 6 }] = 17;
            push_with_good(udp, &mut rng);
            if ipv4 {
                let mut frag = good.clone();
                frag.data[ip + 7] = 1;
                push_with_good(frag, &mut rng);
            }
            let mut arp = good.clone();
            let et = if link == LinkType::Ethernet { 12 } else { 0 };
            arp.data[et..et + 2].copy_from_slice(&0x0806u16.to_be_bytes());
            push_with_good(arp, &mut rng);
            // Malformed: IP version, IHL, TCP data offset, header length off by 4, tiny header.
            let mut ver = good.clone();
            ver.data[ip] ^= 0xF0;
            push_with_good(ver, &mut rng);
            if ipv4 {
                let mut ihl = good.clone();
                ihl.data[ip] = 0x44;
                push_with_good(ihl, &mut rng);
            }
            let mut doff = good.clone();
            doff.data[tcp + 12] = 0x40;
            push_with_good(doff, &mut rng);
            let mut hlen = good.clone();
            hlen.hdr_len -= 4;
            hlen.len += 4;
            push_with_good(hlen, &mut rng);
            push_with_good(
                Send {
                    hdr_len: 10,
                    len: 0,
                    data: vec![1; 10],
                    ..good.clone()
                },
                &mut rng,
            );
            push_with_good(
                Send {
                    hdr_len: 0,
                    len: 0,
                    data: vec![],
                    ..good.clone()
                },
                &mut rng,
            );
            // Short: inside the header, right after it, inside and at the end of segments.
            let hl = h.len();
            for cut in [
                10,
                hl - 1,
                hl,
                hl + 1,
                hl + 1448,
                hl + 1447,
                hl + 2000,
                hl + 4999,
            ] {
                let mut s = good.clone();
                s.data.truncate(cut);
                push_with_good(s, &mut rng);
            }
            // Long: a byte more, a beat more, announced 0 with data.
            for extra in [1, beat_bytes::<D>(), 3000] {
                let mut s = good.clone();
                s.data.extend((0..extra).map(|_| rng.gen::<u8>()));
                push_with_good(s, &mut rng);
            }
            push_with_good(
                Send {
                    len: 0,
                    ..good.clone()
                },
                &mut rng,
            );
            push_with_good(
                Send {
                    len: 4999,
                    ..good.clone()
                },
                &mut rng,
            );
            // Empty payload, exactly: one header-only segment.
            push_with_good(Send::new(link, &h, &[], 1448), &mut rng);
        }
    }
    let traffic = Traffic {
        idle: 0.2,
        stall: 0.4,
        seed,
    };
    let out = check::<D>(name, &sends, traffic, seed);
    let mut kinds: Vec<Status> = out.statuses.iter().map(|s| s.0).collect();
    kinds.sort_by_key(|s| s.code());
    kinds.dedup();
    assert_eq!(
        kinds,
        [
            Status::Ok,
            Status::MssZero,
            Status::MssTooLarge,
            Status::HeaderTooLong,
            Status::LenTooLong,
            Status::NotTcp,
            Status::Malformed,
            Status::Short,
            Status::Long
        ],
        "every status seen"
    );
}

#[test]
fn error_cases_64() {
    error_cases::<Tso64>("tso_64_errors");
}

#[test]
fn error_cases_512() {
    error_cases::<Tso512>("tso_512_errors");
}

/// Streams that break the input rule with a partial beat that is not the last: at a random
/// place (inside the template, in the template's last beat, at a segment boundary, near the
/// announced end, anywhere), under random gaps and back-pressure. Each ends with Short or Long
/// and the segments completed on earlier beats (`expected`), its data is drained, and the good
/// send after it comes out whole.
fn partial_middle_beat<D: TsoSegmenterPorts>(name: &str) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let w = beat_bytes::<D>();
    let mut sends = Vec::new();
    for _ in 0..60 {
        let link = if rng.gen_bool(0.3) {
            LinkType::Ipoib
        } else {
            LinkType::Ethernet
        };
        let ipv4 = rng.gen_bool(0.6);
        let h = good_header(&mut rng, link, ipv4);
        let mss = match rng.gen_range(0..3) {
            0 => rng.gen_range(1..=64),
            1 => 1448,
            _ => rng.gen_range(1..=3000),
        };
        let len = match rng.gen_range(0..8) {
            0 => 0,
            _ => rng.gen_range(1..=6000),
        };
        let p: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut bad = Send::new(link, &h, &p, mss);
        let (hl, total) = (h.len(), bad.data.len());
        let near = |rng: &mut TestRng, at: usize| {
            (at + rng.gen_range(0..2 * w))
                .saturating_sub(w)
                .min(total - 1)
        };
        let b = match rng.gen_range(0..5) {
            0 => rng.gen_range(0..hl),
            1 => near(&mut rng, hl),
            2 => {
                let j = rng.gen_range(1..=len / usize::from(mss) + 1);
                near(&mut rng, hl + j * usize::from(mss))
            }
            3 => near(&mut rng, total - 1),
            _ => rng.gen_range(0..total),
        };
        // b = total - 1 at most: the beat with the stream's last byte follows the partial one.
        bad.break_at = Some(b);
        sends.push(bad);
        sends.push(good_send(&mut rng));
    }
    let traffic = Traffic {
        idle: 0.3,
        stall: 0.3,
        seed,
    };
    let out = check::<D>(name, &sends, traffic, seed);
    let count = |st: Status| out.statuses.iter().step_by(2).filter(|s| s.0 == st).count();
    eprintln!(
        "{name}: {} partial-beat sends: {} short, {} long, {} segments sent before the break",
        sends.len() / 2,
        count(Status::Short),
        count(Status::Long),
        out.statuses.iter().step_by(2).map(|s| s.1).sum::<u32>()
    );
    for (k, pair) in out.statuses.chunks(2).enumerate() {
        assert!(
            matches!(pair[0].0, Status::Short | Status::Long),
            "{name}: send {}: a partial middle beat gave {:?} (seed {seed})",
            2 * k,
            pair[0]
        );
        assert_eq!(
            pair[1].0,
            Status::Ok,
            "{name}: send {}: the good send after it (seed {seed})",
            2 * k + 1
        );
    }
}

#[test]
fn partial_middle_beat_64() {
    partial_middle_beat::<Tso64>("tso_64_partial_beat");
}

#[test]
fn partial_middle_beat_512() {
    partial_middle_beat::<Tso512>("tso_512_partial_beat");
}

/// A payload of at most one MSS is one segment, flags untouched (first and last at once).
fn one_segment<D: TsoSegmenterPorts>(name: &str) {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let mut sends = Vec::new();
    for link in [LinkType::Ethernet, LinkType::Ipoib] {
        for ipv4 in [true, false] {
            let h = good_header(&mut rng, link, ipv4);
            for len in [0usize, 1, 7, 8, 63, 64, 65, 536, 1447, 1448] {
                let p: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                sends.push(Send::new(link, &h, &p, 1448));
            }
        }
    }
    let traffic = Traffic {
        idle: 0.1,
        stall: 0.1,
        seed,
    };
    let out = check::<D>(name, &sends, traffic, seed);
    assert!(out.statuses.iter().all(|&s| s == (Status::Ok, 1)));
    for (s, seg) in sends.iter().zip(&out.segments) {
        let info = verify_segment(s.link, seg).unwrap();
        assert_eq!(info.flags, 0x99, "CWR, FIN and PSH all kept");
    }
}

#[test]
fn payload_up_to_mss_is_one_segment_64() {
    one_segment::<Tso64>("tso_64_one");
}

#[test]
fn payload_up_to_mss_is_one_segment_512() {
    one_segment::<Tso512>("tso_512_one");
}

/// The seed's IPoIB example: 44-byte template, 64 KiB at MSS 1448 (ceil(65536 / 1448) = 46).
#[test]
fn ipoib_seed_example() {
    let mut rng = stream::rng(44);
    let t = Template {
        link: LinkType::Ipoib,
        vlan: None,
        ipv4: true,
        ip_options: 0,
        tcp_options: 0,
        ident: 7,
        seq: 1000,
        flags: 0x18,
    };
    let h = t.bytes(&mut rng);
    assert_eq!(h.len(), 44);
    let p: Vec<u8> = (0..65536).map(|_| rng.gen()).collect();
    let out = check::<Tso64>(
        "tso_64_ipoib",
        &[Send::new(LinkType::Ipoib, &h, &p, 1448)],
        Traffic::FULL_RATE,
        44,
    );
    assert_eq!(out.statuses, [(Status::Ok, 46)]);
}

/// Long runs at full rate: 64 KiB sends at MSS 1448, Ethernet + IPv4 + TCP with timestamps
/// (66-byte headers, 1514-byte frames). Efficiency = segment beats per cycle between the first
/// and the last segment beat.
fn efficiency<D: TsoSegmenterPorts>(name: &str, sends: usize) -> Outcome {
    let seed = stream::seed(name);
    let mut rng = stream::rng(seed);
    let h = Template {
        link: LinkType::Ethernet,
        vlan: None,
        ipv4: true,
        ip_options: 0,
        tcp_options: 12,
        ident: 1,
        seq: 1,
        flags: 0x18,
    }
    .bytes(&mut rng);
    assert_eq!(h.len(), 66);
    let sends: Vec<Send> = (0..sends)
        .map(|_| {
            let p: Vec<u8> = (0..65536).map(|_| rng.gen()).collect();
            Send::new(LinkType::Ethernet, &h, &p, 1448)
        })
        .collect();
    let out = check::<D>(name, &sends, Traffic::FULL_RATE, seed);
    let bytes: usize = out.segments.iter().map(Vec::len).sum();
    eprintln!(
        "{name}: {} segments, {} beats in {} cycles: efficiency {:.4} (beats/cycle), {:.4} of the \
         byte capacity; {} cycles from first input to last output",
        out.segments.len(),
        out.out_beats,
        out.out_span,
        out.efficiency(),
        bytes as f64 / (out.out_span as f64 * beat_bytes::<D>() as f64),
        out.total_cycles
    );
    out
}

#[test]
fn efficiency_64() {
    let out = efficiency::<Tso64>("tso_64_efficiency", 24);
    assert!(
        out.efficiency() >= 0.95,
        "64-bit efficiency {:.4} below 0.95",
        out.efficiency()
    );
}

#[test]
fn efficiency_512() {
    let out = efficiency::<Tso512>("tso_512_efficiency", 24);
    // The writer needs about as many passes per segment as the reader needs beats: with four
    // segment slots it banks a lead over a send, enough to hide the next send's header stages
    // (docs/tso.md#throughput; measured 1.0000).
    assert!(
        out.efficiency() >= 0.95,
        "512-bit efficiency {:.4} below 0.95",
        out.efficiency()
    );
}
