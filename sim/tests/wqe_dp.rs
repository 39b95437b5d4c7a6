//! The WQE engine's data path against the model's send engine: random WQE streams (every
//! opcode, TSO ones (segmented, as the model's engine with TSO does), and unknown ones, inline and gathered, RC and UD, IPv4 and IPv6, VLAN, entries
//! that miss their region, cross PDs, have length 0 or run into bytes the host does not back,
//! address vectors where they do not belong, too many entries, reserved bits set) on four QPs,
//! with host memory that answers out of order and late, a slow region check and random
//! back-pressure on the frame output. Frames and completions must be the model's, byte for byte.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::tso::Limits;
use rocenic_model::wqe::{AddressVector, DataSegment, Flags, Opcode, Payload, Tso, WorkRequest};
use rocenic_sim::stream::{rng, seed};
use rocenic_sim::wqe::dp::{rtl, Load, Run};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::{base, encoded, post, scenario, tso_template, wqe_bytes, MRS};

/// Runs `run` through the RTL and the model (with TSO, as the `wqe_dp` DUT is built) and
/// compares frames and completions.
fn compare(what: &str, run: &Run, load: &Load, seed: u64) {
    let want = with_tso(run).model();
    let (got, _) = match rtl(run, load, seed, 200_000) {
        Ok(x) => x,
        Err(e) => panic!("{what}: {e}"),
    };
    // `what` names the test's seed; `seed` is this run's, drawn from it.
    got.assert_matches(what, &want);
}

/// `run` with the model's engine given TSO at its default limits (the RTL's).
fn with_tso(run: &Run) -> Run {
    let mut run = run.clone();
    run.engine.tso = Some(Limits::default());
    run
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

/// Send rings that host memory only partly backs: a slot whose first block is there and whose
/// second is not (a two-block UD WQE: `general_err` under block 0's fields; a one-block RC WQE:
/// sent, though the engine's first read of two blocks faulted), and a slot with no memory at
/// all.
#[test]
fn partly_backed_rings() {
    use rocenic_model::wqe::memory::Fill;
    use rocenic_model::wqe::{Memory, Ring, SendRing};
    let s = seed("wqe_dp::partly_backed_rings");
    let load = Load {
        dma: rocenic_sim::wqe::host_memory::Config::adversarial(8, 4),
        out_ready: 0.9,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    for (k, opcode, backed) in [
        (2usize, Opcode::Send, 64usize),
        (0, Opcode::RdmaWrite, 64),
        (0, Opcode::Send, 0),
        (2, Opcode::SendImm, 128),
    ] {
        let mut run = base(Profile::Linux);
        let at = 0x40_0000u64;
        if backed > 0 {
            run.mem.add(at, backed, Fill::Zero).unwrap();
        }
        // A ring of two slots of two blocks: slot 0 is the partly backed one.
        run.queues[k].ring = SendRing::new(Ring::new(1).unwrap(), 1, at).unwrap();
        let first = wqe_bytes(k, 0, opcode);
        let n = first.len().min(backed);
        run.mem.write(at, &first[..n]).unwrap();
        run.queues[k].posted = 1;
        compare(
            &format!("queue {k} {opcode:?} {backed} bytes backed (seed {s})"),
            &run,
            &load,
            r.gen(),
        );
    }
}

/// A send ring that host memory does not back at all, four WQEs posted: each fetch faults
/// before block 0 arrives and completes with `general_err` (the first) or is flushed. A
/// fetch buffer left holding nothing must not stay taken: two of them once stopped the
/// fetch for good.
#[test]
fn unbacked_ring() {
    use rocenic_model::wqe::{Ring, SendRing};
    let s = seed("wqe_dp::unbacked_ring");
    let load = Load {
        dma: rocenic_sim::wqe::host_memory::Config::adversarial(8, 4),
        out_ready: 0.9,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    for k in [0usize, 2] {
        let mut run = base(Profile::Linux);
        run.queues[k].ring = SendRing::new(Ring::new(2).unwrap(), 1, 0x40_0000).unwrap();
        run.queues[k].posted = 4;
        compare(&format!("queue {k} (seed {s})"), &run, &load, r.gen());
    }
}

/// A TSO WQE for the UD QP (queue 2) at `index`: `header`, `mss`, `payload`, signaled.
fn tso_wqe(
    index: u32,
    wr_id: u64,
    header: &[u8],
    mss: u16,
    payload: Payload<'_>,
    v4: bool,
) -> Vec<u8> {
    let wr = WorkRequest {
        opcode: Opcode::Tso,
        flags: Flags::SIGNALED.union(Flags::SOLICITED),
        index,
        imm: 0,
        wr_id,
        av: Some(AddressVector {
            dqpn: 0x101,
            qkey: 0x2222,
            dgid: if v4 {
                AddressVector::mapped([10, 0, 0, 9])
            } else {
                [0xfe; 16]
            },
            dmac: [2, 0, 0, 0, 0, 9],
            vlan: None,
            flow_label: 0,
            tclass: 0,
            hop_limit: 64,
        }),
        raddr: None,
        tso: Some(Tso { mss, header }),
        payload,
    };
    encoded(&wr)
}

/// TSO work requests on the UD QP (IPoIB templates over IPv4 and IPv6, good and bad, MSS 0 to
/// 9,001, gathered and inline), each followed by a valid SEND: segmented, or refused with the
/// model's status (the SEND then flushed), frames and completions byte for byte.
#[test]
fn tso_work_requests() {
    let s = seed("wqe_dp::tso_work_requests");
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.8,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    for i in 0..48 {
        let header = tso_template(&mut r, i % 4 == 3);
        let mss = [0u16, 1, 7, 300, 1448, 9001][r.gen_range(0..6)];
        let (lkey, base_addr, ..) = MRS[0];
        let sges: Vec<DataSegment> = (0..r.gen_range(0..4))
            .map(|_| DataSegment {
                addr: base_addr + r.gen_range(0..0x4000),
                length: r.gen_range(1..1500),
                lkey,
            })
            .collect();
        let inline: Vec<u8> = (0..r.gen_range(0..200)).map(|_| r.gen()).collect();
        let payload = if r.gen() {
            Payload::Inline(&inline)
        } else {
            Payload::Gather(&sges)
        };
        let bytes = tso_wqe(0, r.gen(), &header, mss, payload, r.gen());
        let mut run = base(Profile::Linux);
        post(&mut run, 2, &bytes);
        post(&mut run, 2, &wqe_bytes(2, 1, Opcode::Send));
        compare(&format!("TSO WQE {i} (seed {s})"), &run, &load, r.gen());
    }
}

/// Gather entries of `lens` bytes from `start` on, in order, `gap` bytes apart, in region `lkey`.
fn entries(start: u64, gap: u64, lkey: u32, lens: &[u32]) -> Vec<DataSegment> {
    let mut at = start;
    lens.iter()
        .map(|&length| {
            let d = DataSegment {
                addr: at,
                length,
                lkey,
            };
            at += u64::from(length) + gap;
            d
        })
        .collect()
}

/// A raw QP's TSO WQE: signaled, no address vector.
fn raw_tso_wqe(index: u32, header: &[u8], mss: u16, payload: Payload) -> Vec<u8> {
    let wr = WorkRequest {
        opcode: Opcode::Tso,
        flags: Flags::SIGNALED,
        index,
        imm: 0,
        wr_id: 0x7150_0000 + u64::from(index),
        av: None,
        raddr: None,
        tso: Some(Tso { mss, header }),
        payload,
    };
    encoded(&wr)
}

/// TSO WQEs (UD over IPv4 and IPv6, raw), inline and gathered, each right behind an RC QP's
/// short SEND, the scheduler alternating the two queues, on a host that answers at once: the
/// template check of one WQE must not answer for the next. A check started for every WQE once
/// reached the TSO WQE behind a SEND and refused it with the SEND's verdict.
#[test]
fn tso_behind_other_work() {
    use rocenic_sim::wqe::scenario::{eth_tso_template, RAW_QUEUE};
    let s = seed("wqe_dp::tso_behind_other_work");
    let load = Load {
        dma: DmaConfig::ideal(8, 4),
        out_ready: 1.0,
        mr_latency: 1..=1,
    };
    let mut r = rng(s);
    let (lkey, data, ..) = MRS[0];
    let inline: Vec<u8> = (0..120).map(|_| r.gen()).collect();
    let gather = entries(data + 9, 0, lkey, &[1500]);
    // Small enough for the UD QP's 512-byte MTU with the largest template.
    const MSS: u16 = 300;
    for (k, what) in [(2, "UD IPv4"), (2, "UD IPv6"), (RAW_QUEUE, "raw")] {
        for inl in [true, false] {
            let payload = || {
                if inl {
                    Payload::Inline(&inline)
                } else {
                    Payload::Gather(&gather)
                }
            };
            let mut run = base(Profile::Linux);
            for i in 0..6 {
                post(&mut run, 0, &wqe_bytes(0, i, Opcode::Send));
                let tso = if k == RAW_QUEUE {
                    raw_tso_wqe(i, &eth_tso_template(&mut r, false), MSS, payload())
                } else {
                    let v4 = what.ends_with("IPv4");
                    let wr_id = 0x7150_0000 + u64::from(i);
                    tso_wqe(i, wr_id, &tso_template(&mut r, false), MSS, payload(), v4)
                };
                post(&mut run, k, &tso);
            }
            let how = if inl { "inline" } else { "gathered" };
            // Every WQE passes in the model: six SENDs, six TSO sends of this many segments.
            let segs = if inl {
                1
            } else {
                1500usize.div_ceil(MSS.into())
            };
            let want = with_tso(&run).model().frames.len();
            assert_eq!(want, 6 + 6 * segs, "{what} {how}: the model's frames");
            compare(&format!("{what} {how} (seed {s})"), &run, &load, r.gen());
        }
    }
}

/// The raw-packet QP's SENDs, one directed case a run, each followed by a valid 60-byte SEND:
/// whole frames of the edge lengths (14, 59, 60, 61, 4,096, 4,097, 4,218 bytes; gathered from
/// one entry or across several, one of them over 4,096 bytes, which the planner reads in two
/// pieces; and inline), then every refusal: SEND_WITH_IMM, the WRITEs, TSO with an IPoIB
/// template (an unknown opcode without TSO), an address vector, 13 and 4,219 bytes, no entry, a region of another PD. The
/// frames (no headers, zeros to 60 bytes, no ICRC) and completions must be the model's.
#[test]
fn raw_sends() {
    use rocenic_model::wqe::{AddressVector, DataSegment, Flags, Payload, Tso, WorkRequest};
    use rocenic_sim::wqe::scenario::{tso_template, MRS, RAW_QUEUE};
    let s = seed("wqe_dp::raw_sends");
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.8,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    let (lkey, data, ..) = MRS[0];
    let (lkey2, data2, ..) = MRS[1];
    let header = tso_template(&mut r, false);
    let av = AddressVector {
        dqpn: 0x101,
        qkey: 0x2222,
        dgid: [0xfe; 16],
        dmac: [2, 0, 0, 0, 0, 9],
        vlan: None,
        flow_label: 0,
        tclass: 0,
        hop_limit: 64,
    };
    let encode = |index: u32, opcode: Opcode, av: Option<AddressVector>, payload: Payload| {
        let wr = WorkRequest {
            opcode,
            flags: Flags::SIGNALED,
            index,
            imm: if opcode.has_imm() { 0x0102_0304 } else { 0 },
            wr_id: 0xABCD_0000 + u64::from(index),
            av,
            raddr: opcode
                .has_raddr()
                .then_some(rocenic_model::wqe::RemoteAddress {
                    addr: 0x7000,
                    rkey: 9,
                }),
            tso: (opcode == Opcode::Tso).then_some(Tso {
                mss: 500,
                header: &header,
            }),
            payload,
        };
        encoded(&wr)
    };
    let one = |len: u32| {
        [DataSegment {
            addr: data + 0x11,
            length: len,
            lkey,
        }]
    };
    // Several entries that add up to `lens`' sum, in order.
    let many = |lens: &[u32]| entries(data + 3, 5, lkey, lens);
    let inline: Vec<u8> = (0..200).map(|_| r.gen()).collect();
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for len in [14u32, 59, 60, 61, 1514, 4096, 4097, 4218] {
        cases.push((
            format!("SEND {len} bytes"),
            encode(0, Opcode::Send, None, Payload::Gather(&one(len))),
        ));
    }
    for lens in [&[7u32, 7][..], &[4100, 118], &[1, 4217], &[2000, 2000, 218]] {
        cases.push((
            format!("SEND gathered {lens:?}"),
            encode(0, Opcode::Send, None, Payload::Gather(&many(lens))),
        ));
    }
    for len in [14usize, 60, 61, 200] {
        cases.push((
            format!("SEND inline {len} bytes"),
            encode(0, Opcode::Send, None, Payload::Inline(&inline[..len])),
        ));
    }
    for op in [
        Opcode::SendImm,
        Opcode::RdmaWrite,
        Opcode::RdmaWriteImm,
        Opcode::Tso, // with an IPoIB template: a raw QP's is Ethernet
    ] {
        cases.push((
            format!("refused: {op:?}"),
            encode(0, op, None, Payload::Gather(&one(100))),
        ));
    }
    let other_pd = [DataSegment {
        addr: data2,
        length: 100,
        lkey: lkey2,
    }];
    for (what, bytes) in [
        (
            "an address vector",
            encode(0, Opcode::Send, Some(av), Payload::Gather(&one(100))),
        ),
        (
            "13 bytes",
            encode(0, Opcode::Send, None, Payload::Gather(&one(13))),
        ),
        (
            "13 bytes inline",
            encode(0, Opcode::Send, None, Payload::Inline(&inline[..13])),
        ),
        (
            "4,219 bytes",
            encode(0, Opcode::Send, None, Payload::Gather(&many(&[4000, 219]))),
        ),
        (
            "no entry",
            encode(0, Opcode::Send, None, Payload::Gather(&[])),
        ),
        (
            "another PD's region",
            encode(0, Opcode::Send, None, Payload::Gather(&other_pd)),
        ),
    ] {
        cases.push((format!("refused: {what}"), bytes));
    }
    let next = encode(1, Opcode::Send, None, Payload::Gather(&one(60)));
    for (what, bytes) in &cases {
        let mut run = base(Profile::Linux);
        post(&mut run, RAW_QUEUE, bytes);
        post(&mut run, RAW_QUEUE, &next);
        compare(&format!("raw {what} (seed {s})"), &run, &load, r.gen());
    }
    eprintln!("wqe_dp::raw_sends: {} cases (seed {s})", cases.len());
}

/// A raw QP's TSO sends, one per case and a SEND after it: Ethernet templates (IPv4 and IPv6,
/// an 802.1Q or 802.1ad tag), MSS 1 to a whole frame's, payloads of 0 to 9,000 bytes gathered
/// across entries and the 4,096-byte piece limit or inline, a segment of exactly 4,218 bytes;
/// then each refusal: a segment of 4,219, an IPoIB template, an MSS of 0 and of 9,001, a bad
/// template. Each segment is a frame as it leaves the segmenter (no headers added, zeros to 60
/// bytes, no ICRC); frames and completions must be the model's.
#[test]
fn raw_tso() {
    use rocenic_sim::wqe::scenario::{eth_tso_template, RAW_QUEUE};
    let s = seed("wqe_dp::raw_tso");
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.8,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    let (lkey, data, ..) = MRS[0];
    // Entries that add up to `lens`' sum, in order, with gaps between them.
    let many = |lens: &[u32]| entries(data + 5, 3, lkey, lens);
    let inline: Vec<u8> = (0..600).map(|_| r.gen()).collect();
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for (mss, lens) in [
        (1448u16, &[4000u32][..]),
        (1460, &[0][..]),
        (1, &[20][..]),
        (7, &[3, 40, 9][..]),
        (536, &[4100, 118, 1][..]),
        (4000, &[4200, 4800][..]),
        (9000, &[100][..]),
    ] {
        let header = eth_tso_template(&mut r, false);
        cases.push((
            format!("TSO MSS {mss}, {lens:?}, a {}-byte template", header.len()),
            raw_tso_wqe(0, &header, mss, Payload::Gather(&many(lens))),
        ));
    }
    for len in [0usize, 1, 100, 600] {
        let header = eth_tso_template(&mut r, false);
        cases.push((
            format!("TSO inline {len} bytes"),
            raw_tso_wqe(0, &header, 97, Payload::Inline(&inline[..len])),
        ));
    }
    // Exactly a whole frame in one segment, then one byte over.
    for over in [0u32, 1] {
        let header = eth_tso_template(&mut r, false);
        let seg = 4218 - header.len() as u32 + over;
        cases.push((
            format!("TSO a segment of {} bytes", 4218 + over),
            raw_tso_wqe(0, &header, seg as u16, Payload::Gather(&many(&[seg, 700]))),
        ));
    }
    let good = eth_tso_template(&mut r, false);
    for (what, header, mss) in [
        ("an IPoIB template", tso_template(&mut r, false), 500),
        ("a bad template", eth_tso_template(&mut r, true), 500),
        ("MSS 0", good.clone(), 0),
        ("MSS 9,001", good.clone(), 9001),
    ] {
        cases.push((
            format!("refused TSO: {what}"),
            raw_tso_wqe(0, &header, mss, Payload::Gather(&many(&[1000]))),
        ));
    }
    let next = raw_tso_wqe(1, &good, 300, Payload::Gather(&many(&[700])));
    for (what, bytes) in &cases {
        let mut run = base(Profile::Linux);
        post(&mut run, RAW_QUEUE, bytes);
        post(&mut run, RAW_QUEUE, &next);
        compare(&format!("raw {what} (seed {s})"), &run, &load, r.gen());
    }
    eprintln!("wqe_dp::raw_tso: {} cases (seed {s})", cases.len());
}

/// Back to back TSO sends on the UD QP mixed with SENDs on the others: a TSO send's segments
/// and the plain packets around it leave in the model's order.
#[test]
fn tso_streams() {
    let s = seed("wqe_dp::tso_streams");
    let mut r = rng(s);
    for i in 0..6 {
        let load = Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: [1.0, 0.6][i % 2],
            mr_latency: 1..=3,
        };
        let mut run = base(Profile::Linux);
        let (lkey, base_addr, ..) = MRS[0];
        for n in 0..8u32 {
            let header = tso_template(&mut r, false);
            let mss = r.gen_range(1..=400);
            let sges: Vec<DataSegment> = (0..r.gen_range(1..4))
                .map(|_| DataSegment {
                    addr: base_addr + r.gen_range(0..0x4000),
                    length: r.gen_range(1..3000),
                    lkey,
                })
                .collect();
            let inline: Vec<u8> = (0..r.gen_range(0..400)).map(|_| r.gen()).collect();
            let payload = if n % 3 == 2 {
                Payload::Inline(&inline)
            } else {
                Payload::Gather(&sges)
            };
            post(
                &mut run,
                2,
                &tso_wqe(n, r.gen(), &header, mss, payload, r.gen()),
            );
            post(&mut run, 0, &wqe_bytes(0, n, Opcode::Send));
            post(&mut run, 3, &wqe_bytes(3, n, Opcode::RdmaWrite));
        }
        compare(&format!("TSO streams {i} (seed {s})"), &run, &load, r.gen());
    }
}

/// Each way the checks refuse a TSO WQE, in the model's order, each followed by a SEND
/// (flushed): an MSS of 0, a template over 128 bytes, a payload over 256 KiB, a template that
/// is not IPoIB + IP + TCP, an MSS over 9,000, a segment over the path MTU, HDR_LEN 0, TSO on
/// an RC QP, and an earlier check (a bad lkey, an entry of length 0) before the TSO ones.
#[test]
fn tso_refusals() {
    let s = seed("wqe_dp::tso_refusals");
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: 0.9,
        mr_latency: 1..=3,
    };
    let mut r = rng(s);
    let (lkey, base_addr, ..) = MRS[0];
    let sge = |length: u32| DataSegment {
        addr: base_addr,
        length,
        lkey,
    };
    let good = tso_template(&mut r, false);
    let mut long = good.clone();
    long.resize(130, 0);
    let mut not_tcp = good.clone();
    not_tcp[if good[0] == 0x08 { 13 } else { 10 }] = 17;
    let big = [sge(0x8000); 9];
    let one = [sge(1000)];
    let bad_key = [DataSegment {
        lkey: 0x999,
        ..sge(1000)
    }];
    let empty = [sge(0)];
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "MSS 0",
            tso_wqe(0, 1, &good, 0, Payload::Gather(&one), true),
        ),
        (
            "template over 128 bytes",
            tso_wqe(0, 2, &long, 100, Payload::Gather(&one), true),
        ),
        (
            "payload over 256 KiB",
            tso_wqe(0, 3, &good, 100, Payload::Gather(&big), true),
        ),
        (
            "not TCP",
            tso_wqe(0, 4, &not_tcp, 100, Payload::Gather(&one), true),
        ),
        (
            "MSS over 9,000",
            tso_wqe(0, 5, &good, 9001, Payload::Gather(&one), false),
        ),
        (
            "segment over the MTU",
            tso_wqe(0, 6, &good, 500, Payload::Gather(&one), true),
        ),
        (
            "bad lkey and MSS 0",
            tso_wqe(0, 7, &good, 0, Payload::Gather(&bad_key), true),
        ),
        (
            "empty entry and a long template",
            tso_wqe(0, 8, &long, 100, Payload::Gather(&empty), true),
        ),
        (
            "MSS 0 and over 256 KiB",
            tso_wqe(0, 9, &good, 0, Payload::Gather(&big), true),
        ),
        (
            "over 256 KiB and not TCP",
            tso_wqe(0, 10, &not_tcp, 100, Payload::Gather(&big), true),
        ),
        (
            "not TCP and over the MTU",
            tso_wqe(0, 11, &not_tcp, 500, Payload::Gather(&one), true),
        ),
    ];
    // HDR_LEN 0 (the decoder's TsoMismatch) and TSO on an RC QP.
    let mut zero_hdr = tso_wqe(0, 12, &good, 100, Payload::Gather(&one), true);
    zero_hdr[26] = 0;
    zero_hdr[27] = 0;
    cases.push(("HDR_LEN 0", zero_hdr));
    for (what, bytes) in &cases {
        let mut run = base(Profile::Linux);
        post(&mut run, 2, bytes);
        post(&mut run, 2, &wqe_bytes(2, 1, Opcode::Send));
        let want = with_tso(&run).model();
        assert!(want.frames.is_empty(), "{what}: the model refuses it");
        compare(&format!("{what} (seed {s})"), &run, &load, r.gen());
    }
    // On an RC QP: the RC QP's bytes with the opcode changed to TSO.
    let mut rc = wqe_bytes(0, 0, Opcode::Send);
    rc[0] = Opcode::Tso as u8;
    let mut run = base(Profile::Linux);
    post(&mut run, 0, &rc);
    post(&mut run, 0, &wqe_bytes(0, 1, Opcode::Send));
    compare(&format!("TSO on RC (seed {s})"), &run, &load, r.gen());
}

/// A DMA read that faults in a TSO send's segment k: segments 0..k-1 go out, the rest do not,
/// the WQE completes with `general_err` and the next WQE of the QP is flushed (another QP's
/// SEND still goes), for k = 0 and later, gathered from one and from two entries.
#[test]
fn tso_dma_fault() {
    let s = seed("wqe_dp::tso_dma_fault");
    let mut r = rng(s);
    let (hole_key, hole, ..) = MRS[2];
    let (lkey, base_addr, ..) = MRS[0];
    for i in 0..12 {
        let load = Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: [1.0, 0.7][i % 2],
            mr_latency: 1..=3,
        };
        let header = tso_template(&mut r, false);
        let mss: u16 = r.gen_range(50..=300);
        // The host backs the region's first 0x800 bytes: the fault starts at byte `at` of
        // the payload.
        let at = u32::from(mss) * r.gen_range(0..5) + r.gen_range(0..u32::from(mss));
        let faulty = DataSegment {
            addr: hole + 0x800 - u64::from(at.min(0x800)),
            length: at.min(0x800) + r.gen_range(1..600),
            lkey: hole_key,
        };
        let sges = if i % 3 == 0 {
            vec![faulty]
        } else {
            vec![
                DataSegment {
                    addr: base_addr + 0x100,
                    length: r.gen_range(1..700),
                    lkey,
                },
                faulty,
            ]
        };
        let mut run = base(Profile::Linux);
        post(
            &mut run,
            2,
            &tso_wqe(0, 0x77, &header, mss, Payload::Gather(&sges), r.gen()),
        );
        post(&mut run, 2, &wqe_bytes(2, 1, Opcode::Send));
        post(&mut run, 0, &wqe_bytes(0, 0, Opcode::Send));
        compare(
            &format!("fault {i} at byte {at} (seed {s})"),
            &run,
            &load,
            r.gen(),
        );
    }
}
