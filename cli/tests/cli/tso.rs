//! `rocenic tso`: oversized TCP sends cut into segments, on the model and the RTL.

#[cfg(feature = "rtl")]
use crate::common::stderr;
use crate::common::{fails_with, pcap_file, rocenic};
#[cfg(feature = "rtl")]
use rocenic_model::wire::PcapReader;
use rocenic_model::wire::{LinkType, PcapWriter};
use std::process::Output;

/// An oversized TCP frame: Ethernet (optionally tagged) or IPoIB, IPv4 or IPv6, TCP with a
/// timestamp option, `len` payload bytes of a simple pattern.
pub fn tso_frame(ipoib: bool, vlan: bool, ipv4: bool, seq: u32, len: usize) -> Vec<u8> {
    let mut f = Vec::new();
    let ethertype: u16 = if ipv4 { 0x0800 } else { 0x86DD };
    if ipoib {
        f.extend_from_slice(&ethertype.to_be_bytes());
        f.extend_from_slice(&[0, 0]);
    } else {
        f.extend_from_slice(&[2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]);
        if vlan {
            f.extend_from_slice(&[0x81, 0x00, 0x00, 0x07]);
        }
        f.extend_from_slice(&ethertype.to_be_bytes());
    }
    if ipv4 {
        f.extend_from_slice(&[0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0]);
        f.extend_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
    } else {
        f.extend_from_slice(&[0x60, 0, 0, 0, 0, 0, 6, 64]);
        f.extend((0..32).map(|i| i as u8));
    }
    f.extend_from_slice(&[0x9C, 0x40, 0xC3, 0x50]);
    f.extend_from_slice(&seq.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0, 1, 0x80, 0x18, 1, 0, 0, 0, 0, 0]);
    f.extend_from_slice(&[1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
    f.extend((0..len).map(|i| (i * 7 + len) as u8));
    f
}

fn tso_run(input: &std::path::Path, output: &std::path::Path, mss: &str, engine: &str) -> Output {
    rocenic(
        &[
            "tso",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
            "--mss",
            mss,
            "--engine",
            engine,
        ],
        "",
    )
}

/// `--engine rtl` and `--engine model` write byte-identical pcaps; every segment checks out with
/// the model's checker and the payloads reassemble, for Ethernet (1) and IPoIB (242).
#[cfg(feature = "rtl")]
#[test]
fn tso_rtl_and_model_write_identical_files() {
    use rocenic_model::tso::verify_segment;
    let cases = [
        (
            LinkType::Ethernet,
            vec![(false, true), (true, true), (false, false)],
        ),
        (LinkType::Ipoib, vec![(false, true), (false, false)]),
    ];
    for (link, forms) in cases {
        let link_type = link.pcap();
        let mut frames = Vec::new();
        for (vlan, ipv4) in &forms {
            for len in [0usize, 1, 1448, 5000, 70_000] {
                frames.push(tso_frame(link == LinkType::Ipoib, *vlan, *ipv4, 1000, len));
            }
        }
        let input = pcap_file(&format!("tso-in-{link_type}"), link_type, &frames);
        let dir = std::env::temp_dir();
        let pid = std::process::id();
        for mss in ["1", "536", "1448", "9000"] {
            // MSS 1 over 70 KB sends would be 70,000 segments each: keep that one small.
            let (input, frames) = if mss == "1" {
                let small: Vec<Vec<u8>> =
                    frames.iter().filter(|f| f.len() < 2000).cloned().collect();
                (
                    pcap_file(&format!("tso-small-{link_type}"), link_type, &small),
                    small,
                )
            } else {
                (input.clone(), frames.clone())
            };
            let model = dir.join(format!("rocenic-{pid}-tso-model-{link_type}-{mss}.pcap"));
            let rtl = dir.join(format!("rocenic-{pid}-tso-rtl-{link_type}-{mss}.pcap"));
            let o = tso_run(&input, &model, mss, "model");
            assert!(o.status.success(), "{}", stderr(&o));
            let o = tso_run(&input, &rtl, mss, "rtl");
            assert!(o.status.success(), "{}", stderr(&o));
            let (m, r) = (std::fs::read(&model).unwrap(), std::fs::read(&rtl).unwrap());
            assert!(m == r, "link {link_type} MSS {mss}: engines differ");
            let reader = PcapReader::new(&m).unwrap();
            assert_eq!(reader.link_type(), link_type);
            let mss_n: usize = mss.parse().unwrap();
            let mut records = reader.records();
            for f in &frames {
                let layout = rocenic_model::tso::HeaderLayout::parse(link, f).unwrap();
                let payload = &f[layout.header_len..];
                let mut joined = Vec::new();
                for _ in 0..payload.len().div_ceil(mss_n).max(1) {
                    let seg = records.next().expect("a segment").unwrap();
                    let info = verify_segment(link, seg.data).unwrap();
                    assert!(info.payload.len() <= mss_n);
                    joined.extend_from_slice(info.payload);
                }
                assert_eq!(joined, payload);
            }
            assert!(records.next().is_none(), "no segment more");
        }
    }
}

/// A capture of more sends than one batch holds (256): the RTL engine keeps its segmenter from
/// batch to batch and still writes what the model writes.
#[cfg(feature = "rtl")]
#[test]
fn tso_rtl_runs_a_capture_in_batches() {
    let frames: Vec<Vec<u8>> = (0..600)
        .map(|i| {
            tso_frame(
                false,
                i % 3 == 0,
                i % 2 == 0,
                1000 * i as u32,
                (i * 37) % 2000,
            )
        })
        .collect();
    let input = pcap_file("tso-batches", LinkType::Ethernet.pcap(), &frames);
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let (model, rtl) = (
        dir.join(format!("rocenic-{pid}-tso-batches-model.pcap")),
        dir.join(format!("rocenic-{pid}-tso-batches-rtl.pcap")),
    );
    let o = tso_run(&input, &model, "700", "model");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = tso_run(&input, &rtl, "700", "rtl");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("600 packet(s) in"), "{}", stderr(&o));
    let (m, r) = (std::fs::read(&model).unwrap(), std::fs::read(&rtl).unwrap());
    assert!(m == r, "engines differ");
    let segments = PcapReader::new(&m).unwrap().records().count();
    let want: usize = (0..600)
        .map(|i| ((i * 37) % 2000usize).div_ceil(700).max(1))
        .sum();
    assert_eq!(segments, want);
    for f in [input, model, rtl] {
        std::fs::remove_file(f).unwrap();
    }
}

/// The engines that run `rocenic tso` in this build.
const TSO_ENGINES: &[&str] = if cfg!(feature = "rtl") {
    &["model", "rtl"]
} else {
    &["model"]
};

#[test]
fn tso_bad_input_is_named() {
    let dir = std::env::temp_dir();
    let out = dir.join(format!("rocenic-{}-tso-bad-out.pcap", std::process::id()));
    let mut udp = tso_frame(false, false, true, 0, 100);
    udp[23] = 17;
    let p = pcap_file("tso-udp", 1, &[tso_frame(false, false, true, 0, 3000), udp]);
    for engine in TSO_ENGINES {
        fails_with(&tso_run(&p, &out, "1448", engine), "packet 1");
        fails_with(&tso_run(&p, &out, "1448", engine), "not IPv4/IPv6 + TCP");
        // The MSS is an option: refused before any packet is read, on every engine.
        for mss in ["0", "9001"] {
            fails_with(
                &tso_run(&p, &out, mss, engine),
                "is not an MSS from 1 to 9000 bytes",
            );
        }
    }
    let ib = pcap_file("tso-ib", LinkType::Infiniband.pcap(), &[]);
    fails_with(&tso_run(&ib, &out, "1448", "model"), "link type 247");
    let text = dir.join(format!("rocenic-{}-tso-text.pcap", std::process::id()));
    std::fs::write(&text, "not a pcap").unwrap();
    for engine in TSO_ENGINES {
        fails_with(&tso_run(&text, &out, "1448", engine), "magic");
    }
    fails_with(
        &tso_run(
            std::path::Path::new("/nonexistent.pcap"),
            &out,
            "1448",
            "model",
        ),
        "cannot read",
    );
    // A record cut short by the capture's snap length.
    let mut cut = PcapWriter::with_header(Vec::new(), LinkType::Ethernet.pcap(), 100).unwrap();
    cut.write_cut_record((0, 0), &tso_frame(false, false, true, 0, 3000)[..100], 3000)
        .unwrap();
    let cut_path = dir.join(format!("rocenic-{}-tso-cut.pcap", std::process::id()));
    std::fs::write(&cut_path, cut.finish().unwrap()).unwrap();
    for engine in TSO_ENGINES {
        fails_with(
            &tso_run(&cut_path, &out, "1448", engine),
            "captured 100 of 3000",
        );
    }
}

/// The MSS is checked before the input is read: an empty capture does not hide a bad MSS.
#[test]
fn tso_mss_is_checked_before_the_input() {
    let input = pcap_file("tso-empty", LinkType::Ethernet.pcap(), &[]);
    let output =
        std::env::temp_dir().join(format!("rocenic-{}-tso-empty-out.pcap", std::process::id()));
    for mss in ["0", "9001", "x"] {
        let o = tso_run(&input, &output, mss, "model");
        fails_with(&o, "is not an MSS from 1 to 9000 bytes");
        assert!(!output.exists());
    }
    std::fs::remove_file(input).unwrap();
}
