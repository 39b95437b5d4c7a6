//! The receive side's classification codes and limits, `rtl/rx/rx_pkg.sv` from `model::rx` and
//! `model::rx::packet`; and its host-memory formats, rendered from `model::rx::layout` into the
//! tables of `docs/rx.md`.

use crate::{markdown, sv};
use rocenic_model::rx::layout::{CQE, HEADER};
use rocenic_model::rx::packet::{supported, MAX_FRAME};
use rocenic_model::rx::{Discard, RecvOpcode, GRH_AREA};
use rocenic_model::wire::ib::{opcode, Syndrome, AETH_LEN, BTH_LEN};
use rocenic_model::wire::{udp, ICRC_LEN};
use rocenic_model::wqe::frame::PKEY;
use std::fmt::{self, Write};

const LAYOUT: &str = "model/src/rx/layout.rs";

/// `rtl/rx/rx_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "rx_pkg",
        "model/src/rx/mod.rs and packet.rs",
        &[
            "What the receive path's front end (rx_check) reads from a frame: the discard codes,",
            "the longest frame, the P_Key a RoCEv2 packet must carry, and which BTH opcodes it",
            "takes and with which extension headers (docs/rx.md, \"Classification\").",
        ],
    )?;
    sv::codes(
        out,
        "Why a frame was not taken (model::rx::Discard).",
        "RX_DISCARD_",
        u8::BITS - (Discard::ALL.len() as u8 - 1).leading_zeros(),
        Discard::ALL.map(|d| (d.name(), d as u8)),
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "    // Longer frames are malformed (model::rx::packet::MAX_FRAME); the GRH area of a UD"
    )?;
    writeln!(out, "    // receive buffer; the one P_Key taken.")?;
    sv::uint(out, "RX_MAX_FRAME", MAX_FRAME)?;
    sv::uint(out, "RX_GRH_AREA", GRH_AREA)?;
    sv::logic(out, "RX_PKEY", 16, PKEY.into())?;
    writeln!(out)?;
    writeln!(
        out,
        "    // BTH opcodes, bit o for opcode o: taken here (model::rx::packet::supported), and of"
    )?;
    writeln!(
        out,
        "    // those, the ones a RETH, a DETH or an ImmDt header follows (model::wire::ib::opcode)."
    )?;
    type Has = fn(u8) -> bool;
    let masks: [(&str, Has); 4] = [
        ("TAKEN", |_| true),
        ("RETH", opcode::has_reth),
        ("DETH", opcode::has_deth),
        ("IMMDT", opcode::has_immdt),
    ];
    for (name, has) in masks {
        sv::bitmask(out, format_args!("RX_OPCODE_{name}"), 256, |o| {
            supported(o as u8) && has(o as u8)
        })?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "    // An Acknowledge frame as model::rc::parse_ack takes it: its opcode, its UDP length"
    )?;
    writeln!(
        out,
        "    // (UDP, BTH, AETH and ICRC; no pad), and the AETH syndromes that are not reserved."
    )?;
    sv::logic(out, "RX_OPCODE_ACK", 8, opcode::RC_ACK.into())?;
    sv::uint(
        out,
        "RX_ACK_UDP_LEN",
        udp::HEADER_LEN + BTH_LEN + AETH_LEN + ICRC_LEN,
    )?;
    sv::bitmask(out, "RX_AETH_SYNDROME_OK", 256, |b| {
        Syndrome::from_byte(b as u8).is_ok()
    })?;
    sv::close(out)
}

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
