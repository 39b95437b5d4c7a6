//! `rocenic entropy`: CSV and single requests, bad input, and the RTL and serial engines.

use crate::common::{fails_with, rocenic, stderr, stdout};
use rocenic_model::entropy::{Profile, QpType, Request};

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

/// `--engine rtl` runs the co-simulated unit and must print exactly what the model prints.
#[cfg(feature = "rtl")]
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

#[cfg(feature = "rtl")]
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
