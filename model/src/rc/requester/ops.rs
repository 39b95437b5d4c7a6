//! The requester as one operation at a time (docs/rc-requester.md): every call
//! of [`Requester`]'s API as an [`Op`], every result as an [`Answer`], and the codes the RTL
//! block `rc_requester` uses for both (`rc_pkg::RC_REQ_OP_*`, `rc_pkg::RC_REQ_ANS_*`,
//! generated from [`OpCode`] and [`AnswerCode`]). The block takes one operation at a time and
//! gives one answer for each; [`Requester::apply`] is what it must answer.

use super::{AckOutcome, Completion, Packet, PostError, ReadMatch, Requester, TickOutcome};
use crate::qp::{Psn, Status};
use crate::wire::ib::{AethRepr, Syndrome};

/// One call of the requester's API. `now` is the caller's clock in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// [`Requester::post`] or, with `read`, [`Requester::post_read`].
    Post {
        /// The request's id.
        wr_id: u64,
        /// Its packet count (a READ's: its response count).
        packets: u32,
        /// An RDMA READ.
        read: bool,
    },
    /// [`Requester::send`].
    Send {
        /// The clock.
        now: u64,
    },
    /// [`Requester::receive`] of an acknowledgement whose AETH syndrome byte is `syndrome`: a
    /// reserved syndrome or NAK code is ignored ([`Answer::Stale`]), as the frame parser
    /// refuses it before it reaches the requester.
    Receive {
        /// The BTH PSN.
        psn: Psn,
        /// The AETH syndrome byte.
        syndrome: u8,
        /// The clock.
        now: u64,
    },
    /// [`Requester::read_match`].
    ReadMatch {
        /// The READ response's PSN.
        psn: Psn,
    },
    /// [`Requester::read_accept`].
    ReadAccept {
        /// The READ response's PSN.
        psn: Psn,
        /// The clock.
        now: u64,
    },
    /// [`Requester::read_gap`].
    ReadGap {
        /// The READ response's PSN.
        psn: Psn,
        /// The clock.
        now: u64,
    },
    /// [`Requester::tick`].
    Tick {
        /// The clock.
        now: u64,
    },
    /// [`Requester::poll`].
    Poll,
    /// [`Requester::abort`].
    Abort {
        /// The PSN the send engine could not build.
        psn: Psn,
        /// The status its request completes with.
        status: Status,
    },
}

/// What an [`Op`] gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Nothing: no packet to send, no completion ready, no timer due, an abort taken.
    Nothing,
    /// Posted at this first PSN.
    Posted(Psn),
    /// The post was refused.
    Refused(PostError),
    /// A packet to send.
    Packet(Packet),
    /// An acknowledgement or READ response: [`AckOutcome`].
    Ack(AckOutcome),
    /// A tick that did something: [`TickOutcome`] other than `Idle`.
    Tick(TickOutcome),
    /// A completion.
    Completion(Completion),
    /// Where a READ response stands.
    Read(ReadMatch),
}

/// The RTL's operation codes (`rc_pkg::RC_REQ_OP_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OpCode {
    /// Start again at a first PSN, with nothing posted (a QP moved to RTS).
    Init = 0,
    /// [`Op::Post`].
    Post = 1,
    /// [`Op::Send`].
    Send = 2,
    /// [`Op::Receive`].
    Receive = 3,
    /// [`Op::ReadMatch`].
    ReadMatch = 4,
    /// [`Op::ReadAccept`].
    ReadAccept = 5,
    /// [`Op::ReadGap`].
    ReadGap = 6,
    /// [`Op::Tick`].
    Tick = 7,
    /// [`Op::Poll`].
    Poll = 8,
    /// [`Op::Abort`].
    Abort = 9,
}

impl OpCode {
    /// Every code, in order.
    pub const ALL: [OpCode; 10] = [
        OpCode::Init,
        OpCode::Post,
        OpCode::Send,
        OpCode::Receive,
        OpCode::ReadMatch,
        OpCode::ReadAccept,
        OpCode::ReadGap,
        OpCode::Tick,
        OpCode::Poll,
        OpCode::Abort,
    ];

    /// The lower-case name (the generated package's constant names).
    pub const fn name(self) -> &'static str {
        match self {
            OpCode::Init => "init",
            OpCode::Post => "post",
            OpCode::Send => "send",
            OpCode::Receive => "receive",
            OpCode::ReadMatch => "read_match",
            OpCode::ReadAccept => "read_accept",
            OpCode::ReadGap => "read_gap",
            OpCode::Tick => "tick",
            OpCode::Poll => "poll",
            OpCode::Abort => "abort",
        }
    }
}

impl Op {
    /// Its RTL code.
    pub const fn code(&self) -> OpCode {
        match self {
            Op::Post { .. } => OpCode::Post,
            Op::Send { .. } => OpCode::Send,
            Op::Receive { .. } => OpCode::Receive,
            Op::ReadMatch { .. } => OpCode::ReadMatch,
            Op::ReadAccept { .. } => OpCode::ReadAccept,
            Op::ReadGap { .. } => OpCode::ReadGap,
            Op::Tick { .. } => OpCode::Tick,
            Op::Poll => OpCode::Poll,
            Op::Abort { .. } => OpCode::Abort,
        }
    }
}

/// The RTL's answer codes (`rc_pkg::RC_REQ_ANS_*`): one per variant of every answer, the
/// values that go with it in the answer's other fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum AnswerCode {
    /// [`Answer::Nothing`].
    Nothing = 0,
    /// [`Answer::Posted`]: the first PSN.
    Posted = 1,
    /// [`PostError::Full`].
    Full = 2,
    /// [`PostError::Span`].
    Span = 3,
    /// [`PostError::Error`].
    Refused = 4,
    /// [`Answer::Packet`]: PSN, id, index, packets, AckReq, resend.
    Packet = 5,
    /// [`AckOutcome::Stale`] or [`ReadMatch::Stale`].
    Stale = 6,
    /// [`AckOutcome::Progress`].
    Progress = 7,
    /// [`AckOutcome::GoBack`]: the PSN.
    GoBack = 8,
    /// [`AckOutcome::RnrWait`]: the tick.
    RnrWait = 9,
    /// [`AckOutcome::Error`] or [`TickOutcome::Error`]: the status.
    Error = 10,
    /// [`TickOutcome::Timeout`]: the PSN.
    Timeout = 11,
    /// [`TickOutcome::RnrResume`].
    RnrResume = 12,
    /// [`Answer::Completion`]: id and status.
    Completion = 13,
    /// [`ReadMatch::Expected`]: id, index, packets.
    Expected = 14,
    /// [`ReadMatch::OutOfSequence`].
    OutOfSequence = 15,
}

impl AnswerCode {
    /// Every code, in order.
    pub const ALL: [AnswerCode; 16] = [
        AnswerCode::Nothing,
        AnswerCode::Posted,
        AnswerCode::Full,
        AnswerCode::Span,
        AnswerCode::Refused,
        AnswerCode::Packet,
        AnswerCode::Stale,
        AnswerCode::Progress,
        AnswerCode::GoBack,
        AnswerCode::RnrWait,
        AnswerCode::Error,
        AnswerCode::Timeout,
        AnswerCode::RnrResume,
        AnswerCode::Completion,
        AnswerCode::Expected,
        AnswerCode::OutOfSequence,
    ];

    /// The lower-case name (the generated package's constant names).
    pub const fn name(self) -> &'static str {
        match self {
            AnswerCode::Nothing => "nothing",
            AnswerCode::Posted => "posted",
            AnswerCode::Full => "full",
            AnswerCode::Span => "span",
            AnswerCode::Refused => "refused",
            AnswerCode::Packet => "packet",
            AnswerCode::Stale => "stale",
            AnswerCode::Progress => "progress",
            AnswerCode::GoBack => "go_back",
            AnswerCode::RnrWait => "rnr_wait",
            AnswerCode::Error => "error",
            AnswerCode::Timeout => "timeout",
            AnswerCode::RnrResume => "rnr_resume",
            AnswerCode::Completion => "completion",
            AnswerCode::Expected => "expected",
            AnswerCode::OutOfSequence => "out_of_sequence",
        }
    }
}

impl Answer {
    /// Its RTL code.
    pub const fn code(&self) -> AnswerCode {
        match self {
            Answer::Nothing | Answer::Tick(TickOutcome::Idle) => AnswerCode::Nothing,
            Answer::Posted(_) => AnswerCode::Posted,
            Answer::Refused(PostError::Full) => AnswerCode::Full,
            Answer::Refused(PostError::Span) => AnswerCode::Span,
            Answer::Refused(PostError::Error) => AnswerCode::Refused,
            Answer::Packet(_) => AnswerCode::Packet,
            Answer::Ack(AckOutcome::Stale) | Answer::Read(ReadMatch::Stale) => AnswerCode::Stale,
            Answer::Ack(AckOutcome::Progress) => AnswerCode::Progress,
            Answer::Ack(AckOutcome::GoBack(_)) => AnswerCode::GoBack,
            Answer::Ack(AckOutcome::RnrWait(_)) => AnswerCode::RnrWait,
            Answer::Ack(AckOutcome::Error(_)) | Answer::Tick(TickOutcome::Error(_)) => {
                AnswerCode::Error
            }
            Answer::Tick(TickOutcome::Timeout(_)) => AnswerCode::Timeout,
            Answer::Tick(TickOutcome::RnrResume) => AnswerCode::RnrResume,
            Answer::Completion(_) => AnswerCode::Completion,
            Answer::Read(ReadMatch::Expected { .. }) => AnswerCode::Expected,
            Answer::Read(ReadMatch::OutOfSequence) => AnswerCode::OutOfSequence,
        }
    }
}

impl<const W: usize> Requester<W> {
    /// Carries out `op` and says what it gave.
    pub fn apply(&mut self, op: Op) -> Answer {
        match op {
            Op::Post {
                wr_id,
                packets,
                read,
            } => match self.post_as(wr_id, packets, read) {
                Ok(first) => Answer::Posted(first),
                Err(e) => Answer::Refused(e),
            },
            Op::Send { now } => self.send(now).map_or(Answer::Nothing, Answer::Packet),
            Op::Receive { psn, syndrome, now } => match Syndrome::from_byte(syndrome) {
                Ok(syndrome) => Answer::Ack(self.receive(psn, AethRepr { syndrome, msn: 0 }, now)),
                Err(_) => Answer::Ack(AckOutcome::Stale),
            },
            Op::ReadMatch { psn } => Answer::Read(self.read_match(psn)),
            Op::ReadAccept { psn, now } => Answer::Ack(self.read_accept(psn, now)),
            Op::ReadGap { psn, now } => Answer::Ack(self.read_gap(psn, now)),
            Op::Tick { now } => match self.tick(now) {
                TickOutcome::Idle => Answer::Nothing,
                t => Answer::Tick(t),
            },
            Op::Poll => self.poll().map_or(Answer::Nothing, Answer::Completion),
            Op::Abort { psn, status } => {
                self.abort(psn, status);
                Answer::Nothing
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rc::{RequesterConfig, Scale};

    fn requester() -> Requester<4> {
        Requester::new(RequesterConfig {
            sq_psn: Psn::new(0xFF_FFFE).unwrap(),
            timeout: 3,
            retry_cnt: 1,
            rnr_retry: 0,
            scale: Scale(1),
            max_inflight: 8,
        })
    }

    #[test]
    fn every_call_answers_as_the_api() {
        let mut r = requester();
        let first = Psn::new(0xFF_FFFE).unwrap();
        assert_eq!(
            r.apply(Op::Post {
                wr_id: 7,
                packets: 3,
                read: false
            }),
            Answer::Posted(first)
        );
        let Answer::Packet(p) = r.apply(Op::Send { now: 0 }) else {
            panic!("a packet")
        };
        assert_eq!((p.psn, p.wr_id, p.index, p.ack_req), (first, 7, 0, false));
        assert_eq!(r.apply(Op::Poll), Answer::Nothing);
        // A reserved syndrome (0b010) and a reserved NAK code are ignored.
        for syndrome in [0x40, 0x65] {
            let ans = r.apply(Op::Receive {
                psn: first,
                syndrome,
                now: 1,
            });
            assert_eq!(ans, Answer::Ack(AckOutcome::Stale));
            assert_eq!(ans.code(), AnswerCode::Stale);
        }
        assert_eq!(r.apply(Op::Tick { now: 7 }), Answer::Nothing);
        let t = r.apply(Op::Tick { now: 8 });
        assert_eq!(t, Answer::Tick(TickOutcome::Timeout(first)));
        assert_eq!(t.code(), AnswerCode::Timeout);
        assert_eq!(
            r.apply(Op::ReadMatch { psn: first }),
            Answer::Read(ReadMatch::Stale)
        );
        r.apply(Op::Abort {
            psn: first,
            status: Status::GeneralErr,
        });
        assert_eq!(
            r.apply(Op::Poll),
            Answer::Completion(Completion {
                wr_id: 7,
                status: Status::GeneralErr
            })
        );
        assert_eq!(
            r.apply(Op::Post {
                wr_id: 8,
                packets: 1,
                read: false
            })
            .code(),
            AnswerCode::Refused
        );
    }

    #[test]
    fn codes_are_their_index() {
        for (i, c) in OpCode::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{}", c.name());
        }
        for (i, c) in AnswerCode::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{}", c.name());
        }
    }
}
