//! The receive path's register map: `rtl/rx/rx_regs_pkg.sv` and `docs/rx-registers.md`, from
//! `model::rx::regs`.

use crate::{markdown, sv};
use rocenic_model::rx::regs::{command, op, qp_target, target_kind, ID_VALUE, MAP};
use rocenic_model::rx::Discard;
use std::fmt;

const SOURCE: &str = "model/src/rx/regs.rs";

/// `COMMAND.OP` values by name.
const OPS: [(&str, u8); 5] = [
    ("WQ_WRITE", op::WQ_WRITE as u8),
    ("WQ_MODIFY", op::WQ_MODIFY as u8),
    ("WQ_DESTROY", op::WQ_DESTROY as u8),
    ("QP_ATTACH", op::QP_ATTACH as u8),
    ("QP_DETACH", op::QP_DETACH as u8),
];

/// `QP_TARGET.KIND` values by name.
const KINDS: [(&str, u8); 3] = [
    ("OWN", target_kind::OWN as u8),
    ("SHARED", target_kind::SHARED as u8),
    ("RSS", target_kind::RSS as u8),
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

/// `rtl/rx/rx_regs_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "rx_regs_pkg",
        SOURCE,
        &["The receive path's AXI4-Lite register map (docs/rx-registers.md)."],
    )?;
    sv::uint(out, "RX_ID_VALUE", format_args!("32'h{ID_VALUE:08x}"))?;
    sv::uint(out, "RX_ADDR_W", addr_bits())?;
    sv::codes(
        out,
        "COMMAND.OP values (model::rx::regs::op).",
        "RX_OP_",
        command::OP.width,
        OPS,
    )?;
    sv::codes(
        out,
        "QP_TARGET.KIND values (model::rx::regs::target_kind).",
        "RX_TARGET_",
        qp_target::KIND.width,
        KINDS,
    )?;
    sv::registers(out, "RX_", addr_bits(), MAP)?;
    sv::close(out)
}

/// `docs/rx-registers.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "Receive path registers",
        "The register map of the receive path ([rx.md](rx.md)): AXI4-Lite, 32-bit words, byte \
         offsets. The same map drives the RTL (`rtl/rx/rx_regs_pkg.sv`) and the Rust side \
         (`model::rx::regs`).",
    )?;
    markdown::paragraph(
        out,
        "Work queues and receive contexts are staged: write a queue into the `WQ_` registers or \
         a QP's receive context into the `QP_` registers, then write `COMMAND`. The command \
         takes effect between two frames; meanwhile `STATUS.BUSY` is set and further register \
         writes wait (reads go on). `STATUS.CMD_ERROR` then says whether it was refused (a \
         queue number past `CAPS.WQS`, a queue that exists or does not, a modify verbs refuses, \
         a destroy of a queue a QP names, a QPN whose slot holds another QP, RSS for an RC QP), \
         in which case nothing changed. A QP's receive slot is its QPN's low bits, modulo \
         `CAPS.QPS`; its state is the send side's slot of the same number. 64-bit numbers are \
         two words, the low word first. Unmapped addresses read 0 and ignore writes; \
         write-only registers read 0.",
    )?;
    let ops: Vec<String> = OPS
        .iter()
        .map(|(name, value)| format!("{value} `{name}`"))
        .collect();
    let reasons: Vec<String> = Discard::ALL
        .iter()
        .map(|d| format!("{} `{}`", *d as u8, d.name()))
        .collect();
    markdown::paragraph(
        out,
        &format!(
            "`COMMAND.OP` values: {}. `DISCARDS` words by reason: {}.",
            ops.join(", "),
            reasons.join(", ")
        ),
    )?;
    markdown::registers(out, 4, MAP)
}
