//! Markdown: the generated-file header and the tables of register maps and codes.

use rocenic_model::regmap::{Access, Register};
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
            if f.width == 1 {
                write!(out, "{} `{}`: {}", f.lsb, f.name, f.doc)?;
            } else {
                write!(
                    out,
                    "{}:{} `{}`: {}",
                    f.lsb + f.width - 1,
                    f.lsb,
                    f.name,
                    f.doc
                )?;
            }
        }
        writeln!(out, " | {} |", r.doc)?;
    }
    Ok(())
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
