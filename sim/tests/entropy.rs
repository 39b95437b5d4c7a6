//! The entropy unit (rtl/entropy/entropy_unit.sv) against the reference model, cycle by cycle,
//! in both builds: products split at 18 bits (default) and at 16 (the iCEBreaker's).

use rocenic_model::entropy::{Entropy, Profile, QpType, Request};
use rocenic_sim::duts::EntropyUnitPorts;
use rocenic_sim::duts::{EntropyUnit, EntropyUnit16};
use rocenic_sim::entropy::{random_request, EntropyRtl, Error, Traffic, LATENCY, MAX_QPN};
use rocenic_sim::harness::Sim;
use rocenic_sim::scoreboard::Scoreboard;
use rocenic_sim::stream;

/// Runs `requests` through build `D` with random gaps and back-pressure; every result is checked
/// against the model.
fn check_against_model<D: EntropyUnitPorts>(
    name: &str,
    requests: &[(Profile, Request)],
    idle: f64,
    stall: f64,
) {
    let seed = stream::seed(name);
    let mut board = Scoreboard::new(name);
    for (p, r) in requests {
        board.expect(p.compute(r));
    }
    let mut rtl = EntropyRtl::<D>::new(name);
    let mut first_error = None;
    rtl.run(requests, Traffic { idle, stall, seed }, |i, e| {
        if let Err(m) = board.observe(e) {
            first_error.get_or_insert(format!("{m} (request {:?})", requests[i]));
        }
    })
    .unwrap_or_else(|e| panic!("{name}: {e} (seed {seed})"));
    if let Some(m) = first_error {
        panic!("{m} (seed {seed})");
    }
    assert_eq!(board.pending(), 0);
    assert_eq!(board.matched(), requests.len() as u64);
}

fn random_batch(profile: Profile, n: usize, seed: u64) -> Vec<(Profile, Request)> {
    let mut rng = stream::rng(seed);
    (0..n)
        .map(|_| (profile, random_request(&mut rng)))
        .collect()
}

/// Every QP and CM edge: QPNs at both split points (bits 15/16 and 17/18) and at the ends, flow
/// labels at 0, 20 bits and above, the CM ports' extremes, under every profile.
fn edge_requests() -> Vec<(Profile, Request)> {
    let qpns = [
        0, 1, 2, 0x12, 0xFFFF, 0x1_0000, 0x3_FFFF, 0x4_0000, 0xFF_FFFE, MAX_QPN,
    ];
    let fls = [0, 1, 0xF_FFFF, 0x10_0000, 0xFFF0_0000, u32::MAX];
    let mut requests = Vec::new();
    for p in Profile::ALL {
        for &l in &qpns {
            for &r in &qpns {
                for &fl in &fls {
                    for qp_type in [QpType::Rc, QpType::Ud] {
                        requests.push((
                            p,
                            Request::Qp {
                                lqpn: l,
                                rqpn: r,
                                flow_label: fl,
                                qp_type,
                            },
                        ));
                    }
                }
                for (s, d) in [
                    (0, 0),
                    (0, 65535),
                    (65535, 0),
                    (65535, 65535),
                    (18515, 4791),
                ] {
                    for flowinfo in [0, 0xF000_0000, 0xABCDE] {
                        requests.push((
                            p,
                            Request::Cm {
                                src_port: s,
                                dst_port: d,
                                flowinfo,
                                lqpn: l,
                                rqpn: r,
                            },
                        ));
                    }
                }
            }
        }
    }
    requests
}

/// The model comparisons, once per build of the unit: `split18` is the default (ECP5's
/// MULT18X18D), `split16` the iCEBreaker's (SB_MAC16). The split must never change a result.
macro_rules! against_the_model {
    ($module:ident, $dut:ty) => {
        mod $module {
            use super::*;

            fn name(test: &str) -> String {
                format!("entropy_{}_{test}", stringify!($module))
            }

            #[test]
            fn linux_100k_random_under_back_pressure() {
                let seed = stream::seed(&name("linux stimulus"));
                check_against_model::<$dut>(
                    &name("linux"),
                    &random_batch(Profile::Linux, 100_000, seed),
                    0.3,
                    0.3,
                );
            }

            #[test]
            fn rfc_v2_100k_random_under_back_pressure() {
                let seed = stream::seed(&name("rfc-v2 stimulus"));
                check_against_model::<$dut>(
                    &name("rfc_v2"),
                    &random_batch(Profile::RfcV2, 100_000, seed),
                    0.2,
                    0.5,
                );
            }

            #[test]
            fn rfc_v1_100k_random_under_back_pressure() {
                let seed = stream::seed(&name("rfc-v1 stimulus"));
                check_against_model::<$dut>(
                    &name("rfc_v1"),
                    &random_batch(Profile::RfcV1, 100_000, seed),
                    0.5,
                    0.2,
                );
            }

            #[test]
            fn rxe_100k_random_under_back_pressure() {
                let seed = stream::seed(&name("rxe stimulus"));
                check_against_model::<$dut>(
                    &name("rxe"),
                    &random_batch(Profile::Rxe, 100_000, seed),
                    0.1,
                    0.7,
                );
            }

            #[test]
            fn edge_cases_every_profile() {
                check_against_model::<$dut>(&name("edges"), &edge_requests(), 0.25, 0.25);
            }

            #[test]
            fn mixed_profiles_back_to_back() {
                let seed = stream::seed(&name("mixed stimulus"));
                let mut rng = stream::rng(seed);
                let requests: Vec<_> = (0..20_000)
                    .map(|i| (Profile::ALL[i % 4], random_request(&mut rng)))
                    .collect();
                check_against_model::<$dut>(&name("mixed"), &requests, 0.0, 0.0);
            }

            /// N results in N + LATENCY cycles with an always-ready sink, each exactly LATENCY
            /// after its request.
            #[test]
            fn one_per_clock_at_fixed_latency() {
                let requests = random_batch(Profile::Linux, 1000, 7);
                let mut rtl = EntropyRtl::<$dut>::new(&name("throughput"));
                let mut n = 0;
                let stats = rtl
                    .run(&requests, Traffic::FULL_RATE, |_, _| n += 1)
                    .unwrap();
                assert_eq!(n, 1000);
                assert_eq!(stats.busy_cycles, 1000 + LATENCY);
                assert_eq!((stats.on_time, stats.late), (1000, 0));
            }

            /// The comparison can fail: results of one profile do not pass for another's.
            #[test]
            fn scoreboard_catches_a_wrong_model() {
                let requests = random_batch(Profile::Linux, 200, 11);
                let mut board = Scoreboard::new("wrong model");
                for (_, r) in &requests {
                    board.expect(Profile::RfcV1.compute(r));
                }
                let mut rtl = EntropyRtl::<$dut>::new(&name("wrong_model"));
                let mut mismatches = 0;
                rtl.run(&requests, Traffic::FULL_RATE, |_, e| {
                    mismatches += usize::from(board.observe(e).is_err())
                })
                .unwrap();
                assert!(mismatches > 150, "only {mismatches} mismatches");
            }
        }
    };
}

against_the_model!(split18, EntropyUnit);
against_the_model!(split16, EntropyUnit16);

#[test]
fn wide_qpns_are_refused() {
    let mut rtl = EntropyRtl::<EntropyUnit>::new("entropy_wide");
    let requests = [
        (
            Profile::Linux,
            Request::Qp {
                lqpn: 1,
                rqpn: 2,
                flow_label: 0,
                qp_type: QpType::Rc,
            },
        ),
        (
            Profile::Linux,
            Request::Qp {
                lqpn: 0x100_0000,
                rqpn: 2,
                flow_label: 0,
                qp_type: QpType::Rc,
            },
        ),
    ];
    assert_eq!(
        rtl.compute(&requests),
        Err(Error::QpnTooWide {
            index: 1,
            qpn: 0x100_0000
        })
    );
}

/// A stuck sink is reported as a hang with its cycle count, never a blocked test.
#[test]
fn a_stuck_sink_is_a_hang_not_a_block() {
    let mut sim: Sim<EntropyUnit> = Sim::new("entropy_stuck");
    sim.reset(2);
    sim.dut.set_m_res_ready(0);
    sim.run_until("ready after reset", 10, |d| d.s_req_ready() == 1)
        .unwrap();
    sim.dut.set_s_req_valid(1);
    // Requests flow in until the pipeline and the output buffer are full.
    let filled = sim
        .run_until("the pipeline to fill", 100, |d| d.s_req_ready() == 0)
        .unwrap();
    assert!(filled > LATENCY, "filled after {filled} cycles");
    let hang = sim
        .run_until("the unit to accept again", 50, |d| d.s_req_ready() == 1)
        .expect_err("a full pipeline with a stuck sink must not accept");
    assert_eq!(sim.dut.m_res_valid(), 1);
    assert!(hang.cycle > 0);
    assert!(hang.to_string().contains("not done after"), "{hang}");
}

/// The VCD switch writes a trace that holds the clock and the handshake.
#[test]
fn vcd_trace_records_the_run() {
    let dir = std::env::temp_dir().join(format!("rocenic-vcd-{}", std::process::id()));
    std::env::set_var("ROCENIC_VCD_DIR", &dir);
    let path = {
        let mut sim: Sim<EntropyUnit> = Sim::with_trace("entropy_vcd", true);
        sim.reset(2);
        sim.dut.set_m_res_ready(1);
        sim.dut.set_s_req_valid(1);
        sim.dut.set_s_req_lqpn(0xFF_FFFF);
        sim.dut.set_s_req_rqpn(0xFF_FFFF);
        sim.run_until("a result", 20, |d| d.m_res_valid() == 1)
            .unwrap();
        assert_eq!(
            Entropy {
                flow_label: sim.dut.m_res_flow_label(),
                udp_sport: sim.dut.m_res_udp_sport()
            },
            Entropy {
                flow_label: 0xF_FF1E,
                udp_sport: 0xFF21
            }
        );
        sim.step();
        sim.trace().unwrap().to_path_buf()
    };
    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let clk = header
        .find_var(&["TOP", "clk"])
        .expect("clk in the VCD")
        .code;
    let valid = header
        .find_var(&["TOP", "m_res_valid"])
        .expect("m_res_valid in the VCD")
        .code;
    let (mut clk_edges, mut valid_rose) = (0, false);
    for cmd in parser {
        if let vcd::Command::ChangeScalar(code, value) = cmd.unwrap() {
            clk_edges += usize::from(code == clk && value == vcd::Value::V1);
            valid_rose |= code == valid && value == vcd::Value::V1;
        }
    }
    assert!(clk_edges >= 8, "{clk_edges} rising clock edges");
    assert!(valid_rose);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An FST trace (`ROCENIC_TRACE=fst`, or a file ending in `.fst`) holds what the VCD of the
/// same run holds: read back with wellen (the reader Surfer uses), the same signals with the
/// same changes at the same times, and no staging VCD is left beside it.
#[test]
fn an_fst_trace_holds_what_the_vcd_holds() {
    use rand::Rng;
    let seed = stream::seed("an_fst_trace_holds_what_the_vcd_holds");
    let dir = std::env::temp_dir().join(format!("rocenic-fst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |path: std::path::PathBuf| {
        let mut sim: Sim<EntropyUnit> = Sim::traced_in(Some(path), 0..u64::MAX).unwrap();
        sim.reset(2);
        let mut rnd = stream::rng(seed);
        for _ in 0..400 {
            sim.dut.set_s_req_valid(rnd.gen_bool(0.7) as u8);
            sim.dut.set_s_req_lqpn(rnd.gen_range(0..=MAX_QPN));
            sim.dut.set_s_req_rqpn(rnd.gen_range(0..=MAX_QPN));
            sim.dut.set_m_res_ready(rnd.gen_bool(0.6) as u8);
            sim.step();
        }
        sim.close_trace().unwrap();
    };
    let (vcd, fst) = (dir.join("run.vcd"), dir.join("run.fst"));
    run(vcd.clone());
    run(fst.clone());
    assert!(
        !dir.join("run.fst.vcd").exists(),
        "the staging VCD is removed"
    );
    // A long trace is written in blocks: the same VCD in blocks of 4 KiB reads back the same.
    let blocks = dir.join("blocks.fst");
    rocenic_sim::fst::vcd_to_fst_in_blocks(&vcd, &blocks, 4096).unwrap();

    // Every variable by its full name (a range, which the VCD keeps apart, written into the
    // name as the FST does), with its changes as (time, bits).
    type Changes = Vec<(u64, String)>;
    let read = |path: &std::path::Path| -> std::collections::BTreeMap<String, Changes> {
        let mut w = wellen::simple::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let vars: Vec<(String, wellen::SignalRef)> = w
            .hierarchy()
            .iter_vars()
            .map(|v| {
                let name = v.full_name(w.hierarchy());
                let name = match v.index() {
                    Some(i) => format!("{name}[{}:{}]", i.msb(), i.lsb()),
                    None => name,
                };
                (name.replace(' ', ""), v.signal_ref())
            })
            .collect();
        let refs: Vec<_> = vars.iter().map(|&(_, r)| r).collect();
        w.load_signals(&refs);
        let times = w.time_table().to_vec();
        vars.into_iter()
            .map(|(name, r)| {
                let changes = w
                    .get_signal(r)
                    .unwrap()
                    .iter_changes()
                    .map(|(t, v)| (times[t as usize], v.to_bit_string().unwrap()))
                    .collect();
                (name, changes)
            })
            .collect()
    };
    let (a, b) = (read(&vcd), read(&fst));
    assert!(a.len() > 20, "{} variables", a.len());
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the same variables"
    );
    let c = read(&blocks);
    for (name, changes) in &a {
        assert_eq!(changes, &b[name], "{name} (seed {seed})");
        assert_eq!(changes, &c[name], "{name}, in blocks (seed {seed})");
    }
    let clk = a.iter().find(|(n, _)| n.ends_with(".clk")).unwrap().1;
    assert!(clk.len() >= 800, "{} clock changes", clk.len());
    let fst_size = std::fs::metadata(&fst).unwrap().len();
    let vcd_size = std::fs::metadata(&vcd).unwrap().len();
    assert!(
        fst_size * 3 < vcd_size,
        "FST {fst_size} B, VCD {vcd_size} B"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A trace over a window of cycles holds those cycles only, each one clock period of 8 ns: `clk`
/// rises in the middle of each period, at the picosecond times a viewer shows.
#[test]
fn a_trace_window_holds_its_cycles_at_the_clock_period() {
    use rocenic_sim::harness::TRACE_PERIOD_PS;
    let path = std::env::temp_dir().join(format!("rocenic-window-{}.vcd", std::process::id()));
    {
        let mut sim: Sim<EntropyUnit> = Sim::traced_in(Some(path.clone()), 10..15).unwrap();
        sim.reset(2);
        for _ in 0..30 {
            sim.step();
        }
        assert_eq!(sim.cycle(), 32);
    }
    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    assert_eq!(header.timescale, Some((1, vcd::TimescaleUnit::PS)));
    let clk = header.find_var(&["TOP", "clk"]).unwrap().code;
    let (mut times, mut rises) = (Vec::new(), Vec::new());
    let mut now = 0;
    for cmd in parser {
        match cmd.unwrap() {
            vcd::Command::Timestamp(t) => {
                now = t;
                times.push(t);
            }
            vcd::Command::ChangeScalar(code, vcd::Value::V1) if code == clk => rises.push(now),
            _ => {}
        }
    }
    let want: Vec<u64> = (10..15u64)
        .flat_map(|c| {
            [
                c * TRACE_PERIOD_PS,
                c * TRACE_PERIOD_PS + TRACE_PERIOD_PS / 2,
            ]
        })
        .collect();
    assert_eq!(
        times, want,
        "two samples per traced cycle, nothing outside the window"
    );
    let want_rises: Vec<u64> = (10..15u64)
        .map(|c| c * TRACE_PERIOD_PS + TRACE_PERIOD_PS / 2)
        .collect();
    assert_eq!(rises, want_rises);
    std::fs::remove_file(&path).unwrap();
}
