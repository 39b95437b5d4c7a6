//! The vector sets of `rocenic golden`: `docs/golden-sets.md`, from `model::golden::sets`.

use crate::markdown;
use rocenic_model::golden::sets::{self, Format, Role, SETS};
use std::fmt::{self, Write};

const SOURCE: &str = "model/src/golden/sets.rs";

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Number => "number",
        Format::Bytes => "hex bytes",
        Format::Name => "name",
        Format::Names => "names",
        Format::Numbers => "numbers",
    }
}

/// `docs/golden-sets.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "Golden vector sets",
        &format!(
            "Every file of `rocenic golden export` and its columns, format `{}`; how they are \
             written, exported and checked is in [golden.md](golden.md).",
            sets::FORMAT
        ),
    )?;
    markdown::paragraph(
        out,
        "Formats: *number* is `0x` hex or decimal, compared as a number; *hex bytes* are digit \
         pairs without `0x`, compared without regard to case; *name* is one name; *names* are \
         names joined by `|` (`none` for none), compared as sets; *numbers* are numbers joined \
         by `|`. A column that is not required may be left out of a checked file.",
    )?;
    for set in SETS {
        markdown::paragraph(out, &format!("## `{}`: {}", set.file, set.name))?;
        markdown::paragraph(out, &format!("{}.", capitalised(set.doc)))?;
        writeln!(out)?;
        writeln!(out, "| Column | Role | Format | Meaning |")?;
        writeln!(out, "|---|---|---|---|")?;
        for c in set.columns {
            let role = match (c.role, c.required) {
                (Role::Input, true) => "input",
                (Role::Input, false) => "input, optional",
                (Role::Expected, _) => "expected",
            };
            let doc = c.doc.replace('|', "\\|");
            writeln!(
                out,
                "| `{}` | {role} | {} | {doc} |",
                c.name,
                format_name(c.format)
            )?;
        }
    }
    edge_cases(out)
}

fn hex_list<T: Into<u64> + Copy>(values: &[T]) -> String {
    let v: Vec<String> = values
        .iter()
        .map(|&x| format!("`{:#x}`", x.into()))
        .collect();
    v.join(", ")
}

fn list<T: fmt::Display>(values: &[T]) -> String {
    let v: Vec<String> = values.iter().map(|x| format!("`{x}`")).collect();
    v.join(", ")
}

/// The edge cases every export starts with, from the same constants the CLI reads.
fn edge_cases(out: &mut String) -> fmt::Result {
    markdown::paragraph(out, "## Edge cases")?;
    markdown::paragraph(
        out,
        "Every export starts each file with these, in a fixed order, before the random rows \
         (combined as [golden.md](golden.md#what-the-files-hold) says):",
    )?;
    let keys: Vec<usize> = sets::KEYS.iter().map(|k| k.len()).collect();
    writeln!(out)?;
    for (what, values) in [
        ("QPNs (`QPNS`), paired with each other", hex_list(&sets::QPNS)),
        ("application flow labels and `sin6_flowinfo` (`FLOW_LABELS`)", hex_list(&sets::FLOW_LABELS)),
        ("CM service ports (`CM_PORTS`), paired with each other", list(&sets::CM_PORTS)),
        ("key lengths in bytes (`KEYS`: the Microsoft key, the symmetric keys, all ones, the shortest)", list(&keys)),
        ("hash input lengths in bytes, all ones, under every key that covers them (`INPUT_LENGTHS`)", list(&sets::INPUT_LENGTHS)),
        ("indirection table sizes (`TABLE_SIZES`)", list(&sets::TABLE_SIZES)),
        ("queue counts (`QUEUES`)", list(&sets::QUEUES)),
        ("MSS values (`MSS`)", list(&sets::MSS)),
    ] {
        writeln!(out, "- {what}: {values}")?;
    }
    Ok(())
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
