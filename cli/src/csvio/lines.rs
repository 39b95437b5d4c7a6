//! CSV records read one line at a time, with the line number a text editor shows.
//!
//! A record is one line. Lines end in LF, CRLF or a lone CR (old Mac files and some exports);
//! blank lines (empty or only spaces and tabs) are skipped but counted, so an error names the
//! line the user sees. A line longer than [`MAX_LINE`] stops the read with that line's number,
//! so an input with no line break (`/dev/zero`, a binary file) cannot grow without bound.
//!
//! Fields are separated by commas and trimmed of surrounding spaces and tabs. A field that
//! starts with a double quote runs to the closing quote (`""` inside stands for one quote), may
//! hold commas, and may not hold a line break: that is the price of naming lines exactly.

use std::io::{self, BufRead};

/// The longest line read, in bytes: far above any record the commands take (a 52-byte key in
/// hex is 104 characters).
pub const MAX_LINE: usize = 1 << 20;

/// Why a line could not be read or split.
#[derive(Debug)]
pub enum LineError {
    /// Reading the input failed.
    Io(io::Error),
    /// The line at `line` is longer than [`MAX_LINE`].
    TooLong { line: u64 },
    /// The line at `line` is not UTF-8.
    NotUtf8 { line: u64 },
    /// A quoted field on `line` is malformed (the reason says how).
    Quote { line: u64, why: &'static str },
}

impl std::fmt::Display for LineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineError::Io(e) => write!(f, "cannot read the input: {e}"),
            LineError::TooLong { line } => write!(
                f,
                "line {line}: longer than {MAX_LINE} bytes; a CSV record is one line (is this a text file?)"
            ),
            LineError::NotUtf8 { line } => write!(f, "line {line}: not UTF-8 text"),
            LineError::Quote { line, why } => write!(f, "line {line}: {why}"),
        }
    }
}

/// The non-blank lines of a text input, with their line numbers.
pub struct Lines<R> {
    inner: R,
    buf: Vec<u8>,
    /// The number of the line the next read starts on.
    next_line: u64,
    /// The last line ended in CR, so an LF right after it belongs to that ending.
    after_cr: bool,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R) -> Self {
        Lines {
            inner,
            buf: Vec::new(),
            next_line: 1,
            after_cr: false,
        }
    }

    /// The next non-blank line and its number, `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<(u64, &str)>, LineError> {
        loop {
            let line = self.next_line;
            if !self.read_line()? {
                return Ok(None);
            }
            if self.buf.iter().all(|b| matches!(b, b' ' | b'\t')) {
                continue;
            }
            let text = std::str::from_utf8(&self.buf).map_err(|_| LineError::NotUtf8 { line })?;
            return Ok(Some((line, text)));
        }
    }

    /// Reads one line, without its ending, into `buf`; false at the end of the input.
    fn read_line(&mut self) -> Result<bool, LineError> {
        self.buf.clear();
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(LineError::Io(e)),
            };
            if chunk.is_empty() {
                // The end of the input ends the last line, if it has any bytes.
                if any {
                    self.next_line += 1;
                }
                return Ok(any);
            }
            if std::mem::take(&mut self.after_cr) && chunk[0] == b'\n' {
                self.inner.consume(1);
                continue;
            }
            any = true;
            let end = memchr::memchr2(b'\n', b'\r', chunk);
            let take = end.unwrap_or(chunk.len());
            if self.buf.len() + take > MAX_LINE {
                return Err(LineError::TooLong {
                    line: self.next_line,
                });
            }
            self.buf.extend_from_slice(&chunk[..take]);
            match end {
                Some(at) => {
                    self.after_cr = chunk[at] == b'\r';
                    self.inner.consume(at + 1);
                    self.next_line += 1;
                    return Ok(true);
                }
                None => self.inner.consume(take),
            }
        }
    }
}

/// Splits one line into trimmed fields, appended to `fields`.
pub fn split(line: u64, text: &str, fields: &mut csv::StringRecord) -> Result<(), LineError> {
    let quote = |why| LineError::Quote { line, why };
    let mut rest = text;
    loop {
        if let Some(body) = rest.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = body.char_indices();
            let after = loop {
                match chars.next() {
                    None => return Err(quote("a quoted field has no closing quote on its line")),
                    Some((i, '"')) => {
                        if body[i + 1..].starts_with('"') {
                            value.push('"');
                            chars.next();
                        } else {
                            break &body[i + 1..];
                        }
                    }
                    Some((_, c)) => value.push(c),
                }
            };
            let after = after.trim_start_matches([' ', '\t']);
            fields.push_field(value.trim_matches([' ', '\t']));
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None if after.is_empty() => return Ok(()),
                None => return Err(quote("text after a quoted field's closing quote")),
            }
        } else {
            match rest.find(',') {
                Some(at) => {
                    fields.push_field(rest[..at].trim_matches([' ', '\t']));
                    rest = &rest[at + 1..];
                }
                None => {
                    fields.push_field(rest.trim_matches([' ', '\t']));
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(input: &[u8]) -> Vec<(u64, String)> {
        let mut l = Lines::new(io::BufReader::with_capacity(3, input));
        let mut out = Vec::new();
        while let Some((n, t)) = l.next_line().unwrap() {
            out.push((n, t.to_string()));
        }
        out
    }

    #[test]
    fn line_numbers_follow_every_ending() {
        let want = vec![(1, "a".to_string()), (3, "b".into()), (4, "c".into())];
        assert_eq!(lines(b"a\n\nb\nc\n"), want);
        assert_eq!(lines(b"a\r\n\r\nb\r\nc"), want);
        assert_eq!(lines(b"a\r\rb\rc\r"), want);
        assert_eq!(lines(b"a\r\n \t\nb\rc"), want);
        assert_eq!(lines(b""), vec![]);
        assert_eq!(lines(b"\n\r\n\r"), vec![]);
    }

    #[test]
    fn a_line_without_end_is_refused_at_the_limit() {
        let mut input = b"h\n".to_vec();
        input.resize(MAX_LINE + 10, b'0');
        let mut l = Lines::new(io::BufReader::new(&input[..]));
        assert_eq!(l.next_line().unwrap().unwrap().0, 1);
        assert!(matches!(l.next_line(), Err(LineError::TooLong { line: 2 })));
    }

    fn fields(text: &str) -> Result<Vec<String>, LineError> {
        let mut r = csv::StringRecord::new();
        split(1, text, &mut r)?;
        Ok(r.iter().map(str::to_string).collect())
    }

    #[test]
    fn quoted_fields() {
        assert_eq!(
            fields(r#""a,b" , c ,"x""y""#).unwrap(),
            ["a,b", "c", r#"x"y"#]
        );
        // As in the csv crate, a quote opens a quoted field only as its first byte.
        assert_eq!(fields(r#" "a" "#).unwrap(), [r#""a""#]);
        assert_eq!(fields("a,,").unwrap(), ["a", "", ""]);
        assert!(matches!(fields(r#""open"#), Err(LineError::Quote { .. })));
        assert!(matches!(fields(r#""a"b"#), Err(LineError::Quote { .. })));
    }

    fn field() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z0-9 ]{0,6}".prop_map(|s| s),
            "[a-z0-9, \"]{0,6}".prop_map(|s| format!("\"{}\"", s.replace('"', "\"\""))),
        ]
    }

    proptest! {
        /// One-line records split as the csv crate (trimming) splits them.
        #[test]
        fn splits_as_the_csv_crate(row in prop::collection::vec(field(), 1..6)) {
            let text = row.join(",");
            let mut rdr = csv::ReaderBuilder::new()
                .has_headers(false)
                .trim(csv::Trim::All)
                .from_reader(text.as_bytes());
            let want: Vec<String> = match rdr.records().next() {
                Some(r) => r.unwrap().iter().map(str::to_string).collect(),
                // The csv crate reads a line of nothing but spaces as no record; the line
                // reader skips it before splitting.
                None => return Ok(()),
            };
            prop_assert_eq!(fields(&text).unwrap(), want);
        }
    }
}
