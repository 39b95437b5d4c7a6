//! `rocenic send`: scenarios run through the send engine; the example files, a hand-checked
//! completion CSV, and every class of scenario error (exit 2, the key named, no output left).

use crate::common::{fails_with, rocenic, stderr};
use rocenic_model::wire::ib::{opcode as op, Reth};
use rocenic_model::wire::{PcapReader, RoceFrame};
use std::path::{Path, PathBuf};
use std::process::Output;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rocenic-{}-send-{name}", std::process::id()))
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/examples")
        .join(name)
}

fn send(scenario: &Path, output: &Path, completions: Option<&Path>, extra: &[&str]) -> Output {
    let mut args = vec![
        "send",
        "--scenario",
        scenario.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ];
    if let Some(c) = completions {
        args.extend(["--completions", c.to_str().unwrap()]);
    }
    args.extend(extra);
    rocenic(&args, "")
}

/// Every frame of a pcap, checked: frame n stamped n microseconds, a RoCEv2 frame whose ICRC
/// is valid, at least 60 bytes.
fn frames(pcap: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(pcap).unwrap();
    let reader = PcapReader::new(&bytes).unwrap();
    assert_eq!(reader.link_type(), 1, "Ethernet");
    let mut out = Vec::new();
    for (n, r) in reader.records().enumerate() {
        let r = r.unwrap();
        assert_eq!(
            (r.ts_sec, r.ts_frac),
            (0, n as u32),
            "frame {n}'s timestamp"
        );
        assert!(r.data.len() >= 60);
        let f = RoceFrame::parse(r.data).unwrap_or_else(|e| panic!("frame {n}: {e}"));
        assert!(f.is_valid(), "frame {n}: bad ICRC");
        out.push(r.data.to_vec());
    }
    out
}

#[test]
fn the_examples_run_and_every_frame_checks_out() {
    // (file, frames, completion rows)
    for (name, want_frames, want_rows) in [("send.toml", 8, 4), ("send_errors.toml", 13, 16)] {
        let (pcap, csv) = (temp(&format!("{name}.pcap")), temp(&format!("{name}.csv")));
        let o = send(&example(name), &pcap, Some(&csv), &[]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(frames(&pcap).len(), want_frames, "{name}");
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(
            text.lines().next(),
            Some("wr_id,qpn,status,opcode,byte_len")
        );
        assert_eq!(text.lines().count() - 1, want_rows, "{name}");
        assert!(
            stderr(&o).contains(&format!("rocenic send: {want_frames} frame(s), ")),
            "{}",
            stderr(&o)
        );
        let _ = std::fs::remove_file(pcap);
        let _ = std::fs::remove_file(csv);
    }
}

/// Two RC QPs served round robin; region 0x100 runs past host memory.
const SMALL: &str = r#"
[nic]
mac = "02:00:00:00:00:01"
ip = ["10.0.0.1"]

[[memory]]
addr = 0x1000
size = 0x100
fill = "counter"

[[mr]]
lkey = 0x100
pd = 1
addr = 0x1000
length = 0x200

[[qp]]
qpn = 0x11
type = "rc"
pd = 1
mtu = 256
dest_qpn = 0x22
av = { ip = "10.0.0.2", mac = "02:00:00:00:00:02" }

[[qp]]
qpn = 0x12
type = "rc"
pd = 1
mtu = 256
dest_qpn = 0x23
av = { ip = "10.0.0.3", mac = "02:00:00:00:00:03" }

[[wr]]
qpn = 0x11
id = 1
opcode = "send"
sge = [{ addr = 0x1000, length = 0x100, lkey = 0x100 }]

[[wr]]
qpn = 0x11
id = 2
opcode = "send_imm"
imm = 7
sge = [{ addr = 0x1000, length = 0x80, lkey = 0x100 }, { addr = 0x1080, length = 0x10, lkey = 0x100 }]
signaled = false

[[wr]]
qpn = 0x12
id = 3
opcode = "send"
sge = [{ addr = 0x1000, length = 16, lkey = 0x7 }]

[[wr]]
qpn = 0x12
id = 4
opcode = "send"
inline = "00"
signaled = false

[[wr]]
qpn = 0x11
id = 5
opcode = "rdma_write"
inline = "0102"
remote_addr = 0x7000
rkey = 0x55

[[wr]]
qpn = 0x11
id = 6
opcode = "send"
sge = [{ addr = 0x1080, length = 0x100, lkey = 0x100 }]
"#;

/// Worked by hand from docs/wqe.md: the queues alternate 0x11, 0x12 while both have work; an
/// unsignaled success writes nothing, an unsignaled flush does; a read past host memory inside
/// the region is general_err with no frame (the one packet faulted).
#[test]
fn completions_of_a_hand_checked_scenario() {
    let scenario = temp("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let (pcap, csv) = (temp("small.pcap"), temp("small.csv"));
    let o = send(&scenario, &pcap, Some(&csv), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "wr_id,qpn,status,opcode,byte_len\n\
         1,0x11,success,send,256\n\
         3,0x12,loc_prot_err,send,0\n\
         4,0x12,wr_flush_err,send,0\n\
         5,0x11,success,rdma_write,2\n\
         6,0x11,general_err,send,0\n"
    );
    assert!(
        stderr(&o).contains(
            "rocenic send: 3 frame(s), 598 bytes, 5 completion(s): 2 success, 1 loc_prot_err, \
             1 wr_flush_err, 1 general_err"
        ),
        "{}",
        stderr(&o)
    );
    let f = frames(&pcap);
    let r: Vec<RoceFrame> = f.iter().map(|f| RoceFrame::parse(f).unwrap()).collect();
    // WR 1: the counter fill, one packet of the 256-byte MTU.
    assert_eq!(r[0].bth().opcode(), op::RC_SEND_ONLY);
    assert_eq!(r[0].bth().dest_qpn(), 0x22);
    let body = r[0].bth_payload();
    assert_eq!(&body[..256], &(0..=255u8).collect::<Vec<_>>()[..]);
    // WR 2: 0x80 + 0x10 bytes gathered, the immediate last.
    assert_eq!(r[1].bth().opcode(), op::RC_SEND_ONLY_WITH_IMM);
    assert_eq!(r[1].bth().psn(), r[0].bth().psn() + 1);
    let body = r[1].bth_payload();
    assert_eq!(&body[..4], &7u32.to_be_bytes());
    assert_eq!(body[4..4 + 0x90], (0..0x90u8).collect::<Vec<_>>()[..]);
    // WR 5: the RETH, then the two inline bytes and two of pad.
    assert_eq!(r[2].bth().opcode(), op::RC_RDMA_WRITE_ONLY);
    assert_eq!(r[2].bth().pad_count(), 2);
    let reth = Reth::new_checked(r[2].bth_payload()).unwrap();
    assert_eq!((reth.va(), reth.rkey(), reth.dma_len()), (0x7000, 0x55, 2));
    assert_eq!(&r[2].bth_payload()[16..20], &[1, 2, 0, 0]);
    for p in [scenario, pcap, csv] {
        let _ = std::fs::remove_file(p);
    }
}

/// A valid scenario the error cases edit: every class of scenario error, one per row, must stop
/// the run with exit status 2 and a message naming the table and the key, before any output
/// is created.
const BASE: &str = r#"[nic]
mac = "02:00:00:00:00:01"
ip = ["10.0.0.1"]

[[memory]]
addr = 0x1000
size = 0x100

[[mr]]
lkey = 0x100
pd = 1
addr = 0x1000
length = 0x100

[[qp]]
qpn = 0x11
type = "rc"
pd = 1
dest_qpn = 0x22
av = { ip = "10.0.0.2", mac = "02:00:00:00:00:02" }

[[qp]]
qpn = 0x12
type = "ud"
pd = 1

[[wr]]
qpn = 0x11
id = 1
opcode = "send"

[[wr]]
qpn = 0x11
id = 2
opcode = "send"

[[wr]]
qpn = 0x11
id = 3
opcode = "send"
"#;

#[test]
fn scenario_errors_name_the_key_and_leave_no_output() {
    // (edit: replace the first `old` by `new`, or append `new` when `old` is empty; message)
    let cases: &[(&str, &str, &str)] = &[
        (
            "",
            "lenght = 3\n",
            ":37: [[wr]] #3: unknown key \"lenght\" (expected one of ",
        ),
        (
            "id = 2\nopcode = \"send\"\n",
            "id = 2\n",
            "[[wr]] #2: missing key \"opcode\"",
        ),
        ("", "[[wx]]\n", "unknown table \"wx\""),
        (
            "[nic]\n",
            "[nic]\nspeed = 1\n",
            "[nic]: unknown key \"speed\"",
        ),
        (
            "id = 1\n",
            "id = -1\n",
            "[[wr]] #1: key \"id\": invalid value: integer -1",
        ),
        (
            "",
            "[[memory]]\naddr = 0x10ff\nsize = 1\n",
            "[[memory]] #2: 0x10ff..=0x10ff overlaps [[memory]] #1 (0x1000..=0x10ff)",
        ),
        (
            "",
            "[[memory]]\naddr = 0x3fffffffffffff00\nsize = 0x200\n",
            "[[memory]] #2: 0x3fffffffffffff00..=0x40000000000000ff overlaps the area reserved",
        ),
        (
            "size = 0x100\n",
            "size = 0x100\nfill = \"zero\"\nhex = \"00\"\n",
            "[[memory]] #1: keys \"fill\" and \"hex\" both given",
        ),
        (
            "",
            "[[mr]]\nlkey = 0x100\npd = 2\naddr = 0\nlength = 1\n",
            "[[mr]] #2: key \"lkey\": 0x100 is also [[mr]] #1's",
        ),
        (
            "",
            "[[mr]]\nlkey = 0x4100\npd = 2\naddr = 0\nlength = 1\n",
            "[[mr]] #2: key \"lkey\": 0x4100 and [[mr]] #1's 0x100 share memory-region slot 1",
        ),
        (
            "qpn = 0x12\n",
            "qpn = 0x11\n",
            "[[qp]] #2: key \"qpn\": 0x11 is also [[qp]] #1's",
        ),
        (
            "qpn = 0x12\n",
            "qpn = 1\n",
            "[[qp]] #2: key \"qpn\": 0x1 is out of range",
        ),
        (
            "qpn = 0x12\n",
            "qpn = 0x1000000\n",
            "[[qp]] #2: key \"qpn\": 0x1000000 is out of range",
        ),
        (
            "dest_qpn = 0x22\n",
            "",
            "[[qp]] #1: missing key \"dest_qpn\"",
        ),
        (
            "av = { ip = \"10.0.0.2\", mac = \"02:00:00:00:00:02\" }\n",
            "",
            "[[qp]] #1: missing key \"av\"",
        ),
        (
            "type = \"ud\"\npd = 1\n",
            "type = \"ud\"\npd = 1\nav = { ip = \"10.0.0.9\", mac = \"02:00:00:00:00:09\" }\n",
            "[[qp]] #2: key \"av\": a UD QP has no address vector",
        ),
        (
            "ip = \"10.0.0.2\"",
            "ip = \"fd00::2\"",
            "[[qp]] #1: key \"av.ip\": fd00::2 is IPv6, and [nic] has no IPv6 address",
        ),
        (
            "",
            "av = { ip = \"fd00::3\", mac = \"02:00:00:00:00:03\", qpn = 3 }\n",
            "[[wr]] #3: key \"av.ip\": fd00::3 is IPv6, and [nic] has no IPv6 address",
        ),
        (
            "qpn = 0x11\nid = 2\n",
            "qpn = 0x99\nid = 2\n",
            "[[wr]] #2: key \"qpn\": no [[qp]] has qpn 0x99",
        ),
        (
            "",
            "imm = 5\n",
            "[[wr]] #3: key \"imm\": send carries no immediate",
        ),
        ("", "opcode = \"rdma_write\"\n", ":41: duplicate key"),
        (
            "id = 3\nopcode = \"send\"\n",
            "id = 3\nopcode = \"rdma_write\"\nrkey = 1\n",
            "[[wr]] #3: missing key \"remote_addr\": rdma_write needs it",
        ),
        (
            "id = 3\nopcode = \"send\"\n",
            "id = 3\nopcode = \"rdma_write_imm\"\nremote_addr = 0\n",
            "[[wr]] #3: missing key \"rkey\": rdma_write_imm needs it",
        ),
        (
            "id = 3\nopcode = \"send\"\n",
            "id = 3\nopcode = \"send\"\nrkey = 1\n",
            "[[wr]] #3: key \"rkey\": send writes no remote memory",
        ),
        (
            "id = 3\nopcode = \"send\"\n",
            "id = 3\nopcode = \"rdma_read\"\nremote_addr = 0\nrkey = 1\n",
            "[[wr]] #3: opcode \"rdma_read\" needs the reliable transport",
        ),
        (
            "",
            "inline = \"00\"\nsge = []\n",
            "[[wr]] #3: keys \"sge\" and \"inline\" both given",
        ),
        ("", "opcode2 = 1\n", "[[wr]] #3: unknown key \"opcode2\""),
        (
            "",
            &format!("inline = \"{}\"\n", "00".repeat(993)),
            "[[wr]] #3: key \"inline\": the request takes 1025 bytes, more than a WQE's 1024",
        ),
        (
            "ip = \"10.0.0.2\", mac",
            "ip = \"10.0.0.2\", vlan = 4095, mac",
            "[[qp]] #1: key \"av.vlan\": 0xfff is out of range",
        ),
        (
            "ip = \"10.0.0.2\", mac",
            "ip = \"10.0.0.2\", pcp = 3, mac",
            "[[qp]] #1: key \"av.pcp\": a priority needs a VLAN tag",
        ),
        (
            "pd = 1\ndest_qpn",
            "pd = 1\nmtu = 1500\ndest_qpn",
            "[[qp]] #1: key \"mtu\": 1500 is not a path MTU",
        ),
        (
            "type = \"ud\"\npd = 1\n",
            "type = \"ud\"\npd = 1\nrq = 0\n",
            "[[qp]] #2: key \"rq\": a receive queue is for rocenic sim",
        ),
        (
            "type = \"ud\"\npd = 1\n",
            "type = \"raw\"\npd = 1\ndest_qpn = 3\n",
            "[[qp]] #2: key \"dest_qpn\": a raw QP has none; its frames carry their own headers",
        ),
        (
            "id = 3\nopcode = \"send\"\n",
            "id = 3\nopcode = \"tso\"\nheader = \"00\"\n",
            "[[wr]] #3: missing key \"mss\": a tso request names its segment size",
        ),
        (
            "id = 3\nopcode = \"send\"\n",
            "id = 3\nopcode = \"send\"\nrepeat = 0\n",
            "[[wr]] #3: key \"repeat\": 0",
        ),
    ];
    let dir = temp("errors");
    std::fs::create_dir_all(&dir).unwrap();
    let (pcap, csv) = (dir.join("out.pcap"), dir.join("cq.csv"));
    // The base runs.
    let base = dir.join("base.toml");
    std::fs::write(&base, BASE).unwrap();
    let o = send(&base, &pcap, Some(&csv), &[]);
    assert!(o.status.success(), "the base scenario: {}", stderr(&o));
    std::fs::remove_file(&pcap).unwrap();
    std::fs::remove_file(&csv).unwrap();
    for (i, &(old, new, needle)) in cases.iter().enumerate() {
        let text = if old.is_empty() {
            format!("{BASE}{new}")
        } else {
            assert!(BASE.contains(old), "case {i}: `{old}` is not in the base");
            BASE.replacen(old, new, 1)
        };
        let path = dir.join(format!("case{i}.toml"));
        std::fs::write(&path, &text).unwrap();
        let o = send(&path, &pcap, Some(&csv), &[]);
        fails_with(&o, needle);
        assert!(
            stderr(&o).contains(&format!("{}", path.display())),
            "case {i}: the file is named: {}",
            stderr(&o)
        );
        assert!(
            !pcap.exists() && !csv.exists(),
            "case {i}: output left behind"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// More requests on one QP than its largest send ring (2^16) is a scenario error.
#[test]
fn the_ring_limit_is_per_qp() {
    let wr = |qpn: u32| format!("{{ qpn = {qpn}, id = 0, opcode = \"send\" }},");
    let head = BASE.split("[[wr]]").next().unwrap();
    // Top-level keys come before the first table.
    let over = format!("wr = [{}]\n{head}", wr(0x11).repeat(65537));
    let path = temp("ring-limit.toml");
    std::fs::write(&path, &over).unwrap();
    let pcap = temp("ring-limit.pcap");
    let o = send(&path, &pcap, None, &[]);
    fails_with(&o, "[[wr]] #65537: more than 65536 requests on QP 0x11");
    assert!(!pcap.exists());
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn engines_and_options() {
    let scenario = example("send.toml");
    let pcap = temp("engines.pcap");
    let o = send(&scenario, &pcap, None, &["--engine", "serial:/dev/null"]);
    fails_with(&o, "`rocenic send` runs on --engine model or rtl");
    let o = send(&scenario, &pcap, None, &["--vcd", "x.vcd"]);
    fails_with(&o, "--vcd traces the RTL's signals; it needs --engine rtl");
    let o = send(&scenario, Path::new("-"), Some(Path::new("-")), &[]);
    fails_with(&o, "cannot both be standard output");
    let o = send(&temp("missing.toml"), &pcap, None, &[]);
    fails_with(&o, "cannot read");
    assert!(!pcap.exists());
}

/// `--engine rtl` writes the same pcap and the same completions as the model, byte for byte,
/// for both examples; `--vcd` traces the run.
#[cfg(feature = "rtl")]
#[test]
fn rtl_engine_writes_the_models_files() {
    for name in ["send.toml", "send_errors.toml"] {
        let scenario = example(name);
        let mut files = Vec::new();
        for engine in ["model", "rtl"] {
            let pcap = temp(&format!("{name}-{engine}.pcap"));
            let csv = temp(&format!("{name}-{engine}.csv"));
            let o = send(&scenario, &pcap, Some(&csv), &["--engine", engine]);
            assert!(
                o.status.success(),
                "{name} {engine}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            files.push((std::fs::read(&pcap).unwrap(), std::fs::read(&csv).unwrap()));
            let _ = std::fs::remove_file(pcap);
            let _ = std::fs::remove_file(csv);
        }
        assert!(!files[0].0.is_empty() && !files[0].1.is_empty());
        assert_eq!(files[0].0, files[1].0, "{name}: frames");
        assert_eq!(files[0].1, files[1].1, "{name}: completions");
    }
    let vcd = temp("send.vcd");
    let pcap = temp("send-vcd.pcap");
    let o = send(
        &example("send.toml"),
        &pcap,
        None,
        &["--engine", "rtl", "--vcd", vcd.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let trace = std::fs::read_to_string(&vcd).unwrap();
    assert!(trace.contains("$enddefinitions") && trace.contains("m_axis_tvalid"));
    // The same run to an .fst (by `--trace`, its other name): an FST, whose header block
    // (type 0, 329 bytes) comes first, smaller than the VCD, and no staging VCD left beside it.
    let fst = temp("send.fst");
    let o = send(
        &example("send.toml"),
        &pcap,
        None,
        &["--engine", "rtl", "--trace", fst.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&fst).unwrap();
    assert_eq!(bytes[0], 0, "FST header block");
    assert_eq!(u64::from_be_bytes(bytes[1..9].try_into().unwrap()), 329);
    assert!(
        bytes.len() * 4 < trace.len(),
        "{} vs {}",
        bytes.len(),
        trace.len()
    );
    let mut staging = fst.clone().into_os_string();
    staging.push(".vcd");
    assert!(!std::path::Path::new(&staging).exists());
    let _ = std::fs::remove_file(fst);
    let _ = std::fs::remove_file(vcd);
    let _ = std::fs::remove_file(pcap);
}

#[test]
fn a_raw_qp_runs_on_both_engines() {
    let scenario = example("raw.toml");
    let (pcap, csv) = (temp("raw.pcap"), temp("raw.csv"));
    let o = send(&scenario, &pcap, Some(&csv), &["--engine", "model"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&pcap).unwrap();
    let reader = PcapReader::new(&bytes).unwrap();
    let wire: Vec<Vec<u8>> = reader.records().map(|r| r.unwrap().data.to_vec()).collect();
    // The inline frame, padded to 60; the gathered one as it lies in memory; 14 segments.
    assert_eq!(wire.len(), 2 + 20000usize.div_ceil(1448));
    let mut first = vec![
        2, 0, 0, 0, 0, 0xb, 2, 0, 0, 0, 0, 0xa, 0x88, 0xb5, 1, 2, 3, 4, 5,
    ];
    first.resize(60, 0);
    assert_eq!(wire[0], first);
    assert_eq!(wire[1].len(), 64);
    assert_eq!(&wire[1][12..16], &[0x88, 0xb5, 0, 1]);
    let mut payload = Vec::new();
    for f in &wire[2..] {
        let s =
            rocenic_model::tso::verify_segment(rocenic_model::wire::LinkType::Ethernet, f).unwrap();
        payload.extend_from_slice(s.payload);
    }
    assert_eq!(payload, (0..20000).map(|i| i as u8).collect::<Vec<u8>>());
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(rows.contains("3,0x19,success,tso,20000"), "{rows}");
    // The RTL engine (its segmenter in Ethernet mode) writes the same files, byte for byte.
    if cfg!(feature = "rtl") {
        let (rpcap, rcsv) = (temp("raw-rtl.pcap"), temp("raw-rtl.csv"));
        let o = send(&scenario, &rpcap, Some(&rcsv), &["--engine", "rtl"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(std::fs::read(&rpcap).unwrap(), bytes, "frames");
        assert_eq!(std::fs::read_to_string(&rcsv).unwrap(), rows, "completions");
        for f in [rpcap, rcsv] {
            std::fs::remove_file(f).unwrap();
        }
    }
    for f in [pcap, csv] {
        std::fs::remove_file(f).unwrap();
    }
}
