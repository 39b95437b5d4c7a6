//! The exported vectors agree with the commands that compute the same things one at a time, and
//! the TSO segments pass the independent segment checker.

use super::{export, path, read_csv, seed};
use crate::common::{pcap_file, rocenic, stderr, stdout};
use rocenic_model::golden::sets;
use rocenic_model::tso::verify_segment;
use rocenic_model::wire::{LinkType, PcapReader};
use sha2::{Digest, Sha256};
use std::fs;

/// The vectors agree with the commands that compute the same things one at a time, and the TSO
/// segments pass the independent segment checker.
#[test]
fn vectors_agree_with_the_single_commands() {
    let seed = seed("single_commands").to_string();
    let dir = tempfile::tempdir().unwrap();
    export(
        dir.path(),
        &["--seed", &seed, "--count", "24", "--profile", "rfc-v2"],
    );
    let d = dir.path();

    // rocenic entropy on the input columns gives the expected ones.
    for (set, mode, inputs) in [
        (&sets::ENTROPY_QP, "qp", 1..5),
        (&sets::ENTROPY_CM, "cm", 1..6),
    ] {
        let (header, rows) = read_csv(&d.join(set.file));
        let mut text = header[inputs.clone()].join(",") + "\n";
        for r in &rows {
            text += &(r[inputs.clone()].join(",") + "\n");
        }
        let o = rocenic(&["entropy", "--mode", mode, "--profile", "rfc-v2"], &text);
        assert!(o.status.success(), "{}", stderr(&o));
        let got: Vec<String> = stdout(&o).lines().skip(1).map(String::from).collect();
        let want: Vec<String> = rows
            .iter()
            .map(|r| {
                r[inputs.clone()]
                    .iter()
                    .chain(&r[r.len() - 2..])
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        assert_eq!(got, want, "{}", set.name);
    }

    // rocenic toeplitz.
    let (_, rows) = read_csv(&d.join("toeplitz.csv"));
    let text = rows.iter().fold("key_hex,input_hex\n".to_string(), |t, r| {
        t + &r[0] + "," + &r[1] + "\n"
    });
    let o = rocenic(&["toeplitz"], &text);
    let hashes: Vec<String> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().into())
        .collect();
    assert_eq!(
        hashes,
        rows.iter().map(|r| r[2].clone()).collect::<Vec<_>>()
    );

    // rocenic icrc on the frames, as a pcap.
    let (_, rows) = read_csv(&d.join("icrc.csv"));
    let frames: Vec<Vec<u8>> = rows.iter().map(|r| hex(&r[0])).collect();
    let pcap = pcap_file("golden-icrc", 1, &frames);
    let o = rocenic(&["icrc", path(&pcap)], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let computed: Vec<String> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().into())
        .collect();
    assert_eq!(
        computed,
        rows.iter().map(|r| r[1].clone()).collect::<Vec<_>>()
    );
    fs::remove_file(pcap).unwrap();

    // rocenic rss on the rows of the first context (the CLI's defaults: the Microsoft key,
    // addresses and ports, 128 entries, 4 queues).
    let (_, rows) = read_csv(&d.join("rss.csv"));
    let default: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r[1] == hex_string(&rocenic_model::toeplitz::MICROSOFT_KEY) && r[3] == "128" && r[4] == "4" && r[5].is_empty() && r[0] == "toeplitz" && r[2] == "src-ipv4|dst-ipv4|src-ipv6|dst-ipv6|src-port-tcp|dst-port-tcp|src-port-udp|dst-port-udp")
        .collect();
    assert!(default.len() >= 20);
    let frames: Vec<Vec<u8>> = default.iter().map(|r| hex(&r[6])).collect();
    let pcap = pcap_file("golden-rss", 1, &frames);
    let o = rocenic(&["rss", "--pcap", path(&pcap)], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got: Vec<String> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.into())
        .collect();
    let want: Vec<String> = default
        .iter()
        .map(|r| format!("{},{},{}", r[7], r[9], r[10]))
        .collect();
    assert_eq!(got, want);
    fs::remove_file(pcap).unwrap();

    // Every expected segment passes verify_segment, carries its send's payload in order, and
    // the rows' counts and digests are those of tso-segments.pcap.
    let sends = fs::read(d.join("tso-sends.pcap")).unwrap();
    let segments = fs::read(d.join("tso-segments.pcap")).unwrap();
    let sends = PcapReader::new(&sends).unwrap();
    let segments = PcapReader::new(&segments).unwrap();
    let mut segments = segments.records().map(Result::unwrap).peekable();
    let (_, rows) = read_csv(&d.join("tso.csv"));
    for (row, send) in rows.iter().zip(sends.records().map(Result::unwrap)) {
        let index: u32 = row[0].parse().unwrap();
        let (mut n, mut bytes, mut digest, mut payload) = (0u64, 0u64, Sha256::new(), Vec::new());
        while let Some(seg) = segments.next_if(|s| s.ts_sec == index) {
            let info = verify_segment(LinkType::Ethernet, seg.data).unwrap();
            assert!(info.payload.len() <= row[1].parse().unwrap());
            payload.extend_from_slice(info.payload);
            digest.update(seg.data);
            bytes += seg.data.len() as u64;
            n += 1;
        }
        assert!(
            send.data.ends_with(&payload),
            "send {index}: payload not kept in order"
        );
        assert_eq!(
            [
                n.to_string(),
                bytes.to_string(),
                hex_string(&digest.finalize())
            ],
            row[2..5],
            "send {index}"
        );
    }
    assert!(segments.next().is_none());
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn hex_string(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
