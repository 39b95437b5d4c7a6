//! `rocenic soak`: the short version of the reliable connection's proof run that `make test`
//! runs (`make soak` runs 100,000 messages), a run that must fail (retries exhausted on a wire
//! losing half its frames), the same seed's replay, and the refused arguments.

use crate::common::{fails_with, rocenic, stdout};

/// A summary line's numbers, by its name.
fn row(out: &str, name: &str) -> Vec<u64> {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no `{name}` line in:\n{out}"));
    line[line.find(name).unwrap() + name.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// 3,000 messages of 1 B to 64 KiB over 8 RC QPs each way at 1 % loss and 0.1 % corruption:
/// all delivered and checked, and the wire's faults and the transport's recoveries happened.
#[test]
fn a_short_soak() {
    let o = rocenic(&["soak", "--messages", "3000", "--seed", "7"], "");
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("every message delivered exactly once, in order, byte for byte"));
    let delivered = row(&out, "delivered");
    assert_eq!(delivered[0], 3000, "{out}");
    // Every kind of message ran, about a fifth each.
    assert_eq!(delivered[2..].iter().sum::<u64>(), 3000, "{out}");
    assert!(delivered[2..].iter().all(|&n| n > 450), "{out}");
    for name in [
        "lost",
        "corrupted",
        "packets resent",
        "seq NAKs sent",
        "timeouts",
    ] {
        let v = row(&out, name);
        assert!(v[0] > 0 && v[1] > 0, "{name}: {out}");
    }
    assert_eq!(row(&out, "duplicated"), [0, 0]);
    // The same seed replays the same run (all but the wall-clock line).
    let again = stdout(&rocenic(&["soak", "--messages", "3000", "--seed", "7"], ""));
    let strip = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.contains("messages/s"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&again), strip(&out));
}

/// Duplicates too, on short messages: each still executed once.
#[test]
fn duplicates_executed_once() {
    let o = rocenic(
        &[
            "soak",
            "--messages",
            "2000",
            "--qps",
            "3",
            "--max-len",
            "3000",
            "--duplicate",
            "0.05",
            "--seed",
            "3",
        ],
        "",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    let dup = row(&out, "duplicated");
    assert!(dup[0] > 50 && dup[1] > 50, "{out}");
}

/// One kind and one size: 64 KiB RDMA WRITEs on one QP each way (the goodput figure's run).
#[test]
fn one_kind_one_size() {
    let o = rocenic(
        &[
            "soak",
            "--messages",
            "200",
            "--qps",
            "1",
            "--ops",
            "rdma_write",
            "--min-len",
            "65536",
            "--max-len",
            "65536",
        ],
        "",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert_eq!(
        row(&out, "delivered"),
        [200, 200 * 65536, 0, 0, 200, 0, 0],
        "{out}"
    );
    // QP 0's MTU is 1024: 64 packets a message, at most one packet a turn each way.
    let turns = row(&out, "turns")[0];
    assert!((200 * 64 / 2..200 * 64).contains(&turns), "{out}");
}

/// Half the frames lost and a timeout of 2 turns: a request runs out of retries, and the run
/// says which and stops with exit status 1.
#[test]
fn retries_exhausted_fail_the_run() {
    let o = rocenic(
        &[
            "soak",
            "--messages",
            "400",
            "--loss",
            "0.5",
            "--timeout",
            "1",
        ],
        "",
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("FAILED: ") && out.contains("completed RetryExcErr"),
        "{out}"
    );
}

#[test]
fn bad_arguments_refused() {
    for (args, needle) in [
        (&["--messages", "0"][..], "--messages 0 is not"),
        (&["--qps", "9"][..], "--qps 9 is not 1..=8"),
        (&["--max-len", "65537"][..], "--max-len 65537 is not"),
        (&["--loss", "0.6"][..], "--loss 0.6 is not a probability"),
        (
            &["--corrupt=-0.1"][..],
            "--corrupt -0.1 is not a probability",
        ),
        (
            &["--duplicate", "1"][..],
            "--duplicate 1 is not a probability",
        ),
        (&["--timeout", "0"][..], "--timeout 0 is not 1..=20"),
        (&["--min-len", "0"][..], "--min-len 0 is not 1..=65536"),
        (
            &["--min-len", "10", "--max-len", "9"][..],
            "--min-len 10 is not 1..=9",
        ),
    ] {
        let mut a = vec!["soak"];
        a.extend_from_slice(args);
        fails_with(&rocenic(&a, ""), needle);
    }
    // clap's own refusal, exit status 2 too.
    fails_with(
        &rocenic(&["soak", "--ops", "send,atomic"], ""),
        "\"atomic\" is not one of send",
    );
}
