//! `rocenic golden check` and `export` on bad input: exit 2, the line and column named, no panic.

use super::{check, export, path, read_csv, write_csv};
use crate::common::{fails_with, rocenic, stderr};
use rocenic_model::golden::sets::SETS;
use std::fs;

fn golden_check_stdin(input: &str) -> std::process::Output {
    rocenic(&["golden", "check", "-"], input)
}

#[test]
fn bad_input_exits_2_naming_line_and_column() {
    let o = golden_check_stdin("a,b\n1,2\n");
    fails_with(&o, "line 1: the header is not that of a vector set");
    for set in SETS {
        assert!(
            stderr(&o).contains(&format!("{} (", set.name)),
            "{}",
            stderr(&o)
        );
    }
    let qp = "profile,lqpn,rqpn,fl,qp_type,flow_label,udp_sport\n";
    fails_with(
        &golden_check_stdin(&format!(
            "{qp}linux,0x12,0x34,0,rc,0x3a8,0xc3a8\nlinux,0xZZ,1,0,rc,0,0xc000\n"
        )),
        "line 3: column `lqpn`: `0xZZ` is not a number",
    );
    fails_with(
        &golden_check_stdin(&format!("{qp}linux,0x12,0x34,0,rc,0x3a8,nope\n")),
        "line 2: column `udp_sport`: `nope` is not a number",
    );
    fails_with(
        &golden_check_stdin(&format!("{qp}\nlinux,0x12,0x34\n")),
        "line 3: 3 field(s), but the header (line 1) has 7",
    );
    fails_with(
        &golden_check_stdin(&format!("{qp}mlx5,0x12,0x34,0,rc,0x3a8,0xc3a8\n")),
        "line 2: column `profile`: unknown profile `mlx5`",
    );
    fails_with(
        &golden_check_stdin(&format!("{qp}linux,0x12,0x34,0,xrc,0x3a8,0xc3a8\n")),
        "line 2: column `qp_type`",
    );
    fails_with(&golden_check_stdin(qp), "no rows to check");
    fails_with(&golden_check_stdin(""), "the input is empty");
    fails_with(
        &golden_check_stdin(
            "lqpn,rqpn,fl,qp_type,flow_label,udp_sport,udp_sport\n1,2,0,rc,0,0,0\n",
        ),
        "column `udp_sport` more than once",
    );
    fails_with(
        &rocenic(&["golden", "check", "/nonexistent/entropy-qp.csv"], ""),
        "cannot open /nonexistent/entropy-qp.csv",
    );
    let key = "6d5a56da";
    fails_with(
        &golden_check_stdin(&format!("key_hex,input_hex,hash\n{key},00,0x0\n")),
        "line 2: column `input_hex`: input of 1 bytes is longer than the 0 bytes",
    );
    let rss =
        "function,key_hex,fields,table_size,queues,table,frame_hex,hash,hash_type,queue,flags\n";
    fails_with(
        &golden_check_stdin(&format!(
            "{rss}toeplitz,{key},src-ipv4,4,2,0|1,00,0,none,0,none\n"
        )),
        "line 2: column `key_hex`: the fields select up to 4 bytes, but a 4-byte key covers 0",
    );
    fails_with(
        &golden_check_stdin(&format!(
            "{rss}xor,{key},src-ipv4,4,2,0|1,00,0,none,0,none\n"
        )),
        "line 2: column `table`: 2 entries, but table_size is 4",
    );
    fails_with(
        &golden_check_stdin(&format!(
            "{rss}xor,{key},src-ipv4,4,2,0|1|2|0,00,0,none,0,none\n"
        )),
        "line 2: column `table`",
    );
    fails_with(
        &golden_check_stdin(&format!("{rss}xor,{key},bogus,4,2,,00,0,none,0,none\n")),
        "line 2: column `fields`: unknown field `bogus`",
    );
    fails_with(
        &golden_check_stdin("frame_hex,icrc\n00112233,0x0\n"),
        "line 2: column `frame_hex`: not a RoCEv2 frame",
    );
    fails_with(
        &golden_check_stdin("index,mss,segments,bytes,digest\n0,100,1,1,00\n"),
        "needs --sends FILE",
    );
}

#[test]
fn tso_rows_follow_their_sends() {
    let dir = tempfile::tempdir().unwrap();
    export(dir.path(), &["--count", "4"]);
    let file = dir.path().join("tso.csv");
    let (header, rows) = read_csv(&file);
    let work = tempfile::tempdir().unwrap();
    let copy = work.path().join("tso.csv");
    // A subset of the rows checks clean; rows out of order, a send the pcap lacks, or no pcap
    // beside the file are bad input.
    write_csv(&copy, &header, &[rows[3].clone(), rows[7].clone()]);
    let sends = dir.path().join("tso-sends.pcap");
    let o = check(&copy, &["--sends", path(&sends)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    fails_with(&check(&copy, &[]), "tso-sends.pcap");
    write_csv(&copy, &header, &[rows[7].clone(), rows[3].clone()]);
    fails_with(
        &check(&copy, &["--sends", path(&sends)]),
        "line 3: column `index`: send 3 after send 7",
    );
    let mut far = rows[0].clone();
    far[0] = rows.len().to_string();
    write_csv(&copy, &header, &[far]);
    fails_with(
        &check(&copy, &["--sends", path(&sends)]),
        "line 2: column `index`",
    );
    let not_pcap = work.path().join("tso-sends.pcap");
    fs::write(&not_pcap, "not a pcap").unwrap();
    write_csv(&copy, &header, &rows[..1]);
    assert_eq!(check(&copy, &[]).status.code(), Some(2));
}

#[test]
fn export_refuses_a_file_and_replaces_old_sets() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    fs::write(&file, "x").unwrap();
    fails_with(
        &rocenic(&["golden", "export", "--out", path(&file)], ""),
        "exists and is not a directory",
    );
    fs::write(dir.path().join("entropy-qp.csv"), "stale\n").unwrap();
    fs::write(dir.path().join("notes.txt"), "mine\n").unwrap();
    export(dir.path(), &["--count", "1"]);
    assert!(fs::read_to_string(dir.path().join("entropy-qp.csv"))
        .unwrap()
        .starts_with("profile,lqpn,"));
    assert_eq!(
        fs::read_to_string(dir.path().join("notes.txt")).unwrap(),
        "mine\n"
    );
    let nested = dir.path().join("new/deeper");
    export(&nested, &["--count", "1"]);
    assert!(nested.join("manifest.json").exists());
    fails_with(
        &rocenic(
            &[
                "golden",
                "export",
                "--out",
                path(&nested),
                "--profile",
                "mlx5",
            ],
            "",
        ),
        "unknown profile",
    );
}

#[test]
fn a_manifest_of_another_format_is_refused_when_needed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("entropy-qp.csv");
    fs::write(
        &file,
        "lqpn,rqpn,fl,qp_type,flow_label,udp_sport\n0x12,0x34,0,rc,0x3a8,0xc3a8\n",
    )
    .unwrap();
    let manifest = dir.path().join("manifest.json");
    fs::write(
        &manifest,
        r#"{"format": "rocenic-golden/9", "profile": "linux"}"#,
    )
    .unwrap();
    fails_with(&check(&file, &[]), "format `rocenic-golden/9`");
    // --profile makes the manifest unneeded, so it is not read.
    assert_eq!(check(&file, &["--profile", "linux"]).status.code(), Some(0));
    fs::write(&manifest, "{ not json").unwrap();
    fails_with(&check(&file, &[]), "manifest.json");
    fs::write(
        &manifest,
        r#"{"format": "rocenic-golden/1", "profile": "mlx5"}"#,
    )
    .unwrap();
    fails_with(&check(&file, &[]), "unknown profile `mlx5`");
}
