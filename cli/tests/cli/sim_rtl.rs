//! `rocenic sim --engine rtl`: two co-simulated full cores run docs/examples/sim-core.toml and
//! write what the model writes (the summary but its cycles, every completion, every frame each
//! way); the comparison catches a deliberate difference; the model serves send queues in slot
//! order, as the core does, whatever order the QPs are listed in; `--vcd` writes a VCD of core
//! a; a raw QP's SENDs and TSO requests and a UD QP's TSO requests run on both engines alike;
//! the built-in mix, `make run`'s, runs on the cores by default (a build with the `rtl`
//! feature) and writes what the model writes.

use crate::common::{rocenic, stderr, stdout};
use rocenic_model::wire::PcapReader;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rocenic-{}-simrtl-{name}", std::process::id()))
}

fn here(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(file)
}

/// Runs `rocenic sim` on `scenario` into `out`; its standard output.
fn run(scenario: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "sim",
        "--scenario",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = rocenic(&args, "");
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// What must not depend on the engine: the summary but its header, cycles and file lines;
/// each completion ring's rows in ring order (the order the host read different rings in
/// depends on the pace); each direction's frames in order (how the two directions interleave
/// on the wire depends on it too).
#[derive(Debug, PartialEq, Eq)]
struct Outputs {
    summary: Vec<String>,
    rings: BTreeMap<String, Vec<String>>,
    frames: [Vec<Vec<u8>>; 2],
}

fn outputs(summary: &str, out: &Path) -> Outputs {
    let summary = summary
        .lines()
        .filter(|l| !l.starts_with("rocenic sim:") && !l.starts_with("cycles:"))
        .filter(|l| !l.starts_with("wrote "))
        .map(String::from)
        .collect();
    let csv = std::fs::read_to_string(out.join("completions.csv")).unwrap();
    let mut rings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in csv.lines().skip(1) {
        let ring: Vec<&str> = row.splitn(3, ',').take(2).collect();
        rings
            .entry(ring.join(","))
            .or_default()
            .push(row.to_string());
    }
    let pcap = std::fs::read(out.join("run.pcap")).unwrap();
    let mut frames: [Vec<Vec<u8>>; 2] = Default::default();
    for r in PcapReader::new(&pcap).unwrap().records() {
        let r = r.unwrap();
        // The source MAC: 02:00:00:00:00:0a is a, 0b is b.
        frames[usize::from(r.data[11] == 0x0b)].push(r.data.to_vec());
    }
    Outputs {
        summary,
        rings,
        frames,
    }
}

#[test]
fn the_cores_write_what_the_model_writes() {
    let scenario = here("../docs/examples/sim-core.toml");
    let (m, r) = (temp("model"), temp("rtl"));
    let model = run(&scenario, &m, &["--engine", "model"]);
    let rtl = run(&scenario, &r, &["--engine", "rtl"]);
    assert!(
        rtl.contains("engine rtl") && rtl.contains("cycles: "),
        "{rtl}"
    );
    assert!(!rtl.contains("cycles: n/a"), "{rtl}");
    let (model, mut rtl) = (outputs(&model, &m), outputs(&rtl, &r));
    assert!(
        model.frames.iter().all(|f| !f.is_empty()),
        "traffic both ways"
    );
    assert_eq!(model.rings.len(), 13, "{:?}", model.rings.keys());
    assert_eq!(model, rtl);
    // The comparison sees a difference in each part: a completion, a frame's order, a line.
    let ring = rtl.rings.keys().next().unwrap().clone();
    rtl.rings.get_mut(&ring).unwrap().swap(0, 1);
    assert_ne!(model, rtl);
    rtl.rings.get_mut(&ring).unwrap().swap(0, 1);
    rtl.frames[1].swap(0, 1);
    assert_ne!(model, rtl);
    rtl.frames[1].swap(0, 1);
    rtl.summary[2].push(' ');
    assert_ne!(model, rtl);
    std::fs::remove_dir_all(m).unwrap();
    std::fs::remove_dir_all(r).unwrap();
}

/// `text` with its first `[[nic.a.qp]]` table moved after the last (a table runs to the
/// next line that opens one).
fn first_qp_last(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let opens = |l: &&str| l.starts_with('[');
    let qps: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("[[nic.a.qp]]"))
        .collect();
    let end = |i: usize| (i + 1..lines.len()).find(|&j| opens(&lines[j])).unwrap();
    let (first, last) = (qps[0], *qps.last().unwrap());
    let moved = &lines[first..end(first)];
    let mut out: Vec<&str> = lines[..first].to_vec();
    out.extend(&lines[end(first)..end(last)]);
    out.extend(moved);
    out.extend(&lines[end(last)..]);
    out.join("\n") + "\n"
}

/// The order of service is the QP slots', whatever order the tables list the QPs in: the
/// model writes the same files with a's first QP listed last (the core, whose firmware writes
/// each QP into its QPN's slot, cannot see the listing order in its service at all).
#[test]
fn the_model_serves_in_slot_order() {
    let scenario = here("../docs/examples/sim-core.toml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    let moved = first_qp_last(&text);
    assert_ne!(moved, text);
    let reordered = temp("reordered.toml");
    std::fs::write(&reordered, &moved).unwrap();
    let (m, r) = (temp("listed"), temp("moved"));
    let model = ["--engine", "model"];
    let (listed, moved) = (run(&scenario, &m, &model), run(&reordered, &r, &model));
    assert_eq!(outputs(&listed, &m), outputs(&moved, &r));
    for p in [m, r] {
        std::fs::remove_dir_all(p).unwrap();
    }
    std::fs::remove_file(reordered).unwrap();
}

#[test]
fn a_vcd_of_core_a() {
    let (out, vcd) = (temp("vcd"), temp("a.vcd"));
    let summary = run(
        &here("tests/cli/sim_one.toml"),
        &out,
        &["--engine", "rtl", "--vcd", vcd.to_str().unwrap()],
    );
    assert!(summary.contains("receive success"), "{summary}");
    let text = std::fs::read_to_string(&vcd).unwrap();
    // What GTKWave reads: a VCD header, the core's scope and its ports.
    assert!(
        text.starts_with("$version Generated by VerilatedVcd"),
        "{}",
        &text[..80]
    );
    assert!(text.contains("$enddefinitions $end"));
    assert!(text.contains("$scope module nic_core $end"));
    for signal in ["m_tx_tvalid", "s_rx_tvalid", "rx_frame_done"] {
        assert!(text.contains(&format!(" {signal} $end")), "{signal}");
    }
    std::fs::remove_file(vcd).unwrap();
    std::fs::remove_dir_all(out).unwrap();
}

/// A raw QP's SEND and TSO request (Ethernet, IPv6) landed whole in b's raw work queue: the
/// cores write what the model writes, segment by segment.
#[test]
fn raw_tso_on_the_cores() {
    let scenario = here("tests/cli/sim_raw.toml");
    let (m, r) = (temp("rawtso-model"), temp("rawtso-rtl"));
    let model = run(&scenario, &m, &["--engine", "model"]);
    let rtl = run(&scenario, &r, &["--engine", "rtl"]);
    let (model, rtl) = (outputs(&model, &m), outputs(&rtl, &r));
    assert!(model.frames[0].len() > 2, "a's frame and segments");
    assert_eq!(model, rtl);
    std::fs::remove_dir_all(m).unwrap();
    std::fs::remove_dir_all(r).unwrap();
}

/// A `[link]` needs the reliable transport, which the cores do not have yet: refused before
/// any output, naming the table.
#[test]
fn a_lossy_link_needs_the_model() {
    let text = std::fs::read_to_string(here("tests/cli/sim_lossy.toml")).unwrap()
        + "\n[link]\nloss = 0.01\n";
    let (file, out) = (temp("lossy.toml"), temp("lossy"));
    std::fs::write(&file, &text).unwrap();
    let line = text.lines().position(|l| l == "[link]").unwrap() + 1;
    let o = rocenic(
        &[
            "sim",
            "--engine",
            "rtl",
            "--scenario",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "lossy.toml:{line}: [link]: --engine rtl runs the co-simulated cores without the \
             reliable transport"
        )),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    std::fs::remove_file(file).unwrap();
}

/// The main job (`make run`): the built-in mix with no options runs on the co-simulated cores
/// and writes what the model writes.
#[test]
fn the_default_mix_on_the_cores() {
    let (m, r) = (temp("mix-model"), temp("mix-rtl"));
    let sim = |out: &Path, extra: &[&str]| {
        let mut args = vec!["sim", "--out", out.to_str().unwrap()];
        args.extend(extra);
        let o = rocenic(&args, "");
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let model = sim(&m, &["--engine", "model"]);
    let rtl = sim(&r, &[]);
    assert!(rtl.contains("engine rtl"), "the default engine: {rtl}");
    let (model, rtl) = (outputs(&model, &m), outputs(&rtl, &r));
    assert!(
        model.frames.iter().all(|f| f.len() > 100),
        "traffic both ways"
    );
    assert_eq!(model, rtl);
    std::fs::remove_dir_all(m).unwrap();
    std::fs::remove_dir_all(r).unwrap();
}

/// A raw-packet QP's SENDs (inline and padded, gathered, the port's largest frame) to a raw
/// work queue behind a rule: the cores write what the model writes.
#[test]
fn raw_sends_on_the_cores() {
    let scenario = here("tests/cli/sim_raw_send.toml");
    let (m, r) = (temp("raw-model"), temp("raw-rtl"));
    let model = run(&scenario, &m, &["--engine", "model"]);
    let rtl = run(&scenario, &r, &["--engine", "rtl"]);
    let (model, rtl) = (outputs(&model, &m), outputs(&rtl, &r));
    let lens: Vec<usize> = model.frames[0].iter().map(Vec::len).collect();
    assert_eq!(lens, [60, 1514, 4218], "a's raw frames");
    assert!(
        model.summary.iter().any(|l| l.contains("raw")),
        "{:?}",
        model.summary
    );
    assert_eq!(model, rtl);
    std::fs::remove_dir_all(m).unwrap();
    std::fs::remove_dir_all(r).unwrap();
}

/// A UD QP's TSO requests (IPv4 and IPv6 templates, 44 segments, exactly two MSS, one under
/// the MSS) into the peer's UD QP: the cores write what the model writes, segment by segment.
#[test]
fn ud_tso_on_the_cores() {
    let scenario = here("tests/cli/sim_tso.toml");
    let (m, r) = (temp("tso-model"), temp("tso-rtl"));
    let model = run(&scenario, &m, &["--engine", "model"]);
    let rtl = run(&scenario, &r, &["--engine", "rtl"]);
    let (model, rtl) = (outputs(&model, &m), outputs(&rtl, &r));
    assert_eq!(model.frames[0].len(), 44 + 2 + 1, "a's segments");
    assert!(model.frames[1].is_empty(), "nothing back");
    assert_eq!(model, rtl);
    std::fs::remove_dir_all(m).unwrap();
    std::fs::remove_dir_all(r).unwrap();
}
