//! `rocenic sim`: the main job's default run and its outputs (frames each way as the scenario
//! implies them, every completion a success, every message landing with the bytes sent, the raw
//! QP's TSO stream segment by segment, the RoCEv2 frames of the pcap through `rocenic icrc` and
//! `rocenic golden check-pcap`), the documented example, the seed, an error path that completes
//! and flushes, and every class of new scenario error.

use crate::common::{fails_with, rocenic, stderr, stdout};
use rocenic_model::tso::verify_segment;
use rocenic_model::wire::{LinkType, PcapReader, PcapWriter, RoceFrame};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rocenic-{}-sim-{name}", std::process::id()))
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/sim.toml")
}

fn sim(scenario: Option<&Path>, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["sim", "--out", out.to_str().unwrap()];
    if let Some(s) = scenario {
        args.extend(["--scenario", s.to_str().unwrap()]);
    }
    // The model unless a test names the engine (a build with `rtl` defaults to the cores,
    // whose runs sim_rtl.rs compares with these).
    if !extra.contains(&"--engine") {
        args.extend(["--engine", "model"]);
    }
    args.extend(extra);
    rocenic(&args, "")
}

/// Every frame of a pcap, checked as `rocenic send`'s are (frame n stamped n microseconds, at
/// least 60 bytes, a RoCEv2 frame with a valid ICRC, or a raw QP's TCP segment whose lengths
/// and checksums `tso::verify_segment` finds good), with the NIC it left (by source MAC) and
/// whether it is RoCEv2.
fn frames(pcap: &Path) -> Vec<(usize, Vec<u8>, bool)> {
    let bytes = std::fs::read(pcap).unwrap();
    let reader = PcapReader::new(&bytes).unwrap();
    assert_eq!(reader.link_type(), 1, "Ethernet");
    let mut out = Vec::new();
    for (n, r) in reader.records().enumerate() {
        let r = r.unwrap();
        let ts = (n / 1_000_000, n % 1_000_000);
        assert_eq!(
            (r.ts_sec as usize, r.ts_frac as usize),
            ts,
            "frame {n}'s time"
        );
        assert!(r.data.len() >= 60);
        let roce = match RoceFrame::parse(r.data) {
            Ok(f) => {
                assert!(f.is_valid(), "frame {n}: bad ICRC");
                true
            }
            Err(e) => {
                let s = verify_segment(LinkType::Ethernet, r.data)
                    .unwrap_or_else(|why| panic!("frame {n}: neither RoCEv2 ({e}) nor TCP: {why}"));
                assert!(!s.payload.is_empty(), "frame {n}");
                false
            }
        };
        let side = match r.data[11] {
            0x0a => 0,
            0x0b => 1,
            other => panic!("frame {n}: source MAC ending {other:#x}"),
        };
        out.push((side, r.data.to_vec(), roce));
    }
    out
}

/// The completion CSV as rows of named fields.
fn rows(csv: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header.join(","),
        "nic,cq,index,wr_id,qpn,status,opcode,byte_len,wqe_index,imm,src_qp,hash,flags,crc32"
    );
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{l}");
            header
                .iter()
                .zip(cells)
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// The frames the default scenario implies, each way: (requests, bytes each, bytes per packet:
/// the path MTU, or the MSS for TSO), from docs/examples/sim.toml.
const A_TO_B: [(u64, u64, u64); 16] = [
    (120, 3000, 1024), // 0x11 SEND
    (60, 500, 1024),   // 0x11 SEND with immediate
    (20, 8192, 1024),  // 0x11 RDMA WRITE
    (20, 2048, 1024),  // 0x11 RDMA WRITE with immediate
    (40, 12000, 4096), // 0x12 SEND
    (100, 64, 4096),   // 0x12 inline SEND with immediate
    (150, 1000, 1024), // 0x14 UD over IPv4
    (150, 700, 1024),  // 0x14 UD over IPv6
    (150, 1000, 1024), // 0x15
    (150, 700, 1024),  // 0x15
    (150, 1000, 1024), // 0x19
    (150, 700, 1024),  // 0x19
    (150, 1000, 1024), // 0x26
    (150, 700, 1024),  // 0x26
    (12, 64000, 1460), // 0x18 TSO
    (4, 64000, 1440),  // 0x1a raw TSO
];
const B_TO_A: [(u64, u64, u64); 8] = [
    (100, 2000, 1024), // 0x21 SEND
    (25, 4096, 1024),  // 0x21 RDMA WRITE with immediate
    (50, 4096, 4096),  // 0x22 SEND
    (20, 10000, 4096), // 0x22 SEND
    (10, 20000, 4096), // 0x22 RDMA WRITE
    (300, 512, 1024),  // 0x23 UD
    (100, 800, 1024),  // 0x24 UD
    (100, 900, 1024),  // 0x24 UD
];

fn implied(list: &[(u64, u64, u64)]) -> (u64, u64) {
    let frames = list
        .iter()
        .map(|&(n, len, unit)| n * len.div_ceil(unit))
        .sum();
    (frames, list.iter().map(|&(n, _, _)| n).sum())
}

#[test]
fn the_default_run() {
    let out = temp("default");
    let o = sim(None, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (pcap, csv) = (out.join("run.pcap"), out.join("completions.csv"));
    // Frames each way, as the scenario implies them.
    let wire = frames(&pcap);
    let (ab, ab_requests) = implied(&A_TO_B);
    let (ba, ba_requests) = implied(&B_TO_A);
    let each = |s| wire.iter().filter(|(side, _, _)| *side == s).count() as u64;
    assert_eq!((each(0), each(1)), (ab, ba));
    let summary = stdout(&o);
    assert!(
        summary.contains(&format!("  frames {:>31}{:>12}\n", ab, ba)),
        "{summary}"
    );
    assert!(summary.contains("cycles: n/a (model)\n"), "{summary}");
    assert!(summary.contains("discards") && summary.contains("  none\n"));
    // Every completion a success: one per request on each side, and the receives.
    let rows = rows(&csv);
    assert!(rows.iter().all(|r| r["status"] == "success"));
    let sends = |nic: &str| {
        rows.iter()
            .filter(|r| r["nic"] == nic && r["cq"] == "send")
            .count() as u64
    };
    assert_eq!((sends("a"), sends("b")), (ab_requests, ba_requests));
    // Every SEND lands with its bytes: the (receiver, length, CRC) of each SEND equals that of
    // a receive, one for one (a UD receive counts the GRH area in its length).
    let mut sent: Vec<(String, u64, String)> = rows
        .iter()
        .filter(|r| r["cq"] == "send" && r["opcode"].starts_with("send"))
        .map(|r| {
            let to = if r["nic"] == "a" { "b" } else { "a" };
            (to.to_string(), num(&r["byte_len"]), r["crc32"].clone())
        })
        .collect();
    let mut landed: Vec<(String, u64, String)> = rows
        .iter()
        .filter(|r| r["opcode"] == "recv" && r["qpn"] != "0x31" && r["qpn"] != "0x2a")
        .map(|r| {
            let grh = if r["flags"].contains("grh") { 40 } else { 0 };
            (
                r["nic"].clone(),
                num(&r["byte_len"]) - grh,
                r["crc32"].clone(),
            )
        })
        .collect();
    assert!(sent.iter().all(|(_, _, crc)| !crc.is_empty()));
    sent.sort();
    landed.sort();
    assert_eq!(sent.len(), 2190);
    assert_eq!(sent, landed);
    // Every RDMA WRITE with immediate completes a receive WQE with its length.
    let imm = |nic: &str, op: &str| {
        let mut v: Vec<u64> = rows
            .iter()
            .filter(|r| r["nic"] == nic && r["opcode"] == op)
            .map(|r| num(&r["byte_len"]))
            .collect();
        v.sort();
        v
    };
    assert_eq!(imm("a", "rdma_write_imm"), imm("b", "recv_rdma_with_imm"));
    assert_eq!(imm("b", "rdma_write_imm"), imm("a", "recv_rdma_with_imm"));
    assert_eq!(imm("a", "rdma_write_imm").len(), 20);
    // The TSO segments: each lands whole (GRH area, the 44-byte template, its piece), all on
    // work queue 8, and the pieces add up to the payloads sent.
    let tso: Vec<&HashMap<String, String>> = rows.iter().filter(|r| r["qpn"] == "0x31").collect();
    assert_eq!(tso.len(), 12 * 44);
    assert!(tso.iter().all(|r| r["cq"] == "wq8" && r["hash"].is_empty()));
    let pieces: u64 = tso.iter().map(|r| num(&r["byte_len"]) - 40 - 44).sum();
    assert_eq!(pieces, 12 * 64000);
    // The raw QP's TSO stream: 4 × 45 TCP segments over Ethernet and IPv6 on the wire, in
    // order, the sequence numbers running on from send to send (the templates continue the
    // stream), each landed whole on b's raw work queue 9 with good checksums, unhashed.
    let raw: Vec<&Vec<u8>> = wire.iter().filter(|w| !w.2).map(|w| &w.1).collect();
    assert_eq!(raw.len(), 4 * 45);
    let mut seq = 0x1000_0000u32;
    for (i, f) in raw.iter().enumerate() {
        let s = verify_segment(LinkType::Ethernet, f).unwrap();
        assert_eq!((s.seq, s.ipv4_ident), (seq, None), "raw segment {i}");
        let last = i % 45 == 44;
        assert_eq!(s.payload.len(), if last { 640 } else { 1440 });
        assert_eq!(
            s.flags & 0x09 != 0,
            last,
            "raw segment {i}: PSH and FIN on the last"
        );
        seq = seq.wrapping_add(s.payload.len() as u32);
    }
    let landed: Vec<&HashMap<String, String>> =
        rows.iter().filter(|r| r["qpn"] == "0x2a").collect();
    assert_eq!(landed.len(), 4 * 45);
    assert!(landed
        .iter()
        .all(|r| r["cq"] == "wq9" && r["flags"] == "csum_ok" && r["hash"].is_empty()));
    let bytes: u64 = landed.iter().map(|r| num(&r["byte_len"])).sum();
    assert_eq!(bytes, raw.iter().map(|f| f.len() as u64).sum::<u64>());
    assert_eq!(bytes, 4 * (44 * 1514 + 714));
    assert!(summary.contains("  b wq9  raw    qp 0x2a              180      269320"));
    // The RSS QP's flows spread over its four queues, each completion with its hash.
    let rss: Vec<&HashMap<String, String>> = rows.iter().filter(|r| r["qpn"] == "0x30").collect();
    assert_eq!(rss.len(), 8 * 150);
    for wq in ["wq4", "wq5", "wq6", "wq7"] {
        assert!(rss.iter().any(|r| r["cq"] == wq), "{wq}");
    }
    assert!(rss
        .iter()
        .all(|r| r["flags"].contains("hashed") && !r["hash"].is_empty()));
    // The RoCEv2 frames pass the ICRC check (which refuses any other frame) and the entropy
    // check of every flow (which skips the others).
    let roce = out.join("roce.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&roce).unwrap(), LinkType::Ethernet).unwrap();
    for (n, (_, f, _)) in wire.iter().filter(|w| w.2).enumerate() {
        w.write_record(((n / 1_000_000) as u32, (n % 1_000_000) as u32), f)
            .unwrap();
    }
    w.finish().unwrap();
    let o = rocenic(&["icrc", pcap.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(2), "the raw frames are not RoCEv2");
    let o = rocenic(&["icrc", roce.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let map = out.join("qp-map.csv");
    let args = ["golden", "check-pcap", pcap.to_str().unwrap()];
    let o = rocenic(&args, "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = rocenic(
        &[&args[..], &["--qp-map", map.to_str().unwrap()]].concat(),
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let flows = stdout(&o);
    assert_eq!(flows.lines().count(), 1 + 16);
    assert!(
        flows.lines().skip(1).all(|l| l.ends_with(",match")),
        "{flows}"
    );
    let _ = std::fs::remove_dir_all(out);
}

/// The documented example is the built-in scenario; another seed paces the wire and the host
/// differently, and changes only the order in which the host reads the queues' completions.
#[test]
fn the_example_and_the_seed() {
    let read = |dir: &Path| {
        let pcap = std::fs::read(dir.join("run.pcap")).unwrap();
        let csv = std::fs::read_to_string(dir.join("completions.csv")).unwrap();
        (pcap, csv)
    };
    let (one, two, three) = (temp("seed1"), temp("example"), temp("seed2"));
    assert!(sim(None, &one, &[]).status.success());
    let o = sim(Some(&example()), &two, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sim(None, &three, &["--seed", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(", seed 2\n"));
    let (a, b, c) = (read(&one), read(&two), read(&three));
    assert_eq!(a, b, "the example and the built-in scenario");
    assert_eq!(a.0, c.0, "the wire does not depend on the seed");
    assert_ne!(a.1, c.1, "the host reads in another order");
    let sorted = |csv: &str| {
        let mut l: Vec<&str> = csv.lines().collect();
        l.sort();
        l.join("\n")
    };
    assert_eq!(sorted(&a.1), sorted(&c.1));
    for d in [one, two, three] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A small scenario the error cases below edit: an RC pair (a's 0x11, b's 0x21 with its own
/// queue 0) and a's UD QP sending to b's RSS QP 0x30 over queues 1 and 2.
const BASE: &str = r#"[nic.a]
mac = "02:00:00:00:00:0a"
ip = ["10.0.0.1", "fd00::a"]

[[nic.a.memory]]
addr = 0x10000
size = 0x10000
fill = "counter"

[[nic.a.mr]]
lkey = 0x100
pd = 1
addr = 0x10000
length = 0x10000

[[nic.a.qp]]
qpn = 0x11
type = "rc"
pd = 1
dest_qpn = 0x21
av = { ip = "10.0.0.2", mac = "02:00:00:00:00:0b" }

[[nic.a.qp]]
qpn = 0x12
type = "ud"
pd = 1
qkey = 7

[[nic.a.wr]]
qpn = 0x11
id = 1
opcode = "send"
sge = [{ addr = 0x10000, length = 3000, lkey = 0x100 }]
repeat = 2

[[nic.a.wr]]
qpn = 0x12
id = 10
opcode = "send"
sge = [{ addr = 0x10000, length = 500, lkey = 0x100 }]
av = { ip = "fd00::b", mac = "02:00:00:00:00:0b", qpn = 0x30 }
repeat = 3

[nic.b]
mac = "02:00:00:00:00:0b"
ip = ["10.0.0.2", "fd00::b"]

[[nic.b.memory]]
addr = 0x10000
size = 0x10000

[[nic.b.mr]]
lkey = 0x200
pd = 1
addr = 0x10000
length = 0x10000
access = ["local_write"]

[[nic.b.qp]]
qpn = 0x21
type = "rc"
pd = 1
dest_qpn = 0x11
av = { ip = "10.0.0.1", mac = "02:00:00:00:00:0a" }
rq = 0

[[nic.b.qp]]
qpn = 0x30
type = "ud"
pd = 1
qkey = 7
rss = true

[[nic.b.wq]]
wq = 0
pd = 1
buffers = 4
size = 4096
addr = 0x10000
lkey = 0x200

[[nic.b.wq]]
wq = 1
pd = 1
buffers = 4
size = 1024
addr = 0x14000
lkey = 0x200

[[nic.b.wq]]
wq = 2
pd = 1
buffers = 4
size = 1024
addr = 0x15000
lkey = 0x200

[[nic.b.rss]]
table = [1, 2]

[[nic.b.rule]]
qpn = 0x30
rss = 0
"#;

/// The base runs clean; with b's receive buffers of 1 KiB, a 3000-byte RC message overflows its
/// WQE at the second packet: `loc_len_err`, the QP and its queue to ERR, every later frame for
/// the QP discarded (`qp_state`), and the three WQEs still posted flushed.
#[test]
fn a_short_buffer_completes_with_an_error_and_flushes() {
    let dir = temp("short");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out");
    let base = dir.join("base.toml");
    std::fs::write(&base, BASE).unwrap();
    let o = sim(Some(&base), &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains(&format!("  frames {:>31}{:>12}\n", 9, 0)), "{s}");
    assert!(
        s.contains(&format!("  receive success {:>22}{:>12}\n", 0, 5)),
        "{s}"
    );
    let short = dir.join("short.toml");
    std::fs::write(&short, BASE.replacen("size = 4096", "size = 1024", 1)).unwrap();
    let o = sim(Some(&short), &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for line in [
        format!("  receive success {:>22}{:>12}\n", 0, 3),
        format!("  receive loc_len_err {:>18}{:>12}\n", 0, 1),
        format!("  receive wr_flush_err {:>17}{:>12}\n", 0, 3),
        format!("  qp_state {:>29}{:>12}\n", 0, 4),
    ] {
        assert!(s.contains(&line), "`{line}` in {s}");
    }
    let rows = rows(&out.join("completions.csv"));
    let wq0: Vec<&str> = rows
        .iter()
        .filter(|r| r["nic"] == "b" && r["cq"] == "wq0")
        .map(|r| r["status"].as_str())
        .collect();
    assert_eq!(
        wq0,
        [
            "loc_len_err",
            "wr_flush_err",
            "wr_flush_err",
            "wr_flush_err"
        ]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn scenario_errors_name_the_file_the_line_the_table_and_the_key() {
    // (text replaced in BASE, its replacement or "" to append, what the message says)
    let rss_qp = "rss = true\n";
    let cases: &[(&str, &str, &str)] = &[
        (
            "wq = 1\npd = 1",
            "wq = 64\npd = 1",
            "[[nic.b.wq]] #2: key \"wq\": 64 is out of range (0..=63",
        ),
        (
            "wq = 2\npd = 1",
            "wq = 1\npd = 1",
            "[[nic.b.wq]] #3: key \"wq\": 1 is also [[nic.b.wq]] #2's",
        ),
        (
            "buffers = 4\nsize = 4096",
            "buffers = 0\nsize = 4096",
            "[[nic.b.wq]] #1: key \"buffers\": 0 is out of range",
        ),
        (
            "size = 4096",
            "size = 0",
            "[[nic.b.wq]] #1: key \"size\": 0",
        ),
        (
            "wq = 2\npd = 1\n",
            "wq = 2\npd = 1\nbufers = 1\n",
            ":90: [[nic.b.wq]] #3: unknown key \"bufers\"",
        ),
        (
            "rq = 0\n",
            "rq = 9\n",
            "[[nic.b.qp]] #1: key \"rq\": no [[nic.b.wq]] has wq 9",
        ),
        (
            "rq = 0\n",
            "rq = 0\nsrq = 1\n",
            "[[nic.b.qp]] #1: keys \"rq\" and \"srq\" both given",
        ),
        (
            "rq = 0\n",
            "rss = true\n",
            "[[nic.b.qp]] #1: key \"rss\": only a UD QP spreads over RSS queues",
        ),
        (
            rss_qp,
            "rss = true\n\n[[nic.b.qp]]\nqpn = 0x22\ntype = \"ud\"\npd = 1\nrq = 0\n",
            "[[nic.b.qp]] #3: key \"rq\": wq 0 is the own receive queue of [[nic.b.qp]] #1",
        ),
        (
            rss_qp,
            "rss = true\n\n[[nic.b.qp]]\nqpn = 0x70\ntype = \"ud\"\npd = 1\nrss = true\n",
            "[[nic.b.qp]] #3: key \"qpn\": 0x70 and 0x30 share QP slot 48",
        ),
        (
            rss_qp,
            "rss = true\n\n[[nic.b.qp]]\nqpn = 0x31\ntype = \"ud\"\npd = 1\nrss = true\n",
            "[[nic.b.wq]] #2: missing key \"qpn\": wq 1 is an RSS queue and [nic.b] has 2 RSS QPs",
        ),
        (
            "",
            "\n[[nic.b.wq]]\nwq = 3\npd = 1\nbuffers = 1\nsize = 64\naddr = 0x16000\nlkey = 0x200\n",
            "[[nic.b.wq]] #4: missing key \"qpn\": no QP, indirection table or rule names wq 3",
        ),
        (
            "table = [1, 2]",
            "table = [0, 1]",
            "[[nic.b.rss]] #1: key \"table\": wq 0 is the receive queue of [[nic.b.qp]] #1",
        ),
        (
            "table = [1, 2]",
            "table = [1, 2, 1]",
            "[[nic.b.rss]] #1: key \"table\": 3 entries",
        ),
        (
            "table = [1, 2]",
            "table = [1, 5]",
            "[[nic.b.rss]] #1: key \"table\": no [[nic.b.wq]] has wq 5",
        ),
        (
            "table = [1, 2]",
            "fields = [\"src-ip\"]\ntable = [1, 2]",
            "[[nic.b.rss]] #1: key \"fields\": unknown field \"src-ip\" (known: src-ipv4,",
        ),
        (
            "table = [1, 2]",
            "key = \"00112233\"\nsymmetric_key = true\ntable = [1, 2]",
            "[[nic.b.rss]] #1: keys \"key\" and \"symmetric_key\" both given",
        ),
        (
            "table = [1, 2]",
            "function = \"xor\"\nsymmetric_key = true\ntable = [1, 2]",
            "[[nic.b.rss]] #1: key \"symmetric_key\": the xor function takes no key",
        ),
        (
            "table = [1, 2]",
            "key = \"0011223344\"\ntable = [1, 2]",
            "[[nic.b.rss]] #1: key \"key\": the selected fields take up to 36 bytes",
        ),
        (
            "table = [1, 2]",
            "function = \"md5\"\ntable = [1, 2]",
            "[[nic.b.rss]] #1: key \"function\": unknown variant",
        ),
        (
            "qpn = 0x30\nrss = 0\n",
            "qpn = 0x30\nrss = 0\nwq = 1\n",
            "[[nic.b.rule]] #1: keys \"wq\" and \"rss\" both given",
        ),
        (
            "qpn = 0x30\nrss = 0\n",
            "qpn = 0x30\n",
            "[[nic.b.rule]] #1: missing key \"wq\" or \"rss\"",
        ),
        (
            "qpn = 0x30\nrss = 0\n",
            "qpn = 0x30\nrss = 1\n",
            "[[nic.b.rule]] #1: key \"rss\": context 1, and [nic.b] has 1",
        ),
        (
            "qpn = 0x30\nrss = 0\n",
            "qpn = 0x30\nwq = 0\n",
            "[[nic.b.rule]] #1: key \"wq\": wq 0 is the receive queue of [[nic.b.qp]] #1",
        ),
        (
            "qpn = 0x30\nrss = 0\n",
            "qpn = 0x1000000\nrss = 0\n",
            "[[nic.b.rule]] #1: key \"qpn\": 0x1000000 is out of range",
        ),
        (
            "dest_qpn = 0x21\n",
            "dest_qpn = 0x22\n",
            "[[nic.a.qp]] #1: key \"dest_qpn\": [nic.b] has no RC QP 0x22",
        ),
        (
            "dest_qpn = 0x11\n",
            "dest_qpn = 0x13\n",
            "[[nic.a.qp]] #1: key \"dest_qpn\": its peer [[nic.b.qp]] #1 (0x21) names 0x13",
        ),
        (
            "qpn = 0x21\ntype = \"rc\"\npd = 1\n",
            "qpn = 0x21\ntype = \"rc\"\npd = 1\nmtu = 2048\n",
            "[[nic.a.qp]] #1: key \"mtu\": 1024, and its peer [[nic.b.qp]] #1 has 2048",
        ),
        (
            "mac = \"02:00:00:00:00:0b\" }",
            "mac = \"02:00:00:00:00:0c\" }",
            "[[nic.a.qp]] #1: key \"av.mac\": 02:00:00:00:00:0c is not the MAC of [nic.b]",
        ),
        (
            "ip = \"fd00::b\"",
            "ip = \"fd00::c\"",
            "[[nic.a.wr]] #2: key \"av.ip\": fd00::c is not an address of [nic.b]",
        ),
        (
            "repeat = 2\n",
            "repeat = 0\n",
            "[[nic.a.wr]] #1: key \"repeat\": 0",
        ),
        (
            "id = 10\nopcode = \"send\"\n",
            "id = 10\nopcode = \"tso\"\nheader = \"00\"\n",
            "[[nic.a.wr]] #2: missing key \"mss\"",
        ),
        (
            "id = 10\nopcode = \"send\"\n",
            "id = 10\nopcode = \"tso\"\nmss = 100\n",
            "[[nic.a.wr]] #2: missing key \"header\"",
        ),
        (
            "id = 10\nopcode = \"send\"\n",
            "id = 10\nopcode = \"send\"\nmss = 100\n",
            "[[nic.a.wr]] #2: key \"mss\": only a tso request has one, not send",
        ),
        (
            "[nic.b]\n",
            "[nic.c]\n",
            "unknown table or key \"c\" (expected [nic.a] or [nic.b])",
        ),
        (
            "[nic.b]\nmac = \"02:00:00:00:00:0b\"\n",
            "[nic.b]\nmac = \"02:00:00:00:00:0b\"\nmtu = 1\n",
            ":46: unknown table or key \"mtu\"",
        ),
    ];
    let dir = temp("errors");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out");
    for (i, &(old, new, needle)) in cases.iter().enumerate() {
        let text = if old.is_empty() {
            format!("{BASE}{new}")
        } else {
            assert!(BASE.contains(old), "case {i}: `{old}` is not in the base");
            BASE.replacen(old, new, 1)
        };
        let path = dir.join(format!("case{i}.toml"));
        std::fs::write(&path, &text).unwrap();
        let o = sim(Some(&path), &out, &[]);
        fails_with(&o, needle);
        assert!(
            stderr(&o).contains(&format!("{}:", path.display())),
            "case {i}: the file is named: {}",
            stderr(&o)
        );
        assert!(!out.exists(), "case {i}: output left behind");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn engines_and_options() {
    let out = temp("options");
    // The cores' runs are sim_rtl.rs's; a build without them says so before any output.
    if !cfg!(feature = "rtl") {
        let o = sim(None, &out, &["--engine", "rtl"]);
        fails_with(&o, "built without the `rtl` feature");
    }
    assert!(!out.exists());
    let o = sim(None, &out, &["--vcd", "x.vcd"]);
    fails_with(&o, "--vcd traces the RTL's signals; it needs --engine rtl");
    let o = sim(None, &out, &["--engine", "serial:/dev/null"]);
    fails_with(
        &o,
        "`rocenic sim` runs on --engine model or rtl, not on serial:/dev/null",
    );
    let o = sim(Some(&temp("missing.toml")), &out, &[]);
    fails_with(&o, "cannot read");
    assert!(!out.exists());
    // An output directory that cannot be made is refused before anything runs.
    let file = temp("a-file");
    std::fs::write(&file, "").unwrap();
    let o = sim(None, &file.join("out"), &[]);
    fails_with(&o, "cannot create");
    let _ = std::fs::remove_file(file);
}

/// A raw QP on a: a SEND of a frame and a TSO request, landed whole in b's raw work queue.
#[test]
fn a_raw_qp_lands_on_a_raw_work_queue() {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/sim_raw.toml");
    let out = temp("raw");
    let o = sim(Some(&scenario), &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("b wq0  raw    qp 0x29               15       20816"));
    let csv = std::fs::read_to_string(out.join("completions.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows.contains(&"a,send,0,1,0x19,success,send,19,0,,,,,0x60cf154a"));
    assert!(rows.contains(&"a,send,1,2,0x19,success,tso,20000,1,,,,,0xefddd36d"));
    // The 19-byte frame padded to 60, then 14 segments of at most 54 + 1448 bytes, all good.
    let recv: Vec<&&str> = rows.iter().filter(|r| r.starts_with("b,wq0,")).collect();
    assert_eq!(recv.len(), 15);
    assert!(recv[0].contains(",success,recv,60,"));
    assert!(
        recv[1..].iter().all(|r| r.contains(",csum_ok,")),
        "{recv:?}"
    );
    std::fs::remove_dir_all(out).unwrap();
}
