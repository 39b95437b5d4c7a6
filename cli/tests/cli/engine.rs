//! `--engine` across the commands: which engines refuse which commands, and what a build without
//! the `rtl` feature says.

use crate::common::{fails_with, pcap_file, rocenic, stdout};

#[test]
fn engines_refuse_commands_they_do_not_run() {
    let p = pcap_file("engine-tso", 1, &[]);
    let out = std::env::temp_dir().join(format!(
        "rocenic-{}-engine-tso-out.pcap",
        std::process::id()
    ));
    let (input, output) = (p.to_str().unwrap(), out.to_str().unwrap());
    let o = rocenic(
        &[
            "tso",
            "--input",
            input,
            "--output",
            output,
            "--mss",
            "1448",
            "--engine",
            "serial:/dev/rocenic-no-such-port",
        ],
        "",
    );
    fails_with(
        &o,
        "`rocenic tso` runs on --engine model or rtl, not on serial:/dev/rocenic-no-such-port",
    );
    assert!(!out.exists(), "no output before the refusal");
    for engine in ["rtl", "serial:/dev/rocenic-no-such-port"] {
        // No input: the refusal comes before any is read (rocenic's stdin would close unread).
        let o = rocenic(&["toeplitz", "--engine", engine], "");
        fails_with(&o, "`rocenic toeplitz` runs on --engine model, not on");
        assert_eq!(stdout(&o), "", "nothing is written before the refusal");
    }
    std::fs::remove_file(p).unwrap();
}

/// A model-only build (`--no-default-features`) still parses `--engine rtl`, and says why it
/// cannot run it, before writing anything.
#[cfg(not(feature = "rtl"))]
#[test]
fn rtl_engine_needs_the_rtl_feature() {
    const WHY: &str = "this rocenic was built without the `rtl` feature (Verilator co-simulation); rebuild with default features";
    let o = rocenic(
        &["entropy", "--engine", "rtl", "--lqpn", "1", "--rqpn", "2"],
        "",
    );
    fails_with(&o, WHY);
    let p = pcap_file("engine-no-rtl", 1, &[]);
    let input = p.to_str().unwrap();
    let o = rocenic(&["rss", "--pcap", input, "--engine", "rtl"], "");
    fails_with(&o, WHY);
    assert_eq!(stdout(&o), "");
    let out = std::env::temp_dir().join(format!(
        "rocenic-{}-engine-no-rtl-out.pcap",
        std::process::id()
    ));
    let output = out.to_str().unwrap();
    let o = rocenic(
        &[
            "tso", "--input", input, "--output", output, "--mss", "1448", "--engine", "rtl",
        ],
        "",
    );
    fails_with(&o, WHY);
    assert!(!out.exists(), "no output before the refusal");
    std::fs::remove_file(p).unwrap();
}
