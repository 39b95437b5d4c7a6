//! CSV input, shared by `entropy` and `toeplitz`: errors name the line a text editor shows,
//! whatever the line endings and blank lines, and a line without end is refused, not buffered.

use crate::common::{fails_with, rocenic, stdout};

/// A bad row is named by its own line for LF, CRLF and CR-only endings, with blank lines before
/// it, in both CSV commands.
#[test]
fn errors_name_the_line_of_the_bad_row() {
    for (input, line) in [
        ("lqpn,rqpn\n1,2\nzz,1\n", 3),
        ("lqpn,rqpn\r\n1,2\r\nzz,1\r\n", 3),
        ("lqpn,rqpn\r1,2\rzz,1\r", 3),
        ("lqpn,rqpn\n1,2\n\n\nzz,1\n", 5),
        ("lqpn,rqpn\r\n1,2\r\n\r\n \r\nzz,1\r\n", 5),
        ("\n\nlqpn,rqpn\n1,2\nzz,1", 5),
    ] {
        let o = rocenic(&["entropy"], input);
        fails_with(&o, &format!("line {line}: column `lqpn`"));
        // The row before the bad one was computed and written.
        assert!(
            stdout(&o)
                .lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("1,2,")),
            "{input:?}"
        );
    }
    for (input, line) in [
        (
            "key_hex,input_hex\r\n0000000000,00\r\n\r\n0000000000,0z\r\n",
            4,
        ),
        ("key_hex,input_hex\r0000000000,00\r0000000000,0z", 3),
    ] {
        fails_with(
            &rocenic(&["toeplitz"], input),
            &format!("line {line}: column `input_hex`"),
        );
    }
    // A missing column is reported at the header's own line.
    fails_with(
        &rocenic(&["entropy"], "\n\nlqpn\n1\n"),
        "line 3: missing column `rqpn`",
    );
    // A short row is named by its line and the header's.
    fails_with(
        &rocenic(&["entropy"], "lqpn,rqpn\r\n\r\n1\r\n"),
        "line 3: 1 field(s), but the header (line 1) has 2",
    );
}

/// CRLF and CR-only inputs give the same rows as LF.
#[test]
fn every_line_ending_reads_the_same() {
    let lf = rocenic(&["entropy"], "lqpn,rqpn\n1,2\n\n0x10,\"3\"\n");
    assert_eq!(lf.status.code(), Some(0));
    for input in [
        "lqpn,rqpn\r\n1,2\r\n\r\n0x10,\"3\"\r\n",
        "lqpn,rqpn\r1,2\r\r0x10,\"3\"",
    ] {
        let o = rocenic(&["entropy"], input);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(stdout(&o), stdout(&lf), "{input:?}");
    }
}

/// An input without line breaks stops at the line limit with a message, instead of growing
/// until the process is killed.
#[test]
fn a_line_without_end_is_refused() {
    fails_with(
        &rocenic(&["entropy", "--input", "/dev/zero"], ""),
        "line 1: longer than 1048576 bytes",
    );
    let long = format!("lqpn,rqpn\n1,2\n{}", "7".repeat(2 << 20));
    fails_with(
        &rocenic(&["entropy"], &long),
        "line 3: longer than 1048576 bytes",
    );
    fails_with(
        &rocenic(&["entropy"], "lqpn,rqpn\n\"1,2\n"),
        "line 2: a quoted field has no closing quote",
    );
}

/// A column the command reads may appear only once in the header: either could be meant.
#[test]
fn a_column_named_twice_is_refused() {
    fails_with(
        &rocenic(&["entropy"], "lqpn,lqpn,rqpn\n1,2,3\n"),
        "line 1: the header has column `lqpn` more than once",
    );
    fails_with(
        &rocenic(
            &["entropy", "--mode", "cm"],
            "src_port,dst_port,fl,fl\n1,2,3,4\n",
        ),
        "the header has column `fl` more than once",
    );
    // Columns the command does not read are copied, repeated or not.
    let o = rocenic(&["entropy"], "note,lqpn,rqpn,note\na,1,2,b\n");
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("note,lqpn,rqpn,note,flow_label,udp_sport\na,1,2,b,"));
}
