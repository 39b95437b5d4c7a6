//! The RSS pipeline's files: `rtl/rss/rss_regs_pkg.sv` and `docs/rss-registers.md`, from
//! `model::rss::regs` and the parser's sizes, flags and hash fields.

use crate::{markdown, sv};
use rocenic_model::rss::parse::{MAX_EXTENSION_HEADERS, PARSE_WINDOW};
use rocenic_model::rss::regs::{ID_VALUE, KEY_BYTES, MAP};
use rocenic_model::rss::{HashFields, HashType, ParseFlags};
use std::fmt::{self, Write};

const SOURCE: &str = "model/src/rss/regs.rs";

/// `rtl/rss/rss_regs_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "rss_regs_pkg",
        SOURCE,
        &["The RSS pipeline's AXI4-Lite register map (docs/rss-registers.md)."],
    )?;
    sv::uint(out, "RSS_ID_VALUE", format_args!("32'h{ID_VALUE:08x}"))?;
    sv::uint(out, "RSS_KEY_BYTES", KEY_BYTES)?;
    sv::uint(out, "RSS_PARSE_WINDOW", PARSE_WINDOW)?;
    sv::uint(out, "RSS_MAX_EXTENSION_HEADERS", MAX_EXTENSION_HEADERS)?;
    writeln!(out)?;
    writeln!(
        out,
        "    // Bit positions of the parse flags (model::rss::ParseFlags)."
    )?;
    for (name, flag) in ParseFlags::NAMES {
        let name = format!("RSS_FLAG_{}", sv::ident(name));
        sv::uint(out, name, flag.0.trailing_zeros())?;
    }
    sv::uint(out, "RSS_FLAGS_W", ParseFlags::NAMES.len())?;
    writeln!(out)?;
    writeln!(
        out,
        "    // Bit positions of the hash fields (model::rss::HashFields)."
    )?;
    for (name, field) in HashFields::NAMES {
        let name = format!("RSS_FIELD_{}", sv::ident(name));
        sv::uint(out, name, field.0.trailing_zeros())?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "    // Bit positions of the hash type (model::rss::HashType)."
    )?;
    for (name, ty) in [
        ("IPV4", HashType::IPV4),
        ("IPV6", HashType::IPV6),
        ("TCP", HashType::TCP),
        ("UDP", HashType::UDP),
        ("BTH", HashType::BTH),
    ] {
        sv::uint(
            out,
            format_args!("RSS_HASH_TYPE_{name}"),
            ty.0.trailing_zeros(),
        )?;
    }
    sv::registers(out, "RSS_", 12, MAP)?;
    sv::close(out)
}

/// `docs/rss-registers.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "RSS pipeline registers",
        "The register map of the RSS pipeline ([rss.md](rss.md)): AXI4-Lite, 32-bit words, byte \
         offsets. The same map drives the RTL (`rtl/rss/rss_regs_pkg.sv`) and the Rust side \
         (`model::rss::regs`).",
    )?;
    markdown::paragraph(
        out,
        "Updates are staged: write a rule or a context into the staging registers, then write \
         `COMMIT`. New packets are held at the parser while the packets already in the pipeline \
         finish with the old configuration; then the staged values are copied in one clock. \
         Every packet sees the whole old or the whole new rule or context. Register writes are \
         not accepted while a commit is pending (`STATUS.BUSY`). Indirection tables have two \
         banks per context: write the bank the context does not use, then commit the context \
         with `CTX_CONTROL.BANK` pointing at it.",
    )?;
    markdown::registers(out, 3, MAP)
}
