//! A run that fails part-way never leaves output that looks complete: a file given with
//! `--output` is written only on success (the old one stays as it was), what came before the
//! failure is kept in `FILE.part`, and on standard output the rows computed before the failure
//! come out, with the error saying where it stopped.

use crate::common::{fails_with, pcap_file, rocenic, stderr, stdout};
use rocenic_model::wire::pcap::record_header;
use rocenic_model::wire::LinkType;

fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A CSV command with `--output` that meets a bad row leaves the old file, and the rows before
/// the bad one in `out.csv.part`.
#[test]
fn a_failed_csv_run_leaves_the_output_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    std::fs::write(&out, "previous\n").unwrap();
    let o = rocenic(
        &["entropy", "--output", out.to_str().unwrap()],
        "lqpn,rqpn\n1,2\nzz,3\n",
    );
    fails_with(&o, "line 3: column `lqpn`");
    assert!(stderr(&o).contains("was not written"), "{}", stderr(&o));
    assert!(stderr(&o).contains("out.csv.part"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous\n");
    assert_eq!(files_in(dir.path()), ["out.csv", "out.csv.part"]);
    let part = std::fs::read_to_string(dir.path().join("out.csv.part")).unwrap();
    let rows: Vec<&str> = part.lines().collect();
    assert_eq!(rows.len(), 2, "the header and the good row: {part}");
    assert!(rows[0].starts_with("lqpn,rqpn,flow_label") && rows[1].starts_with("1,2,"));
    // The same input without the bad row replaces it.
    let o = rocenic(
        &["entropy", "--output", out.to_str().unwrap()],
        "lqpn,rqpn\n1,2\n",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("lqpn,rqpn,flow_label"));
    assert_eq!(files_in(dir.path()), ["out.csv"]);
}

/// `tso` refusing a packet part-way writes no output pcap; the segments of the packets before
/// it are in `segments.pcap.part`.
#[test]
fn a_failed_tso_run_writes_no_pcap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("segments.pcap");
    // The second packet is not TCP: the run stops there.
    let input = pcap_file(
        "partial-tso",
        LinkType::Ethernet.pcap(),
        &[
            crate::tso::tso_frame(false, false, true, 1, 3000),
            vec![0u8; 60],
        ],
    );
    let o = rocenic(
        &[
            "tso",
            "-i",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--mss",
            "1000",
        ],
        "",
    );
    fails_with(&o, "packet 1:");
    assert!(stderr(&o).contains("was not written"), "{}", stderr(&o));
    assert_eq!(files_in(dir.path()), ["segments.pcap.part"]);
    let part = std::fs::read(dir.path().join("segments.pcap.part")).unwrap();
    // The pcap header and the first packet's three segments (3000 bytes at MSS 1000).
    let records = rocenic_model::wire::PcapReader::new(&part)
        .unwrap()
        .records()
        .count();
    assert_eq!(records, 3);
    std::fs::remove_file(input).unwrap();
}

/// `rss` on a capture cut in its third record prints the first two rows, then says where it
/// stopped.
#[test]
fn rss_prints_the_rows_before_a_cut_record() {
    let frame = crate::rss::tcp4_frame([10, 0, 0, 1], 1, [10, 0, 0, 2], 2);
    let path = pcap_file(
        "partial-rss",
        LinkType::Ethernet.pcap(),
        &[frame.clone(), frame.clone()],
    );
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&record_header(0, 0, 100, 100));
    bytes.extend_from_slice(&[0; 10]);
    std::fs::write(&path, &bytes).unwrap();
    let o = rocenic(&["rss", "--pcap", path.to_str().unwrap()], "");
    fails_with(&o, "frame 2: truncated");
    assert!(
        stderr(&o).contains("stopped after 3 line(s) of output"),
        "{}",
        stderr(&o)
    );
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(rows, ["index", "0", "1"]);
    std::fs::remove_file(path).unwrap();
}

/// A record whose length field claims gigabytes is refused without reading or allocating it.
#[test]
fn a_huge_record_length_is_refused() {
    let path = pcap_file("huge-record", LinkType::Ethernet.pcap(), &[]);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(&record_header(0, 0, u32::MAX, u32::MAX));
    std::fs::write(&path, &bytes).unwrap();
    for args in [
        vec!["icrc", path.to_str().unwrap()],
        vec!["rss", "--pcap", path.to_str().unwrap()],
    ] {
        fails_with(
            &rocenic(&args, ""),
            "frame 0: the record declares 4294967295 captured bytes, more than the 262144",
        );
    }
    std::fs::remove_file(path).unwrap();
}

/// An output in a directory that does not exist is named, not the temporary file beside it.
#[test]
fn an_output_that_cannot_be_created_is_named() {
    let o = rocenic(
        &["entropy", "--output", "/nonexistent/out.csv"],
        "lqpn,rqpn\n1,2\n",
    );
    fails_with(
        &o,
        "cannot create /nonexistent/out.csv: No such file or directory",
    );
    assert!(!stderr(&o).contains(".part"), "{}", stderr(&o));
}
