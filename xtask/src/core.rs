//! The board core's register map: `rtl/top/rocenic_core_regs_pkg.sv` and
//! `docs/core-registers.md`, from `model::bridge::regs`.

use crate::{markdown, sv};
use rocenic_model::bridge::regs::{ID_VALUE, MAP, MAP_VERSION, WINDOW_WORDS};
use std::fmt;

const SOURCE: &str = "model/src/bridge/regs.rs";

/// `rtl/top/rocenic_core_regs_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "rocenic_core_regs_pkg",
        SOURCE,
        &[
            "The board core's register map: word addresses on the UART bridge's bus",
            "(docs/core-registers.md).",
        ],
    )?;
    sv::logic(out, "CORE_ID_VALUE", 32, ID_VALUE)?;
    sv::uint(out, "CORE_MAP_VERSION", MAP_VERSION)?;
    sv::uint(out, "CORE_WINDOW_WORDS", WINDOW_WORDS)?;
    sv::registers(out, "CORE_", 16, MAP)?;
    sv::close(out)
}

/// `docs/core-registers.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "Board core registers",
        "The registers of `rtl/top/rocenic_core.sv`, which every board top puts behind the UART \
         bridge ([uart-bridge.md](uart-bridge.md)): 32-bit registers at word addresses. The same \
         map drives the RTL (`rtl/top/rocenic_core_regs_pkg.sv`) and the Rust side \
         (`model::bridge::regs`, used by `host-driver/`).",
    )?;
    markdown::paragraph(
        out,
        "Registers come in pages of 16 words: common (0x000x), entropy unit (0x010x), RSS hash \
         (0x020x), RSS key (0x021x) and RSS data (0x023x); the `R_` pages exist when \
         `CAPS.RSS` is set. Unmapped addresses read 0 and ignore writes. A write to a `GO` \
         register submits one request; while it waits for its unit (`BUSY`), the request's \
         registers keep their values and a further `GO` sets `OVERRUN` instead. One entropy \
         request is one write of six words (`E_CTRL` to `E_GO`) and one read of three \
         (`E_STATUS` to `E_UDP_SPORT`): the unit finishes in a few clocks, far below one byte \
         time, so `DONE` is set by the time the read arrives.",
    )?;
    markdown::registers(out, 4, MAP)
}
