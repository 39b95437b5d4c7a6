//! The UART bridge's codes: `rtl/top/uart_bridge_pkg.sv` and `docs/uart-bridge-codes.md`, from
//! `model::bridge`.

use crate::{markdown, sv};
use rocenic_model::bridge::{Op, Status, REPLY_START, REQUEST_START};
use std::fmt::{self, Write};

const SOURCE: &str = "model/src/bridge/codes.rs";

/// `rtl/top/uart_bridge_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "uart_bridge_pkg",
        SOURCE,
        &["The UART bridge's start bytes, operation and status codes (docs/uart-bridge.md)."],
    )?;
    writeln!(out, "    // Start bytes of a request and of a reply.")?;
    sv::logic(out, "BRIDGE_SOF_REQ", 8, REQUEST_START.into())?;
    sv::logic(out, "BRIDGE_SOF_REP", 8, REPLY_START.into())?;
    for op in Op::ALL {
        writeln!(out)?;
        writeln!(out, "    // {op}")?;
        sv::logic(
            out,
            format_args!("BRIDGE_OP_{}", op.name()),
            8,
            op.code().into(),
        )?;
    }
    for st in Status::KNOWN {
        writeln!(out)?;
        writeln!(out, "    // {st}")?;
        sv::logic(
            out,
            format_args!("BRIDGE_ST_{}", st.name()),
            8,
            st.code().into(),
        )?;
    }
    sv::close(out)
}

/// `docs/uart-bridge-codes.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "UART bridge codes",
        &format!(
            "The start bytes, operation and status codes in the frames of the UART bridge \
             ([uart-bridge.md](uart-bridge.md)): a request starts with 0x{REQUEST_START:02x}, a \
             reply with 0x{REPLY_START:02x}. The RTL has them from `rtl/top/uart_bridge_pkg.sv`, \
             the Rust side from `model::bridge`."
        ),
    )?;
    markdown::paragraph(out, "## Operations (request byte 1)")?;
    markdown::codes(
        out,
        2,
        Op::ALL.map(|op| (op.code().into(), op.name(), op.to_string())),
    )?;
    markdown::paragraph(out, "## Status (reply byte 1)")?;
    markdown::codes(
        out,
        2,
        Status::KNOWN.map(|st| (st.code().into(), st.name(), st.to_string())),
    )
}
