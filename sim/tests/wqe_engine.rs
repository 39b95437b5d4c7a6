//! The whole WQE engine (control plane, data path, region check, frame builder, ICRC stage)
//! against the model's send engine: programmed through its registers with the model's
//! encoders, fed by host memory that answers out of order and late, its output under random
//! back-pressure; the frames (ICRC and padding included) and the completion ring must be the
//! model's, byte for byte. Each scenario runs on the default build (64 QP slots, 64 regions,
//! TSO) and on the ECP5-25F build (16 and 16, no TSO: `wqe_engine:QPS=16,MRS=16` in fpga.mk);
//! the model has TSO exactly when the build does (`CAPS.TSO`), so the same TSO work requests
//! are segmented on one and refused on the other.
//!
//! Each test prints its seed; `ROCENIC_SEED=N` replays it.

use rand::Rng;
use rocenic_model::qp::{QpKind, QpState};
use rocenic_model::rc::{emit_ack, parse_ack, Ack};
use rocenic_model::wire::ib::{AethRepr, Syndrome};
use rocenic_model::wqe::Memory;
use rocenic_sim::duts::{WqeEngine, WqeEngine16, WqeEnginePorts};
use rocenic_sim::mismatch::{compare_frames, Observed};
use rocenic_sim::stream::{rng, seed};
use rocenic_sim::wqe::engine::{run_on, tso_of, AckIn, Load, Queue, Setup};
use rocenic_sim::wqe::host_memory::Config as DmaConfig;
use rocenic_sim::wqe::scenario::scenario;

fn check<D: WqeEnginePorts>(
    test: &str,
    wqes: usize,
    big: bool,
    faults: f64,
    load: Load,
    runs: usize,
) {
    let s = seed(test);
    let mut r = rng(s);
    let tso = tso_of::<D>().expect("CAPS");
    for i in 0..runs {
        let mut sc = scenario(&mut r, wqes, big, faults);
        sc.engine.tso = tso;
        let want = sc.model();
        let what = format!("{test} run {i} (seed {s})");
        let out = match run_on::<D>(&Setup::from(&sc), &load, r.gen(), 3_000_000, None) {
            Ok(o) => o,
            Err(e) => panic!("{what}: {e}"),
        };
        let observed = Observed {
            frames: &out.frames,
            cycles: &out.frame_cycles,
        };
        if let Err(e) = compare_frames(&what, Some(s), observed, &want.frames) {
            panic!("{e}");
        }
        let mut cq = vec![0u8; want.cq.len()];
        out.memory.read(sc.cq.0, &mut cq).unwrap();
        assert_eq!(cq, want.cq, "{what}: completion ring");
        eprintln!(
            "{what}: {} frames in {} cycles",
            out.frames.len(),
            out.cycles
        );
    }
}

/// Four runs of 100 random WQEs, a host up to 200 cycles late and out of order, back-pressure.
fn random_streams_adversarial_host_on<D: WqeEnginePorts>(test: &str) {
    check::<D>(
        test,
        100,
        false,
        0.1,
        Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.7,
            axil_delay: 0.3,
        },
        4,
    );
}

/// Three runs of 30 WQEs of up to 12 KiB per entry, an ideal host.
fn large_messages_on<D: WqeEnginePorts>(test: &str) {
    check::<D>(test, 30, true, 0.0, Load::ideal(), 3);
}

/// Twenty runs of 12 WQEs, each kind of fault at its full rate.
fn error_storm_on<D: WqeEnginePorts>(test: &str) {
    check::<D>(
        test,
        12,
        false,
        1.0,
        Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.8,
            axil_delay: 0.0,
        },
        20,
    );
}

/// Acknowledgements offered at random among a random WQE stream (the receive path's
/// responder asks, the engine frames them between its own frames): each whose QP has a route
/// (model::wqe::SendEngine::rc_route: an RC QP of that QPN in its slot, entropy fixed) must
/// leave as model::rc::emit_ack builds it, in the order offered; the others (a UD or raw QP,
/// a QPN whose slot holds another QP) must not; the WQEs' frames and completions stay the
/// model's. Two runs of 60 WQEs and 40 acknowledgements, an adversarial host, back-pressure.
/// The QPN of the RC QP the acknowledgement runs leave in INIT.
const PARKED: u32 = 0x16;

fn acknowledgements_on<D: WqeEnginePorts>(test: &str) {
    let s = seed(test);
    let mut r = rng(s);
    let tso = tso_of::<D>().expect("CAPS");
    for i in 0..2 {
        let mut sc = scenario(&mut r, 60, false, 0.1);
        sc.engine.tso = tso;
        let want = sc.model();
        let what = format!("{test} run {i} (seed {s})");
        let mut setup = Setup::from(&sc);
        setup.slot_by_qpn = true;
        // An RC QP left in INIT (its entropy not fixed, so no route), in the engine and in
        // the model: acknowledgements naming it must produce nothing.
        let mut routes = sc.engine.clone();
        let parked = Queue {
            qpn: PARKED,
            producer: 0,
            ..setup.queues[0].clone()
        };
        assert_eq!(
            parked.config.qp_type,
            QpKind::Rc,
            "{what}: the first queue is RC"
        );
        routes
            .qps
            .create(PARKED, parked.config)
            .expect("a free QPN");
        routes
            .qps
            .modify(PARKED, QpState::Init)
            .expect("RESET to INIT");
        setup.parked.push(parked);
        // The scenario's QPs (RC, UD, raw), the parked one, and two QPNs whose slot (mod 16
        // or 64) holds 0x11.
        let qpns = [0x11, 0x12, 0x13, 0x14, 0x15, PARKED, 0x31, 0x51];
        setup.acks = (0..40)
            .map(|_| AckIn {
                qpn: qpns[r.gen_range(0..qpns.len())],
                psn: r.gen_range(0..1 << 24),
                syndrome: match r.gen_range(0..3) {
                    0 => r.gen_range(0..0x20),
                    1 => r.gen_range(0x20..0x40),
                    _ => r.gen_range(0x60..0x65),
                },
                msn: r.gen_range(0..1 << 24),
            })
            .collect();
        let want_acks: Vec<Vec<u8>> = setup
            .acks
            .iter()
            .filter_map(|a| {
                let (route, dest_qpn) = routes.rc_route(a.qpn)?;
                let aeth = AethRepr {
                    syndrome: Syndrome::from_byte(a.syndrome).expect("a valid syndrome"),
                    msn: a.msn,
                };
                let ack = Ack {
                    dest_qpn,
                    psn: a.psn,
                    aeth,
                };
                let mut buf = [0u8; 128];
                let n = emit_ack(&route, &ack, &mut buf).expect("an ACK frame");
                Some(buf[..n].to_vec())
            })
            .collect();
        let load = Load {
            dma: DmaConfig::adversarial(8, 4),
            out_ready: 0.7,
            axil_delay: 0.3,
        };
        let out = match run_on::<D>(&setup, &load, r.gen(), 3_000_000, None) {
            Ok(o) => o,
            Err(e) => panic!("{what}: {e}"),
        };
        let (acks, frames): (Vec<_>, Vec<_>) = out
            .frames
            .iter()
            .zip(&out.frame_cycles)
            .partition(|(f, _)| parse_ack(f).is_ok());
        let (frames, cycles): (Vec<Vec<u8>>, Vec<u64>) =
            frames.into_iter().map(|(f, c)| (f.clone(), *c)).unzip();
        let observed = Observed {
            frames: &frames,
            cycles: &cycles,
        };
        if let Err(e) = compare_frames(&what, Some(s), observed, &want.frames) {
            panic!("{e}");
        }
        let acks: Vec<Vec<u8>> = acks.into_iter().map(|(f, _)| f.clone()).collect();
        assert_eq!(
            acks.len(),
            want_acks.len(),
            "{what}: acknowledgement frames"
        );
        for (k, (got, want)) in acks.iter().zip(&want_acks).enumerate() {
            assert_eq!(got, want, "{what}: acknowledgement frame {k}");
        }
        let mut cq = vec![0u8; want.cq.len()];
        out.memory.read(sc.cq.0, &mut cq).unwrap();
        assert_eq!(cq, want.cq, "{what}: completion ring");
        eprintln!(
            "{what}: {} frames, {} of them acknowledgements ({} offered), in {} cycles",
            out.frames.len(),
            acks.len(),
            setup.acks.len(),
            out.cycles
        );
    }
}

#[test]
fn acknowledgements() {
    acknowledgements_on::<WqeEngine>("wqe_engine::acknowledgements");
}

#[test]
fn qps16_acknowledgements() {
    acknowledgements_on::<WqeEngine16>("wqe_engine::qps16_acknowledgements");
}

#[test]
fn random_streams_adversarial_host() {
    random_streams_adversarial_host_on::<WqeEngine>("wqe_engine::random_streams_adversarial_host");
}

#[test]
fn large_messages() {
    large_messages_on::<WqeEngine>("wqe_engine::large_messages");
}

#[test]
fn error_storm() {
    error_storm_on::<WqeEngine>("wqe_engine::error_storm");
}

#[test]
fn qps16_random_streams_adversarial_host() {
    random_streams_adversarial_host_on::<WqeEngine16>(
        "wqe_engine::qps16_random_streams_adversarial_host",
    );
}

#[test]
fn qps16_large_messages() {
    large_messages_on::<WqeEngine16>("wqe_engine::qps16_large_messages");
}

#[test]
fn qps16_error_storm() {
    error_storm_on::<WqeEngine16>("wqe_engine::qps16_error_storm");
}

/// Cycle figures of TSO sends on the default build (printed; `--nocapture`): eight 16 KiB
/// sends at MSS 1448 from one gather entry, on the UD QP with its path MTU raised to 4096 (a
/// 44-byte IPoIB + IPv4 + TCP template) and on the raw QP (a 54-byte Ethernet + IPv4 + TCP
/// one), each with an ideal host and one 100 cycles late. The frames and completions must be
/// the model's, as everywhere.
#[test]
fn tso_throughput() {
    use rocenic_model::entropy::Profile;
    use rocenic_model::qp::PathMtu;
    use rocenic_model::wqe::AddressVector;
    use rocenic_sim::wqe::scenario::{base, RAW_QUEUE};
    let ip_tcp: Vec<u8> = [
        &[0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0][..],
        &[10, 0, 0, 1, 10, 0, 0, 9],
        &[0x30, 0x39, 0x01, 0xBB, 0, 0, 0x10, 0, 0, 0, 0, 0],
        &[0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0],
    ]
    .concat();
    // UD: IPoIB, the QP's MTU raised to 4096.
    let mut run = base(Profile::Linux);
    let qpn = run.queues[2].qpn;
    let mut cfg = *run.engine.qps.get(qpn).unwrap().config();
    cfg.mtu = PathMtu::Mtu4096;
    run.engine.qps.destroy(qpn).unwrap();
    run.engine.qps.create(qpn, cfg).unwrap();
    run.engine.qps.bring_up(qpn).unwrap();
    let av = AddressVector {
        dqpn: 0x101,
        qkey: 0x2222,
        dgid: AddressVector::mapped([10, 0, 0, 9]),
        dmac: [2, 0, 0, 0, 0, 9],
        vlan: None,
        flow_label: 0,
        tclass: 0,
        hop_limit: 64,
    };
    let ipoib = [&[0x08, 0x00, 0, 0][..], &ip_tcp].concat();
    tso_figures("UD", run, 2, &ipoib, Some(av));
    // Raw: Ethernet.
    let eth = [
        &[2, 0, 0, 0, 0, 9, 2, 0, 0, 0, 0, 1, 0x08, 0x00][..],
        &ip_tcp,
    ]
    .concat();
    tso_figures("raw", base(Profile::Linux), RAW_QUEUE, &eth, None);
}

/// Eight 16 KiB TSO sends at MSS 1448 on queue `k` of `run`, with `header` and `av`: run on the
/// default build with two hosts, held against the model, the figures printed.
fn tso_figures(
    qp: &str,
    mut run: rocenic_sim::wqe::dp::Run,
    k: usize,
    header: &[u8],
    av: Option<rocenic_model::wqe::AddressVector>,
) {
    use rocenic_model::wqe::{DataSegment, Flags, Opcode, Payload, Tso, WorkRequest};
    use rocenic_sim::wqe::scenario::{encoded, post, DATA, MRS};
    run.engine.tso = tso_of::<WqeEngine>().expect("CAPS");
    assert!(run.engine.tso.is_some(), "the default build has TSO");
    let (lkey, ..) = MRS[0];
    for i in 0..8u32 {
        let sges = [DataSegment {
            addr: DATA + u64::from(i) * 64,
            length: 16 * 1024,
            lkey,
        }];
        let wr = WorkRequest {
            opcode: Opcode::Tso,
            flags: Flags::SIGNALED,
            index: i,
            imm: 0,
            wr_id: u64::from(i),
            av,
            raddr: None,
            tso: Some(Tso { mss: 1448, header }),
            payload: Payload::Gather(&sges),
        };
        let out = encoded(&wr);
        post(&mut run, k, &out);
    }
    let want = run.model();
    assert_eq!(want.frames.len(), 8 * 12, "{qp}: twelve segments a send");
    for (what, dma) in [
        ("ideal host", DmaConfig::ideal(8, 4)),
        (
            "host 100 cycles late",
            DmaConfig {
                latency: 100..=100,
                ..DmaConfig::ideal(8, 4)
            },
        ),
    ] {
        let load = Load {
            dma,
            out_ready: 1.0,
            axil_delay: 0.0,
        };
        let out = run_on::<WqeEngine>(&Setup::from(&run), &load, 1, 3_000_000, None)
            .unwrap_or_else(|e| panic!("{qp}, {what}: {e}"));
        assert_eq!(out.frames, want.frames, "{qp}, {what}: frames");
        let mut cq = vec![0u8; want.cq.len()];
        out.memory.read(run.cq.0, &mut cq).unwrap();
        assert_eq!(cq, want.cq, "{qp}, {what}: completion ring");
        let bytes: usize = out.frames.iter().map(Vec::len).sum();
        eprintln!(
            "tso_throughput, {qp}, {what}: {} frames, {bytes} wire bytes in {} cycles: {:.2} bytes per cycle ({} beats)",
            out.frames.len(),
            out.cycles,
            bytes as f64 / out.cycles as f64,
            out.beats
        );
    }
}
