//! The `--html` page of `golden check`: the summary, the mismatches per expected column, and
//! every mismatch (the first 1000, as the page's tables show).

use crate::golden::report::{Mark, Page, MAX_ROWS};
use crate::Failure;
use std::path::Path;

/// What a check found, as the page shows it.
pub struct Found<'a> {
    pub file: &'a str,
    pub set: &'a str,
    pub rows: u64,
    pub bad_rows: u64,
    /// Per expected column: its name and its mismatches.
    pub columns: Vec<(&'a str, u64)>,
    /// The first mismatches: line, column, expected, observed.
    pub mismatches: &'a [[String; 4]],
}

/// Keeps the first mismatches for the page; the rest are counted in the summary.
pub fn keep(kept: &mut Vec<[String; 4]>, mismatch: [String; 4]) {
    if kept.len() < MAX_ROWS {
        kept.push(mismatch);
    }
}

pub fn write(path: &Path, f: &Found) -> Result<(), Failure> {
    let mut page = Page::new(&format!("rocenic golden check: {}", f.file));
    page.heading("Summary");
    let result = if f.bad_rows == 0 { "pass" } else { "FAIL" };
    let summary = [
        ("file", f.file.to_string()),
        ("vector set", f.set.to_string()),
        ("rows", f.rows.to_string()),
        ("rows that match", (f.rows - f.bad_rows).to_string()),
        ("rows with a mismatch", f.bad_rows.to_string()),
        ("result", result.to_string()),
    ];
    page.table(
        "summary",
        &["what", "count"],
        summary.into_iter().map(|(k, v)| {
            let m = match k {
                "result" if f.bad_rows == 0 => Mark::Good,
                "result" => Mark::Bad,
                _ => Mark::Plain,
            };
            (m, vec![k.to_string(), v])
        }),
    );
    page.heading("Per expected column");
    page.table(
        "columns",
        &["column", "rows", "matches", "mismatches"],
        f.columns.iter().map(|(name, bad)| {
            let mark = if *bad == 0 { Mark::Plain } else { Mark::Bad };
            let cells = [
                name.to_string(),
                f.rows.to_string(),
                (f.rows - bad).to_string(),
            ];
            (mark, [cells.to_vec(), vec![bad.to_string()]].concat())
        }),
    );
    page.heading("Mismatches");
    let total: u64 = f.columns.iter().map(|(_, b)| b).sum();
    if total == 0 {
        page.note("None: every expected value the device reported is the model's.");
    } else if total > f.mismatches.len() as u64 {
        page.note(&format!(
            "{total} mismatches; the first {} are listed, all are in the command's output.",
            f.mismatches.len()
        ));
    }
    page.table(
        "mismatches",
        &["line", "column", "expected", "observed"],
        f.mismatches.iter().map(|m| (Mark::Bad, m.to_vec())),
    );
    page.write(path)
}
