//! The `rocenic` CLI contracts, run as a user would: real files, real exit codes.

use rocenic_model::entropy::{Profile, QpType, Request};
use rocenic_model::wire::{icrc_fill, LinkType, PcapReader, PcapWriter};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn rocenic(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rocenic");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "rocenic panicked: {stderr}");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Fails with exit status 2 and a message containing `needle`.
fn fails_with(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    assert!(
        stderr(o).contains(needle),
        "expected `{needle}` in: {}",
        stderr(o)
    );
}

#[test]
fn entropy_qp_csv_matches_model_for_every_profile() {
    let rows = [
        (0x12u32, 0x34u32, ""),
        (0xFF_FFFF, 0xFF_FFFF, ""),
        (5, 7, "0x100000"),
        (1, 2, "0xabcde"),
        (0, 0, "0"),
    ];
    let mut input = String::from("lqpn,rqpn,fl,qp_type,note\n");
    for (l, r, fl) in rows {
        input += &format!("{l:#x},{r},{fl},ud,\"x,y\"\n");
    }
    for p in Profile::ALL {
        let o = rocenic(&["entropy", "--profile", p.name()], &input);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("lqpn,rqpn,fl,qp_type,note,flow_label,udp_sport")
        );
        for ((l, r, fl), line) in rows.iter().zip(lines) {
            let fl_value = match *fl {
                "" => 0,
                s => u32::from_str_radix(
                    s.trim_start_matches("0x"),
                    if s.starts_with("0x") { 16 } else { 10 },
                )
                .unwrap(),
            };
            let e = p.compute(&Request::Qp {
                lqpn: *l,
                rqpn: *r,
                flow_label: fl_value,
                qp_type: QpType::Ud,
            });
            let want = format!(
                "{l:#x},{r},{fl},ud,\"x,y\",{:#07x},{:#06x}",
                e.flow_label, e.udp_sport
            );
            assert_eq!(line, want, "profile {p}");
        }
    }
}

#[test]
fn entropy_reference_example_and_single_value() {
    let o = rocenic(&["entropy", "--lqpn", "0xffffff", "--rqpn", "16777215"], "");
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("flow_label 0xfff1e"), "{text}");
    assert!(text.contains("udp_sport  0xff21"), "{text}");
}

#[test]
fn entropy_cm_mode() {
    let input = "src_port,dst_port,fl\n18515,4791,\n1,2,0x12345\n";
    let o = rocenic(&["entropy", "--mode", "cm"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    // linux: 18515*31 + 4791 = 0x8d4c4; the sin6_flowinfo label wins on the second row.
    assert_eq!(stdout(&o), "src_port,dst_port,fl,flow_label,udp_sport\n18515,4791,,0x8d4c4,0xd4e7\n1,2,0x12345,0x12345,0xe341\n");
}

#[test]
fn entropy_files_in_and_out() {
    let dir = std::env::temp_dir().join(format!("rocenic-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.csv"), dir.join("out.csv"));
    std::fs::write(&input, "lqpn,rqpn\n0x12,0x34\n").unwrap();
    let o = rocenic(
        &[
            "entropy",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ],
        "",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&output).unwrap(),
        "lqpn,rqpn,flow_label,udp_sport\n0x12,0x34,0x003a8,0xc3a8\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn entropy_bad_input_is_named() {
    fails_with(&rocenic(&["entropy"], "lqpn\n1\n"), "missing column `rqpn`");
    fails_with(
        &rocenic(&["entropy", "--mode", "cm"], "lqpn,rqpn\n1,2\n"),
        "missing column `src_port`",
    );
    fails_with(
        &rocenic(&["entropy"], "lqpn,rqpn\n1,2\n3,zz\n"),
        "line 3: column `rqpn`",
    );
    fails_with(
        &rocenic(&["entropy"], "lqpn,rqpn\n0x100000000,2\n"),
        "line 2: column `lqpn`",
    );
    fails_with(
        &rocenic(&["entropy", "--mode", "cm"], "src_port,dst_port\n65536,1\n"),
        "line 2: column `src_port`",
    );
    fails_with(
        &rocenic(&["entropy"], "lqpn,rqpn,qp_type\n1,2,xrc\n"),
        "line 2: column `qp_type`",
    );
    fails_with(&rocenic(&["entropy"], ""), "empty");
    fails_with(
        &rocenic(&["entropy"], "lqpn,rqpn,flow_label\n1,2,3\n"),
        "already has a `flow_label` column",
    );
    fails_with(
        &rocenic(&["entropy", "--input", "/nonexistent/x.csv"], ""),
        "cannot open /nonexistent/x.csv",
    );
    // A ragged row is a CSV error that names its line.
    fails_with(&rocenic(&["entropy"], "lqpn,rqpn\n1,2\n3\n"), "line 3");
    let o = rocenic(&["entropy", "--profile", "mlx5"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown profile"), "{}", stderr(&o));
}

#[test]
fn entropy_missing_column_writes_nothing() {
    let o = rocenic(&["entropy"], "lqpn\n1\n");
    assert_eq!(stdout(&o), "");
}

const KEY: &str =
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa";

#[test]
fn toeplitz_csv_and_single() {
    // IPv4 rows 1 and 2 of the verification suite, with and without ports.
    let input = format!("key_hex,input_hex\n{KEY},420995bba18e64500aea06e6\n{KEY},420995bba18e6450\n{KEY},c75c6f0241458c5337961283\n");
    let input = input.replace(' ', "");
    let o = rocenic(&["toeplitz"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let hashes: Vec<String> = stdout(&o)
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap().to_string())
        .collect();
    assert_eq!(hashes, ["0x51ccc178", "0x323e8fc2", "0xc626b0ea"]);
    let o = rocenic(
        &["toeplitz", "--key", KEY, "--data", "420995bba18e6450"],
        "",
    );
    assert_eq!(stdout(&o), "0x323e8fc2\n");
}

#[test]
fn toeplitz_bad_input() {
    fails_with(
        &rocenic(&["toeplitz"], "key_hex\n00\n"),
        "missing column `input_hex`",
    );
    fails_with(
        &rocenic(&["toeplitz"], &format!("key_hex,input_hex\n{KEY},0x00\n")),
        "line 2: column `input_hex`",
    );
    fails_with(
        &rocenic(&["toeplitz"], "key_hex,input_hex\n001,00\n"),
        "line 2: column `key_hex`",
    );
    fails_with(
        &rocenic(&["toeplitz", "--key", "0011", "--data", ""], ""),
        "a key of 2 bytes is not supported",
    );
    let long = "00".repeat(37);
    fails_with(
        &rocenic(&["toeplitz"], &format!("key_hex,input_hex\n{KEY},{long}\n")),
        "longer than the 36 bytes",
    );
}

/// An Ethernet RoCEv2 frame with a correct ICRC: RC SEND_ONLY over IPv4, or UD over IPv6.
fn roce_frame(ipv6: bool, payload: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2];
    let transport = if ipv6 { 12 + 8 } else { 12 };
    let udp_len = 8 + transport + payload + 4;
    if ipv6 {
        f.extend_from_slice(&[0x86, 0xDD, 0x60, 0x01, 0x23, 0x45]);
        f.extend_from_slice(&(udp_len as u16).to_be_bytes());
        f.extend_from_slice(&[17, 64]);
        f.extend_from_slice(&[0xFE; 32]);
    } else {
        let total = 20 + udp_len;
        f.extend_from_slice(&[0x08, 0x00, 0x45, 0x00]);
        f.extend_from_slice(&(total as u16).to_be_bytes());
        f.extend_from_slice(&[0, 1, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
    }
    f.extend_from_slice(&[0xC0, 0x01, 0x12, 0xB7]);
    f.extend_from_slice(&(udp_len as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    let opcode = if ipv6 { 0x64 } else { 0x04 };
    f.extend_from_slice(&[opcode, 0, 0xFF, 0xFF, 0, 0, 0, 0x11, 0, 0, 0, 1]);
    if ipv6 {
        f.extend_from_slice(&[0x11, 0x11, 0x11, 0x11, 0, 0, 0, 0x22]);
    }
    f.extend((0..payload).map(|i| i as u8));
    f.extend_from_slice(&[0; 4]);
    icrc_fill(&mut f).expect("a RoCEv2 frame");
    f
}

fn pcap_file(name: &str, link: u32, frames: &[Vec<u8>]) -> std::path::PathBuf {
    let mut pcap = PcapWriter::with_header(Vec::new(), link, 65535).unwrap();
    for f in frames {
        pcap.write_record((0, 0), f).unwrap();
    }
    let path = std::env::temp_dir().join(format!("rocenic-{}-{name}.pcap", std::process::id()));
    std::fs::write(&path, pcap.finish().unwrap()).unwrap();
    path
}

#[test]
fn icrc_good_and_bad_frames() {
    let good = pcap_file("good", 1, &[roce_frame(false, 64), roce_frame(true, 13)]);
    let o = rocenic(&["icrc", good.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "index,stored,computed,status");
    assert_eq!(lines.len(), 3);
    for (i, line) in lines[1..].iter().enumerate() {
        let cols: Vec<&str> = line.split(',').collect();
        assert_eq!(cols[0], i.to_string());
        assert_eq!(cols[1], cols[2]);
        assert_eq!(cols[3], "ok");
    }

    let mut corrupt = roce_frame(true, 100);
    corrupt[100] ^= 0x40;
    let bad = pcap_file("bad", 1, &[roce_frame(false, 8), corrupt]);
    let o = rocenic(&["icrc", bad.to_str().unwrap()], "");
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.lines().nth(1).unwrap().ends_with(",ok"));
    assert!(text.lines().nth(2).unwrap().ends_with(",bad"));
    for p in [good, bad] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn icrc_bad_input_is_named() {
    let not_pcap = std::env::temp_dir().join(format!("rocenic-{}-text.pcap", std::process::id()));
    std::fs::write(&not_pcap, "hello, world\n").unwrap();
    fails_with(&rocenic(&["icrc", not_pcap.to_str().unwrap()], ""), "magic");
    let mut arp = vec![0xFF; 12];
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let p = pcap_file("arp", 1, &[roce_frame(false, 4), arp]);
    let o = rocenic(&["icrc", p.to_str().unwrap()], "");
    fails_with(&o, "not RoCEv2");
    assert!(stderr(&o).contains("frame 1"), "{}", stderr(&o));
    let ib = pcap_file("ib", LinkType::Infiniband.pcap(), &[]);
    fails_with(
        &rocenic(&["icrc", ib.to_str().unwrap()], ""),
        "link type 247",
    );
    // A pcap cut short inside a record.
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&p, bytes).unwrap();
    fails_with(&rocenic(&["icrc", p.to_str().unwrap()], ""), "frame 1");
    fails_with(&rocenic(&["icrc", "/nonexistent.pcap"], ""), "cannot read");
    for f in [not_pcap, p, ib] {
        std::fs::remove_file(f).unwrap();
    }
}

#[test]
fn demo_runs() {
    let o = rocenic(&["demo"], "");
    assert!(o.status.success());
    assert!(stdout(&o).contains("maps every flow and its reverse to the same queue: true"));
}

/// `--engine rtl` runs the co-simulated unit and must print exactly what the model prints.
#[test]
fn entropy_rtl_engine_matches_model() {
    let mut qp = String::from("lqpn,rqpn,fl,qp_type\n");
    let mut cm = String::from("src_port,dst_port,fl,lqpn,rqpn\n");
    let mut x = 0x1234_5678u32;
    for i in 0..3000u32 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let fl = match i % 4 {
            0 => String::new(),
            1 => "0".into(),
            2 => format!("{:#x}", x >> 8),
            _ => format!("{}", x),
        };
        let t = if i % 2 == 0 { "rc" } else { "ud" };
        qp += &format!(
            "{:#x},{:#x},{fl},{t}\n",
            x & 0xFF_FFFF,
            (x >> 3) & 0xFF_FFFF
        );
        cm += &format!("{},{},{fl},{},{}\n", x & 0xFFFF, x >> 16, x & 0xFF, x >> 24);
    }
    for p in ["linux", "rfc-v2", "rfc-v1", "rxe"] {
        for (mode, input) in [("qp", &qp), ("cm", &cm)] {
            let model = rocenic(
                &[
                    "entropy",
                    "--profile",
                    p,
                    "--mode",
                    mode,
                    "--engine",
                    "model",
                ],
                input,
            );
            let rtl = rocenic(
                &["entropy", "--profile", p, "--mode", mode, "--engine", "rtl"],
                input,
            );
            assert!(
                model.status.success() && rtl.status.success(),
                "{}",
                stderr(&rtl)
            );
            assert_eq!(stdout(&rtl), stdout(&model), "profile {p}, mode {mode}");
            assert_eq!(stdout(&rtl).lines().count(), 3001);
        }
    }
    let one = rocenic(
        &[
            "entropy", "--engine", "rtl", "--lqpn", "0xffffff", "--rqpn", "0xffffff",
        ],
        "",
    );
    assert!(
        stdout(&one).contains("udp_sport  0xff21"),
        "{}",
        stdout(&one)
    );
}

#[test]
fn entropy_rtl_engine_refuses_wide_qpns_by_line() {
    let o = rocenic(
        &["entropy", "--engine", "rtl"],
        "lqpn,rqpn\n1,2\n0x1000000,3\n",
    );
    fails_with(&o, "line 3: QPN 0x1000000 is wider than the 24 bits");
    // The model takes them, following the kernel's u64 arithmetic.
    assert!(rocenic(&["entropy"], "lqpn,rqpn\n1,2\n0x1000000,3\n")
        .status
        .success());
}

/// An Ethernet + IPv4 + TCP frame.
fn tcp4_frame(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16) -> Vec<u8> {
    let mut f = vec![
        0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00, 0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6,
        0, 0,
    ];
    f.extend_from_slice(&src);
    f.extend_from_slice(&dst);
    f.extend_from_slice(&sport.to_be_bytes());
    f.extend_from_slice(&dport.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x10, 0xFF, 0xFF, 0, 0, 0, 0]);
    f
}

#[test]
fn rss_verification_suite_from_a_pcap() {
    let rows = rocenic_model::toeplitz::VERIFICATION_IPV4;
    let frames: Vec<Vec<u8>> = rows
        .iter()
        .map(|v| tcp4_frame(v.src, v.src_port, v.dst, v.dst_port))
        .collect();
    let p = pcap_file("rss", 1, &frames);
    let o = rocenic(&["rss", "--pcap", p.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("index,hash,queue,flags"));
    for (i, (v, line)) in rows.iter().zip(lines).enumerate() {
        let want = v.hash_l3l4;
        // 128 entries filled round-robin over 4 queues: queue = (hash mod 128) mod 4.
        assert_eq!(
            line,
            format!("{i},{want:#010x},{},ipv4|tcp", (want & 127) % 4)
        );
    }
    assert!(
        stderr(&o).starts_with("queue,packets,share\n"),
        "{}",
        stderr(&o)
    );
    let counted: u64 = stderr(&o)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(counted, 5);
    std::fs::remove_file(p).unwrap();
}

#[test]
fn rss_symmetric_key_keeps_both_directions_together() {
    let mut frames = Vec::new();
    for i in 0..50u8 {
        let (a, b) = ([10, 0, i, 1], [192, 168, 1, i]);
        frames.push(tcp4_frame(a, 1000 + u16::from(i), b, 443));
        frames.push(tcp4_frame(b, 443, a, 1000 + u16::from(i)));
    }
    let p = pcap_file("rss-sym", 1, &frames);
    let queues = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "rss",
            "--pcap",
            p.to_str().unwrap(),
            "--queues",
            "16",
            "--table-size",
            "256",
        ];
        args.extend_from_slice(extra);
        let o = rocenic(&args, "");
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(2).unwrap().to_string())
            .collect()
    };
    let sym = queues(&["--symmetric-key"]);
    assert!(sym.chunks(2).all(|pair| pair[0] == pair[1]));
    // The default key separates directions of most flows: the property is the key's.
    let asym = queues(&[]);
    assert!(asym.chunks(2).filter(|pair| pair[0] != pair[1]).count() > 25);
    std::fs::remove_file(p).unwrap();
}

#[test]
fn rss_bad_input_is_named() {
    let p = pcap_file(
        "rss-bad",
        1,
        &[tcp4_frame([1, 2, 3, 4], 1, [5, 6, 7, 8], 2)],
    );
    let path = p.to_str().unwrap();
    fails_with(
        &rocenic(&["rss", "--pcap", path, "--fields", "src-ipv4,nope"], ""),
        "unknown field `nope`",
    );
    fails_with(
        &rocenic(&["rss", "--pcap", path, "--table-size", "100"], ""),
        "not a power of two",
    );
    fails_with(
        &rocenic(
            &[
                "rss",
                "--pcap",
                path,
                "--fields",
                "src-ipv6,dst-ipv6,src-port-udp,dst-port-udp,bth-qpn",
            ],
            "",
        ),
        "use a 52-byte key",
    );
    fails_with(
        &rocenic(&["rss", "--pcap", path, "--key", "00112233"], ""),
        "covers 0",
    );
    assert_eq!(
        rocenic(&["rss", "--pcap", path, "--queues", "0"], "")
            .status
            .code(),
        Some(2)
    );
    let other = pcap_file("rss-link", 105, &[]);
    fails_with(
        &rocenic(&["rss", "--pcap", other.to_str().unwrap()], ""),
        "link type 105",
    );
    // XOR needs no key coverage.
    assert!(rocenic(
        &[
            "rss",
            "--pcap",
            path,
            "--function",
            "xor",
            "--key",
            "00112233"
        ],
        ""
    )
    .status
    .success());
    for f in [p, other] {
        std::fs::remove_file(f).unwrap();
    }
}

/// Random frames of every parser case (and damaged ones), per link layer.
fn random_frames(seed: u64, link: LinkType, n: usize) -> Vec<Vec<u8>> {
    use rocenic_sim::rss::frames;
    let mut rng = rocenic_sim::stream::rng(seed);
    (0..n)
        .map(|_| {
            let mut f = match link {
                LinkType::Ethernet => frames::ethernet(&mut rng),
                LinkType::Infiniband => frames::infiniband(&mut rng),
                LinkType::Ipoib => unreachable!("RSS reads Ethernet and native InfiniBand"),
            };
            frames::damage(&mut rng, &mut f);
            f
        })
        .collect()
}

#[test]
fn rss_rtl_engine_matches_model() {
    let seed = rocenic_sim::stream::seed("cli::rss_rtl_engine_matches_model");
    for (name, link) in [
        ("rss-rtl-eth", LinkType::Ethernet),
        ("rss-rtl-ib", LinkType::Infiniband),
    ] {
        let frames = random_frames(seed, link, 1500);
        let p = pcap_file(name, link.pcap(), &frames);
        let path = p.to_str().unwrap();
        for options in [
            &[][..],
            &[
                "--symmetric-key",
                "--fields",
                "src-ipv6,dst-ipv6,src-port-udp,dst-port-udp,bth-qpn",
                "--width",
                "512",
            ][..],
            &[
                "--function",
                "xor",
                "--table-size",
                "4096",
                "--queues",
                "64",
            ][..],
            &[
                "--key",
                &"5a".repeat(52),
                "--fields",
                "src-ipv4,dst-ipv4,bth-qpn",
                "--table-size",
                "1",
                "--queues",
                "1",
            ][..],
        ] {
            let run = |engine: &str| {
                let mut args = vec!["rss", "--pcap", path, "--engine", engine];
                args.extend_from_slice(options);
                rocenic(&args, "")
            };
            let (model, rtl) = (run("model"), run("rtl"));
            assert!(model.status.success(), "{}", stderr(&model));
            assert!(rtl.status.success(), "{}", stderr(&rtl));
            assert_eq!(stdout(&model).lines().count(), frames.len() + 1);
            assert_eq!(
                stdout(&rtl),
                stdout(&model),
                "{options:?} {link:?} (seed {seed})"
            );
            assert_eq!(stderr(&rtl), stderr(&model), "the histograms");
        }
    }
}

#[test]
fn rss_rtl_engine_limits_are_named() {
    let p = pcap_file("rss-rtl-limits", 1, &[]);
    let path = p.to_str().unwrap();
    fails_with(
        &rocenic(
            &[
                "rss",
                "--pcap",
                path,
                "--engine",
                "rtl",
                "--table-size",
                "8192",
            ],
            "",
        ),
        "up to 4096 entries",
    );
    fails_with(
        &rocenic(
            &["rss", "--pcap", path, "--engine", "rtl", "--width", "128"],
            "",
        ),
        "--width",
    );
}

/// An oversized TCP frame: Ethernet (optionally tagged) or IPoIB, IPv4 or IPv6, TCP with a
/// timestamp option, `len` payload bytes of a simple pattern.
fn tso_frame(ipoib: bool, vlan: bool, ipv4: bool, seq: u32, len: usize) -> Vec<u8> {
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

#[test]
fn tso_bad_input_is_named() {
    let dir = std::env::temp_dir();
    let out = dir.join(format!("rocenic-{}-tso-bad-out.pcap", std::process::id()));
    let mut udp = tso_frame(false, false, true, 0, 100);
    udp[23] = 17;
    let p = pcap_file("tso-udp", 1, &[tso_frame(false, false, true, 0, 3000), udp]);
    for engine in ["model", "rtl"] {
        fails_with(&tso_run(&p, &out, "1448", engine), "packet 1");
        fails_with(&tso_run(&p, &out, "1448", engine), "not IPv4/IPv6 + TCP");
        let o = tso_run(&p, &out, "0", engine);
        fails_with(&o, "packet 0");
        fails_with(&o, "MSS is 0");
        fails_with(&tso_run(&p, &out, "9001", engine), "packet 0");
    }
    let ib = pcap_file("tso-ib", LinkType::Infiniband.pcap(), &[]);
    fails_with(&tso_run(&ib, &out, "1448", "model"), "link type 247");
    let text = dir.join(format!("rocenic-{}-tso-text.pcap", std::process::id()));
    std::fs::write(&text, "not a pcap").unwrap();
    fails_with(&tso_run(&text, &out, "1448", "rtl"), "magic");
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
    fails_with(
        &tso_run(&cut_path, &out, "1448", "rtl"),
        "captured 100 of 3000",
    );
}

#[test]
fn entropy_serial_engine_reports_a_missing_port_and_bad_engines() {
    let o = rocenic(
        &[
            "entropy",
            "--lqpn",
            "1",
            "--rqpn",
            "2",
            "--engine",
            "serial:/dev/rocenic-no-such-port",
        ],
        "",
    );
    fails_with(&o, "/dev/rocenic-no-such-port");
    let o = rocenic(&["entropy", "--engine", "serial:"], "");
    fails_with(&o, "serial:PORT");
}

#[test]
fn rss_serial_engine_reports_a_missing_port_and_bad_engines() {
    let p = pcap_file(
        "rss-serial",
        1,
        &[tcp4_frame([1, 2, 3, 4], 1, [5, 6, 7, 8], 2)],
    );
    let path = p.to_str().unwrap();
    let run = |engine: &str| rocenic(&["rss", "--pcap", path, "--engine", engine], "");
    let o = run("serial:/dev/rocenic-no-such-port");
    fails_with(&o, "serial engine: link: /dev/rocenic-no-such-port");
    assert_eq!(
        stdout(&o),
        "",
        "nothing is written before the board answers"
    );
    fails_with(&run("serial:"), "serial:PORT");
    fails_with(&run("fpga"), "unknown engine `fpga`");
    std::fs::remove_file(p).unwrap();
}
