//! The reliable connection's codes, `rtl/rc/rc_pkg.sv` from `model::rc::responder`,
//! `model::rc::requester` and `model::wire::ib::aeth`: the responder's PSN classes and
//! execution verdicts, the AETH syndrome bytes, half the PSN space, and the requester's
//! operation and answer codes, limits and completion statuses.

use crate::sv;
use rocenic_model::qp::Psn;
use rocenic_model::qp::Status;
use rocenic_model::rc::responder::{Executed, PsnClass};
use rocenic_model::rc::{AnswerCode, OpCode, MAX_RD_ATOMIC, RNR_RETRY_FOREVER};
use rocenic_model::wire::ib::{NakCode, Syndrome, CREDITS_UNLIMITED};
use std::fmt::{self, Write};

/// `rtl/rc/rc_pkg.sv`.
pub fn sv_package(out: &mut String) -> fmt::Result {
    sv::open(
        out,
        "rc_pkg",
        "model/src/rc/ and model/src/wire/ib/aeth.rs",
        &[
            "The responder's rules (rc_responder): where a PSN lies, what executing a packet",
            "found, and the AETH syndromes of its answers (docs/rc.md, \"The responder in RTL\");",
            "the requester's (rc_requester): its operations, answers, limits and statuses",
            "(docs/rc.md, \"The requester in RTL\").",
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
    sv::codes(
        out,
        "The requester's operations (model::rc::OpCode).",
        "RC_REQ_OP_",
        4,
        OpCode::ALL.map(|c| (c.name(), c as u8)),
    )?;
    sv::codes(
        out,
        "The requester's answers (model::rc::AnswerCode).",
        "RC_REQ_ANS_",
        4,
        AnswerCode::ALL.map(|c| (c.name(), c as u8)),
    )?;
    sv::codes(
        out,
        "The completion statuses the requester gives (model::qp::Status).",
        "RC_STATUS_",
        5,
        // All but the send engine's own failures, which an ABORT hands in.
        Status::ALL
            .into_iter()
            .filter(|s| {
                !matches!(
                    s,
                    Status::LocLenErr
                        | Status::LocQpOpErr
                        | Status::LocProtErr
                        | Status::GeneralErr
                )
            })
            .map(|s| (s.name(), s as u8)),
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "    // READs outstanding at most (model::rc::MAX_RD_ATOMIC); the rnr_retry that never ends."
    )?;
    sv::uint(out, "RC_MAX_RD_ATOMIC", MAX_RD_ATOMIC as u32)?;
    sv::logic(out, "RC_RNR_RETRY_FOREVER", 3, RNR_RETRY_FOREVER.into())?;
    sv::close(out)
}
