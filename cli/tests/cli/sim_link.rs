//! `rocenic sim` with a `[link]`: RC traffic both ways over a wire that loses, duplicates and
//! corrupts frames completes exactly as over a clean one (every completion ring row for row,
//! the received messages' bytes by their CRC-32), the summary counts what the link did and what
//! the reliable transport did about it, each seed replays, and a bad `[link]` is refused before
//! any output.

use crate::common::{fails_with, rocenic, stderr, stdout};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rocenic-{}-link-{name}", std::process::id()))
}

fn lossy() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/sim_lossy.toml");
    std::fs::read_to_string(path).unwrap()
}

/// `rocenic sim --engine model` on `text` (written to a file) into a fresh directory: its
/// summary and completion rows by ring and QP, without their place in the ring (a send ring
/// holds several QPs' completions, whose interleaving depends on when each QP's ACKs come; each
/// QP's order does not).
fn run(name: &str, text: &str, extra: &[&str]) -> (String, BTreeMap<String, Vec<String>>) {
    let (file, out) = (temp(&format!("{name}.toml")), temp(name));
    std::fs::write(&file, text).unwrap();
    let mut args = vec![
        "sim",
        "--engine",
        "model",
        "--scenario",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = rocenic(&args, "");
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("completions.csv")).unwrap();
    let mut rings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in csv.lines().skip(1) {
        // nic,cq,index,wr_id,qpn,...
        let f: Vec<&str> = row.split(',').collect();
        rings
            .entry(format!("{},{},{}", f[0], f[1], f[4]))
            .or_default()
            .push([&f[..2], &f[3..]].concat().join(","));
    }
    std::fs::remove_dir_all(out).unwrap();
    std::fs::remove_file(file).unwrap();
    (stdout(&o), rings)
}

/// `rocenic sim --engine model` on `text` (written to `name`), which must be refused: its
/// output, after checking that no output directory was made.
fn refused(name: &str, text: &str) -> std::process::Output {
    let (file, out) = (temp(name), temp(&format!("{name}.out")));
    std::fs::write(&file, text).unwrap();
    let o = rocenic(
        &[
            "sim",
            "--engine",
            "model",
            "--scenario",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert!(!out.exists(), "no output for a refused scenario");
    std::fs::remove_file(file).unwrap();
    o
}

/// The number a summary line ends its column `col` (0: a's or a -> b) with.
fn count(summary: &str, label: &str, col: usize) -> u64 {
    let line = summary
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no line {label:?} in {summary}"));
    let cols: Vec<&str> = line.split_whitespace().rev().take(2).collect();
    cols[1 - col].parse().unwrap()
}

#[test]
fn a_lossy_link_delivers_everything_once() {
    let (clean, want) = run("clean", &lossy(), &[]);
    assert!(!clean.contains("reliable transport"), "{clean}");
    assert_eq!(want.values().map(Vec::len).sum::<usize>(), 192);
    let mut resent = 0;
    for (i, (link, seed)) in [
        ("loss = 0.02\nduplicate = 0.01\ncorrupt = 0.01\n", "1"),
        ("loss = 0.05\nduplicate = 0.02\ncorrupt = 0.02\n", "2"),
        ("loss = 0.2\ncorrupt = 0.05\ntimeout = 4\n", "3"),
        ("duplicate = 0.3\n", "4"),
    ]
    .into_iter()
    .enumerate()
    {
        let text = format!("{}\n[link]\n{link}", lossy());
        let (summary, got) = run(&format!("lossy{i}"), &text, &["--seed", seed]);
        // Every completion of every ring, row for row: each WR once, in order, with its
        // status and length, each message's bytes (the CRC-32 column) as sent.
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (k, rows) in &want {
            if let Some(n) =
                (0..rows.len().max(got[k].len())).find(|&n| got[k].get(n) != rows.get(n))
            {
                panic!(
                    "case {i} ({link:?}), {k}, row {n}: {:?}, not {:?}\n{summary}",
                    got[k].get(n),
                    rows.get(n)
                );
            }
        }
        for col in [0, 1] {
            // What the receivers took is what the clean run's took: no data packet twice.
            assert_eq!(
                count(&summary, "taken by the receiver", col),
                count(&clean, "taken by the receiver", col),
                "case {i}: {summary}"
            );
        }
        let faults: u64 = ["lost", "duplicated", "corrupted"]
            .iter()
            .map(|l| count(&summary, l, 0) + count(&summary, l, 1))
            .sum();
        assert!(faults > 0, "case {i}: the link did something: {summary}");
        resent +=
            count(&summary, "packets sent again", 0) + count(&summary, "packets sent again", 1);
        assert!(
            count(&summary, "ACK and NAK frames taken", 0) > 0,
            "{summary}"
        );
        // The same seed, the same run.
        if i == 0 {
            let (again, _) = run("again", &text, &["--seed", seed]);
            let strip = |s: &str| -> Vec<String> {
                s.lines()
                    .filter(|l| !l.starts_with("rocenic sim:") && !l.starts_with("wrote "))
                    .map(String::from)
                    .collect()
            };
            assert_eq!(strip(&again), strip(&summary));
        }
    }
    assert!(resent > 0, "losses were recovered by resending");
}

#[test]
fn a_bad_link_is_refused_first() {
    for (link, needle) in [
        (
            "loss = 0.7\n",
            "[link]: key \"loss\": 0.7 is not a probability from 0 to 0.5",
        ),
        (
            "corrupt = -0.1\n",
            "[link]: key \"corrupt\": -0.1 is not a probability",
        ),
        ("timeout = 0\n", "[link]: key \"timeout\": 0 is not 1..=20"),
        (
            "retry_cnt = 8\n",
            "[link]: key \"retry_cnt\": 8 is not 0..=7",
        ),
        ("los = 0.1\n", "[link]: unknown key \"los\""),
    ] {
        let text = format!("{}\n[link]\n{link}", lossy());
        let line = text.lines().position(|l| l == "[link]").unwrap() + 1;
        let o = refused("bad.toml", &text);
        fails_with(&o, needle);
        assert!(
            stderr(&o).contains(&format!("bad.toml:{line}: ")),
            "{}",
            stderr(&o)
        );
    }
    // A misspelt table names the three the top level takes.
    let file = temp("lnk.toml");
    std::fs::write(&file, format!("{}\n[lnk]\nloss = 0.1\n", lossy())).unwrap();
    let o = rocenic(
        &[
            "sim",
            "--engine",
            "model",
            "--scenario",
            file.to_str().unwrap(),
        ],
        "",
    );
    fails_with(
        &o,
        "unknown table or key \"lnk\" (expected [nic.a], [nic.b] or [link])",
    );
    std::fs::remove_file(file).unwrap();
}

/// RDMA READs both ways among the file's traffic: a reads 5,000 bytes of b's counter memory
/// five times, b reads 3,000 of a's three times, each into its own write region. Read back
/// from a region another side keeps `remote_read`.
const READS: &str = r#"
[[nic.a.mr]]
lkey = 0x400
pd = 1
addr = 0x100000
length = 0x40000
access = ["remote_read"]

[[nic.b.mr]]
lkey = 0x400
pd = 1
addr = 0x100000
length = 0x40000
access = ["remote_read"]

[[nic.a.wr]]
qpn = 0x11
id = 500
opcode = "rdma_read"
sge = [{ addr = 0x1140000, length = 5000, lkey = 0x300 }]
remote_addr = 0x120000
rkey = 0x400
repeat = 5

[[nic.b.wr]]
qpn = 0x22
id = 600
opcode = "rdma_read"
sge = [{ addr = 0x1140000, length = 3000, lkey = 0x300 }]
remote_addr = 0x130000
rkey = 0x400
repeat = 3
"#;

/// The READs complete in order among their QPs' other requests, with the remote bytes (their
/// CRC-32: counter bytes from a 256-byte boundary), over a clean link and a lossy one alike.
#[test]
fn reads_over_a_lossy_link() {
    let text = format!("{}{READS}", lossy());
    let (_, clean) = run("read-clean", &format!("{text}\n[link]\n"), &[]);
    let link = "loss = 0.05\nduplicate = 0.01\ncorrupt = 0.01\n";
    let (summary, got) = run(
        "read-lossy",
        &format!("{text}\n[link]\n{link}"),
        &["--seed", "3"],
    );
    assert_eq!(
        got, clean,
        "the lossy run's completions are the clean run's"
    );
    assert!(
        count(&summary, "packets sent again", 0) + count(&summary, "packets sent again", 1) > 0
    );
    let counter = |n: usize| crc32fast::hash(&(0..n).map(|j| j as u8).collect::<Vec<_>>());
    let mut reads = [0, 0];
    for rows in got.values() {
        for row in rows {
            // nic,cq,wr_id,qpn,status,opcode,byte_len,wqe_index,imm,src_qp,hash,flags,crc32
            let f: Vec<&str> = row.split(',').collect();
            if f[5] != "rdma_read" {
                continue;
            }
            let (side, len) = if f[0] == "a" { (0, 5000) } else { (1, 3000) };
            assert_eq!((f[4], f[6]), ("success", len.to_string().as_str()), "{row}");
            assert_eq!(f[12], format!("{:#010x}", counter(len)), "{row}");
            reads[side] += 1;
        }
    }
    assert_eq!(reads, [5, 3]);
}

/// A READ with no `[link]`: no reliable transport, so the scenario is refused before any output.
#[test]
fn a_read_without_a_link_is_refused() {
    let o = refused("read-nolink.toml", &format!("{}{READS}", lossy()));
    fails_with(
        &o,
        "[[nic.a.wr]] #5: opcode \"rdma_read\" needs the reliable transport",
    );
}

/// A QP's own transport attributes: a's QP 0x11 with `retry_cnt = 0` gives up at its first
/// resend (`retry_exc_err`, the rest flushed) on a wire losing 20 %, while QP 0x12, on the
/// `[link]`'s seven retries, delivers everything.
#[test]
fn per_qp_attributes() {
    let text = lossy().replacen(
        "qpn = 0x11\ntype = \"rc\"\n",
        "qpn = 0x11\ntype = \"rc\"\nretry_cnt = 0\ntimeout = 3\nrnr_retry = 7\nmin_rnr_timer = 12\n",
        1,
    );
    assert_ne!(text, lossy());
    let (_, rings) = run("per-qp", &format!("{text}\n[link]\nloss = 0.2\n"), &[]);
    let statuses = |qpn: &str| -> Vec<String> {
        rings
            .iter()
            .filter(|(k, _)| k.starts_with("a,send,") && k.ends_with(qpn))
            .flat_map(|(_, rows)| {
                rows.iter()
                    .map(|r| r.split(',').nth(4).unwrap().to_string())
            })
            .collect()
    };
    let (s11, s12) = (statuses("0x11"), statuses("0x12"));
    assert_eq!(
        s11.iter().filter(|s| *s == "retry_exc_err").count(),
        1,
        "{s11:?}"
    );
    assert!(s11.iter().any(|s| s == "wr_flush_err"), "{s11:?}");
    assert!(
        !s12.is_empty() && s12.iter().all(|s| s == "success"),
        "{s12:?}"
    );
}

/// Transport attributes without a `[link]`, on a UD QP, or out of range: refused first.
#[test]
fn per_qp_attributes_refused() {
    let qp11 = "qpn = 0x11\ntype = \"rc\"\n";
    for (key, link, needle) in [
        (
            "timeout = 5",
            "",
            "key \"timeout\": a transport attribute needs the reliable transport",
        ),
        (
            "timeout = 0",
            "[link]\n",
            "key \"timeout\": 0 is not 1..=31",
        ),
        (
            "retry_cnt = 8",
            "[link]\n",
            "key \"retry_cnt\": 8 is not 0..=7",
        ),
        (
            "rnr_retry = 9",
            "[link]\n",
            "key \"rnr_retry\": 9 is not 0..=7",
        ),
        (
            "min_rnr_timer = 32",
            "[link]\n",
            "key \"min_rnr_timer\": 32 is not 0..=31",
        ),
    ] {
        let text = lossy().replacen(qp11, &format!("{qp11}{key}\n"), 1);
        let o = refused("per-qp-bad.toml", &format!("{text}\n{link}"));
        fails_with(&o, &format!("[[nic.a.qp]] #1: {needle}"));
    }
}
