//! pcapng captures (Wireshark's default) read as classic pcap ones: every capture command gives
//! the same output for the same packets in either format; and written, for an output named
//! `*.pcapng`.

use crate::common::{pcap_file, rocenic, stderr};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::DataLink;
use rocenic_model::wire::LinkType;
use std::time::Duration;

/// The frames as pcapng, one interface of `link` with nanosecond timestamps, packet i at
/// 1.000000i s (as `pcap_file` in tests/cli/common.rs stamps them all at 0, the classic file's
/// times differ: only commands whose output has no time are compared).
pub fn pcapng_file(name: &str, link: LinkType, frames: &[Vec<u8>]) -> std::path::PathBuf {
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    w.write_pcapng_block(InterfaceDescriptionBlock {
        linktype: DataLink::from(link.pcap()),
        snaplen: 0,
        options: vec![InterfaceDescriptionOption::IfTsResol(9)],
    })
    .unwrap();
    for (i, f) in frames.iter().enumerate() {
        w.write_pcapng_block(EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(1_000_000_000 + i as u64 * 1000),
            original_len: f.len() as u32,
            data: f.as_slice().into(),
            options: vec![],
        })
        .unwrap();
    }
    let path = std::env::temp_dir().join(format!("rocenic-{}-{name}.pcapng", std::process::id()));
    std::fs::write(&path, w.into_inner()).unwrap();
    path
}

#[test]
fn capture_commands_read_pcapng_as_pcap() {
    let frames: Vec<Vec<u8>> = (0..20)
        .map(|i| crate::rss::tcp4_frame([10, 0, 0, i], 1000 + u16::from(i), [10, 0, 1, 1], 80))
        .collect();
    let (classic, ng) = (
        pcap_file("ng-rss", LinkType::Ethernet.pcap(), &frames),
        pcapng_file("ng-rss", LinkType::Ethernet, &frames),
    );
    let run = |p: &std::path::Path| rocenic(&["rss", "--pcap", p.to_str().unwrap()], "");
    let (a, b) = (run(&classic), run(&ng));
    assert!(a.status.success() && b.status.success(), "{}", stderr(&b));
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stderr, b.stderr, "the histograms");

    // TSO keeps each send's time: the pcapng's nanoseconds come out as microseconds.
    let sends: Vec<Vec<u8>> = (0..5)
        .map(|i| crate::tso::tso_frame(false, false, true, 1, 1000 + 300 * i))
        .collect();
    let ng = pcapng_file("ng-tso", LinkType::Ethernet, &sends);
    let out = std::env::temp_dir().join(format!("rocenic-{}-ng-tso-out.pcap", std::process::id()));
    let o = rocenic(
        &[
            "tso",
            "-i",
            ng.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--mss",
            "500",
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    let reader = rocenic_model::wire::PcapReader::new(&bytes).unwrap();
    let stamps: Vec<(u32, u32)> = reader
        .records()
        .map(|r| r.map(|r| (r.ts_sec, r.ts_frac)).unwrap())
        .collect();
    let want: Vec<(u32, u32)> = (0..5u32)
        .flat_map(|i| std::iter::repeat_n((1, i), (1000 + 300 * i as usize).div_ceil(500)))
        .collect();
    assert_eq!(stamps, want);
    for p in [classic, ng, out] {
        std::fs::remove_file(p).unwrap();
    }
}

/// `send` and `tso` write pcapng for an output named `.pcapng`, `sim --pcapng` its wire: the same
/// frames as their classic pcap, which rocenic and tshark read back.
#[test]
fn pcapng_out_for_a_pcapng_name() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/examples/send.toml");
    let (classic, ng) = (dir.path().join("f.pcap"), dir.path().join("f.pcapng"));
    for out in [&classic, &ng] {
        let o = rocenic(
            &[
                "send",
                "--scenario",
                scenario,
                "--output",
                out.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let bytes = std::fs::read(&ng).unwrap();
    assert_eq!(
        &bytes[..4],
        &[0x0A, 0x0D, 0x0D, 0x0A],
        "a pcapng section header"
    );
    let icrc = |p: &std::path::Path| {
        let o = rocenic(&["icrc", "-i", p.to_str().unwrap()], "");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(icrc(&ng), icrc(&classic));
    assert!(icrc(&ng).lines().count() > 4);

    // TSO: pcapng in, pcapng out; the segments read back as packets of the same count.
    let frames: Vec<Vec<u8>> = (0..3)
        .map(|i| crate::tso::tso_frame(false, false, true, i, 4000))
        .collect();
    let input = pcapng_file("tso-ng-in", LinkType::Ethernet, &frames);
    let segments = dir.path().join("segments.pcapng");
    // `rocenic tso` at MSS 1000 from one file to another; its standard error.
    let tso = |from: &std::path::Path, to: &std::path::Path| {
        let (from, to) = (from.to_str().unwrap(), to.to_str().unwrap());
        stderr(&rocenic(
            &["tso", "-i", from, "-o", to, "--mss", "1000"],
            "",
        ))
    };
    let said = tso(&input, &segments);
    assert!(said.contains("3 packet(s) in, 12 segment(s) out"), "{said}");
    let said = tso(&segments, &dir.path().join("again.pcap"));
    assert!(
        said.contains("12 packet(s) in, 12 segment(s) out"),
        "{said}"
    );
    std::fs::remove_file(input).unwrap();

    // tshark, where it is installed, reads the pcapng with nanosecond stamps.
    if let Ok(t) = std::process::Command::new("tshark")
        .args([
            "-r",
            ng.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "frame.time_epoch",
            "-c",
            "2",
        ])
        .output()
    {
        assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
        let times = String::from_utf8(t.stdout).unwrap();
        assert_eq!(times.lines().nth(1), Some("0.000001000"), "{times}");
    }
}
