//! QP states and the transitions verbs allows (docs/reference.md §6).

use core::fmt;

/// The state of a QP. SQD and SQE are not modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum QpState {
    /// Created, or reset: no work is processed, posted requests are refused.
    #[default]
    Reset = 0,
    /// Initialised: receive requests may be posted.
    Init = 1,
    /// Ready to receive. An RC QP's UDP source port and flow label are fixed on entry.
    Rtr = 2,
    /// Ready to send.
    Rts = 3,
    /// Error: every outstanding and later request completes as flushed.
    Err = 6,
}

/// A transition verbs refuses (`ibv_modify_qp` returns `EINVAL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalTransition {
    /// The state the QP is in (and stays in).
    pub from: QpState,
    /// The state asked for.
    pub to: QpState,
}

impl QpState {
    /// Every state, in code order.
    pub const ALL: [QpState; 5] = [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Err,
    ];

    /// The verbs code (`IBV_QPS_*`).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The state of a verbs code, if modelled.
    pub const fn from_code(code: u8) -> Option<QpState> {
        match code {
            0 => Some(QpState::Reset),
            1 => Some(QpState::Init),
            2 => Some(QpState::Rtr),
            3 => Some(QpState::Rts),
            6 => Some(QpState::Err),
            _ => None,
        }
    }

    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            QpState::Reset => "reset",
            QpState::Init => "init",
            QpState::Rtr => "rtr",
            QpState::Rts => "rts",
            QpState::Err => "err",
        }
    }

    /// Whether a modify from `self` to `to` is legal, following the table of Linux's
    /// `ib_modify_qp_is_ok` (IBTA vol. 1 §10.3): RESET→{RESET, INIT}; INIT→{INIT, RTR};
    /// RTR→RTS; RTS→RTS; and from every state but RESET to ERR; from every state to RESET.
    pub const fn can_modify_to(self, to: QpState) -> bool {
        use QpState::*;
        matches!(
            (self, to),
            (_, Reset)
                | (Reset, Init)
                | (Init, Init)
                | (Init, Rtr)
                | (Rtr, Rts)
                | (Rts, Rts)
                | (Init | Rtr | Rts | Err, Err)
        )
    }

    /// The state after a modify to `to`, or the refusal.
    pub const fn modify(self, to: QpState) -> Result<QpState, IllegalTransition> {
        if self.can_modify_to(to) {
            Ok(to)
        } else {
            Err(IllegalTransition { from: self, to })
        }
    }

    /// Whether send requests are processed (posting in RESET, INIT or RTR is refused; in ERR
    /// they are flushed).
    pub const fn sends(self) -> bool {
        matches!(self, QpState::Rts)
    }
}

impl fmt::Display for QpState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for IllegalTransition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal QP transition {} -> {}", self.from, self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::QpState::*;
    use super::*;

    #[test]
    fn every_transition() {
        // (from, to) pairs that are legal; every other pair of the 25 is refused.
        let legal = [
            (Reset, Reset),
            (Reset, Init),
            (Init, Reset),
            (Init, Init),
            (Init, Rtr),
            (Init, Err),
            (Rtr, Reset),
            (Rtr, Rts),
            (Rtr, Err),
            (Rts, Reset),
            (Rts, Rts),
            (Rts, Err),
            (Err, Reset),
            (Err, Err),
        ];
        for from in QpState::ALL {
            for to in QpState::ALL {
                let ok = legal.contains(&(from, to));
                assert_eq!(from.can_modify_to(to), ok, "{from} -> {to}");
                let want = if ok {
                    Ok(to)
                } else {
                    Result::Err(IllegalTransition { from, to })
                };
                assert_eq!(from.modify(to), want);
            }
        }
    }

    #[test]
    fn codes() {
        for s in QpState::ALL {
            assert_eq!(QpState::from_code(s.code()), Some(s));
        }
        assert_eq!(QpState::from_code(4), None); // SQD
        assert_eq!(QpState::from_code(5), None); // SQE
        assert!(Rts.sends() && !Rtr.sends() && !Err.sends());
    }
}
