//! Markdown: the generated-file header, the markers of a generated section, and the tables of
//! register maps, host-memory segments and codes.

use rocenic_model::regmap::{Access, Field, Register};
use rocenic_model::wqe::layout::SegField;
use std::fmt::{self, Write};

/// The header comment of a page rendered from `source`, its title, and what it covers with the
/// way back to the README (as every page in `docs/` opens).
pub fn open(out: &mut String, source: &str, title: &str, covers: &str) -> fmt::Result {
    writeln!(out, "<!-- {} -->", crate::generated_from(source))?;
    writeln!(out, "# {title}")?;
    paragraph(
        out,
        &format!("{covers} Back to the [README](../README.md)."),
    )
}

/// Opens section `name` of a hand-written page, rendered from `source`: the marker line that
/// [`crate::Output`] looks for, then a blank line (so that a table after it is a table).
pub fn section_open(out: &mut String, name: &str, source: &str) -> fmt::Result {
    writeln!(
        out,
        "{} {} -->",
        crate::section_begin(name),
        crate::generated_from(source)
    )?;
    writeln!(out)
}

/// Closes the section [`section_open`] began.
pub fn section_close(out: &mut String, name: &str) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "{}", crate::section_end(name))
}

/// A paragraph: a blank line, then `text`.
pub fn paragraph(out: &mut String, text: &str) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "{text}")
}

/// The table of `map`: offset (`digits` hex digits), name, access, fields and description.
pub fn registers(out: &mut String, digits: usize, map: &[Register]) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "| Offset | Name | Access | Fields | Description |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for r in map {
        let access = match r.access {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::Wo => "WO",
        };
        write!(out, "| 0x{:0digits$x} | `{}", r.offset, r.name)?;
        if r.words > 1 {
            write!(out, "[0..{}]", r.words)?;
        }
        write!(out, "` | {access} | ")?;
        if r.fields.is_empty() {
            write!(out, "31:0")?;
        }
        for (i, f) in r.fields.iter().enumerate() {
            if i > 0 {
                write!(out, "<br>")?;
            }
            field(out, f)?;
        }
        writeln!(out, " | {} |", r.doc)?;
    }
    Ok(())
}

/// A bit field: its bits, name and meaning.
fn field(out: &mut String, f: &Field) -> fmt::Result {
    bits(out, f.lsb, f.width)?;
    write!(out, " `{}`: {}", f.name, f.doc)
}

/// Bits `lsb..lsb + width` as `msb:lsb`, or the one bit.
fn bits(out: &mut String, lsb: u32, width: u32) -> fmt::Result {
    if width == 1 {
        write!(out, "{lsb}")
    } else {
        write!(out, "{}:{lsb}", lsb + width - 1)
    }
}

/// The table of a host-memory segment: bytes, name, significant bits and meaning of each
/// field, in offset order; a flags field lists its bits, and the bits between them as reserved.
pub fn segment(out: &mut String, table: &[SegField]) -> fmt::Result {
    writeln!(out, "| Bytes | Field | Bits | Meaning |")?;
    writeln!(out, "|------:|-------|-----:|---------|")?;
    for f in table {
        if f.bytes == 1 {
            write!(out, "| {} ", f.offset)?;
        } else {
            write!(out, "| {}–{} ", f.offset, f.offset + f.bytes - 1)?;
        }
        write!(out, "| `{}` | ", f.name)?;
        if f.is_reserved() {
            write!(out, "–")?;
        } else {
            write!(out, "{}", f.bits)?;
        }
        write!(out, " | {}", f.doc)?;
        for s in f.subfields {
            write!(out, "<br>")?;
            field(out, s)?;
        }
        if !f.subfields.is_empty() {
            for (lsb, width) in unused_bits(f) {
                write!(out, "<br>")?;
                bits(out, lsb, width)?;
                write!(out, " reserved")?;
            }
        }
        writeln!(out, " |")?;
    }
    Ok(())
}

/// The runs `(lsb, width)` of the bits of a flags field that none of its bit fields holds.
fn unused_bits(f: &SegField) -> Vec<(u32, u32)> {
    let used = |bit: u32| {
        f.subfields
            .iter()
            .any(|s| (s.lsb..s.lsb + s.width).contains(&bit))
    };
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for bit in (0..f.bytes as u32 * 8).filter(|&b| !used(b)) {
        match runs.last_mut() {
            Some((lsb, width)) if *lsb + *width == bit => *width += 1,
            _ => runs.push((bit, 1)),
        }
    }
    runs
}

/// A table of codes: value (`digits` hex digits), name and meaning.
pub fn codes(
    out: &mut String,
    digits: usize,
    codes: impl IntoIterator<Item = (u32, &'static str, String)>,
) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "| Code | Name | Meaning |")?;
    writeln!(out, "|---|---|---|")?;
    for (value, name, doc) in codes {
        writeln!(out, "| 0x{value:0digits$x} | `{name}` | {doc} |")?;
    }
    Ok(())
}
