//! One convention for every command that reads a capture: `--input/-i` and `--output/-o`, each
//! defaulting to the standard stream (`-`), the earlier spellings still accepted; and a reader
//! that goes away early (`rocenic … | head`) ends the command quietly.

use crate::common::{pcap_file, rocenic, rocenic_bytes, stderr, stdout};
use crate::tso::tso_frame;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

fn join<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    [a, b].concat()
}

/// The frames of the documented send scenario: real RoCEv2 over IPv4 and IPv6.
fn roce_capture(dir: &std::path::Path) -> std::path::PathBuf {
    let frames = dir.join("frames.pcap");
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/examples/send.toml");
    let o = rocenic(
        &[
            "send",
            "--scenario",
            scenario,
            "--output",
            frames.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    frames
}

/// Each capture command gives the same rows from `-i FILE`, from standard input, from its
/// earlier spelling, and into `-o FILE`.
#[test]
fn capture_commands_read_and_write_either_stream_or_file() {
    let dir = tempfile::tempdir().unwrap();
    let frames = roce_capture(dir.path());
    let path = frames.to_str().unwrap();
    let bytes = std::fs::read(&frames).unwrap();
    let out = dir.path().join("out.csv");
    let out = out.to_str().unwrap();
    // (arguments before the input, the earlier spelling of the input)
    let commands: [(&[&str], &[&str]); 3] = [
        (&["icrc"], &[path]),
        (&["rss", "--queues", "8"], &["--pcap", path]),
        (&["golden", "check-pcap"], &[path]),
    ];
    for (command, earlier) in commands {
        let from_file = rocenic(&join(command, &["-i", path]), "");
        assert_eq!(
            from_file.status.code(),
            Some(0),
            "{command:?}: {}",
            stderr(&from_file)
        );
        let rows = stdout(&from_file);
        assert!(rows.lines().count() > 2, "{command:?} gave: {rows}");

        let from_stdin = rocenic_bytes(command, &bytes);
        assert_eq!(
            from_stdin.status.code(),
            Some(0),
            "{command:?}: {}",
            stderr(&from_stdin)
        );
        assert_eq!(stdout(&from_stdin), rows, "{command:?} from standard input");
        let dash = rocenic_bytes(&join(command, &["--input", "-"]), &bytes);
        assert_eq!(stdout(&dash), rows, "{command:?} -i -");

        let old = rocenic(&join(command, earlier), "");
        assert_eq!(stdout(&old), rows, "{command:?} {earlier:?}");

        let to_file = rocenic(&join(command, &["-i", path, "-o", out]), "");
        assert_eq!(
            to_file.status.code(),
            Some(0),
            "{command:?}: {}",
            stderr(&to_file)
        );
        assert_eq!(
            stdout(&to_file),
            "",
            "{command:?} -o wrote to standard output"
        );
        assert_eq!(
            std::fs::read_to_string(out).unwrap(),
            rows,
            "{command:?} -o"
        );
        std::fs::remove_file(out).unwrap();
    }
}

/// An error in a capture read from standard input names it as such.
#[test]
fn standard_input_is_named_in_errors() {
    let o = rocenic_bytes(&["icrc"], b"not a capture at all");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("standard input"), "{}", stderr(&o));
}

/// TSO takes its packets from standard input and writes the same segments as from a file.
#[test]
fn tso_reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = pcap_file("streams-tso", 1, &[tso_frame(false, false, true, 7, 5000)]);
    let (a, b) = (dir.path().join("a.pcap"), dir.path().join("b.pcap"));
    let o = rocenic(
        &[
            "tso",
            "-i",
            input.to_str().unwrap(),
            "-o",
            a.to_str().unwrap(),
            "--mss",
            "1000",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(&input).unwrap();
    let o = rocenic_bytes(&["tso", "-o", b.to_str().unwrap(), "--mss", "1000"], &bytes);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 packet(s) in, 5 segment(s) out"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Standard output that is not a terminal (here a pipe) takes the pcap too.
    let o = rocenic_bytes(&["tso", "--mss", "1000"], &bytes);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(o.stdout, std::fs::read(&a).unwrap());
    std::fs::remove_file(input).unwrap();
}

/// `rocenic … | head`: the reader closes the pipe after one row; rocenic ends without a word on
/// standard error and without the failure status 2.
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("qps.csv");
    let mut text = String::from("lqpn,rqpn\n");
    for i in 0..200_000 {
        text.push_str(&format!("{i},{}\n", i + 1));
    }
    std::fs::write(&csv, text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(["entropy", "-i", csv.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("lqpn,rqpn,"), "{first}");
    // The reader is dropped here: the rest of rocenic's writes meet a closed pipe.
    let o = child.wait_with_output().unwrap();
    assert_eq!(stderr(&o), "", "nothing on standard error");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            o.status.success() || o.status.signal() == Some(libc::SIGPIPE),
            "{:?}",
            o.status
        );
    }
    assert_ne!(o.status.code(), Some(2));
}
