//! SystemVerilog packages of constants: the frame around them and the shapes of their lines.
//!
//! Yosys cannot `import` a package inside a module, and an import at file scope lands in every
//! module of the compilation unit, so the RTL names the constants qualified
//! (`rss_regs_pkg::RSS_FLAGS_W`).

use rocenic_model::regmap::Register;
use rocenic_model::wqe::layout::SegField;
use std::fmt::{self, Display, Write};

/// Opens package `name` (kept in `<name>.sv`, as Verilator expects) rendered from `source`:
/// licence, generated-file header, include guard, and `about` as the comment over the package.
pub fn open(out: &mut String, name: &str, source: &str, about: &[&str]) -> fmt::Result {
    writeln!(out, "// SPDX-License-Identifier: Apache-2.0 OR MIT")?;
    writeln!(out, "// {}", crate::generated_from(source))?;
    writeln!(
        out,
        "// Guarded: a module may include it, and any file order compiles."
    )?;
    let upper = name.to_ascii_uppercase();
    let guard = match upper.strip_prefix("ROCENIC_") {
        Some(rest) => format!("ROCENIC_{rest}_SV"),
        None => format!("ROCENIC_{upper}_SV"),
    };
    writeln!(out, "`ifndef {guard}")?;
    writeln!(out, "`define {guard}")?;
    writeln!(out, "`resetall")?;
    writeln!(out, "`timescale 1ns / 1ps")?;
    writeln!(out, "`default_nettype none")?;
    writeln!(out)?;
    for line in about {
        writeln!(out, "// {line}")?;
    }
    writeln!(
        out,
        "// A package of constants: a module uses some of them."
    )?;
    writeln!(out, "/* verilator lint_off UNUSEDPARAM */")?;
    writeln!(out, "package {name};")
}

/// Closes the package [`open`] began.
pub fn close(out: &mut String) -> fmt::Result {
    writeln!(out, "endpackage")?;
    writeln!(out, "/* verilator lint_on UNUSEDPARAM */")?;
    writeln!(out)?;
    writeln!(out, "`resetall")?;
    writeln!(out, "`endif")
}

/// `localparam int unsigned <name> = <value>;`
pub fn uint(out: &mut String, name: impl Display, value: impl Display) -> fmt::Result {
    writeln!(out, "    localparam int unsigned {name} = {value};")
}

/// `localparam logic [bits-1:0] <name> = <bits>'h<value>;`
pub fn logic(out: &mut String, name: impl Display, bits: u32, value: u32) -> fmt::Result {
    let digits = bits.div_ceil(4) as usize;
    writeln!(
        out,
        "    localparam logic [{}:0] {name} = {bits}'h{value:0digits$x};",
        bits - 1
    )
}

/// `localparam logic [bits-1:0] <name> = <bits>'h<...>;` with bit `i` set when `set(i)`.
pub fn bitmask(
    out: &mut String,
    name: impl Display,
    bits: usize,
    set: impl Fn(usize) -> bool,
) -> fmt::Result {
    let digits: String = (0..bits.div_ceil(4))
        .rev()
        .map(|d| {
            let nibble = (0..4)
                .filter(|b| 4 * d + b < bits && set(4 * d + b))
                .fold(0u32, |v, b| v | 1 << b);
            char::from_digit(nibble, 16).expect("a nibble")
        })
        .collect();
    writeln!(
        out,
        "    localparam logic [{}:0] {name} = {bits}'h{digits};",
        bits - 1
    )
}

/// A set of codes: the comment `about`, their width `<prefix>W`, and `<prefix><NAME>` for each
/// `(name, code)` (the name as [`ident`] spells it).
pub fn codes<'a>(
    out: &mut String,
    about: &str,
    prefix: &str,
    bits: u32,
    codes: impl IntoIterator<Item = (&'a str, u8)>,
) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "    // {about}")?;
    uint(out, format_args!("{prefix}W"), bits)?;
    for (name, code) in codes {
        logic(
            out,
            format_args!("{prefix}{}", ident(name)),
            bits,
            code.into(),
        )?;
    }
    Ok(())
}

/// Every register of `map`: a comment, its address (`addr_bits` wide), its word count when it
/// spans several, and the LSB and width of each field, all named `<prefix><REGISTER>[_FIELD]`.
pub fn registers(out: &mut String, prefix: &str, addr_bits: u32, map: &[Register]) -> fmt::Result {
    for r in map {
        writeln!(out)?;
        writeln!(out, "    // {}: {}", r.name, r.doc)?;
        logic(out, format_args!("{prefix}{}", r.name), addr_bits, r.offset)?;
        if r.words > 1 {
            uint(out, format_args!("{prefix}{}_WORDS", r.name), r.words)?;
        }
        for f in r.fields {
            uint(
                out,
                format_args!("{prefix}{}_{}_LSB", r.name, f.name),
                f.lsb,
            )?;
            uint(
                out,
                format_args!("{prefix}{}_{}_W", r.name, f.name),
                f.width,
            )?;
        }
    }
    Ok(())
}

/// Every field of a host-memory segment `table`, named `<prefix>_<FIELD>`: a comment, its byte
/// offset (`_OFF`) and size in bytes (`_BYTES`), and, unless it is reserved, its significant
/// bits (`_W`) and the LSB and width of each of its bit fields (`_<BIT>_LSB`, `_<BIT>_W`). A
/// segment's reserved areas are numbered from 0 when it has several (`RSVD0`, `RSVD1`, as the
/// model's constants).
pub fn segment(out: &mut String, prefix: &str, table: &[SegField]) -> fmt::Result {
    let several = table.iter().filter(|f| f.is_reserved()).count() > 1;
    let mut reserved = 0;
    for f in table {
        let name = if f.is_reserved() && several {
            reserved += 1;
            format!("{prefix}_{}{}", f.name, reserved - 1)
        } else {
            format!("{prefix}_{}", f.name)
        };
        writeln!(out)?;
        writeln!(out, "    // {}: {}", f.name, f.doc)?;
        uint(out, format_args!("{name}_OFF"), f.offset)?;
        uint(out, format_args!("{name}_BYTES"), f.bytes)?;
        if f.is_reserved() {
            continue;
        }
        uint(out, format_args!("{name}_W"), f.bits)?;
        for s in f.subfields {
            uint(out, format_args!("{name}_{}_LSB", s.name), s.lsb)?;
            uint(out, format_args!("{name}_{}_W", s.name), s.width)?;
        }
    }
    Ok(())
}

/// A name as an identifier: `src-port-tcp` becomes `SRC_PORT_TCP`.
pub fn ident(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect()
}
