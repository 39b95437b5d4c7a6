//! What every CLI test file shares: running the binary as a user would, and writing pcaps.
// Without the `rtl` feature some of these go unused.
#![allow(dead_code)]

use rocenic_model::wire::PcapWriter;
use std::io::Write;
use std::process::{Command, Output, Stdio};

pub fn rocenic(args: &[&str], stdin: &str) -> Output {
    rocenic_bytes(args, stdin.as_bytes())
}

/// `rocenic` with binary standard input (a pcap).
pub fn rocenic_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rocenic");
    // A command may stop reading early (a bad line, a line too long): that is not a test error.
    match child.stdin.take().unwrap().write_all(stdin) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "rocenic panicked: {stderr}");
    out
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Fails with exit status 2 and a message containing `needle`.
pub fn fails_with(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    assert!(
        stderr(o).contains(needle),
        "expected `{needle}` in: {}",
        stderr(o)
    );
}

pub fn pcap_file(name: &str, link: u32, frames: &[Vec<u8>]) -> std::path::PathBuf {
    let mut pcap = PcapWriter::with_header(Vec::new(), link, 65535).unwrap();
    for f in frames {
        pcap.write_record((0, 0), f).unwrap();
    }
    let path = std::env::temp_dir().join(format!("rocenic-{}-{name}.pcap", std::process::id()));
    std::fs::write(&path, pcap.finish().unwrap()).unwrap();
    path
}
