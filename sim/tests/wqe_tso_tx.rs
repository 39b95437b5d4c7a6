//! The data path's TSO split and merge (rtl/wqe/wqe_tso_tx.sv) against model::tso: a random
//! mix of plain packets and TSO sends (IPoIB and Ethernet, IPv4 and IPv6 templates, MSS 1 to
//! 4,000, payloads 0 to 12,000 bytes), some of whose later segments are flagged to drop, as the
//! sender flags a DMA fault's, under random gaps on the inputs and back-pressure on the output.
//!
//! The output must be, in record order, every plain packet as it went in and every TSO send's
//! kept segments, each byte for byte Segmenter::write_segment's; a beat stalled on the output
//! must hold still.

use rand::Rng;
use rocenic_model::tso::Limits;
use rocenic_model::wire::LinkType;
use rocenic_sim::axis::{beats, keep_count, keep_mask, Beat};
use rocenic_sim::duts::{WqeTsoTx, WqeTsoTxPorts};
use rocenic_sim::harness::Sim;
use rocenic_sim::stream::TestRng;
use rocenic_sim::stream::{self, Sink, Source};
use rocenic_sim::tso::{expected, Send, Status};

/// One stream in: a plain packet, or a TSO send with a keep flag per segment.
#[derive(Clone, Debug)]
enum Item {
    Plain(Vec<u8>),
    Tso { send: Send, keep: Vec<bool> },
}

/// A template: the link header, IPv4 (with options) or IPv6, TCP with options; the lengths and
/// checksums hold junk, as hosts leave them.
fn template(rng: &mut TestRng, link: LinkType) -> Vec<u8> {
    let ipv4 = rng.gen_bool(0.5);
    let mut h = Vec::new();
    let ethertype: u16 = if ipv4 { 0x0800 } else { 0x86DD };
    match link {
        LinkType::Ipoib => {
            h.extend_from_slice(&ethertype.to_be_bytes());
            h.extend_from_slice(&[0, 0]);
        }
        _ => {
            h.extend((0..12).map(|_| rng.gen::<u8>()));
            if rng.gen_bool(0.3) {
                h.extend_from_slice(&[0x81, 0x00]);
                h.extend_from_slice(&rng.gen::<u16>().to_be_bytes());
            }
            h.extend_from_slice(&ethertype.to_be_bytes());
        }
    }
    if ipv4 {
        let opts = rng.gen_range(0..=4) * 4;
        h.push(0x45 + (opts / 4) as u8);
        h.push(rng.gen());
        h.extend((0..2).map(|_| rng.gen::<u8>())); // total length: junk
        h.extend((0..2).map(|_| rng.gen::<u8>())); // identification
        h.extend_from_slice(&[0x40, 0, 64, 6]);
        h.extend((0..2).map(|_| rng.gen::<u8>())); // checksum: junk
        h.extend((0..8 + opts).map(|_| rng.gen::<u8>()));
    } else {
        h.extend_from_slice(&[0x60, 0, 0, 0]);
        h.extend((0..2).map(|_| rng.gen::<u8>())); // payload length: junk
        h.extend_from_slice(&[6, 64]);
        h.extend((0..32).map(|_| rng.gen::<u8>()));
    }
    let topts = rng.gen_range(0..=3) * 4;
    h.extend((0..12).map(|_| rng.gen::<u8>())); // ports, sequence, acknowledgment
    h.push(((5 + topts / 4) as u8) << 4);
    h.push(rng.gen());
    h.extend((0..6).map(|_| rng.gen::<u8>())); // window, checksum (junk), urgent
    h.extend((0..topts).map(|_| rng.gen::<u8>()));
    h
}

fn random_items(rng: &mut TestRng, n: usize) -> Vec<Item> {
    (0..n)
        .map(|_| {
            if rng.gen_bool(0.5) {
                let len = rng.gen_range(1..=600);
                return Item::Plain((0..len).map(|_| rng.gen()).collect());
            }
            let link = if rng.gen_bool(0.6) {
                LinkType::Ipoib
            } else {
                LinkType::Ethernet
            };
            let header = template(rng, link);
            let mss: u16 = match rng.gen_range(0..4) {
                0 => rng.gen_range(1..=64),
                1 => 1448,
                _ => rng.gen_range(1..=4000),
            };
            let len = match rng.gen_range(0..4) {
                0 => rng.gen_range(0..=usize::from(mss)),
                _ => rng.gen_range(0..=12_000.min(200 * usize::from(mss))),
            };
            let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let send = Send::new(link, &header, &payload, mss);
            let count = len.div_ceil(usize::from(mss)).max(1);
            // One send in four faults at a random segment: it and the rest are dropped.
            let good = if rng.gen_bool(0.25) {
                rng.gen_range(0..count)
            } else {
                count
            };
            let keep = (0..count).map(|i| i < good).collect();
            Item::Tso { send, keep }
        })
        .collect()
}

/// What must come out, in order.
fn expected_out(items: &[Item]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Plain(p) => out.push(p.clone()),
            Item::Tso { send, keep } => {
                let (status, segs) = expected(send, 8, Limits::default());
                assert_eq!(status, Status::Ok, "the stimulus makes good sends");
                assert_eq!(segs.len(), keep.len());
                out.extend(
                    segs.into_iter()
                        .zip(keep)
                        .filter(|(_, &k)| k)
                        .map(|(s, _)| s),
                );
            }
        }
    }
    out
}

/// A record as the sender gives it: TSO or not, and the segmenter's descriptor.
#[derive(Clone, Debug)]
struct Rec {
    tso: bool,
    hdr_len: u16,
    mss: u16,
    len: u32,
    ipoib: bool,
}

fn run(name: &str, items: &[Item], idle: f64, stall: f64, seed: u64) {
    drive::<WqeTsoTx>(name, items, idle, stall, seed);
}

/// The run on any build of the unit (through its port trait, whose ports are booleans).
fn drive<D: WqeTsoTxPorts>(name: &str, items: &[Item], idle: f64, stall: f64, seed: u64) {
    let want = expected_out(items);
    let mut sim: Sim<D> = Sim::new(name);
    let mut recs: Source<Rec> = Source::new(seed, idle);
    let mut data: Source<Beat> = Source::new(seed ^ 0xDA7A, idle);
    let mut keeps: Source<bool> = Source::new(seed ^ 0x4EE9, idle);
    let mut sink = Sink::new(seed ^ 0x5157, stall);
    let mut bound = 10_000u64;
    for item in items {
        let (rec, bytes) = match item {
            Item::Plain(p) => (
                Rec {
                    tso: false,
                    hdr_len: 0,
                    mss: 0,
                    len: 0,
                    ipoib: false,
                },
                p.clone(),
            ),
            Item::Tso { send, keep } => {
                for &k in keep {
                    keeps.push(k);
                }
                bound += 40 * keep.len() as u64;
                (
                    Rec {
                        tso: true,
                        hdr_len: send.hdr_len,
                        mss: send.mss,
                        len: send.len,
                        ipoib: send.link == LinkType::Ipoib,
                    },
                    send.data.clone(),
                )
            }
        };
        bound += 2 * bytes.len() as u64 / 8 + 40;
        recs.push(rec);
        for b in beats(&bytes, 8, false) {
            data.push(b);
        }
    }
    let limit = 20 * bound;
    sim.dut.set_s_rec_valid(false);
    sim.dut.set_s_keep_valid(false);
    sim.dut.set_s_axis_tvalid(false);
    sim.dut.set_m_axis_tready(false);
    sim.reset(4);
    let start = sim.cycle();
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut current = Vec::new();
    let mut held: Option<(Vec<u8>, bool)> = None;
    // Until every packet is out and every input taken (dropped sends may come last).
    while got.len() < want.len()
        || recs.remaining() + data.remaining() + keeps.remaining() != 0
        || sim.dut.busy()
    {
        let now = sim.cycle() - start;
        assert!(
            now < limit,
            "{name}: {} of {} packets out after {now} cycles",
            got.len(),
            want.len()
        );
        let r = recs.offer().cloned();
        let b = data.offer().cloned();
        let k = keeps.offer().copied();
        let ready = sink.ready();
        let dut = &mut sim.dut;
        dut.set_s_rec_valid(r.is_some());
        if let Some(r) = &r {
            dut.set_s_rec_tso(r.tso);
            dut.set_s_rec_hdr_len(r.hdr_len);
            dut.set_s_rec_mss(r.mss);
            dut.set_s_rec_len(r.len);
            dut.set_s_rec_ipoib(r.ipoib);
        }
        dut.set_s_axis_tvalid(b.is_some());
        if let Some(b) = &b {
            dut.set_s_axis_tdata(u64::from_le_bytes(b.data[..8].try_into().unwrap()));
            dut.set_s_axis_tkeep(keep_mask(b.keep) as u8);
            dut.set_s_axis_tlast(b.last);
        }
        dut.set_s_keep_valid(k.is_some());
        if let Some(k) = k {
            dut.set_s_keep(k);
        }
        dut.set_m_axis_tready(ready);
        let out = dut.m_axis_tvalid().then(|| {
            let n = keep_count(u64::from(dut.m_axis_tkeep()), 8)
                .unwrap_or_else(|| panic!("{name}: cycle {now}: tkeep not contiguous"));
            let bytes = dut.m_axis_tdata().to_le_bytes()[..n].to_vec();
            (bytes, dut.m_axis_tlast())
        });
        if let Some(prev) = held.take() {
            assert_eq!(
                out.as_ref(),
                Some(&prev),
                "{name}: cycle {now}: a stalled beat moved"
            );
        }
        if let Some((bytes, last)) = out {
            assert!(
                !bytes.is_empty() && (last || bytes.len() == 8),
                "{name}: cycle {now}: a beat of {} bytes (tlast {last})",
                bytes.len()
            );
            if ready {
                current.extend_from_slice(&bytes);
                if last {
                    let i = got.len();
                    assert!(
                        i < want.len(),
                        "{name}: cycle {now}: a packet more than expected"
                    );
                    let frame = std::mem::take(&mut current);
                    assert!(
                        frame == want[i],
                        "{name}: packet {i} differs: {} bytes, want {}",
                        frame.len(),
                        want[i].len()
                    );
                    got.push(frame);
                }
            } else {
                held = Some((bytes, last));
            }
        }
        let dut = &sim.dut;
        let (rr, dr, kr) = (dut.s_rec_ready(), dut.s_axis_tready(), dut.s_keep_ready());
        recs.accepted(rr);
        data.accepted(dr);
        keeps.accepted(kr);
        sim.step();
    }
    // Nothing more may come out, and everything must have been taken.
    sim.dut.set_m_axis_tready(true);
    for _ in 0..200 {
        assert!(
            !sim.dut.m_axis_tvalid(),
            "{name}: a packet more than the records"
        );
        sim.step();
    }
}

#[test]
fn random_mix_under_back_pressure() {
    let seed = stream::seed("random_mix_under_back_pressure");
    let mut rng = rocenic_sim::stream::rng(seed);
    let items = random_items(&mut rng, 160);
    run("wqe_tso_tx_random", &items, 0.3, 0.3, seed);
}

#[test]
fn random_mix_at_full_rate() {
    let seed = stream::seed("random_mix_at_full_rate");
    let mut rng = rocenic_sim::stream::rng(seed);
    let items = random_items(&mut rng, 160);
    run("wqe_tso_tx_full", &items, 0.0, 0.0, seed);
}

/// Sends whose every segment is dropped, between plain packets: only the plain ones come out.
#[test]
fn dropped_sends_leave_nothing() {
    let seed = stream::seed("dropped_sends_leave_nothing");
    let mut rng = rocenic_sim::stream::rng(seed);
    let items: Vec<Item> = random_items(&mut rng, 60)
        .into_iter()
        .map(|item| match item {
            Item::Tso { send, keep } => Item::Tso {
                send,
                keep: vec![false; keep.len()],
            },
            plain => plain,
        })
        .collect();
    run("wqe_tso_tx_dropped", &items, 0.2, 0.2, seed);
}
