//! The whole WQE engine with the reliable transport (`wqe_engine` with `RELIABLE`, the 25F's
//! 16 slots; docs/wqe-reliable.md, "In the engine"), against a peer over a link: the data
//! path's scenario's three RC queues (MTUs 256, 1024 and 4096, IPv4 and IPv6, a VLAN tag,
//! PSNs starting just below the 2^24 wrap) carry random valid WQE streams, every doorbell rung
//! before the engine is enabled. Each frame the engine sends crosses a link that may lose it
//! to a `model::rc::Responder` per QP, whose acknowledgements cross back (lost likewise, and
//! delayed) onto the engine's `s_rack_*`, under random DMA latency and output back-pressure.
//!
//! What must hold:
//! - every frame is the model's packet for its PSN (`SendEngine::rc_packet_as`, with the
//!   frame's AckReq), byte for byte, and a message's last packet asks for an acknowledgement;
//! - the peer executes every packet of every QP exactly once, in PSN order;
//! - every signaled WQE completes exactly once, in posting order per QP, with the model's
//!   completion (`rc_fetch_prepare`) and `success`, and nothing else completes;
//! - on a clean link nothing is sent twice.
//!
//! The engine's order of service is not the model's step by step here (its sweep runs on its
//! own clock, acknowledgements come in when they come), so the check is on what each QP sends
//! and completes; the block's turns are checked step by step in `wqe_reliable.rs`.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::entropy::Profile;
use rocenic_model::qp::Psn;
use rocenic_model::rc::{Executed, Packet, Reliable, Reply, Request, Responder, Scale};
use rocenic_model::wire::RoceFrame;
use rocenic_model::wqe::{regs, Cqe, HostMemory, Memory, CQE_BYTES};
use rocenic_sim::axil::Op;
use rocenic_sim::duts::WqeEngineRel;
use rocenic_sim::stream::{rng, seed};
use rocenic_sim::wqe::engine::{setup_writes, Bench, Load, RackIn, Setup};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::reliable::model_packet;
use rocenic_sim::wqe::scenario::{base, post, rc_wqe};

/// The scenario's RC queues.
const RC_QUEUES: [usize; 3] = [0, 1, 3];
/// The peer's QPN of a local RC QP in the scenario.
const PEER: u32 = 0x900;

/// One run's settings.
#[derive(Clone, Copy, Debug)]
struct Case {
    wqes: u32,
    loss: f64,
    /// Cycles an acknowledgement takes back, at most.
    delay: u64,
    /// Cycles per tick of the transport's clock.
    tick: u16,
    rel: Reliable,
    out_ready: f64,
}

/// What a run saw.
#[derive(Debug, Default)]
struct Seen {
    frames: u64,
    resent: u64,
    lost: u64,
    acks: u64,
    cycles: u64,
}

/// A QP's WQEs as the model prepares them: (first PSN offset, packets, completion, signaled).
struct Plan {
    qpn: u32,
    first: u32,
    wqes: Vec<(u32, u32, Cqe, bool)>,
}

impl Plan {
    /// The WQE and packet of `psn`.
    fn locate(&self, psn: u32) -> Option<(u32, u32, u32)> {
        let off = psn.wrapping_sub(self.first) & 0xFF_FFFF;
        self.wqes
            .iter()
            .enumerate()
            .find(|(_, w)| off >= w.0 && off < w.0 + w.1)
            .map(|(i, w)| (i as u32, off - w.0, w.1))
    }
    fn packets(&self) -> u32 {
        self.wqes.iter().map(|w| w.1).sum()
    }
}

fn run(name: &str, case: Case, s: u64) -> Seen {
    let what = format!("{name}, seed {s}, {case:?}");
    let mut r = rng(s);
    let mut run = base(Profile::ALL[r.gen_range(0..4)]);
    for &k in &RC_QUEUES {
        for i in 0..case.wqes {
            let big = r.gen_bool(0.3);
            let bytes = rc_wqe(&mut r, k, i, big, false);
            post(&mut run, k, &bytes);
        }
    }
    let mem0: HostMemory = run.mem.clone();
    // What each QP sends and completes, as the model prepares it.
    let plans: Vec<Plan> = RC_QUEUES
        .iter()
        .map(|&k| {
            let q = &run.queues[k];
            let stride = q.ring.stride_blocks() as usize;
            let first = run.engine.qps.get(q.qpn).expect("QP").next_psn().get();
            let mut at = 0;
            let wqes = (0..q.posted)
                .map(|i| {
                    let w = run
                        .engine
                        .rc_fetch_prepare(q.qpn, &mem0, q.ring.addr(i), stride, false)
                        .unwrap_or_else(|c| panic!("{what}: WQE {i} of {:#x} fails: {c:?}", q.qpn));
                    let e = (at, w.packets, w.cqe, w.signaled);
                    at += w.packets;
                    e
                })
                .collect();
            Plan {
                qpn: q.qpn,
                first,
                wqes,
            }
        })
        .collect();
    let mut peers: Vec<Responder> = plans
        .iter()
        .map(|p| Responder::new(case.rel.responder(Psn::from_bits_truncate(p.first))))
        .collect();
    // The PSNs each peer executed, in order.
    let mut executed: Vec<Vec<u32>> = vec![Vec::new(); plans.len()];

    let setup = Setup {
        slot_by_qpn: true,
        ..Setup::from(&run)
    };
    let load = Load {
        dma: DmaConfig::adversarial(8, 4),
        out_ready: case.out_ready,
        axil_delay: 0.1,
    };
    let mut bench = Bench::<WqeEngineRel>::new(setup.memory.clone(), &load, s, None)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let caps2 = bench
        .access(Op::Read { addr: regs::CAPS2 })
        .expect("bench")
        .expect("CAPS2 read")
        .data;
    assert_eq!(
        regs::caps2::RELIABLE.get(caps2),
        1,
        "{what}: CAPS2.RELIABLE"
    );

    // Programmed as `engine::run` programs it, the transport's registers first; each QP at
    // slot QPN mod 16, where an acknowledgement finds it.
    let ops = setup_writes(&setup, 16, Some((&case.rel, case.tick)));
    for &(addr, data) in &ops {
        let d = bench
            .access(Op::write(addr, data))
            .expect("bench")
            .unwrap_or_else(|| panic!("{what}: register write {addr:#x} timed out"));
        assert_eq!(d.resp, 0, "{what}: write {addr:#x}");
    }
    let status = bench
        .access(Op::Read { addr: regs::STATUS })
        .expect("bench")
        .expect("STATUS")
        .data;
    assert_eq!(
        regs::status::CMD_ERROR.get(status),
        0,
        "{what}: a command refused"
    );

    let want_cqes: u32 = plans
        .iter()
        .map(|p| p.wqes.iter().filter(|w| w.3).count() as u32)
        .sum();
    let mut seen = Seen::default();
    let start = bench.cycle();
    let limit = start + 4_000_000;
    let mut sent: Vec<std::collections::BTreeSet<u32>> = vec![Default::default(); plans.len()];
    let mut produced = 0u32;
    let mut last_poll = 0;
    let mut done_at: Option<u64> = None;
    loop {
        let now = bench.cycle();
        assert!(
            now < limit,
            "{what}: hang at cycle {now}: {produced} of {want_cqes} completions, executed {:?}",
            executed.iter().map(Vec::len).collect::<Vec<_>>()
        );
        if let Some(d) = bench.step().unwrap_or_else(|e| panic!("{what}: {e}")) {
            if d.tag == u64::MAX {
                produced = d.data;
            }
        }
        if bench.axil_idle() && now - last_poll >= 256 {
            bench.push(
                Op::Read {
                    addr: regs::CQ_PRODUCER,
                },
                u64::MAX,
            );
            last_poll = now;
        }
        for f in bench.take_frames() {
            seen.frames += 1;
            let roce = RoceFrame::parse(&f).unwrap_or_else(|e| panic!("{what}: frame: {e:?}"));
            let bth = roce.bth();
            let k = plans
                .iter()
                .position(|p| PEER + p.qpn == bth.dest_qpn())
                .unwrap_or_else(|| panic!("{what}: a frame for QP {:#x}", bth.dest_qpn()));
            let p = &plans[k];
            let psn = bth.psn();
            let (i, index, packets) = p.locate(psn).unwrap_or_else(|| {
                panic!("{what}: QP {:#x} sent PSN {psn:#x}, none of its", p.qpn)
            });
            // The model's packet for that PSN, with the frame's AckReq.
            let pkt = Packet {
                psn: Psn::from_bits_truncate(psn),
                wr_id: i.into(),
                index,
                packets,
                ack_req: bth.ack_req(),
                resend: false,
            };
            let mut want = Vec::new();
            let ring = &run.queues[RC_QUEUES[k]].ring;
            model_packet(&run.engine, &mem0, p.qpn, ring, &pkt, &mut |b| {
                want = b.to_vec()
            })
            .unwrap_or_else(|e| panic!("{what}: the model refuses PSN {psn:#x}: {e:?}"));
            assert_eq!(
                f, want,
                "{what}: QP {:#x} PSN {psn:#x} (WQE {i}, packet {index})",
                p.qpn
            );
            let last = index + 1 == packets;
            assert!(
                !last || bth.ack_req(),
                "{what}: a last packet without AckReq"
            );
            if !sent[k].insert(psn) {
                seen.resent += 1;
            }
            if r.gen_bool(case.loss) {
                seen.lost += 1;
                continue;
            }
            let req = Request {
                psn: Psn::from_bits_truncate(psn),
                ack_req: bth.ack_req(),
                last,
            };
            let exec = &mut executed[k];
            if let Reply::Send { psn, aeth } = peers[k]
                .request(req, || {
                    exec.push(req.psn.get());
                    Executed::Done
                })
                .reply
            {
                if r.gen_bool(case.loss) {
                    seen.lost += 1;
                } else {
                    seen.acks += 1;
                    bench.offer_rack(
                        now + r.gen_range(1..=case.delay),
                        RackIn {
                            qpn: p.qpn,
                            psn: psn.get(),
                            syndrome: aeth.syndrome.to_byte(),
                        },
                    );
                }
            }
        }
        if produced == want_cqes && done_at.is_none() {
            done_at = Some(now);
        }
        // A while after the last completion: nothing more may come.
        if done_at.is_some_and(|t| now > t + 20_000) && bench.axil_idle() {
            break;
        }
    }
    seen.cycles = done_at.expect("done") - start;

    // Every packet executed once, in order.
    for (k, p) in plans.iter().enumerate() {
        let want: Vec<u32> = (0..p.packets())
            .map(|o| p.first.wrapping_add(o) & 0xFF_FFFF)
            .collect();
        assert_eq!(executed[k], want, "{what}: QP {:#x}'s executions", p.qpn);
    }
    // Every signaled WQE completed once, in order per QP, as the model says.
    let mut cqes: Vec<Vec<Cqe>> = vec![Vec::new(); plans.len()];
    for j in 0..produced {
        let mut b = [0u8; CQE_BYTES];
        bench
            .memory()
            .read(setup.cq.0 + u64::from(j) * CQE_BYTES as u64, &mut b)
            .expect("the completion ring");
        let c = Cqe::decode(&b).unwrap_or_else(|e| panic!("{what}: CQE {j}: {e:?}"));
        let k = plans
            .iter()
            .position(|p| p.qpn == c.qpn)
            .unwrap_or_else(|| panic!("{what}: CQE {j} of QP {:#x}", c.qpn));
        cqes[k].push(Cqe { phase: false, ..c });
    }
    for (k, p) in plans.iter().enumerate() {
        let want: Vec<Cqe> = p
            .wqes
            .iter()
            .filter(|w| w.3)
            .map(|w| Cqe {
                phase: false,
                ..w.2
            })
            .collect();
        assert_eq!(cqes[k], want, "{what}: QP {:#x}'s completions", p.qpn);
    }
    assert_eq!(produced, want_cqes, "{what}: completions after the last");
    println!("{name}: seed {s}: {seen:?}");
    seen
}

fn rel(timeout: u8) -> Reliable {
    Reliable {
        timeout,
        retry_cnt: 7,
        rnr_retry: 7,
        scale: Scale(1),
        ..Reliable::default()
    }
}

#[test]
fn clean_link() {
    let s = seed("wqe_engine_reliable::clean_link");
    let seen = run(
        "clean_link",
        Case {
            wqes: 10,
            loss: 0.0,
            delay: 200,
            tick: 256,
            rel: rel(8),
            out_ready: 0.8,
        },
        s,
    );
    assert_eq!(seen.resent, 0, "a clean link resends nothing");
    assert!(seen.acks > 0);
}

#[test]
fn lossy_link() {
    let s = seed("wqe_engine_reliable::lossy_link");
    for i in 0..3 {
        let seen = run(
            "lossy_link",
            Case {
                wqes: 10,
                loss: 0.03,
                delay: 400,
                tick: 256,
                rel: rel(5),
                out_ready: 0.7,
            },
            s + i,
        );
        assert!(seen.lost > 0, "nothing was lost: the run shows nothing");
    }
}

/// A tick of 4 cycles, shorter than a sweep of the 16 slots: a sweep is due again before the
/// last one ends, and the turns must still run between them (they would starve if sweeps went
/// first every time), with the timeout counted in those short ticks.
#[test]
fn ticks_shorter_than_a_sweep() {
    let s = seed("wqe_engine_reliable::ticks_shorter_than_a_sweep");
    let seen = run(
        "ticks_shorter_than_a_sweep",
        Case {
            wqes: 10,
            loss: 0.03,
            delay: 200,
            tick: 4,
            rel: rel(12),
            out_ready: 0.8,
        },
        s,
    );
    assert!(seen.acks > 0);
}
