//! pcapng captures (Wireshark's default) read as classic pcap ones: every capture command gives
//! the same output for the same packets in either format.

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
