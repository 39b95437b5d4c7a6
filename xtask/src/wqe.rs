//! The send engine's host-memory formats: `rtl/wqe/wqe_fmt_pkg.sv` and the field tables of
//! `docs/wqe.md`, from `model::wqe::layout` and the codes the formats carry (`model::wqe`'s
//! `Opcode`, `model::qp`'s `Status`, `QpState` and `PathMtu`).

use crate::{markdown, sv};
use rocenic_model::qp::{PathMtu, QpState, Status};
use rocenic_model::wqe::cqe::OPCODE_UNKNOWN;
use rocenic_model::wqe::layout::{control, SegField, SEGMENTS};
use rocenic_model::wqe::{Opcode, BLOCK_BYTES, MAX_BLOCKS, MAX_WQE_BYTES};
use std::fmt::{self, Write};

const LAYOUT: &str = "model/src/wqe/layout.rs";

/// `rtl/wqe/wqe_fmt_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "wqe_fmt_pkg",
        "model/src/wqe/layout.rs, mod.rs, cqe.rs and model/src/qp/",
        &[
            "The send engine's host-memory formats (docs/wqe.md): WQE blocks, every segment's",
            "fields, and the codes they carry. <SEG>_<FIELD>_OFF is a field's byte offset in its",
            "segment, _BYTES its size (little-endian), _W its significant low bits; the bits",
            "above _W, the bits of a flags field that no _<BIT>_LSB/_W names, and every RSVD",
            "area must be zero.",
        ],
    )?;
    writeln!(
        out,
        "    // A WQE is 1..MAX_BLOCKS blocks of BLOCK_BYTES (its control segment's BLOCKS)."
    )?;
    sv::uint(out, "BLOCK_BYTES", BLOCK_BYTES)?;
    sv::uint(out, "MAX_BLOCKS", MAX_BLOCKS)?;
    sv::uint(out, "MAX_WQE_BYTES", MAX_WQE_BYTES)?;
    for (name, size, table) in SEGMENTS {
        writeln!(out)?;
        writeln!(
            out,
            "    // The {name} segment: its size in bytes, then its fields."
        )?;
        sv::uint(out, format_args!("{name}_BYTES"), size)?;
        sv::segment(out, name, table)?;
    }
    codes(out)?;
    sv::close(out)
}

/// The codes the segments carry, and those of the QP context the engine reads with them.
fn codes(out: &mut String) -> fmt::Result {
    let w = control::OPCODE.bits;
    writeln!(out)?;
    writeln!(
        out,
        "    // CTRL_OPCODE values (ibv_wr_opcode); a CQE's OPCODE repeats the WQE's byte."
    )?;
    for op in Opcode::ALL {
        let name = format_args!("OPCODE_{}", sv::ident(op.name()));
        sv::logic(out, name, w, (op as u8).into())?;
    }
    writeln!(
        out,
        "    // A CQE's OPCODE when the WQE's was none of the above."
    )?;
    sv::logic(out, "OPCODE_UNKNOWN", w, OPCODE_UNKNOWN.into())?;

    sv::codes(
        out,
        "Completion statuses, CQE_STATUS (ibv_wc_status).",
        "STATUS_",
        Status::BITS,
        Status::ALL.map(|st| (st.name(), st.code())),
    )?;
    sv::codes(
        out,
        "QP states (ibv_qp_state).",
        "QP_STATE_",
        code_bits(QpState::ALL.map(QpState::code)),
        QpState::ALL.map(|s| (s.name(), s.code())),
    )?;

    let w = code_bits(PathMtu::ALL.map(PathMtu::code));
    writeln!(out)?;
    writeln!(
        out,
        "    // Path MTU codes (ibv_mtu) and their sizes in bytes."
    )?;
    sv::uint(out, "PATH_MTU_W", w)?;
    for m in PathMtu::ALL {
        sv::logic(out, format_args!("PATH_MTU_{m}"), w, m.code().into())?;
        sv::uint(out, format_args!("PATH_MTU_{m}_BYTES"), m.bytes())?;
    }
    Ok(())
}

/// The fewest bits that hold every one of `codes`.
fn code_bits<const N: usize>(codes: [u8; N]) -> u32 {
    let max = codes.into_iter().max().unwrap_or(0);
    (u8::BITS - max.leading_zeros()).max(1)
}

/// The table of segment `name` between its markers, then `after`'s paragraphs.
fn section(
    out: &mut String,
    name: &str,
    source: &str,
    after: fn(&mut String) -> fmt::Result,
) -> fmt::Result {
    let table: &[SegField] = SEGMENTS
        .iter()
        .find(|s| s.0 == name)
        .unwrap_or_else(|| panic!("model::wqe::layout::SEGMENTS has no {name}"))
        .2;
    markdown::section_open(out, name, source)?;
    markdown::segment(out, table)?;
    after(out)?;
    markdown::section_close(out, name)
}

fn nothing(_: &mut String) -> fmt::Result {
    Ok(())
}

/// Section `CTRL` of `docs/wqe.md`: the control segment and the opcodes.
pub fn markdown_ctrl(out: &mut String) -> fmt::Result {
    section(out, "CTRL", LAYOUT, |out| {
        let ops: Vec<String> = Opcode::ALL
            .iter()
            .map(|&op| format!("{} `{}`", op as u8, op.name()))
            .collect();
        markdown::paragraph(
            out,
            &format!(
                "`OPCODE` values (`model::wqe::Opcode`): {}. An engine without TSO (the RTL \
                 engine built with `TSO` = 0) refuses `tso` as an unknown opcode.",
                ops.join(", ")
            ),
        )
    })
}

/// Section `AV` of `docs/wqe.md`.
pub fn markdown_av(out: &mut String) -> fmt::Result {
    section(out, "AV", LAYOUT, nothing)
}

/// Section `RADDR` of `docs/wqe.md`.
pub fn markdown_raddr(out: &mut String) -> fmt::Result {
    section(out, "RADDR", LAYOUT, nothing)
}

/// Section `DATA` of `docs/wqe.md`.
pub fn markdown_data(out: &mut String) -> fmt::Result {
    section(out, "DATA", LAYOUT, nothing)
}

/// Section `CQE` of `docs/wqe.md`: the completion and the statuses.
pub fn markdown_cqe(out: &mut String) -> fmt::Result {
    section(
        out,
        "CQE",
        "model/src/wqe/layout.rs and model/src/qp/status.rs",
        |out| {
            let codes: Vec<String> = Status::ALL
                .iter()
                .map(|st| format!("{} `{}`", st.code(), st.name()))
                .collect();
            markdown::paragraph(
                out,
                &format!(
                    "`STATUS` values (`model::qp::Status`): {}.",
                    codes.join(", ")
                ),
            )
        },
    )
}
