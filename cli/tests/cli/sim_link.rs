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
    let out = temp("refused");
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
        let file = temp("bad.toml");
        std::fs::write(&file, &text).unwrap();
        let line = text.lines().position(|l| l == "[link]").unwrap() + 1;
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
        fails_with(&o, needle);
        assert!(
            stderr(&o).contains(&format!("bad.toml:{line}: ")),
            "{}",
            stderr(&o)
        );
        assert!(!out.exists());
        std::fs::remove_file(file).unwrap();
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
