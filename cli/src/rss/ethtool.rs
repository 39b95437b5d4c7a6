//! Saved `ethtool -x DEV` output, read for `rocenic rss --ethtool FILE`: the indirection table,
//! the hash key and the hash function a Linux NIC is using, so that a capture taken on it can be
//! steered as the NIC steered it. What ethtool prints:
//!
//! ```text
//! RX flow hash indirection table for eth0 with 8 RX ring(s):
//!     0:      0     1     2     3     4     5     6     7
//!     8:      0     1     2     3     4     5     6     7
//! RSS hash key:
//! 6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa
//! RSS hash function:
//!     toeplitz: on
//!     xor: off
//!     crc32: off
//! ```
//!
//! Newer versions add `RSS input transformation:` (`symmetric-xor: on|off`); a driver without a
//! key or function prints `Operation not supported` in its place. Errors name the line.

use super::HashFunction;
use crate::toeplitz::decode_hex;

/// What the file told.
#[derive(Debug, PartialEq, Eq)]
pub struct Ethtool {
    /// Receive rings, from the table's heading.
    pub rings: u16,
    /// The indirection table, in entry order.
    pub table: Vec<u16>,
    /// The key, when the driver reported one.
    pub key: Option<Vec<u8>>,
    /// The function that is `on`, when the driver reported them.
    pub function: Option<HashFunction>,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Table,
    Key,
    Function,
    Transform,
}

fn rings_of(heading: &str) -> Option<u16> {
    let (_, rest) = heading.split_once(" with ")?;
    rest.strip_suffix(" RX ring(s):")?.trim().parse().ok()
}

/// Reads `text`, the saved output of `ethtool -x`.
pub fn parse(text: &str) -> Result<Ethtool, String> {
    let mut rings = None;
    let mut table: Vec<u16> = Vec::new();
    let (mut key, mut function) = (None, None);
    let mut section = Section::None;
    for (n, raw) in text.lines().enumerate() {
        let at = |why: String| format!("line {}: {why}", n + 1);
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with("RX flow hash indirection table") {
            rings = Some(rings_of(line).ok_or_else(|| at(format!("`{line}`: no ring count")))?);
            section = Section::Table;
            continue;
        }
        match line {
            "RSS hash key:" => section = Section::Key,
            "RSS hash function:" => section = Section::Function,
            "RSS input transformation:" => section = Section::Transform,
            _ if line.starts_with("Operation not supported") => section = Section::None,
            _ => match section {
                Section::Table => {
                    let (index, entries) = line
                        .split_once(':')
                        .ok_or_else(|| at(format!("`{line}` is not a table row `N: q q …`")))?;
                    let index: usize = index
                        .trim()
                        .parse()
                        .map_err(|_| at(format!("`{index}` is not an entry index")))?;
                    if index != table.len() {
                        return Err(at(format!(
                            "the row starts at entry {index}, but {} entries came before it",
                            table.len()
                        )));
                    }
                    for word in entries.split_whitespace() {
                        let queue: u16 = word
                            .parse()
                            .map_err(|_| at(format!("`{word}` is not a queue number")))?;
                        table.push(queue);
                    }
                }
                Section::Key => {
                    let bytes = decode_hex(line).map_err(|e| at(format!("the key: {e}")))?;
                    key = Some(bytes);
                    section = Section::None;
                }
                Section::Function | Section::Transform => {
                    let (name, state) = line
                        .split_once(':')
                        .ok_or_else(|| at(format!("`{line}` is not `name: on|off`")))?;
                    let on = match state.trim() {
                        "on" => true,
                        "off" => false,
                        other => return Err(at(format!("`{other}` is neither on nor off"))),
                    };
                    let name = name.trim();
                    match (section, name, on) {
                        (_, _, false) => {}
                        (Section::Function, "toeplitz", true) => {
                            function = Some(HashFunction::Toeplitz)
                        }
                        (Section::Function, "xor", true) => function = Some(HashFunction::Xor),
                        (Section::Function, _, true) => {
                            return Err(at(format!(
                                "the NIC hashes with `{name}`; rocenic has toeplitz and xor"
                            )))
                        }
                        (_, _, true) => {
                            return Err(at(format!(
                                "the input transformation `{name}` is on; rocenic hashes the \
                                 fields as they are (for a symmetric spread use --symmetric-key)"
                            )))
                        }
                    }
                }
                // Lines ethtool prints around the sections (a "Cannot get…" note, say) carry
                // nothing rocenic uses.
                Section::None => {}
            },
        }
    }
    let rings = rings.ok_or("no `RX flow hash indirection table … with N RX ring(s):` heading")?;
    if table.is_empty() {
        return Err("the indirection table has no entries".into());
    }
    if let Some(q) = table.iter().find(|&&q| q >= rings) {
        return Err(format!(
            "the table sends packets to queue {q}, but the NIC has {rings} ring(s)"
        ));
    }
    Ok(Ethtool {
        rings,
        table,
        key,
        function,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_model::toeplitz::MICROSOFT_KEY;

    const SAVED: &str = "RX flow hash indirection table for enp1s0 with 4 RX ring(s):
    0:      0     1     2     3     0     1     2     3
    8:      3     2     1     0     3     2     1     0
RSS hash key:
6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa
RSS hash function:
    toeplitz: on
    xor: off
    crc32: off
RSS input transformation:
    symmetric-xor: off
";

    #[test]
    fn a_saved_output_is_read_whole() {
        let e = parse(SAVED).unwrap();
        assert_eq!(e.rings, 4);
        assert_eq!(e.table, [0, 1, 2, 3, 0, 1, 2, 3, 3, 2, 1, 0, 3, 2, 1, 0]);
        assert_eq!(e.key.as_deref(), Some(&MICROSOFT_KEY[..]));
        assert_eq!(e.function, Some(HashFunction::Toeplitz));
    }

    #[test]
    fn a_driver_without_key_or_function() {
        let text = "RX flow hash indirection table for eth0 with 2 RX ring(s):
    0:      0     1
RSS hash key:
Operation not supported
RSS hash function:
Operation not supported
";
        let e = parse(text).unwrap();
        assert_eq!((e.key, e.function), (None, None));
        assert_eq!(e.table, [0, 1]);
    }

    #[test]
    fn what_cannot_be_followed_is_refused_by_line() {
        let bad = |from: &str, to: &str| parse(&SAVED.replace(from, to)).unwrap_err();
        assert_eq!(
            bad("crc32: off", "crc32: on"),
            "line 9: the NIC hashes with `crc32`; rocenic has toeplitz and xor"
        );
        assert!(bad("symmetric-xor: off", "symmetric-xor: on").starts_with("line 11: "));
        assert!(bad("    8:", "    9:").contains("starts at entry 9, but 8"));
        assert!(bad("3     2     1     0\nRSS", "3     2     1     4\nRSS").contains("queue 4"));
        assert!(bad("6d:5a:", "6d:5g:").starts_with("line 5: the key"));
        assert!(bad("with 4 RX ring(s):", "with four:").starts_with("line 1: "));
        assert!(parse("RSS hash key:\n6d:5a\n")
            .unwrap_err()
            .contains("heading"));
    }
}
