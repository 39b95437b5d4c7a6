//! The reliable connection's codes, `rtl/rc/rc_pkg.sv` from `model::rc::responder`,
//! `model::rc::requester` and `model::wire::ib::aeth`: the responder's PSN classes and
//! execution verdicts, the AETH syndrome bytes, half the PSN space, the requester's operation
//! and answer codes, limits and completion statuses, and the RNR NAK's delays
//! (`model::rc::timer`).

use crate::sv;
use rocenic_model::qp::Psn;
use rocenic_model::qp::Status;
use rocenic_model::rc::responder::{Executed, PsnClass};
use rocenic_model::rc::timer::RNR_DELAY_US;
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
            "found, and the AETH syndromes of its answers (docs/rc-responder.md);",
            "the requester's (rc_requester): its operations, answers, limits and statuses",
            "(docs/rc-requester.md); the RNR NAK's delays (rc_timer).",
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
    rnr_delays(out)?;
    sv::close(out)
}

/// Bits of one RNR delay in tens of microseconds: the longest, 655,360 µs, is 65,536.
const RNR_10US_W: u32 = 17;

/// The RNR NAK's delay of each timer code (model::rc::timer::RNR_DELAY_US) in tens of
/// microseconds, packed with code 0 in the low bits. Every delay is a whole number of tens of
/// microseconds, which keeps a delay within one multiplier's 18-bit port.
fn rnr_delays(out: &mut String) -> fmt::Result {
    writeln!(out)?;
    writeln!(
        out,
        "    // The RNR NAK's delay of each timer code, in tens of microseconds (model::rc::timer::"
    )?;
    writeln!(
        out,
        "    // RNR_DELAY_US / 10), {RNR_10US_W} bits each, code 0 in the low bits."
    )?;
    sv::uint(out, "RC_RNR_10US_W", RNR_10US_W)?;
    let bits = RNR_10US_W as usize * RNR_DELAY_US.len();
    writeln!(
        out,
        "    localparam logic [{}:0] RC_RNR_DELAY_10US = {{",
        bits - 1
    )?;
    for (n, (code, us)) in RNR_DELAY_US.iter().enumerate().rev().enumerate() {
        assert!(
            us % 10 == 0 && us / 10 < 1 << RNR_10US_W,
            "RNR delay {us} µs is not a whole number of tens below 2^{RNR_10US_W}"
        );
        let sep = if n + 1 == RNR_DELAY_US.len() { "" } else { "," };
        let item = format!("{RNR_10US_W}'d{}{sep}", us / 10);
        writeln!(out, "        {item:<12}// code {code}")?;
    }
    writeln!(out, "    }};")
}
