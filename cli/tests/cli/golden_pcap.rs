//! `rocenic golden check-pcap`: generated captures per profile, planted faults, bad input and
//! public frames captured from real hardware.

use crate::common::{fails_with, pcap_file, rocenic, stderr, stdout};
use rocenic_model::entropy::{cm_flow_label_linux, cm_flow_label_rfc_v2, Profile, QpType, Request};
use rocenic_model::wire::{icrc_fill, LinkType};
use std::path::{Path, PathBuf};

/// One RoCEv2 frame to build.
#[derive(Clone, Copy)]
struct Spec {
    ipv6: bool,
    vlan: bool,
    /// Last byte of the source address (the destination's is 200).
    host: u8,
    sport: u16,
    /// The IPv6 flow label (ignored over IPv4).
    label: u32,
    opcode: u8,
    dst_qp: u32,
    /// The DETH's source QP, for UD opcodes.
    src_qp: u32,
}

const UD_SEND: u8 = 0x64;
const RC_SEND: u8 = 0x04;
const CNP: u8 = 0x81;

fn spec(ipv6: bool, opcode: u8, src_qp: u32, dst_qp: u32, sport: u16, label: u32) -> Spec {
    Spec {
        ipv6,
        vlan: false,
        host: 1,
        sport,
        label,
        opcode,
        dst_qp,
        src_qp,
    }
}

/// An Ethernet frame with a correct ICRC.
fn frame(s: &Spec) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, s.host];
    if s.vlan {
        f.extend_from_slice(&[0x81, 0x00, 0x60, 0x05]);
    }
    let deth = if s.opcode & 0xE0 == 0x60 { 8 } else { 0 };
    let udp_len = 8 + 12 + deth + 8 + 4;
    if s.ipv6 {
        f.extend_from_slice(&[0x86, 0xDD]);
        f.extend_from_slice(&(0x6000_0000 | (s.label & 0xF_FFFF)).to_be_bytes());
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[17, 64]);
        for last in [s.host, 200] {
            f.extend_from_slice(&[0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last]);
        }
    } else {
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0x00]);
        f.extend_from_slice(&((20 + udp_len) as u16).to_be_bytes());
        f.extend_from_slice(&[0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, s.host, 10, 0, 0, 200]);
    }
    f.extend_from_slice(&s.sport.to_be_bytes());
    f.extend_from_slice(&4791u16.to_be_bytes());
    f.extend_from_slice(&(udp_len as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&[s.opcode, 0, 0xFF, 0xFF, 0]);
    f.extend_from_slice(&s.dst_qp.to_be_bytes()[1..]);
    f.extend_from_slice(&[0, 0, 0, 7]);
    if deth > 0 {
        f.extend_from_slice(&[0x11, 0x11, 0x11, 0x11, 0]);
        f.extend_from_slice(&s.src_qp.to_be_bytes()[1..]);
    }
    f.extend_from_slice(b"payload!");
    f.extend_from_slice(&[0; 4]);
    icrc_fill(&mut f).expect("a RoCEv2 frame");
    f
}

/// A file in the temporary directory, named for this run.
fn temp(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("rocenic-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs check-pcap; the CSV rows, each split into its columns (header checked and dropped).
fn check(pcap: &Path, extra: &[&str]) -> (std::process::Output, Vec<Vec<String>>) {
    let mut args = vec!["golden", "check-pcap", pcap.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = rocenic(&args, "");
    let text = stdout(&o);
    let mut lines = text.lines();
    let rows = match lines.next() {
        Some(header) => {
            assert_eq!(
                header,
                "flow,frames,src_ip,dst_ip,src_qp,dst_qp,udp_sport,flow_label,icrc_bad,profiles,verdict"
            );
            lines
                .map(|l| l.split(',').map(String::from).collect())
                .collect()
        }
        None => Vec::new(),
    };
    (o, rows)
}

// Column indices.
const FRAMES: usize = 1;
const SRC_QP: usize = 4;
const DST_QP: usize = 5;
const SPORT: usize = 6;
const LABEL: usize = 7;
const ICRC_BAD: usize = 8;
const PROFILES: usize = 9;
const VERDICT: usize = 10;

/// Flows whose profile sets were worked out from docs/reference.md §1 apart from this code:
/// (frame, QP map line, expected `profiles`).
fn worked() -> Vec<(Spec, Option<&'static str>, &'static str)> {
    vec![
        // linux, QPNs 0x12 -> 0x34: label 0x3A8, port 0xC3A8; UD carries the source QP.
        (
            spec(false, UD_SEND, 0x12, 0x34, 0xC3A8, 0),
            None,
            "linux|rfc-v2",
        ),
        (
            spec(true, UD_SEND, 0x12, 0x34, 0xC3A8, 0x3A8),
            None,
            "linux|rfc-v2",
        ),
        // rfc-v1 RC: fold(1) ^ fold(2) = 3.
        (
            spec(false, RC_SEND, 0, 2, 0xC003, 0),
            Some("1,2,"),
            "rfc-v1",
        ),
        // rxe: 0xC000 + hash_32(0x11, 14) = 0xDF94.
        (
            spec(false, RC_SEND, 0, 0x11, 0xDF94, 0),
            Some("0x11,0x11,"),
            "rxe",
        ),
        // The application's label 0xABCDE gives port 0xFCF4: on the wire over IPv6, ...
        (
            spec(true, RC_SEND, 0, 0x35, 0xFCF4, 0xABCDE),
            Some("0x12,0x35,"),
            "linux|rfc-v2",
        ),
        // ... from the map over IPv4, and without it nothing explains the port.
        (
            spec(false, RC_SEND, 0, 0x36, 0xFCF4, 0),
            Some("0x12,0x36,0xabcde"),
            "linux|rfc-v2",
        ),
        (
            spec(false, RC_SEND, 0, 0x37, 0xFCF4, 0),
            Some("0x12,0x37,"),
            "none",
        ),
        // The CM's label for ports 18515 -> 4791 is 0x8D4C4, port 0xD4E7: IPv6, then IPv4 + map.
        (
            spec(true, RC_SEND, 0, 0x38, 0xD4E7, 0x8D4C4),
            Some("0x12,0x38,"),
            "linux|rfc-v2",
        ),
        (
            spec(false, RC_SEND, 0, 0x39, 0xD4E7, 0),
            Some("0x12,0x39,0x8d4c4"),
            "linux|rfc-v2",
        ),
    ]
}

#[test]
fn worked_flows_give_their_profiles() {
    let cases = worked();
    // Every flow twice, interleaved, one of them VLAN-tagged: rows keep first-appearance order.
    let mut frames: Vec<Vec<u8>> = cases.iter().map(|c| frame(&c.0)).collect();
    for c in &cases {
        frames.push(frame(&Spec { vlan: true, ..c.0 }));
    }
    let pcap = pcap_file("golden-worked", 1, &frames);
    let mut map = String::from("src_qpn,dst_qpn,fl\n");
    for line in cases.iter().filter_map(|c| c.1) {
        map += line;
        map += "\n";
    }
    let map = temp("worked-map.csv", &map);
    let (o, rows) = check(&pcap, &["--qp-map", map.to_str().unwrap()]);
    // Flow 6 (the IPv4 label with no map label) is a mismatch under linux.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(rows.len(), cases.len());
    for (i, (row, (s, _, want))) in rows.iter().zip(&cases).enumerate() {
        assert_eq!(row[0], i.to_string());
        assert_eq!(row[FRAMES], "2");
        assert_eq!(row[DST_QP], format!("{:#08x}", s.dst_qp));
        assert_eq!(row[SPORT], format!("{:#06x}", s.sport));
        assert_eq!(row[ICRC_BAD], "0");
        assert_eq!(row[PROFILES], *want, "flow {i}");
        let verdict = if want.contains("linux") {
            "match"
        } else {
            "mismatch"
        };
        assert_eq!(row[VERDICT], verdict, "flow {i}");
        if s.ipv6 {
            assert_eq!(row[LABEL], format!("{:#07x}", s.label));
            assert_eq!(row[2], "fd00::1");
        } else {
            assert_eq!(row[LABEL], "");
            assert_eq!(row[2], "10.0.0.1");
        }
    }
    assert_eq!(rows[0][SRC_QP], "0x000012", "UD: the DETH's source QP");
    assert_eq!(rows[2][SRC_QP], "0x000001", "RC: the map's");
    let err = stderr(&o);
    assert!(
        err.contains("18 frame(s), 18 RoCEv2 in 9 flow(s): 6 match, 3 mismatch, 0 unknown (profile linux); 0 bad ICRC"),
        "{err}"
    );
    // Under rfc-v1 only flow 2 matches.
    let (o, rows) = check(
        &pcap,
        &["--qp-map", map.to_str().unwrap(), "--profile", "rfc-v1"],
    );
    assert_eq!(o.status.code(), Some(1));
    let matched: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i][VERDICT] == "match")
        .collect();
    assert_eq!(matched, [2]);
    for f in [pcap, map] {
        std::fs::remove_file(f).unwrap();
    }
}

/// A seed for the random flows: `ROCENIC_SEED` or the clock, printed so a failure replays.
fn seed() -> u64 {
    let seed = std::env::var("ROCENIC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("golden_pcap: seed {seed} (replay with ROCENIC_SEED={seed})");
    seed
}

/// splitmix64.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn flows_generated_per_profile_match_it() {
    let mut rng = seed();
    for p in Profile::ALL {
        let mut frames = Vec::new();
        let mut map = String::from("src_qpn,dst_qpn,fl\n");
        for i in 0..48u32 {
            let ipv6 = next(&mut rng).is_multiple_of(2);
            let ud = i % 3 == 0;
            // Distinct destinations, so that every map line is one flow's.
            let dst = (i << 16) | (next(&mut rng) as u32 & 0xFFFF);
            let src = next(&mut rng) as u32 & 0xFF_FFFF;
            let app = match next(&mut rng) % 3 {
                0 => next(&mut rng) as u32 & 0xF_FFFF,
                _ => 0,
            };
            // A sixth of the linux and rfc-v2 flows are CM connections.
            let cm = i % 6 == 1 && matches!(p, Profile::Linux | Profile::RfcV2);
            let request = if cm {
                let (sp, dp) = (next(&mut rng) as u16, next(&mut rng) as u16);
                Request::Cm {
                    src_port: sp,
                    dst_port: dp,
                    flowinfo: 0,
                    lqpn: src,
                    rqpn: dst,
                }
            } else {
                Request::Qp {
                    lqpn: src,
                    rqpn: dst,
                    flow_label: app,
                    qp_type: if ud { QpType::Ud } else { QpType::Rc },
                }
            };
            let e = p.compute(&request);
            // Over IPv4 the label is not on the wire: the map gives the application's or the CM's.
            let av_label = match request {
                Request::Cm {
                    src_port, dst_port, ..
                } if p == Profile::Linux => cm_flow_label_linux(src_port, dst_port),
                Request::Cm {
                    src_port, dst_port, ..
                } => cm_flow_label_rfc_v2(src_port, dst_port),
                _ => app,
            };
            let fl = if !ipv6 && av_label != 0 {
                format!("{av_label:#x}")
            } else {
                String::new()
            };
            let opcode = if ud && !cm { UD_SEND } else { RC_SEND };
            if opcode == RC_SEND || !fl.is_empty() {
                map += &format!("{src:#x},{dst:#x},{fl}\n");
            }
            let s = Spec {
                host: (i % 5) as u8 + 1,
                ..spec(ipv6, opcode, src, dst, e.udp_sport, e.flow_label)
            };
            frames.push(frame(&s));
        }
        let pcap = pcap_file(&format!("golden-gen-{p}"), 1, &frames);
        let map = temp(&format!("gen-map-{p}.csv"), &map);
        let (o, rows) = check(
            &pcap,
            &["--qp-map", map.to_str().unwrap(), "--profile", p.name()],
        );
        assert_eq!(o.status.code(), Some(0), "{p}: {}", stderr(&o));
        assert_eq!(rows.len(), frames.len());
        for row in &rows {
            let ctx = format!("{p}: {}", row.join(","));
            assert_eq!(row[VERDICT], "match", "{ctx}");
            let set: Vec<&str> = row[PROFILES].split('|').collect();
            assert!(set.contains(&p.name()), "{ctx}");
            assert_eq!(set.contains(&"linux"), set.contains(&"rfc-v2"), "{ctx}");
        }
        for f in [pcap, map] {
            std::fs::remove_file(f).unwrap();
        }
    }
}

#[test]
fn planted_faults_are_found() {
    // linux, 0x12 -> 0x34 (port 0xC3A8), three frames; a second flow 0x12 -> 0x99 whose
    // destination the map does not list.
    let good = spec(false, UD_SEND, 0x12, 0x34, 0xC3A8, 0);
    let rc = spec(false, RC_SEND, 0, 0x99, 0xC3A8, 0);
    let frames = vec![frame(&good), frame(&good), frame(&good), frame(&rc)];
    let map = temp("faults-map.csv", "src_qpn,dst_qpn\n0x12,0x34\n");
    let pcap = pcap_file("golden-faults", 1, &frames);
    let map_arg = ["--qp-map", map.to_str().unwrap()];

    let (o, rows) = check(&pcap, &map_arg);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows[0][VERDICT], "match");
    assert_eq!(rows[0][FRAMES], "3");
    // The QP missing from the map: unknown, named on standard error, not a failure.
    assert_eq!(rows[1][SRC_QP], "");
    assert_eq!(rows[1][PROFILES], "");
    assert_eq!(rows[1][VERDICT], "unknown");
    assert!(
        stderr(&o).contains("the --qp-map does not list destination QP 0x000099"),
        "{}",
        stderr(&o)
    );

    // A wrong profile.
    let (o, rows) = check(&pcap, &["--profile", "rfc-v1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(rows[0][PROFILES], "linux|rfc-v2");
    assert_eq!(rows[0][VERDICT], "mismatch");
    assert!(stderr(&o).contains("0 match, 1 mismatch, 1 unknown (profile rfc-v1)"));

    // A wrong port: the sender followed no profile.
    let off = Spec {
        sport: 0xC3A9,
        ..good
    };
    let p2 = pcap_file("golden-offport", 1, &[frame(&off)]);
    let (o, rows) = check(&p2, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(rows[0][PROFILES], "none");
    assert_eq!(rows[0][VERDICT], "mismatch");

    // A flow whose second frame shows another label: no profile explains both frames.
    let v6 = spec(true, UD_SEND, 0x12, 0x34, 0xC3A8, 0x3A8);
    let p4 = pcap_file(
        "golden-varies",
        1,
        &[frame(&v6), frame(&Spec { label: 0x3A9, ..v6 })],
    );
    let (o, rows) = check(&p4, &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0][LABEL], "0x003a8", "the first frame's");
    assert_eq!(rows[0][PROFILES], "none");
    assert!(
        stderr(&o)
            .contains("1 flow(s) whose frames do not all show the same source QP and flow label"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(p4).unwrap();

    // A flipped ICRC byte in the second frame.
    let mut bad = frames.clone();
    let n = bad[1].len();
    bad[1][n - 2] ^= 0x01;
    let p3 = pcap_file("golden-badicrc", 1, &bad);
    let (o, rows) = check(&p3, &map_arg);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(rows[0][ICRC_BAD], "1");
    assert_eq!(rows[0][VERDICT], "match", "the entropy is still right");
    assert!(stderr(&o).contains("; 1 bad ICRC"), "{}", stderr(&o));
    for f in [pcap, map, p2, p3] {
        std::fs::remove_file(f).unwrap();
    }
}

#[test]
fn cnps_and_other_frames() {
    let cnp = spec(false, CNP, 0, 0x34, 0, 0);
    let good = spec(true, UD_SEND, 0x12, 0x34, 0xC3A8, 0x3A8);
    let mut arp = vec![0xFF; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    // UDP to another port is not RoCEv2.
    let mut vxlan = frame(&good);
    vxlan[14 + 40 + 2..14 + 40 + 4].copy_from_slice(&4789u16.to_be_bytes());
    // A RoCEv2 frame whose UDP length disagrees with IPv6's: named, skipped.
    let mut broken = frame(&good);
    broken[14 + 40 + 5] ^= 0x04;
    let frames = vec![arp, frame(&cnp), vxlan, frame(&good), broken, frame(&cnp)];
    let pcap = pcap_file("golden-mixed", 1, &frames);
    let (o, rows) = check(&pcap, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][FRAMES], "2");
    assert_eq!(rows[0][SPORT], "0x0000");
    assert_eq!(rows[0][PROFILES], "");
    assert_eq!(rows[0][VERDICT], "unknown");
    assert_eq!(rows[1][VERDICT], "match");
    let err = stderr(&o);
    assert!(
        err.contains("frame 4 is RoCEv2 but cannot be checked: malformed"),
        "{err}"
    );
    assert!(err.contains("carry no entropy of their own"), "{err}");
    assert!(
        err.contains("6 frame(s), 3 RoCEv2 in 2 flow(s): 1 match, 0 mismatch, 1 unknown (profile linux); 0 bad ICRC; 2 not RoCEv2, skipped; 1 RoCEv2 frame(s) unreadable, skipped"),
        "{err}"
    );
    std::fs::remove_file(pcap).unwrap();
}

#[test]
fn bad_input_is_named() {
    let good = frame(&spec(false, UD_SEND, 0x12, 0x34, 0xC3A8, 0));
    let pcap = pcap_file("golden-bad", 1, &[good.clone(), good]);
    let run = |args: &[&str]| {
        let mut all = vec!["golden", "check-pcap"];
        all.extend_from_slice(args);
        rocenic(&all, "")
    };
    let p = pcap.to_str().unwrap();

    let text = temp("golden-text.pcap", "hello, world\n");
    fails_with(&run(&[text.to_str().unwrap()]), "magic");
    fails_with(&run(&["/nonexistent.pcap"]), "cannot read");
    let ib = pcap_file("golden-ib", LinkType::Infiniband.pcap(), &[]);
    fails_with(&run(&[ib.to_str().unwrap()]), "link type 247");
    fails_with(&run(&[p, "--profile", "mlx5"]), "unknown profile `mlx5`");

    // A pcap cut short inside its second record.
    let cut = temp("golden-cut.pcap", "");
    let bytes = std::fs::read(&pcap).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let o = run(&[cut.to_str().unwrap()]);
    fails_with(&o, "frame 1");
    assert_eq!(
        stdout(&o),
        "",
        "no rows from a capture that could not be read"
    );

    // Malformed maps, each named with its line.
    let maps = [
        ("src_qpn,dst_qpn\n1,2\n3,x\n", "line 3: column `dst_qpn`"),
        (
            "src_qpn,dst_qpn\n1,2\n0x1000000,3\n",
            "line 3: column `src_qpn`",
        ),
        (
            "src_qpn,dst_qpn,fl\n1,2,0x100000000\n",
            "line 2: column `fl`",
        ),
        (
            "src_qpn,dst_qpn\n1,0x34\n\n2,52\n",
            "line 4: dst_qpn 0x000034 is listed twice (first on line 2)",
        ),
        ("src_qpn,fl\n1,2\n", "missing column `dst_qpn`"),
        ("src_qpn,dst_qpn\n1,2,3\n", "line 2: 3 field(s)"),
        ("", "the input is empty"),
    ];
    for (i, (text, needle)) in maps.iter().enumerate() {
        let m = temp(&format!("golden-map-{i}.csv"), text);
        let o = run(&[p, "--qp-map", m.to_str().unwrap()]);
        fails_with(&o, needle);
        assert!(stderr(&o).contains(m.to_str().unwrap()), "{}", stderr(&o));
        std::fs::remove_file(m).unwrap();
    }
    fails_with(&run(&[p, "--qp-map", "/nonexistent.csv"]), "cannot open");

    // A frame the snap length cut short is named and skipped.
    let mut snap = rocenic_model::wire::PcapWriter::with_header(Vec::new(), 1, 65535).unwrap();
    let whole = frame(&spec(false, UD_SEND, 0x12, 0x34, 0xC3A8, 0));
    snap.write_cut_record((0, 0), &whole[..60], whole.len() as u32)
        .unwrap();
    let snapped = temp("golden-snap.pcap", "");
    std::fs::write(&snapped, snap.finish().unwrap()).unwrap();
    let o = run(&[snapped.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("frame 0 is RoCEv2 but cannot be checked: captured 60 of 74 bytes"));
    for f in [pcap, text, ib, cut, snapped] {
        std::fs::remove_file(f).unwrap();
    }
}

/// Public frames captured from real hardware or written by independent tools.
mod real {
    /// A CNP captured on a ConnectX-4 Lx (Scapy's `test/contrib/roce.uts`): UDP source port 0,
    /// ICRC written by the hardware (wire bytes 82 fd 00 2a).
    pub const CX4_CNP: &str = "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161\
        0a0011010a001201000012b7002800008100ffff400001180000000000000000000000000000\
        00000000000082fd002a";
    /// The UC SEND Only example of Scapy's `test/contrib/roce.uts` (ICRC 78 f3 53 f3, UDP
    /// checksum 0xaca2, IP checksum 0xb4d5), as `model/tests/wire/icrc.rs` builds it.
    pub const SCAPY_UC_SEND: &str = "248a07a8fa22248a07a8fa22080045010040047840004011b4d5\
        c0a80007c0a80007c00012b7002caca22460ffff000000d300cf17104630818be28935d90e9a95\
        505401be885e50000078f353f3";
    /// A soft-RoCE RC RDMA READ Request, PcapPlusPlus's test data
    /// `Tests/Packet++Test/PacketExamples/InfiniBandPacket.dat` (commit bc7f7b6d): QP 0x11,
    /// UDP source port 57236 (0xdf94), ICRC wire bytes 08 c6 15 4a.
    pub const RXE_RDMA_READ: &str = "000c29ae1ca4000c2989a2e508004500003cbe10400040118a4b\
        c0a83881c0a83883df9412b7002800000c00ffff000000118054cb6300007fee260fb000000002b8\
        0001000008c6154a";

    pub fn bytes(hex: &str) -> Vec<u8> {
        let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits
            .chunks(2)
            .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
            .collect()
    }
}

#[test]
fn real_frames() {
    let frames: Vec<Vec<u8>> = [real::CX4_CNP, real::SCAPY_UC_SEND, real::RXE_RDMA_READ]
        .iter()
        .map(|h| real::bytes(h))
        .collect();
    let pcap = pcap_file("golden-real", 1, &frames);
    // Without a map only the ICRCs can be checked: all good.
    let (o, rows) = check(&pcap, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv: Vec<String> = rows.iter().map(|r| r.join(",")).collect();
    assert_eq!(
        csv,
        [
            "0,1,10.0.17.1,10.0.18.1,,0x000118,0x0000,,0,,unknown",
            "1,1,192.168.0.7,192.168.0.7,,0x0000d3,0xc000,,0,,unknown",
            "2,1,192.168.56.129,192.168.56.131,,0x000011,0xdf94,,0,,unknown",
        ]
    );
    // The capture does not say who sent the RDMA READ; with the sender's QP taken to be 0x11,
    // as the destination's is (an assumption), its port is rxe's hash of 0x11 and no other
    // profile's.
    let map = temp("real-map.csv", "src_qpn,dst_qpn\n0x11,0x11\n");
    let m = map.to_str().unwrap();
    let (o, rows) = check(&pcap, &["--qp-map", m]);
    assert_eq!(o.status.code(), Some(1), "linux does not explain it");
    assert_eq!(
        rows[2].join(","),
        "2,1,192.168.56.129,192.168.56.131,0x000011,0x000011,0xdf94,,0,rxe,mismatch"
    );
    let (o, rows) = check(&pcap, &["--qp-map", m, "--profile", "rxe"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(rows[2][VERDICT], "match");
    assert!(stderr(&o).contains("3 frame(s), 3 RoCEv2 in 3 flow(s): 1 match, 0 mismatch, 2 unknown (profile rxe); 0 bad ICRC"));
    // The same frames as pcapng (Wireshark's default) give the same rows.
    let ng = crate::pcapng::pcapng_file("golden-real", LinkType::Ethernet, &frames);
    let (o2, rows2) = check(&ng, &["--qp-map", m, "--profile", "rxe"]);
    assert_eq!(o2.status.code(), Some(0), "{}", stderr(&o2));
    assert_eq!(rows2, rows);
    for f in [pcap, map, ng] {
        std::fs::remove_file(f).unwrap();
    }
}

/// `--html`: one self-contained page with the summary, the flows that do not match, the port
/// histograms and every flow, consistent with the CSV. `ROCENIC_KEEP_REPORT=DIR` keeps the
/// page (and its capture) for a person or a browser to look at.
#[test]
fn html_report_holds_the_verdicts() {
    let good = spec(false, UD_SEND, 0x12, 0x34, 0xC3A8, 0);
    let off = Spec {
        sport: 0xC3A9,
        host: 2,
        ..good
    };
    let v6 = spec(true, UD_SEND, 0x12, 0x34, 0xC3A8, 0x3A8);
    let unknown = spec(false, RC_SEND, 0, 0x99, 0xD001, 0);
    let mut bad_icrc = frame(&Spec { host: 3, ..good });
    let n = bad_icrc.len();
    bad_icrc[n - 1] ^= 0x80;
    let frames = vec![
        frame(&good),
        frame(&good),
        frame(&off),
        frame(&v6),
        frame(&unknown),
        bad_icrc,
        frame(&spec(false, CNP, 0, 0x34, 0, 0)),
    ];
    let pcap = pcap_file("golden-html", 1, &frames);
    let html = std::env::temp_dir().join(format!("rocenic-{}-golden.html", std::process::id()));
    let (o, rows) = check(&pcap, &["--html", html.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    if let Some(dir) = std::env::var_os("ROCENIC_KEEP_REPORT") {
        std::fs::copy(&html, Path::new(&dir).join("check-pcap.html")).unwrap();
        std::fs::copy(&pcap, Path::new(&dir).join("check-pcap.pcap")).unwrap();
    }

    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    // Self-contained: nothing fetched, nothing run.
    assert!(!page.contains("<script") && !page.contains("<link") && !page.contains("src="));
    assert_eq!(
        page.matches("http").count(),
        page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    for id in ["summary", "mismatches", "ports", "flows"] {
        assert!(page.contains(&format!("id=\"{id}\"")), "section {id}");
    }
    let section = |id: &str| {
        let start = page.find(&format!("id=\"{id}\"")).unwrap();
        let end = page[start..]
            .find("</table>")
            .map_or(page.len(), |e| start + e);
        page[start..end].to_string()
    };
    // Every flow of the CSV is a row of the flows table, marked by its verdict.
    let flows = section("flows");
    assert_eq!(flows.matches("<tr").count(), rows.len() + 1);
    for r in &rows {
        assert!(flows.contains(&format!("<td class=\"verdict\">{}</td>", r[VERDICT])));
    }
    // The flows needing a look: the mismatches and the bad ICRC, and nothing else.
    let want_bad = rows
        .iter()
        .filter(|r| r[VERDICT] == "mismatch" || r[ICRC_BAD] != "0")
        .count();
    assert_eq!(want_bad, 2, "the off port and the bad ICRC: {rows:?}");
    let mismatches = section("mismatches");
    assert_eq!(mismatches.matches("<tr class=\"bad\">").count(), want_bad);
    assert_eq!(mismatches.matches("<tr").count(), want_bad + 1);
    assert!(section("summary").contains("<tr class=\"bad\"><td>result</td><td>FAIL</td></tr>"));
    // One chart per verdict.
    for v in ["match", "mismatch", "unknown"] {
        assert!(
            page.contains(&format!("{v}: UDP source ports")),
            "{v} chart"
        );
    }
    for f in [pcap, html] {
        std::fs::remove_file(f).unwrap();
    }
}
