//! The TSO segmenter's status codes: `rtl/tso/tso_status_pkg.sv`, from `model::tso::Status`.

use crate::sv;
use rocenic_model::tso::{Status, STATUS_BITS};
use std::fmt::{self, Write};

/// `rtl/tso/tso_status_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "tso_status_pkg",
        "model/src/tso/status.rs",
        &["The TSO segmenter's status codes (m_sts_error): 0, or why a send failed."],
    )?;
    sv::uint(out, "TSO_STATUS_W", STATUS_BITS)?;
    for st in Status::KNOWN {
        writeln!(out)?;
        writeln!(out, "    // {st}")?;
        let name = format_args!("TSO_ERR_{}", st.name());
        sv::logic(out, name, STATUS_BITS, st.code().into())?;
    }
    sv::close(out)
}
