//! CSV in and out for the table-shaped commands: named columns, numbers in `0x` hex or decimal,
//! and errors that name the line and column.

use crate::Failure;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;

/// Opens `path`, or standard input when it is `None` or `-`.
pub fn reader(path: &Option<PathBuf>) -> Result<csv::Reader<Box<dyn Read>>, Failure> {
    let inner: Box<dyn Read> = match path {
        Some(p) if p.as_os_str() != "-" => Box::new(
            File::open(p).map_err(|e| Failure(format!("cannot open {}: {e}", p.display())))?,
        ),
        _ => Box::new(io::stdin().lock()),
    };
    Ok(csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(inner))
}

/// Creates `path`, or standard output when it is `None` or `-`.
pub fn writer(path: &Option<PathBuf>) -> Result<csv::Writer<Box<dyn Write>>, Failure> {
    let inner: Box<dyn Write> = match path {
        Some(p) if p.as_os_str() != "-" => {
            Box::new(BufWriter::new(File::create(p).map_err(|e| {
                Failure(format!("cannot create {}: {e}", p.display()))
            })?))
        }
        _ => Box::new(BufWriter::new(io::stdout().lock())),
    };
    Ok(csv::WriterBuilder::new().from_writer(inner))
}

/// The header of a CSV input and where its named columns are.
pub struct Columns {
    header: csv::StringRecord,
}

impl Columns {
    /// Reads the header line.
    pub fn read(rdr: &mut csv::Reader<Box<dyn Read>>) -> Result<Self, Failure> {
        let header = rdr
            .headers()
            .map_err(|e| Failure(format!("cannot read the header line: {e}")))?
            .clone();
        if header.is_empty() || (header.len() == 1 && header[0].is_empty()) {
            return Err(Failure(
                "the input is empty: a header line is needed".into(),
            ));
        }
        Ok(Columns { header })
    }

    /// The header record, to copy to the output.
    pub fn header(&self) -> &csv::StringRecord {
        &self.header
    }

    /// The index of an optional column.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The index of a column the command needs.
    pub fn require(&self, name: &str, why: &str) -> Result<usize, Failure> {
        self.find(name).ok_or_else(|| {
            Failure(format!(
                "line 1: missing column `{name}` ({why}); the header has: {}",
                self.header.iter().collect::<Vec<_>>().join(",")
            ))
        })
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

/// One data record, owned, with its line number.
pub struct OwnedRow {
    pub record: csv::StringRecord,
    pub line: u64,
}

impl OwnedRow {
    fn row(&self) -> Row<'_> {
        Row {
            record: &self.record,
            line: self.line,
        }
    }
}

/// Reads records in chunks of up to `chunk`; `each` returns, per record of the chunk, the values
/// to append, and the records are written out with them.
pub fn for_each_chunk(
    rdr: &mut csv::Reader<Box<dyn Read>>,
    out: &mut csv::Writer<Box<dyn Write>>,
    chunk: usize,
    mut each: impl FnMut(&[Row]) -> Result<Vec<Vec<String>>, Failure>,
) -> Result<(), Failure> {
    let mut records = rdr.records();
    loop {
        let mut owned = Vec::new();
        for result in records.by_ref().take(chunk) {
            let record = result.map_err(|e| {
                let line = e.position().map_or(0, |p| p.line());
                Failure(format!("line {line}: {e}"))
            })?;
            let line = record.position().map_or(0, |p| p.line());
            owned.push(OwnedRow { record, line });
        }
        if owned.is_empty() {
            break;
        }
        let rows: Vec<Row> = owned.iter().map(OwnedRow::row).collect();
        let extra = each(&rows)?;
        for (row, values) in owned.iter().zip(extra) {
            let mut full = row.record.clone();
            for v in &values {
                full.push_field(v);
            }
            out.write_record(&full)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Calls `each` for every data record, one at a time.
pub fn for_each_row(
    rdr: &mut csv::Reader<Box<dyn Read>>,
    out: &mut csv::Writer<Box<dyn Write>>,
    mut each: impl FnMut(&Row) -> Result<Vec<String>, Failure>,
) -> Result<(), Failure> {
    for_each_chunk(rdr, out, 1, |rows| rows.iter().map(&mut each).collect())
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
