//! The full core's address map: `rtl/top/nic_regs_pkg.sv` and `docs/nic-registers.md`, from
//! `model::nic::regs`.

use crate::{markdown, sv};
use rocenic_model::nic::regs::{ADDR_W, UNMAPPED_READ, WINDOWS};
use std::fmt::{self, Write};

const SOURCE: &str = "model/src/nic/regs.rs";

/// Each window's block page in docs/.
fn page(name: &str) -> &'static str {
    match name {
        "WQE" => "wqe-registers.md",
        "RSS" => "rss-registers.md",
        "RX" => "rx-registers.md",
        other => panic!("no register page for window {other}"),
    }
}

/// `rtl/top/nic_regs_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "nic_regs_pkg",
        SOURCE,
        &[
            "The full core's AXI4-Lite address map: one window per register block",
            "(docs/nic-registers.md). Window i is port i of nic_axil.",
        ],
    )?;
    sv::uint(out, "NIC_ADDR_W", ADDR_W)?;
    sv::uint(out, "NIC_WINDOWS", WINDOWS.len())?;
    sv::logic(out, "NIC_UNMAPPED_READ", 32, UNMAPPED_READ)?;
    for (i, w) in WINDOWS.iter().enumerate() {
        writeln!(out)?;
        writeln!(out, "    // {}: {}", w.name, w.doc)?;
        sv::uint(out, format_args!("NIC_{}", w.name), i)?;
        sv::logic(out, format_args!("NIC_{}_BASE", w.name), ADDR_W, w.base)?;
        sv::uint(out, format_args!("NIC_{}_ADDR_W", w.name), w.addr_bits)?;
    }
    // nic_axil's parameters: every window's base and address bits, window 0 in the low bits.
    writeln!(out)?;
    writeln!(
        out,
        "    // Every window at once, window 0 in the low bits (nic_axil's BASES, ADDR_WS)."
    )?;
    let bases: Vec<String> = WINDOWS
        .iter()
        .rev()
        .map(|w| format!("32'h{:08x}", w.base))
        .collect();
    writeln!(
        out,
        "    localparam logic [{}:0] NIC_BASES = {{{}}};",
        32 * WINDOWS.len() - 1,
        bases.join(", ")
    )?;
    let bits: Vec<String> = WINDOWS
        .iter()
        .rev()
        .map(|w| format!("8'd{}", w.addr_bits))
        .collect();
    writeln!(
        out,
        "    localparam logic [{}:0] NIC_ADDR_WS = {{{}}};",
        8 * WINDOWS.len() - 1,
        bits.join(", ")
    )?;
    sv::close(out)
}

/// `docs/nic-registers.md`.
pub fn markdown(out: &mut String) -> fmt::Result {
    markdown::open(
        out,
        SOURCE,
        "Full core address map",
        "The address map of the full core's one AXI4-Lite port ([top.md](top.md)): a window per \
         register block, each holding that block's own map at offsets from its base. The same \
         map drives the RTL (`rtl/top/nic_regs_pkg.sv`, `rtl/top/nic_axil.sv`) and the Rust \
         side (`model::nic::regs`, the host driver's `Block::base`).",
    )?;
    markdown::paragraph(
        out,
        &format!(
            "A window is as large as its block's map reaches, rounded up to a power of two, and \
             starts at a multiple of its size, so the decode looks at the address's upper bits \
             only and the block sees the lower ones unchanged: register `R` of a block is at \
             the window's base plus `R`'s offset. The port has {ADDR_W} address bits; higher \
             bits are not decoded. An address in no window reads 0x{UNMAPPED_READ:x} and a \
             write there is ignored, both answered OKAY, the rule each block's map already \
             has for its own unmapped offsets."
        ),
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| Window | Base | End | Size | Address bits | Block | Registers |"
    )?;
    writeln!(out, "|---:|---|---|---:|---:|---|---|")?;
    let hole = |out: &mut String, from: u32, to: u32| {
        if from < to {
            writeln!(
                out,
                "| | 0x{from:04x} | 0x{:04x} | {} | | unmapped | |",
                to - 1,
                to - from
            )
        } else {
            Ok(())
        }
    };
    let mut next = 0;
    for (i, w) in WINDOWS.iter().enumerate() {
        hole(out, next, w.base)?;
        writeln!(
            out,
            "| {i} `{}` | 0x{:04x} | 0x{:04x} | {} | {} | {} | [{}]({}) |",
            w.name,
            w.base,
            w.end() - 1,
            w.size(),
            w.addr_bits,
            w.doc,
            page(w.name),
            page(w.name)
        )?;
        next = w.end();
    }
    hole(out, next, 1 << ADDR_W)?;
    Ok(())
}
