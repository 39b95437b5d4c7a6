//! `rocenic golden export` and `rocenic golden check`: exported vectors check clean, every planted
//! mismatch is found at its line and column, bad input exits 2, a seed gives the same files.

use crate::common::{rocenic, stderr, stdout};
use rocenic_model::entropy::Profile;
use rocenic_model::golden::sets::{self, Format, SETS};
use std::fs;
use std::path::Path;

mod bad_input;
mod single_commands;

/// A seed for a test: `$ROCENIC_SEED` if set, else fresh; printed so that a failure replays.
fn seed(test: &str) -> u64 {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            t ^ u64::from(std::process::id()) << 32 ^ test.len() as u64
        });
    eprintln!("golden::{test}: seed {seed} (replay with ROCENIC_SEED={seed})");
    seed
}

/// xorshift64*, for the tests' own choices.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as usize % n
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn export(dir: &Path, extra: &[&str]) {
    let mut args = vec!["golden", "export", "--out", path(dir)];
    args.extend_from_slice(extra);
    let o = rocenic(&args, "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

fn check(file: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["golden", "check", path(file)];
    args.extend_from_slice(extra);
    rocenic(&args, "")
}

/// A vector file's header and rows (exports quote nothing).
fn read_csv(file: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(file).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect());
    let header = lines.next().unwrap();
    (header, lines.collect())
}

fn write_csv(file: &Path, header: &[String], rows: &[Vec<String>]) {
    let mut text = header.join(",") + "\n";
    for r in rows {
        text += &(r.join(",") + "\n");
    }
    fs::write(file, text).unwrap();
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

/// A summary record's name (column or set) and its rows, matches and mismatches.
type Counts = (String, u64, u64, u64);

/// The summary records of a check: `(column, rows, matches, mismatches)` and the total.
fn summary(out: &str) -> (Vec<Counts>, Counts) {
    let mut columns = Vec::new();
    let mut total = None;
    for line in out.lines() {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        match f[0] {
            "column" => columns.push((f[1].to_string(), n(2), n(3), n(4))),
            "total" => total = Some((f[1].to_string(), n(2), n(3), n(4))),
            "mismatch" => {}
            other => panic!("unknown record `{other}` in {out}"),
        }
    }
    (columns, total.expect("a total record"))
}

fn mismatches(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("mismatch,"))
        .map(String::from)
        .collect()
}

#[test]
fn exports_check_clean_for_every_set_and_profile() {
    let seed = seed("exports_check_clean").to_string();
    for profile in Profile::ALL {
        let dir = tempfile::tempdir().unwrap();
        export(
            dir.path(),
            &[
                "--seed",
                &seed,
                "--count",
                "40",
                "--profile",
                profile.name(),
            ],
        );
        let m = manifest(dir.path());
        assert_eq!(m["format"], sets::FORMAT);
        assert_eq!(m["profile"], profile.name());
        assert_eq!(m["count"], 40);
        assert_eq!(m["seed"].as_u64().unwrap().to_string(), seed);
        let files = m["files"].as_array().unwrap();
        assert_eq!(files.len(), SETS.len());
        for (set, entry) in SETS.iter().zip(files) {
            assert_eq!(entry["set"], set.name);
            assert_eq!(entry["file"], set.file);
            let names = |key: &str| -> Vec<String> {
                entry[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect()
            };
            let inputs: Vec<String> = set.inputs().map(|c| c.name.to_string()).collect();
            let expected: Vec<String> = set.expected().map(|c| c.name.to_string()).collect();
            assert_eq!(names("inputs"), inputs);
            assert_eq!(names("expected"), expected);
            let rows = entry["rows"].as_u64().unwrap();
            assert_eq!(rows, entry["edge_rows"].as_u64().unwrap() + 40);

            let file = dir.path().join(set.file);
            let (header, data) = read_csv(&file);
            assert_eq!(header, [inputs, expected.clone()].concat());
            assert_eq!(data.len() as u64, rows);
            let o = check(&file, &[]);
            assert_eq!(o.status.code(), Some(0), "{}: {}", set.name, stderr(&o));
            let out = stdout(&o);
            assert!(mismatches(&out).is_empty(), "{out}");
            let (columns, total) = summary(&out);
            assert_eq!(total, (set.name.to_string(), rows, rows, 0));
            let want: Vec<_> = expected
                .iter()
                .map(|c| (c.clone(), rows, rows, 0))
                .collect();
            assert_eq!(columns, want);
        }
    }
}

#[test]
fn a_seed_gives_the_same_files_and_another_seed_others() {
    let seed: u64 = seed("same_seed");
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let s = seed.to_string();
    let other = seed.wrapping_add(1).to_string();
    export(a.path(), &["--seed", &s, "--count", "20"]);
    export(b.path(), &["--seed", &s, "--count", "20"]);
    export(c.path(), &["--seed", &other, "--count", "20"]);
    let mut names: Vec<String> = fs::read_dir(a.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut want: Vec<String> = SETS.iter().map(|s| s.file.to_string()).collect();
    want.extend(["manifest.json", "tso-segments.pcap", "tso-sends.pcap"].map(String::from));
    want.sort();
    assert_eq!(names, want);
    for name in &names {
        let read = |d: &Path| fs::read(d.join(name)).unwrap();
        assert!(
            read(a.path()) == read(b.path()),
            "{name} differs under one seed"
        );
        assert!(
            read(a.path()) != read(c.path()),
            "{name} is the same under two seeds"
        );
    }
    // The edge cases lead every file whatever the seed; only the random rows differ.
    let m = manifest(a.path());
    for (set, entry) in SETS.iter().zip(m["files"].as_array().unwrap()) {
        let edges = entry["edge_rows"].as_u64().unwrap() as usize;
        let (_, ra) = read_csv(&a.path().join(set.file));
        let (_, rc) = read_csv(&c.path().join(set.file));
        assert!(edges > 0);
        assert_eq!(ra[..edges], rc[..edges], "{}", set.name);
        assert_ne!(ra[edges..], rc[edges..], "{}", set.name);
    }
}

#[test]
fn edge_cases_lead_the_entropy_files() {
    let dir = tempfile::tempdir().unwrap();
    export(dir.path(), &["--count", "0"]);
    let (_, qp) = read_csv(&dir.path().join("entropy-qp.csv"));
    // The reference's worked example: flow_label(0xFFFFFF, 0xFFFFFF) = 0xFFF1E, port 0xFF21.
    assert!(qp.contains(
        &["linux", "0xffffff", "0xffffff", "0x0", "rc", "0xfff1e", "0xff21"]
            .map(String::from)
            .to_vec()
    ));
    // 0x100000 is non-zero: no fallback, flow label 0, port 0xC000.
    assert!(qp
        .iter()
        .any(|r| r[3] == "0x100000" && r[5] == "0x00000" && r[6] == "0xc000"));
    assert!(qp.iter().any(|r| r[1] == "0x0" && r[2] == "0x0"));
    let (_, cm) = read_csv(&dir.path().join("entropy-cm.csv"));
    assert!(cm.iter().any(|r| r[1] == "65535" && r[2] == "0"));
    // CM ports 18515 -> 4791: 18515 * 31 + 4791 = 0x8D4C4.
    assert!(cm
        .iter()
        .any(|r| r[1] == "18515" && r[2] == "4791" && r[3] == "0x0" && r[6] == "0x8d4c4"));
    let (_, tz) = read_csv(&dir.path().join("toeplitz.csv"));
    assert!(tz.iter().any(|r| r[0].len() == 80) && tz.iter().any(|r| r[0].len() == 104));
    assert!(tz.iter().any(|r| r[1].is_empty()) && tz.iter().any(|r| r[1].len() == 96));
    // The published verification suite's first hash, with ports.
    assert!(tz
        .iter()
        .any(|r| r[1] == "420995bba18e64500aea06e6" && r[2] == "0x51ccc178"));
    let (_, tso) = read_csv(&dir.path().join("tso.csv"));
    assert!(tso.iter().any(|r| r[1] == "1") && tso.iter().any(|r| r[1] == "9000"));
    let m = manifest(dir.path());
    for entry in m["files"].as_array().unwrap() {
        assert_eq!(
            entry["rows"], entry["edge_rows"],
            "--count 0 writes the edge cases only"
        );
    }
}

/// A different value in the column's format.
fn plant(format: Format, value: &str) -> String {
    match format {
        Format::Number => {
            let v = match value.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).unwrap(),
                None => value.parse().unwrap(),
            };
            format!("{:#x}", v ^ 1)
        }
        Format::Bytes => {
            let mut s = value.to_string();
            let last = if s.ends_with('0') { "1" } else { "0" };
            s.replace_range(s.len() - 1.., last);
            s
        }
        Format::Names if value == "none" => "ipv4".into(),
        Format::Names => "none".into(),
        Format::Name | Format::Numbers => unreachable!("no expected column has this format"),
    }
}

/// Copies what a check of `set` needs beside its file.
fn copy_beside(from: &Path, to: &Path) {
    for name in ["manifest.json", "tso-sends.pcap"] {
        fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

#[test]
fn a_planted_mismatch_in_every_expected_column_is_found() {
    let seed = seed("planted_mismatch");
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().unwrap();
    export(dir.path(), &["--seed", &seed.to_string(), "--count", "16"]);
    for set in SETS {
        let (header, rows) = read_csv(&dir.path().join(set.file));
        for column in set.expected() {
            let at = header.iter().position(|h| h == column.name).unwrap();
            let i = rng.below(rows.len());
            let (line, was) = (i + 2, rows[i][at].clone());
            let now = plant(column.format, &was);
            let mut planted = rows.clone();
            planted[i][at] = now.clone();
            let work = tempfile::tempdir().unwrap();
            copy_beside(dir.path(), work.path());
            let file = work.path().join(set.file);
            write_csv(&file, &header, &planted);
            let o = check(&file, &[]);
            let what = format!("{} column {} line {line}", set.name, column.name);
            assert_eq!(o.status.code(), Some(1), "{what}: {}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(
                mismatches(&out),
                [format!("mismatch,{line},{},{was},{now}", column.name)],
                "{what}"
            );
            let (columns, total) = summary(&out);
            let n = rows.len() as u64;
            assert_eq!(total, (set.name.to_string(), n, n - 1, 1), "{what}");
            for (name, r, ok, bad) in columns {
                let planted_here = u64::from(name == column.name);
                assert_eq!((r, ok, bad), (n, n - planted_here, planted_here), "{what}");
            }
        }
    }
}

#[test]
fn a_wrong_profile_is_found() {
    let seed = seed("wrong_profile");
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &[
            "--seed",
            &seed.to_string(),
            "--count",
            "16",
            "--profile",
            "rfc-v2",
        ],
    );
    // One row's profile cell says rfc-v1: the file's results (rfc-v2's) are wrong for it.
    for set in [&sets::ENTROPY_QP, &sets::ENTROPY_CM] {
        let file = dir.path().join(set.file);
        let (header, rows) = read_csv(&file);
        let work = tempfile::tempdir().unwrap();
        copy_beside(dir.path(), work.path());
        let planted_file = work.path().join(set.file);
        // The rows where rfc-v1 gives other results (its ports come from folded QPNs or CM
        // ports): every profile cell set to rfc-v1.
        let all: Vec<Vec<String>> = rows
            .iter()
            .map(|r| [vec!["rfc-v1".to_string()], r[1..].to_vec()].concat())
            .collect();
        write_csv(&planted_file, &header, &all);
        let differ = mismatches(&stdout(&check(&planted_file, &[])));
        assert!(!differ.is_empty(), "rfc-v1 and rfc-v2 agree on every row?");
        let pick = &differ[rng.below(differ.len())];
        let line: usize = pick.split(',').nth(1).unwrap().parse().unwrap();
        let mut planted = rows.clone();
        planted[line - 2][0] = "rfc-v1".into();
        write_csv(&planted_file, &header, &planted);
        let o = check(&planted_file, &[]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let found = mismatches(&stdout(&o));
        let at_line: Vec<&String> = differ
            .iter()
            .filter(|m| m.starts_with(&format!("mismatch,{line},")))
            .collect();
        assert_eq!(
            found.iter().collect::<Vec<_>>(),
            at_line,
            "{} line {line}",
            set.name
        );
        // A profile cell wins over --profile.
        let o = check(&file, &["--profile", "rfc-v1"]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    }

    // Without a profile column: --profile, else the manifest beside the file, else linux.
    let (header, rows) = read_csv(&dir.path().join("entropy-cm.csv"));
    let stripped: Vec<Vec<String>> = rows.iter().map(|r| r[1..].to_vec()).collect();
    let alone = tempfile::tempdir().unwrap();
    let file = alone.path().join("entropy-cm.csv");
    write_csv(&file, &header[1..], &stripped);
    let o = check(&file, &[]);
    assert_eq!(o.status.code(), Some(1), "linux is not rfc-v2 in CM mode");
    assert!(!mismatches(&stdout(&o)).is_empty());
    assert_eq!(
        check(&file, &["--profile", "rfc-v2"]).status.code(),
        Some(0)
    );
    fs::copy(
        dir.path().join("manifest.json"),
        alone.path().join("manifest.json"),
    )
    .unwrap();
    let o = check(&file, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "the manifest says rfc-v2: {}",
        stdout(&o)
    );
    assert_eq!(check(&file, &["--profile", "linux"]).status.code(), Some(1));
}

#[test]
fn columns_in_any_order_with_extra_columns_check_the_same() {
    let dir = tempfile::tempdir().unwrap();
    export(dir.path(), &["--count", "8"]);
    let (header, rows) = read_csv(&dir.path().join("rss.csv"));
    // Reversed, with a harness's note column in front; one queue cell planted wrong.
    let flip = |r: &[String], note: &str| {
        let mut v: Vec<String> = r.iter().rev().cloned().collect();
        v.insert(0, note.to_string());
        v
    };
    let mut rows: Vec<Vec<String>> = rows.iter().map(|r| flip(r, "dut-a")).collect();
    let queue = 1 + header.len() - 1 - header.iter().position(|h| h == "queue").unwrap();
    let was = rows[5][queue].clone();
    rows[5][queue] = format!("{}", was.parse::<u64>().unwrap() + 1);
    let file = dir.path().join("rss-reordered.csv");
    write_csv(&file, &flip(&header, "note"), &rows);
    let o = check(&file, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        mismatches(&stdout(&o)),
        [format!("mismatch,7,queue,{was},{}", rows[5][queue])]
    );
}

/// `check --html`: the page's summary, per-column counts and mismatch rows agree with the
/// command's records; a clean file gives a page that says pass.
#[test]
fn check_html_report_lists_the_mismatches() {
    let dir = tempfile::tempdir().unwrap();
    export(dir.path(), &["--count", "8"]);
    let file = dir.path().join(sets::TOEPLITZ.file);
    let html = dir.path().join("report.html");
    let o = check(&file, &["--html", path(&html)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = fs::read_to_string(&html).unwrap();
    assert!(page.contains("<tr class=\"good\"><td>result</td><td>pass</td></tr>"));
    assert!(page.contains("every expected value the device reported is the model&#39;s"));

    // Two rows with a wrong hash: line 3 and the last line.
    let (header, mut rows) = read_csv(&file);
    let hash = header.iter().position(|h| h == "hash").unwrap();
    let last = rows.len() - 1;
    for r in [1, last] {
        rows[r][hash] = if rows[r][hash] == "0x00000000" {
            "0x00000001"
        } else {
            "0x00000000"
        }
        .into();
    }
    write_csv(&file, &header, &rows);
    let o = check(&file, &["--html", path(&html)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let page = fs::read_to_string(&html).unwrap();
    assert!(!page.contains("<script") && !page.contains("<link"));
    assert!(page.contains("<tr class=\"bad\"><td>result</td><td>FAIL</td></tr>"));
    let n = rows.len();
    assert!(page.contains(&format!(
        "<tr class=\"bad\"><td>hash</td><td>{n}</td><td>{}</td><td>2</td></tr>",
        n - 2
    )));
    let table = &page[page.find("id=\"mismatches\"").unwrap()..];
    for line in [3, last + 2] {
        assert!(
            table.contains(&format!("<tr class=\"bad\"><td>{line}</td><td>hash</td>")),
            "line {line}"
        );
    }
    assert_eq!(table.matches("<tr class=\"bad\">").count(), 2);
}
