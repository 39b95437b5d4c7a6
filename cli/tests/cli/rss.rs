//! `rocenic rss`: hash, queue and flags of every packet of a pcap, on every engine.

use crate::common::{fails_with, pcap_file, rocenic, stderr, stdout};
#[cfg(feature = "rtl")]
use rocenic_model::wire::LinkType;

/// An Ethernet + IPv4 + TCP frame.
pub fn tcp4_frame(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16) -> Vec<u8> {
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

/// A pcap of the public RSS verification suite's IPv4 rows as TCP frames, in order.
fn verification_capture(name: &str) -> std::path::PathBuf {
    let frames: Vec<Vec<u8>> = rocenic_model::toeplitz::VERIFICATION_IPV4
        .iter()
        .map(|v| tcp4_frame(v.src, v.src_port, v.dst, v.dst_port))
        .collect();
    pcap_file(name, 1, &frames)
}

#[test]
fn rss_verification_suite_from_a_pcap() {
    let rows = rocenic_model::toeplitz::VERIFICATION_IPV4;
    let p = verification_capture("rss");
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
#[cfg(feature = "rtl")]
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

#[cfg(feature = "rtl")]
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

#[cfg(feature = "rtl")]
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

/// Every numeric option is checked before it sizes anything: a huge table size is an error
/// message, not an allocation failure or a panic, and the message says what is wrong with it.
#[test]
fn rss_table_sizes_are_checked_before_allocation() {
    let path = pcap_file(
        "table-sizes",
        rocenic_model::wire::LinkType::Ethernet.pcap(),
        &[],
    );
    let p = path.to_str().unwrap();
    for (size, why) in [
        (
            "17179869184",
            "indirection table size 17179869184 is too large: at most 65536",
        ),
        ("4611686018427387904", "is too large: at most 65536"),
        ("1048576", "indirection table size 1048576 is too large"),
        (
            "3",
            "indirection table size 3 is not a power of two (1 to 65536 entries)",
        ),
        ("0", "is not a power of two"),
        ("99999999999999999999999", "is not a number of entries"),
    ] {
        fails_with(
            &rocenic(&["rss", "--pcap", p, "--table-size", size], ""),
            why,
        );
    }
    std::fs::remove_file(path).unwrap();
}

/// A bad key length is stated once, with the range once.
#[test]
fn rss_key_length_message() {
    let o = rocenic(&["rss", "--pcap", "/nonexistent.pcap", "--key", "00"], "");
    fails_with(
        &o,
        "a key of 1 byte is not supported: keys are 4 to 52 bytes",
    );
    assert_eq!(crate::common::stderr(&o).matches("52").count(), 1);
    let o = rocenic(&["toeplitz", "--key", "00", "--data", "00"], "");
    fails_with(
        &o,
        "a key of 1 byte is not supported: keys are 4 to 52 bytes",
    );
    assert_eq!(crate::common::stderr(&o).matches("52").count(), 1);
}

/// `ethtool -x` output as a NIC prints it: an 8-entry table over 8 rings, reversed, the key in
/// colon form and Toeplitz on.
fn saved_ethtool(function: &str) -> String {
    let key: Vec<String> = rocenic_model::toeplitz::MICROSOFT_KEY
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let (toeplitz, xor) = if function == "xor" {
        ("off", "on")
    } else {
        ("on", "off")
    };
    format!(
        "RX flow hash indirection table for enp1s0 with 8 RX ring(s):\n    0:      7     6     5     4     3     2     1     0\nRSS hash key:\n{}\nRSS hash function:\n    toeplitz: {toeplitz}\n    xor: {xor}\n    crc32: off\n",
        key.join(":")
    )
}

/// `--ethtool FILE` steers as the saved table, key and function say; a key in ethtool's colon
/// form is the same key; `--plot` draws the spread.
#[test]
fn rss_follows_a_saved_ethtool_x() {
    let rows = rocenic_model::toeplitz::VERIFICATION_IPV4;
    let p = verification_capture("rss-ethtool");
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("ethtool-x.txt");
    std::fs::write(&saved, saved_ethtool("toeplitz")).unwrap();
    let svg = dir.path().join("spread.svg");
    // `rocenic rss` on the capture with the saved file, and `extra`.
    let with_saved = |extra: &[&str]| {
        let args = [
            "rss",
            "-i",
            p.to_str().unwrap(),
            "--ethtool",
            saved.to_str().unwrap(),
        ];
        rocenic(&[&args[..], extra].concat(), "")
    };
    let o = with_saved(&["--plot", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for (i, (v, line)) in rows.iter().zip(text.lines().skip(1)).enumerate() {
        let want = v.hash_l3l4;
        let queue = 7 - (want & 7);
        assert_eq!(line, format!("{i},{want:#010x},{queue},ipv4|tcp"));
    }
    // The histogram has the file's 8 rings.
    assert_eq!(stderr(&o).lines().count(), 1 + 8, "{}", stderr(&o));
    let drawn = std::fs::read_to_string(&svg).unwrap();
    assert!(drawn.contains("<svg") && drawn.contains("receive queue"));

    // The key alone, in colon form, hashes as the plain form does.
    let colon = saved_ethtool("toeplitz");
    let colon = colon.lines().nth(3).unwrap();
    let plain = colon.replace(':', "");
    let a = rocenic(&["rss", "-i", p.to_str().unwrap(), "--key", colon], "");
    let b = rocenic(&["rss", "-i", p.to_str().unwrap(), "--key", &plain], "");
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));

    // XOR on in the file is XOR's hash.
    std::fs::write(&saved, saved_ethtool("xor")).unwrap();
    let x = with_saved(&[]);
    let y = rocenic(&["rss", "-i", p.to_str().unwrap(), "--function", "xor"], "");
    let hashes = |t: String| -> Vec<String> {
        t.lines()
            .map(|l| l.split(',').nth(1).unwrap().to_string())
            .collect()
    };
    assert_eq!(hashes(stdout(&x)), hashes(stdout(&y)));
    assert_ne!(hashes(stdout(&x)), hashes(text));

    // What the file cannot give is refused, naming file and line; --ethtool takes the place of
    // --queues.
    std::fs::write(
        &saved,
        saved_ethtool("toeplitz").replace("crc32: off", "crc32: on"),
    )
    .unwrap();
    let o = with_saved(&[]);
    fails_with(&o, "ethtool-x.txt: line 8: the NIC hashes with `crc32`");
    let o = with_saved(&["--queues", "2"]);
    fails_with(&o, "cannot be used with");
    std::fs::remove_file(p).unwrap();
}

/// `--config`: a rule on the first vector's destination port sends it to queue 9 unhashed; a
/// rule on the second's source address hashes it with context 1 (XOR); the rest are hashed with
/// context 0 (Toeplitz, the Microsoft key) into its explicit table. On the RTL too, where built.
#[test]
fn rss_config_rules_and_contexts() {
    let rows = rocenic_model::toeplitz::VERIFICATION_IPV4;
    let p = verification_capture("rss-config");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("steering.toml");
    let [a, b, ..] = rows;
    std::fs::write(
        &config,
        format!(
            "[[rss]]\ntable = [3, 2, 1, 0, 3, 2, 1, 0]\n\
             [[rss]]\nfunction = \"xor\"\ntable = [4]\n\
             [[rule]]\ndst_port = {}\nqueue = 9\n\
             [[rule]]\nsrc_ip = \"{}.{}.{}.{}\"\nrss = 1\n",
            a.dst_port, b.src[0], b.src[1], b.src[2], b.src[3]
        ),
    )
    .unwrap();
    let args = |engine: &'static str| {
        vec![
            "rss".to_string(),
            "-i".into(),
            p.to_str().unwrap().into(),
            "--config".into(),
            config.to_str().unwrap().into(),
            "--engine".into(),
            engine.into(),
        ]
    };
    let run = |engine| {
        let a = args(engine);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        rocenic(&a, "")
    };
    let o = run("model");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let queues: Vec<u16> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    let mut want = vec![9, 4];
    want.extend(
        rows[2..]
            .iter()
            .map(|v| [3, 2, 1, 0][(v.hash_l3l4 & 3) as usize]),
    );
    assert_eq!(queues, want, "{text}");
    // Context 0's rows carry the Toeplitz hash of the verification table.
    for (v, line) in rows[2..].iter().zip(text.lines().skip(3)) {
        assert_eq!(
            line.split(',').nth(1),
            Some(&*format!("{:#010x}", v.hash_l3l4))
        );
    }
    // The histogram has the ten queues the file names.
    assert_eq!(stderr(&o).lines().count(), 1 + 10, "{}", stderr(&o));
    #[cfg(feature = "rtl")]
    {
        let r = run("rtl");
        assert!(r.status.success(), "{}", stderr(&r));
        assert_eq!(stdout(&r), text, "the RTL engine");
    }
    // A bad file is named with its table.
    std::fs::write(&config, "[[rule]]\nqueue = 1\nrss = 0\n").unwrap();
    fails_with(
        &run("model"),
        "steering.toml: [[rule]] #0: a rule needs exactly one",
    );
    std::fs::remove_file(p).unwrap();
}
