//! The WQE engine's register map: `rtl/wqe/wqe_regs_pkg.sv` and `docs/wqe-registers.md`, from
//! `model::wqe::regs`.

use crate::{markdown, sv};
use rocenic_model::wqe::regs::{command, op, ID_VALUE, MAP, MR_SLOT_LSB};
use std::fmt;

const SOURCE: &str = "model/src/wqe/regs.rs";

/// `COMMAND.OP` values by name.
const OPS: [(&str, u8); 5] = [
    ("QP_WRITE", op::QP_WRITE as u8),
    ("QP_MODIFY", op::QP_MODIFY as u8),
    ("QP_DESTROY", op::QP_DESTROY as u8),
    ("MR_WRITE", op::MR_WRITE as u8),
    ("MR_CLEAR", op::MR_CLEAR as u8),
];

/// Address bits that reach every word of the map.
fn addr_bits() -> u32 {
    let end = MAP
        .iter()
        .map(|r| r.offset + 4 * r.words)
        .max()
        .unwrap_or(4);
    u32::BITS - (end - 1).leading_zeros()
}

/// `rtl/wqe/wqe_regs_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "wqe_regs_pkg",
        SOURCE,
        &["The WQE engine's AXI4-Lite register map (docs/wqe-registers.md)."],
    )?;
    sv::uint(out, "WQE_ID_VALUE", format_args!("32'h{ID_VALUE:08x}"))?;
    sv::uint(out, "WQE_ADDR_W", addr_bits())?;
    sv::uint(out, "WQE_MR_SLOT_LSB", MR_SLOT_LSB)?;
    sv::codes(
        out,
        "COMMAND.OP values (model::wqe::regs::op).",
        "WQE_OP_",
        command::OP.width,
        OPS,
    )?;
    sv::registers(out, "WQE_", addr_bits(), MAP)?;
    sv::close(out)
}

/// `docs/wqe-registers.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "WQE engine registers",
        "The register map of the WQE engine's control plane ([wqe-ctrl.md](wqe-ctrl.md#control-plane-rtl)): \
         AXI4-Lite, 32-bit words, byte offsets. The same map drives the RTL \
         (`rtl/wqe/wqe_regs_pkg.sv`) and the Rust side (`model::wqe::regs`).",
    )?;
    markdown::paragraph(
        out,
        "QPs and memory regions are staged: write a QP context or a region into the `QP_` or \
         `MR_` registers, then write `COMMAND`. The command waits until the data path is idle \
         and the scheduler has stopped, then takes effect at once; meanwhile `STATUS.BUSY` is \
         set and further register writes wait (reads go on). `STATUS.CMD_ERROR` then says \
         whether it was refused, in which case nothing changed. Multi-word values: addresses, \
         MACs and IPs are byte strings, word i holding bytes 4i..4i+3 with byte 4i in bits \
         31:24; 64-bit numbers are two words, the low word first. Unmapped addresses read 0 \
         and ignore writes; write-only registers read 0.",
    )?;
    let ops: Vec<String> = OPS
        .iter()
        .map(|(name, value)| format!("{value} `{name}`"))
        .collect();
    markdown::paragraph(
        out,
        &format!(
            "`COMMAND.OP` values: {}. A memory region's table slot is its lkey's bits {} and \
             up, modulo the table size (`CAPS.MRS`).",
            ops.join(", "),
            MR_SLOT_LSB
        ),
    )?;
    markdown::registers(out, 4, MAP)
}
