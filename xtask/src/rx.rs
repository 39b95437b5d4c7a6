//! The receive side's host-memory formats, rendered from `model::rx::layout` into the tables of
//! `docs/rx.md` (the RTL package follows with the receive path's RTL).

use crate::markdown;
use rocenic_model::rx::layout::{CQE, HEADER};
use rocenic_model::rx::RecvOpcode;
use std::fmt;

const LAYOUT: &str = "model/src/rx/layout.rs";

/// Section `RWQE` of `docs/rx.md`: the receive WQE's header.
pub fn markdown_wqe(out: &mut String) -> fmt::Result {
    markdown::section_open(out, "RWQE", LAYOUT)?;
    markdown::segment(out, HEADER)?;
    markdown::section_close(out, "RWQE")
}

/// Section `RCQE` of `docs/rx.md`: the receive completion and its opcodes.
pub fn markdown_cqe(out: &mut String) -> fmt::Result {
    markdown::section_open(out, "RCQE", LAYOUT)?;
    markdown::segment(out, CQE)?;
    markdown::paragraph(
        out,
        &format!(
            "`OPCODE` values (`model::rx::RecvOpcode`, the `ibv_wc_opcode` numbers): {:#04x} \
             `RECV`, {:#04x} `RECV_RDMA_WITH_IMM`.",
            RecvOpcode::Recv as u8,
            RecvOpcode::RecvRdmaWithImm as u8
        ),
    )?;
    markdown::section_close(out, "RCQE")
}
