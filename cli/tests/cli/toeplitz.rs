//! `rocenic toeplitz`: the hash of hex inputs, from a CSV or the command line.

use crate::common::{fails_with, rocenic, stderr, stdout};

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
