//! CSV in and out for the table-shaped commands: named columns, numbers in `0x` hex or decimal,
//! and errors that name the line and column. Input is read a chunk of records at a time and
//! results are written as each chunk is computed, so memory does not grow with the input.

mod lines;

use crate::output::Output;
use crate::Failure;
use lines::Lines;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

/// A CSV input: its header, then its data records one line each (see `csvio/lines.rs`).
pub struct Input {
    lines: Lines<Box<dyn BufRead>>,
    columns: Columns,
}

/// Opens `path`, or standard input when it is `None` or `-`, and reads the header line.
pub fn open(path: &Option<PathBuf>) -> Result<Input, Failure> {
    let inner: Box<dyn BufRead> = match path {
        Some(p) if p.as_os_str() != "-" => {
            Box::new(BufReader::new(File::open(p).map_err(|e| {
                Failure(format!("cannot open {}: {e}", p.display()))
            })?))
        }
        _ => Box::new(io::stdin().lock()),
    };
    let mut lines = Lines::new(inner);
    let mut header = csv::StringRecord::new();
    let line = match lines.next_line().map_err(|e| Failure(e.to_string()))? {
        Some((line, text)) => {
            lines::split(line, text, &mut header).map_err(|e| Failure(e.to_string()))?;
            line
        }
        None => {
            return Err(Failure(
                "the input is empty: a header line is needed".into(),
            ))
        }
    };
    Ok(Input {
        lines,
        columns: Columns { header, line },
    })
}

impl Input {
    /// The header.
    pub fn columns(&self) -> &Columns {
        &self.columns
    }

    /// Reads the next data record into `record`; its line number, or `None` at the end.
    pub fn next(&mut self, record: &mut csv::StringRecord) -> Result<Option<u64>, Failure> {
        let Some((line, text)) = self.lines.next_line().map_err(|e| Failure(e.to_string()))? else {
            return Ok(None);
        };
        record.clear();
        lines::split(line, text, record).map_err(|e| Failure(e.to_string()))?;
        let (got, want) = (record.len(), self.columns.header.len());
        if got != want {
            return Err(Failure(format!(
                "line {line}: {got} field(s), but the header (line {}) has {want}",
                self.columns.line
            )));
        }
        Ok(Some(line))
    }
}

/// A CSV writer over a command's output.
pub fn writer(out: &mut Output) -> csv::Writer<&mut Output> {
    csv::WriterBuilder::new().from_writer(out)
}

/// The header of a CSV input and where its named columns are.
pub struct Columns {
    header: csv::StringRecord,
    /// The header's line number.
    line: u64,
}

impl Columns {
    /// The header's line number.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The header record, to copy to the output.
    pub fn header(&self) -> &csv::StringRecord {
        &self.header
    }

    /// The index of an optional column; a name the header has twice is an error, since either
    /// could be meant.
    pub fn find(&self, name: &str) -> Result<Option<usize>, Failure> {
        let mut at = self.header.iter().enumerate().filter(|(_, h)| *h == name);
        match (at.next(), at.next()) {
            (Some(_), Some(_)) => Err(Failure(format!(
                "line {}: the header has column `{name}` more than once",
                self.line
            ))),
            (first, _) => Ok(first.map(|(i, _)| i)),
        }
    }

    /// The index of a column the command needs.
    pub fn require(&self, name: &str, why: &str) -> Result<usize, Failure> {
        self.find(name)?.ok_or_else(|| {
            Failure(format!(
                "line {}: missing column `{name}` ({why}); the header has: {}",
                self.line,
                self.header.iter().collect::<Vec<_>>().join(",")
            ))
        })
    }

    /// Refuses a header that already has a column the output appends.
    pub fn refuse(&self, appended: &str) -> Result<(), Failure> {
        match self.find(appended)? {
            Some(_) => Err(Failure(format!(
                "line {}: the input already has a `{appended}` column, which the output appends",
                self.line
            ))),
            None => Ok(()),
        }
    }
}

/// Parses `0x` hex or decimal into a number no larger than `max`.
pub fn parse_number(text: &str, max: u64) -> Result<u64, String> {
    let t = text.trim();
    let value = if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else {
        t.parse::<u64>()
    }
    .map_err(|_| format!("`{t}` is not a number (0x hex or decimal)"))?;
    if value > max {
        return Err(format!(
            "{t} is larger than the largest allowed value {max:#x}"
        ));
    }
    Ok(value)
}

/// One data record, with its line number for error messages.
pub struct Row<'a> {
    pub record: &'a csv::StringRecord,
    pub line: u64,
}

impl Row<'_> {
    /// A number from column `index` (called `name` in messages).
    pub fn number(&self, index: usize, name: &str, max: u64) -> Result<u64, Failure> {
        let text = self.record.get(index).unwrap_or("");
        parse_number(text, max)
            .map_err(|e| Failure(format!("line {}: column `{name}`: {e}", self.line)))
    }

    /// An optional number: an absent column or an empty cell gives `default`.
    pub fn number_or(
        &self,
        index: Option<usize>,
        name: &str,
        max: u64,
        default: u64,
    ) -> Result<u64, Failure> {
        match index {
            Some(i) if !self.record.get(i).unwrap_or("").is_empty() => self.number(i, name, max),
            _ => Ok(default),
        }
    }

    /// The text of a column.
    pub fn text(&self, index: usize) -> &str {
        self.record.get(index).unwrap_or("")
    }
}

/// A chunk also ends once its records hold this many bytes, so that wide rows (lines may be up
/// to 1 MiB) cannot make one chunk large.
const CHUNK_BYTES: usize = 4 << 20;

/// Reads the input in chunks of up to `chunk` records: `parse` turns each record into a request,
/// `compute` gives the values appended to each record of a chunk, and the records are written
/// with them. A record `parse` refuses stops the run after the records before it are written.
pub fn for_each_chunk<T>(
    input: &mut Input,
    out: &mut csv::Writer<&mut Output>,
    chunk: usize,
    mut parse: impl FnMut(&Row) -> Result<T, Failure>,
    mut compute: impl FnMut(&[T], &[u64]) -> Result<Vec<Vec<String>>, Failure>,
) -> Result<(), Failure> {
    let mut records = vec![csv::StringRecord::new(); chunk];
    let (mut lines, mut requests) = (Vec::with_capacity(chunk), Vec::with_capacity(chunk));
    loop {
        lines.clear();
        requests.clear();
        let (mut refused, mut bytes) = (None, 0usize);
        while lines.len() < chunk && bytes < CHUNK_BYTES {
            let record = &mut records[lines.len()];
            let line = match input.next(record) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            };
            bytes += record.as_slice().len();
            match parse(&Row {
                record: &*record,
                line,
            }) {
                Ok(request) => {
                    requests.push(request);
                    lines.push(line);
                }
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        if !requests.is_empty() {
            let extra = compute(&requests, &lines)?;
            for (record, values) in records.iter_mut().zip(extra) {
                for v in &values {
                    record.push_field(v);
                }
                out.write_record(&*record)?;
                // A record keeps its buffer for the next chunk; a wide one gives it back.
                if record.as_slice().len() > 1 << 16 {
                    *record = csv::StringRecord::new();
                }
            }
            // The chunk's rows go out now, not when the CSV writer's buffer next fills: an
            // engine may take long over the next chunk, and an interrupted run keeps them.
            out.flush()?;
        }
        if let Some(e) = refused {
            out.flush()?;
            return Err(e);
        }
        if lines.is_empty() {
            break;
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_number;

    #[test]
    fn numbers() {
        assert_eq!(parse_number("0x12", 0xFF), Ok(0x12));
        assert_eq!(parse_number("18", 0xFF), Ok(18));
        assert_eq!(parse_number(" 0XfF ", 0xFF), Ok(255));
        assert!(parse_number("0x100", 0xFF).is_err());
        assert!(parse_number("12a", 0xFFFF).is_err());
        assert!(parse_number("-1", 0xFFFF).is_err());
        assert!(parse_number("", 0xFFFF).is_err());
        assert!(parse_number("0x", 0xFFFF).is_err());
    }
}
