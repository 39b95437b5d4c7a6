//! The reliable connection's codes, `rtl/rc/rc_pkg.sv` from `model::rc::responder` and
//! `model::wire::ib::aeth`: the responder's PSN classes and execution verdicts, the AETH
//! syndrome bytes it answers with, and half the PSN space.

use crate::sv;
use rocenic_model::qp::Psn;
use rocenic_model::rc::responder::{Executed, PsnClass};
use rocenic_model::wire::ib::{NakCode, Syndrome, CREDITS_UNLIMITED};
use std::fmt::{self, Write};

/// `rtl/rc/rc_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "rc_pkg",
        "model/src/rc/responder.rs and model/src/wire/ib/aeth.rs",
        &[
            "The responder's rules (rc_responder): where a PSN lies, what executing a packet",
            "found, and the AETH syndromes of its answers (docs/rc.md, \"The responder in RTL\").",
        ],
    )?;
    sv::codes(
        out,
        "Where a request's PSN lies against the expected one (model::rc::PsnClass).",
        "RC_CLASS_",
        2,
        PsnClass::ALL.map(|c| (c.name(), c as u8)),
    )?;
    sv::codes(
        out,
        "What executing an expected packet found (model::rc::Executed).",
        "RC_EXEC_",
        3,
        Executed::ALL.map(|e| (e.name(), e as u8)),
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "    // AETH syndrome bytes (model::wire::ib::Syndrome): an ACK with unlimited credits, the"
    )?;
    writeln!(
        out,
        "    // RNR NAK's top three bits (its low five the timer code), the NAKs by code."
    )?;
    let ack = Syndrome::Ack {
        credits: CREDITS_UNLIMITED,
    };
    sv::logic(out, "RC_SYN_ACK", 8, ack.to_byte().into())?;
    sv::logic(
        out,
        "RC_SYN_RNR",
        8,
        Syndrome::RnrNak { timer: 0 }.to_byte().into(),
    )?;
    for (name, code) in [
        ("SEQ", NakCode::PsnSequence),
        ("INVALID", NakCode::InvalidRequest),
        ("ACCESS", NakCode::RemoteAccess),
        ("OPERATIONAL", NakCode::RemoteOperational),
    ] {
        sv::logic(
            out,
            format_args!("RC_SYN_NAK_{name}"),
            8,
            Syndrome::Nak(code).to_byte().into(),
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "    // Half the PSN space: a PSN this far or farther ahead counts as behind."
    )?;
    sv::logic(out, "RC_PSN_HALF", 24, Psn::HALF)?;
    sv::close(out)
}
